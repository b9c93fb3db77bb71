"""Rule family: dataclass field declarations, a training-arguments subclass that declares the old field.

A hazard: declaring the old field gives it a default, so every instance warns on the releases with the rename, even
when nobody sets it. Looks at annotated assignments directly in a class body.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from checkpointing_migrate.hits import Hit, registered
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File, register


@register(ast.AnnAssign)
def declaration(file: File, node: ast.AnnAssign, at: At) -> Iterator[Hit]:
    target = node.target
    if not (isinstance(target, ast.Name) and target.id in file.rules.fields):
        return
    cls, _ = at.parent()
    if not isinstance(cls, ast.ClassDef) or not evidence.is_config_class(file, cls):
        return
    row = file.rules.fields[target.id]
    names = {"cls": cls.name, "old": row.old, "since": str(row.since), "new": row.new}
    yield registered(row, file.at(target.lineno, target.col_offset), code="subclass-default", **names)
