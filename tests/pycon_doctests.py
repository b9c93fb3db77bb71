"""The doc tests: every ```pycon fence in docs/**/*.md runs as doctests under Sybil, twice.

Once as written, and once (`old-names`) with the renamed names put back, through `generator.oldnames`. The root
conftest.py hands `pytest_collect_file` from here to pytest; tests/test_doc_examples.py checks that no fence is missed.
"""

# Doc tests: every ```pycon fence in docs/**/*.md runs as doctests under pytest (Sybil).
#
# Why a custom lexer: Sybil's stock Markdown parsers only take ```python and match the
# info string exactly, so a Material fence such as ```pycon title="x" hl_lines="2" would
# be skipped without a word. PyconFenceLexer takes `pycon` plus any attributes, inside
# `=== "Tab"` content tabs and admonitions too, and keeps the indentation so that test
# ids point at the right page line. tests/test_doc_examples.py counts fences with a
# plain line scan and compares with pycon_blocks() (this same lexer): a miss fails.
#
# Why warnings are output: a page shows what a reader will see. A "Before" block lists
# `FutureWarning: ...` as a line of expected output, and an "After" block that still
# warns fails, because the warning shows up under "Got". The evaluator prints warnings
# inside its own catch_warnings(): a showwarning set in Sybil's `setup` would be reset
# by pytest's per-test catch_warnings, and simplefilter("always") there overrides the
# project's `filterwarnings = error`, so a warning is printed instead of raised.
#
# Logging is left alone: doctest compares stdout only, and transformers logs to stderr
# (under CI=true also through the root logger into pytest's log capture). Log lines
# never enter the expected output; they show under "Captured stderr/log" on a failure.
#
# Each `>>>` statement is one test item (id `docs/page.md::line:N,column:M`); a page's
# statements share one namespace and run in order, so run whole pages, not single items.
# There is no skip directive: every example that ships runs.
from __future__ import annotations

import doctest
import re
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from re import Match
from typing import Any, TextIO

from sybil import Document, Example, Lexeme, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

__all__ = [
    "OPTIONFLAGS",
    "PYCON_LEXER",
    "PyconFenceLexer",
    "PyconParser",
    "WarningsAsOutputEvaluator",
    "pycon_blocks",
]


class PyconFenceLexer(RawFencedCodeBlockLexer):
    """Sybil's Markdown fence scanner, for fences whose info string is `pycon`, alone or
    followed by whitespace and Material attributes (title="x" hl_lines="2" ...).
    `pycon3` or `pycon{...}` don't match, so the count test reports them.

    The `source` lexeme is the fence content as written, indentation included: Sybil's
    lexers dedent it, which gives examples inside content tabs wrong lines and columns
    in test ids. doctest handles the indentation itself. Its `offset` is where the
    content starts, counted from the opening fence.
    """

    def __init__(self) -> None:
        super().__init__(re.compile(r"pycon(?:[ \t]+(?P<attributes>[^\n]*?))?[ \t]*$\n", re.MULTILINE))

    def make_region(self, opening: Match[str], document: Document, closing: Match[str] | None) -> Region | None:
        region = super().make_region(opening, document, closing)
        if region is not None:
            start = opening.start() + region.lexemes["source"].offset
            end = len(document.text) if closing is None else closing.start()
            region.lexemes["source"] = Lexeme(document.text[start:end], start - opening.start(), 0)
        return region


PYCON_LEXER = PyconFenceLexer()

# ELLIPSIS lets a page write `...` for addresses and long reprs. NORMALIZE_WHITESPACE is
# not used: it would hide layout changes in printed tables and reprs.
OPTIONFLAGS = doctest.ELLIPSIS


def _print_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    print(f"{category.__name__}: {message}")


class WarningsAsOutputEvaluator(DocTestEvaluator):
    """Run one doctest example, printing each warning as `Category: message`."""

    def __call__(self, example: Example) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = _print_warning
            return super().__call__(example)


class PyconParser:
    """Yield a doctest example for each `>>>` statement in each pycon fence."""

    def __init__(self, optionflags: int = OPTIONFLAGS) -> None:
        self.doctest_parser = DocTestStringParser(WarningsAsOutputEvaluator(optionflags))

    def __call__(self, document: Document) -> Iterator[Region]:
        for fence in PYCON_LEXER(document):
            start = fence.start + fence.lexemes["source"].offset
            for example in self.doctest_parser(fence.lexemes["source"], document.path):
                example.start += start
                example.end += start
                yield example


def pycon_blocks(path: str | Path) -> list[tuple[int, str]]:
    """(line of the opening fence, dedented content) of each fence PYCON_LEXER finds."""
    document = Document.parse(str(path))
    return [
        (
            document.text.count("\n", 0, fence.start) + 1,
            textwrap.dedent(fence.lexemes["source"]),
        )
        for fence in PYCON_LEXER(document)
    ]


def _drop_namespace(namespace: dict[str, Any]) -> None:
    namespace.clear()  # free the page's models before the next page runs


# --- The old-names pass ------------------------------------------------------------------------------------------------
#
# Every page with a statement that uses a renamed name runs a second time, in its own namespace, with each statement
# rewritten to the old names by generator.oldnames (the same token-aware rewrite that makes the guide's "Before"
# tabs; no second substitution). Test ids: `docs/page.md::sybil:old-names,line:N,column:M`. All statements of such a
# page run, since later ones need what earlier ones define; a page with no renamed name has no old-names items.
#
# What a rewritten statement may print: the as-written output, plus `Category: message` lines that aliases.yaml
# records for the old names it uses, and no other warning. "Names it uses": the old names in the statement as run,
# plus those of the statements that defined the page-level names it refers to, or called a method on them or set
# one of their attributes (`path.write_text(...)` with YAML keys, `model.gradient_checkpointing_enable()`).
#
# What it must print: the recorded warning of each of its own *warning uses*: calling an old method, reading an old
# property, an old keyword in a call of the row's owner (`TrainingArguments(gradient_checkpointing=...)`,
# `.set_training(...)`), outside any function body. Other uses need not warn: reading a TrainingArguments field
# after construction is a mirrored read that never does, a flag or key inside a string warns only where it is
# parsed, and a keyword to a subclass or wrapper may or may not reach the owner. A statement that sets warning
# filters itself decides what is printed and is held to the "may print" rule only.
#
# When the block right before it on the page is that very block under the old names (a "Before" tab next to its
# "After" tab), it must print exactly what that "Before" statement shows: its warnings, in order, and nothing else,
# each of them one that aliases.yaml records for the old names used.
#
# A block that uses the old and the new name of one row on purpose (a compatibility shim, a pitfall that sets both
# or writes one and reads the other) would, rewritten, compare a name with itself or repeat a keyword argument; its
# statements run as written instead (the block already uses the old name), with the id `sybil:old-names-kept`, and
# must print what they print as written.

import ast
import difflib
from dataclasses import dataclass, field
from functools import cache

from checkpointing_migrate.table import Rename, Table, load
from generator.oldnames import OldNames, rewrite_pycon

ROOT = Path(__file__).resolve().parents[1]
_MARK = re.compile("\x00(\\d+)\x00")
_WARNING_LINE = re.compile(r"^\w*Warning: ")


@cache
def _table() -> Table:
    return load(ROOT / "aliases.yaml")


@dataclass(frozen=True)
class _Names:
    """The table's shipped rows, and which of their names a statement uses, and how."""

    table: Table

    @property
    def shipped(self) -> list[Rename]:
        return [r for r in self.table.renames if r.status == "shipped"]

    def used(self, source: str, which: str) -> set[tuple[str, str]]:
        """(where, name) of the old (or new) names in `source`, by the rewrite's own token rules."""
        pairs = sorted({(_where(r.kind), getattr(r, which)) for r in self.shipped})
        maps: dict[str, dict[str, str]] = {"identifiers": {}, "flags": {}, "keys": {}}
        for index, (where, name) in enumerate(pairs):
            maps[where][name] = f"\x00{index}\x00"
        return {pairs[int(i)] for i in _MARK.findall(OldNames(**maps).rewrite(source))}

    def mixed(self, sources: list[str]) -> bool:
        """Whether these statements (a block) use both the old and the new name of one row."""
        olds = set().union(*(self.used(s, "old") for s in sources))
        news = set().union(*(self.used(s, "new") for s in sources))
        return any((_where(r.kind), r.old) in olds and (_where(r.kind), r.new) in news for r in self.shipped)

    def uses(self, source: str) -> dict[Rename, bool]:
        """Each row whose old name `source` uses, and whether the use is one that warns by itself.

        Warning uses: calling an old method or function, reading an old property, an old keyword in a call of the
        row's own owner (`TrainingArguments(...)`, `.set_training(...)`). Anything else may or may not warn: a flag
        or key inside a string (the parse happens elsewhere), reading a mirrored field, a keyword to a subclass or
        wrapper (then every row with that name is a candidate), an override's `def`, anything inside a function body.
        """
        used = self.used(source, "old")
        found: dict[Rename, bool] = {
            r: False for r in self.shipped if _where(r.kind) != "identifiers" and (_where(r.kind), r.old) in used
        }
        named = {r.old for r in self.shipped if _where(r.kind) == "identifiers" and ("identifiers", r.old) in used}
        try:
            tree = ast.parse(source)
        except SyntaxError:
            tree = ast.Module(body=[], type_ignores=[])
            found.update({r: False for r in self.shipped if _where(r.kind) == "identifiers" and r.old in named})
        parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            name = _identifier(node)
            if name not in named:
                continue
            rows = [r for r in self.shipped if _where(r.kind) == "identifiers" and r.old == name]
            above = parent.get(node)
            called = isinstance(above, ast.Call) and above.func is node
            if isinstance(node, ast.keyword) and isinstance(above, ast.Call):
                owners = [r for r in rows if r.owner.rsplit(".", 1)[-1] == _callee(above.func)]
                hits = {r: True for r in owners} or {r: False for r in rows}
            elif isinstance(node, ast.Attribute):
                hits = {
                    r: (r.kind == "method" and called) or (r.kind == "property" and isinstance(node.ctx, ast.Load))
                    for r in rows
                }
            else:
                hits = {r: called and r.kind in ("function", "class") for r in rows}
            deferred = _in_function(node, parent)  # a `def` or `lambda` body does not run with the statement
            for row, warns in hits.items():
                found[row] = found.get(row, False) or (warns and not deferred)
        return found


def _identifier(node: ast.AST) -> str | None:
    if isinstance(node, ast.keyword):
        return node.arg
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.arg):
        return node.arg
    return None


def _in_function(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> bool:
    while node in parent:
        node = parent[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return True
    return False


def _callee(func: ast.expr) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _where(kind: str) -> str:
    return {"cli-flag": "flags", "config-key": "keys"}.get(kind, "identifiers")


def _line(row: Rename) -> str:
    assert row.warning is not None
    return f"{row.warning.category}: {row.warning.message}"


@dataclass
class _PageNames:
    """The rows each page-level name was defined with or changed through, so that using it is charged with them."""

    defined: dict[str, set[Rename]] = field(default_factory=dict)

    def charge(self, source: str, direct: set[Rename]) -> set[Rename]:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return direct
        parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        refs = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        used = set(direct).union(*(self.defined[r] for r in refs if r in self.defined))
        for node in ast.walk(tree):  # `path.write_text(...)`, `model.enable()`, `args.x = ...` may change the object
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                above = parent.get(node)
                if (isinstance(above, ast.Call) and above.func is node) or isinstance(node.ctx, ast.Store):
                    self.defined[node.value.id] = self.defined.get(node.value.id, set()) | direct
        for node in tree.body:
            for bound in _bound_names(node):
                self.defined[bound] = used
        return used


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For)):
        targets = [node.target]
    elif isinstance(node, ast.With):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _sets_filters(source: str) -> bool:
    """Whether a statement changes the warning filters itself (then it decides what is printed)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(_identifier(n) in ("filterwarnings", "simplefilter", "catch_warnings") for n in ast.walk(tree))


@dataclass
class _OldNameRun:
    """How one statement runs in the old-names pass and what it may and must print."""

    mode: str
    """`rewritten`, `before-tab` (its "Before" tab gives the exact output), `unchanged` or `kept` (as written)."""
    olds: list[str]
    """The old names it uses, directly or through page-level names (for messages)."""
    allowed: list[str]
    """`Category: message` lines aliases.yaml records for those names: the warnings it may print."""
    required: list[str]
    """The recorded warnings of its own warning uses (see `_Names.uses`): the warnings it must print."""


class _OldNamesChecker(doctest.OutputChecker):
    """Compares under the rules above; `run` is set by the evaluator for the example at hand."""

    run: _OldNameRun

    def _compare(self, want: str, got: str) -> tuple[str, list[str], list[str]]:
        """`got` without the recorded warnings `want` does not show, printed warnings nobody recorded, and the
        required warnings that were not printed."""
        lines = got.splitlines(keepends=True)
        printed = [line.rstrip("\n") for line in lines if _WARNING_LINE.match(line)]
        wanted = want.splitlines()
        missing = [line for line in self.run.required if line not in printed]
        if self.run.mode == "before-tab":
            return got, [line for line in printed if line not in self.run.allowed], missing
        unrecorded = [line for line in printed if line not in self.run.allowed and line not in wanted]
        for line in self.run.allowed:
            extra = printed.count(line) - wanted.count(line)
            for _ in range(max(extra, 0)):
                lines.remove(next(x for x in lines if x.rstrip("\n") == line))
        return "".join(lines), unrecorded, missing

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        adjusted, unrecorded, missing = self._compare(want, got)
        return not unrecorded and not missing and super().check_output(want, adjusted, optionflags)

    def output_difference(self, example: doctest.Example, got: str, optionflags: int) -> str:
        adjusted, unrecorded, missing = self._compare(example.want, got)
        out = [
            f"old-names pass ({self.run.mode}), statement as run:\n",
            *(f"    {line}\n" for line in example.source.splitlines()),
        ]
        out.append(f"old names it uses: {', '.join(self.run.olds) or 'none'}\n")
        out.append("warnings aliases.yaml records for them:\n")
        out += [f"    {line}\n" for line in self.run.allowed] or ["    none\n"]
        printed = [line.rstrip("\n") for line in got.splitlines() if _WARNING_LINE.match(line)]
        for line, label, pool in [
            (u, "printed a warning aliases.yaml does not record for them", self.run.allowed) for u in unrecorded
        ] + [
            (m, "aliases.yaml records this warning for a use in this statement, but it was not printed", printed)
            for m in missing
        ]:
            out.append(f"{label}:\n    {line}\n")
            close = difflib.get_close_matches(line, pool, n=1, cutoff=0.5)
            if close:
                out.append("  the closest one (- closest, + this one):\n")
                out += [f"    {d}\n" for d in difflib.ndiff([close[0]], [line])]
        out.append(super().output_difference(example, adjusted, optionflags))
        return "".join(out)


class _OldNamesEvaluator(WarningsAsOutputEvaluator):
    def __init__(self, optionflags: int = OPTIONFLAGS) -> None:
        super().__init__(optionflags)
        self.checker = _OldNamesChecker()
        self.runner._checker = self.checker

    def __call__(self, example: Example) -> str:
        self.checker.run = example.parsed.old_name_run
        return super().__call__(example)


def _statements(source: str, name: str) -> list[Region]:
    return list(DocTestStringParser()(source, name))


class OldNamesParser:
    """For each page that uses a renamed name: every `>>>` statement, rewritten to the old names (see above)."""

    def __init__(self) -> None:
        self.evaluator = _OldNamesEvaluator()

    def __call__(self, document: Document) -> Iterator[Region]:
        table = _table()
        names, old_names = _Names(table), OldNames.from_table(table)
        fences = []
        for fence in PYCON_LEXER(document):
            source = fence.lexemes["source"]
            rewritten = rewrite_pycon(textwrap.dedent(source), old_names)  # it reads `>>> ` at the start of lines
            fences.append((fence, _statements(source, document.path), _statements(rewritten, document.path)))
        if not any(s.parsed.source != r.parsed.source for _, written, run in fences for s, r in zip(written, run)):
            return
        page, previous = _PageNames(), None
        for fence, written, rewritten in fences:
            start = fence.start + fence.lexemes["source"].offset
            changed = any(s.parsed.source != r.parsed.source for s, r in zip(written, rewritten))
            kept = names.mixed([s.parsed.source for s in written])
            before = (
                previous
                if changed and previous and [p.parsed.source for p in previous] == [r.parsed.source for r in rewritten]
                else None
            )
            for index, (as_written, as_old) in enumerate(zip(written, rewritten, strict=True)):
                example = as_old.parsed
                if kept:
                    example, mode = as_written.parsed, "kept"
                elif before is not None:
                    example, mode = (
                        doctest.Example(
                            example.source,
                            before[index].parsed.want,
                            example.exc_msg,
                            example.lineno,
                            example.indent,
                            example.options,
                        ),
                        "before-tab",
                    )
                else:
                    mode = "rewritten" if example.source != as_written.parsed.source else "unchanged"
                uses = names.uses(example.source)
                rows = page.charge(example.source, set(uses))
                checks = mode in ("rewritten", "before-tab") and not _sets_filters(example.source)
                example.old_name_run = _OldNameRun(
                    mode,
                    sorted({r.old for r in rows}),
                    list(dict.fromkeys(_line(r) for r in self.table_order(table, rows) if r.warning)),
                    list(
                        dict.fromkeys(
                            _line(r)
                            for r in self.table_order(table, {r for r, w in uses.items() if w})
                            if checks and r.warning
                        )
                    ),
                )
                yield Region(start + as_written.start, start + as_written.end, example, self.evaluator)
            previous = written

    @staticmethod
    def table_order(table: Table, rows: set[Rename]) -> list[Rename]:
        return [r for r in table.renames if r in rows]


def old_name_examples(path: str | Path) -> list[tuple[int, str]]:
    """(line, mode) of every example the old-names pass runs for the page at `path`."""
    document = Document.parse(str(path), OldNamesParser())
    return [
        (document.text.count("\n", 0, region.start) + 1, region.parsed.old_name_run.mode)
        for _, region in document.regions
    ]


class _OldNamesSybil(Sybil):
    def identify(self, example: Example) -> str:
        kept = example.parsed.old_name_run.mode == "kept"
        return f"sybil:old-names{'-kept' if kept else ''},line:{example.line},column:{example.column}"


pytest_collect_file = (
    Sybil(parsers=[PyconParser()], path=str(ROOT / "docs"), patterns=["*.md"], teardown=_drop_namespace)
    + _OldNamesSybil(
        parsers=[OldNamesParser()],
        path=str(ROOT / "docs"),
        patterns=["*.md"],
        teardown=_drop_namespace,
        name="old-names",
    )
).pytest()
