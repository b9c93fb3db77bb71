"""Pure functions from the measured data (`data/*.json`, see `generator.measure.matrix`) to what the templates show.

The timeline's behaviour matrix and the migration guide's "Warnings you cannot fix yet" section state only what a
probe observed. The table decides which rows and releases there are; one the data does not cover shows as
*not measured* (and `tests/test_matrix.py` fails on it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from checkpointing_migrate.table import EmittedWarning, Rename, RenameKind, Status, Table
from generator.measure.data import (
    CodeLine,
    DownstreamEntry,
    DownstreamWarning,
    Measured,
    Outcome,
    RecordedWarning,
    row_key,
)
from generator.measure.scenarios import Scenario
from generator.pages.views import WarningFilter

NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Cell:
    """What one name does in one release."""

    outcome: str
    """`works`, `warns`, `raises`, `absent` or `not measured`: a stable word the page styles and tests read."""
    word: str
    """The word the grid shows: `works`, `warns`, the exception type, `exists`, `absent` or `not measured`."""


OUTCOMES = {
    "works": ("✓", "works silently: no warning, no exception"),
    "warns": ("⚠", "works and emits the warning named in the cell"),
    "raises": ("✗", "raises the exception named in the cell, although the release has the name"),
    "absent": ("∅", "the release has no attribute, parameter, field, flag or key of that name"),
    NOT_MEASURED: ("?", "no measurement recorded for this release"),
}
"""Outcome → the icon the grid shows beside its word, and what it means (the legend). Icons are never alone."""


@dataclass(frozen=True)
class GridRow:
    """One old/new pair of the table across the measured releases: the grid's row."""

    row: Rename
    anchor: str
    """The id of the section below the grid that lists every scenario of the pair verbatim."""
    cells: tuple[tuple[Cell, Cell], ...]
    """Per release: what the old name did, what the new name did."""


@dataclass(frozen=True)
class ProbeCell:
    """One scenario in one release."""

    outcome: str
    refs: tuple[int, ...]
    """Numbers of the notes (warnings, exceptions) the scenario produced."""
    effect: str
    """What the use did, e.g. `checkpointing=true`; empty when nothing was observed."""


@dataclass(frozen=True)
class ProbeLine:
    """One scenario of one row across the measured releases."""

    scenario: str
    uses: str
    """`old`, `new` or `both`."""
    cells: tuple[ProbeCell, ...]


@dataclass(frozen=True)
class ProbeTable:
    """Every scenario of one row, with the messages the cells refer to by number."""

    row: Rename
    anchor: str
    lines: tuple[ProbeLine, ...]
    notes: tuple[str, ...]
    """`Category: message` of each distinct warning or exception, numbered from 1 in order of appearance."""


@dataclass(frozen=True)
class Matrix:
    """Per-library behaviour of every old and new name in each listed release, as measured."""

    library: str
    columns: tuple[str, ...]
    """The listed releases, oldest first."""
    rows: tuple[GridRow, ...]
    probes: tuple[ProbeTable, ...]
    versions: dict[str, Mapping[str, str]]
    """Release → the versions that answered (transformers, torch, and the library itself)."""


def _summary(outcome: Outcome | None) -> Cell:
    if outcome is None:
        return Cell(NOT_MEASURED, NOT_MEASURED)
    kind = outcome.outcome
    if outcome.scenario == Scenario.EXISTS:
        return Cell(kind, "exists" if kind == "works" else "absent")
    if kind == "raises" and outcome.error is not None:
        return Cell(kind, outcome.error.type)
    return Cell(kind, kind)


def anchor(row: Rename) -> str:
    """A stable id for a row's section: its library, kind, owner and old name, lower-case, dashes only."""
    text = f"probe {row.library} {row.kind} {row.owner} {row.old}"
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _effect_text(effect: Mapping[str, object] | None) -> str:
    return "" if effect is None else ", ".join(f"{key}={json.dumps(value)}" for key, value in effect.items())


def _probe_table(row: Rename, releases: list[str], per_release: list[tuple[Outcome, ...]]) -> ProbeTable:
    notes: list[str] = []

    def note(text: str) -> int:
        if text not in notes:
            notes.append(text)
        return notes.index(text) + 1

    plans = [(o.scenario, o.uses) for o in next((r for r in per_release if r), ())]
    lines = []
    for scenario, uses in plans:
        cells = []
        for outcomes in per_release:
            found = next((o for o in outcomes if (o.scenario, o.uses) == (scenario, uses)), None)
            if found is None:
                cells.append(ProbeCell(NOT_MEASURED, (), ""))
                continue
            refs = [note(f"{w.category}: {w.message}") for w in found.warnings]
            if found.error:
                refs.append(note(f"{found.error.type}: {found.error.message}"))
            cells.append(ProbeCell(found.outcome, tuple(refs), _effect_text(found.effect)))
        lines.append(ProbeLine(scenario, uses, tuple(cells)))
    return ProbeTable(row, anchor(row), tuple(lines), tuple(notes))


def matrices(table: Table, measured: Measured) -> list[Matrix]:
    """One matrix per library that has renames and listed releases, in the order of `libraries`: a cell says what
    the first use of a name did in that release, and the details list every scenario with its recorded warning or
    exception verbatim."""
    out = []
    for library in table.libraries:
        rows = list(table.select(library=library))
        releases = [r.version for r in table.releases_of(library)]
        if not rows or not releases:
            continue
        grid, probes = [], []
        for row in rows:
            per_release = [measured.of_row(library, release, row_key(row)) for release in releases]
            cells = []
            for outcomes in per_release:
                old, new = (next((o for o in outcomes if o.uses == which), None) for which in ("old", "new"))
                cells.append((_summary(old), _summary(new)))
            grid.append(GridRow(row, anchor(row), tuple(cells)))
            if row.status == Status.SHIPPED:
                probes.append(_probe_table(row, releases, per_release))
        versions = {r: measured.versions[(library, r)] for r in releases if (library, r) in measured.versions}
        out.append(Matrix(library, tuple(releases), tuple(grid), tuple(probes), versions))
    return out


# --- The downstream section ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DownstreamExample:
    """Entry points that emit the same warnings from the same lines, shown with one doc-tested example."""

    titles: tuple[str, ...]
    """What the user calls, e.g. `get_peft_model()`; the first one is the example's."""
    library: str
    warnings: tuple[DownstreamWarning, ...]
    """Each warning with its `site` (file, line and code in the library) and `emitted_at` (transformers line)."""
    how: str
    pycon: str
    """The example as a pycon session: the call with its warnings, then the same call with the narrowest filter."""
    filters: tuple[str, ...]
    """One `warnings.filterwarnings(...)` line per warning, as used in the example."""
    fix: str | None
    """A pycon session with the new names that avoids the warning, when the user's own code can (its own example)."""


def _statement(code: str) -> list[str]:
    lines = code.splitlines()
    return [f">>> {lines[0]}", *(f"... {line}" for line in lines[1:])]


def _filtered(code: str, filters: list[str]) -> list[str]:
    body = [
        "with warnings.catch_warnings():",
        *(f"    {f}" for f in filters),
        *(f"    {line}" for line in code.splitlines()),
    ]
    return _statement("\n".join(body))


def _warning_lines(warnings: Sequence[RecordedWarning]) -> list[str]:
    return [f"{w.category}: {w.message}" for w in warnings]


def downstream(measured: Measured) -> list[DownstreamExample]:
    """The measured entry points that warn, grouped by what they emit and from where, in measurement order."""
    groups: dict[tuple[tuple[str, CodeLine | None], ...], list[DownstreamEntry]] = {}
    for entry in measured.downstream.entries:
        if entry.warnings:
            key = tuple((w.message, w.site) for w in entry.warnings)
            groups.setdefault(key, []).append(entry)
    examples = []
    for entries in groups.values():
        first = entries[0]
        filters = list(
            dict.fromkeys(
                WarningFilter(EmittedWarning(w.category, w.message), ()).python("ignore") for w in first.warnings
            )
        )
        lines = [line for code in first.setup for line in _statement(code)]
        lines += _statement(first.call) + _warning_lines(first.warnings)
        lines += _filtered(first.call, filters)
        fix = None
        if first.fix is not None:
            fix = "\n".join(_statement(first.fix.code) + _warning_lines(first.fix.warnings))
        examples.append(
            DownstreamExample(
                titles=tuple(e.title for e in entries),
                library=first.library,
                warnings=first.warnings,
                how=first.how,
                pycon="\n".join(lines),
                filters=tuple(filters),
                fix=fix,
            )
        )
    return examples


@dataclass(frozen=True)
class DroppedKey:
    """A release in which a new config key passed with `allow_extra_keys=True` was dropped without a word."""

    release: str
    row: Rename
    effect: Mapping[str, object]
    """The values the resulting arguments hold (only fields the release has)."""


def dropped_keys(table: Table, measured: Measured) -> list[DroppedKey]:
    """The measured `parse_dict(..., allow_extra_keys=True)` uses of a new key (a shipped or removed config-key row)
    that the release does not have and that neither raised nor warned: the value is lost silently."""
    out = []
    for row in table.select(RenameKind.CONFIG_KEY, shipped=True):
        for release in measured.releases.get(row.library, []):
            for o in measured.of_row(row.library, release, row_key(row)):
                if (o.scenario, o.uses, o.outcome) == (Scenario.PARSE_DICT, "new", "absent") and not (
                    o.warnings or o.error
                ):
                    out.append(DroppedKey(release, row, o.effect or {}))
    return out


def override_outcomes(table: Table, measured: Measured) -> dict[str, list[tuple[str, Outcome]]]:
    """Per `override` row's old name: (release, outcome of a model that defines only the old name), oldest first."""
    out: dict[str, list[tuple[str, Outcome]]] = {}
    for row in table.select(RenameKind.OVERRIDE):
        for release in measured.releases.get(row.library, []):
            first = next((o for o in measured.of_row(row.library, release, row_key(row)) if o.uses == "old"), None)
            if first is not None:
                out.setdefault(row.old, []).append((release, first))
    return out


def context(table: Table, measured: Measured) -> dict[str, Any]:
    """What the templates may use from the measured data."""
    return {
        "matrices": matrices(table, measured),
        "outcomes": OUTCOMES,
        "downstream": downstream(measured),
        "downstream_versions": measured.downstream.versions,
        "downstream_silent": [e.title for e in measured.downstream.entries if not e.warnings],
        "dropped_keys": dropped_keys(table, measured),
        "override_outcomes": override_outcomes(table, measured),
    }
