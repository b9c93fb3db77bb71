"""Rule family: training-arguments fields read or written as attributes (`args.old_field`).

Only on something surely training arguments (`self` in such a class, a parameter annotated with one, a name assigned
from a constructor call) or conventionally named so (`args`, `training_args`, `self.args`); any other
`.gradient_checkpointing` is modeling code's per-module flag or a config's key, and is not touched.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from packaging.version import Version

from checkpointing_migrate.codes import message, shared
from checkpointing_migrate.hits import Hit, info, planned_hit
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.verdicts import field_use
from checkpointing_migrate.receivers import Evidence


@register(ast.Attribute)
def field_attribute(file: File, node: ast.Attribute, at: At) -> Iterator[Hit]:
    """A write is a hazard unless it only runs on releases older than the rename; a read is `info`."""
    rules = file.rules
    if node.attr in rules.members or node.attr not in rules.fields:
        return
    row = rules.fields[node.attr]
    kind = evidence.config_receiver(file, at, node.value)
    start = file.attr_start(node)
    if kind is None:
        if file.options.planned and node.attr in rules.planned:
            yield planned_hit(rules.planned[node.attr], start, node.attr)
        return
    receiver = ast.unparse(node.value)
    maybe = "" if kind == Evidence.SURE else shared("maybe", receiver=receiver)
    parent, _ = at.parent()
    store = isinstance(node.ctx, ast.Store) or (isinstance(parent, ast.AugAssign) and parent.target is node)
    if store:
        dead = evidence.dead_before(at)
        if dead is not None and row.since and dead <= Version(row.since):
            what = message("dead-write", receiver=receiver, old=row.old, dead=str(dead))
            yield info(row, start, code="dead-write", what=what, section="pitfalls", new=row.new)
            return
    early = store and evidence.before_up_call(file, at, node.value)
    yield field_use(row, start, (f"`{receiver}.{row.old}`", f"`{receiver}.{row.new}`"), maybe, store, early)
