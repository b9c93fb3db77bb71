"""Uses that test the deprecation itself: an old name inside `with pytest.warns(...)`, `pytest.deprecated_call()`,
`warnings.catch_warnings(record=True)` or `self.assertWarns(...)`, or handed to the call form of one of them.

Such a test passes because the old name warns, and renamed it would fail ("DID NOT WARN"): a fix (or a `reference`)
found there is an `asserts-warning` info instead, with no edit. Read from the syntax alone, as the rule families are.
"""

from __future__ import annotations

import ast
import dataclasses

from checkpointing_migrate.codes import Applicability, Severity, get, message
from checkpointing_migrate.findings import link
from checkpointing_migrate.hits import Hit
from checkpointing_migrate.pylex import Source

_EXPECTING = {"warns": 1, "deprecated_call": 0, "assertWarns": 1, "assertWarnsRegex": 2}
"""The helpers that fail a test when no warning is given, by name, and how many positional arguments come before the
callable of their call form (`pytest.warns(FutureWarning, f, ...)`)."""


def kept(tree: ast.Module, source: Source, hits: list[Hit]) -> list[Hit]:
    """`hits`, with every fix (or reference) inside a block or call that expects a warning made an `asserts-warning`."""
    if not any(h.severity == Severity.FIX or h.code == "reference" for h in hits):
        return hits
    if not any(name in source.text for name in (*_EXPECTING, "catch_warnings")):
        return hits  # no helper is named: the walk of the whole tree is not needed
    spans = [
        (source.offset(n.lineno, n.col_offset), source.offset(n.end_lineno, n.end_col_offset), helper)
        for n, helper in _expecting(tree)
        if n.end_lineno is not None and n.end_col_offset is not None
    ]
    if not spans:
        return hits
    return [_kept(h, spans) for h in hits]


def _kept(hit: Hit, spans: list[tuple[int, int, str]]) -> Hit:
    helper = next((name for start, end, name in spans if start <= hit.start < end), None)
    if helper is None or (hit.severity != Severity.FIX and hit.code != "reference"):
        return hit  # a hazard says more than that the test needs the old name; an info changes nothing
    said = message("asserts-warning", old=hit.old, helper=helper)
    return dataclasses.replace(
        hit,
        severity=Severity.INFO,
        code="asserts-warning",
        new=None,
        edits=(),
        applicability=Applicability.NONE,
        message=f"{said}. See {link(get('asserts-warning').section)}",
        why=None,
    )


def _expecting(tree: ast.Module) -> list[tuple[ast.AST, str]]:
    """The `with` statements whose context expects a warning, and the calls of the call form, with the helper's
    name as written."""
    found: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            helper = next((h for item in node.items if (h := _helper(item.context_expr, True))), None)
            if helper is not None:
                found.append((node, helper))
        elif isinstance(node, ast.Call) and (helper := _helper(node, False)) is not None:
            found.append((node, helper))
    return found


def _helper(node: ast.expr, context: bool) -> str | None:
    """The name of the helper `node` calls when it expects a warning: as a `with` context (`context`), or in its call
    form, given a callable to run."""
    if not isinstance(node, ast.Call):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    shown = ast.unparse(node.func)
    if context and name == "catch_warnings":
        recorded = any(k.arg == "record" and isinstance(k.value, ast.Constant) and k.value.value for k in node.keywords)
        return shown if recorded else None
    if name not in _EXPECTING:
        return None
    if context:
        return shown
    return shown if len(node.args) > _EXPECTING[name] else None
