"""What a `TrainingArguments` subclass does with an old field before its `__post_init__` calls up, read from syntax.

TrainingArguments moves an old field's value to its new name in its own `__post_init__`: a subclass that declares
either field, or reads or writes one before it calls up (in `__post_init__`, or a method or function it calls first),
decides what renaming the keyword does. `receivers` asks, passing itself as the `Reader` of the class's module.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from checkpointing_migrate.codes import shared
from checkpointing_migrate.pysyntax import class_body, is_builtin_call, is_name, string, string_key
from checkpointing_migrate.rules import Rules


class Reader(Protocol):
    """What this module reads of a module's evidence (`receivers.Receivers`, which it cannot import: that one asks
    it): the module's bindings, and where a function it calls is defined."""

    rules: Rules
    imports: dict[str, str]
    classes: dict[str, ast.ClassDef | None]
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]

    @property
    def both_fields(self) -> frozenset[str]: ...

    def function_source(self, expr: ast.expr) -> tuple[Reader, ast.FunctionDef | ast.AsyncFunctionDef, str] | None: ...


_HELPER_DEPTH = 3
"""How many calls deep `__post_init__` is followed for an early read of an old field: `self.<method>()` calls, and
calls of a function `self` is passed to (`check(self)`), which the tool cannot see past this depth."""

_BUILTINS = frozenset(dir(builtins))
"""Python's own functions (`super(Args, self)`, `isinstance(self, Args)`): `self` passed to one is no early read (the
two that read a field by name, `getattr` and `vars`, are read as such: `_field_read`, `_unnamed_read`)."""


@dataclass(frozen=True)
class _Early:
    """What a `__post_init__` does with `self` before it calls up that renaming the old keyword changes."""

    node: ast.AST
    """The read of an old field, or the call that passes the object to a function the tool cannot read."""
    calls: tuple[str, ...]
    """The calls that reach it (`self._check()`, `check(self)`)."""
    file: str = ""
    """The file `node` is in; `""`: the class's own."""
    func: str = ""
    """For a call: the function, as spelt there (`node` is then no read)."""
    passed: str = ""
    """For a call: the name it passes the object as (`self`, or a parameter of a function that passes it on)."""
    unnamed: bool = False
    """`node` reads a field the tool cannot name (`getattr(self, key)`, `vars(self)`): maybe the old one."""
    written: bool = False
    """`node` writes the old or the new field (`self.old = ...`, `setattr(self, "new", ...)`): which of the two
    TrainingArguments then keeps depends on which name the caller passed."""

    @property
    def sure(self) -> bool:
        """Whether `node` surely reads an old field (no call the tool cannot read, no field it cannot name)."""
        return not self.func and not self.unnamed


def _worse(found: _Early | None, other: _Early | None) -> _Early | None:
    """The worse of two early uses: a sure read over one that may be, else the first found."""
    return other if found is None or (other is not None and other.sure and not found.sure) else found


_Class = tuple[Reader, ast.ClassDef]
"""The class whose `__post_init__` is read, with the reader of its module: where a method called on the object is
looked up, wherever the call is."""


def declared_field(reader: Reader, node: ast.ClassDef) -> ast.AnnAssign | None:
    """The declaration of an old field or of its new name in the class body (`gradient_checkpointing: bool =
    False`), if any: a default of the new field wins over the old keyword, and the old field's own default is what
    an early read sees once the keyword is renamed."""
    return next(
        (
            s
            for s in class_body(node)
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id in reader.both_fields
        ),
        None,
    )


def field_named(reader: Reader, declared: ast.AnnAssign) -> tuple[str, str]:
    """How a message names the field `declared` declares, and the form of `mixin-field` it calls for."""
    name = ast.unparse(declared.target)
    if name in reader.rules.fields:
        return shared("old-field"), ""
    return shared("new-field", new=name), "new-field"


def worst_early(reader: Reader, node: ast.ClassDef) -> tuple[ast.ClassDef, _Early] | None:
    """The worst early use of an old field in any `__post_init__` the class `node` (of `reader`'s module) may run,
    with the class that defines it (`receivers.Receivers._early_read` says what it makes of the class)."""
    worst: tuple[ast.ClassDef, _Early] | None = None
    for owner, post_init in _methods(reader, node, "__post_init__"):
        found = _read_in(reader, post_init, "self", (), "", (reader, node), up_call(post_init))
        if found is not None and (worst is None or _worse(worst[1], found) is found):
            worst = owner, found
    return worst


def _read_in(
    reader: Reader,
    func: ast.AST,
    name: str,
    calls: tuple[str, ...],
    file: str,
    cls: _Class | None = None,
    until: int | None = None,
    seen: frozenset[int] = frozenset(),
) -> _Early | None:
    """The first read of an old field on `name` in `func` (up to line `until`), with the calls that reach it
    (`calls`; `file`: the file of `func`, `""` for the class's own): a method of the class `cls` called on `name`
    (`self._check()`, or `args.validate()` in a function `self` is passed to as `args`) or a function `name` is
    passed to (`check(self)`, `_passed_to`) runs whole, so every read in it counts. Failing a read, the first call
    that passes `name` to a function the tool cannot read, or read of a field it cannot name (`_unnamed_read`): a
    hazard is worth more than an unsafe fix; `seen`: the functions being read."""
    unseen = None
    keyed: set[int] = set()
    for n in ast.walk(func):
        if until is not None and getattr(n, "lineno", 0) > until:
            continue
        if _field_read(reader, n, name):
            return _Early(n, calls, file)
        if _field_write(reader, n, name):
            return _Early(n, calls, file, written=True)
        if _unnamed_read(n, name, keyed):
            unseen = unseen or _Early(n, calls, file, unnamed=True)
        if not isinstance(n, ast.Call):
            continue
        if cls is not None and isinstance(n.func, ast.Attribute) and is_name(n.func.value, name):
            found = _read_method(cls, n, calls, seen | {id(func)})
        else:
            found = _passed_to(reader, n, name, calls, file, cls, seen)
        if found is not None and found.sure:
            return found
        unseen = unseen or found
    return unseen


def _read_method(cls: _Class, call: ast.Call, calls: tuple[str, ...], seen: frozenset[int]) -> _Early | None:
    """What the method `call` calls on the object does with it: every definition of it the class `cls` may run
    (`_methods`) is read whole, through its first parameter, and the worst counts; `None` for a method the class
    does not define in its module (transformers' own reads no old field early)."""
    if len(calls) >= _HELPER_DEPTH or not isinstance(call.func, ast.Attribute):
        return None
    reader, node = cls
    worst = None
    for _, method in _methods(reader, node, call.func.attr):
        first = [*method.args.posonlyargs, *method.args.args][:1]
        if id(method) in seen or not first:
            continue  # a recursive call, or a method that takes no object (a `@staticmethod`)
        inner = (*calls, ast.unparse(call))
        worst = _worse(worst, _read_in(reader, method, first[0].arg, inner, "", cls, None, seen | {id(method)}))
    return worst


def _passed_to(
    reader: Reader,
    call: ast.Call,
    name: str,
    calls: tuple[str, ...],
    file: str,
    cls: _Class | None,
    seen: frozenset[int],
) -> _Early | None:
    """What the function `call` passes `name` to does with it: read in its module (this one, or the project module
    it is imported from: `function_source`) like the caller, through the parameter that takes it. A function the
    tool cannot read, or that takes it as `*args` or `**kwargs`, may read anything of it (a builtin reads
    nothing)."""
    given = [a for a in call.args if is_name(a, name)] + [k.value for k in call.keywords if is_name(k.value, name)]
    if not given or _builtin(reader, call.func):
        return None
    unseen = _Early(call, calls, file, ast.unparse(call.func), name)
    source = reader.function_source(call.func) if len(calls) < _HELPER_DEPTH else None
    if source is None:
        return unseen
    other, func, where = source
    if id(func) in seen:
        return None  # a recursive call: that function is being read already
    params = _receiving(func, call, name)
    if params is None:
        return unseen
    inner = (*calls, ast.unparse(call))
    found = None
    for param in params:  # `where` is "" for a function of this module, which is in `file`
        found = _worse(found, _read_in(other, func, param, inner, where or file, cls, seen=seen | {id(func)}))
        if found is not None and found.sure:
            return found
    return found


def _builtin(reader: Reader, func: ast.expr) -> bool:
    """Whether `func` is one of Python's own functions (a name the module does not bind otherwise)."""
    if not isinstance(func, ast.Name) or func.id not in _BUILTINS:
        return False
    return func.id not in reader.imports and func.id not in reader.functions and func.id not in reader.classes


def _field_read(reader: Reader, n: ast.AST, name: str) -> bool:
    """Whether `n` reads an old field of `name` (`self`, or a parameter it is passed as): `name.old`,
    `getattr(name, "old"[, default])`, or its entry in the instance dict (`name.__dict__["old"]`,
    `vars(name)["old"]`, either's `.get("old")`)."""
    if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr in reader.rules.fields:
        return is_name(n.value, name)
    if isinstance(n, ast.Call) and is_builtin_call(n, "getattr") and len(n.args) >= 2:
        return is_name(n.args[0], name) and _is_constant(n.args[1], reader.rules.fields)
    if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
        return _instance_dict_of(n.value, name) and string_key(n) in reader.rules.fields
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args:
        return _instance_dict_of(n.func.value, name) and _is_constant(n.args[0], reader.rules.fields)
    return False


def _field_write(reader: Reader, n: ast.AST, name: str) -> bool:
    """Whether `n` writes (or deletes) an old field of `name`, or its new name: `name.field = ...` (augmented
    too), `setattr(name, "field", ...)` (`object.__setattr__` too), or its entry in the instance dict
    (`name.__dict__["field"] = ...`)."""
    if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load) and n.attr in reader.both_fields:
        return is_name(n.value, name)
    if isinstance(n, ast.Call) and len(n.args) >= 2 and _is_setattr(n):
        return is_name(n.args[0], name) and _is_constant(n.args[1], reader.both_fields)
    if isinstance(n, ast.Subscript) and not isinstance(n.ctx, ast.Load):
        return _instance_dict_of(n.value, name) and string_key(n) in reader.both_fields
    return False


def _methods(
    reader: Reader, node: ast.ClassDef, name: str, depth: int = 0
) -> list[tuple[ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The class and `def` of each definition of the method `name` the class `node` may run: its own (every one: a
    method defined under `if` and again under `else` is either), else those of the first of its bases in this
    module that has one, depth first (a base from elsewhere or transformers' own is not read)."""
    own = [
        (node, item)
        for item in class_body(node)
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name
    ]
    if own or depth > 8:
        return own
    for base in node.bases:
        if not isinstance(base, ast.Name) or base.id in reader.imports:
            continue
        local = reader.classes.get(base.id)
        if local is not None and (found := _methods(reader, local, name, depth + 1)):
            return found
    return []


def _unnamed_read(n: ast.AST, name: str, keyed: set[int]) -> bool:
    """Whether `n` reads a field of `name` the tool cannot name, maybe an old one: `getattr(name, key)` with a key
    that is no string, or the instance dict (`vars(name)`, `name.__dict__`) put to any use but a string key's or a
    write (`keyed`: the instance dicts seen so far under one, which `_field_read` tells; a walk meets them first)."""
    if isinstance(n, ast.Call) and is_builtin_call(n, "getattr") and len(n.args) >= 2:
        return is_name(n.args[0], name) and string(n.args[1]) is None
    if isinstance(n, ast.Subscript) and (string_key(n) is not None or not isinstance(n.ctx, ast.Load)):
        keyed.add(id(n.value))
    elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "update"):
        if n.func.attr == "update" or (n.args and string(n.args[0]) is not None):
            keyed.add(id(n.func.value))
    return isinstance(n, ast.expr) and id(n) not in keyed and _instance_dict_of(n, name) and not _stored(n)


def _receiving(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, name: str) -> list[str] | None:
    """The parameters of `func` that `call` passes `name` to; `None` when one takes it where the tool does not follow
    it (`*args`, `**kwargs`, a position after `*spread`)."""
    positional = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    named = {a.arg for a in [*func.args.args, *func.args.kwonlyargs]}
    found = []
    for index, arg in enumerate(call.args):
        if not is_name(arg, name):
            continue
        if index >= len(positional) or any(isinstance(a, ast.Starred) for a in call.args[:index]):
            return None
        found.append(positional[index])
    for keyword in call.keywords:
        if is_name(keyword.value, name):
            if keyword.arg not in named:
                return None
            found.append(keyword.arg)
    return found


def _is_constant(expr: ast.expr, names: Collection[str]) -> bool:
    """`"name"`: a string constant among `names`."""
    return isinstance(expr, ast.Constant) and isinstance(expr.value, str) and expr.value in names


def _instance_dict_of(expr: ast.expr, name: str) -> bool:
    """`name.__dict__` or `vars(name)`: the instance dict, which holds a dataclass's fields."""
    if isinstance(expr, ast.Attribute) and expr.attr == "__dict__":
        return is_name(expr.value, name)
    return (
        isinstance(expr, ast.Call)
        and is_builtin_call(expr, "vars")
        and len(expr.args) == 1
        and is_name(expr.args[0], name)
    )


def up_call(post_init: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """The line of the first `super().__post_init__()` (or `super(Args, self)`'s) in `post_init`, if any."""
    up = [
        n.lineno
        for n in ast.walk(post_init)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "__post_init__"
        and isinstance(n.func.value, ast.Call)
    ]
    return min(up, default=None)


def _is_setattr(call: ast.Call) -> bool:
    """`setattr(...)`, or `object.__setattr__(...)` (how a frozen dataclass writes its own fields)."""
    func = call.func
    if is_builtin_call(call, "setattr"):
        return True
    return isinstance(func, ast.Attribute) and func.attr == "__setattr__" and is_name(func.value, "object")


def _stored(expr: ast.expr) -> bool:
    """`name.__dict__` as an assignment's target (`del` too): no read."""
    return isinstance(expr, ast.Attribute) and not isinstance(expr.ctx, ast.Load)
