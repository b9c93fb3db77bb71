"""Rule family: renamed keyword arguments, `TrainingArguments(old=...)`, `.set_training(old=...)`, `model.m(old=...)`.

Keywords of `TrainingArguments` or a known subclass (measured: TRL's configs, `Seq2SeqTrainingArguments`, project
classes that subclass one), imported under any name, are rewritten; a class of that name not imported from
transformers/TRL: unsafe. The new keyword passed too, `**` unpacking, a mixin base, `dataclasses.replace`: hazards.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from checkpointing_migrate import codes
from checkpointing_migrate.hits import Hit, planned_hit, registered, rename
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.syntax import callee as callee_of
from checkpointing_migrate.python.verdicts import edit, model_member
from checkpointing_migrate.receivers import UNKNOWN, ReceiverKind
from checkpointing_migrate.table import Rename, RenameKind


@register(ast.keyword)
def keyword(file: File, node: ast.keyword, at: At) -> Iterator[Hit]:
    """A keyword of a call; the method call's own renamed keywords are renamed with it (`members`)."""
    parent, _ = at.parent()
    if node.arg is None or not isinstance(parent, ast.Call):
        return
    arg, rules = node.arg, file.rules
    callee = callee_of(parent) or "?"
    start = file.at(node.lineno, node.col_offset)
    if callee in rules.member_kwargs and arg in rules.member_kwargs[callee]:
        if callee in rules.members:
            return  # renamed together with the method call
        row = rules.member_kwargs[callee][arg]
        if any(k.arg == row.new for k in parent.keywords):  # renamed, the keyword would be given twice
            names = {"who": "passes", "old": f"{row.old}=", "new": f"{row.new}=", "to": f" to `{callee}()`"}
            yield registered(row, start, code="both-names", form="new-only", **names)
            return
        what = codes.message("keyword", "new-only", old=arg, callee=callee)
        if isinstance(parent.func, ast.Attribute):
            yield model_member(
                file, at, parent.func.value, row, start, (edit(start, row.old, row.new),), what, "script"
            )
            return
        yield _verdict(file, parent, row, start, callee, what, "script", None)
    elif callee in rules.method_kwargs and arg in rules.method_kwargs[callee]:
        row = rules.method_kwargs[callee][arg]
        kind = evidence.kind(file, at, parent.func.value) if isinstance(parent.func, ast.Attribute) else UNKNOWN
        if kind.kind == ReceiverKind.FOREIGN:
            names = {"old": f"{arg}=", "callee": callee, "why": kind.why}
            yield registered(row, start, code="not-transformers", form="object", section="config", **names)
            return
        yield _verdict(
            file, parent, row, start, callee, codes.message("keyword", "method", old=arg, callee=callee), "config", None
        )
    elif arg in rules.fields and _is_replace(file, parent, at):
        row = rules.fields[arg]
        copied = ast.unparse(parent.args[0]) if parent.args else "..."
        names = {"callee": callee, "copied": copied, "old": arg, "new": row.new, "since": str(row.since)}
        yield registered(row, start, code="replace", **names)
    elif arg in rules.fields:
        yield from _field_keyword(file, parent, rules.fields[arg], start, callee)
    else:
        yield from _unknown(file, arg, start, callee)


def _field_keyword(file: File, call: ast.Call, row: Rename, start: int, callee: str) -> Iterator[Hit]:
    """A training-arguments field passed to a constructor: by what the class is."""
    arg = row.old
    kind = file.receivers.class_kind(call.func)
    if kind.kind == ReceiverKind.MIXIN:
        names = {"old": f"{arg}=" if kind.form else arg, "callee": callee, "why": kind.why}
        yield registered(row, start, code="mixin-field", form=kind.form, **names)
        return
    if kind.kind == ReceiverKind.FOREIGN:
        names = {"old": f"{arg}=", "callee": callee, "why": kind.why}
        yield registered(row, start, code="not-transformers", form="args", section="config", **names)
        return
    unsafe = None
    if kind.kind == ReceiverKind.ARGS_UNSURE:
        unsafe = kind.why
    elif kind.kind != ReceiverKind.ARGS:
        if callee not in file.config_classes:
            yield from _unknown(file, arg, start, callee)
            return
        unsafe = codes.message("keyword", "not-imported", callee=callee)
    what = codes.message("keyword", old=arg, callee=callee)
    yield _verdict(file, call, row, start, callee, what, "config", unsafe)


def _unknown(file: File, arg: str, start: int, callee: str) -> Iterator[Hit]:
    """A renamed keyword passed to something the tool does not know as its owner."""
    rules = file.rules
    known = rules.fields.get(arg) or next((kw[arg] for kw in rules.member_kwargs.values() if arg in kw), None)
    if known is not None:
        yield registered(known, start, code="unknown-callee", old=arg, callee=callee)
    elif file.options.planned and arg in rules.planned:
        yield planned_hit(rules.planned[arg], start, arg)


def _verdict(
    file: File, call: ast.Call, row: Rename, start: int, callee: str, what: str, section: str, unsafe: str | None
) -> Hit:
    """The rename of a keyword its callee owns, unless the call also sets the new name or unpacks `**`."""
    if any(k.arg == row.new for k in call.keywords):
        names = {"who": "passes", "old": f"{row.old}=", "new": f"{row.new}=", "to": f" to `{callee}`"}
        form = (
            ""
            if row.kind != RenameKind.ARGUMENT
            else "set_training"
            if row.owner.endswith(".set_training")
            else "raises"
        )
        hit = registered(row, start, code="both-names", form=form, **names)
    elif any(k.arg is None for k in call.keywords):
        names = {"old": row.old, "callee": callee, "new": row.new}
        hit = registered(row, start, code="kwargs-unpacked", form="keyword", section="config", **names)
    else:
        edits = (edit(start, row.old, row.new),)
        hit = rename(row, start, edits, file.options, code="keyword", what=what, section=section, unsafe=unsafe)
    return dataclasses.replace(hit, via=callee)


def _is_replace(file: File, call: ast.Call, at: At) -> bool:
    """`dataclasses.replace(x, ...)` (under any import) on something that holds training arguments."""
    name = file.receivers.qualified(call.func)
    if name != "dataclasses.replace" and not (name is None and callee_of(call) == "replace"):
        return False
    return bool(call.args) and evidence.config_receiver(file, at, call.args[0]) is not None
