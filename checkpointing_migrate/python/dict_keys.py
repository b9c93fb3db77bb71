"""Rule family: the old field as a key of a dict literal unpacked into a constructor, `Config(**{"old": value})`.

The same evidence as a keyword (`checkpointing_migrate.python.keywords`): the key is rewritten where the callee is
training arguments; the new name set too, other mappings unpacked, a key spelt with escapes, a mixin base: reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from checkpointing_migrate.codes import message
from checkpointing_migrate.hits import Hit, info, registered, rename
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.syntax import callee as callee_of
from checkpointing_migrate.python.verdicts import edit
from checkpointing_migrate.receivers import Kind, ReceiverKind


@register(ast.keyword)
def unpacked_dict(file: File, node: ast.keyword, at: At) -> Iterator[Hit]:
    parent, _ = at.parent()
    if node.arg is not None or not (isinstance(parent, ast.Call) and isinstance(node.value, ast.Dict)):
        return
    fields = file.rules.fields
    kind = file.receivers.class_kind(parent.func)
    callee = callee_of(parent) or "?"
    mapping = node.value
    if (
        kind.kind not in (ReceiverKind.ARGS, ReceiverKind.ARGS_UNSURE, ReceiverKind.MIXIN, ReceiverKind.FOREIGN)
        and callee not in file.config_classes
    ):
        yield from _unknown(file, mapping, callee)
        return
    if kind.kind == ReceiverKind.FOREIGN:
        for key in mapping.keys:
            if isinstance(key, ast.Constant) and key.value in fields:
                start = file.at(key.lineno, key.col_offset) + 1
                names = {"old": str(key.value), "callee": callee, "why": kind.why}
                yield registered(
                    fields[key.value], start, code="not-transformers", form="args", section="config", **names
                )
        return
    keys = {k.value for k in mapping.keys if isinstance(k, ast.Constant)} | {k.arg for k in parent.keywords if k.arg}
    for key in mapping.keys:
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value in fields:
            yield _key(file, key, mapping, parent, keys, kind, callee)


def _unknown(file: File, mapping: ast.Dict, callee: str) -> Iterator[Hit]:
    """`build(**{"old": ...})` into a call the tool does not know (a wrapper that may pass it on to
    TrainingArguments): each old key is reported like the keyword it becomes, never rewritten."""
    for key in mapping.keys:
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value in file.rules.fields:
            start = file.at(key.lineno, key.col_offset) + 1
            yield registered(file.rules.fields[key.value], start, code="unknown-callee", old=key.value, callee=callee)


def _key(
    file: File, key: ast.Constant, mapping: ast.Dict, call: ast.Call, keys: set[object], kind: Kind, callee: str
) -> Hit:
    """The verdict on one old field among the keys of the dict `mapping` unpacked into `call`."""
    row = file.rules.fields[str(key.value)]
    start = file.at(key.lineno, key.col_offset) + 1
    spelled = file.text[start - 1 : start + len(row.old) + 1]
    if row.new in keys:
        names = {"who": "passes", "old": row.old, "new": row.new, "to": f" to `{callee}`"}
        return registered(row, start, code="both-names", **names)
    if None in mapping.keys or sum(1 for k in call.keywords if k.arg is None) > 1:
        unpacked = (
            ", ".join(ast.unparse(v) for k, v in zip(mapping.keys, mapping.values, strict=True) if k is None)
            or "another mapping"
        )
        names = {"old": row.old, "callee": callee, "unpacked": unpacked, "new": row.new}
        return registered(row, start, code="kwargs-unpacked", form="dict", section="config", **names)
    if spelled[0] not in "'\"" or spelled[1:-1] != row.old or spelled[-1] != spelled[0]:
        what = message("dict-key", "literal-escaped", old=row.old, callee=callee)
        return info(row, start, code="dict-key", what=what, section="config", new=row.new)
    if kind.kind == ReceiverKind.MIXIN:
        names = {"old": row.old, "callee": callee, "why": kind.why}
        return registered(row, start, code="mixin-field", form=kind.form or "dict", **names)
    unsafe = kind.why if kind.kind == ReceiverKind.ARGS_UNSURE else None
    if kind.kind not in (ReceiverKind.ARGS, ReceiverKind.ARGS_UNSURE):
        unsafe = message("keyword", "not-imported", callee=callee)
    what = message("dict-key", "unpacked", old=row.old, callee=callee)
    edits = (edit(start, row.old, row.new),)
    return rename(row, start, edits, file.options, code="dict-key", what=what, section="config", unsafe=unsafe)
