"""Texts in a release's source, read without running it: the warning calls and the raised exceptions.

The audit matches the table's warnings against a release's warning calls; the matrix records the exceptions whose text
names the feature, which also covers those no probe reaches on this machine (FSDP's needs GPUs). A part of a text
known only at run time (an f-string field, a `%s`, a variable) is `HOLE`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NAME = re.compile(r"(?:[Gg]radient|[Aa]ctivation)_?[Cc]heckpointing")
"""A name that says gradient or activation checkpointing (`gradient_checkpointing_enable`, `GradientCheckpointingLayer`)."""
QUOTED_NAME = re.compile(r"""["'][^"'\n]*""" + NAME.pattern)
"""A name inside a string literal: only files with one can have a text about it (the others are not parsed)."""
WARNING_CALLS = frozenset(
    {"warn", "warning", "warning_once", "warning_advice", "warn_once", "warn_deprecated", "deprecate"}
)
"""Function or method names that emit a warning; the first argument (or `message=`) is its text."""
STRIPS = frozenset({"strip", "rstrip", "lstrip"})
"""String methods that keep a message's text but for its ends."""
HOLE = "\x00"
"""Stands for a part of a text only known at run time."""


@dataclass(frozen=True)
class SourceText:
    """A warning call or a raised exception in a release's source, with its text."""

    path: str
    """Path inside the wheel, e.g. `transformers/trainer.py`."""
    line: int
    text: str
    """The text as written; `HOLE` where a part is only known at run time."""
    raised: bool = False
    """An exception raised (`raise ValueError(...)`) rather than a warning call."""
    category: str = ""
    """For a raise, the exception class as written (`ValueError`)."""
    function: str = ""
    """The enclosing class and function, e.g. `Trainer.create_accelerator_and_postprocess` (empty at module level)."""
    condition: str = ""
    """The test of the innermost `if` around it, as source (`not (…)` in its `else`); empty when there is none."""

    @property
    def shown(self) -> str:
        return self.text.replace(HOLE, "{…}")

    def matches(self, message: str) -> bool:
        """Whether the release can produce exactly `message` here."""
        pattern = ".+?".join(re.escape(part) for part in self.text.split(HOLE))
        return re.fullmatch(pattern, message, re.DOTALL) is not None


def _text(node: ast.expr | None, assigned: dict[str, list[ast.expr]], depth: int = 0) -> str | None:
    """The text of a message expression, `HOLE` for run-time parts; `None` when it is not text at all. A name is its
    last assignment, in which the name itself is the assignment before (`message = message.rstrip(",") + "."`)."""
    if node is None or depth > 12:  # a name reassigned a few times (`message += …`) is a few levels deep
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values)  # type: ignore[misc]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, assigned, depth + 1), _text(node.right, assigned, depth + 1)
        return None if left is None and right is None else (left or HOLE) + (right or HOLE)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = _text(node.left, assigned, depth + 1)
        return re.sub(r"%[-#0 +]*\d*(?:\.\d+)?[sdrfi]", HOLE, left) if left is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        left = _text(node.func.value, assigned, depth + 1)
        return re.sub(r"\{[^{}]*\}", HOLE, left) if left is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STRIPS:
        return _text(node.func.value, assigned, depth + 1)
    if isinstance(node, ast.Name) and assigned.get(node.id):
        *before, last = assigned[node.id]
        return _text(last, {**assigned, node.id: before}, depth + 1)
    return None


def _callee(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _assigned_before(scope: ast.AST, line: int) -> dict[str, list[ast.expr]]:
    """The simple `name = <expression>` assignments of `scope` before `line`, in order; `name += …` appends a run-time
    part (it usually runs only on some branches)."""
    assigned: dict[str, list[ast.expr]] = {}
    nodes = (n for n in ast.walk(scope) if isinstance(n, (ast.Assign, ast.AugAssign)))
    for node in sorted(nodes, key=lambda n: n.lineno):
        if node.lineno >= line:
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            runtime = ast.BinOp(ast.Name(node.target.id), ast.Add(), ast.Constant(None))
            assigned.setdefault(node.target.id, []).append(runtime)
    return assigned


def texts_in(tree: ast.Module, path: str) -> Iterator[SourceText]:
    """Each warning call and raised exception with a text, a variable resolved in its function."""
    scopes: list[ast.AST] = []  # the enclosing classes and functions
    conditions: list[str] = []

    def found(node: ast.AST, call: ast.Call, raised: bool) -> SourceText | None:
        message = (
            call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("message", "msg")), None)
        )
        functions = [s for s in scopes if not isinstance(s, ast.ClassDef)]
        assigned = (
            _assigned_before(functions[-1] if functions else tree, node.lineno) if isinstance(message, ast.Name) else {}
        )
        text = _text(message, assigned)
        if text is None:
            return None
        text = re.sub(HOLE + "+", HOLE, text)
        qualified = ".".join(s.name for s in scopes)  # type: ignore[attr-defined]
        category = (_callee(call) or "") if raised else ""
        return SourceText(path, node.lineno, text, raised, category, qualified, conditions[-1] if conditions else "")

    def visit(node: ast.AST) -> Iterator[SourceText]:
        item = None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            item = found(node, node.exc, raised=True)
        elif isinstance(node, ast.Call) and _callee(node) in WARNING_CALLS:
            item = found(node, node, raised=False)
        if item is not None:
            yield item
        scoped = isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        if scoped:
            scopes.append(node)
        for child in ast.iter_child_nodes(node):
            guard = None
            if isinstance(node, ast.If) and child is not node.test:
                test = ast.unparse(node.test)
                guard = test if child in node.body else f"not ({test})"
            if guard is not None:
                conditions.append(guard)
            yield from visit(child)
            if guard is not None:
                conditions.pop()
        if scoped:
            scopes.pop()

    yield from visit(tree)


def source_texts(tree: Path, package: str) -> list[SourceText]:
    """Every warning call and raised exception with a text under `tree/package`, in files whose string literals name
    the feature, in file order. An f-string such as "`{old}` is deprecated" names nothing by itself, so callers
    filter by `NAME` only where they want texts that do."""
    found = []
    for path in sorted((tree / package).rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        if not QUOTED_NAME.search(source):
            continue  # most files never name the feature in a text: parsing them would only cost time
        try:
            parsed = ast.parse(source, filename=str(path))
        except SyntaxError:
            continue
        found.extend(texts_in(parsed, path.relative_to(tree).as_posix()))
    return sorted(found, key=lambda t: (t.path, t.line))


def warning_calls(tree: Path, package: str) -> list[SourceText]:
    """The warning calls among `source_texts`."""
    return [t for t in source_texts(tree, package) if not t.raised]


def raised_naming(tree: Path, package: str) -> list[SourceText]:
    """The exceptions raised under `tree/package` whose text names a checkpointing name."""
    return [t for t in source_texts(tree, package) if t.raised and NAME.search(t.text)]
