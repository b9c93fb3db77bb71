"""The verdicts several Python rule families share: a model member used on a receiver, a field read or written, an
old method replaced on a class.

Each takes the evidence (`checkpointing_migrate.python.evidence`) and returns one `Hit`, built with the shared verdict
functions of `checkpointing_migrate.hits`, so every family says the same thing about the same use.
"""

from __future__ import annotations

import ast
import dataclasses

from checkpointing_migrate.codes import EARLY_WRITE, message
from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import Hit, info, registered, rename
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File
from checkpointing_migrate.receivers import DOUBLES, NEW_KEYWORDS, ReceiverKind
from checkpointing_migrate.receivers import new_keywords as keywords_for
from checkpointing_migrate.table import Rename, RenameKind


def edit(start: int, old: str, new: str) -> Edit:
    return Edit(start, start + len(old), new)


def takes(file: File, row: Rename) -> str:
    new = [k.new for k in file.rules.member_kwargs.get(row.old, {}).values()]
    return f" (it takes {', '.join(f'`{n}`' for n in new)})" if new else ""


def new_keywords(file: File, row: Rename) -> str:
    return keywords_for(row.old, file.receivers.enable)


def new_enable(file: File) -> str:
    enable = file.receivers.enable
    return file.rules.members[enable].new if enable in file.rules.members else ""


def model_member(
    file: File, at: At, receiver: ast.expr, row: Rename, start: int, edits: tuple[Edit, ...], what: str, section: str
) -> Hit:
    """The verdict on renaming a model method or property used on `receiver`, from the evidence about it.

    By what the module shows `receiver` holds (`checkpointing_migrate.receivers`): a transformers model → a safe fix;
    no evidence either way → an unsafe fix (applied only with `--unsafe-fixes`); another library's object or a
    project class that defines the name → `info`; a model class whose override the new name cannot call, or an
    instance whose old method was replaced → a hazard.
    """
    text = ast.unparse(receiver)
    kind = evidence.receiver_kind(file, at, receiver)
    if (text, row.old) in file.receivers.replaced:
        names = {"subject": what, "receiver": text, "old": row.old, "new": row.new, "since": str(row.since)}
        return registered(row, start, code="replaced-method", keywords=new_keywords(file, row), **names)
    if kind.kind == ReceiverKind.OVERRIDE:
        names = {"subject": what, "why": kind.why, "since": str(row.since), "new": row.new, "keywords": NEW_KEYWORDS}
        form = "read" if file.rules.members[kind.overridden].kind == RenameKind.PROPERTY else "call"
        return registered(row, start, code="narrow-override", form=form, enable=new_enable(file), **names)
    unsafe = evidence.unsafe(receiver, row, kind)
    renamable = (
        ReceiverKind.MODEL,
        ReceiverKind.UNKNOWN,
        ReceiverKind.UNSURE,
        *DOUBLES,
    )  # a double's call: no evidence either way
    if kind.kind in renamable:
        if row.kind == RenameKind.PROPERTY:
            hit = rename(row, start, edits, file.options, code="property", what=what, section=section, unsafe=unsafe)
        else:
            hit = rename(row, start, edits, file.options, code="call", what=what, section=section, unsafe=unsafe)
        # Known only as some model class: a subclass's override elsewhere in the run may answer (`run.across_files`).
        return (
            dataclasses.replace(hit, any_subclass=True) if kind.kind == ReceiverKind.MODEL and not kind.exact else hit
        )
    why = kind.why if kind.kind == ReceiverKind.FOREIGN else f"it holds training arguments: {kind.why}"
    names = {"subject": what, "receiver": text, "why": why, "old": row.old}
    return registered(row, start, code="not-transformers", form="call", **names)


def class_patch(row: Rename, start: int, patched: str) -> Hit:
    """The old method replaced on a transformers class (`X.old = fn`, `setattr(X, "old", fn)`)."""
    return registered(row, start, code="class-patch", patched=patched, old=row.old, new=row.new)


def class_override(file: File, row: Rename, start: int, cls: str) -> Hit:
    """The old method replaced on a project's model class (`Tiny.old = fn`, `setattr(Tiny, "old", fn)`): unlike a
    patch of transformers' own class (`class_patch`), an override for all its instances, which the new method calls."""
    removal = row.removal or "the old name is removed"
    names = {"cls": cls, "old": row.old, "new": row.new, "removal": str(removal), "keywords": new_keywords(file, row)}
    hit = registered(row, start, code="instance-override", form="class", **names)
    return dataclasses.replace(hit, defines=True)  # a class of the project defines it: `run.across_files`


def class_parameter_override(file: File, row: Rename, start: int, receiver: str, holds: str) -> Hit:
    """The old method replaced on the class a class decorator or `__init_subclass__` is given (`cls.old = fn`):
    an override of every instance of that class, like `class_override`, wherever the class is."""
    removal = row.removal or "the old name is removed"
    names = {"old": row.old, "new": row.new, "removal": str(removal), "keywords": new_keywords(file, row)}
    hit = registered(row, start, code="instance-override", form="class-param", receiver=receiver, holds=holds, **names)
    return dataclasses.replace(hit, defines=True)


def field_use(row: Rename, start: int, names: tuple[str, str], maybe: str, store: bool, early: bool = False) -> Hit:
    """A write to the old field after construction (ignored since the rename), or a read (a silent mirror).

    `names`: how the code spells the old field, and what to write instead; `early`: the write is in `__post_init__`
    before TrainingArguments' own, which keeps it only while the new field is unset.
    """
    used, instead = names
    said = {"used": used, "maybe": maybe, "since": str(row.since), "new": row.new}
    if store and early:
        hit = registered(row, start, code="write", form="post-init", instead=instead, **said)
        return dataclasses.replace(hit, why=EARLY_WRITE)
    if store:
        return registered(row, start, code="write", instead=instead, **said)
    what = message("read", removal=str(row.removal), **said)
    return info(row, start, code="read", what=what, section="pitfalls", new=row.new)
