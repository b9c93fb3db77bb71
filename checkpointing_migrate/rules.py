"""The rewrite rules, derived from the alias table's rows and from data measured in released wheels.

Nothing here lists a renamed name: every old → new pair is a `shipped` row of `aliases.yaml`, sorted by what it is
(`kind`) and whom it belongs to (`owner`), which also says where a name may stand (see `Rules`). `planned` rows (no
release has the new name) are only ever reported, as `info`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from checkpointing_migrate import records
from checkpointing_migrate.paths import TRAINING_ARGUMENTS_PATH
from checkpointing_migrate.table import Rename, RenameKind, Table

CLASSES_PATH = TRAINING_ARGUMENTS_PATH
"""Subclasses of the training-arguments class and the keys a training config may hold, measured from wheels."""


class Rules(NamedTuple):
    """The table's renames, indexed by where each name may stand in code, configs and command lines.

    The owner of the `method` rows is the model base class, the owner of the `field` rows is the training-arguments
    dataclass, an `argument` row owned by `Class.method` is a keyword of calls to that method, and a `cli-flag` row's
    owner names the parser that reads the flag. (A named tuple: one is made at every start, and a frozen dataclass
    costs several times as much to make.)"""

    members: dict[str, Rename]
    """Old model method or property name → its row (shipped `method`/`property` rows)."""
    member_kwargs: dict[str, dict[str, Rename]]
    """Model method name (old and new) → {old keyword: row} for `argument` rows owned by `Model.method`."""
    fields: dict[str, Rename]
    """Old training-arguments field → its row."""
    method_kwargs: dict[str, dict[str, Rename]]
    """Training-arguments method (e.g. `set_training`) → {old keyword: row}."""
    flags: dict[str, Rename]
    """Old CLI flag → its row."""
    keys: dict[str, Rename]
    """Old top-level config key → its row."""
    planned: dict[str, tuple[Rename, ...]]
    """Old name → the `planned` rows with that name (reported as `info` only)."""
    shared: dict[str, tuple[str, ...]]
    """Old member name → import names of other libraries whose API has a member of the same name."""
    callers: dict[str, Rename]
    """Old method name → the `override` row of the caller that still calls it on models defining only it (the
    Trainer), whose warning names the model class."""
    model_classes: frozenset[str]
    """Owners of the model method rows (the model base class)."""
    config_classes: frozenset[str]
    """The training-arguments class and its known subclasses (measured)."""
    config_keys: frozenset[str]
    """Every key a training config file may hold (measured), old and new names included."""
    library_dataclasses: Mapping[str, LibraryDataclass]
    """The libraries' other dataclasses their scripts parse, by class name (measured, `TrainingClasses`)."""
    measured_in: Mapping[str, str]
    """Library → the release `library_dataclasses` were read from."""
    parsers: frozenset[str]
    """Classes that parse the renamed CLI flags (from the `cli-flag` rows' owners)."""
    commands: frozenset[str]
    """Command-line programs that parse training flags themselves (from the owners, e.g. `trl sft`)."""
    stem: str
    """The longest text every old name contains: files without it are skipped unread by the parsers."""

    @property
    def new_names(self) -> frozenset[str]:
        """Every new name of a shipped row: seeing one next to its old name means both are set."""
        rows = [*self.members.values(), *self.fields.values(), *self.flags.values(), *self.keys.values()]
        rows += [r for kw in (*self.member_kwargs.values(), *self.method_kwargs.values()) for r in kw.values()]
        return frozenset(r.new for r in rows)

    def identifiers(self, *, planned: bool) -> frozenset[str]:
        """Old Python names worth a closer look; with `planned`, the not-yet-renamed names too."""
        names = {*self.members, *self.fields, *(k for kw in self.member_kwargs.values() for k in kw)}
        names |= {k for kw in self.method_kwargs.values() for k in kw}
        if planned:
            names |= self.planned_identifiers()
        return frozenset(names)

    @property
    def enable(self) -> str:
        """The old enable method: the member with renamed keywords (`gradient_checkpointing_enable`), whose new name
        calls an override of it with the new keywords."""
        return next((old for old in self.member_kwargs if old in self.members), "")

    def planned_identifiers(self) -> frozenset[str]:
        """The planned names that are Python names (not flags)."""
        return frozenset(n for n in self.planned if not n.startswith("-"))


def _common_substring(names: list[str]) -> str:
    """The longest substring of the first name that every name contains."""
    first = min(names, key=len)
    for size in range(len(first), 0, -1):
        for start in range(len(first) - size + 1):
            piece = first[start : start + size]
            if all(piece in n for n in names):
                return piece
    return ""


@dataclass(frozen=True)
class LibraryDataclass:
    """A dataclass of a library, not a training-arguments class, that the library's scripts hand to their parser."""

    library: str
    """The library that defines it: its import name (`trl`), as `TrainingClasses.sources` names it."""
    fields: tuple[str, ...]
    """Its fields, inherited ones included: the flags and config keys a parser given it reads into it."""


@dataclass(frozen=True)
class TrainingClasses:
    """`data/training-arguments.json`, measured from wheels by `python -m generator adoption`: what the table cannot
    say about the classes that hold the renamed `TrainingArguments` fields."""

    sources: Mapping[str, str]
    """Library → the release its classes were read from."""
    subclasses: Mapping[str, str]
    """Every class that subclasses a field row's owner (TRL's configs) → the library that defines it."""
    parsed_dataclasses: tuple[str, ...]
    """The dataclasses that libraries' own training scripts parse from command lines and configs."""
    config_keys: tuple[str, ...]
    """Every field of those classes: the keys a training config file may hold."""
    library_dataclasses: Mapping[str, LibraryDataclass]
    """Each of `parsed_dataclasses` that is not a training-arguments class (TRL's `ModelConfig`) → what it is: a
    parser given one reads the renamed flags into training arguments unless it declares the old field itself."""


def load_classes(path: Path = CLASSES_PATH) -> TrainingClasses:
    """The measured training-arguments data; `records.DocumentError` names the file and position of a problem."""
    return records.load(path, TrainingClasses)


def from_table(table: Table, classes: TrainingClasses | None = None) -> Rules:
    """The rules for `table`; `classes` defaults to the committed `data/training-arguments.json`."""
    classes = load_classes() if classes is None else classes
    # A removed old name is still one to migrate (more urgently); the first row of a name is the one its rules use.
    members = {r.old: r for r in reversed(table.select(RenameKind.METHOD, RenameKind.PROPERTY, shipped=True))}
    model_classes = frozenset(r.owner for r in members.values())
    fields = {r.old: r for r in reversed(table.select(RenameKind.FIELD, shipped=True))}
    field_owners = frozenset(r.owner for r in fields.values())

    member_kwargs: dict[str, dict[str, Rename]] = {}
    method_kwargs: dict[str, dict[str, Rename]] = {}
    for row in table.select(RenameKind.ARGUMENT, shipped=True):
        if row.owned.member is None:
            continue
        cls, method = row.owned.head, row.owned.member
        if cls in model_classes:
            method_row = members.get(method)
            for name in (method, method_row.new) if method_row else (method,):
                member_kwargs.setdefault(name, {})[row.old] = row
        elif cls in field_owners:
            method_kwargs.setdefault(method, {})[row.old] = row

    planned: dict[str, list[Rename]] = {}
    for row in table.planned:
        planned.setdefault(row.old, []).append(row)

    shared: dict[str, list[str]] = {}
    for key, library in table.libraries.items():
        for api in library.api:
            parts = api.removesuffix("()").split(".")
            for name, row in members.items():
                if key != row.library and parts[-1] == name:
                    shared.setdefault(name, []).append(parts[0])

    flag_rows = table.select(RenameKind.CLI_FLAG)
    parsers = {r.owned.head for r in flag_rows}
    # An owner such as "TrlParser (trl sft, trl dpo, ...)" names the programs that run that parser.
    commands = {d.split()[0] for r in flag_rows for d in r.owned.details}
    commands = {c for c in commands if c.isidentifier() and c not in parsers and c not in field_owners}

    olds = [r.old.lstrip("-") for r in table.renames]
    subclasses = classes.subclasses
    config_keys = set(classes.config_keys)
    keys = {r.old: r for r in table.select(RenameKind.CONFIG_KEY, shipped=True)}
    config_keys |= set(keys) | {r.new for r in keys.values()}
    return Rules(
        members=members,
        member_kwargs=member_kwargs,
        fields=fields,
        method_kwargs=method_kwargs,
        flags={r.old: r for r in table.select(RenameKind.CLI_FLAG, shipped=True)},
        keys=keys,
        planned={k: tuple(v) for k, v in planned.items()},
        shared={k: tuple(dict.fromkeys(v)) for k, v in shared.items()},
        callers={r.old: r for r in table.select(RenameKind.OVERRIDE, shipped=True)},
        model_classes=model_classes,
        config_classes=field_owners | frozenset(subclasses),
        config_keys=frozenset(config_keys),
        library_dataclasses=classes.library_dataclasses,
        measured_in=classes.sources,
        parsers=frozenset(parsers),
        commands=frozenset(commands),
        stem=_common_substring(olds),
    )
