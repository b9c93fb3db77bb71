"""Rule family: names the table lists as planned (no release renames them yet), reported only with `--include-planned`.

Looks at bare names, attributes and imported names; the other families report the planned names where they stand in
their own places (a `def`, a keyword, a flag), so this one skips the names they own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from checkpointing_migrate.hits import Hit, planned_hit
from checkpointing_migrate.python.context import At, File, register


@register(ast.Attribute)
def planned_attribute(file: File, node: ast.Attribute, at: At) -> Iterator[Hit]:
    rules = file.rules
    if file.options.planned and node.attr not in rules.members and node.attr not in rules.fields:
        if node.attr in rules.planned:
            yield planned_hit(rules.planned[node.attr], file.attr_start(node), node.attr)


@register(ast.Name)
def planned_name(file: File, node: ast.Name, at: At) -> Iterator[Hit]:
    if file.options.planned and node.id in file.rules.planned:
        yield planned_hit(file.rules.planned[node.id], file.at(node.lineno, node.col_offset), node.id)


@register(ast.alias)
def planned_import(file: File, node: ast.alias, at: At) -> Iterator[Hit]:
    name = node.name.split(".")[-1]
    if file.options.planned and name in file.rules.planned:
        start = file.text.find(name, file.at(node.lineno, node.col_offset))
        yield planned_hit(file.rules.planned[name], start, name)
