"""The alias table: its schema, loading from YAML with positions, validation, and its frozen form.

Every problem is collected before anything is reported, so one run of `python -m generator check` lists
all of them as `PATH:LINE:COL: message`. Positions come from PyYAML's composed nodes (not `yaml.safe_load`, which
drops them and duplicate keys); the frozen form, validated by `render`, is read for exactly the text it came from.
"""

from __future__ import annotations

import builtins
import datetime
import functools
import json
import re
import sys
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from packaging.version import InvalidVersion, Version

from checkpointing_migrate.located import Located, Position, ToolError
from checkpointing_migrate.paths import FROZEN_TABLE_PATH

if TYPE_CHECKING:
    import yaml


class RenameKind(StrEnum):
    """What a renamed name is; decides which names are valid and which guide sections list the row (a member is its
    string, as the table writes it)."""

    METHOD = "method"
    PROPERTY = "property"
    FIELD = "field"
    ARGUMENT = "argument"
    CLI_FLAG = "cli-flag"
    CONFIG_KEY = "config-key"
    CLASS = "class"
    ATTRIBUTE = "attribute"
    FUNCTION = "function"
    OVERRIDE = "override"
    """A method a model class defines for a caller (`owner`) to call: the warning comes from the caller, not from
    the name."""


KINDS = tuple(RenameKind)
"""Every rename kind, in the order the schema and the error messages list them."""

MODEL_PLACEHOLDER = "{model}"
"""Where a warning message holds the class name of the user's model (only `override` rows: the caller names it)."""


class Status(StrEnum):
    """How far a rename has come (a member is its string, as the table writes it)."""

    SHIPPED = "shipped"
    """Both names exist and the old one warns."""
    PLANNED = "planned"
    """Only the old name exists."""
    REMOVED = "removed"
    """Only the new name exists."""


STATUSES = tuple(Status)
"""Every status, in the order the schema and the error messages list them."""


class Audience(StrEnum):
    """Migration-guide sections, by what the reader has (a member is its string, as the table writes it)."""

    SCRIPT = "script"
    """A training script."""
    CONFIG = "config"
    """Configs and command lines."""
    MODEL = "model"
    """Model code, remote code included."""
    LIBRARY = "library"
    """A library that calls these names."""


AUDIENCES = tuple(Audience)
"""Every audience, in the guide's order."""

_SCRIPT_AND_LIBRARY = (Audience.SCRIPT, Audience.LIBRARY)
DEFAULT_AUDIENCE: dict[RenameKind, tuple[Audience, ...]] = {
    RenameKind.METHOD: _SCRIPT_AND_LIBRARY,
    RenameKind.PROPERTY: _SCRIPT_AND_LIBRARY,
    RenameKind.FUNCTION: _SCRIPT_AND_LIBRARY,
    RenameKind.FIELD: (Audience.CONFIG,),
    RenameKind.ARGUMENT: (Audience.CONFIG,),
    RenameKind.CLI_FLAG: (Audience.CONFIG,),
    RenameKind.CONFIG_KEY: (Audience.CONFIG,),
    RenameKind.CLASS: (Audience.MODEL,),
    RenameKind.ATTRIBUTE: (Audience.MODEL,),
    RenameKind.OVERRIDE: (Audience.MODEL,),
}
"""The guide sections a row is listed in when it sets no `audience`."""

# Validation's patterns, compiled through `re`'s cache when a table is read from YAML (the frozen form needs none).
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*\Z"
_CLI_FLAG = r"--[A-Za-z][A-Za-z0-9_-]*\Z"
_CONFIG_KEY = r"[A-Za-z_][A-Za-z0-9_.-]*\Z"
_E = TypeVar("_E", bound=StrEnum)
_LINK = r"https://[^\s()<>]+\Z"  # safe as the target of a Markdown link


class Problem(Located):
    """One thing wrong with the table, with where it is. A plain subclass: it adds no field, so `Located`'s dataclass
    methods serve it as they are (making a dataclass costs every start-up, and a problem is rare)."""


class TableError(ToolError):
    """The table cannot be used; `problems` lists every reason, in file order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line, p.column))
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class Library:
    """A library of the training stack, and what it calls activation checkpointing."""

    key: str
    """The name rows refer to it by, e.g. `transformers`."""
    pypi: str
    """Its distribution name on PyPI."""
    term: str
    """The term its documentation uses in prose."""
    docs: str | None
    """Link to its documentation of the feature; `None` where no official page was found."""
    checked: str
    """The release whose wheel the names were read in."""
    api: tuple[str, ...]
    """Public API names for the feature."""
    config: tuple[str, ...]
    """Config keys, CLI flags and environment variables for the feature."""
    display: str
    """Its name as people write it, e.g. `PyTorch`."""
    note: str
    """What a reader comparing names should know."""


@dataclass(frozen=True)
class Release:
    """A published release of a library and what it did for the rename."""

    library: str
    """Key of the library in `libraries`."""
    version: str
    """The release, as PEP 440 text."""
    date: datetime.date
    """Upload date on PyPI."""
    note: str
    """What the release did for the rename; empty by default."""
    position: Position = field(compare=False)
    """Where the release starts in the table file."""


@dataclass(frozen=True)
class EmittedWarning:
    """A warning exactly as a release emits it."""

    category: str
    """The builtin warning class name, e.g. `FutureWarning`."""
    message: str
    """The message, verbatim; `{model}` (`MODEL_PLACEHOLDER`) stands for the class name of the user's model."""

    @property
    def has_placeholder(self) -> bool:
        """Whether the message names the user's model class, so that no fixed text matches it whole."""
        return MODEL_PLACEHOLDER in self.message

    def text_for(self, model: str) -> str:
        """The message as emitted for a model class named `model`."""
        return self.message.replace(MODEL_PLACEHOLDER, model)

    def matches(self, message: str) -> bool:
        """Whether `message` is this warning, the placeholder standing for any class name."""
        parts = [re.escape(p) for p in self.message.split(MODEL_PLACEHOLDER)]
        return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*".join(parts), message) is not None


_OWNER = re.compile(
    r"(?P<head>[A-Za-z_]\w*)(?:\.(?P<member>[A-Za-z_][\w.]*))?(?:\((?P<argument>[A-Za-z_]\w*)\))?"
    r"(?:\s+(?P<qualifier>[^()]*?))?\s*(?:\((?P<details>[^()]*)\))?\Z"
)


@dataclass(frozen=True)
class Owner:
    """What a row's `owner` names, parsed once (`Rename.owned`): `Class`, `Class.member` or `module.function`,
    `Parser(Dataclass)`, each optionally followed by a qualifier and a parenthesised list, as in
    `TrlParser (trl sft, trl dpo, ...)` or `TrainingArguments YAML/JSON (HfArgumentParser.parse_yaml_file, ...)`."""

    head: str
    """The leading name: a class (`PreTrainedModel`), a parser (`HfArgumentParser`) or a module (`peft`)."""
    member: str | None
    """What follows the first dot: a method (`gradient_checkpointing_enable`) or a module path; `None` without one."""
    argument: str | None
    """The dataclass of `Parser(Dataclass)`; `None` otherwise."""
    qualifier: str
    """Words between the name and the list (`YAML/JSON`, `configs`); empty when there are none."""
    details: tuple[str, ...]
    """The parenthesised list, item by item (`trl sft`, `trl dpo`); `...` is left out."""

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        found = _OWNER.match(text.strip())
        if found is None:
            return None
        details = tuple(d.strip() for d in (found["details"] or "").split(",") if d.strip() and d.strip() != "...")
        return cls(found["head"], found["member"], found["argument"], (found["qualifier"] or "").strip(), details)

    @property
    def name(self) -> str:
        """The dotted name (`PreTrainedModel.gradient_checkpointing_enable`, `peft.prepare_model_for_kbit_training`)."""
        return f"{self.head}.{self.member}" if self.member else self.head

    @property
    def cls(self) -> str | None:
        """The class the name belongs to when the owner is a class itself (no member, not a parser); else `None`."""
        return self.head if self.member is None and self.argument is None else None

    @property
    def is_name(self) -> bool:
        """Whether the owner is just one identifier (`TrainingArguments`), with nothing after it."""
        return self.member is None and self.argument is None and not self.qualifier and not self.details


@dataclass(frozen=True)
class Rename:
    """One old name and its replacement."""

    library: str
    """Key of the library in `libraries`."""
    kind: RenameKind
    """One of `KINDS`; decides which names are valid and the default `audience`."""
    owner: str
    """The class, function, module or CLI the name belongs to."""
    old: str
    """The deprecated name (a CLI flag with its dashes)."""
    new: str
    """The name to use instead."""
    status: Status
    """One of `STATUSES`."""
    since: str | None
    """First release with the new name; `None` while planned."""
    removal: str | None
    """Release planned to remove the old name."""
    warning: EmittedWarning | None
    """What using the old name emits; `None` unless shipped."""
    audience: tuple[Audience, ...]
    """The migration-guide sections that list the row (`AUDIENCES`); by default from `DEFAULT_AUDIENCE`."""
    note: str
    """What a reader must know beyond the names, as inline Markdown; empty by default."""
    position: Position = field(compare=False)
    """Where the row starts in the table file."""

    @functools.cached_property
    def owned(self) -> Owner:
        """`owner`, parsed (the reader rejects an owner that does not parse)."""
        parsed = Owner.parse(self.owner)
        if parsed is None:
            raise ValueError(f"{self.position}: owner {self.owner!r} does not parse")
        return parsed


class NotRenamedKind(StrEnum):
    """What a `not_renamed` entry vouches for (a member is its string, as the table writes it)."""

    WARNING = "warning"
    """A warning of the release."""
    API = "api"
    """A public object of its API."""


NOT_RENAMED_KINDS = tuple(NotRenamedKind)
"""Every not-renamed kind, in the schema's order."""


@dataclass(frozen=True)
class NotRenamed:
    """A name-bearing warning or API object that `audit` finds and that is, on purpose, not a rename row."""

    library: str
    """Key of the library in `libraries`."""
    kind: NotRenamedKind
    """One of `NOT_RENAMED_KINDS`."""
    match: str
    """`warning`: a piece of the warning's text as the source writes it; `api`: the object's dotted path."""
    reason: str
    """Why it is not a rename (shown by `audit`, read by reviewers)."""
    position: Position = field(compare=False)
    """Where the entry starts in the table file."""


@dataclass(frozen=True)
class Table:
    """The whole alias table, validated."""

    libraries: dict[str, Library]
    releases: tuple[Release, ...]
    renames: tuple[Rename, ...]
    not_renamed: tuple[NotRenamed, ...] = ()
    """Entries that `python -m generator audit` accepts without a row (optional top-level key)."""

    # Facts about the rows, computed once per table: `functools.cached_property` works here because the dataclass
    # has no slots (it writes the instance's `__dict__`, which `frozen` does not guard), and it leaves `==` alone.

    @functools.cached_property
    def shipped(self) -> tuple[Rename, ...]:
        """The rows a release has shipped (`shipped` or `removed`: both have `since`), in table order. A removed old
        name is still one to migrate."""
        return tuple(r for r in self.renames if r.status in (Status.SHIPPED, Status.REMOVED))

    @functools.cached_property
    def planned(self) -> tuple[Rename, ...]:
        """The rows no release has shipped yet, in table order."""
        return tuple(r for r in self.renames if r.status == Status.PLANNED)

    @functools.cached_property
    def _selections(self) -> dict[tuple[tuple[RenameKind, ...], str | None, bool | None], tuple[Rename, ...]]:
        return {}

    def select(self, *kinds: RenameKind, library: str | None = None, shipped: bool | None = None) -> tuple[Rename, ...]:
        """The rows of any of `kinds` (of every kind when none is given), of `library` (any when `None`), shipped
        (`True`), planned (`False`) or either (`None`), in table order; each selection is computed once."""
        key = (kinds, library, shipped)
        if key not in self._selections:
            rows = self.renames if shipped is None else self.shipped if shipped else self.planned
            self._selections[key] = tuple(
                r for r in rows if (not kinds or r.kind in kinds) and (library is None or r.library == library)
            )
        return self._selections[key]

    def libraries_with_rows(self, shipped: bool | None = None) -> tuple[str, ...]:
        """The libraries with at least one row, shipped (`True`), planned (`False`) or either (`None`), in the order
        of their first such row."""
        return tuple(dict.fromkeys(r.library for r in self.select(shipped=shipped)))

    @functools.cached_property
    def renamer(self) -> str:
        """The library whose releases ship the renames: that of the first row with a release (`since`)."""
        return self.shipped[0].library

    def first_since(self, library: str) -> Version:
        """The first release of `library` with a new name: its rows' earliest `since`."""
        return min(Version(r.since) for r in self.select(library=library, shipped=True) if r.since)

    @functools.cached_property
    def switch_field(self) -> Rename:
        """The shipped field of the renaming library that turns checkpointing on: the shortest old name of its
        shipped field rows (the kwargs field is named after it)."""
        return min(self.select(RenameKind.FIELD, library=self.renamer, shipped=True), key=lambda r: len(r.old))

    @functools.cached_property
    def _by_old(self) -> dict[tuple[str, str], Rename]:
        first: dict[tuple[str, str], Rename] = {}
        for row in self.renames:
            first.setdefault((row.library, row.old), row)
        return first

    def row_of(self, library: str, old: str) -> Rename | None:
        """The first row of `library` renaming `old`; `None` when there is none."""
        return self._by_old.get((library, old))

    def releases_of(self, library: str) -> list[Release]:
        """The listed releases of `library`, oldest first."""
        return sorted((r for r in self.releases if r.library == library), key=lambda r: Version(r.version))

    def planned_removals(self) -> list[Rename]:
        """The shipped rows whose old name (or, for an `override` row, the caller's fallback) is planned to go: what
        `--v6-preview` removes."""
        return [r for r in self.renames if r.status == Status.SHIPPED and r.removal]


# --- Reading nodes -------------------------------------------------------------------------------------------------
# Nodes are told apart by their `id` ("scalar", "sequence", "mapping"), so that only `parse` imports PyYAML.


def _pos(path: str, node: yaml.Node) -> Position:
    return Position(path, node.start_mark.line + 1, node.start_mark.column + 1)


def _kind_of(node: yaml.Node) -> str:
    if node.id == "mapping":
        return "a mapping"
    if node.id == "sequence":
        return "a list"
    return {
        "tag:yaml.org,2002:null": "null",
        "tag:yaml.org,2002:bool": "a boolean",
        "tag:yaml.org,2002:int": "a number",
        "tag:yaml.org,2002:float": "a number",
        "tag:yaml.org,2002:timestamp": "a date",
    }.get(node.tag, "a string")


def _suggest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    import difflib  # only on the way to an error message

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else f" (expected one of: {', '.join(choices)})"


class _Reader:
    """Turns composed YAML nodes into values, recording a `Problem` for each thing wrong (a plain class: only a table
    read from YAML needs one, and making a dataclass costs every start-up)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def fail(self, node: yaml.Node, message: str) -> None:
        self.problems.append(Problem.at(_pos(self.path, node), message))

    def fail_at(self, position: Position, message: str) -> None:
        self.problems.append(Problem.at(position, message))

    def mapping(self, node: yaml.Node, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        """Keys to (key node, value node); `None` (and a problem) unless `node` is a mapping with string keys."""
        if node.id != "mapping":
            self.fail(node, f"{what} must be a mapping, not {_kind_of(node)}")
            return None
        result: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = key_node.value if key_node.id == "scalar" else None
            if not isinstance(key, str) or key_node.tag != "tag:yaml.org,2002:str":
                self.fail(key_node, f"keys in {what} must be names, not {_kind_of(key_node)}")
            elif key in result:
                self.fail(
                    key_node, f"duplicate key '{key}' in {what} (first at line {result[key][0].start_mark.line + 1})"
                )
            else:
                result[key] = (key_node, value_node)
        return result

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if node.id != "sequence":
            self.fail(node, f"{what} must be a list, not {_kind_of(node)}")
            return []
        return list(node.value)

    def text(self, node: yaml.Node, what: str, *, nullable: bool = False) -> str | None:
        if nullable and node.tag == "tag:yaml.org,2002:null":
            return None
        if node.id != "scalar" or node.tag != "tag:yaml.org,2002:str" or not node.value.strip():
            shown = "empty" if node.id == "scalar" and not node.value.strip() else _kind_of(node)
            self.fail(node, f"{what} must be a non-empty string{' or null' if nullable else ''}, not {shown}")
            return None
        return node.value

    def texts(self, node: yaml.Node, what: str) -> tuple[str, ...]:
        return tuple(t for item in self.sequence(node, what) if (t := self.text(item, f"each item of {what}")))

    def version(self, node: yaml.Node, what: str) -> str | None:
        # The scalar's own text, so an unquoted `6.0` stays "6.0" instead of becoming the float 6.0.
        if node.id != "scalar" or node.tag in ("tag:yaml.org,2002:null", "tag:yaml.org,2002:bool"):
            self.fail(node, f"{what} must be a version such as '5.23.0', not {_kind_of(node)}")
            return None
        try:
            Version(node.value)
        except InvalidVersion:
            self.fail(node, f"{what} '{node.value}' is not a valid version (PEP 440, e.g. '5.23.0')")
            return None
        return node.value

    def date(self, node: yaml.Node, what: str) -> datetime.date | None:
        try:
            return datetime.date.fromisoformat(node.value if node.id == "scalar" else "")
        except ValueError:
            self.fail(
                node,
                f"{what} must be a date written YYYY-MM-DD, not {node.value if node.id == 'scalar' else _kind_of(node)!r}",
            )
            return None

    def record(
        self, node: yaml.Node, what: str, required: tuple[str, ...], optional: tuple[str, ...]
    ) -> dict[str, yaml.Node] | None:
        """The fields of a mapping, after reporting unknown fields (with a suggestion) and missing required ones."""
        fields = self.mapping(node, what)
        if fields is None:
            return None
        known = required + optional
        for key, (key_node, _) in fields.items():
            if key not in known:
                self.fail(key_node, f"unknown field '{key}' in {what}{_suggest(key, known)}")
        for key in required:
            if key not in fields:
                self.fail(node, f"{what} is missing the required field '{key}'")
        return {key: value for key, (_, value) in fields.items() if key in known}


# --- Records --------------------------------------------------------------------------------------------------------


def _library(r: _Reader, key: str, node: yaml.Node) -> Library | None:
    what = f"library '{key}'"
    f = r.record(node, what, ("pypi", "term", "docs", "checked", "api", "config"), ("display", "note"))
    if f is None:
        return None
    values = {
        "pypi": r.text(f["pypi"], "pypi") if "pypi" in f else None,
        "term": r.text(f["term"], "term") if "term" in f else None,
        "checked": r.version(f["checked"], "checked") if "checked" in f else None,
        "api": r.texts(f["api"], "api") if "api" in f else None,
        "config": r.texts(f["config"], "config") if "config" in f else None,
    }
    docs = r.text(f["docs"], "docs", nullable=True) if "docs" in f else None
    if docs is not None and not re.match(_LINK, docs):
        r.fail(
            f["docs"], f"docs must be an https:// link (no spaces, parentheses or angle brackets) or null, not '{docs}'"
        )
    if any(v is None for v in values.values()):
        return None
    return Library(
        key=key,
        docs=docs,
        display=(r.text(f["display"], "display") or key) if "display" in f else key,
        note=(r.text(f["note"], "note") or "") if "note" in f else "",
        **values,  # type: ignore[arg-type]
    )


def _release(r: _Reader, node: yaml.Node) -> Release | None:
    f = r.record(node, "release", ("library", "version", "date"), ("note",))
    if f is None or any(k not in f for k in ("library", "version", "date")):
        return None
    library, version, date = (
        r.text(f["library"], "library"),
        r.version(f["version"], "version"),
        r.date(f["date"], "date"),
    )
    note = (r.text(f["note"], "note") or "") if "note" in f else ""
    if library is None or version is None or date is None:
        return None
    return Release(library, version, date, note, _pos(r.path, node))


def _not_renamed(r: _Reader, node: yaml.Node) -> NotRenamed | None:
    f = r.record(node, "not_renamed entry", ("library", "kind", "match", "reason"), ())
    if f is None or any(k not in f for k in ("library", "kind", "match", "reason")):
        return None
    library, match, reason = r.text(f["library"], "library"), r.text(f["match"], "match"), r.text(f["reason"], "reason")
    kind = _choice(r, f["kind"], "kind", NotRenamedKind)
    if None in (library, kind, match, reason):
        return None
    return NotRenamed(library, kind, match, reason, _pos(r.path, node))  # type: ignore[arg-type]


def field_name(name: str) -> str:
    """The dataclass field a CLI flag or config key stands for: `--gradient-checkpointing` → `gradient_checkpointing`
    (how `HfArgumentParser` maps its fields to flags, read backwards)."""
    return name.lstrip("-").replace("-", "_")


def _name_problem(kind: RenameKind, name: str) -> str | None:
    if kind == RenameKind.CLI_FLAG:
        return None if re.match(_CLI_FLAG, name) else "is not a CLI flag (write it as --name)"
    if kind == RenameKind.CONFIG_KEY:
        return None if re.match(_CONFIG_KEY, name) else "is not a config key (letters, digits, _ . -)"
    if not re.match(_IDENTIFIER, name):
        return f"is not a valid Python identifier, as a {kind} name must be"
    return None


def _choice(r: _Reader, node: yaml.Node, what: str, choices: type[_E]) -> _E | None:
    """The member of `choices` the node names; `None` (and a problem with "did you mean") for anything else."""
    value, members = r.text(node, what), tuple(choices)
    if value is not None and value not in members:  # `in` on the class itself warns on Python 3.11
        r.fail(node, f"unknown {what} '{value}'{_suggest(value, members)}")
        return None
    return None if value is None else choices(value)


def _rename(r: _Reader, node: yaml.Node) -> Rename | None:
    required = ("library", "kind", "owner", "old", "new", "status")
    f = r.record(node, "rename", required, ("since", "removal", "warning", "audience", "note"))
    if f is None:
        return None
    library = r.text(f["library"], "library") if "library" in f else None
    kind = _choice(r, f["kind"], "kind", RenameKind) if "kind" in f else None
    status = _choice(r, f["status"], "status", Status) if "status" in f else None
    owner = r.text(f["owner"], "owner") if "owner" in f else None
    if owner is not None and Owner.parse(owner) is None:
        r.fail(
            f["owner"],
            f"owner {owner!r} is not `Name`, `Name.member` or `Parser(Dataclass)`, optionally followed by "
            "words and a parenthesised list; write it in one of these forms",
        )
        owner = None
    old = r.text(f["old"], "old") if "old" in f else None
    new = r.text(f["new"], "new") if "new" in f else None
    since = r.version(f["since"], "since") if "since" in f else None
    removal = r.version(f["removal"], "removal") if "removal" in f else None
    note = (r.text(f["note"], "note") or "") if "note" in f else ""

    if kind is not None:
        for key, name in (("old", old), ("new", new)):
            if name is not None and (problem := _name_problem(kind, name)):
                r.fail(f[key], f"{key} name '{name}' {problem}")
    if old is not None and old == new:
        r.fail(f["new"], f"old and new are the same name '{old}'; a rename needs two different names")
    if since and removal and Version(removal) <= Version(since):
        r.fail(f["removal"], f"removal {removal} must come after since {since}")
    if status == Status.PLANNED and "since" in f:
        r.fail(f["since"], "a planned rename has no 'since' yet; remove it or set status: shipped")
    if status in (Status.SHIPPED, Status.REMOVED) and "since" not in f:
        r.fail(node, f"a {status} rename needs 'since': the first release with the new name")

    warning = _warning(r, f["warning"]) if "warning" in f else None
    if warning is not None and warning.has_placeholder and kind != RenameKind.OVERRIDE:
        r.fail(
            f["warning"],
            f"only an override row's warning may hold {MODEL_PLACEHOLDER} (the caller names the model class)",
        )
    if status == Status.SHIPPED and "warning" not in f:
        r.fail(node, "a shipped rename needs 'warning' (category and message, verbatim as the release emits it)")

    audience: tuple[Audience, ...] = DEFAULT_AUDIENCE.get(kind, ()) if kind else ()
    if "audience" in f:
        items = r.sequence(f["audience"], "audience")
        audience = tuple(a for item in items if (a := _choice(r, item, "audience", Audience)))
        if not items:
            r.fail(f["audience"], f"audience must list at least one of: {', '.join(AUDIENCES)}")

    if None in (library, kind, status, owner, old, new):
        return None
    return Rename(
        library=library,
        kind=kind,
        owner=owner,
        old=old,
        new=new,
        status=status,  # type: ignore[arg-type]
        since=since,
        removal=removal,
        warning=warning,
        audience=audience,
        note=note,
        position=_pos(r.path, node),
    )


def _warning(r: _Reader, node: yaml.Node) -> EmittedWarning | None:
    f = r.record(node, "warning", ("category", "message"), ())
    if f is None or "category" not in f or "message" not in f:
        return None
    category, message = r.text(f["category"], "category"), r.text(f["message"], "message")
    is_warning = isinstance(getattr(builtins, category or "", None), type) and issubclass(
        getattr(builtins, category or ""), Warning
    )
    if category is not None and not is_warning:
        names = tuple(n for n in dir(builtins) if n.endswith("Warning"))
        r.fail(f["category"], f"unknown warning category '{category}'{_suggest(category, names)}")
    if category is None or message is None or not is_warning:
        return None
    return EmittedWarning(category, message)


# --- The whole table ------------------------------------------------------------------------------------------------


def _cross_checks(r: _Reader, table: Table, keys: tuple[str, ...], releases_complete: bool) -> None:
    """Checks that need more than one record: references, duplicates, chains.

    `keys` holds every library named, valid or not, and `releases_complete` says whether every release was valid,
    so that one mistake is not reported again as a dangling reference.
    """
    for release in table.releases:
        if release.library not in keys:
            r.problems.append(
                Problem.at(release.position, f"unknown library '{release.library}'{_suggest(release.library, keys)}")
            )
    seen_releases: dict[tuple[str, str], Release] = {}
    for release in table.releases:
        k = (release.library, str(Version(release.version)))
        if k in seen_releases:
            r.problems.append(
                Problem.at(release.position, f"release {release.library} {release.version} is listed twice")
            )
        seen_releases[k] = release

    by_key: dict[tuple[str, str, str], Rename] = {}
    for row in table.renames:
        if row.library not in keys:
            r.problems.append(Problem.at(row.position, f"unknown library '{row.library}'{_suggest(row.library, keys)}"))
        elif releases_complete and row.since and (row.library, str(Version(row.since))) not in seen_releases:
            listed = ", ".join(rel.version for rel in table.releases_of(row.library)) or "none"
            r.problems.append(
                Problem.at(
                    row.position,
                    f"since {row.since} is not a listed release of {row.library} (listed: {listed}); add it to releases",
                )
            )
        key = (row.library, row.owner, row.old)
        if key in by_key:
            first = by_key[key].position.line
            r.problems.append(
                Problem.at(
                    row.position, f"'{row.old}' of {row.library} {row.owner} is renamed twice (first at line {first})"
                )
            )
        by_key.setdefault(key, row)

    for row in table.renames:
        nxt = table.row_of(row.library, row.new)
        if nxt is not None and nxt is not row:
            r.problems.append(
                Problem.at(
                    row.position,
                    f"chain: '{row.old}' → '{row.new}', but '{row.new}' is itself renamed to '{nxt.new}' at line "
                    f"{nxt.position.line}; rename each old name straight to its final name",
                )
            )


def parse(text: str, path: str = "aliases.yaml") -> Table:
    """Validate the table text and return it typed; raise `TableError` listing every problem."""
    import yaml  # here, not at the top: the packaged table is read from its frozen form, without PyYAML (`load`)

    r = _Reader(path)
    try:  # libyaml's loader where PyYAML has it: the same nodes and marks, ten times faster (the hook runs on every build)
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Position(path, mark.line + 1, mark.column + 1) if mark else Position(path, 1, 1)
        raise TableError([Problem.at(where, f"YAML syntax error: {exc.problem or exc.context}")]) from None
    except yaml.YAMLError as exc:
        raise TableError([Problem.at(Position(path, 1, 1), f"YAML error: {exc}")]) from None
    if root is None:
        raise TableError(
            [Problem.at(Position(path, 1, 1), "the table is empty; it needs libraries, releases and renames")]
        )

    top = r.record(root, "the table", ("libraries", "releases", "renames"), ("not_renamed",))
    if top is None:
        raise TableError(r.problems)

    libraries: dict[str, Library] = {}
    library_nodes = (r.mapping(top["libraries"], "libraries") or {}) if "libraries" in top else {}
    for key, (_, value) in library_nodes.items():
        if (lib := _library(r, key, value)) is not None:
            libraries[key] = lib

    release_nodes = r.sequence(top["releases"], "releases") if "releases" in top else []
    releases = [release for node in release_nodes if (release := _release(r, node)) is not None]

    renames = [
        row for node in (r.sequence(top["renames"], "renames") if "renames" in top else ()) if (row := _rename(r, node))
    ]
    not_renamed = [
        entry
        for node in (r.sequence(top["not_renamed"], "not_renamed") if "not_renamed" in top else ())
        if (entry := _not_renamed(r, node))
    ]
    for entry in not_renamed:
        if entry.library not in library_nodes:
            r.fail_at(
                entry.position, f"unknown library '{entry.library}'{_suggest(entry.library, tuple(library_nodes))}"
            )
    table = Table(libraries, tuple(releases), tuple(renames), tuple(not_renamed))
    _cross_checks(r, table, tuple(library_nodes), len(releases) == len(release_nodes))
    if r.problems:
        raise TableError(r.problems)
    return table


def load(path: Path, frozen: Path = FROZEN_TABLE_PATH) -> Table:
    """Read and validate the table file at `path`: from the frozen form in `frozen` when that was made from the same
    text (no PyYAML, no validating again: a scan's start-up), else from the YAML itself."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TableError([Problem.at(Position(str(path), 1, 1), f"cannot read the table: {exc}")]) from None
    return _thawed(text, str(path), frozen) or parse(text, str(path))


# --- The frozen form: the validated table as JSON, each record the list of its fields' values ----------------------

FROZEN_FORMAT = 1
"""The frozen form's layout; a file of another one is not read (the YAML is). Change it with the records' fields."""


def freeze(text: str) -> str:
    """The frozen form of the table text `text` (`render` writes it beside the pages, the wheel bundles it): validated
    now (raises `TableError` as `parse` does). It holds `text` itself, so `load` uses it for that text only."""
    table = parse(text)
    frozen = {
        "format": FROZEN_FORMAT,
        "source": text,
        "libraries": _plain(tuple(table.libraries.values())),
        "releases": _plain(table.releases),
        "renames": _plain(table.renames),
        "not_renamed": _plain(table.not_renamed),
    }
    return json.dumps(frozen, ensure_ascii=False, indent=1) + "\n"


def _plain(value: object) -> object:
    if isinstance(value, Position):
        return [value.line, value.column]  # the path is the one the table is loaded from
    if isinstance(value, (Library, Release, Rename, NotRenamed, EmittedWarning)):
        return [_plain(getattr(value, f.name)) for f in fields(value)]
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value  # a string (an enum member is its string), a number or None


def _thawed(text: str, path: str, frozen: Path) -> Table | None:
    """The table in the frozen form at `frozen` if it was made from `text`; `None` otherwise (missing, stale, or of
    another format: the YAML is read then, so the frozen form can make a start slower, never different)."""
    try:
        data = json.loads(frozen.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FROZEN_FORMAT or data.get("source") != text:
        return None

    try:
        return _thaw(data, path)
    except (TypeError, ValueError, KeyError, IndexError):  # made from this text but damaged since: read the YAML
        return None


def _thaw(data: dict[str, list[list[object]]], path: str) -> Table:
    """The table the frozen `data` holds; raises `TypeError`, `ValueError`, `KeyError` or `IndexError` if damaged."""

    def at(line_column: list[int]) -> Position:
        return Position(path, *line_column)

    libraries = {
        lib[0]: Library(*lib[:5], api=tuple(lib[5]), config=tuple(lib[6]), display=lib[7], note=lib[8])
        for lib in data["libraries"]
    }
    releases = tuple(
        Release(library, version, datetime.date.fromisoformat(date), note, at(position))
        for library, version, date, note, position in data["releases"]
    )
    renames = tuple(
        Rename(
            library,
            RenameKind(kind),
            owner,
            old,
            new,
            Status(status),
            since,
            removal,
            EmittedWarning(*warning) if warning else None,
            tuple(Audience(a) for a in audience),
            note,
            at(position),
        )
        for library, kind, owner, old, new, status, since, removal, warning, audience, note, position in data["renames"]
    )
    not_renamed = tuple(
        NotRenamed(library, NotRenamedKind(kind), match, reason, at(position))
        for library, kind, match, reason, position in data["not_renamed"]
    )
    return Table(libraries, releases, renames, not_renamed)


TABLE_PROBLEMS = 2
"""The exit code of every command (the tool's and the site generator's) given a table it cannot use."""


def load_table_or_report(path: Path) -> Table | int:
    """The table at `path`; or, when it cannot be used, every problem printed to stderr as `PATH:LINE:COL: message`,
    one closing line, and `TABLE_PROBLEMS` to exit with. The one place a command line loads the table."""
    try:
        return load(path)
    except TableError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        count = len(exc.problems)
        print(f"{count} problem{'s' * (count != 1)} in {path}; nothing was written.", file=sys.stderr)
        return TABLE_PROBLEMS
