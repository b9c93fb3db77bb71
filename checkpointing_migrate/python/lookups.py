"""Rule family: string lookups, the old name given by string to `getattr`, `hasattr` or `setattr`.

A model member's lookup is a hazard (it warns like a direct use, or fails once the name is removed); `setattr` on a
transformers model class replaces the method; a field's lookup on training arguments is a read or a write like
`args.old_field` (`checkpointing_migrate.python.fields`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from checkpointing_migrate.codes import message
from checkpointing_migrate.hits import Hit, hazard
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.syntax import callee as callee_of
from checkpointing_migrate.python.verdicts import class_override, class_patch, field_use
from checkpointing_migrate.receivers import Evidence
from checkpointing_migrate.table import RenameKind


@register(ast.Call)
def string_lookup(file: File, call: ast.Call, at: At) -> Iterator[Hit]:
    function = callee_of(call)
    if function not in ("getattr", "hasattr", "setattr") or len(call.args) < 2:
        return
    name = call.args[1]
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return
    start = file.at(name.lineno, name.col_offset) + 1
    rules = file.rules
    owner = call.args[0]
    cls = evidence.project_model_class(file, owner) if name.value in rules.members and function == "setattr" else None
    if cls is not None:
        yield class_override(file, rules.members[name.value], start, cls)
    elif name.value in rules.members and function == "setattr" and evidence.is_model_class(file, owner):
        yield class_patch(rules.members[name.value], start, f"{ast.unparse(call.args[0])}.{name.value}")
    elif name.value in rules.members:
        row = rules.members[name.value]
        # Measured: the property has no setter, a method is replaced; looking a method up does not warn.
        kind = "property" if row.kind == RenameKind.PROPERTY else "method"
        looks = f"setattr-{kind}" if function == "setattr" else kind
        effect = message("string-lookup", looks, old=row.old, removal=str(row.removal))
        what = message("string-lookup", old=row.old, function=function, effect=effect, new=row.new)
        # How the lookup ends once the name is gone: `hasattr` and a `getattr` default answer, the others raise.
        form = "getattr with a default" if function == "getattr" and len(call.args) > 2 else function
        yield dataclasses.replace(hazard(row, start, code="string-lookup", what=what, section="library"), via=form)
    elif name.value in rules.fields and (kind := evidence.config_receiver(file, at, call.args[0])):
        row = rules.fields[name.value]
        maybe = "" if kind == Evidence.SURE else " (if this is TrainingArguments)"
        used = f"`{row.old}` by string with `{function}`"
        early = function == "setattr" and evidence.before_up_call(file, at, owner)
        yield field_use(row, start, (used, f"`{row.new}`"), maybe, function == "setattr", early)
