"""Every warning and exception a user of the renamed names meets, as sections a pasted error text lands on.

Pure functions from the table and the measured data (`data/matrix.json`: what each release emitted and raised,
and what its source raises where no probe reaches; `data/downstream-warnings.json`: library calls that warn) to
one `ErrorText` per distinct text (`heading_of`) and one `Flag` per command-line flag of the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markdown.extensions.toc import slugify
from packaging.version import Version

from checkpointing_migrate.table import AUDIENCES, Rename, RenameKind, Table
from generator.measure.data import Measured, row_key
from generator.pages import guide_sections
from generator.pages.fixes import Setting, Snippet, condition_fix, settings, snippet, upgrade


@dataclass(frozen=True)
class Cause:
    """One measured way to get the text: a use of a row's names in some releases."""

    row: Rename
    scenario: str
    uses: str
    """`old`, `new` or `both`: which of the row's names the scenario used."""
    releases: tuple[str, ...]
    """The releases of the row's library in which the scenario produced the text."""

    @property
    def too_old(self) -> bool:
        """Every release that produced it predates the row's new name: the fix is the release (or the old name)."""
        since = self.row.since
        return since is not None and all(Version(r) < Version(since) for r in self.releases)


@dataclass(frozen=True)
class SourceSite:
    """Where releases' source raises a text that no probe produced, read without running it."""

    library: str
    path: str
    """Path inside the release, e.g. `transformers/trainer.py`."""
    function: str
    condition: str
    """The test of the innermost `if` around the `raise`, as source; empty when there is none."""
    lines: tuple[tuple[int, tuple[str, ...]], ...]
    """Each line the `raise` is on, with the releases that have it there."""
    settings: tuple[Setting, ...] = ()
    """What `condition` tests, as settings a user changes (`fixes.settings`); empty when it tests something else."""
    renamed: tuple[Rename, ...] = ()
    """The table's shipped rows that rename one of those settings (a training argument the condition reads)."""

    @property
    def fix(self) -> Snippet | None:
        """The keyword arguments that raise here, then the ones that do not."""
        return condition_fix(self.settings)


@dataclass(frozen=True)
class ErrorText:
    """One section of the page: a warning or exception text and what produces it."""

    category: str
    """The warning or exception class, e.g. `FutureWarning`, `TypeError`."""
    heading: str
    """The text's stable leading part: the whole message, or what comes before its first `: `."""
    texts: tuple[str, ...]
    """Every measured or recorded message with this heading, verbatim."""
    warning: bool
    """A warning (the code runs on) rather than an exception."""
    rows: tuple[Rename, ...]
    """The table rows whose recorded warning this is (empty for exceptions)."""
    produced_in: dict[str, tuple[str, ...]]
    """Library → the measured releases that produced the text."""
    not_in: dict[str, tuple[str, ...]]
    """Library → the measured releases that did not (for the same libraries)."""
    causes: tuple[Cause, ...]
    downstream: tuple[str, ...]
    """Entry points of other libraries (PEFT, TRL) whose own code emits it, as measured."""
    in_source: dict[str, tuple[str, ...]]
    """Library → the measured releases whose source raises the text where no probe produced it."""
    not_in_source: dict[str, tuple[str, ...]]
    """Library → the measured releases whose source does not (for the same libraries)."""
    sites: tuple[SourceSite, ...]
    """Where the source raises it (for `in_source`)."""
    seen: tuple[str, ...] = ()
    """Measured messages that fill in a placeholder of the recorded one (`{model}`: the probe's class)."""
    anchor: str = ""
    """The section's anchor on the page (what MkDocs' toc makes of the heading)."""
    fixes: tuple[Snippet, ...] = ()
    """Old -> new code, once each: for a warning its rows' names, for an exception the names of the causes in
    releases that have the new ones (mixing them is what raised)."""
    upgrades: tuple[Upgrade, ...] = ()
    """For causes in releases that all predate the row's new name: the requirement that leaves them out."""


@dataclass(frozen=True)
class Upgrade:
    """Releases of a library that predate new names a section's causes used: the fix is the requirement."""

    library: str
    since: str
    releases: tuple[str, ...]
    rows: tuple[Rename, ...]
    """The rows whose new names those releases lack, once per new name."""
    fix: Snippet


@dataclass(frozen=True)
class Flag:
    """One command-line flag of the table, as a section of its own: what a pasted command line lands on."""

    row: Rename
    fix: Snippet | None
    """Old flag -> new flag; `None` while the new one is only planned (the row's note says what to do)."""
    warns: ErrorText | None
    """The warning the old flag produces, where the table records one."""
    refused: tuple[ErrorText, ...]
    """The exceptions the new flag raises in releases before it."""


def guide_sections_of(table: Table) -> dict[str, tuple[str, str]]:
    """Audience → the migration guide's section for it (its heading, the anchor the tool's findings link to)."""
    titles, anchors = guide_sections.titles(table), guide_sections.anchors(table)
    return {audience: (titles[audience], anchors[audience]) for audience in AUDIENCES}


def heading_of(message: str) -> str:
    """The stable leading part of a message: variants listing different arguments after `: ` share it (one section
    headed by the common part, with every variant verbatim in its body). A `: ` inside backticks is code, not that
    separator (`gradient_checkpointing_kwargs={'selective': True}`)."""
    code = False
    for index, char in enumerate(message):
        if char == "`":
            code = not code
        elif not code and message.startswith(": ", index):
            return message[:index].rstrip()
    return message.rstrip()


class _Sections:
    """The sections `error_texts` gathers, by (category, heading) in the order first met, each as the raw facts."""

    def __init__(self, table: Table) -> None:
        self.placeholders = _placeholders(table)
        self.found: dict[tuple[str, str], dict[str, Any]] = {}

    def entry(self, category: str, message: str, warning: bool) -> dict[str, Any]:
        """The section `message` lands on (created on first use), with `message` recorded in it."""
        recorded = next((text for pattern, text in self.placeholders if pattern.fullmatch(message)), message)
        key = (category, heading_of(recorded))
        item = self.found.setdefault(
            key,
            {
                "texts": [],
                "seen": [],
                "warning": warning,
                "rows": [],
                "causes": {},
                "releases": {},
                "read": {},
                "sites": {},
            },
        )
        if recorded not in item["texts"]:
            item["texts"].append(recorded)
        if recorded != message and message not in item["seen"]:
            item["seen"].append(message)
        return item

    def add_table(self, table: Table) -> None:
        """The warnings the table records, with the rows that produce them."""
        for row in table.renames:
            if row.warning:
                item = self.entry(row.warning.category, row.warning.message, True)
                if row not in item["rows"]:
                    item["rows"].append(row)

    def add_outcomes(self, table: Table, measured: Measured) -> None:
        """What each measured release emitted and raised, with the scenarios that did it."""
        rows_by_key = {row_key(r): r for r in table.renames}
        for (library, release), outcomes in measured.outcomes.items():
            for outcome in outcomes:
                produced = [(w.category, w.message, True) for w in outcome.warnings]
                if outcome.error:
                    produced.append((outcome.error.type, outcome.error.message, False))
                row = rows_by_key.get(outcome.row)
                for category, message, warning in produced:
                    item = self.entry(category, message, warning)
                    item["releases"].setdefault(library, set()).add(release)
                    if row is not None:
                        cause = item["causes"].setdefault((row, outcome.scenario, outcome.uses), set())
                        cause.add(release)

    def add_source(self, measured: Measured) -> None:
        """What each release's source raises where no probe reaches, with the sites."""
        for (library, release), raised in measured.raised_in_source.items():
            for r in raised:
                if not r.probed:  # else the measured section says more
                    item = self.entry(r.category, r.text, False)
                    item["read"].setdefault(library, set()).add(release)
                    lines = item["sites"].setdefault((library, r.path, r.function, r.condition), {})
                    lines.setdefault(r.line, set()).add(release)

    def add_downstream(self, measured: Measured) -> dict[str, list[str]]:
        """The warnings library calls emit; returns message → the titles of the calls that emit it."""
        emitted: dict[str, list[str]] = {}
        for downstream in measured.downstream.entries:
            for w in downstream.warnings:
                self.entry(w.category, w.message, True)
                titles = emitted.setdefault(w.message, [])
                if downstream.title not in titles:
                    titles.append(downstream.title)
        return emitted


def error_texts(table: Table, measured: Measured) -> list[ErrorText]:
    """One entry per distinct heading: the table's warnings first (in table order), then exceptions as measured."""
    sections = _Sections(table)
    sections.add_table(table)
    sections.add_outcomes(table, measured)
    sections.add_source(measured)
    emitted_downstream = sections.add_downstream(measured)
    return [
        _error_text(table, measured, category, heading, item, emitted_downstream)
        for (category, heading), item in sections.found.items()
    ]


def _error_text(
    table: Table,
    measured: Measured,
    category: str,
    heading: str,
    item: dict[str, Any],
    emitted_downstream: dict[str, list[str]],
) -> ErrorText:
    produced = {lib: _sorted(releases) for lib, releases in item["releases"].items()}
    not_in = {lib: tuple(r for r in measured.releases.get(lib, []) if r not in produced[lib]) for lib in produced}
    read = {lib: _sorted(releases) for lib, releases in item["read"].items()}
    sites = tuple(
        _site(table, lib, path, function, condition, lines)
        for (lib, path, function, condition), lines in item["sites"].items()
    )
    causes = tuple(
        Cause(row, scenario, uses, _sorted(releases)) for (row, scenario, uses), releases in item["causes"].items()
    )
    fixes = [snippet(table, row) for row in item["rows"]]
    fixes += [snippet(table, c.row) for c in causes if not c.too_old and not item["warning"]]
    upgrades: dict[tuple[str, str], list[Cause]] = {}
    for c in causes:
        if c.too_old and c.row.since:
            upgrades.setdefault((c.row.library, c.row.since), []).append(c)
    return ErrorText(
        category=category,
        heading=heading,
        texts=tuple(item["texts"]),
        warning=item["warning"],
        rows=tuple(item["rows"]),
        produced_in=produced,
        not_in=not_in,
        causes=causes,
        downstream=tuple(t for text in item["texts"] for t in emitted_downstream.get(text, [])),
        in_source=read,
        not_in_source={lib: tuple(r for r in measured.releases.get(lib, []) if r not in read[lib]) for lib in read},
        sites=sites,
        seen=tuple(item["seen"]),
        anchor=slugify(heading.replace("`", ""), "-"),
        fixes=tuple(dict.fromkeys(fixes)),
        upgrades=tuple(_upgrade(table, lib, since, cs) for (lib, since), cs in upgrades.items()),
    )


def _upgrade(table: Table, library: str, since: str, causes: list[Cause]) -> Upgrade:
    rows = tuple({c.row.new: c.row for c in causes}.values())
    releases = _sorted({r for c in causes for r in c.releases})
    return Upgrade(library, since, releases, rows, upgrade(table, library, since))


def _placeholders(table: Table) -> list[tuple[re.Pattern[str], str]]:
    """Recorded warnings with a placeholder (`{model}`, the class name the message names at run time), each as the
    pattern its measured instances match: a measured text that fills one in shares its section."""
    out = []
    for row in table.renames:
        if row.warning and "{" in row.warning.message:
            parts = re.split(r"\{\w+\}", row.warning.message)
            out.append((re.compile(r"[^`\s]+".join(map(re.escape, parts))), row.warning.message))
    return out


def _site(
    table: Table, library: str, path: str, function: str, condition: str, lines: dict[int, set[str]]
) -> SourceSite:
    tested = settings(table, library, condition)
    names = {s.name for s in tested}
    renamed = tuple(r for r in table.select(RenameKind.FIELD, shipped=True) if names & {r.old, r.new})
    numbered = tuple((n, _sorted(releases)) for n, releases in sorted(lines.items()))
    return SourceSite(library, path, function, condition, numbered, tested, renamed)


def flags(table: Table, texts: list[ErrorText]) -> list[Flag]:
    """Every command-line flag the table renames, with the sections of what it produces."""
    out = []
    for row in table.select(RenameKind.CLI_FLAG):
        warns = next((e for e in texts if row.warning and row in e.rows), None)
        refused = tuple(e for e in texts if not e.warning and any(c.row == row and c.too_old for c in e.causes))
        out.append(Flag(row, snippet(table, row) if row.since else None, warns, refused))
    return out


def _sorted(releases: set[str]) -> tuple[str, ...]:
    return tuple(sorted(releases, key=Version))


def context(table: Table, measured: Measured) -> dict[str, Any]:
    """What the errors page template uses."""
    texts = error_texts(table, measured)
    return {"error_texts": texts, "flags": flags(table, texts), "guide_sections": guide_sections_of(table)}
