"""Dicts that carry a renamed training-arguments field: the key is renamed only where the dict's consumer is proven.

`cfg["gradient_checkpointing"] = True`, `cfg = {...}`/`dict(...)` and `parser.parse_dict({...})` are a safe fix only when
the dict goes, in its scope, to `TrainingArguments(**cfg)` or a parser of it (the receivers' evidence) and nowhere else;
reading the old key back makes it a hazard. Keys of `args.to_dict()`, `vars(args)`, `asdict(args)` are reads (`info`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from checkpointing_migrate.codes import message, shared
from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import Hit, Options, info, registered, rename
from checkpointing_migrate.receivers import HF_ROOTS, Evidence, Kind, ReceiverKind, Receivers
from checkpointing_migrate.rules import LibraryDataclass, Rules
from checkpointing_migrate.table import Rename

_LOADERS = frozenset({"to_dict", "to_sanitized_dict"})
"""Methods of training arguments that return their fields as a dict (measured: both names are keys on ≥ 5.23)."""
_AS_DICT = frozenset({"vars", "asdict", "dataclasses.asdict"})
_READS = frozenset({"get", "pop"})


class VerdictKind(StrEnum):
    """Who consumes a dict or config (`Verdict.kind`)."""

    ARGS = "args"
    """Proven training arguments: `why` names the consumer."""
    UNSURE = "unsure"
    """Maybe training arguments: `why` says what is not shown."""
    OWN = "own"
    """The project's own code reads the old key: `why`, at `line`."""
    BOTH = "both"
    """The new key is set too."""
    ESCAPE = "escape"
    """It leaves the scope, where the tool does not follow: `why`."""
    NONE = "none"
    """Nothing consumes it as training arguments."""


@dataclass(frozen=True)
class Verdict:
    """Who consumes a dict or config, and the evidence (see `VerdictKind`)."""

    kind: VerdictKind
    why: str = ""
    line: int = 0


NONE = Verdict(VerdictKind.NONE)


def parser_verdict(call: ast.Call, receivers: Receivers, old: str) -> Verdict:
    """What `HfArgumentParser(...)` / `TrlParser(...)` built by `call` fills from the old key `old`: `args` when every
    dataclass it is given is training arguments, a class of this file or a library's measured dataclass (TRL's
    `ModelConfig`) that does not declare `old`; `own` when a project dataclass declares `old` (followed into the
    project's modules); else `unsure` (`why` names the class), or `none` for another call."""
    name = receivers.qualified(call.func) or ""
    if name.split(".")[0] not in HF_ROOTS or name.rpartition(".")[2] not in receivers.rules.parsers or not call.args:
        return NONE
    first = call.args[0]
    types = first.elts if isinstance(first, (ast.Tuple, ast.List)) else [first]
    verdict = Verdict(VerdictKind.ARGS)
    for node in types:
        kind = receivers.class_kind(node)
        text = ast.unparse(node)
        local = receivers.classes.get(node.id) if isinstance(node, ast.Name) else None
        if kind.kind == ReceiverKind.ARGS:
            continue
        if kind.kind in (ReceiverKind.MIXIN, ReceiverKind.ARGS_UNSURE):
            return Verdict(VerdictKind.UNSURE, kind.why, kind.line)
        # A class of another project module is followed by `class_kind`: "defines `old` itself" is its evidence; a
        # dataclass imported from one declares its fields in its body (`class_node` finds it).
        defined = local if local is not None else receivers.class_node(node)
        if (defined is not None and _declares(defined, old)) or (
            kind.kind == ReceiverKind.FOREIGN and f"`{old}`" in kind.why
        ):
            return Verdict(VerdictKind.OWN, message("own-reader", "declares", cls=text, old=old), kind.line)
        if local is not None:
            continue  # a dataclass of this file without the field
        measured = None if defined is not None else _library_dataclass(node, receivers)
        if measured is not None and old not in measured.fields:
            continue  # a library's dataclass (TRL's `ModelConfig`) whose measured fields do not include it
        if verdict.kind == VerdictKind.ARGS:
            verdict = Verdict(VerdictKind.UNSURE, _not_shown(text, old, measured, receivers.rules), call.lineno)
    return verdict


def _not_shown(cls: str, old: str, measured: LibraryDataclass | None, rules: Rules) -> str:
    """Why a parser given the dataclass `cls` may not read `old` into training arguments: a library's dataclass
    measured to declare it, or one the tool cannot read (not in this file, nor measured)."""
    if measured is None:
        return message("dict-key", "not-in-file", cls=cls, old=old)
    release = rules.measured_in.get(measured.library, "")
    return message("dict-key", "library-declares", cls=cls, old=old, library=measured.library, release=release)


def _library_dataclass(node: ast.expr, receivers: Receivers) -> LibraryDataclass | None:
    """The measured dataclass `node` names, when it is imported from the library that defines it (`trl.ModelConfig`,
    also under another name or from a submodule); `None` for any other class."""
    name = receivers.qualified(node) or ""
    found = receivers.rules.library_dataclasses.get(name.rpartition(".")[2])
    return found if found is not None and name.split(".")[0] == found.library else None


def parser_of(call: ast.Call, scopes: list[ast.AST], receivers: Receivers, old: str) -> Verdict:
    """The verdict of the parser whose method `call` calls (`parser.parse_dict(...)`): built right there, or a name
    bound once, in the innermost of `scopes` that binds it, to `HfArgumentParser(...)` (see `parser_verdict`)."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(owner, ast.Call):
        return parser_verdict(owner, receivers, old)
    if isinstance(owner, ast.Name):
        for scope in scopes:
            built = [
                n.value
                for n in ast.walk(scope)
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == owner.id for t in n.targets)
            ]
            if len(built) == 1 and isinstance(built[0], ast.Call):
                return parser_verdict(built[0], receivers, old)
            if built:
                return NONE
    return NONE


def relevant(node: ast.AST, rules: Rules) -> bool:
    """Cheap first look: could `node` be one of this family's uses (a key or keyword spelling an old field)?"""
    if isinstance(node, ast.Subscript):
        return _key(node.slice) in rules.fields
    if isinstance(node, ast.Dict):
        return any(_key(k) in rules.fields for k in node.keys)
    return isinstance(node, ast.keyword) and node.arg in rules.fields


def _declares(node: ast.ClassDef, field: str) -> bool:
    return any(
        isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == field for s in node.body
    )


def _key(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


@dataclass
class _Uses:
    """What a scope does with a dict that sets an old key, by its loads (`Dicts._uses`)."""

    into: list[tuple[Verdict, ast.Call]] = field(default_factory=list)
    """The calls it is unpacked into (`X(**cfg)`) or parsed by (`parser.parse_dict(cfg)`), with their verdicts."""
    own: list[ast.expr] = field(default_factory=list)
    """Reads of the old key back (`cfg["old"]`, `cfg.get("old")`, `"old" in cfg`)."""
    other: list[ast.expr] = field(default_factory=list)
    """Any other use: passed on, returned or read otherwise (`_escape` and the `also-used` reason look at it)."""
    has_new: bool = False
    """The new key is set too."""
    where: str = ""
    """The other module of the project these uses are in (`dictreaders`), `""` for this one."""
    parents: dict[int, ast.AST] = field(default_factory=dict)
    """The parent of each node of the scope they are in."""
    loads: set[int] = field(default_factory=set)
    """The loads of the dict itself (`cfg`, `conf.DEFAULTS`) among `other`, whose parent is the use."""

    def user(self, use: ast.expr) -> ast.AST | None:
        """The node that does something with the dict in `use`, one of `other`."""
        return self.parents.get(id(use)) if id(use) in self.loads else use

    def at(self, line: int) -> str:
        """`line` as the messages name it: `line 4`, or `` `train.py:4` `` in another module (one form for every
        message, the one an editor opens)."""
        return shared("file-line", file=self.where, line=line) if self.where else shared("line", line=line)


class Dicts:
    """The dict rules of one module: what each name's dict flows into, computed per scope when first asked."""

    def __init__(self, receivers: Receivers, options: Options, at: Callable[[int, int], int], text: str) -> None:
        self.receivers, self.options, self.rules = receivers, options, options.rules
        self.at, self.text = at, text
        self._parents: dict[int, dict[int, ast.AST]] = {}
        self._loads: dict[int, dict[str, list[ast.Name]]] = {}
        """Per scope, the loads of each name: one walk of a scope, however many keys its dicts set."""
        self._flows: dict[tuple[int, str, str], tuple[Verdict, str, str]] = {}
        self._others: dict[Path, Dicts] = {}
        """The dict rules of the project's other modules that import a module-level dict of this one."""

    def check(
        self, node: ast.AST, parents: list[ast.AST], scopes: list[ast.AST], is_args: Callable[[ast.expr], str | None]
    ) -> list[Hit] | None:
        """The hits for `node` (whose ancestors, nearest last, are `parents`), or `None` when it is not a dict use of
        this family (the other rules then look at it as before)."""
        parent = parents[-1] if parents else None
        grand = parents[-2] if len(parents) > 1 else None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            return self._read(node, scopes, is_args)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
            return self._stored(node.value.id, node.slice, scopes)
        if isinstance(node, ast.Dict):
            name = _bound_name(node, parent)
            if name is not None:
                return self._literal(node, name, scopes)
            if isinstance(parent, ast.Call) and node in parent.args and _method(parent) == "parse_dict":
                return self._parsed(node, parent, scopes)
            return None
        if isinstance(node, ast.keyword) and isinstance(parent, ast.Call) and _is_dict_call(parent, self.receivers):
            name = _bound_name(parent, grand)
            if name is None:
                return None
            beside = {k.arg for k in parent.keywords}
            place = message("dict-key", "place-call", name=name)
            return self._keys([(node, node.arg or "")], name, scopes, place, beside, keyword=True)
        return None

    # --- stores: a key of a dict that may reach TrainingArguments ------------------------------------------------------

    def _literal(self, node: ast.Dict, name: str, scopes: list[ast.AST]) -> list[Hit] | None:
        keys = [(k, v) for k in node.keys if k is not None and (v := _key(k)) in self.rules.fields]
        place = message("dict-key", "place-literal", name=name)
        return self._keys(keys, name, scopes, place, {_key(k) for k in node.keys})

    def _stored(self, name: str, key: ast.expr, scopes: list[ast.AST]) -> list[Hit] | None:
        place = message("dict-key", "place-store", name=name)
        return self._keys([(key, _key(key) or "")], name, scopes, place, set())

    def _keys(
        self,
        keys: list[tuple[ast.AST, str]],
        name: str,
        scopes: list[ast.AST],
        form: str,
        beside: set[str | None],
        *,
        keyword: bool = False,
    ) -> list[Hit] | None:
        """The hits for old keys set in the dict `name` (`beside`: the other keys set in the same construct); `None`
        when the dict is not shown to reach training arguments (it is the project's own, as before)."""
        hits: list[Hit] = []
        for node, old in keys:
            row = self.rules.fields[old]
            verdict, line, consumer = self._flow(name, scopes[0], old, row.new)
            if verdict.kind == VerdictKind.NONE:
                return None
            start = self.at(node.lineno, node.col_offset) + (0 if keyword else 1)  # type: ignore[attr-defined]
            if verdict.kind == VerdictKind.ESCAPE:
                hits.append(
                    registered(row, start, code="unknown-callee", form="escape", old=old, place=form, why=verdict.why)
                )
                continue
            if row.new in beside:
                verdict = Verdict(VerdictKind.BOTH)
            what = message("dict-key", "passed", old=old, place=form, at=line, consumer=consumer)
            hits.append(self._verdict(row, start, verdict, what, keyword))
        return hits

    def _verdict(self, row: Rename, start: int, verdict: Verdict, what: str, keyword: bool) -> Hit:
        if verdict.kind == VerdictKind.OWN:
            return registered(row, start, code="own-reader", subject=what, why=verdict.why)
        if verdict.kind == VerdictKind.BOTH:
            return registered(row, start, code="both-names", form="set-too", subject=what, new=row.new)
        spelled = self.text[start - 1 : start + len(row.old) + 1]
        if not keyword and (spelled[0] not in "'\"" or spelled[1:-1] != row.old or spelled[-1] != spelled[0]):
            what = message("dict-key", "escaped", subject=what)
            return info(row, start, code="dict-key", what=what, section="config", new=row.new)
        edit = (Edit(start, start + len(row.old), row.new),)
        unsafe = verdict.why if verdict.kind == VerdictKind.UNSURE else None
        return rename(row, start, edit, self.options, code="dict-key", what=what, section="config", unsafe=unsafe)

    def _parsed(self, node: ast.Dict, call: ast.Call, scopes: list[ast.AST]) -> list[Hit]:
        """`parser.parse_dict({...})`: the parser's dataclasses decide (`parser_verdict`)."""
        hits = []
        beside = {_key(k) for k in node.keys}
        for key in node.keys:
            old = _key(key)
            if key is None or old not in self.rules.fields:
                continue
            row = self.rules.fields[old]
            verdict = self._parser_of(call, scopes, old)
            if verdict.kind == VerdictKind.NONE:
                verdict = Verdict(VerdictKind.UNSURE, message("dict-key", "not-parser", callee=ast.unparse(call.func)))
            if row.new in beside:
                verdict = Verdict(VerdictKind.BOTH)
            start = self.at(key.lineno, key.col_offset) + 1
            what = message("dict-key", "parse-dict", old=old, callee=ast.unparse(call.func))
            hits.append(self._verdict(row, start, verdict, what, False))
        return hits

    def _parser_of(self, call: ast.Call, scopes: list[ast.AST], old: str) -> Verdict:
        return parser_of(call, scopes, self.receivers, old)

    # --- where a dict name goes ---------------------------------------------------------------------------------------

    def _parent_map(self, scope: ast.AST) -> dict[int, ast.AST]:
        if id(scope) not in self._parents:
            self._parents[id(scope)] = {id(c): p for p in ast.walk(scope) for c in ast.iter_child_nodes(p)}
        return self._parents[id(scope)]

    def _flow(self, name: str, scope: ast.AST, old: str, new: str) -> tuple[Verdict, str, str]:
        """What the dict named `name` in `scope` flows into, for the key `old`: (verdict, line of the consumer as the
        messages name it, the consumer as written)."""
        key = (id(scope), name, old)
        if key not in self._flows:
            self._flows[key] = self._follow(name, scope, old, new)
        return self._flows[key]

    def _follow(self, name: str, scope: ast.AST, old: str, new: str) -> tuple[Verdict, str, str]:
        """The verdict on the uses of the dict in `scope` and, for a module-level dict, in the project's modules that
        import it (`_elsewhere`): judged together, as if they were one scope."""
        parents = self._parent_map(scope)
        found = [self._uses(self._loads_of(scope).get(name, []), scope, old, new, parents)]
        if scope is self.receivers.module and self.receivers.base is not None:
            found += self._elsewhere(name, old, new)
        sure = [(v, c, u) for u in found for v, c in u.into if v.kind != VerdictKind.NONE]
        if not sure:
            return self._escape(name, found), "", ""
        verdict, consumer, there = sure[0]
        line, text = there.at(consumer.lineno), ast.unparse(consumer.func)
        own = [(u, read) for u in found for read in u.own]
        if own:
            u, read = own[0]
            where = message("own-reader", "file", at=u.at(read.lineno)) if u.where else u.at(read.lineno)
            why = message("own-reader", "read-back", where=where, read=ast.unparse(read))
            return Verdict(VerdictKind.OWN, why, read.lineno), line, text
        if any(u.has_new for u in found):
            return Verdict(VerdictKind.BOTH), line, text
        others = [(c, u) for u in found for v, c in u.into if v.kind == VerdictKind.NONE]
        if verdict.kind == VerdictKind.ARGS and others:
            other_call, u = others[0]
            callee, line_of = ast.unparse(other_call.func), u.at(other_call.lineno)
            why = message("dict-key", "also-unpacked", name=name, callee=callee, at=line_of)
            return Verdict(VerdictKind.UNSURE, why), line, text
        used = [(use, u) for u in found for use in u.other]
        if verdict.kind == VerdictKind.ARGS and used:
            use, u = used[0]
            shown = u.user(use)
            shown = shown if isinstance(shown, ast.expr) else use
            why = message("dict-key", "also-used", name=name, at=u.at(use.lineno), use=ast.unparse(shown))
            return Verdict(VerdictKind.UNSURE, why), line, text
        return verdict, line, text

    def _elsewhere(self, name: str, old: str, new: str) -> list[_Uses]:
        """The uses of the module-level dict `name` in the project's other modules that import it (`dictreaders`),
        each judged by that module's own evidence (`TrainingArguments` as it imports it)."""
        from checkpointing_migrate.dictreaders import Importers  # the project's other files: only for such a dict

        base = self.receivers.base
        assert base is not None
        found = []
        for importer in self.options.memo.once(Importers, Importers).importers(base, self.text, name):
            if importer.path not in self._others:
                receivers = Receivers(importer.tree, self.rules, self.receivers.cache, importer.path.parent)
                self._others[importer.path] = Dicts(receivers, self.options, self.at, "")
            other = self._others[importer.path]
            parents = other._parent_map(importer.tree)
            uses = other._uses(list(importer.names), importer.tree, old, new, parents)
            found.append(replace(uses, where=importer.where))
        return found

    def _loads_of(self, scope: ast.AST) -> dict[str, list[ast.Name]]:
        if id(scope) not in self._loads:
            loads: dict[str, list[ast.Name]] = {}
            for n in ast.walk(scope):
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store):
                    loads.setdefault(n.id, []).append(n)
            self._loads[id(scope)] = loads
        return self._loads[id(scope)]

    def _uses(
        self, loads: list[ast.Name] | list[ast.expr], scope: ast.AST, old: str, new: str, parents: dict[int, ast.AST]
    ) -> _Uses:
        """Each of `loads`, the dict's loads in `scope`, sorted by what it does with the dict (see `_Uses`)."""
        uses = _Uses(parents=parents, loads={id(n) for n in loads})
        for use in loads:
            parent = parents.get(id(use))
            call = parents.get(id(parent)) if parent is not None else None
            if isinstance(parent, ast.keyword) and parent.arg is None and isinstance(call, ast.Call):
                uses.into.append((self._callee(call), call))
            elif isinstance(parent, ast.Call) and use in parent.args and _method(parent) == "parse_dict":
                uses.into.append((self._parser_of(parent, [scope, self.receivers.module], old), parent))
            elif isinstance(parent, ast.Subscript) and parent.value is use:
                key = _key(parent.slice)
                if key == new and isinstance(parent.ctx, ast.Store):
                    uses.has_new = True
                elif key == old and not isinstance(parent.ctx, ast.Store):
                    uses.own.append(parent)
            elif isinstance(parent, ast.Attribute) and parent.value is use:
                if parent.attr in _READS and isinstance(call, ast.Call) and call.args and _key(call.args[0]) == old:
                    uses.own.append(call)
                elif parent.attr not in ("update", "setdefault", "__setitem__"):
                    uses.other.append(parent)
            elif isinstance(parent, ast.Compare) and _key(parent.left) == old:
                uses.own.append(parent)
            else:
                uses.other.append(use)
        return uses

    def _escape(self, name: str, found: list[_Uses]) -> Verdict:
        """`none`, or `escape` when the dict leaves the scope (returned, passed to a call the tool does not follow),
        here or in a module that imports it: it may reach TrainingArguments there, which the tool cannot tell."""
        for uses in found:
            for use in uses.other:
                parent = uses.user(use)
                if isinstance(parent, (ast.Return, ast.Yield)):
                    returned = message("unknown-callee", "returned", name=name, at=uses.at(use.lineno))
                    return Verdict(VerdictKind.ESCAPE, returned, use.lineno)
                call = uses.parents.get(id(parent)) if isinstance(parent, ast.keyword) else parent
                if isinstance(call, ast.Call) and _method(call) not in ("get", "pop", "items", "keys", "values"):
                    names = {"name": name, "callee": ast.unparse(call.func), "at": uses.at(call.lineno)}
                    passed = message("unknown-callee", "passed", **names)
                    return Verdict(VerdictKind.ESCAPE, passed, call.lineno)
        return NONE

    def _callee(self, call: ast.Call) -> Verdict:
        """`X(**cfg)`: training arguments by the receivers' evidence (`args`), maybe (`unsure`), or not (`none`)."""
        kind: Kind = self.receivers.class_kind(call.func)
        text = ast.unparse(call.func)
        if kind.kind == ReceiverKind.ARGS:
            return Verdict(VerdictKind.ARGS, text)
        if kind.kind in (ReceiverKind.ARGS_UNSURE, ReceiverKind.MIXIN):
            return Verdict(VerdictKind.UNSURE, kind.why)
        if text.rpartition(".")[2] in self.rules.config_classes and kind.kind != ReceiverKind.FOREIGN:
            return Verdict(VerdictKind.UNSURE, message("dict-key", "not-imported", callee=text))
        return NONE

    # --- reads of the field through a dict of the arguments -----------------------------------------------------------

    def _read(
        self, node: ast.Subscript, scopes: list[ast.AST], is_args: Callable[[ast.expr], str | None]
    ) -> list[Hit] | None:
        """`args.to_dict()["old"]`, `vars(args)["old"]`, `asdict(args)["old"]`, `json.loads(args.to_json_string())[
        "old"]` on training arguments, or on a name bound once in its scope to one of those: a read."""
        old = _key(node.slice) or ""
        call = node.value
        if isinstance(call, ast.Name):
            call = _sole_binding(call.id, scopes)
        if not isinstance(call, ast.Call):
            return None
        func = call.func
        qualified = self.receivers.qualified(func) or ast.unparse(func)
        if qualified == "json.loads" and len(call.args) == 1 and isinstance(call.args[0], ast.Call):
            inner = call.args[0]
            if not (_method(inner) == "to_json_string" and not inner.args):
                return None
            receiver = inner.func.value  # type: ignore[attr-defined]
        elif isinstance(func, ast.Attribute) and func.attr in _LOADERS and not call.args:
            receiver = func.value
        elif qualified in _AS_DICT and len(call.args) == 1:
            receiver = call.args[0]
        else:
            return None
        sure = is_args(receiver)
        if sure is None:
            return None
        row = self.rules.fields[old]
        maybe = "" if sure == Evidence.SURE else shared("maybe", receiver=ast.unparse(receiver))
        start = self.at(node.slice.lineno, node.slice.col_offset) + 1
        names = {"old": old, "new": row.new, "since": str(row.since), "removal": str(row.removal)}
        what = message("read", "dict", source=ast.unparse(call), maybe=maybe, **names)
        return [info(row, start, code="read", what=what, section="pitfalls", new=row.new)]


def _sole_binding(name: str, scopes: list[ast.AST]) -> ast.expr | None:
    """The value of `name = value` when that is the only binding of `name` in the innermost scope that binds it."""
    for scope in scopes:
        bound = [
            n
            for n in ast.walk(scope)
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
        ]
        if not bound:
            continue
        values = [
            n.value
            for n in ast.walk(scope)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and n.targets[0] in bound
        ]
        return values[0] if len(bound) == 1 and len(values) == 1 else None
    return None


def _method(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _bound_name(value: ast.AST, parent: ast.AST | None) -> str | None:
    """`name` when `value` is the whole right-hand side of `name = value` (one plain name)."""
    if isinstance(parent, ast.Assign) and parent.value is value and len(parent.targets) == 1:
        target = parent.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(parent, ast.AnnAssign) and parent.value is value and isinstance(parent.target, ast.Name):
        return parent.target.id
    return None


def _is_dict_call(call: ast.Call, receivers: Receivers) -> bool:
    """`dict(...)`, the builtin (not a name the module binds)."""
    return isinstance(call.func, ast.Name) and call.func.id == "dict" and "dict" not in receivers.classes
