"""The answer a reader needs first: what was renamed, since when, the common lines before → after, the tool.

Home and the migration guide open with it (`templates/_first_screen.md.j2`). Every name and version comes from the
table's rows, the tool's install and command name from `checkpointing_migrate.NAME`; counts are of distinct names, not rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from checkpointing_migrate import NAME
from checkpointing_migrate.table import Rename, RenameKind, Table


@dataclass(frozen=True)
class Line:
    """One common use, as the old and the new code."""

    where: str
    """What kind of file it is in: a script, a config, a command line."""
    before: tuple[str, ...]
    after: tuple[str, ...]
    """One or more spellings (a YAML key and a flag are one use)."""


@dataclass(frozen=True)
class Tool:
    """How the migration tool is installed and run (its distribution and console script, one name: a test checks
    it against pyproject.toml)."""

    package: str
    command: str


@dataclass(frozen=True)
class Answer:
    """Everything the first screen states."""

    library: str
    since: str
    removal: str
    category: str
    pattern_old: str
    """The old names as a wildcard (`gradient_checkpointing*`)."""
    pattern_new: str
    old_names: int
    """Distinct old names the shipped rows rename (a name renamed in two places counts once)."""
    messages: int
    """Distinct warning messages they print."""
    lines: tuple[Line, ...]
    tool: Tool


def tool() -> Tool:
    """The package to install and the command it provides."""
    return Tool(NAME, NAME)


def _library(table: Table) -> str:
    """The library that shipped the renames: the one of the table's first row with a release (`since`)."""
    return table.renamer


def _row(table: Table, kind: RenameKind, old_prefix: str = "") -> Rename:
    """The first transformers row of `kind` that a release shipped (whose old name starts with `old_prefix`); once a
    refresh records the removal its status is `removed`, and the first screen still states it."""
    return next(r for r in table.select(kind, library=_library(table), shipped=True) if r.old.startswith(old_prefix))


def answer(table: Table) -> Answer:
    """The first screen's facts, from the shipped transformers rows."""
    library = _library(table)
    shipped = table.select(library=library, shipped=True)
    enable, field = _row(table, RenameKind.METHOD), _row(table, RenameKind.FIELD)
    flag, key = _row(table, RenameKind.CLI_FLAG, "--"), _row(table, RenameKind.CONFIG_KEY)
    assert enable.since and enable.removal and enable.warning
    since = min((r.since for r in shipped if r.since), key=Version)
    lines = (
        Line("script", (f"model.{enable.old}()",), (f"model.{enable.new}()",)),
        Line("script", (f"TrainingArguments({field.old}=True)",), (f"TrainingArguments({field.new}=True)",)),
        Line("config or command line", (f"{key.old}: true", flag.old), (f"{key.new}: true", flag.new)),
    )
    return Answer(
        library=library,
        since=since,
        removal=enable.removal,
        category=enable.warning.category,
        pattern_old=f"{field.old}*",
        pattern_new=f"{field.new}*",
        old_names=len({r.old for r in shipped}),
        messages=len({r.warning for r in shipped if r.warning}),
        lines=lines,
        tool=tool(),
    )
