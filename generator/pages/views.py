"""Pure functions from the table to what the templates show: grouped rows, filters, the timeline.

Everything a page states about versions here is derived from `since`, `removal` and `warning`, so templates only
lay it out. What the releases *do* (the behaviour matrix) is measured, not derived: see `generator.pages.measured`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from checkpointing_migrate import codes, findings
from checkpointing_migrate.table import AUDIENCES, MODEL_PLACEHOLDER, EmittedWarning, Rename, RenameKind, Table
from generator.pages import answer, configs, guide_sections
from generator.pages.timeline_svg import timeline, timeline_svg

CLASS_NAME_PATTERN = r"[\w.]+"
"""What stands for the model class name in a filter's regular expression."""
EXAMPLE_MODEL = "MyModel"
"""The class name shown where a filter cannot take a pattern (`-W`)."""


@dataclass(frozen=True)
class WarningFilter:
    """One recorded warning and the ways to silence or promote just that warning."""

    warning: EmittedWarning
    olds: tuple[str, ...]
    """The old names that emit it."""
    caller: str = ""
    """Who emits it when that is not the old name itself (an `override` row's owner), else empty."""

    @property
    def regex(self) -> str:
        """For `warnings.filterwarnings(message=...)` and pytest's `filterwarnings`: matched at the start.

        A model class name in the message (`{model}`) matches any class name."""
        # Only the characters with a meaning in a regular expression: `re.escape` would also escape every space.
        parts = [re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", p) for p in self.warning.message.split(MODEL_PLACEHOLDER)]
        return CLASS_NAME_PATTERN.join(parts)

    def python(self, action: str) -> str:
        """A `warnings.filterwarnings` call, as code."""
        return f'warnings.filterwarnings("{action}", message=r"{self.regex}", category={self.warning.category})'

    def pytest(self, action: str) -> str:
        """A line for pytest's `filterwarnings` ini option (its message part is a regular expression)."""
        return f"{action}:{self.regex}:{self.warning.category}"

    def command_line(self, action: str) -> str:
        """A `-W` / `PYTHONWARNINGS` value (its message part is literal text, and `:` separates the parts).

        Meant for single quotes in a shell: the messages hold backticks, which double quotes would run. `-W` takes
        no pattern, so a message that names the model class is shown for a class named `EXAMPLE_MODEL`.
        """
        text = self.warning.text_for(EXAMPLE_MODEL).split(":")[0].replace("'", "'\\''")
        return f"{action}:{text}:{self.warning.category}"


def warning_filters(table: Table) -> list[WarningFilter]:
    """Each distinct recorded warning once, with the old names that emit it, in table order."""
    olds: dict[EmittedWarning, list[str]] = {}
    callers: dict[EmittedWarning, str] = {}
    for row in table.renames:
        if row.warning and row.old not in olds.setdefault(row.warning, []):
            olds[row.warning].append(row.old)
        if row.warning and row.kind == RenameKind.OVERRIDE:
            callers[row.warning] = row.owner
    return [WarningFilter(w, tuple(names), callers.get(w, "")) for w, names in olds.items()]


def distinct_warnings(rows: list[Rename]) -> list[EmittedWarning]:
    """The warnings of `rows`, each once, in row order."""
    return list(dict.fromkeys(r.warning for r in rows if r.warning))


def distinct_pairs(rows: list[Rename]) -> list[tuple[str, str, bool]]:
    """(old, new, shipped) of `rows`, each pair once, in row order: what a section that discusses them names."""
    return list(dict.fromkeys((r.old, r.new, bool(r.since)) for r in rows))


@dataclass(frozen=True)
class CodeRow:
    """One finding code as the "Finding codes" page lists it."""

    code: codes.Code
    guide: str | None
    """Link from `docs/generated/` to the guide section that explains it."""


def finding_codes(table: Table) -> list[CodeRow]:
    """The registry of the migration tool's codes (`checkpointing_migrate.codes`, a leaf module), in its order."""
    # `pages` reads the migration tool's registry rather than a copy: the leaf modules `codes` and `findings` import
    # nothing of the project, so the renderer does not load the scanner.
    guide, anchors = findings.GUIDE.rsplit("/", 1)[-1], guide_sections.anchors(table)
    return [CodeRow(c, f"{guide}#{anchors[c.section]}" if c.section else None) for c in codes.CODES.values()]


def context(table: Table) -> dict[str, Any]:
    """Everything the templates may use."""
    # A removed row is still a migration to make: it is listed with the shipped ones (its status column says so).
    shipped = list(table.shipped)
    events = timeline(table)
    return {
        "table": table,
        "libraries": table.libraries,
        "shipped": shipped,
        "rehearsed": table.planned_removals(),
        "planned": list(table.planned),
        "by_audience": {a: [r for r in shipped if a in r.audience] for a in AUDIENCES},
        "planned_by_audience": {a: [r for r in table.planned if a in r.audience] for a in AUDIENCES},
        "first_since": guide_sections.first_since(table),
        "guide_titles": guide_sections.titles(table),
        "guide_anchors": guide_sections.anchors(table),
        "timeline": events,
        "timeline_svg": timeline_svg(
            events,
            {k: lib.display for k, lib in table.libraries.items()},
            "Deprecation timeline of every library",
        ),
        "filters": warning_filters(table),
        "row": lambda library, old: _find(table, library, old),
        "row_of_kind": lambda kind: table.select(RenameKind(kind))[0],
        "example_model": EXAMPLE_MODEL,
        "distinct_warnings": distinct_warnings,
        "distinct_pairs": distinct_pairs,
        "finding_codes": finding_codes(table),
        "answer": answer.answer(table),
        "config_examples": configs.examples(table),
        "keep_keys": configs.keep_keys(table),
    }


def _find(table: Table, library: str, old: str) -> Rename:
    """The first row of `library` renaming `old`; templates use it to name things without typing them."""
    if (row := table.row_of(library, old)) is not None:
        return row
    raise LookupError(f"the table has no rename of '{old}' in {library}")
