"""The v6 preview: the installed transformers as it would behave once every shipped row with a `removal` is removed.

`plan(table)` turns those rows into actions without importing anything; `Preview.apply()` performs them in memory
(old methods and properties deleted, old keywords and dataclass fields made unknown, so `HfArgumentParser` rejects
the old flags and keys the way a release without them does) and `undo()` restores every attribute it touched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkpointing_migrate.located import ToolError
from checkpointing_migrate.paths import TABLE_PATH
from checkpointing_migrate.rehearse import ENV_VAR
from checkpointing_migrate.table import Rename, RenameKind, Table, field_name, load

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")
_MEMBER_KINDS = (RenameKind.METHOD, RenameKind.PROPERTY, RenameKind.CLASS, RenameKind.ATTRIBUTE, RenameKind.FUNCTION)
_MISSING = object()


class PreviewError(ToolError):
    """The preview cannot be applied; the message says why and what to do."""


@dataclass(frozen=True)
class RemoveMember:
    """Delete a method, property, class or function named by `name` from the object `owner` of `library`."""

    library: str
    owner: str
    """Dotted path inside the library's top-level module, e.g. `PreTrainedModel`."""
    name: str
    new: str
    """The name that must keep working (checked before anything is removed)."""
    rows: tuple[Rename, ...]
    """The rows this removal carries out, including `argument` rows of the removed method."""


@dataclass(frozen=True)
class RemoveFields:
    """Drop dataclass fields: unknown to `__init__`, to `dataclasses.fields()` (so to `HfArgumentParser`), and absent
    from instances; subclasses that inherit them lose them too, subclasses that redeclare one keep their own."""

    library: str
    owner: str
    names: tuple[tuple[str, str], ...]
    """(old, new) field names."""
    rows: tuple[Rename, ...]
    """`field` rows, and the `cli-flag` and `config-key` rows whose flag or key is one of these fields."""


@dataclass(frozen=True)
class RejectKeyword:
    """Make a method reject a keyword argument the way Python rejects an unknown one."""

    library: str
    owner: str
    method: str
    name: str
    new: str
    rows: tuple[Rename, ...]


@dataclass(frozen=True)
class DropFallback:
    """The caller stops falling back to the old method (an `override` row): in v6 it calls the new one on every
    model, so a model that defines only the old method raises its own AttributeError when checkpointing is on."""

    library: str
    owner: str
    """The caller, e.g. `Trainer`."""
    entry: str
    """The caller's method that reaches the fallback (`train`: where the probes measured the warning)."""
    switch: str
    """The training-arguments field that turns checkpointing on (the new name of the field row the method's old
    name starts with: `gradient_checkpointing` → `activation_checkpointing`)."""
    new: str
    rows: tuple[Rename, ...]


Action = RemoveMember | RemoveFields | RejectKeyword | DropFallback

_ENTRIES = {"Trainer": "train"}
"""The method of each caller that runs its fallback; `Trainer.train()` is the use the matrix probes measure."""


@dataclass(frozen=True)
class Plan:
    """What the preview removes, in the order it is applied."""

    actions: tuple[Action, ...]
    rows: tuple[Rename, ...]
    """Every shipped row with a `removal`, in table order."""

    @property
    def removals(self) -> tuple[str, ...]:
        """The planned removal releases, e.g. `("6.0.0",)`."""
        return tuple(dict.fromkeys(r.removal for r in self.rows if r.removal))


def _field_of(row: Rename) -> tuple[str, str, str] | None:
    """(dataclass, old field, new field) that a `cli-flag` or `config-key` row names, if it names one."""
    if row.kind == RenameKind.CLI_FLAG:
        if row.owned.argument is None:  # "HfArgumentParser(TrainingArguments)": flags come from its fields
            return None
        old, new = field_name(row.old), field_name(row.new)
        return row.owned.argument, old, new
    cls = row.owned.cls
    if cls is None or not re.fullmatch(r"\w+", row.old) or not re.fullmatch(r"\w+", row.new):
        return None  # a nested key such as `fsdp_config.x` is not a field
    return cls, row.old, row.new


def plan(table: Table) -> Plan:
    """The actions for the table's shipped rows that have a `removal`; raise `PreviewError` naming every row that
    cannot be rehearsed (its position and why)."""
    rows = tuple(table.planned_removals())
    problems: list[str] = []
    members: dict[tuple[str, str, str], list[Rename]] = {}
    news: dict[tuple[str, str, str], str] = {}
    fields: dict[tuple[str, str], dict[tuple[str, str], list[Rename]]] = {}
    keywords: dict[tuple[str, str, str, str, str], list[Rename]] = {}
    fallbacks: list[DropFallback] = []
    for row in rows:
        if row.kind in _MEMBER_KINDS and (owner := row.owned.cls):
            key = (row.library, owner, row.old)
            members.setdefault(key, []).append(row)
            news[key] = row.new
        elif row.kind == RenameKind.FIELD and (owner := row.owned.cls):
            fields.setdefault((row.library, owner), {}).setdefault((row.old, row.new), []).append(row)
    for row in rows:
        if row.kind in (RenameKind.CLI_FLAG, RenameKind.CONFIG_KEY):
            named = _field_of(row)
            if named is None:
                problems.append(
                    f"{row.position}: cannot rehearse '{row.old}': owner '{row.owner}' names no dataclass field"
                )
            else:
                fields.setdefault((row.library, named[0]), {}).setdefault(named[1:], []).append(row)
        elif row.kind == RenameKind.ARGUMENT:
            owner, method = row.owned.head, row.owned.member or ""
            if not method or "." in method or row.owned.argument or row.owned.qualifier or row.owned.details:
                problems.append(f"{row.position}: cannot rehearse '{row.old}': owner '{row.owner}' is not Class.method")
            elif (row.library, owner, method) in members:  # the whole method goes, and its keywords with it
                members[(row.library, owner, method)].append(row)
            else:
                keywords.setdefault((row.library, owner, method, row.old, row.new), []).append(row)
        elif row.kind == RenameKind.OVERRIDE:
            switch = next((r.new for r in table.select(RenameKind.FIELD) if row.old.startswith(f"{r.old}_")), None)
            if row.owned.head not in _ENTRIES or switch is None:
                problems.append(f"{row.position}: cannot rehearse '{row.old}': no known entry point of '{row.owner}'")
            else:
                fallbacks.append(
                    DropFallback(row.library, row.owned.head, _ENTRIES[row.owned.head], switch, row.new, (row,))
                )
        elif row.kind not in (*_MEMBER_KINDS, RenameKind.FIELD) or row.owned.cls is None:
            problems.append(f"{row.position}: cannot rehearse '{row.old}': owner '{row.owner}' names no object")
    if problems:
        raise PreviewError("\n".join(problems))
    actions: list[Action] = [
        RemoveMember(lib, owner, name, news[(lib, owner, name)], tuple(rs))
        for (lib, owner, name), rs in members.items()
    ]
    actions += [
        RemoveFields(lib, owner, tuple(names), tuple(r for rs in names.values() for r in rs))
        for (lib, owner), names in fields.items()
    ]
    actions += fallbacks
    actions += [
        RejectKeyword(lib, owner, method, name, new, tuple(rs))
        for (lib, owner, method, name, new), rs in keywords.items()
    ]
    return Plan(tuple(actions), rows)


# --- Applying -------------------------------------------------------------------------------------------------------


def _resolve(library: str, path: str) -> Any:
    module = importlib.import_module(library)
    obj: Any = module
    for part in path.removeprefix(f"{library}.").split("."):
        obj = getattr(obj, part)
    return obj


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return list(dict.fromkeys(found))


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def _generated(function: Any) -> bool:
    """Whether `function` was written by `@dataclass` (its code is compiled from a string), so it spells every field
    of its day: such an `__eq__` or `__repr__` would read the removed fields."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    return code is not None and code.co_filename == "<string>"


def _rejecting(function: Callable[..., Any], names: tuple[str, ...]) -> Callable[..., Any]:
    """`function`, except that the keywords `names` are unknown: same `TypeError` text as Python's own."""
    qualname = function.__qualname__

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for name in names:
            if name in kwargs:
                raise TypeError(f"{qualname}() got an unexpected keyword argument '{name}'")
        return function(*args, **kwargs)

    signature = inspect.signature(function)
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for p in signature.parameters.values() if p.name not in names]
    )
    return wrapper


def _fields_eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = [f.name for f in dataclasses.fields(self) if f.compare]
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


def _fields_repr(self: Any) -> str:
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)
    return f"{type(self).__qualname__}({shown})"


@dataclass
class Preview:
    """The plan applied to the installed libraries; `undo()` puts back exactly what `apply()` changed.

    Importing this module does nothing: transformers is imported only when a preview is applied."""

    plan: Plan
    versions: dict[str, str] = field(default_factory=dict)
    """The installed release of each library the plan touches, read when applied."""
    _undo: list[tuple[Any, str, bool, Any]] = field(default_factory=list)
    _fields: dict[type, tuple[str, ...]] = field(default_factory=dict)

    @property
    def applied(self) -> bool:
        return bool(self._undo)

    def announcement(self) -> str:
        """One line: what runs, how many rows are removed, and that this is the table's plan, not the release."""
        libs = ", ".join(f"{lib} {version}" for lib, version in self.versions.items()) or "nothing"
        removal = " / ".join(self.plan.removals) or "(no removal planned)"
        released = " / ".join(dict.fromkeys(r.library for r in self.plan.rows)) or "the library"
        count = len(self.plan.rows)
        return (
            f"v6 preview: {libs} without the old names of the {count} row{'s' * (count != 1)} aliases.yaml plans to "
            f"remove in {removal}; this rehearses the table's plan, not the real {released} {removal}."
        )

    def _set(self, obj: Any, name: str, value: Any) -> None:
        """Set (or, with `_MISSING`, delete) `obj.name` in `obj`'s own namespace, remembering what was there."""
        own = vars(obj)
        self._undo.append((obj, name, name in own, own.get(name)))
        if value is _MISSING:
            delattr(obj, name)
        else:
            setattr(obj, name, value)

    def undo(self) -> None:
        """Restore every attribute `apply()` changed, in reverse order."""
        while self._undo:
            obj, name, had, old = self._undo.pop()
            if had:
                setattr(obj, name, old)
            elif name in vars(obj):
                delattr(obj, name)
        self._fields.clear()

    def apply(self) -> Preview:
        """Carry out the plan; on any problem undo what was done and raise `PreviewError`."""
        if self.applied:
            return self
        try:
            for action in self.plan.actions:
                self.versions.setdefault(action.library, _version(action.library))
            for action in self.plan.actions:
                if isinstance(action, RemoveMember):
                    self._remove_member(action)
                elif isinstance(action, RemoveFields):
                    self._remove_fields(action)
                elif isinstance(action, DropFallback):
                    self._drop_fallback(action)
                else:
                    self._reject_keyword(action)
        except PreviewError:
            self.undo()
            raise
        except (ImportError, AttributeError) as exc:
            self.undo()
            raise PreviewError(f"cannot apply the v6 preview: {exc}") from None
        return self

    def _missing_new(self, action: Action, new: str, owner: str) -> PreviewError:
        since = ", ".join(sorted({r.since for r in action.rows if r.since}))
        version = self.versions.get(action.library, "?")
        return PreviewError(
            f"{action.library} {version} has no '{new}' on {owner}, so its old name cannot be rehearsed away; "
            f"the preview needs {action.library} {since} or later"
        )

    def _remove_member(self, action: RemoveMember) -> None:
        owner = _resolve(action.library, action.owner)
        if action.name not in vars(owner) or not hasattr(owner, action.new):
            raise self._missing_new(action, action.new, action.owner)
        self._set(owner, action.name, _MISSING)
        # 5.23.0 and 5.24.0 route `activation_checkpointing_enable()` through an override of the old name, found by
        # `_is_overridden(old)`, which looks the old name up. Once the old name is gone there is nothing to override:
        # the new method runs its own code, as the removal plans.
        check = vars(owner).get("_is_overridden")
        if callable(check) and not hasattr(check, "_rehearse_removed"):
            removed = {a.name for a in self.plan.actions if isinstance(a, RemoveMember) and a.owner == action.owner}

            @functools.wraps(check)
            def _is_overridden(model: Any, name: str) -> bool:
                return False if name in removed else check(model, name)

            _is_overridden._rehearse_removed = removed  # type: ignore[attr-defined]
            self._set(owner, "_is_overridden", _is_overridden)

    def _remove_fields(self, action: RemoveFields) -> None:
        base = _resolve(action.library, action.owner)
        if not dataclasses.is_dataclass(base):
            raise PreviewError(
                f"{action.library} {action.owner} is not a dataclass; its fields cannot be rehearsed away"
            )
        declared = vars(base)["__dataclass_fields__"]
        for old, new in action.names:
            if old not in declared or new not in declared:
                raise self._missing_new(action, new, action.owner)
        removed = {old: declared[old] for old, _ in action.names}
        names = tuple(removed)
        for cls in [base, *_subclasses(base)]:
            own = vars(cls).get("__dataclass_fields__")
            gone = tuple(n for n in names if own is not None and own.get(n) is removed[n])  # inherited, not redeclared
            if not gone:
                continue
            self._set(cls, "__dataclass_fields__", {k: v for k, v in own.items() if k not in gone})
            if "__init__" in vars(cls):
                self._set(cls, "__init__", _rejecting(vars(cls)["__init__"], gone))
            for dunder, replacement in (("__eq__", _fields_eq), ("__repr__", _fields_repr)):
                if dunder in vars(cls) and _generated(vars(cls)[dunder]):
                    self._set(cls, dunder, replacement)
            for name in gone:
                if name in vars(cls):  # the dataclass default, a class attribute
                    self._set(cls, name, _MISSING)
        self._fields[base] = names
        post_init = vars(base).get("__post_init__")
        if callable(post_init):
            self._set(base, "__post_init__", _without_fields(post_init, removed))

    def _drop_fallback(self, action: DropFallback) -> None:
        caller = _resolve(action.library, action.owner)
        entry = vars(caller).get(action.entry)
        if not callable(entry):
            raise PreviewError(
                f"{action.library} {self.versions.get(action.library)} {action.owner} has no "
                f"'{action.entry}': its fallback cannot be rehearsed away"
            )
        switch, new = action.switch, action.new

        @functools.wraps(entry)
        def without_fallback(self_: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(self_.args, switch, False) and not hasattr(self_.model, new):
                getattr(self_.model, new)  # v6 calls the new method on every model: the model's own AttributeError
            return entry(self_, *args, **kwargs)

        self._set(caller, action.entry, without_fallback)

    def _reject_keyword(self, action: RejectKeyword) -> None:
        owner = _resolve(action.library, action.owner)
        method = vars(owner).get(action.method)
        if not callable(method) or action.name not in inspect.signature(method).parameters:
            raise PreviewError(
                f"{action.library} {self.versions.get(action.library)} {action.owner}.{action.method} takes no "
                f"'{action.name}': nothing to rehearse"
            )
        if action.new not in inspect.signature(method).parameters:
            raise self._missing_new(action, action.new, f"{action.owner}.{action.method}")
        wrapped = _rejecting(method, (action.name,))
        guarded = self._fields.get(owner, ())
        if guarded:  # e.g. `set_training` still assigns the old field: keep it off the instance, as v6 would
            inner = wrapped

            @functools.wraps(method)
            def wrapped(self_: Any, *args: Any, **kwargs: Any) -> Any:
                before = {n: vars(self_).get(n, _MISSING) for n in guarded}
                try:
                    return inner(self_, *args, **kwargs)
                finally:
                    for n, value in before.items():
                        if value is _MISSING:
                            vars(self_).pop(n, None)
                        else:
                            vars(self_)[n] = value

            wrapped.__signature__ = inner.__signature__  # type: ignore[attr-defined]
        self._set(owner, action.method, wrapped)


def _without_fields(post_init: Callable[..., Any], removed: Mapping[str, dataclasses.Field[Any]]) -> Callable[..., Any]:
    """`__post_init__` for a dataclass whose fields `removed` are gone.

    The release's own alias handling still reads the old fields, so they are presented as left at their defaults
    while it runs (v6 would not consult them at all) and taken off the instance afterwards, except where a subclass
    declares a field of that name itself (TRL's configs redeclare `gradient_checkpointing`): that value is its own.
    """

    @functools.wraps(post_init)
    def __post_init__(self: Any, *args: Any, **kwargs: Any) -> Any:
        state = vars(self)
        own = {n: state[n] for n in removed if n in state}
        for name, f in removed.items():
            state[name] = _default(f)
        try:
            return post_init(self, *args, **kwargs)
        finally:
            fields = type(self).__dataclass_fields__
            for name in removed:
                if name in fields and name in own:
                    state[name] = own[name]
                else:
                    state.pop(name, None)

    return __post_init__


def _version(library: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(library)
    except PackageNotFoundError:
        raise PreviewError(
            f"{library} is not installed in this Python ({sys.executable}); nothing to rehearse"
        ) from None


# --- One preview per process ----------------------------------------------------------------------------------------

_active: Preview | None = None


def requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether `CHECKPOINTING_V6_PREVIEW` asks for the preview; raise `PreviewError` on a value that is neither."""
    value = environ.get(ENV_VAR, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise PreviewError(
        f"{ENV_VAR}={environ[ENV_VAR]!r}: set it to 1 to run under the v6 preview, or 0 (or unset) not to"
    )


def active() -> Preview | None:
    """The preview applied in this process, if any."""
    return _active


def activate(table_path: Path = TABLE_PATH) -> Preview:
    """Apply the preview for this process (once: a second call returns the same preview)."""
    global _active
    _remove_hook()  # applying imports transformers, which must not trigger the hook again
    if _active is None:
        _active = Preview(plan(load(table_path))).apply()
    return _active


def deactivate() -> None:
    """Undo the process's preview, if one is applied."""
    global _active
    if _active is not None:
        _active.undo()
        _active = None


@contextlib.contextmanager
def v6_preview(table: Table | None = None) -> Iterator[Preview]:
    """Run the `with` body under the preview; everything is restored when it ends. Inside an already previewed
    process (the pytest plugin, `rehearse`) it yields that preview and leaves it applied."""
    if _active is not None:
        yield _active
        return
    preview = Preview(plan(table if table is not None else load(TABLE_PATH))).apply()
    try:
        yield preview
    finally:
        preview.undo()


# --- Applying on first import (the `sitecustomize` bootstrap of `rehearse`) ----------------------------------------


class _OnImport(importlib.abc.MetaPathFinder):
    """Applies the preview right after `transformers` is imported, so a Python process that never imports it pays
    nothing; removes itself the first time."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != "transformers":
            return None
        _remove_hook()
        spec = importlib.util.find_spec(name)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            try:
                announce(activate())
            except PreviewError as exc:
                print(f"rehearse: error: {exc}", file=sys.stderr)
                raise SystemExit(2) from None

        loader.exec_module = exec_module  # type: ignore[method-assign]  # this spec's own loader instance only
        return spec


_announce_fd: int | None = None
"""A copy of the process's stderr taken at startup: a test runner that captures stderr while it imports the tests
(pytest does) would otherwise swallow the announcement."""


def announce(preview: Preview) -> None:
    """Print the announcement to stderr (stdout belongs to the program being rehearsed)."""
    line = preview.announcement() + "\n"
    if _announce_fd is not None:
        sys.stderr.flush()
        os.write(_announce_fd, line.encode())
    else:
        print(line, end="", file=sys.stderr, flush=True)


def install_on_import() -> None:
    """Apply the preview when `transformers` is first imported (now, if it already is)."""
    global _announce_fd
    if _announce_fd is None:
        with contextlib.suppress(AttributeError, OSError, ValueError):  # no stderr (pythonw), or not a file
            _announce_fd = os.dup(sys.stderr.fileno())
    if "transformers" in sys.modules:
        announce(activate())
    elif not any(isinstance(finder, _OnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnImport())


def _remove_hook() -> None:
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _OnImport)]
