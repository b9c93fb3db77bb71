"""The code around a use, for the adoption report's v6 verdict: version branches, guards and the enclosing class.

A read inside `if Version(transformers.__version__) < Version("5.0.0"):` never runs on 6.0.0; a call under
`hasattr(model, "old")` is skipped once the name is gone; `if not hasattr(...): raise E` raises the package's own `E`
first; a `getattr` default or `try/except AttributeError` answers instead of the exception. Read from the file's AST.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

_COMPARE: dict[type[ast.cmpop], Callable[[object, object], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_VERSION_CALLS = ("Version", "parse", "parse_version", "LooseVersion")
"""Callables that turn a version string into something comparable (`packaging.version.parse`, `Version`)."""
_CHECKERS = ("is_transformers_version",)
"""transformers' own helper: `is_transformers_version(">=", "4.56")`."""
CAUGHT = ("AttributeError", "TypeError", "Exception", "BaseException")
"""Exceptions that an `except` around a use catches when the name is gone or a keyword is refused."""


@dataclass(frozen=True)
class Around:
    """What the code around one use decides about it on a given transformers release."""

    runs: bool
    """False when a version branch around it cannot run on that release."""
    instead: str
    """What happens instead of the exception once the name is gone: empty (nothing), `skipped (hasattr)`, `the
    getattr default`, `caught (except AttributeError)`, or `E (the package's own, from the hasattr check at LINE)`."""
    own_error: str
    """The exception type the package raises itself before the use (its `hasattr` check), else empty."""


def name_of(node: ast.expr) -> str:
    """The last name of a `Name` or `Attribute` (`version.parse` → `parse`), else empty."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_transformers_version(node: ast.expr) -> bool:
    """`transformers.__version__`, `__version__` imported from transformers, or a name that says so."""
    text = ast.unparse(node)
    return (
        "__version__" in text
        and ("transformers" in text or text == "__version__")
        or text
        in (
            "transformers_version",
            "TRANSFORMERS_VERSION",
        )
    )


def _version_side(node: ast.expr) -> tuple[str, object] | None:
    """(`release` or `literal`, value) for one side of a comparison: the running transformers, or a literal version."""
    if isinstance(node, ast.Call) and name_of(node.func) in _VERSION_CALLS and len(node.args) == 1:
        inner = node.args[0]
        if _is_transformers_version(inner) or (
            isinstance(inner, ast.Attribute) and inner.attr == "base_version" and _is_transformers_version(inner.value)
        ):
            return "release", None
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            return "literal", inner.value
        if (
            isinstance(inner, ast.Call)
            and name_of(inner.func) in ("version",)
            and ast.unparse(inner.args[:1][0])
            in (
                "'transformers'",
                '"transformers"',
            )
        ):
            return "release", None  # importlib.metadata.version("transformers")
        return None
    if isinstance(node, ast.Attribute) and node.attr == "base_version":
        side = _version_side(node.value)
        return side if side and side[0] == "release" else None
    if _is_transformers_version(node):
        return "release-text", None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return "literal", node.value
    return None


def evaluate(test: ast.expr, release: str) -> bool | None:
    """The value of a version test on `release`, or `None` when the test is not (only) about transformers' version."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = evaluate(test.operand, release)
        return None if inner is None else not inner
    if isinstance(test, ast.Call) and name_of(test.func) in _CHECKERS and len(test.args) == 2:
        op, wanted = test.args
        if isinstance(op, ast.Constant) and isinstance(wanted, ast.Constant):
            ops = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
            if op.value in ops:
                try:
                    return _COMPARE[ops[op.value]](Version(release), Version(str(wanted.value)))
                except InvalidVersion:
                    return None
        return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE:
        left, right = _version_side(test.left), _version_side(test.comparators[0])
        if not left or not right or {left[0], right[0]} & {"literal"} != {"literal"} or left[0] == right[0]:
            return None
        compare = _COMPARE[type(test.ops[0])]
        running = left if left[0] != "literal" else right
        literal = str((right if running is left else left)[1])
        try:
            mine: object = release if running[0] == "release-text" else Version(release)
            other: object = literal if running[0] == "release-text" else Version(literal)
        except InvalidVersion:
            return None
        return compare(mine, other) if running is left else compare(other, mine)
    return None


def _decides(test: ast.expr, release: str, branch: str) -> bool:
    """Whether the `branch` (`body` or `orelse`) of an `if` with `test` cannot run on `release`."""
    whole = evaluate(test, release)
    if whole is not None:
        return whole is False if branch == "body" else whole is True
    if isinstance(test, ast.BoolOp):
        parts = [evaluate(v, release) for v in test.values]
        if isinstance(test.op, ast.And) and branch == "body":
            return False in parts
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and branch == "orelse":
            return True in parts
    return False


def _hasattr_of(test: ast.expr, name: str) -> ast.Call | None:
    """The `hasattr(x, "name")` a test requires to be true (alone or in an `and`)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for part in parts:
        if (
            isinstance(part, ast.Call)
            and name_of(part.func) == "hasattr"
            and len(part.args) == 2
            and isinstance(part.args[1], ast.Constant)
            and part.args[1].value == name
        ):
            return part
    return None


def _contains(node: ast.AST, line: int, column: int) -> bool:
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]
    return start <= (line, column) <= end


@cache
def tree_of(path: Path) -> ast.Module | None:
    """The file's AST, parsed once; `None` when it cannot be read or parsed (the scanner reports such files)."""
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def around(path: Path, line: int, column: int, name: str, release: str) -> Around:
    """What the code around the use of `name` at `line`:`column` (1-based column, as findings give) decides on
    `release`."""
    tree = tree_of(path)
    if tree is None:
        return Around(True, "", "")
    column -= 1
    runs, instead, own = True, "", ""

    def visit(node: ast.AST) -> None:
        nonlocal runs, instead, own
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if not isinstance(child, ast.AST) or not hasattr(child, "lineno") or not _contains(child, line, column):
                    continue
                if isinstance(node, (ast.If, ast.IfExp, ast.While)) and field in ("body", "orelse"):
                    if _decides(node.test, release, field):
                        runs = False
                    if field == "body" and _hasattr_of(node.test, name) is not None and not instead:
                        instead = "skipped (hasattr)"
                if isinstance(node, ast.Try) and field == "body":
                    caught = {name_of(t) for h in node.handlers if h.type for t in _types(h.type)}
                    if caught & set(CAUGHT) and not instead:
                        instead = f"caught (except {', '.join(sorted(caught & set(CAUGHT)))})"
                if field == "body" or field == "orelse" or isinstance(value, list):
                    for earlier in children[:index] if isinstance(value, list) else ():
                        raised = _raises_without(earlier, name)
                        if raised and not own:
                            own = raised
                visit(child)

    visit(tree)
    return Around(runs, instead, own)


def _types(node: ast.expr) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def _raises_without(statement: ast.AST, name: str) -> str:
    """`E` when `statement` is `if not hasattr(x, "name"): raise E(...)`: the package's own error comes first."""
    if not isinstance(statement, ast.If):
        return ""
    test = statement.test
    if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _hasattr_of(test.operand, name)):
        return ""
    for node in statement.body:
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            return name_of(exc)
    return ""


@dataclass(frozen=True)
class Definition:
    """The class a method definition at a line belongs to, with its bases as written."""

    name: str
    bases: tuple[str, ...]
    keywords: bool
    """The method takes `**kwargs`."""
    parameters: tuple[str, ...]


def definition_at(path: Path, line: int, name: str) -> Definition | None:
    """The class of the `def name` at `line` (or the class whose body assigns it), or `None`."""
    tree = tree_of(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                if item.lineno <= line <= (item.end_lineno or item.lineno) or any(
                    d.lineno == line for d in item.decorator_list
                ):
                    args = item.args
                    params = tuple(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
                    return Definition(
                        node.name, tuple(ast.unparse(b) for b in node.bases), args.kwarg is not None, params
                    )
    return None
