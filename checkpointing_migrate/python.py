"""Python sources: find the renamed names where the syntax says what they are, and rewrite only those.

Two passes keep this fast enough for a whole library tree: a lexical pass (`checkpointing_migrate.pylex`) looks for the
rules' names as whole words, and only a file with one is parsed with `ast`, visiting only the statements on those
lines. Each rule (a `_Walk` check) is decided from the syntax alone: the tool does not import or run the code.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
from pathlib import Path

from packaging.version import InvalidVersion, Version

from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import Hit, Options, hazard, info, planned_hit, rename
from checkpointing_migrate.pylex import (
    CONVENTIONAL_ARGS,
    Source,
    candidate_lines,
    config_subclasses,
    declared_fields,
    identifiers,
)
from checkpointing_migrate.receivers import NEW_KEYWORDS, UNKNOWN, Kind, Receivers, narrow_override

__all__ = ["Source", "analyse", "context_of", "identifiers"]
from checkpointing_migrate.table import Rename, field_name

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = node.args
    return {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}


def _up_call(call: ast.Call, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`Base.method(self, ...)` inside `method`: a call through a class name with the method's own first parameter."""
    positional = [*method.args.posonlyargs, *method.args.args]
    return (
        isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, (ast.Name, ast.Attribute))
        and bool(call.args and positional)
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == positional[0].arg
    )


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _names_in(node: ast.AST | None) -> set[str]:
    return (
        {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        | {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if node is not None
        else set()
    )


def _old_release_only(test: ast.expr) -> Version | None:
    """The version V when `test` holds only on transformers releases older than V (a version-gated block)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Lt, ast.LtE)):
            left, right = ast.unparse(node.left), node.comparators[0]
            texts = [c.value for c in ast.walk(right) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            if "version" in left.lower() and "transformers" in left and texts:
                return _version(texts[0])
        if (
            isinstance(node, ast.Call)
            and (_callee(node) or "").endswith("is_transformers_version")
            and len(node.args) == 2
        ):
            op, ver = node.args
            if isinstance(op, ast.Constant) and op.value in ("<", "<=") and isinstance(ver, ast.Constant):
                return _version(str(ver.value))
    return None


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


class _Walk:
    """Visits the statements on candidate lines, keeping the chain of (node, field) that leads to each node."""

    def __init__(
        self,
        source: Source,
        tree: ast.Module,
        lines: list[int],
        options: Options,
        context: ast.Module | None = None,
        base: Path | None = None,
    ) -> None:
        self.source, self.tree, self.lines, self.options = source, tree, lines, options
        self.context, self.base = context, base
        self.rules = options.rules
        text = source.text
        self.config_classes = self.rules.config_classes | config_subclasses(text, self.rules.config_classes)
        self.shared = {
            name
            for name, libs in self.rules.shared.items()
            if options.package in libs
            or any(
                lib in text and re.search(rf"^[ \t]*(?:from|import)[ \t]+{re.escape(lib)}\b", text, re.MULTILINE)
                for lib in libs
            )
        }
        self.uses_parser = any(p in text for p in self.rules.parsers)
        flags = [*self.rules.flags, *(n for n in self.rules.planned if n.startswith("--"))]
        self.flag_pattern = re.compile(
            "|".join(rf"(?<![\w-]){re.escape(f)}(?![\w-])" for f in sorted(flags, key=len, reverse=True))
        )
        self.own_flags = {
            f for f in flags if f in text and re.search(rf"add_argument\([^)]*[\"']{re.escape(f)}[\"']", text)
        }
        self.own_fields = {f for f in flags if declared_fields(text, f)}
        self.stack: list[tuple[ast.AST, str]] = []
        self.hits: list[Hit] = []
        self.handled: set[int] = set()
        self._receivers: Receivers | None = None

    # --- traversal ---------------------------------------------------------------------------------------------------

    def run(self) -> list[Hit]:
        self._visit(self.tree)
        return self.hits

    def _touches(self, first: int, last: int | None) -> bool:
        i = bisect.bisect_left(self.lines, first)
        return i < len(self.lines) and self.lines[i] <= (last or first)

    def _visit(self, node: ast.AST) -> None:
        for name, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else (value,):
                if not isinstance(child, ast.AST):
                    continue
                first = getattr(child, "lineno", None)
                if first is not None and not self._touches(first, getattr(child, "end_lineno", None)):
                    continue
                self.stack.append((child, name))
                self._check(child)
                self._visit(child)
                self.stack.pop()

    def _parent(self, up: int = 1) -> tuple[ast.AST | None, str]:
        return self.stack[-1 - up] if len(self.stack) > up else (None, "")

    def _enclosing(self, kind: type | tuple[type, ...]) -> ast.AST | None:
        for node, _ in reversed(self.stack[:-1]):
            if isinstance(node, kind):
                return node
        return None

    # --- positions ---------------------------------------------------------------------------------------------------

    def _at(self, line: int, col: int) -> int:
        return self.source.offset(line, col)

    def _attr_start(self, node: ast.Attribute) -> int:
        return self._at(node.end_lineno or node.lineno, node.end_col_offset or 0) - len(node.attr)

    def _edit(self, start: int, old: str, new: str) -> Edit:
        return Edit(start, start + len(old), new)

    # --- what a receiver is ------------------------------------------------------------------------------------------

    @property
    def receivers(self) -> Receivers:
        """The module's evidence about what names hold (built from the whole tree the first time a rule asks)."""
        if self._receivers is None:
            self._receivers = Receivers(self.context or self.tree, self.rules, self.base)
        return self._receivers

    def _scopes(self) -> list[ast.AST]:
        """The enclosing functions and lambdas, innermost first, then the module."""
        functions = [n for n, _ in reversed(self.stack[:-1]) if isinstance(n, _FUNCTIONS)]
        return [*functions, self.receivers.module]

    def _instance_of(self, name: str) -> ast.ClassDef | None:
        """The class whose instance `name` is, when it is the first parameter of a method (whatever its name; not of
        a static method, a nested function or a lambda)."""
        for (node, _), (outer, _) in zip(reversed(self.stack[1:-1]), reversed(self.stack[:-2]), strict=False):
            if not isinstance(node, _FUNCTIONS) or name not in _parameters(node):
                continue
            if isinstance(node, ast.Lambda) or not isinstance(outer, ast.ClassDef):
                return None
            decorators = {ast.unparse(d) for d in node.decorator_list}
            positional = [*node.args.posonlyargs, *node.args.args]
            if not decorators & {"staticmethod", "classmethod"} and positional and positional[0].arg == name:
                return outer
            return None
        return None

    def _attribute_kind(self, expr: ast.Attribute) -> Kind:
        """`self.vision` where every method of the class assigns `self.vision` an object of another library or a
        project class that is not a transformers one: that (evidence against only; anything else is unknown)."""
        cls = self._instance_of(expr.value.id) if isinstance(expr.value, ast.Name) else None
        if cls is None:
            return UNKNOWN
        kinds = []
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            me = method.args.args[0].arg
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == expr.attr and ast.unparse(t.value) == me
                    for t in node.targets
                ):
                    # Built there (`Tower()`), not passed in: a parameter annotated `nn.Module` may hold a model.
                    built = isinstance(node.value, ast.Call)
                    kinds.append(
                        self.receivers.expr_kind(node.value, [method, self.receivers.module]) if built else UNKNOWN
                    )
        if kinds and all(k.kind == "foreign" for k in kinds):
            return dataclasses.replace(
                kinds[0], why=f"`{ast.unparse(expr)}` is assigned in `{cls.name}`: {kinds[0].why}"
            )
        return UNKNOWN

    def _kind(self, expr: ast.expr) -> Kind:
        """What `expr` holds (see `checkpointing_migrate.receivers`); the first parameter of a method holds an
        instance of its class (`_instance_of`), an attribute of it what the class assigns it (`_attribute_kind`)."""
        if isinstance(expr, ast.Attribute):
            return self._attribute_kind(expr)
        if isinstance(expr, ast.Name):
            if (cls := self._instance_of(expr.id)) is not None:
                return self.receivers.class_kind(ast.Name(cls.name))
            if expr.id == "self" and not any(isinstance(n, _FUNCTIONS) for n, _ in self.stack[:-1]):
                cls = self._enclosing(ast.ClassDef)  # `self` in a class body outside methods: a snippet's shorthand
                return self.receivers.class_kind(ast.Name(cls.name)) if isinstance(cls, ast.ClassDef) else UNKNOWN
        return self.receivers.expr_kind(expr, self._scopes())

    def _is_config_class(self, node: ast.AST | None) -> bool:
        if not isinstance(node, ast.ClassDef):
            return False
        if _names_in_bases(node) & self.config_classes:
            return True
        return self.receivers.class_kind(ast.Name(node.name)).kind in ("args", "args-unsure")

    def _config_receiver(self, expr: ast.expr) -> str | None:
        """`sure` or `guess` when `expr` holds training arguments, else `None`."""
        if isinstance(expr, ast.Name):
            if expr.id == "self":
                return "sure" if self._is_config_class(self._enclosing(ast.ClassDef)) else None
            if self._kind(expr).kind in ("args", "args-unsure", "mixin"):
                return "sure"
            return "guess" if expr.id in CONVENTIONAL_ARGS else None
        if isinstance(expr, ast.Attribute) and expr.attr in CONVENTIONAL_ARGS:
            return "guess"
        return None

    def _model_verdict(
        self, receiver: ast.expr, row: Rename, start: int, edits: tuple[Edit, ...], what: str, section: str
    ) -> Hit:
        """The verdict on renaming a model method or property used on `receiver`, from the evidence about it.

        By what the module shows `receiver` holds (`checkpointing_migrate.receivers`): a transformers model → a safe fix;
        no evidence either way → an unsafe fix (applied only with `--unsafe-fixes`); another library's object or a
        project class that defines the name → `info`; a model class whose override the new name cannot call, or an
        instance whose old method was replaced → a hazard.
        """
        text = ast.unparse(receiver)
        kind = self._receiver_kind(receiver)
        if (text, row.old) in self.receivers.replaced:
            why = (
                f"`{text}.{row.old}` is replaced on the instance in this file: since transformers {row.since} the new "
                f"name calls that function{self._new_keywords(row)}, a TypeError unless it accepts them (measured); keep "
                f"the old name until the replacement wraps `{row.new}` instead"
            )
            return hazard(row, start, code="replaced-method", what=f"{what}: not rewritten, {why}", section="model")
        if kind.kind == "override":
            why = (
                f"{kind.why}: since transformers {row.since}, `{self._new_enable()}()` (which the Trainer calls) calls "
                f"such an override with {NEW_KEYWORDS} and raises TypeError (measured), so renaming "
                f"calls on it breaks them; give the override `**kwargs`, or override the new name"
            )
            if self.rules.members[kind.overridden].kind == "property":
                why = f"{kind.why}: reading `{row.new}` would skip the override; override the new name first"
            return hazard(row, start, code="narrow-override", what=f"{what}: not rewritten, {why}", section="model")
        unsafe = self._unsafe(receiver, row, kind)
        if kind.kind in ("model", "unknown", "unsure") and row.kind == "property":
            return rename(row, start, edits, self.options, code="property", what=what, section=section, unsafe=unsafe)
        if kind.kind in ("model", "unknown", "unsure"):
            return rename(row, start, edits, self.options, code="call", what=what, section=section, unsafe=unsafe)
        why = kind.why if kind.kind == "foreign" else f"it holds training arguments: {kind.why}"
        message = f"{what} on `{text}`, which is not a transformers model ({why}): its `{row.old}` is not the deprecated one, so it is not rewritten"
        return info(row, start, code="not-transformers", what=message, section="library")

    def _receiver_kind(self, receiver: ast.expr) -> Kind:
        """`_kind`, made `unsure` when the module swaps the receiver's class (`checkpointing_migrate.receivers.SWAPPERS`)."""
        kind = self._kind(receiver)
        text = ast.unparse(receiver)
        if kind.kind in ("model", "unknown") and text in self.receivers.swapped:
            return Kind("unsure", f"`{text}` is not only what it was built as: {self.receivers.swapped[text]}")
        return kind

    def _unsafe(self, receiver: ast.expr, row: Rename, kind: Kind) -> str | None:
        """Why a rename on `receiver` is an unsafe fix (no evidence, or evidence that something else may answer)."""
        if kind.kind == "unsure":
            return kind.why
        return self._no_evidence(receiver, row) if kind.kind == "unknown" else None

    def _is_model_class(self, expr: ast.expr) -> bool:
        """Whether `expr` names a transformers model class itself (`PreTrainedModel`), not an instance of one."""
        return self.receivers.qualified(expr) is not None and self.receivers.class_kind(expr).kind == "model"

    def _no_evidence(self, receiver: ast.expr, row: Rename) -> str:
        return f"nothing in this file shows that `{ast.unparse(receiver)}` is a transformers model (another library's `{row.old}` has no `{row.new}`)"

    def _takes(self, row: Rename) -> str:
        new = [k.new for k in self.rules.member_kwargs.get(row.old, {}).values()]
        return f" (it takes {', '.join(f'`{n}`' for n in new)})" if new else ""

    def _new_keywords(self, row: Rename) -> str:
        return f" with {NEW_KEYWORDS}" if row.old == self.receivers.enable else ""

    def _new_enable(self) -> str:
        return self.rules.members[self.receivers.enable].new if self.receivers.enable in self.rules.members else ""

    def _dead_before(self) -> Version | None:
        """V when the current node only runs on transformers older than V (inside `if <older than V>:`)."""
        for (node, _), (_, child_field) in zip(self.stack, self.stack[1:], strict=False):
            if isinstance(node, ast.If) and child_field == "body" and (v := _old_release_only(node.test)):
                return v
        return None

    # --- checks ------------------------------------------------------------------------------------------------------

    def _check(self, node: ast.AST) -> None:
        rules = self.rules
        if isinstance(node, ast.Attribute):
            if node.attr in rules.members:
                self._member(node)
            elif node.attr in rules.fields:
                self._field_attribute(node)
            elif self.options.planned and node.attr in rules.planned:
                self.hits.append(planned_hit(rules.planned[node.attr], self._attr_start(node), node.attr))
        elif isinstance(node, ast.keyword) and node.arg is not None:
            self._keyword(node)
        elif isinstance(node, ast.keyword):
            self._unpacked_dict(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._definition(node)
        elif isinstance(node, ast.AnnAssign):
            self._declaration(node)
        elif isinstance(node, ast.Call):
            self._string_lookup(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "--" in node.value:
            if not isinstance(self._parent()[0], ast.Expr):  # a docstring or a bare string is prose
                self._flags(node)
        elif self.options.planned and isinstance(node, ast.Name) and node.id in rules.planned:
            self.hits.append(planned_hit(rules.planned[node.id], self._at(node.lineno, node.col_offset), node.id))
        elif self.options.planned and isinstance(node, ast.alias) and node.name.split(".")[-1] in rules.planned:
            name = node.name.split(".")[-1]
            start = self.source.text.find(name, self._at(node.lineno, node.col_offset))
            self.hits.append(planned_hit(rules.planned[name], start, name))

    def _member(self, node: ast.Attribute) -> None:
        """`x.old_method(...)` (with the method's renamed keyword in the same call) or `x.old_property`: see
        `_model_verdict`. Never rewritten when the call unpacks `**kwargs` (they may hold the old keyword, which the new
        method refuses), inside an override of the old method calling `super()`, or, without evidence, in a file that
        imports a library whose own API has the same name (diffusers' `is_gradient_checkpointing` is not deprecated).
        A method reference without a call, or assigning a function to the old method on an instance: hazards."""
        row = self.rules.members[node.attr]
        start = self._attr_start(node)
        parent, _ = self._parent()
        section = "model" if self._enclosing(ast.ClassDef) else "script"
        if isinstance(node.ctx, ast.Store) and self._is_model_class(node.value):
            self._class_patch(row, start, f"{ast.unparse(node.value)}.{node.attr}")
            return
        if isinstance(node.ctx, ast.Store):
            what = f"assigns to `{node.attr}` on an instance: the function replaces the deprecated method and stays the entry point until {row.removal or 'the old name is removed'} (it runs, and warns, when `{row.new}` is called{self._new_keywords(row)}, so it must accept them); wrap `{row.new}` instead"
            self.hits.append(hazard(row, start, code="instance-override", what=what, section="model"))
            return
        if node.attr in self.shared and self._kind(node.value).kind not in ("model", "override", "foreign"):
            libs = ", ".join(self.rules.shared[node.attr])
            what = f"`{node.attr}` is also the (not deprecated) name in {libs}, which this file imports: rename it only where the object is a transformers model"
            self.hits.append(hazard(row, start, code="shared-name", what=what, section="library"))
            return
        if not (isinstance(parent, ast.Call) and parent.func is node):
            if row.kind == "property":
                self.hits.append(
                    self._model_verdict(
                        node.value, row, start, (self._edit(start, row.old, row.new),), f"reads `{row.old}`", section
                    )
                )
            else:
                what = f"refers to `{row.old}` without calling it (silent now, an AttributeError in {row.removal}); `{row.new}` has a different signature{self._takes(row)}, so check what the reference is used for"
                self.hits.append(hazard(row, start, code="reference", what=what, section="library"))
            return
        call = parent
        function = self._enclosing((ast.FunctionDef, ast.AsyncFunctionDef))
        receiver = node.value
        if (
            function is not None
            and function.name in self.rules.members
            and isinstance(self._enclosing(ast.ClassDef), ast.ClassDef)
            and (
                (isinstance(receiver, ast.Call) and _callee(receiver) == "super")
                # `LlamaForCausalLM.gradient_checkpointing_enable(self, ...)`: the up-call by the base's name. Renamed
                # inside the override, the new method calls the override again: a RecursionError (measured).
                or _up_call(call, function)
            )
        ):
            return  # part of an override, reported at its `def`
        old_kwargs = self.rules.member_kwargs.get(node.attr, {})
        kwargs = [k for k in call.keywords if k.arg in old_kwargs]
        self.handled.update(id(k) for k in kwargs)
        if any(k.arg is None for k in call.keywords) and old_kwargs:
            what = f"calls `{row.old}` with `**` unpacking, which may pass `{next(iter(old_kwargs))}`: `{row.new}` accepts only `{next(iter(old_kwargs.values())).new}`"
            self.hits.append(hazard(row, start, code="kwargs-unpacked", what=what, section="library"))
            for k in kwargs:
                hit = hazard(
                    old_kwargs[k.arg],
                    self._at(k.lineno, k.col_offset),
                    code="kwargs-unpacked",
                    what=what,
                    section="library",
                )
                self.hits.append(dataclasses.replace(hit, via=node.attr))
            return
        given = {k.arg for k in call.keywords}
        if both := [k for k in kwargs if old_kwargs[k.arg or ""].new in given]:
            krow = old_kwargs[both[0].arg or ""]  # renamed, the keyword would be given twice: a SyntaxError
            what = f"passes both `{krow.old}=` and `{krow.new}=` to `{row.old}()`: it raises TypeError (the old one is passed on under the new name, which is then given twice); remove one"
            self.hits.append(
                hazard(
                    krow, self._at(both[0].lineno, both[0].col_offset), code="both-names", what=what, section="pitfalls"
                )
            )
            return
        edits = [self._edit(start, row.old, row.new)]
        for k in kwargs:
            krow = old_kwargs[k.arg or ""]
            edits.append(self._edit(self._at(k.lineno, k.col_offset), krow.old, krow.new))
        verdict = self._model_verdict(receiver, row, start, tuple(edits), f"calls `{row.old}()`", section)
        self.hits.append(verdict)
        if verdict.severity != "fix":
            return
        unsafe = self._unsafe(receiver, row, self._receiver_kind(receiver))
        for k, edit in zip(kwargs, edits[1:], strict=True):
            krow = old_kwargs[k.arg or ""]
            hit = rename(
                krow,
                edit.start,
                (),
                self.options,
                code="keyword",
                section=section,
                unsafe=unsafe,
                what=f"passes `{krow.old}=` to `{row.old}()` (renamed with it)",
            )
            self.hits.append(dataclasses.replace(hit, via=node.attr))

    def _class_patch(self, row: Rename, start: int, patched: str) -> None:
        """The old method replaced on a transformers class (`X.old = fn`, `setattr(X, "old", fn)`)."""
        what = (
            f"replaces `{patched}` on the class: `{row.new}` does not go through the "
            f"replacement, so a call renamed to `{row.new}`, in any file, would skip it; patch `{row.new}` too, "
            f"then rename the calls (until then the calls of `{row.old}` in the files checked with this one are not rewritten)"
        )
        self.hits.append(hazard(row, start, code="class-patch", what=what, section="model"))

    def _field_attribute(self, node: ast.Attribute) -> None:
        """`.old_field` on something surely training arguments (`self` in such a class, a parameter annotated with one,
        a name assigned from a constructor call in the same function) or conventionally named so (`args`,
        `training_args`, `self.args`): a write is a hazard unless it only runs on releases older than the rename; a read
        is `info`. Any other `.gradient_checkpointing` is modeling code's per-module flag or a config's key: not
        touched."""
        row = self.rules.fields[node.attr]
        kind = self._config_receiver(node.value)
        start = self._attr_start(node)
        if kind is None:
            if self.options.planned and node.attr in self.rules.planned:
                self.hits.append(planned_hit(self.rules.planned[node.attr], start, node.attr))
            return
        receiver = ast.unparse(node.value)
        maybe = "" if kind == "sure" else f" (if `{receiver}` is TrainingArguments)"
        parent, _ = self._parent()
        store = isinstance(node.ctx, ast.Store) or (isinstance(parent, ast.AugAssign) and parent.target is node)
        if store:
            dead = self._dead_before()
            if dead is not None and row.since and dead <= Version(row.since):
                what = f"writes `{receiver}.{row.old}` only on transformers older than {dead}, where the old field is the real one: nothing to change until that branch goes"
                self.hits.append(info(row, start, code="dead-write", what=what, section="pitfalls", new=row.new))
                return
        self._field_use(row, start, (f"`{receiver}.{row.old}`", f"`{receiver}.{row.new}`"), maybe, store)

    def _field_use(self, row: Rename, start: int, names: tuple[str, str], maybe: str, store: bool) -> None:
        """A write to the old field after construction (ignored since the rename), or a read (a silent mirror).

        `names`: how the code spells the old field, and what to write instead.
        """
        used, instead = names
        if store:
            what = f"writes {used} after construction{maybe}: since transformers {row.since} the Trainer reads `{row.new}` and this write is ignored; write {instead} (releases ≥ {row.since})"
            self.hits.append(hazard(row, start, code="write", what=what, section="pitfalls"))
        else:
            what = f"reads {used}{maybe}: a silent mirror of `{row.new}` since transformers {row.since} (a write to the old field is not mirrored), removed in {row.removal}"
            self.hits.append(info(row, start, code="read", what=what, section="pitfalls", new=row.new))

    def _keyword(self, node: ast.keyword) -> None:
        """Keywords of calls to `TrainingArguments` or a known subclass (measured: TRL's configs,
        `Seq2SeqTrainingArguments`, and project classes that subclass one of them), imported under any name, and of
        `.set_training(...)`, are rewritten; a class of that name not imported from transformers/TRL: unsafe.
        Hazards: the new keyword passed too, `**mapping` unpacked too, a mixin base declaring the old field,
        `dataclasses.replace` (which ignores the old field since the rename)."""
        arg = node.arg or ""
        rules = self.rules
        if id(node) in self.handled:
            return
        parent, _ = self._parent()
        if not isinstance(parent, ast.Call):
            return
        callee = _callee(parent) or "?"
        start = self._at(node.lineno, node.col_offset)
        row: Rename | None = None
        what = ""
        unsafe: str | None = None
        if callee in rules.member_kwargs and arg in rules.member_kwargs[callee]:
            if callee in rules.members:
                return  # renamed together with the method call
            if any(k.arg == rules.member_kwargs[callee][arg].new for k in parent.keywords):
                row = rules.member_kwargs[callee][arg]  # renamed, the keyword would be given twice: a SyntaxError
                what = f"passes both `{row.old}=` and `{row.new}=` to `{callee}()`, which takes only the new one: it raises TypeError; remove `{row.old}=`"
                self.hits.append(hazard(row, start, code="both-names", what=what, section="pitfalls"))
                return
            row, what, section = (
                rules.member_kwargs[callee][arg],
                f"passes `{arg}=` to `{callee}()`, which takes only the new keyword",
                "script",
            )
            if isinstance(parent.func, ast.Attribute):
                self.hits.append(
                    self._model_verdict(
                        parent.func.value, row, start, (self._edit(start, row.old, row.new),), what, section
                    )
                )
                return
        elif callee in rules.method_kwargs and arg in rules.method_kwargs[callee]:
            row, what, section = rules.method_kwargs[callee][arg], f"passes `{arg}=` to `{callee}()`", "config"
            kind = self._kind(parent.func.value) if isinstance(parent.func, ast.Attribute) else UNKNOWN
            if kind.kind == "foreign":
                what = f"passes `{arg}=` to `{callee}()` of an object that is not training arguments ({kind.why}): not rewritten"
                self.hits.append(info(row, start, code="not-transformers", what=what, section="config"))
                return
        elif arg in rules.fields and self._is_replace(parent):
            row = rules.fields[arg]
            copied = ast.unparse(parent.args[0]) if parent.args else "..."
            what = (
                f"`{callee}({copied}, {arg}=...)` is silently ignored on transformers ≥ {row.since} (measured): the copy keeps "
                f"`{row.new}` from `{copied}`; pass `{row.new}=` (or both names while releases before {row.since} are supported)"
            )
            self.hits.append(hazard(row, start, code="replace", what=what, section="pitfalls"))
            return
        elif arg in rules.fields:
            kind = self.receivers.class_kind(parent.func)
            row, what, section = rules.fields[arg], f"passes `{arg}=` to `{callee}`", "config"
            if kind.kind == "mixin":
                what = (
                    f"passes `{arg}=` to `{callee}`, but {kind.why} (line {kind.line}): renaming it here leaves that field at "
                    f"its default, so code that reads it (e.g. before TrainingArguments' `__post_init__`) sees another "
                    f"value; rename the mixin's field and its reads together"
                )
                self.hits.append(hazard(row, start, code="mixin-field", what=what, section="pitfalls"))
                return
            if kind.kind == "foreign":
                what = f"passes `{arg}=` to `{callee}`, which is not training arguments ({kind.why}): not rewritten"
                self.hits.append(info(row, start, code="not-transformers", what=what, section="config"))
                return
            if kind.kind == "args-unsure":
                unsafe = kind.why
            elif kind.kind != "args":
                if callee not in self.config_classes:
                    row = None
                else:
                    unsafe = f"`{callee}` is not imported from transformers or trl in this file (it may be another class of that name)"
        if row is None:
            known = rules.fields.get(arg) or next((kw[arg] for kw in rules.member_kwargs.values() if arg in kw), None)
            if known is not None:
                what = f"keyword `{arg}=` of `{callee}(...)`, which is not TrainingArguments, a known subclass or a model method: not rewritten"
                self.hits.append(info(known, start, code="unknown-callee", what=what, section="config"))
            elif self.options.planned and arg in rules.planned:
                self.hits.append(planned_hit(rules.planned[arg], start, arg))
            return
        if any(k.arg == row.new for k in parent.keywords):
            # Measured (`code_effects.FORMS["both-names", …]`): the constructor keeps the new value, `set_training` the
            # old one (and warns), the old method gets the keyword twice.
            if row.kind != "argument":
                outcome = "the new one wins and the old value is dropped without a word"
            elif row.owner.endswith(".set_training"):
                outcome = "it keeps the old value (and warns) and drops the new one"
            else:
                outcome = "it raises TypeError (the old one is passed on under the new name, which is then given twice)"
            what = f"passes both `{row.old}=` and `{row.new}=` to `{callee}`: {outcome}; remove one"
            hit = hazard(row, start, code="both-names", what=what, section="pitfalls")
        elif any(k.arg is None for k in parent.keywords):
            what = f"passes `{row.old}=` to `{callee}` next to `**` unpacking, which may set `{row.new}` too (then the new one wins, or the rename makes it a duplicate keyword)"
            hit = hazard(row, start, code="kwargs-unpacked", what=what, section="config")
        else:
            hit = rename(
                row,
                start,
                (self._edit(start, row.old, row.new),),
                self.options,
                code="keyword",
                what=what,
                section=section,
                unsafe=unsafe,
            )
        self.hits.append(dataclasses.replace(hit, via=callee))

    def _is_replace(self, call: ast.Call) -> bool:
        """`dataclasses.replace(x, ...)` (under any import) on something that holds training arguments."""
        name = self.receivers.qualified(call.func)
        if name != "dataclasses.replace" and not (name is None and _callee(call) == "replace"):
            return False
        return bool(call.args) and self._config_receiver(call.args[0]) is not None

    def _unpacked_dict(self, node: ast.keyword) -> None:
        """`Config(**{"old": value})`: the old field as a key of a dict literal unpacked into a constructor (the same
        rules as `_keyword`)."""
        parent, _ = self._parent()
        if not (isinstance(parent, ast.Call) and isinstance(node.value, ast.Dict)):
            return
        kind = self.receivers.class_kind(parent.func)
        callee = _callee(parent) or "?"
        if kind.kind not in ("args", "args-unsure", "mixin") and callee not in self.config_classes:
            return
        mapping = node.value
        if kind.kind == "foreign":
            for key in mapping.keys:
                if isinstance(key, ast.Constant) and key.value in self.rules.fields:
                    what = f"passes `{key.value}` to `{callee}`, which is not training arguments ({kind.why}): not rewritten"
                    self.hits.append(
                        info(
                            self.rules.fields[key.value],
                            self._at(key.lineno, key.col_offset) + 1,
                            code="not-transformers",
                            what=what,
                            section="config",
                        )
                    )
            return
        keys = {k.value for k in mapping.keys if isinstance(k, ast.Constant)} | {
            k.arg for k in parent.keywords if k.arg
        }
        for key in mapping.keys:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value in self.rules.fields):
                continue
            row = self.rules.fields[key.value]
            start = self._at(key.lineno, key.col_offset) + 1
            spelled = self.source.text[start - 1 : start + len(row.old) + 1]
            if row.new in keys:
                what = f"passes both `{row.old}` and `{row.new}` to `{callee}`: the new one wins and the old value is dropped without a word; remove one"
                self.hits.append(hazard(row, start, code="both-names", what=what, section="pitfalls"))
            elif None in mapping.keys or sum(1 for k in parent.keywords if k.arg is None) > 1:
                unpacked = (
                    ", ".join(ast.unparse(v) for k, v in zip(mapping.keys, mapping.values, strict=True) if k is None)
                    or "another mapping"
                )
                what = (
                    f"passes `{row.old}` to `{callee}` in a dict that also unpacks {unpacked}, which may hold `{row.new}` "
                    f"(`to_dict()` does): then the new one wins and this value is dropped without a word; set `{row.new}` instead"
                )
                self.hits.append(hazard(row, start, code="kwargs-unpacked", what=what, section="config"))
            elif spelled[0] not in "'\"" or spelled[1:-1] != row.old or spelled[-1] != spelled[0]:
                what = f"passes `{row.old}` to `{callee}` as a dict key spelled with escapes or prefixes: rename it by hand"
                self.hits.append(info(row, start, code="dict-key", what=what, section="config", new=row.new))
            else:
                unsafe = kind.why if kind.kind == "args-unsure" else None
                if kind.kind not in ("args", "args-unsure"):
                    unsafe = f"`{callee}` is not imported from transformers or trl in this file (it may be another class of that name)"
                if kind.kind == "mixin":
                    what = f"passes `{row.old}` to `{callee}`, but {kind.why} (line {kind.line}): rename the mixin's field and its reads together"
                    self.hits.append(hazard(row, start, code="mixin-field", what=what, section="pitfalls"))
                    continue
                what = f"passes `{row.old}` to `{callee}` through `**{{...}}`"
                self.hits.append(
                    rename(
                        row,
                        start,
                        (self._edit(start, row.old, row.new),),
                        self.options,
                        code="dict-key",
                        what=what,
                        section="config",
                        unsafe=unsafe,
                    )
                )

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Defining the old method in a class: a hazard."""
        if node.name not in self.rules.members or not isinstance(self._parent()[0], ast.ClassDef):
            if self.options.planned and node.name in self.rules.planned:
                self.hits.append(planned_hit(self.rules.planned[node.name], self._def_name(node), node.name))
            return
        row = self.rules.members[node.name]
        cls = self._parent()[0]
        assert isinstance(cls, ast.ClassDef)
        if node.name in self.shared:
            libs = ", ".join(self.rules.shared[node.name])
            what = f"class `{cls.name}` defines `{node.name}`, also the (not deprecated) name in {libs}: check which API this class implements"
            self.hits.append(hazard(row, self._def_name(node), code="shared-name", what=what, section="library"))
            return
        kind = self.receivers.class_kind(ast.Name(cls.name))
        caller = self.rules.callers.get(node.name)
        defines_new = any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == row.new for s in cls.body
        )
        trainer_calls = caller is not None and caller.warning is not None and not defines_new
        if kind.kind == "foreign" and not trainer_calls:
            what = f"{kind.why}, not a transformers model: its own `{row.old}` is not the deprecated method, so nothing is renamed"
            self.hits.append(info(row, self._def_name(node), code="not-transformers", what=what, section="model"))
            return
        # A class outside transformers is called by the Trainer's fallback, not by `activation_checkpointing_enable`.
        narrow = (
            narrow_override(node, node.name) if node.name == self.receivers.enable and kind.kind != "foreign" else None
        )
        if narrow is not None:
            what = (
                f"class `{cls.name}` overrides `{row.old}`, which {narrow}: since transformers {row.since}, `{row.new}()` "
                f"(which the Trainer calls) calls the override with {NEW_KEYWORDS}, which raises TypeError "
                f"(measured); add `**kwargs` (passing them up), or override `{row.new}` instead"
            )
            self.hits.append(hazard(row, self._def_name(node), code="narrow-override", what=what, section="model"))
            return
        if kind.kind == "foreign":
            what = f"{kind.why} (not a transformers model), and has no `{row.new}`"
        else:
            what = f"class `{cls.name}` overrides `{row.old}`: it stays the entry point until {row.removal} (`{row.new}` calls it, and it warns when it calls up); override `{row.new}` instead"
        if trainer_calls:
            assert caller is not None and caller.warning is not None
            who = caller.owned.head
            inherits = (
                ""
                if kind.kind == "foreign"
                else f"if `{cls.name}` does not inherit `{row.new}` (it is not a `{row.owner}`), "
            )
            refuses = (
                narrow_override(node, node.name)
                if kind.kind == "foreign" and node.name == self.receivers.enable
                else None
            )
            if refuses is not None:
                # Measured (trainer.py's fallback): the call passes the new keywords, so this raises already.
                what += (
                    f"; {inherits}the {who} warns `{caller.warning.category}: {caller.warning.text_for(cls.name)}` and "
                    f"calls it with {NEW_KEYWORDS}, but it {refuses}: a TypeError on transformers ≥ {row.since}, not "
                    f"something that keeps working until {caller.removal}; define `{row.new}`, or add `**kwargs`"
                )
            else:
                what += (
                    f"; {inherits}the {who} warns `{caller.warning.category}: {caller.warning.text_for(cls.name)}` and "
                    f"calls it (with {NEW_KEYWORDS}) until {caller.removal}; define `{row.new}` as well"
                )
        hit = hazard(row, self._def_name(node), code="override", what=what, section="model")
        self.hits.append(dataclasses.replace(hit, via=cls.name) if trainer_calls else hit)

    def _def_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
        start = self._at(node.lineno, node.col_offset)
        return self.source.text.index(node.name, start)

    def _declaration(self, node: ast.AnnAssign) -> None:
        """Declaring the old field in a training-arguments subclass: a hazard (it warns on every instance)."""
        target = node.target
        if not (isinstance(target, ast.Name) and target.id in self.rules.fields):
            return
        cls = self._parent()[0]
        if not self._is_config_class(cls):
            return
        assert isinstance(cls, ast.ClassDef)
        row = self.rules.fields[target.id]
        what = f"class `{cls.name}` declares the deprecated field `{row.old}`: every instance warns on transformers ≥ {row.since}, even when nobody sets it; declare `{row.new}` instead"
        self.hits.append(
            hazard(
                row, self._at(target.lineno, target.col_offset), code="subclass-default", what=what, section="pitfalls"
            )
        )

    def _string_lookup(self, call: ast.Call) -> None:
        """`getattr(x, "old")`, `hasattr`, `setattr`: the old name by string; a model member's is a hazard (it warns
        too), a field's is a read or write like `_field_use`."""
        if _callee(call) not in ("getattr", "hasattr", "setattr") or len(call.args) < 2:
            return
        name = call.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return
        start = self._at(name.lineno, name.col_offset) + 1
        rules = self.rules
        if name.value in rules.members and _callee(call) == "setattr" and self._is_model_class(call.args[0]):
            self._class_patch(rules.members[name.value], start, f"{ast.unparse(call.args[0])}.{name.value}")
        elif name.value in rules.members:
            row = rules.members[name.value]
            if _callee(call) == "setattr":  # measured: the property has no setter, and a method is replaced
                effect = (
                    "on a transformers model this raises AttributeError: the property has no setter"
                    if row.kind == "property"
                    else "this assigns a method under the old name, an instance override: `explain instance-override`"
                )
            elif row.kind == "property":
                effect = "on a transformers model this warns like a direct use"
            else:  # measured: looking a method up does not warn, only calling it does
                effect = f"this does not warn, only a call does; it fails once `{row.old}` is removed in {row.removal}"
            what = f"looks up `{row.old}` by string with `{_callee(call)}` ({effect}); test `hasattr(type(model), '{row.new}')` and use the new name"
            # How the lookup ends once the name is gone: `hasattr` and a `getattr` default answer, the others raise.
            form = "getattr with a default" if _callee(call) == "getattr" and len(call.args) > 2 else _callee(call)
            hit = hazard(row, start, code="string-lookup", what=what, section="library")
            self.hits.append(dataclasses.replace(hit, via=form))
        elif name.value in rules.fields and (kind := self._config_receiver(call.args[0])):
            row = rules.fields[name.value]
            maybe = "" if kind == "sure" else " (if this is TrainingArguments)"
            used = f"`{row.old}` by string with `{_callee(call)}`"
            self._field_use(row, start, (used, f"`{row.new}`"), maybe, _callee(call) == "setattr")

    def _flags(self, node: ast.Constant) -> None:
        """CLI flags inside a string: rewritten only as elements of a list literal passed to a `parse_args*` method in
        a file that uses the renamed flags' parser, never in a file that defines the flag itself with `add_argument`."""
        rules = self.rules
        matches = list(self.flag_pattern.finditer(str(node.value)))
        if not matches:
            return
        raw_start = self._at(node.lineno, node.col_offset)
        raw_end = self._at(node.end_lineno or node.lineno, node.end_col_offset or 0)
        raw = self.source.text[raw_start:raw_end]
        parent, _ = self._parent()
        call, _ = self._parent(2)
        exact = str(node.value).split("=")[0]
        in_argv = (
            isinstance(parent, (ast.List, ast.Tuple))
            and isinstance(call, ast.Call)
            and (_callee(call) or "").startswith("parse_args")
            and self.uses_parser
        )
        for match in matches:
            flag = match.group(0)
            offset = raw.find(flag)
            start = raw_start + max(offset, 0)
            if flag in rules.planned and flag not in rules.flags:
                if self.options.planned:
                    self.hits.append(planned_hit(rules.planned[flag], start, flag))
                continue
            row = rules.flags[flag]
            if flag in self.own_flags:
                what = f"this file defines its own `{flag}` with `add_argument`: not the TrainingArguments flag, not rewritten"
                self.hits.append(info(row, start, code="own-flag", what=what, section="config"))
            elif flag in self.own_fields:
                what = f"this file declares a dataclass field `{field_name(flag)}`, which HfArgumentParser turns into `{flag}`: it may be the file's own flag, not TrainingArguments', so it is not rewritten"
                self.hits.append(info(row, start, code="own-flag", what=what, section="config"))
            elif in_argv and exact == flag and offset >= 0:
                siblings = [e.value for e in parent.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # type: ignore[union-attr]
                if any(
                    str(s).split("=")[0] in (row.new, row.new.replace("_", "-"), row.new.replace("-", "_"))
                    for s in siblings
                ):
                    what = f"passes both `{flag}` and `{row.new}`: the new one wins and the old value is dropped"
                    self.hits.append(hazard(row, start, code="both-names", what=what, section="pitfalls"))
                else:
                    self.hits.append(
                        rename(
                            row,
                            start,
                            (self._edit(start, flag, row.new),),
                            self.options,
                            code="flag",
                            what=f"passes the flag `{flag}`",
                            section="config",
                        )
                    )
            else:
                what = f"the flag `{flag}` inside a string: rename it by hand if a TrainingArguments parser reads it"
                self.hits.append(info(row, start, code="string", what=what, section="config", new=row.new))


def _names_in_bases(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for base in node.bases:
        names |= _names_in(base)
    return names


def analyse(text: str, options: Options, context: ast.Module | None = None, base: Path | None = None) -> list[Hit]:
    """The hits in Python source `text`; raises `SyntaxError` (or `ValueError`) if a candidate file does not parse.

    `context`: the whole document when `text` is one piece of it (notebook cells, Markdown fences), so that what a
    name holds is told from every piece. `base`: the file's folder, where classes imported from the project's
    own modules are looked up.
    """
    source = Source(text)
    lines = candidate_lines(text, options, source)
    if not lines:
        return []
    tree = ast.parse(text)
    return _Walk(source, tree, lines, options, context, base).run()


def context_of(pieces: list[str]) -> ast.Module:
    """One module holding the statements of every piece that parses (for `analyse`'s `context`)."""
    body: list[ast.stmt] = []
    for piece in pieces:
        try:
            body += ast.parse(piece).body
        except (SyntaxError, ValueError):
            continue
    return ast.Module(body=body, type_ignores=[])
