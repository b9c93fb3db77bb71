"""What the syntax of a Python node says by itself, with no evidence about names: a pure leaf of the Python rules.

Callees, parameters, the names an expression mentions, an up-call by a base's name, and the version test of an
`if` that holds only on releases older than some version.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

from packaging.version import InvalidVersion, Version

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
"""The nodes that open a scope of their own (`checkpointing_migrate.python.context.At.scopes`)."""


_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)
"""The nodes a statement can stand in (a module, a block, an `except` clause, a `case`): never an expression."""


def statements_walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and the statements below it, in `ast.walk`'s order, without going into expressions (no statement is
    inside one): an assignment in a big class is found without visiting every name and call in it."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        todo.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, _HOLDERS))
        yield node


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = node.args
    return {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}


def up_call(call: ast.Call, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`Base.method(self, ...)` inside `method`: a call through a class name with the method's own first parameter."""
    positional = [*method.args.posonlyargs, *method.args.args]
    return (
        isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, (ast.Name, ast.Attribute))
        and bool(call.args and positional)
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == positional[0].arg
    )


def callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def names_in(node: ast.AST | None) -> set[str]:
    return (
        {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        | {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if node is not None
        else set()
    )


def names_in_bases(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for base in node.bases:
        names |= names_in(base)
    return names


def old_release_only(test: ast.expr) -> Version | None:
    """The version V when `test` holds only on transformers releases older than V (a version-gated block)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Lt, ast.LtE)):
            left, right = ast.unparse(node.left), node.comparators[0]
            texts = [c.value for c in ast.walk(right) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            if "version" in left.lower() and "transformers" in left and texts:
                return _version(texts[0])
        if (
            isinstance(node, ast.Call)
            and (callee(node) or "").endswith("is_transformers_version")
            and len(node.args) == 2
        ):
            op, ver = node.args
            if isinstance(op, ast.Constant) and op.value in ("<", "<=") and isinstance(ver, ast.Constant):
                return _version(str(ver.value))
    return None


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None
