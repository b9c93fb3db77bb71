"""Rule family: definitions and overrides, a class that defines the old method (`def gradient_checkpointing_enable`).

Always a hazard or `info`, never rewritten: an override of the old method stays the entry point until the old name is
removed; one the new method cannot call (no `**kwargs`) breaks already; a class of another library defines its own
method of that name; the Trainer's fallback calls a non-transformers class's old method with the new keywords.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from checkpointing_migrate import codes
from checkpointing_migrate.hits import Hit, hazard, planned_hit, registered
from checkpointing_migrate.pysyntax import class_body
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.receivers import NEW_KEYWORDS, Kind, ReceiverKind, narrow_override
from checkpointing_migrate.table import Rename, RenameKind

Function = ast.FunctionDef | ast.AsyncFunctionDef


@register(ast.FunctionDef, ast.AsyncFunctionDef)
def definition(file: File, node: Function, at: At) -> Iterator[Hit]:
    """Defining the old method in a class: a hazard (and every call of it in the run an unsafe fix at best:
    `Finding.defines`)."""
    rules = file.rules
    cls = at.holding_class()
    if node.name not in rules.members or cls is None:
        if file.options.planned and node.name in rules.planned:
            yield planned_hit(rules.planned[node.name], def_name(file, node), node.name)
        return
    for hit in _defined(file, node, cls):
        yield dataclasses.replace(hit, defines=True)


@register(ast.Name)
def assigned(file: File, node: ast.Name, at: At) -> Iterator[Hit]:
    """`gradient_checkpointing_enable = _enable` in a class body (or in an `if`, `try` ... of it): the class defines
    the old method as a `def` would (narrow when the assigned function, a `def` or a lambda of the module, takes none
    of the new keywords). Not an annotated one (a dataclass field of that name) nor a literal (a class attribute used
    as a flag)."""
    statement, _ = at.parent()
    cls = at.holding_class(2)
    if (
        node.id in file.rules.members
        and isinstance(node.ctx, ast.Store)
        and isinstance(statement, ast.Assign)
        and cls is not None
        and not _literal(statement.value)
    ):
        yield _assigned(file, cls, node.id, statement.value, file.at(node.lineno, node.col_offset))


@register(ast.Call)
def dynamic_class(file: File, node: ast.Call, at: At) -> Iterator[Hit]:
    """`Dyn = type("Dyn", (LlamaForCausalLM,), {"gradient_checkpointing_enable": _fn})`: a class statement spelt as a
    call (`Receivers.dynamic_class`), whose namespace key defines the old method as an assignment in a class body
    would; reported at the key."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 3):
        return  # most calls: the module's evidence is not asked for
    statement, _ = at.parent()
    cls = file.receivers.dynamic_class(statement) if isinstance(statement, ast.Assign) else None
    if cls is None or statement.value is not node:
        return
    mapping = node.args[2]
    assert isinstance(mapping, ast.Dict)
    for key, value in zip(mapping.keys, mapping.values, strict=True):
        if isinstance(key, ast.Constant) and key.value in file.rules.members and not _literal(value):
            yield _assigned(file, cls, str(key.value), value, file.at(key.lineno, key.col_offset) + 1)


def _literal(value: ast.expr) -> bool:
    """A literal other than `None` (a flag or a table, no method): `None` replaces the method too."""
    if isinstance(value, ast.List | ast.Tuple | ast.Dict | ast.Set):
        return True
    return isinstance(value, ast.Constant) and value.value is not None


def _assigned(file: File, cls: ast.ClassDef, name: str, value: ast.expr, start: int) -> Hit:
    """The old method `name` given the value `value` in the class `cls`: a definition of it (see `assigned`)."""
    row = file.rules.members[name]
    function = _function_of(file, cls, value)
    narrow = narrow_override(function, name) if function is not None and name == file.receivers.enable else None
    names = {"cls": cls.name, "old": row.old, "new": row.new, "since": str(row.since), "keywords": NEW_KEYWORDS}
    if narrow is not None:
        hit = registered(row, start, code="narrow-override", narrow=narrow, **names)
    else:
        what = codes.message("override", "assigned", removal=str(row.removal), **names)
        hit = hazard(row, start, code="override", what=what, section="model")
    return dataclasses.replace(hit, defines=True)


def _function_of(file: File, cls: ast.ClassDef, value: ast.expr | None) -> Function | ast.Lambda | None:
    """The function an assignment in a class body gives the old name: a lambda, or a `def` by name (of the class body,
    else of the module)."""
    if isinstance(value, ast.Lambda):
        return value
    if isinstance(value, ast.Name):
        body = class_body(cls)
        own = [s for s in body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == value.id]
        return own[-1] if own else file.receivers.functions.get(value.id)
    return None


def _defined(file: File, node: Function, cls: ast.ClassDef) -> Iterator[Hit]:
    rules = file.rules
    row = rules.members[node.name]
    if node.name in file.shared:
        libs = ", ".join(rules.shared[node.name])
        yield registered(
            row, def_name(file, node), code="shared-name", form="defines", cls=cls.name, old=node.name, libs=libs
        )
        return
    kind = file.receivers.class_kind(ast.Name(cls.name))
    caller = rules.callers.get(node.name)
    body = class_body(cls)
    defines_new = any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == row.new for s in body)
    trainer_calls = caller is not None and caller.warning is not None and not defines_new
    users = file.receivers.model_subclasses(cls.name) if kind.kind == ReceiverKind.FOREIGN and not defines_new else []
    if users:
        yield _base_of_models(file, node, cls, row, users)
        return
    if kind.kind == ReceiverKind.FOREIGN and not trainer_calls:
        yield registered(
            row,
            def_name(file, node),
            code="not-transformers",
            form="defines",
            section="model",
            why=kind.why,
            old=row.old,
        )
        return
    # A class outside transformers is called by the Trainer's fallback, not by `activation_checkpointing_enable`.
    enable = file.receivers.enable
    narrow = narrow_override(node, node.name) if node.name == enable and kind.kind != ReceiverKind.FOREIGN else None
    if narrow is not None:
        names = {"cls": cls.name, "old": row.old, "new": row.new, "since": str(row.since), "keywords": NEW_KEYWORDS}
        yield registered(row, def_name(file, node), code="narrow-override", narrow=narrow, **names)
        return
    if kind.kind == ReceiverKind.FOREIGN:
        what = codes.message("override", "foreign", why=kind.why, new=row.new)
    elif row.kind == RenameKind.PROPERTY:
        what = codes.message("override", "property", cls=cls.name, old=row.old, new=row.new)
    else:
        what = codes.message("override", cls=cls.name, old=row.old, new=row.new, removal=str(row.removal))
    if trainer_calls:
        assert caller is not None
        what += _trainer_fallback(file, node, cls, row, caller, kind)
    hit = hazard(row, def_name(file, node), code="override", what=what, section="model")
    yield dataclasses.replace(hit, via=cls.name) if trainer_calls else hit


def _base_of_models(file: File, node: Function, cls: ast.ClassDef, row: Rename, users: list[ast.ClassDef]) -> Hit:
    """The old method of a class outside transformers that the module puts before a transformers model among a
    class's bases: for those models it is an override (which the new method calls), not what the Trainer's fallback
    calls for a class that only defines the old name."""
    listed = ", ".join(codes.shared("listed-class", cls=u.name, line=u.lineno) for u in users)
    subject = codes.shared("base-of-models", cls=cls.name, users=listed, old=row.old)
    narrow = narrow_override(node, node.name) if node.name == file.receivers.enable else None
    names = {"subject": subject, "new": row.new, "since": str(row.since), "keywords": NEW_KEYWORDS}
    if narrow is not None:
        return registered(row, def_name(file, node), code="narrow-override", form="base", narrow=narrow, **names)
    what = codes.message("override", "base", subject=subject, new=row.new, removal=str(row.removal))
    return hazard(row, def_name(file, node), code="override", what=what, section="model")


def _trainer_fallback(file: File, node: Function, cls: ast.ClassDef, row: Rename, caller: Rename, kind: Kind) -> str:
    """What the Trainer does with a class that defines only the old method (the `override` row of its caller)."""
    assert caller.warning is not None
    who = caller.owned.head
    inherits = (
        ""
        if kind.kind == ReceiverKind.FOREIGN
        else codes.message("override", "inherits", cls=cls.name, new=row.new, owner=row.owner)
    )
    warning = {"category": caller.warning.category, "text": caller.warning.text_for(cls.name)}
    warns = codes.message("override", "warns", inherits=inherits, who=who, **warning)
    names = {"warns": warns, "keywords": NEW_KEYWORDS, "removal": str(caller.removal), "new": row.new}
    refuses = (
        narrow_override(node, node.name)
        if kind.kind == ReceiverKind.FOREIGN and node.name == file.receivers.enable
        else None
    )
    if refuses is not None:
        # Measured (trainer.py's fallback): the call passes the new keywords, so this raises already.
        return codes.message("override", "refuses", refuses=refuses, since=str(row.since), **names)
    return codes.message("override", "fallback", **names)


def def_name(file: File, node: Function) -> int:
    """The offset of the name in a `def`."""
    return file.text.index(node.name, file.at(node.lineno, node.col_offset))
