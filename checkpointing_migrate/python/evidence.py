"""What an expression holds where it stands, for the Python rules: the module's evidence (`receivers`) seen from a node.

The first parameter of a method holds an instance of its class, an attribute of it what the class assigns it; a
name's kind is looked up in the enclosing functions, then the module. Every question takes the `File` and the node's
`At`, and answers without changing either.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from packaging.version import Version

from checkpointing_migrate import codes
from checkpointing_migrate.argsclasses import up_call
from checkpointing_migrate.pylex import CONVENTIONAL_ARGS
from checkpointing_migrate.python import namespace
from checkpointing_migrate.python.context import At, File
from checkpointing_migrate.python.syntax import FUNCTIONS, names_in_bases, old_release_only, parameters, statements_walk
from checkpointing_migrate.receivers import DOUBLES, NEW_KEYWORDS, UNKNOWN, Evidence, Kind, ReceiverKind
from checkpointing_migrate.table import Rename

if TYPE_CHECKING:
    from checkpointing_migrate.argflags import Declared

_MODELS = (ReceiverKind.MODEL, ReceiverKind.OVERRIDE, ReceiverKind.UNSURE)
"""Receivers with evidence that they are transformers models: an attribute of one is not a flag of the project's."""


def scopes(file: File, at: At) -> list[ast.AST]:
    """The enclosing functions and lambdas, innermost first, then the module."""
    functions = [n for n, _ in reversed(at.chain[:-1]) if isinstance(n, FUNCTIONS)]
    return [*functions, file.receivers.module]


def instance_of(at: At, name: str) -> ast.ClassDef | None:
    """The class whose instance `name` is, when it is the first parameter of a method (whatever its name; not of
    a static method, a nested function or a lambda)."""
    chain = at.chain
    for (node, _), (outer, _) in zip(reversed(chain[1:-1]), reversed(chain[:-2]), strict=False):
        if not isinstance(node, FUNCTIONS) or name not in parameters(node):
            continue
        if isinstance(node, ast.Lambda) or not isinstance(outer, ast.ClassDef):
            return None
        decorators = {ast.unparse(d) for d in node.decorator_list}
        positional = [*node.args.posonlyargs, *node.args.args]
        if not decorators & {"staticmethod", "classmethod"} and positional and positional[0].arg == name:
            return outer
        return None
    return None


def attribute_kind(file: File, at: At, expr: ast.Attribute) -> Kind:
    """`self.vision` where every method of the class assigns `self.vision` an object of another library or a
    project class that is not a transformers one: that (evidence against only; anything else is unknown)."""
    cls = instance_of(at, expr.value.id) if isinstance(expr.value, ast.Name) else None
    if cls is None:
        return UNKNOWN
    receivers = file.receivers
    kinds = []
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in statements_walk(method):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == expr.attr and ast.unparse(t.value) == me
                for t in node.targets
            ):
                # Built there (`Tower()`), not passed in: a parameter annotated `nn.Module` may hold a model.
                built = isinstance(node.value, ast.Call)
                kinds.append(receivers.expr_kind(node.value, [method, receivers.module]) if built else UNKNOWN)
    if kinds and all(k.kind == ReceiverKind.FOREIGN for k in kinds):
        return dataclasses.replace(kinds[0], why=f"`{ast.unparse(expr)}` is assigned in `{cls.name}`: {kinds[0].why}")
    return UNKNOWN


def mock_attribute(file: File, at: At, expr: ast.Attribute) -> Kind:
    """`args.model` where `args` holds a mock and the scope assigns neither `args.model` nor a longer prefix of it:
    a mock too (a mock makes every attribute it is asked for); anything else is unknown."""
    chain: list[ast.Attribute] = []
    root: ast.expr = expr
    while isinstance(root, ast.Attribute):
        chain.append(root)
        root = root.value
    if not isinstance(root, ast.Name) or (found := kind(file, at, root)).kind != ReceiverKind.MOCK:
        return UNKNOWN
    prefixes = {ast.unparse(a) for a in chain}
    for node in statements_walk(scopes(file, at)[0]):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Attribute) and ast.unparse(t) in prefixes for t in targets):
            return UNKNOWN
    return Kind(ReceiverKind.MOCK, f"an attribute of `{root.id}`, which holds {found.why}", found.line)


def kind(file: File, at: At, expr: ast.expr) -> Kind:
    """What `expr` holds (see `checkpointing_migrate.receivers`); the first parameter of a method holds an
    instance of its class (`instance_of`), an attribute of it what the class assigns it (`attribute_kind`), an
    attribute of a mock a mock (`mock_attribute`)."""
    if isinstance(expr, ast.Attribute):
        found = attribute_kind(file, at, expr)
        return found if found.kind != ReceiverKind.UNKNOWN else mock_attribute(file, at, expr)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super" and not expr.args:
        return _super_kind(file, at)
    if isinstance(expr, ast.Name):
        if (cls := instance_of(at, expr.id)) is not None:
            return file.receivers.class_kind(ast.Name(cls.name))
        if expr.id == "self" and not any(isinstance(n, FUNCTIONS) for n, _ in at.chain[:-1]):
            cls = at.enclosing(ast.ClassDef)  # `self` in a class body outside methods: a snippet's shorthand
            return file.receivers.class_kind(ast.Name(cls.name)) if isinstance(cls, ast.ClassDef) else UNKNOWN
    return file.receivers.expr_kind(expr, scopes(file, at))


def _super_kind(file: File, at: At) -> Kind:
    """What `super()` in a method of class `C` reaches: the first base, when it is a transformers model (for an
    instance of any subclass of `C`); a base before it that is not one, or none at all: unknown."""
    cls = at.enclosing(ast.ClassDef)
    bases = cls.bases if isinstance(cls, ast.ClassDef) and instance_of(at, _self_name(at)) is cls else []
    first = file.receivers.class_kind(bases[0]) if bases else UNKNOWN
    if first.kind != ReceiverKind.MODEL:
        return first if first.kind in (ReceiverKind.OVERRIDE, ReceiverKind.UNSURE) else UNKNOWN
    why = codes.shared("super-of", cls=cls.name if isinstance(cls, ast.ClassDef) else "", base=ast.unparse(bases[0]))
    return dataclasses.replace(first, why=why, exact=False)


def _self_name(at: At) -> str:
    """The first parameter of the innermost enclosing function (`self` in a method)."""
    function = next((n for n, _ in reversed(at.chain[:-1]) if isinstance(n, FUNCTIONS)), None)
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return ""
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else ""


def called_on(file: File, node: ast.Attribute, call: ast.Call) -> ast.expr:
    """What the call `call` of the method `node` runs on: `X` of `type(X).old(X, ...)` (the method of X's class, called
    with X: what `X.old(...)` runs, so the same evidence and reason), else the receiver itself."""
    inner = node.value
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id == "type"
        and "type" not in file.receivers.imports
        and "type" not in file.receivers.classes
        and len(inner.args) == 1
        and not inner.keywords
        and call.args
        and ast.dump(call.args[0]) == ast.dump(inner.args[0])
    ):
        return inner.args[0]
    return inner


def receiver_kind(file: File, at: At, receiver: ast.expr) -> Kind:
    """`kind`, made `unsure` when the module swaps the receiver's class (`checkpointing_migrate.receivers.SWAPPERS`) or
    runs other code in its namespace before it (`checkpointing_migrate.python.namespace`)."""
    found = kind(file, at, receiver)
    text = ast.unparse(receiver)
    if found.kind not in (ReceiverKind.MODEL, ReceiverKind.UNKNOWN):
        return found
    how = file.receivers.swapped.get(text) or namespace.ran_before(file, at, receiver)
    return found if how is None else Kind(ReceiverKind.UNSURE, codes.shared("swapped", receiver=text, how=how))


_ARGS_CLASSES = (ReceiverKind.ARGS, ReceiverKind.ARGS_UNSURE, ReceiverKind.MIXIN)


def is_config_class(file: File, node: ast.AST | None) -> bool:
    if not isinstance(node, ast.ClassDef):
        return False
    if names_in_bases(node) & file.config_classes:
        return True
    # `mixin`: training arguments whose keyword the tool keeps (a class that declares a field itself is one).
    return file.receivers.class_kind(ast.Name(node.name)).kind in _ARGS_CLASSES


def config_receiver(file: File, at: At, expr: ast.expr) -> Evidence | None:
    """How strongly the file shows that `expr` holds training arguments; `None`: no sign that it does."""
    if isinstance(expr, ast.Name):
        if expr.id == "self":
            return Evidence.SURE if is_config_class(file, at.enclosing(ast.ClassDef)) else None
        if kind(file, at, expr).kind in _ARGS_CLASSES:
            return Evidence.SURE
        return Evidence.GUESS if expr.id in CONVENTIONAL_ARGS else None
    if isinstance(expr, ast.Attribute) and expr.attr in CONVENTIONAL_ARGS:
        return Evidence.GUESS
    return None


def is_model_class(file: File, expr: ast.expr) -> bool:
    """Whether `expr` names a transformers model class itself (`PreTrainedModel`), not an instance of one."""
    return file.receivers.qualified(expr) is not None and file.receivers.class_kind(expr).kind == ReceiverKind.MODEL


def project_model_class(file: File, expr: ast.expr) -> str | None:
    """The name of the class `expr` names when it is a model class of the project (defined in this module or in a
    project module it is imported from), not of transformers: replacing its old method overrides it. Else `None`."""
    node = file.receivers.class_node(expr)
    if node is None or file.receivers.class_kind(expr).kind not in _MODELS:
        return None
    return node.name


def class_parameter(file: File, at: At, expr: ast.expr) -> str | None:
    """What class `expr` holds when it is the class a function is given, not an instance: the first parameter of
    `__init_subclass__` (each subclass), or of a module function some class of the module is decorated with (the
    decorated class). `None` for anything else."""
    if not isinstance(expr, ast.Name):
        return None
    function = next((n for n, _ in reversed(at.chain[:-1]) if isinstance(n, FUNCTIONS)), None)
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) or _self_name(at) != expr.id:
        return None
    if function.name == "__init_subclass__" and isinstance(cls := at.enclosing(ast.ClassDef), ast.ClassDef):
        return codes.message("instance-override", "init-subclass", cls=cls.name)
    decorates = any(
        any(_is_decorator(d, function.name) for d in c.decorator_list)
        for c in file.receivers.classes.values()
        if c is not None
    )
    if decorates and file.receivers.functions.get(function.name) is function:
        return codes.message("instance-override", "decorated", func=function.name)
    return None


def _is_decorator(decorator: ast.expr, name: str) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(func, ast.Name) and func.id == name


def unsafe(receiver: ast.expr, row: Rename, found: Kind) -> str | None:
    """Why a rename on `receiver` is an unsafe fix (no evidence, or evidence that something else may answer: the
    class's own override of the old name, which the new name calls)."""
    if found.kind == ReceiverKind.UNSURE:
        return found.why
    if found.kind == ReceiverKind.MODEL and row.old in found.defines:
        return codes.shared("defines-too", why=found.why, old=row.old, keywords=NEW_KEYWORDS)
    return no_evidence(receiver, row) if found.kind in (ReceiverKind.UNKNOWN, *DOUBLES) else None


def no_evidence(receiver: ast.expr, row: Rename) -> str:
    return codes.shared("no-evidence", receiver=ast.unparse(receiver), old=row.old, new=row.new)


def before_up_call(file: File, at: At, receiver: ast.expr) -> bool:
    """Whether the node is a use of `self` in the `__post_init__` of a training-arguments class, before its
    `super().__post_init__()`: a write there is no write after construction, since TrainingArguments' own then
    copies the old field to the new one while the new one is unset."""
    func = at.enclosing((ast.FunctionDef, ast.AsyncFunctionDef))
    if not (isinstance(receiver, ast.Name) and receiver.id == "self") or not isinstance(func, FUNCTIONS):
        return False
    if func.name != "__post_init__" or config_receiver(file, at, receiver) is None:
        return False
    line = up_call(func)
    node = at.chain[-1][0]
    return line is not None and getattr(node, "lineno", line) < line


def dead_before(at: At) -> Version | None:
    """V when the current node only runs on transformers older than V (inside `if <older than V>:`)."""
    for (node, _), (_, child_field) in zip(at.chain, at.chain[1:], strict=False):
        if isinstance(node, ast.If) and child_field == "body" and (v := old_release_only(node.test)):
            return v
    return None


NAMESPACE_NAMES = ("args", "opt", "opts", "flags", "hparams", "namespace")
"""Names that conventionally hold a parsed command line (and any `*_args`): what follows one of them in an attribute
chain may be a flag's dest (`strategy.args.actor.<name>` reads `--actor.<name>`)."""


def _conventional(name: str) -> bool:
    return name in NAMESPACE_NAMES or name.endswith("_args")


def _dests(file: File, at: At, node: ast.Attribute) -> list[str]:
    """The flag dests `node` may read, longest first: what follows a conventional name (`args.x` → `x`,
    `strategy.args.actor.x` → `actor.x`), a dotted rest of the chain unless its root is a method's own instance
    (`cfg.model.x` → `model.x`, but not `self.model.x`), and the bare name on a namespace `parse_args()` returned."""
    parts = [node.attr]
    inner: ast.expr = node.value
    while isinstance(inner, ast.Attribute):
        parts.insert(0, inner.attr)
        inner = inner.value
    root = inner.id if isinstance(inner, ast.Name) else ""
    before = [root, *parts[:-1]]  # before[i] is the name right before parts[i:]
    found = [
        ".".join(parts[i:])
        for i in range(len(parts))
        if _conventional(before[i]) or (i == 0 and len(parts) > 1 and instance_of(at, root) is None)
    ]
    if node.attr not in found and kind(file, at, node.value).kind == ReceiverKind.NAMESPACE:
        found.append(node.attr)
    return found


def own_flag(file: File, at: At, node: ast.Attribute) -> Declared | None:
    """The `add_argument` of the flag `node` reads (`args.model.gradient_checkpointing_enable`, `--model.…`) when the
    project's own parser declares it: in this text, else in any Python file of the project (`argflags`). Never for
    a receiver with evidence that it is a transformers model."""
    wanted = _dests(file, at, node)
    if not wanted or kind(file, at, node.value).kind in _MODELS:
        return None
    declared = file.own_dests
    if not any(d in declared for d in wanted) and file.base is not None:
        from checkpointing_migrate.argflags import Parsers  # the project's other files: only for such a use

        declared = file.options.memo.once(Parsers, Parsers).declared(file.base, file.member_names)[1]
    return next((declared[d] for d in wanted if d in declared), None)


def flag_note(file: File, at: At, node: ast.Attribute) -> str:
    """Where `own_flag` looked, for a use on a conventional name or a namespace (`args.critic.x`) whose flag it did
    not find: `""` for any other (`trainer.model.x` is no more likely a flag than a method)."""
    chain = ast.unparse(node.value).replace("(", ".").split(".")
    namespace = any(_conventional(n) for n in chain) or kind(file, at, node.value).kind == ReceiverKind.NAMESPACE
    wanted = _dests(file, at, node)
    if not (wanted and namespace) or kind(file, at, node.value).kind in _MODELS:
        return ""
    from checkpointing_migrate.project import project_folder

    where = f"`{project_folder(file.base)[0].name}/`" if file.base is not None else "this text"
    dest = min(wanted, key=len)
    return codes.message("reference", "flag-note", receiver=ast.unparse(node.value), dest=dest, where=where)
