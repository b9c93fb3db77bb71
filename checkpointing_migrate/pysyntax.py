"""The statements of a tree as Python scopes them, read from syntax alone: every statement of a module or of a class
body in source order, the names a scope rebinds where no walk of its own statements finds them (`global`, `nonlocal`,
`globals()[...]`), and the small tests of expressions that `receivers` and `argsclasses` share.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


def module_statements(tree: ast.Module, *, nested: bool) -> Iterator[ast.stmt]:
    """Every statement of the module, in source order; with `nested` False, not those inside functions or classes
    (the class statements themselves are yielded)."""
    pending: list[ast.stmt] = tree.body[::-1]  # a stack, next statement last: popping the front was quadratic
    while pending:
        node = pending.pop()
        yield node
        if not nested and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if not isinstance(node, _BLOCKS):
            continue  # a simple statement (most are) holds none
        pending += reversed(_inner_statements(node))


_BLOCKS = tuple(
    t
    for t in vars(ast).values()
    if isinstance(t, type) and issubclass(t, ast.stmt) and {"body", "cases"} & set(t._fields)
)
"""The statements that hold statements (`if`, `try`, `match`, `def` ...), found from `ast` itself, so none is missed."""

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
"""The statements that open a scope of their own, where `global` and `nonlocal` may name a name of another one."""

COMPOUND = (*(t for t in _BLOCKS if not issubclass(t, _SCOPES)), ast.ExceptHandler, ast.match_case)
"""The nodes between a class and a statement of its body that stay in the body's scope (`if`, `try` and its
handlers, `with`, loops, `match` and its cases): a `def` there defines a method as one at the top level does."""


def class_body(node: ast.ClassDef) -> list[ast.stmt]:
    """The statements of a class body, in source order, with those inside its `COMPOUND` statements (a method defined
    under `if` is the class's as much as one at the top level); not those of a function or class inside it."""
    found: list[ast.stmt] = []
    pending: list[ast.stmt] = node.body[::-1]
    while pending:
        statement = pending.pop()
        found.append(statement)
        if isinstance(statement, _BLOCKS) and not isinstance(statement, _SCOPES):
            pending += reversed(_inner_statements(statement))
    return found


def pattern_capture(node: ast.AST) -> str | None:
    """The name a `case` pattern binds: `case m`, `case [m, *rest]`, `case {"k": m, **rest}`, `case Foo(m)`, `case _ as
    m` (a pattern binds a plain string, not an `ast.Name` in a store context)."""
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return node.name
    return node.rest if isinstance(node, ast.MatchMapping) else None


def rebound_inside(scope: ast.AST) -> set[str]:
    """The names of `scope` that the code in it rebinds from elsewhere, which no walk of its own statements finds: a
    function (or class body) inside it that declares the name `global` (the module's) or `nonlocal` (a function's) and
    binds it, or `globals()["name"] = ...` anywhere in the module. Only statements are visited (both forms are
    statements), and only a scope that declares one is read for what it binds."""
    module = isinstance(scope, ast.Module)
    declared = ast.Global if module else ast.Nonlocal
    names: set[str] = set()
    declaring: dict[int, ast.AST] = {}
    body = getattr(scope, "body", None)
    pending: list[tuple[ast.AST, ast.AST | None]] = [(s, None) for s in body] if isinstance(body, list) else []
    while pending:
        node, inner = pending.pop()
        if isinstance(node, declared) and inner is not None:
            declaring[id(inner)] = inner
        elif module and isinstance(node, ast.Assign):
            names.update(key for t in node.targets if (key := _globals_key(t)) is not None)
        if isinstance(node, _BLOCKS):
            holder = node if isinstance(node, _SCOPES) else inner
            pending += [(s, holder) for s in _inner_statements(node)]
    for inner in declaring.values():
        names |= _declared_and_bound(inner, declared)
    return names


def _inner_statements(node: ast.stmt) -> list[ast.stmt]:
    """The statements right inside a block statement (its bodies, handlers and cases)."""
    inner = [n for name in ("body", "orelse", "finalbody") for n in getattr(node, name, []) if isinstance(n, ast.stmt)]
    inner += [n for h in getattr(node, "handlers", []) for n in h.body]
    return inner + [n for c in getattr(node, "cases", []) for n in c.body]


def _declared_and_bound(scope: ast.AST, declared: type[ast.Global | ast.Nonlocal]) -> set[str]:
    """The names the statements of `scope` itself (not of the scopes inside it) declare `declared` and bind."""
    names: set[str] = set()
    bound: set[str] = set()
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, declared):
            names.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif (captured := pattern_capture(node)) is not None:
            bound.add(captured)
        if isinstance(node, _SCOPES):
            bound.add(node.name)
        if isinstance(node, (*_SCOPES, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names & bound


def _globals_key(target: ast.expr) -> str | None:
    """`name` of `globals()["name"]`: an assignment there binds the module's `name`."""
    if isinstance(target, ast.Subscript) and is_builtin_call(target.value, "globals"):
        return string_key(target)
    return None


def string(expr: ast.expr | None) -> str | None:
    """`"text"`: the text of a string constant, else `None`."""
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def string_key(target: ast.expr) -> str | None:
    """`"key"` of `anything["key"]`."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
        return target.slice.value if isinstance(target.slice.value, str) else None
    return None


def is_builtin_call(expr: ast.expr, name: str) -> bool:
    """`name(...)`: a call of the builtin `name` (a module that defines or imports its own is not told apart)."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == name


def is_name(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name
