"""Code run in a scope's own namespace: `exec(src)`, `execfile(path)`, a notebook's `%run -i FILE`.

What that code does is not in the file: it may rebind any name of the namespace, or replace a method on what a name
holds (`model.old = narrow`). So a call after it on a name of that namespace has no proven consumer: the new name may
reach a narrow patch of the old one. Calls before it stay as the rest of the evidence says.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from checkpointing_migrate import codes
from checkpointing_migrate.python.context import At, File
from checkpointing_migrate.python.syntax import FUNCTIONS

_RUNNERS = {"exec": 1, "execfile": 1}
"""The builtins that run code, and the position of the globals they take (none given: the caller's)."""
_SCOPES = (*FUNCTIONS, ast.ClassDef)
_RUNS = "_namespace_runs"
_PIECES = "_namespace_pieces"
"""Attributes a document's context module (`checkpointing_migrate.python.context_of`) keeps them in."""


class Ran(NamedTuple):
    """A statement that runs code in its scope's namespace, where it stands."""

    piece: int
    """The piece of the document (a notebook cell, a Markdown fence) it is in, counted in the document's order."""
    line: int
    column: int
    how: str
    """The statement, shortened (`exec(...)`, `%run -i patch.py`)."""
    cell: int | None = None
    """The notebook cell it is in, to name it by."""


def _how(call: ast.Call) -> str | None:
    """`exec(...)` for a call of a runner that takes the caller's globals (none given, or `globals()`); else `None`."""
    if not isinstance(call.func, ast.Name) or call.func.id not in _RUNNERS:
        return None
    position = _RUNNERS[call.func.id]
    given = next((k.value for k in call.keywords if k.arg == "globals"), None)
    if given is None and len(call.args) > position:
        given = call.args[position]
    if given is None or (isinstance(given, ast.Call) and ast.unparse(given.func) == "globals" and not given.args):
        return f"{call.func.id}(...)"
    return None


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a scope's body, inside its compound statements but not in a nested function or class."""
    for statement in body:
        yield statement
        if isinstance(statement, _SCOPES):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.excepthandler | ast.match_case):
                yield from _statements(child.body)
        for name in ("body", "orelse", "finalbody"):
            yield from _statements([s for s in getattr(statement, name, []) if isinstance(s, ast.stmt)])


def runs_in(body: list[ast.stmt], piece: int = 0, cell: int | None = None) -> list[Ran]:
    """The runs of code in the namespace of the scope whose body is `body` (`exec(src)` as a statement)."""
    return [
        Ran(piece, s.lineno, s.col_offset, how, cell)
        for s in _statements(body)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and (how := _how(s.value)) is not None
    ]


def keep(module: ast.Module, pieces: list[str], runs: list[Ran]) -> None:
    """Keep on the context `module` of a document the texts of its pieces and the runs at its top level."""
    setattr(module, _PIECES, pieces)
    setattr(module, _RUNS, runs)


def _module_runs(file: File) -> tuple[int, list[Ran]]:
    """This piece's place in its document, and the runs at the document's top level (a file: one piece)."""
    if file.context is None or not hasattr(file.context, _RUNS):
        return 0, runs_in(file.tree.body)
    pieces: list[str] = getattr(file.context, _PIECES)
    # A piece not found (or found twice) is taken as the last: after every run it might follow.
    piece = max((i for i, text in enumerate(pieces) if text == file.text), default=len(pieces))
    return piece, getattr(file.context, _RUNS)


def ran_before(file: File, at: At, receiver: ast.expr) -> str | None:
    """Why `receiver`, a name of its scope (or an attribute, call or item of one), may not be what the evidence says:
    code run in that scope's namespace before it (`runs-here`). `None` when none was."""
    root = receiver
    while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
        root = root.func if isinstance(root, ast.Call) else root.value
    if not isinstance(root, ast.Name) or "exec" in file.receivers.imports or "exec" in file.receivers.classes:
        return None
    scope = next((n for n, _ in reversed(at.chain[:-1]) if isinstance(n, _SCOPES)), None)
    if isinstance(scope, ast.ClassDef | ast.Lambda):
        return None
    if scope is None:
        piece, runs = _module_runs(file)
    else:
        piece, runs = 0, runs_in(scope.body)
    here = (piece, receiver.lineno, receiver.col_offset)
    before = [r for r in runs if (r.piece, r.line, r.column) < here]
    if not before:
        return None
    last = max(before, key=lambda r: (r.piece, r.line, r.column))
    place = (
        codes.shared("cell-line", line=last.line, cell=last.cell) if last.cell else codes.shared("line", line=last.line)
    )
    return codes.shared("runs-here", place=place, how=last.how)
