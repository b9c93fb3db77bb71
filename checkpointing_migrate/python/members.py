"""Rule family: model members, `x.old_method(...)` (with the method's renamed keywords) and `x.old_property`.

Looks at attributes named like a renamed model method or property; the verdict comes from the receiver
(`verdicts.model_member`). Assignments, references without a call and `**` unpacking are hazards, except where the
name is no model's method (the project's own flag on its parsed namespace, a mock's or a namespace's attribute: `info`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path

from checkpointing_migrate import codes
from checkpointing_migrate.codes import Severity
from checkpointing_migrate.hits import Hit, registered, rename
from checkpointing_migrate.pysyntax import class_body
from checkpointing_migrate.python import evidence
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.syntax import callee, up_call
from checkpointing_migrate.python.verdicts import (
    class_override,
    class_parameter_override,
    class_patch,
    edit,
    model_member,
    new_keywords,
    takes,
)
from checkpointing_migrate.receivers import DOUBLES, ReceiverKind
from checkpointing_migrate.table import Rename, RenameKind


@register(ast.Attribute)
def member(file: File, node: ast.Attribute, at: At) -> Iterator[Hit]:
    """`x.old_method(...)` or `x.old_property`: see `verdicts.model_member`. Never rewritten when the call unpacks
    `**kwargs` (they may hold the old keyword, which the new method refuses), inside an override of the old method
    calling `super()`, or, without evidence, in a file that imports a library whose own API has the same name
    (diffusers' `is_gradient_checkpointing` is not deprecated). A method reference without a call, or assigning a
    function to the old method on an instance: hazards."""
    rules = file.rules
    if node.attr not in rules.members:
        return
    row = rules.members[node.attr]
    start = file.attr_start(node)
    parent, _ = at.parent()
    section = "model" if at.enclosing(ast.ClassDef) else "script"
    if isinstance(node.ctx, ast.Store) and (cls := evidence.project_model_class(file, node.value)) is not None:
        yield class_override(file, row, start, cls)
        return
    if isinstance(node.ctx, ast.Store) and (holds := evidence.class_parameter(file, at, node.value)) is not None:
        yield class_parameter_override(file, row, start, ast.unparse(node.value), holds)
        return
    if isinstance(node.ctx, ast.Store) and evidence.is_model_class(file, node.value):
        yield class_patch(row, start, f"{ast.unparse(node.value)}.{node.attr}")
        return
    called = isinstance(parent, ast.Call) and parent.func is node
    if not called and (hit := _not_a_method(file, node, at, row, start)) is not None:
        yield hit
        return
    if isinstance(node.ctx, ast.Store):
        removal = row.removal or "the old name is removed"
        keywords = new_keywords(file, row)
        yield registered(
            row, start, code="instance-override", old=node.attr, new=row.new, removal=removal, keywords=keywords
        )
        return
    receiver = evidence.called_on(file, node, parent) if called and isinstance(parent, ast.Call) else node.value
    if node.attr in file.shared and evidence.kind(file, at, receiver).kind not in (
        ReceiverKind.MODEL,
        ReceiverKind.OVERRIDE,
        ReceiverKind.FOREIGN,
    ):
        libs = ", ".join(rules.shared[node.attr])
        yield registered(row, start, code="shared-name", old=node.attr, libs=libs)
        return
    if not called:
        if row.kind == RenameKind.PROPERTY:
            edits = (edit(start, row.old, row.new),)
            yield model_member(file, at, node.value, row, start, edits, codes.message("property", old=row.old), section)
        else:
            names = {"old": row.old, "new": row.new, "removal": str(row.removal), "takes": takes(file, row)}
            yield registered(row, start, code="reference", note=evidence.flag_note(file, at, node), **names)
        return
    if _inside_override(file, node, parent, at):
        return  # part of an override, reported at its `def`
    yield from _call(file, node, parent, at, section)


def _not_a_method(file: File, node: ast.Attribute, at: At, row: Rename, start: int) -> Hit | None:
    """The old name read or set, not called, where it is no model's method: the project's own command-line flag
    (`args.model.gradient_checkpointing_enable` for `--model.gradient_checkpointing_enable`), or an attribute of a
    mock or a plain namespace (a test's `args = MagicMock()`). `None` elsewhere."""
    who = "sets" if isinstance(node.ctx, ast.Store) else "reads"
    receiver = ast.unparse(node.value)
    if (declared := evidence.own_flag(file, at, node)) is not None:
        from checkpointing_migrate.project import project_folder  # loaded only for a project's own flag

        folder = project_folder(file.base)[0] if file.base is not None else Path()
        names = {"who": who, "use": f"{receiver}.{node.attr}", "flag": declared.flag, "where": declared.where(folder)}
        form = "field-namespace" if declared.owner else "namespace"
        return registered(row, start, code="own-flag", form=form, section="library", cls=declared.owner, **names)
    held = evidence.kind(file, at, node.value)
    if held.kind not in DOUBLES:
        return None
    holds = f"`{receiver}` is {held.why}" if isinstance(node.value, ast.Attribute) else f"`{receiver}` holds {held.why}"
    form = "mock" if held.kind == ReceiverKind.MOCK else "namespace"
    return registered(row, start, code="not-transformers", form=form, who=who, old=row.old, holds=holds)


def _inside_override(file: File, node: ast.Attribute, call: ast.Call, at: At) -> bool:
    """`super().old(...)` or `Base.old(self, ...)` in a method named like an old member, or in any method of a class
    that defines `old` (a helper the override calls): part of an override. Renamed there, the new method would call
    the override again: a RecursionError (measured)."""
    function = at.enclosing((ast.FunctionDef, ast.AsyncFunctionDef))
    cls = at.enclosing(ast.ClassDef)
    receiver = node.value
    return (
        isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        and isinstance(cls, ast.ClassDef)
        and (function.name in file.rules.members or node.attr in _defined_in(cls))
        and ((isinstance(receiver, ast.Call) and callee(receiver) == "super") or up_call(call, function))
    )


def _defined_in(cls: ast.ClassDef) -> set[str]:
    """The names the class body defines (`def`, or `name = value`), inside its compound statements too."""
    body = class_body(cls)
    names = {s.name for s in body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
    return names | {t.id for s in body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}


def _call(file: File, node: ast.Attribute, call: ast.Call, at: At, section: str) -> Iterator[Hit]:
    """A call of the old method, with the renamed keywords it passes (renamed with it)."""
    row = file.rules.members[node.attr]
    start = file.attr_start(node)
    receiver = evidence.called_on(file, node, call)
    old_kwargs = file.rules.member_kwargs.get(node.attr, {})
    kwargs = [k for k in call.keywords if k.arg in old_kwargs]
    if any(k.arg is None for k in call.keywords) and old_kwargs:
        kwarg, first = next(iter(old_kwargs.items()))
        names = {"old": row.old, "kwarg": kwarg, "new": row.new, "takes": str(first.new)}
        yield registered(row, start, code="kwargs-unpacked", form="call", **names)
        for k in kwargs:
            at_keyword = file.at(k.lineno, k.col_offset)
            hit = registered(old_kwargs[k.arg or ""], at_keyword, code="kwargs-unpacked", form="call", **names)
            yield dataclasses.replace(hit, via=node.attr)
        return
    given = {k.arg for k in call.keywords}
    if both := [k for k in kwargs if old_kwargs[k.arg or ""].new in given]:
        krow = old_kwargs[both[0].arg or ""]  # renamed, the keyword would be given twice: a SyntaxError
        names = {"who": "passes", "old": f"{krow.old}=", "new": f"{krow.new}=", "to": f" to `{row.old}()`"}
        yield registered(krow, file.at(both[0].lineno, both[0].col_offset), code="both-names", form="raises", **names)
        return
    edits = [edit(start, row.old, row.new)]
    for k in kwargs:
        krow = old_kwargs[k.arg or ""]
        edits.append(edit(file.at(k.lineno, k.col_offset), krow.old, krow.new))
    verdict = model_member(file, at, receiver, row, start, tuple(edits), codes.message("call", old=row.old), section)
    yield verdict
    if verdict.severity != Severity.FIX:
        return
    unsafe = evidence.unsafe(receiver, row, evidence.receiver_kind(file, at, receiver))
    for k, kwarg_edit in zip(kwargs, edits[1:], strict=True):
        krow = old_kwargs[k.arg or ""]
        what = codes.message("keyword", "with-call", old=krow.old, callee=row.old)
        hit = rename(
            krow, kwarg_edit.start, (), file.options, code="keyword", section=section, unsafe=unsafe, what=what
        )
        yield dataclasses.replace(hit, via=node.attr, any_subclass=verdict.any_subclass)
