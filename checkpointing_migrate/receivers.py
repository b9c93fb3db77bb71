"""What an expression holds, told from one module's syntax: the evidence behind every Python rewrite.

A small local type inference, explainable in one sentence per rule (see `expr_kind`, `class_kind`). Evidence *against*
is as strong as evidence for: a class of another library (`FOREIGN`), a project class that defines the old method, an
override whose signature the new method cannot call. Everything else is `unknown`.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from checkpointing_migrate.rules import Rules

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


@dataclass(frozen=True)
class Kind:
    """What an expression holds."""

    kind: str
    """`model`, `args` (training arguments), `override` (a model class whose override of an old name the new name
    cannot call the same way), `mixin` (training arguments whose class inherits the old field from a mixin),
    `args-unsure` (training arguments whose class also has a base from elsewhere, which may declare the old field),
    `foreign` (another library's object or a project class that is not a transformers one) or `unknown`."""
    why: str
    """The evidence, as a phrase for messages (`class TinyLlama overrides ...`)."""
    line: int = 0
    """Where that evidence is (a `def`, a class, an assignment), 0 when nowhere in particular."""
    overridden: str = ""
    """For `override`: the old name the class overrides."""


UNKNOWN = Kind("unknown", "")

MAX_HOPS = 3
"""How many imports deep a class is followed into the project's other modules."""

_FILES: dict[tuple[Path, int, int, int], Receivers] = {}
"""Project modules read to follow an import, by (path, mtime, size, depth): each is read once per process and depth."""
_FOLLOWING: set[tuple[tuple[Path, int, int, int], str]] = set()
"""The (module, class) imports being followed right now: a cycle ends as no evidence instead of a RecursionError."""


def _module_file(base: Path, module: str) -> Path | None:
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


def _statements(tree: ast.Module, *, nested: bool) -> Iterator[ast.stmt]:
    """Every statement of the module, in source order; with `nested` False, not those inside functions or classes
    (the class statements themselves are yielded)."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        yield node
        if not nested and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inner: list[ast.stmt] = []
        for name in ("body", "orelse", "finalbody"):
            inner += [n for n in getattr(node, name, []) if isinstance(n, ast.stmt)]
        inner += [n for h in getattr(node, "handlers", []) for n in h.body]
        inner += [n for c in getattr(node, "cases", []) for n in c.body]
        pending[:0] = inner


def narrow_override(func: ast.FunctionDef | ast.AsyncFunctionDef, enable: str) -> str | None:
    """Why `activation_checkpointing_enable()` cannot call this override of `enable`, or `None` when it can."""
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    if func.args.kwarg is not None or all(p in params for p in NEW_PARAMETERS):
        return None
    missing = ", ".join(f"`{p}`" for p in NEW_PARAMETERS if p not in params)
    return f"takes no {missing} (nor `**kwargs`)"


class Receivers:
    """The evidence of one module, computed once from its whole tree when a rule first asks."""

    def __init__(self, tree: ast.Module, rules: Rules, base: Path | None = None, hops: int = 0) -> None:
        self.rules = rules
        self.base = base
        """The file's folder: a class imported from a module of the project is looked up there (and above)."""
        self.hops = hops
        self.module = tree
        """The module scope: the file, or every cell of a notebook (names bound in one cell hold in the next)."""
        self.enable = next((old for old in rules.member_kwargs if old in rules.members), "")
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ast.ClassDef | None] = {}
        self.replaced: set[tuple[str, str]] = set()
        """(receiver text, old name) of each old method replaced on an instance (`x.old = ...`)."""
        # Imports, classes and assignments are statements: expressions are not walked. A module followed from another
        # one is asked only about its classes and imports: its top level is enough.
        for node in _statements(tree, nested=hops == 0):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        self.imports.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    module = f"{node.module}." if node.module else ""
                    self.imports[alias.asname or alias.name] = f"{'.' * node.level}{module}{alias.name}"
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = None if node.name in self.classes else node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr in rules.members:
                        if isinstance(node.value, ast.Lambda) and node.value.args.kwarg is not None:
                            continue  # `lambda **kwargs: ...` takes whatever the new name passes
                        self.replaced.add((ast.unparse(target.value), target.attr))
        self._class_kinds: dict[str, Kind] = {}
        self._scopes: dict[int, dict[str, list[ast.expr | tuple[str, ast.expr]]]] = {}

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
        names itself."""
        if isinstance(expr, ast.Name) and expr.id in self.classes and expr.id not in self.imports:
            return self._local_class(expr.id, depth)
        if (
            isinstance(expr, ast.Attribute)
            and expr.attr in self.classes
            and isinstance(expr.value, ast.Name)
            and (expr.value.id in ("self", "cls") or expr.value.id in self.classes)
        ):
            return self._local_class(expr.attr, depth)  # `self._FakeModel()`: a class nested in the test class
        name = self.qualified(expr)
        if name is None:
            # A known class name neither imported nor defined: a snippet (a README fence) that uses the real one.
            bare = expr.id if isinstance(expr, ast.Name) else None
            if bare in self.rules.config_classes:
                return Kind("args", f"`{bare}` is the transformers class of that name (used without an import)")
            if bare and bare.startswith("AutoModel"):
                return Kind("model", f"`{bare}` is the transformers class of that name (used without an import)")
            return UNKNOWN
        root, _, last = name.rpartition(".")
        top = name.split(".")[0]
        if top in HF_ROOTS and last in self.rules.config_classes:
            return Kind("args", f"`{last}` comes from {top}")
        if top == "transformers" and _MODEL_NAME.match(last):
            return Kind("model", f"`{last}` comes from transformers")
        if top in FOREIGN:
            return Kind("foreign", f"`{last}` from {top}")
        if isinstance(expr, ast.Name) and root:
            return self._imported_class(root, last)
        return UNKNOWN

    def _imported_class(self, module: str, name: str) -> Kind:
        """The kind of class `name` imported from a module of the project, read from its file when found."""
        if self.base is None or self.hops >= MAX_HOPS:
            return UNKNOWN
        path = _module_file(self.base, module)
        if path is None:
            return UNKNOWN
        try:
            stamp = path.stat()
            # By depth too: how far the module's reader may follow on depends on how it was reached, not on which
            # file reached it first.
            key = (path, stamp.st_mtime_ns, stamp.st_size, self.hops + 1)
            if key not in _FILES:
                _FILES[key] = Receivers(ast.parse(path.read_bytes()), self.rules, path.parent, self.hops + 1)
        except (OSError, SyntaxError, ValueError):
            return UNKNOWN
        other = _FILES[key]
        if name not in other.classes and name not in other.imports:
            return UNKNOWN
        if (key, name) in _FOLLOWING:
            return UNKNOWN  # an import cycle, or a module that names itself (a vendored `transformers/` copy)
        _FOLLOWING.add((key, name))
        try:
            kind = other.class_kind(ast.Name(name))
        finally:
            _FOLLOWING.discard((key, name))
        if kind.kind == "unknown":
            return kind
        return dataclasses.replace(kind, why=f"{kind.why} (in {path.name})", line=0)

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
        methods = {
            f.name: f
            for f in node.body
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in self.rules.members
        }
        fields = {
            s.target.id: s
            for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id in self.rules.fields
        }
        kinds = {b.kind for b in bases}
        for base in bases:
            if base.kind in ("override", "mixin"):
                return base
        if "model" in kinds:
            for method in methods.values():
                if method.name == self.enable and (why := narrow_override(method, self.enable)):
                    what = f"class `{node.name}` overrides `{method.name}`, which {why}"
                    return Kind("override", what, method.lineno, method.name)
                if self.rules.members[method.name].kind == "property":
                    what = (
                        f"class `{node.name}` overrides the property `{method.name}`, which the new name does not read"
                    )
                    return Kind("override", what, method.lineno, method.name)
            return Kind("model", f"class `{node.name}` subclasses a transformers model", node.lineno)
        if "args" in kinds:
            for base_node, base in zip(node.bases, bases, strict=True):
                if base.kind == "args":
                    continue
                local = self.classes.get(base_node.id) if isinstance(base_node, ast.Name) else None
                if local is not None:
                    if any(
                        isinstance(s, ast.AnnAssign)
                        and isinstance(s.target, ast.Name)
                        and s.target.id in self.rules.fields
                        for s in local.body
                    ):
                        what = f"class `{node.name}` inherits the old field from its base `{local.name}`, which declares it"
                        return Kind("mixin", what, local.lineno)
                    continue
                if (self.qualified(base_node) or "").split(".")[0] in ("abc", "typing", "dataclasses", "enum"):
                    continue
                what = f"class `{node.name}` also subclasses `{ast.unparse(base_node)}`, which is not in this file and may declare the old field itself"
                return Kind("args-unsure", what, node.lineno)
            return Kind("args", f"class `{node.name}` subclasses training arguments", node.lineno)
        if "foreign" in kinds:
            why = next(b.why for b in bases if b.kind == "foreign")
            return Kind("foreign", f"class `{node.name}` subclasses {why}", node.lineno)
        if methods or fields:
            what = next(iter(methods or fields))
            return Kind(
                "foreign",
                f"class `{node.name}` defines `{what}` itself and subclasses no transformers class",
                node.lineno,
            )
        return UNKNOWN

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
                return self.class_kind(func.value)
            name = self.qualified(func)
            if name in _COPIES and expr.args:
                return self.expr_kind(expr.args[0], scopes, depth + 1)
            if isinstance(func, ast.Attribute) and func.attr == "set_training":
                return self.expr_kind(func.value, scopes, depth + 1)
            return self.class_kind(func)
        if isinstance(expr, ast.Name):
            return self.name_kind(expr.id, scopes, depth)
        return UNKNOWN

    def name_kind(self, name: str, scopes: list[ast.AST], depth: int = 0) -> Kind:
        for index, scope in enumerate(scopes):
            bound = self._bindings(scope).get(name)
            if not bound:
                continue
            kinds = set()
            found = UNKNOWN
            for value in bound:
                if isinstance(value, tuple):  # an annotation
                    found = self.class_kind(_unquote(value[1]))
                else:
                    found = self.expr_kind(value, scopes[index:], depth + 1)
                kinds.add(found.kind)
            return found if len(kinds) == 1 else UNKNOWN
        return UNKNOWN

    def _bindings(self, scope: ast.AST) -> dict[str, list[ast.expr | tuple[str, ast.expr]]]:
        if id(scope) in self._scopes:
            return self._scopes[id(scope)]
        found: dict[str, list[ast.expr | tuple[str, ast.expr]]] = {}
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]:
                found.setdefault(arg.arg, []).append(
                    ("annotation", arg.annotation) if arg.annotation else ast.Constant(None)
                )
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(node.value)
                    elif isinstance(target, (ast.Tuple, ast.List)):
                        for element in target.elts:
                            if isinstance(element, ast.Name):
                                found.setdefault(element.id, []).append(ast.Constant(None))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found.setdefault(node.target.id, []).append(("annotation", node.annotation))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(node.target, ast.Name):
                found.setdefault(node.target.id, []).append(ast.Constant(None))
            elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
                found.setdefault(node.optional_vars.id, []).append(ast.Constant(None))
            elif isinstance(node, ast.NamedExpr):
                found.setdefault(node.target.id, []).append(node.value)
            stack.extend(ast.iter_child_nodes(node))
        self._scopes[id(scope)] = found
        return found


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
