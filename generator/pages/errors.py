"""Every warning and exception a user of the renamed names meets, as sections a pasted error text lands on.

Pure functions from the table (each row's recorded warning) and the measured data (`data/matrix.json`: the
warnings and exceptions each release produced, and those its source raises where no probe reaches;
`data/downstream-warnings.json`: the library calls that warn) to one `ErrorText` per distinct text (`heading_of`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from checkpointing_migrate import findings
from checkpointing_migrate.table import Rename, Table
from generator.measure.data import Measured, row_key


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


_TITLES = {
    "script": "Training scripts",
    "config": "Configs and command lines",
    "model": "Custom models and remote code",
    "library": "Libraries that call these names",
}
GUIDE_SECTIONS = {audience: (title, findings.SECTIONS[audience]) for audience, title in _TITLES.items()}
"""Audience → the migration guide's section for it (its heading, the anchor the tool's findings link to); the strict
build checks that the anchors exist."""


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


def error_texts(table: Table, measured: Measured) -> list[ErrorText]:
    """One entry per distinct heading: the table's warnings first (in table order), then exceptions as measured."""
    rows_by_key = {row_key(r): r for r in table.renames}
    found: dict[tuple[str, str], dict[str, Any]] = {}

    def entry(category: str, message: str, warning: bool) -> dict[str, Any]:
        key = (category, heading_of(message))
        item = found.setdefault(
            key, {"texts": [], "warning": warning, "rows": [], "causes": {}, "releases": {}, "read": {}, "sites": {}}
        )
        if message not in item["texts"]:
            item["texts"].append(message)
        return item

    for row in table.renames:
        if row.warning:
            item = entry(row.warning.category, row.warning.message, True)
            if row not in item["rows"]:
                item["rows"].append(row)
    for (library, release), outcomes in measured.outcomes.items():
        for outcome in outcomes:
            produced = [(w.category, w.message, True) for w in outcome.warnings]
            if outcome.error:
                produced.append((outcome.error.type, outcome.error.message, False))
            row = rows_by_key.get(outcome.row)
            for category, message, warning in produced:
                item = entry(category, message, warning)
                item["releases"].setdefault(library, set()).add(release)
                if row is not None:
                    cause = item["causes"].setdefault((row, outcome.scenario, outcome.uses), set())
                    cause.add(release)
    for (library, release), raised in measured.raised_in_source.items():
        for r in raised:
            if not r.probed:  # else the measured section says more
                item = entry(r.category, r.text, False)
                item["read"].setdefault(library, set()).add(release)
                lines = item["sites"].setdefault((library, r.path, r.function, r.condition), {})
                lines.setdefault(r.line, set()).add(release)
    emitted_downstream: dict[str, list[str]] = {}
    for downstream in measured.downstream.entries:
        for w in downstream.warnings:
            entry(w.category, w.message, True)
            titles = emitted_downstream.setdefault(w.message, [])
            if downstream.title not in titles:
                titles.append(downstream.title)

    out = []
    for (category, heading), item in found.items():
        produced = {lib: _sorted(releases) for lib, releases in item["releases"].items()}
        not_in = {lib: tuple(r for r in measured.releases.get(lib, []) if r not in produced[lib]) for lib in produced}
        read = {lib: _sorted(releases) for lib, releases in item["read"].items()}
        sites = tuple(
            SourceSite(lib, path, function, condition, tuple((n, _sorted(rel)) for n, rel in sorted(lines.items())))
            for (lib, path, function, condition), lines in item["sites"].items()
        )
        causes = tuple(
            Cause(row, scenario, uses, _sorted(releases)) for (row, scenario, uses), releases in item["causes"].items()
        )
        out.append(
            ErrorText(
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
                not_in_source={
                    lib: tuple(r for r in measured.releases.get(lib, []) if r not in read[lib]) for lib in read
                },
                sites=sites,
            )
        )
    return out


def _sorted(releases: set[str]) -> tuple[str, ...]:
    return tuple(sorted(releases, key=Version))


def context(table: Table, measured: Measured) -> dict[str, Any]:
    """What the errors page template uses."""
    return {"error_texts": error_texts(table, measured), "guide_sections": GUIDE_SECTIONS}
