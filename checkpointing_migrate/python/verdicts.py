"""The verdicts several Python rule families share: a model member used on a receiver, a field read or written, an
old method replaced on a class.

Each takes the evidence (`checkpointing_migrate.python.evidence`) and returns one `Hit`, built with the shared verdict
functions of `checkpointing_migrate.hits`, so every family says the same thing about the same use.
"""

from __future__ import annotations

import ast

from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import Hit, hazard, info, rename
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File
from checkpointing_migrate.receivers import DOUBLES, NEW_KEYWORDS
from checkpointing_migrate.table import Rename


def edit(start: int, old: str, new: str) -> Edit:
    return Edit(start, start + len(old), new)


def takes(file: File, row: Rename) -> str:
    new = [k.new for k in file.rules.member_kwargs.get(row.old, {}).values()]
    return f" (it takes {', '.join(f'`{n}`' for n in new)})" if new else ""


def new_keywords(file: File, row: Rename) -> str:
    return f" with {NEW_KEYWORDS}" if row.old == file.receivers.enable else ""


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
        why = (
            f"`{text}.{row.old}` is replaced on the instance in this file: since transformers {row.since} the new "
            f"name calls that function{new_keywords(file, row)}, a TypeError unless it accepts them (measured); keep "
            f"the old name until the replacement wraps `{row.new}` instead"
        )
        return hazard(row, start, code="replaced-method", what=f"{what}: not rewritten, {why}", section="model")
    if kind.kind == "override":
        why = (
            f"{kind.why}: since transformers {row.since}, `{new_enable(file)}()` (which the Trainer calls) calls "
            f"such an override with {NEW_KEYWORDS} and raises TypeError (measured), so renaming "
            f"calls on it breaks them; give the override `**kwargs`, or override the new name"
        )
        if file.rules.members[kind.overridden].kind == "property":
            why = f"{kind.why}: reading `{row.new}` would skip the override; override the new name first"
        return hazard(row, start, code="narrow-override", what=f"{what}: not rewritten, {why}", section="model")
    unsafe = evidence.unsafe(receiver, row, kind)
    renamable = ("model", "unknown", "unsure", *DOUBLES)  # a double's call: no evidence either way
    if kind.kind in renamable and row.kind == "property":
        return rename(row, start, edits, file.options, code="property", what=what, section=section, unsafe=unsafe)
    if kind.kind in renamable:
        return rename(row, start, edits, file.options, code="call", what=what, section=section, unsafe=unsafe)
    why = kind.why if kind.kind == "foreign" else f"it holds training arguments: {kind.why}"
    message = f"{what} on `{text}`, which is not a transformers model ({why}): its `{row.old}` is not the deprecated one, so it is not rewritten"
    return info(row, start, code="not-transformers", what=message, section="library")


def class_patch(row: Rename, start: int, patched: str) -> Hit:
    """The old method replaced on a transformers class (`X.old = fn`, `setattr(X, "old", fn)`)."""
    what = (
        f"replaces `{patched}` on the class: `{row.new}` does not go through the "
        f"replacement, so a call renamed to `{row.new}`, in any file, would skip it; patch `{row.new}` too, "
        f"then rename the calls (until then the calls of `{row.old}` in the files checked with this one are not rewritten)"
    )
    return hazard(row, start, code="class-patch", what=what, section="model")


def field_use(row: Rename, start: int, names: tuple[str, str], maybe: str, store: bool) -> Hit:
    """A write to the old field after construction (ignored since the rename), or a read (a silent mirror).

    `names`: how the code spells the old field, and what to write instead.
    """
    used, instead = names
    if store:
        what = f"writes {used} after construction{maybe}: since transformers {row.since} the Trainer reads `{row.new}` and this write is ignored; write {instead} (releases ≥ {row.since})"
        return hazard(row, start, code="write", what=what, section="pitfalls")
    what = f"reads {used}{maybe}: a silent mirror of `{row.new}` since transformers {row.since} (a write to the old field is not mirrored), removed in {row.removal}"
    return info(row, start, code="read", what=what, section="pitfalls", new=row.new)
