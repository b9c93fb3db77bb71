"""What an expression holds, told from one module's syntax: the evidence behind every Python rewrite.

A small local type inference, explainable in one sentence per rule (see `expr_kind`, `class_kind`). Evidence *against*
is as strong as evidence for: a class of another library (`FOREIGN`), a project class that defines the old method, an
override whose signature the new method cannot call. Everything else is `unknown`.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from checkpointing_migrate.argsclasses import declared_field, field_named, worst_early
from checkpointing_migrate.codes import shared
from checkpointing_migrate.project import project_folder, python_files
from checkpointing_migrate.pysyntax import (
    class_body,
    is_builtin_call,
    is_name,
    module_statements,
    pattern_capture,
    rebound_inside,
    string,
    string_key,
)
from checkpointing_migrate.rules import Rules
from checkpointing_migrate.table import RenameKind

FOREIGN = ("sentence_transformers", "setfit", "diffusers", "torch", "timm", "lightning", "pytorch_lightning")
"""Import roots whose classes are not transformers models even when they define methods of the same names
(transformers' Trainer keeps a fallback for such models, which "only define gradient_checkpointing_enable")."""

HF_ROOTS = ("transformers", "trl")
"""Import roots whose classes the rules' class names (`PreTrainedModel`, `TrainingArguments`, TRL configs) mean."""

_MODEL_NAME = re.compile(r"(?:TF|Flax)?\w*(?:PreTrainedModel|Model|For[A-Z]\w*)\Z|AutoModel\w*\Z")
_CONSTRUCTORS = frozenset({"from_pretrained", "from_config", "_from_config"})
_COPIES = frozenset({"copy.deepcopy", "copy.copy", "dataclasses.replace"})
NEW_PARAMETERS = ("every_n_layers", "offload")
"""Keywords the new enable method passes to an override of the old one (transformers ≥ the rename)."""
NEW_KEYWORDS = " and ".join(f"`{p}=`" for p in NEW_PARAMETERS)
"""`NEW_PARAMETERS` as messages name them."""
PASSED_BY_NAME = ("gradient_checkpointing_kwargs", *NEW_PARAMETERS)
"""Every keyword `activation_checkpointing_enable()` passes an override of the old method, all by name (measured in
transformers' `modeling_utils.py`): an override must have parameters of exactly these names, or `**kwargs`."""
_KNOWN_DECORATORS = frozenset({"dataclasses.dataclass", "typing.final", "typing_extensions.final"})
"""Class decorators that add no method of the renamed names: any other may replace the old method unseen."""


def new_keywords(old: str, enable: str) -> str:
    """` with NEW_KEYWORDS` for the old enable method `enable`, whose new name passes an override those keywords; `""`
    for the other methods, whose new names pass nothing new."""
    return shared("with-keywords", keywords=NEW_KEYWORDS) if old == enable else ""


SWAPPERS: Mapping[str, str] = {"adapters.init": "model"}
"""Calls that swap the class of the model passed to them, with the parameter that takes it (AdapterHub's
`adapters.init(model)`, or `model=`): what the model's methods are afterwards is that library's business."""
_MOCK_NAMES = ("Mock", "MagicMock", "NonCallableMock", "NonCallableMagicMock", "AsyncMock", "create_autospec")
MOCKS = frozenset(f"{module}.{name}" for module in ("unittest.mock", "mock") for name in _MOCK_NAMES)
"""Test doubles: every attribute of one is a mock too (unless the file assigns it), so an old name on it is no
transformers method, and assigning one there no override of it."""
MOCKER = "mocker"
"""pytest-mock's fixture: `mocker.MagicMock()` (and the other `_MOCK_NAMES`) makes the same doubles as `MOCKS`."""
NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})
"""Plain attribute bags: an old name on one is an attribute the code put there, not a method of a model."""
_NEUTRAL_ROOTS = ("abc", "typing", "typing_extensions", "dataclasses", "enum", "builtins", "collections")
"""Import roots whose classes define none of the renamed names (a base from there is no evidence against)."""


class Evidence(StrEnum):
    """How strongly a file shows that an expression holds training arguments (`python.evidence.config_receiver`;
    `None` there: no sign of it). A message about a guess says "if it is TrainingArguments"."""

    SURE = "sure"
    """The file shows it: built as, annotated as or the `self` of training arguments."""
    GUESS = "guess"
    """Only its name says so (`args`, `training_args`: `pylex.CONVENTIONAL_ARGS`)."""


class ReceiverKind(StrEnum):
    """What kind of object an expression holds, as the evidence tells it."""

    MODEL = "model"
    ARGS = "args"
    """Training arguments."""
    OVERRIDE = "override"
    """A model class whose override of an old name the new name cannot call the same way."""
    MIXIN = "mixin"
    """Training arguments whose class inherits the old field from a mixin."""
    ARGS_UNSURE = "args-unsure"
    """Training arguments whose class also has a base from elsewhere, which may declare the old field."""
    FOREIGN = "foreign"
    """Another library's object, or a project class that is not a transformers one."""
    UNSURE = "unsure"
    """A transformers model, but something may have replaced what the old name does: a base from elsewhere, remote
    code, a class swap (`Kind.why` says what)."""
    MOCK = "mock"
    """A test double (`unittest.mock`): what its attributes are is what the code puts there."""
    NAMESPACE = "namespace"
    """A plain namespace: what its attributes are is what the code puts there."""
    UNKNOWN = "unknown"
    """No evidence either way."""


DOUBLES = (ReceiverKind.MOCK, ReceiverKind.NAMESPACE)
"""The `Kind`s of `MOCKS` and `NAMESPACES` instances: no evidence for a rename, nor against one (see `Kind`)."""


@dataclass(frozen=True)
class Kind:
    """What an expression holds."""

    kind: ReceiverKind
    """What it holds."""
    why: str
    """The evidence, as a phrase for messages (`class TinyLlama overrides ...`)."""
    line: int = 0
    """Where that evidence is (a `def`, a class, an assignment), 0 when nowhere in particular."""
    overridden: str = ""
    """For `override`: the old name the class overrides."""
    form: str = ""
    """For `mixin`: the form of `mixin-field`'s message that says what renaming the keyword changes: `new-field` (a
    class of the MRO declares the new field, whose default wins over the old keyword), `written` (`__post_init__`
    writes either field early); `""`: the old field's own default, seen by what reads it."""
    defines: frozenset[str] = frozenset()
    """For `model`: the old member names the project's part of the class's MRO defines in a way the new name can
    call (a `def` taking `**kwargs`): whether it passes them on is more than the tool can show."""
    exact: bool = False
    """Built right there (`X.from_pretrained(...)`, `X(...)`): an instance of X itself. Else (an annotation, a
    method's `self`, what an Auto class loads in a project that registers classes with one) an X or an instance of
    any subclass, whose own override of an old method may answer instead."""


UNKNOWN = Kind(ReceiverKind.UNKNOWN, "")

MAX_HOPS = 3
"""How many imports deep a class is followed into the project's other modules."""


_T = TypeVar("_T")

_Key = tuple[Path, int, int, int]
"""A project module read to follow an import: (path, mtime, size, depth)."""


class ModuleCache:
    """The project modules one run has read to follow imports (each once per run and depth), and the imports being
    followed right now. One per run (`checkpointing_migrate.python.context.Run`), so two runs never share a stale
    reading; each worker process has its own copy."""

    def __init__(self) -> None:  # a plain class: making a dataclass costs every start-up
        self.files: dict[_Key, Receivers] = {}
        self.following: set[tuple[_Key, str]] = set()
        """The (module, class) imports being followed: a cycle ends as no evidence instead of a RecursionError."""
        self.registering: dict[Path, bool] = {}
        """Project folder → whether a module of it registers a class with an Auto class (`_registers`)."""


_AUTO_REGISTER = re.compile(rb"\bAuto\w*\s*\.\s*register\s*\(")
"""`AutoModelForCausalLM.register(` in a file's bytes: read as text, so a false match only costs a safe fix."""


def _registers(root: Path, whole: bool) -> bool:
    """Whether a Python file of the project calls `.register(...)` on an Auto class (`AutoModelForCausalLM.register(
    MyConfig, MyModel)`): then what an Auto class loads may be the project's own class, override and all."""
    for path in python_files(root, whole):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b".register" in data and _AUTO_REGISTER.search(data):
            return True
    return False


def module_file(base: Path, module: str) -> Path | None:
    """The file of `module` (`.modeling`, `pkg.modeling`) imported from a file in `base`, if it is in the project."""
    dots = len(module) - len(module.lstrip("."))
    parts = module.lstrip(".").split(".") if module.lstrip(".") else []
    if dots:
        folders = [base.parents[dots - 2] if dots >= 2 and len(base.parents) >= dots - 1 else base]
    else:
        folders = [base, *list(base.parents)[:3]]
    for folder in folders:
        for candidate in (
            folder.joinpath(*parts).with_suffix(".py") if parts else None,
            folder.joinpath(*parts, "__init__.py"),
        ):
            if candidate is not None and candidate.is_file():
                return candidate
        if not dots and (folder / ".git").exists():
            break
    return None


def _is_literal(value: ast.expr) -> bool:
    """Whether `value` is written as a constant or a literal container (`None`, `()`, `[]`): never a class."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(e) for e in value.elts)
    return isinstance(value, ast.Dict) and all(k is not None and _is_literal(k) for k in value.keys)


def narrow_override(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, enable: str) -> str | None:
    """Why `activation_checkpointing_enable()` cannot call this override of `enable`, or `None` when it can."""
    params = {a.arg for a in [*func.args.args, *func.args.kwonlyargs]}  # a positional-only one takes no keyword
    if func.args.kwarg is not None or all(p in params for p in PASSED_BY_NAME):
        return None
    missing = ", ".join(f"`{p}`" for p in PASSED_BY_NAME if p not in params)
    return f"takes no {missing} (nor `**kwargs`)"


class Receivers:
    """The evidence of one module, computed once from its whole tree when a rule first asks."""

    def __init__(
        self, tree: ast.Module, rules: Rules, cache: ModuleCache, base: Path | None = None, hops: int = 0
    ) -> None:
        self.rules = rules
        self.cache = cache
        self.base = base
        """The file's folder: a class imported from a module of the project is looked up there (and above)."""
        self.hops = hops
        self.module = tree
        """The module scope: the file, or every cell of a notebook (names bound in one cell hold in the next)."""
        self.enable = rules.enable
        self.imports: dict[str, str] = {}
        self.bindings: dict[str, list[tuple[str, int]]] = {}
        """Each name an import binds at the top level, with every binding of it: (what it names, line), `""` for a
        class or an assignment of that name. A name bound more than once is transformers' only if every binding is."""
        self.unnamed_patches: dict[str, int] = {}
        """Classes of this module that `setattr(Tiny, name, fn)` gives an attribute of a name the tool cannot read,
        with the line: maybe an old method."""
        self.classes: dict[str, ast.ClassDef | None] = {}
        self.replaced: set[tuple[str, str]] = set()
        """(receiver text, old name) of each old method replaced on an instance (`x.old = ...`)."""
        self.patches: dict[str, dict[str, ast.expr]] = {}
        """Old names assigned on a class after its definition (`Tiny.old = fn`, `setattr(Tiny, "old", fn)`,
        `models.Tiny.old = fn` for a project module's class), by the class as spelt here: part of the class like a
        `def` in its body."""
        self.swapped: dict[str, str] = {}
        """Names whose object gets another class (`x.__class__ = X`, `adapters.init(x)`), with the evidence."""
        # Imports, classes and assignments are statements: expressions are not walked. A module followed from another
        # one is asked only about its classes and imports: its top level is enough.
        for node in module_statements(tree, nested=hops == 0):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import(node)
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = None if node.name in self.classes else node
                self.bindings.setdefault(node.name, []).append(("", node.lineno))
            elif isinstance(node, ast.Assign):
                self._assign_statement(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                self._call_statement(node.value)
        self._class_kinds: dict[str, Kind] = {}
        self._scopes: dict[int, dict[str, list[ast.expr | tuple[str, ast.expr]]]] = {}
        self.functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        """The module's top-level functions: what a class attribute assigned from one of them (`old = _fn`) takes."""

    @functools.cached_property
    def aliases(self) -> dict[str, ast.Name | ast.Attribute]:
        """`Alias = Name` or `Alias = module.Name` at the top level, where nothing else binds `Alias` in the module's
        scope (an import, a class, a loop, a function's `global`): what a base or a constructor spelt `Alias` names.
        Read from the module's bindings, found once for every name lookup (a walk of its own cost a tenth of a scan)."""
        candidates = {
            node.targets[0].id: node.value
            for node in self.module.body
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Name, ast.Attribute))
        }
        if not candidates:
            return {}
        bound = self._bindings(self.module)
        return {name: value for name, value in candidates.items() if len(bound.get(name, ())) == 1}

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        """The names an import binds, each with what it names (`from .models import Tiny`: `.models.Tiny`); every
        binding is kept too (`bindings`): under `try`/`except` or `if`/`else` only one of them holds at run time."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._bind(alias.asname, alias.name, node.lineno)
                else:
                    top = alias.name.split(".")[0]
                    self.imports.setdefault(top, top)
                    self.bindings.setdefault(top, []).append((top, node.lineno))
        elif node.module and node.level == 0:
            for alias in node.names:
                self._bind(alias.asname or alias.name, f"{node.module}.{alias.name}", node.lineno)
        else:
            for alias in node.names:
                module = f"{node.module}." if node.module else ""
                self._bind(alias.asname or alias.name, f"{'.' * node.level}{module}{alias.name}", node.lineno)

    def _bind(self, name: str, target: str, line: int) -> None:
        self.imports[name] = target
        self.bindings.setdefault(name, []).append((target, line))

    def _assign_statement(self, node: ast.Assign) -> None:
        """`x.__class__ = X` (a class swap), `Tiny.old = fn` (a class patch), `x.old = fn` or `x.__dict__["old"] =
        fn` (a replaced method) and `Dyn = type("Dyn", bases, {"old": fn})` (a class: `dynamic_class`)."""
        if (dynamic := self.dynamic_class(node)) is not None:
            self.classes[dynamic.name] = None if dynamic.name in self.classes else dynamic
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id in self.imports and not _is_literal(node.value):
                # `except ImportError: X = None` leaves no class that could define a method of its own
                self.bindings.setdefault(target.id, []).append(("", node.lineno))
            if isinstance(target, ast.Attribute) and target.attr == "__class__":
                self._swap(target.value, node.lineno, f"{ast.unparse(target)} = ...")
            if isinstance(target, ast.Attribute) and target.attr in self.rules.members:
                self._patched(target.value, target.attr, node.value)
                if not self._takes_anything(node.value):
                    self.replaced.add((ast.unparse(target.value), target.attr))
            elif (entry := self._instance_dict(target)) is not None and not self._takes_anything(node.value):
                self.replaced.add(entry)

    def dynamic_class(self, node: ast.Assign) -> ast.ClassDef | None:
        """`Dyn = type("Dyn", (Base, ...), {"old": fn, ...})`, a literal namespace with an old member name among its
        keys, as the class statement it stands for (named as the code binds it, each string key an assignment of its
        body at the key's position): a class of the module that defines the old name, like one spelt `class`.
        `None` for any other statement, or where `type` is not the builtin."""
        call = node.value
        if (
            len(node.targets) != 1
            or not isinstance(target := node.targets[0], ast.Name)
            or not is_builtin_call(call, "type")
            or "type" in self.imports
            or "type" in self.classes
        ):
            return None
        assert isinstance(call, ast.Call)
        if len(call.args) != 3 or call.keywords or not isinstance(call.args[1], ast.Tuple):
            return None
        bases, mapping = call.args[1], call.args[2]
        if not isinstance(mapping, ast.Dict):
            return None
        keys = [(name, k, v) for k, v in zip(mapping.keys, mapping.values, strict=True) if (name := string(k))]
        if not any(name in self.rules.members for name, _, _ in keys):
            return None
        body: list[ast.stmt] = [
            ast.Assign([ast.Name(name, ast.Store(), **_position(k))], v, **_position(k))
            for name, k, v in keys
            if k is not None
        ]
        return ast.ClassDef(target.id, list(bases.elts), [], body, [], **_position(node))

    def _instance_dict(self, target: ast.expr) -> tuple[str, str] | None:
        """(`x`, old name) of `x.__dict__["old"]` or `vars(x)["old"]`: the instance whose old method an assignment
        there replaces (a class's `__dict__` cannot be assigned to)."""
        name = string_key(target)
        if name not in self.rules.members or not isinstance(target, ast.Subscript):
            return None
        holder = target.value
        if isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
            return ast.unparse(holder.value), name
        if isinstance(holder, ast.Call) and is_builtin_call(holder, "vars") and len(holder.args) == 1:
            return ast.unparse(holder.args[0]), name
        return None

    def _swap(self, receiver: ast.expr, line: int, how: str) -> None:
        """Record that line `line` gives `receiver` another class (`how`: the statement, shortened)."""
        self.swapped[ast.unparse(receiver)] = shared("swaps-class", line=line, how=how)

    def _patched(self, owner: ast.expr, name: str, value: ast.expr) -> None:
        """Record `owner.name = value` on a class of this module, or on one imported from (or reached through) a
        project module (`models.Tiny`: `_patched_kind` applies it), keyed as the code spells the class."""
        if isinstance(owner, ast.Name) and (owner.id in self.classes or owner.id in self.imports):
            self.patches.setdefault(owner.id, {})[name] = value
        elif isinstance(owner, ast.Attribute) and self.qualified(owner) is not None:
            self.patches.setdefault(ast.unparse(owner), {})[name] = value

    def _takes_anything(self, value: ast.expr) -> bool:
        """`lambda **kwargs: ...` or a mock (`MagicMock()`): a replacement that takes whatever the new name passes."""
        if isinstance(value, ast.Lambda):
            return value.args.kwarg is not None
        return isinstance(value, ast.Call) and (self.qualified(value.func) in MOCKS or self._mocker(value.func))

    def _mocker(self, func: ast.expr) -> bool:
        """`mocker.MagicMock` where `mocker` is pytest-mock's fixture (a name the module neither imports nor defines)."""
        return (
            isinstance(func, ast.Attribute)
            and func.attr in _MOCK_NAMES
            and isinstance(func.value, ast.Name)
            and func.value.id == MOCKER
            and MOCKER not in self.imports
            and MOCKER not in self.classes
        )

    def _call_statement(self, call: ast.Call) -> None:
        """`setattr(Tiny, "old", fn)` (a class patch), `setattr(x, "__class__", X)` and `adapters.init(model)` (class
        swaps)."""
        func = self.qualified(call.func) or (call.func.id if isinstance(call.func, ast.Name) else "")
        if (func == "setattr" or ast.unparse(call.func) == "object.__setattr__") and len(call.args) == 3:
            owner, name, value = call.args
            if isinstance(name, ast.Constant) and name.value == "__class__":
                self._swap(owner, call.lineno, f"setattr({ast.unparse(owner)}, '__class__', ...)")
            elif isinstance(name, ast.Constant) and name.value in self.rules.members:
                self._patched(owner, str(name.value), value)
                if not self._takes_anything(value):
                    self.replaced.add((ast.unparse(owner), str(name.value)))
            elif string(name) is None and isinstance(owner, ast.Name) and owner.id in self.classes:
                self.unnamed_patches.setdefault(owner.id, call.lineno)
        elif isinstance(call.func, ast.Attribute) and call.func.attr == "update":
            self._dict_update(call)
        elif func in SWAPPERS and (model := _swapped_model(call, func)) is not None:
            self._swap(model, call.lineno, f"{ast.unparse(call.func)}(...)")

    def _dict_update(self, call: ast.Call) -> None:
        """`x.__dict__.update(old=fn)` or `vars(x).update({"old": fn})`: the old method replaced on the instance."""
        holder = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
            owner = holder.value
        elif isinstance(holder, ast.Call) and is_builtin_call(holder, "vars") and len(holder.args) == 1:
            owner = holder.args[0]
        else:
            return
        given = [(k.arg, k.value) for k in call.keywords if k.arg]
        for mapping in call.args:
            if isinstance(mapping, ast.Dict):
                given += [(string(k), v) for k, v in zip(mapping.keys, mapping.values, strict=True)]
        for name, value in given:
            if name in self.rules.members and not self._takes_anything(value):
                self.replaced.add((ast.unparse(owner), name))

    # --- names and classes -------------------------------------------------------------------------------------------

    def qualified(self, expr: ast.expr) -> str | None:
        """`transformers.LlamaForCausalLM` for a name imported from transformers, `copy.deepcopy`, ..."""
        if isinstance(expr, ast.Name):
            if expr.id in self.imports:
                return self.imports[expr.id]
            # `transformers.TrainingArguments` in a snippet without `import transformers`; never a local name.
            return expr.id if expr.id in HF_ROOTS and expr.id not in self.classes else None
        if isinstance(expr, ast.Attribute):
            inner = self.qualified(expr.value)
            return f"{inner}.{expr.attr}" if inner else None
        return None

    def class_kind(self, expr: ast.expr, depth: int = 0) -> Kind:
        """What an instance of the class `expr` is: names imported from transformers (under any name) are
        transformers classes; a class defined in the module is what its bases trace to, unless it defines the old
        names itself. A module-level alias (`Alias = Name`) is the class it names; `module.Name` of a project module
        is followed like a name imported from it."""
        if isinstance(expr, ast.Name) and expr.id in self.aliases:
            return self.class_kind(self.aliases[expr.id], depth + 1) if depth <= 8 else UNKNOWN
        if isinstance(expr, ast.Name) and expr.id in self.classes and expr.id not in self.imports:
            return self._local_class(expr.id, depth)
        if (
            isinstance(expr, ast.Attribute)
            and expr.attr in self.classes
            and isinstance(expr.value, ast.Name)
            and (expr.value.id in ("self", "cls") or expr.value.id in self.classes)
        ):
            return self._local_class(expr.attr, depth)  # `self._FakeModel()`: a class nested in the test class
        if self._mocker(expr):
            return Kind(ReceiverKind.MOCK, f"a `{expr.attr}` (from pytest-mock's `{MOCKER}`)")
        if isinstance(expr, ast.Name) and expr.id in self.imports and len(bound := self.bindings.get(expr.id, [])) > 1:
            return self._bound_kind(expr.id, bound, depth)
        name = self.qualified(expr)
        if name is None:
            # A known class name neither imported nor defined: a snippet (a README fence) that uses the real one.
            bare = expr.id if isinstance(expr, ast.Name) else None
            if bare in self.rules.config_classes:
                return Kind(ReceiverKind.ARGS, shared("without-import", name=bare))
            if bare and bare.startswith("AutoModel"):
                return Kind(ReceiverKind.MODEL, shared("without-import", name=bare))
            return UNKNOWN
        return self._named_kind(name, ast.unparse(expr))

    def _named_kind(self, name: str, text: str) -> Kind:
        """`class_kind` of the class the qualified `name` names (spelt `text` in this module)."""
        root, _, last = name.rpartition(".")
        top = name.split(".")[0]
        if name in MOCKS or name in NAMESPACES:
            return Kind(ReceiverKind.MOCK if name in MOCKS else ReceiverKind.NAMESPACE, f"a `{last}` (from {root})")
        if top in HF_ROOTS and last in self.rules.config_classes:
            return Kind(ReceiverKind.ARGS, f"`{last}` comes from {top}")
        if top == "transformers" and _MODEL_NAME.match(last):
            return Kind(ReceiverKind.MODEL, f"`{last}` comes from transformers")
        if top in FOREIGN:
            return Kind(ReceiverKind.FOREIGN, f"`{last}` from {top}")
        if root:
            return self._patched_kind(text, self._imported_class(root, last))
        return UNKNOWN

    def _bound_kind(self, name: str, bound: list[tuple[str, int]], depth: int) -> Kind:
        """The kind of a class name bound more than once (`try: from fast import X` / `except ImportError: from
        transformers import X`, or an import and a class or assignment of that name): the kind every binding has,
        else `unsure` when one of them is a transformers model (which one runs is more than the tool can see)."""
        local = self._local_class(name, depth) if name in self.classes and depth <= 8 else UNKNOWN
        kinds = [self._named_kind(t, name) if t else local for t, _ in bound]
        if len({k.kind for k in kinds}) == 1:
            return kinds[-1]
        if not {k.kind for k in kinds} & {ReceiverKind.MODEL, ReceiverKind.UNSURE, ReceiverKind.OVERRIDE}:
            return UNKNOWN
        listed = ", ".join(shared("bound-as", target=t or "a class or value of this module", line=n) for t, n in bound)
        return Kind(ReceiverKind.UNSURE, shared("bound-twice", name=name, bindings=listed), bound[-1][1])

    def _patched_kind(self, text: str, kind: Kind) -> Kind:
        """The kind of a project class imported from another module (`kind`), spelt `text` here, with what this
        module assigns to its old names (`models.Tiny.old = fn`): an override like a `def` in its body."""
        patched = self.patches.get(text)
        if not patched or kind.kind not in (ReceiverKind.MODEL, ReceiverKind.UNSURE):
            return kind
        for name, value in patched.items():
            where = shared("line", line=getattr(value, "lineno", 0))
            if (verdict := self.member_kind(text, name, value, where)) is not None:
                return verdict
        return dataclasses.replace(kind, defines=kind.defines | frozenset(patched))

    def _module_of(self, module: str, name: str) -> tuple[Receivers, tuple[_Key, str]] | None:
        """The reader of the project module that `name` is imported from, when found and not being followed already."""
        if self.base is None or self.hops >= MAX_HOPS:
            return None
        path = module_file(self.base, module)
        if path is None:
            return None
        try:
            stamp = path.stat()
            # By depth too: how far the module's reader may follow on depends on how it was reached, not on which
            # file reached it first.
            key = (path, stamp.st_mtime_ns, stamp.st_size, self.hops + 1)
            files = self.cache.files
            if key not in files:
                files[key] = Receivers(ast.parse(path.read_bytes()), self.rules, self.cache, path.parent, self.hops + 1)
        except (OSError, SyntaxError, ValueError):
            return None
        other = files[key]
        if not any(name in names for names in (other.classes, other.imports, other.aliases, other.functions)):
            return None
        if (key, name) in self.cache.following:
            return None  # an import cycle, or a module that names itself (a vendored `transformers/` copy)
        return other, (key, name)

    def _followed(
        self, module: str, name: str, ask: Callable[[Receivers, ast.Name], _T | None]
    ) -> tuple[_T, str] | None:
        """What `ask` finds of `name` in the project module `module` it is imported from (`_module_of`), with that
        module's file name; the import is marked as being followed meanwhile, so a cycle ends. `None` when the module
        is not the project's or `ask` finds nothing: the one lookup every import followed goes through."""
        found = self._module_of(module, name) if module else None
        if found is None:
            return None
        other, following = found
        self.cache.following.add(following)
        try:
            answer = ask(other, ast.Name(name))
        finally:
            self.cache.following.discard(following)
        return (answer, following[0][0].name) if answer is not None else None

    def _imported_class(self, module: str, name: str) -> Kind:
        """The kind of class `name` imported from a module of the project, read from its file when found."""
        found = self._followed(module, name, lambda other, n: other.class_kind(n))
        if found is None or found[0].kind == ReceiverKind.UNKNOWN:
            return UNKNOWN
        kind, file = found
        return dataclasses.replace(kind, why=f"{kind.why} (in {file})", line=0)

    def class_node(self, expr: ast.expr) -> ast.ClassDef | None:
        """The definition of the class named `expr`: in this module, or in the project module it is imported from
        (followed like `class_kind`, `MAX_HOPS` deep). `None` when not found."""
        found = self.class_source(expr)
        return found[0] if found is not None else None

    def class_source(self, expr: ast.expr, depth: int = 0) -> tuple[ast.ClassDef, str] | None:
        """`class_node`, with the name of the file that defines it (`""`: this module), for a message to say where a
        line of it is."""
        if isinstance(expr, ast.Name) and expr.id in self.aliases:
            return self.class_source(self.aliases[expr.id], depth + 1) if depth <= 8 else None
        if isinstance(expr, ast.Name) and expr.id not in self.imports:
            node = self.classes.get(expr.id)
            return (node, "") if node is not None else None
        module, _, name = (self.qualified(expr) or "").rpartition(".")
        found = self._followed(module, name, lambda other, n: other.class_source(n))
        if found is None:
            return None
        (node, inner), file = found
        return node, inner or file

    def definitions(self, expr: ast.expr, depth: int = 0) -> tuple[list[tuple[str, ast.AST, str]], str | None]:
        """What the class `expr` and its bases (not transformers' own classes) define of the old member names, as
        (name, `def` or assigned value, where), and why the tool cannot see all of it (`None` when it can)."""
        if isinstance(expr, ast.Name) and expr.id in self.aliases and depth <= 8:
            return self.definitions(self.aliases[expr.id], depth + 1)
        name = self.qualified(expr)
        top = (name or "").split(".")[0]
        if top in HF_ROOTS or top in _NEUTRAL_ROOTS or (isinstance(expr, ast.Name) and expr.id == "object"):
            return [], None
        text = ast.unparse(expr)
        if isinstance(expr, ast.Name) and expr.id in self.classes and expr.id not in self.imports:
            node = self.classes[expr.id]
            if node is None or depth > 8:
                return [], f"`{text}` is defined more than once"
            found = [
                (n, v, shared("class-at", cls=text, line=getattr(v, "lineno", node.lineno)))
                for n, v in self._own(node).items()
            ]
            for base in node.bases:
                more, unsure = self.definitions(base, depth + 1)
                if unsure is not None:
                    return found + more, unsure
                found += more
            return found, None
        module, _, last = (name or "").rpartition(".")
        if (followed := self._followed(module, last, lambda other, n: other.definitions(n, depth + 1))) is not None:
            (found, unsure), file = followed
            return [(n, v, shared("in-file", where=where, file=file)) for n, v, where in found], unsure
        return [], shared("unreadable-class", text=text)

    def model_subclasses(self, name: str) -> list[ast.ClassDef]:
        """The classes of this module that name the class `name` among their bases before a transformers model
        (`class M(Narrow, LlamaForCausalLM)`): for them, what `name` defines of the old names overrides the model's."""
        spelt = {name} | {alias for alias, value in self.aliases.items() if ast.unparse(value) == name}
        found = []
        for node in self.classes.values():
            if node is None or not any(isinstance(b, ast.Name) and b.id in spelt for b in node.bases):
                continue
            kinds = [self.class_kind(b).kind for b in node.bases]
            first = next((i for i, k in enumerate(kinds) if k in (ReceiverKind.MODEL, ReceiverKind.UNSURE)), None)
            if first is not None and any(isinstance(b, ast.Name) and b.id in spelt for b in node.bases[:first]):
                found.append(node)
        return found

    def _own(self, node: ast.ClassDef) -> dict[str, ast.AST]:
        """The old member names the class body defines (`def`, or `old = value`) or a later patch assigns."""
        own: dict[str, ast.AST] = {}
        for item in class_body(node):
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in self.rules.members:
                own[item.name] = item
            elif isinstance(item, ast.Assign):
                for target in item.targets:
                    if isinstance(target, ast.Name) and target.id in self.rules.members:
                        own[target.id] = item.value
        own.update(self.patches.get(node.name, {}))
        return own

    def member_kind(self, cls: str, name: str, value: ast.AST, where: str) -> Kind | None:
        """What defining the old member `name` as `value` in class `cls` (or a base, `where`) makes of a model
        class: an `override` the new name cannot go through, `unsure` when the tool cannot read `value`, or `None`."""
        if isinstance(value, ast.Name) and value.id in self.functions:
            value = self.functions[value.id]
        row = self.rules.members[name]
        if row.kind == RenameKind.PROPERTY:
            what = shared("overrides-property", cls=cls, name=name, where=where)
            return Kind(ReceiverKind.OVERRIDE, what, getattr(value, "lineno", 0), name)
        if name != self.enable:
            return None
        if isinstance(value, (ast.FunctionDef, ast.AsyncFunctionDef)):
            why = narrow_override(value, name)
        elif isinstance(value, ast.Lambda):
            why = None if value.args.kwarg is not None else shared("no-kwargs")
        else:
            what = shared("gets-from", cls=cls, name=name, value=ast.unparse(value), where=where)
            return Kind(ReceiverKind.UNSURE, what, getattr(value, "lineno", 0))
        if why is None:
            return None
        what = shared("overrides", cls=cls, name=name, where=where, why=why)
        return Kind(ReceiverKind.OVERRIDE, what, getattr(value, "lineno", 0), name)

    def _local_class(self, name: str, depth: int) -> Kind:
        if name in self._class_kinds:
            return self._class_kinds[name]
        self._class_kinds[name] = UNKNOWN  # a cycle of bases stays unknown
        node = self.classes.get(name)
        kind = UNKNOWN if node is None or depth > 8 else self._class_from_node(node, depth)
        self._class_kinds[name] = kind
        return kind

    def _class_from_node(self, node: ast.ClassDef, depth: int) -> Kind:
        bases = [self.class_kind(b, depth + 1) for b in node.bases]
        methods = self._own(node)
        fields = {
            s.target.id: s
            for s in class_body(node)
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id in self.rules.fields
        }
        kinds = {b.kind for b in bases}
        for base in bases:
            if base.kind in (ReceiverKind.OVERRIDE, ReceiverKind.MIXIN):
                return base
        if ReceiverKind.MODEL in kinds or ReceiverKind.UNSURE in kinds:
            return self._model_class(node, bases, methods, depth)
        if ReceiverKind.ARGS in kinds or ReceiverKind.ARGS_UNSURE in kinds:
            return self._args_class(node, bases)
        if ReceiverKind.FOREIGN in kinds:
            why = next(b.why for b in bases if b.kind == ReceiverKind.FOREIGN)
            return Kind(ReceiverKind.FOREIGN, shared("subclasses", cls=node.name, why=why), node.lineno)
        own_methods = [
            f.name
            for f in class_body(node)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in self.rules.method_kwargs
        ]
        if methods or fields or own_methods:
            what = next(iter([*methods, *fields, *own_methods]))
            return Kind(ReceiverKind.FOREIGN, shared("defines-itself", cls=node.name, what=what), node.lineno)
        return UNKNOWN

    def _model_class(self, node: ast.ClassDef, bases: list[Kind], methods: dict[str, ast.AST], depth: int) -> Kind:
        """A class with a transformers model (or an unsure class) among its bases: what the old names are on it."""
        kinds = {b.kind for b in bases}
        # The bases before the first transformers model come first in the MRO: what they define of the old names
        # is what the old names are on this class.
        first = next(i for i, b in enumerate(bases) if b.kind in (ReceiverKind.MODEL, ReceiverKind.UNSURE))
        found = [(n, v, shared("line", line=getattr(v, "lineno", node.lineno))) for n, v in methods.items()]
        for base_node in node.bases[:first]:
            more, unsure = self.definitions(base_node, depth + 1)
            found += more
            if unsure is not None:
                what = shared("base-may-define", cls=node.name, unsure=unsure)
                return Kind(ReceiverKind.UNSURE, what, node.lineno)
        for name, value, where in found:
            if (verdict := self.member_kind(node.name, name, value, where)) is not None:
                return verdict
        if ReceiverKind.UNSURE in kinds:
            return next(b for b in bases if b.kind == ReceiverKind.UNSURE)
        if (injected := self._injected(node)) is not None:
            return Kind(ReceiverKind.UNSURE, injected, node.lineno)
        defines = frozenset(name for name, _, _ in found).union(*(b.defines for b in bases))
        return Kind(ReceiverKind.MODEL, shared("subclasses-model", cls=node.name), node.lineno, defines=defines)

    def _injected(self, node: ast.ClassDef) -> str | None:
        """Why something the tool cannot read may set the old method on the model class `node` when it is made: a
        class decorator (not one of `_KNOWN_DECORATORS`), a metaclass, a base's `__init_subclass__`, or `setattr` of
        a name it cannot read. `None` when none of them."""
        for decorator in node.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            if (self.qualified(func) or "") not in _KNOWN_DECORATORS:
                return shared("decorated", cls=node.name, decorator=ast.unparse(func), line=decorator.lineno)
        if (meta := next((k.value for k in node.keywords if k.arg == "metaclass"), None)) is not None:
            return shared("metaclass", cls=node.name, meta=ast.unparse(meta), line=node.lineno)
        for base in node.bases:
            source = self.class_source(base) if not is_name(base, "object") else None
            hook = next((s for s in class_body(source[0]) if _is_def(s, "__init_subclass__")), None) if source else None
            if hook is not None:
                return shared("init-subclass", cls=node.name, base=ast.unparse(base), line=hook.lineno)
        if node.name in self.unnamed_patches:
            return shared("unnamed-setattr", cls=node.name, line=self.unnamed_patches[node.name])
        return None

    @functools.cached_property
    def both_fields(self) -> frozenset[str]:
        """The old fields and their new names: TrainingArguments takes the old value only while the new field is
        `None`, so a class that declares either (or writes either before that) decides what renaming the keyword
        does."""
        return frozenset(self.rules.fields) | {row.new for row in self.rules.fields.values()}

    def _args_class(self, node: ast.ClassDef, bases: list[Kind]) -> Kind:
        """A class with training arguments among its bases: whether the old field still works on it."""
        early = self._early_read(node)
        if early is not None and early.kind == ReceiverKind.MIXIN:
            return early
        own = declared_field(self, node)
        if own is not None:
            field, form = field_named(self, own)
            what = shared("declares-field", cls=node.name, field=field, line=own.lineno)
            return Kind(ReceiverKind.MIXIN, what, own.lineno, form=form)
        for base_node, base in zip(node.bases, bases, strict=True):
            if base.kind == ReceiverKind.ARGS:
                continue
            local = self.classes.get(base_node.id) if isinstance(base_node, ast.Name) else None
            source = (local, "") if local is not None else self.class_source(base_node)
            declared = declared_field(self, source[0]) if source is not None else None
            if source is not None and declared is not None:
                file = source[1]
                where = shared("line", line=declared.lineno)
                where = shared("in-file", where=where, file=file) if file else where
                field, form = field_named(self, declared)
                what = shared("inherits-field", cls=node.name, field=field, base=source[0].name, where=where)
                return Kind(ReceiverKind.MIXIN, what, 0 if file else declared.lineno, form=form)
            if local is not None or base.kind == ReceiverKind.ARGS_UNSURE:
                continue
            if (self.qualified(base_node) or "").split(".")[0] in ("abc", "typing", "dataclasses", "enum"):
                continue
            what = shared("other-base", cls=node.name, base=ast.unparse(base_node))
            return Kind(ReceiverKind.ARGS_UNSURE, what, node.lineno)
        # A base the tool is unsure of (its `__post_init__` passes `self` to a function it cannot read) is as unsure
        # for its subclasses, and says why.
        unsure = next((b for b in bases if b.kind == ReceiverKind.ARGS_UNSURE), None)
        return early or unsure or Kind(ReceiverKind.ARGS, shared("subclasses-args", cls=node.name), node.lineno)

    def _early_read(self, node: ast.ClassDef) -> Kind | None:
        """What the class's `__post_init__` (its own or a base's in this module) does with the old field before it calls
        `super().__post_init__()` (where TrainingArguments moves the old field's value to the new one): a read of it
        (`mixin`), in its body or in a method or function it calls first (`argsclasses`), else a call of a function the
        tool cannot read that `self` is passed to, or a read of a field it cannot name (`args-unsure`); `None` when
        neither. A class that defines `__post_init__` more than once (under `if` and `else`) may run any of them: the
        worst counts."""
        worst = worst_early(self, node)
        if worst is None:
            return None
        owner, found = worst
        calls = found.calls
        through = shared("early-read-through", calls=", then ".join(f"`{c}`" for c in calls)) if calls else ""
        line = getattr(found.node, "lineno", owner.lineno)
        where = shared("in-file", where=line, file=found.file) if found.file else line
        if found.func:
            names = {"cls": owner.name, "passed": found.passed, "func": found.func, "through": through, "line": where}
            return Kind(ReceiverKind.ARGS_UNSURE, shared("early-pass", **names), 0 if found.file else line)
        names = {"cls": owner.name, "read": ast.unparse(found.node), "through": through, "line": where}
        if found.written:
            what = shared("early-read", verb="writes", **names)
            return Kind(ReceiverKind.MIXIN, what, 0 if found.file else line, form="written")
        if found.unnamed:
            return Kind(ReceiverKind.ARGS_UNSURE, shared("early-unnamed", **names), 0 if found.file else line)
        return Kind(ReceiverKind.MIXIN, shared("early-read", verb="reads", **names), 0 if found.file else line)

    def function_source(self, expr: ast.expr) -> tuple[Receivers, ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
        """The `def` of the module-level function `expr`: this module's, or the one of the project module it is
        imported from (followed like `class_source`, `MAX_HOPS` deep), with that module's reader and file name (`""`:
        this module). `None` when not found."""
        if isinstance(expr, ast.Name) and expr.id not in self.imports:
            func = self.functions.get(expr.id)
            return (self, func, "") if func is not None and expr.id not in self.classes else None
        module, _, name = (self.qualified(expr) or "").rpartition(".")
        found = self._followed(module, name, lambda other, n: other.function_source(n))
        if found is None:
            return None
        (reader, func, inner), file = found
        return reader, func, inner or file

    # --- what names hold ---------------------------------------------------------------------------------------------

    def expr_kind(self, expr: ast.expr, scopes: list[ast.AST], depth: int = 0) -> Kind:
        """What `expr` holds, in the innermost-first `scopes` (functions, then the module): `X.from_pretrained(...)`,
        `X.from_config(...)` or `X(...)` holds an instance of X; a copy (`copy.deepcopy(x)`, `dataclasses.replace(x,
        ...)`) holds what `x` holds; a name holds what it was bound to, a parameter annotated with X an X."""
        if depth > 4:
            return UNKNOWN
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Attribute) and func.attr in _CONSTRUCTORS:
                kind = self.class_kind(func.value)
                # Only the Auto classes load a repository's own code; `**options` may hold `trust_remote_code=True`.
                auto = (self.qualified(func.value) or "").rpartition(".")[2].startswith("AutoModel")
                remote = next((k for k in expr.keywords if k.arg in ("trust_remote_code", None)), None)
                if kind.kind == ReceiverKind.MODEL and auto and remote is not None and not _is_false(remote.value):
                    passed = (
                        f"**{ast.unparse(remote.value)}"
                        if remote.arg is None
                        else f"trust_remote_code={ast.unparse(remote.value)}"
                    )
                    what = shared("remote-code", line=expr.lineno, passed=passed)
                    return Kind(ReceiverKind.UNSURE, what, expr.lineno)
                exact = kind.kind == ReceiverKind.MODEL and not (auto and self._project_registers())
                return dataclasses.replace(kind, exact=True) if exact else kind
            name = self.qualified(func)
            if name in _COPIES and expr.args:
                return self.expr_kind(expr.args[0], scopes, depth + 1)
            if isinstance(func, ast.Attribute) and func.attr == "set_training":
                return self.expr_kind(func.value, scopes, depth + 1)
            if isinstance(func, ast.Attribute) and func.attr == "parse_args":
                return Kind(ReceiverKind.NAMESPACE, f"the namespace `{ast.unparse(func)}()` returns", expr.lineno)
            built = self.class_kind(func)
            return dataclasses.replace(built, exact=True) if built.kind == ReceiverKind.MODEL else built
        if isinstance(expr, ast.Name):
            return self.name_kind(expr.id, scopes, depth)
        return UNKNOWN

    def _project_registers(self) -> bool:
        """Whether this module's project registers a class of its own with an Auto class (read once per run)."""
        if self.base is None:
            return False  # standard input: no project to read
        root, whole = project_folder(self.base)
        if root not in self.cache.registering:
            self.cache.registering[root] = _registers(root, whole)
        return self.cache.registering[root]

    def name_kind(self, name: str, scopes: list[ast.AST], depth: int = 0) -> Kind:
        for index, scope in enumerate(scopes):
            bound = self._bindings(scope).get(name)
            if not bound:
                continue
            kinds = set()
            found = against = UNKNOWN
            exact = True
            for value in bound:
                if isinstance(value, tuple):  # an annotation
                    found = self.class_kind(_unquote(value[1]))
                else:
                    found = self.expr_kind(value, scopes[index:], depth + 1)
                kinds.add(found.kind)
                exact = exact and found.exact
                if found.kind == ReceiverKind.FOREIGN and not isinstance(value, tuple):  # built, not only annotated
                    against = found
            if len(kinds) == 1:
                return found if found.exact == exact else dataclasses.replace(found, exact=exact)
            # Bound to another library's object and to something unknown (`model, opt = prepare(model, opt)`): a
            # rename may still break the first, so the evidence against stands.
            return (
                against
                if kinds == {ReceiverKind.FOREIGN, ReceiverKind.UNKNOWN} and against.kind == ReceiverKind.FOREIGN
                else UNKNOWN
            )
        return UNKNOWN

    def _bindings(self, scope: ast.AST) -> dict[str, list[ast.expr | tuple[str, ast.expr]]]:
        if id(scope) in self._scopes:
            return self._scopes[id(scope)]
        found = _parameters(scope)
        bound: set[int] = set()
        """The names whose value is known (`x = value`): every other binding of a name holds something unknown."""
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, []).append(ast.Constant(None))
                continue
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(node.value)
                        bound.add(id(target))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found.setdefault(node.target.id, []).append(("annotation", node.annotation))
                bound.add(id(node.target))
            elif isinstance(node, ast.NamedExpr):
                found.setdefault(node.target.id, []).append(node.value)
                bound.add(id(node.target))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in bound:
                # Tuple unpacking (`model, opt = build()`), loop and `with` targets, `del`, augmented assignment.
                found.setdefault(node.id, []).append(ast.Constant(None))
            elif (captured := pattern_capture(node)) is not None:
                found.setdefault(captured, []).append(ast.Constant(None))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    found.setdefault(alias.asname or alias.name.split(".")[0], []).append(ast.Constant(None))
            stack.extend(ast.iter_child_nodes(node))
        for name in rebound_inside(scope):
            found.setdefault(name, []).append(ast.Constant(None))
        self._scopes[id(scope)] = found
        return found


def _position(node: ast.AST) -> dict[str, int]:
    """Where `node` starts, for a node made to stand for it (`Receivers.dynamic_class`)."""
    return {"lineno": getattr(node, "lineno", 0), "col_offset": getattr(node, "col_offset", 0)}


def _parameters(scope: ast.AST) -> dict[str, list[ast.expr | tuple[str, ast.expr]]]:
    """The parameters of a function or lambda `scope` (none for another scope), each bound to its annotation or to
    something unknown."""
    found: dict[str, list[ast.expr | tuple[str, ast.expr]]] = {}
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = scope.args
        for arg in [
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            arguments.vararg,
            arguments.kwarg,
        ]:
            if arg is not None:
                found.setdefault(arg.arg, []).append(
                    ("annotation", arg.annotation) if arg.annotation else ast.Constant(None)
                )
    return found


def _swapped_model(call: ast.Call, func: str) -> ast.expr | None:
    """The model a call of the `SWAPPERS` entry `func` swaps the class of: its first argument, or the keyword of that
    parameter's name."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == SWAPPERS[func]), None)


def _is_def(statement: ast.stmt, name: str) -> bool:
    return isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name


def _is_false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value in (False, None)


def _unquote(annotation: ast.expr) -> ast.expr:
    """`"LlamaForCausalLM"` (a string annotation) → the expression it names; `X | None` / `Optional[X]` → `X`."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return annotation
    if (
        isinstance(annotation, ast.BinOp)
        and isinstance(annotation.right, ast.Constant)
        and annotation.right.value is None
    ):
        return annotation.left
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value).endswith("Optional"):
        return annotation.slice
    return annotation
