"""The dispatcher: one walk over the statements on candidate lines, running on each node the rules its type is
registered for (`checkpointing_migrate.python.context.register`).

A new rule family is one module of registered rules plus one entry in `FAMILIES`; the table from node type to rules
is built once per run (`Run.dispatch`), and rules run in `FAMILIES` order on each node.
"""

from __future__ import annotations

import ast
from types import ModuleType

from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.python import (
    definitions,
    dict_flow,
    dict_keys,
    field_declarations,
    fields,
    flags,
    keywords,
    lookups,
    members,
    planned,
)
from checkpointing_migrate.python.context import At, File, Run

FAMILIES: tuple[ModuleType, ...] = (
    dict_flow,  # first: it claims the dict keys whose dict it follows
    members,
    fields,
    planned,
    keywords,
    dict_keys,
    definitions,
    field_declarations,
    lookups,
    flags,
)
"""Every rule family, in the order their rules run on a node."""


def run_of(options: Options) -> Run:
    """The run's facts, derived from the table the first time a file of the run asks (`Options.memo`)."""
    return options.memo.once(Run, lambda: Run.of(options.rules, FAMILIES))


def walk(file: File) -> list[Hit]:
    """The hits of every rule on the nodes of `file`'s tree that touch a candidate line, in source order."""
    hits: list[Hit] = []
    _visit(file, file.tree, (), hits)
    return hits


def _visit(file: File, node: ast.AST, chain: tuple[tuple[ast.AST, str], ...], hits: list[Hit]) -> None:
    dispatch = file.run.dispatch
    for name, value in ast.iter_fields(node):
        for child in value if isinstance(value, list) else (value,):
            if not isinstance(child, ast.AST):
                continue
            first = getattr(child, "lineno", None)
            if getattr(child, "decorator_list", None):  # a `def` or `class` starts at its first decorator's line
                first = min(first or child.decorator_list[0].lineno, child.decorator_list[0].lineno)
            if first is not None and not file.touches(first, getattr(child, "end_lineno", None)):
                continue
            below = (*chain, (child, name))
            for rule in dispatch.get(type(child), ()):
                found = rule(file, child, At(below))
                if rule.claims and found is None:
                    continue
                hits.extend(found or ())
                if rule.claims:
                    break  # the node is that family's use alone
            _visit(file, child, below, hits)
