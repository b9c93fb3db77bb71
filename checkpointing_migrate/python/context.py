"""The state the Python rules see: `Run` (once per run), `File` (once per file), `At` (where a node stands), `Rule`.

A rule family is a module of functions decorated with `@register(ast.Call, ...)`: each takes the file, the node and
its `At`, and yields `Hit`s. Nothing is mutated while a tree is walked but the file's lazily built evidence; what a
run derives from the table (compiled patterns, the modules read to follow imports) is built once, on `Options.memo`.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.pylex import Source, config_subclasses
from checkpointing_migrate.pysyntax import COMPOUND
from checkpointing_migrate.receivers import ModuleCache, Receivers
from checkpointing_migrate.rules import Rules
from checkpointing_migrate.table import field_name

if TYPE_CHECKING:
    from checkpointing_migrate.argflags import Declared
    from checkpointing_migrate.dictflow import Dicts

Check = Callable[["File", ast.AST, "At"], Iterator[Hit]]


Claim = Callable[["File", ast.AST, "At"], "list[Hit] | None"]


class Rule(NamedTuple):
    """One check of a family, and the node types it looks at (a named tuple: every rule is made at every start, and a
    frozen dataclass costs several times as much to make)."""

    types: tuple[type[ast.AST], ...]
    check: Check | Claim
    claims: bool = False
    """A claiming rule returns `None` (not its kind of use) or the node's hits: then no later rule looks at the node."""

    def __call__(self, file: File, node: ast.AST, at: At) -> Iterator[Hit] | list[Hit] | None:
        return self.check(file, node, at)


def register(*types: type[ast.AST], claims: bool = False) -> Callable[[Check | Claim], Rule]:
    """`@register(ast.Call)`: the decorated function is a rule run on every node of these types on a candidate line
    (`claims=True`: see `Rule.claims`)."""
    return lambda check: Rule(types, check, claims)


@dataclass(frozen=True)
class Run:
    """What the Python rules derive from the table once per run, shared by every file of it."""

    rules: Rules
    flags: tuple[str, ...]
    """The renamed CLI flags, with the planned ones."""
    dispatch: Mapping[type[ast.AST], tuple[Rule, ...]]
    """Node type → the rules registered for it, in the families' order."""
    modules: ModuleCache = field(default_factory=ModuleCache)
    """The project modules read to follow imports during this run."""

    # The patterns below are compiled when a file first needs one, not up front: most files hold no flag and import
    # no library sharing a member name, and compiling them all cost a one-file scan a tenth of its analysis. `re`'s
    # own cache keeps each compiled once per run (`cached_property` on a frozen dataclass: see `table.Table`).

    @cached_property
    def flag_pattern(self) -> re.Pattern[str]:
        """Any of `flags` as a whole flag, longest first."""
        flags = sorted(self.flags, key=len, reverse=True)
        return re.compile("|".join(rf"(?<![\w-]){re.escape(f)}(?![\w-])" for f in flags))

    def defines_flag(self, flag: str) -> re.Pattern[str]:
        """`add_argument(... "flag"`: a file that defines the flag itself."""
        return re.compile(rf"add_argument\([^)]*[\"']{re.escape(flag)}[\"']")

    def declares_field(self, flag: str) -> re.Pattern[str]:
        """`    name:` (the dataclass field HfArgumentParser turns into the flag)."""
        return re.compile(rf"^[ \t]+{re.escape(field_name(flag))}[ \t]*:", re.M)

    def imports_library(self, library: str) -> re.Pattern[str]:
        """`import lib` / `from lib` at the start of a line (`library`: the import name of a library sharing a
        member name)."""
        return re.compile(rf"^[ \t]*(?:from|import)[ \t]+{re.escape(library)}\b", re.M)

    @classmethod
    def of(cls, rules: Rules, families: tuple[ModuleType, ...]) -> Run:
        """The run's facts for `rules`, dispatching to the `Rule`s that the `families` modules define."""
        table: dict[type[ast.AST], list[Rule]] = {}
        for family in families:
            for rule in vars(family).values():
                for kind in rule.types if isinstance(rule, Rule) else ():
                    table.setdefault(kind, []).append(rule)
        flags = (*rules.flags, *(n for n in rules.planned if n.startswith("--")))
        return cls(rules, flags, {kind: tuple(found) for kind, found in table.items()})


@dataclass(frozen=True)
class File:
    """One Python text being checked, and what the rules learn about it (each fact computed when first asked)."""

    source: Source
    tree: ast.Module
    lines: list[int]
    """The candidate lines (sorted): only statements touching one are visited."""
    options: Options
    run: Run
    context: ast.Module | None = None
    """The whole document when this text is one piece of it (notebook cells, Markdown fences)."""
    base: Path | None = None
    """The file's folder, where classes imported from the project's own modules are looked up."""

    @property
    def rules(self) -> Rules:
        return self.run.rules

    @property
    def text(self) -> str:
        return self.source.text

    @cached_property
    def receivers(self) -> Receivers:
        """The module's evidence about what names hold (built from the whole tree the first time a rule asks)."""
        return Receivers(self.context or self.tree, self.rules, self.run.modules, self.base)

    @cached_property
    def dicts(self) -> Dicts:
        """Where the module's dicts go (`checkpointing_migrate.dictflow`), built the first time a dict key is met."""
        from checkpointing_migrate.dictflow import Dicts  # only a file with a dict key, subscript or keyword needs it

        return Dicts(self.receivers, self.options, self.at, self.text)

    @cached_property
    def config_classes(self) -> frozenset[str]:
        return self.rules.config_classes | config_subclasses(self.text, self.rules.config_classes)

    @cached_property
    def shared(self) -> frozenset[str]:
        """The member names this file shares with another library it imports (or that is the scanned package)."""
        return frozenset(
            name
            for name, libs in self.rules.shared.items()
            if self.options.package in libs
            or any(lib in self.text and self.run.imports_library(lib).search(self.text) for lib in libs)
        )

    @cached_property
    def uses_parser(self) -> bool:
        return any(p in self.text for p in self.rules.parsers)

    @cached_property
    def own_flags(self) -> frozenset[str]:
        """Flags the file defines itself with `add_argument`."""
        return frozenset(f for f in self.run.flags if f in self.text and self.run.defines_flag(f).search(self.text))

    @cached_property
    def member_names(self) -> frozenset[str]:
        return frozenset(self.rules.members)

    @cached_property
    def own_dests(self) -> dict[str, Declared]:
        """The flags this text declares with `add_argument` whose dest ends in an old member name
        (`checkpointing_migrate.argflags`)."""
        from checkpointing_migrate.argflags import dests  # only for a file that reads an old name off an object

        return dests(self.context or self.tree, self.member_names)

    @cached_property
    def own_fields(self) -> frozenset[str]:
        """Flags whose dataclass field the file declares."""
        text = self.text
        return frozenset(f for f in self.run.flags if field_name(f) in text and self.run.declares_field(f).search(text))

    def touches(self, first: int, last: int | None) -> bool:
        i = bisect.bisect_left(self.lines, first)
        return i < len(self.lines) and self.lines[i] <= (last or first)

    def at(self, line: int, col: int) -> int:
        """The offset of a node's (line, byte column)."""
        return self.source.offset(line, col)

    def attr_start(self, node: ast.Attribute) -> int:
        return self.at(node.end_lineno or node.lineno, node.end_col_offset or 0) - len(node.attr)


class At(NamedTuple):
    """Where a node stands: the chain of (node, field) from the module down to it, the node itself last (a named
    tuple: the class is made at every start, a frozen dataclass costs several times as much to make)."""

    chain: tuple[tuple[ast.AST, str], ...]

    def parent(self, up: int = 1) -> tuple[ast.AST | None, str]:
        return self.chain[-1 - up] if len(self.chain) > up else (None, "")

    def holding_class(self, up: int = 1) -> ast.ClassDef | None:
        """The class whose body holds the node `up` levels above this one, at its top level or inside its compound
        statements (`pysyntax.COMPOUND`); `None` when a function (or nothing) stands between them."""
        for node, _ in reversed(self.chain[:-up]):
            if isinstance(node, ast.ClassDef):
                return node
            if not isinstance(node, COMPOUND):
                return None
        return None

    def enclosing(self, kind: type | tuple[type, ...]) -> ast.AST | None:
        for node, _ in reversed(self.chain[:-1]):
            if isinstance(node, kind):
                return node
        return None
