"""What a section of the errors page says first: the fix as a two-line snippet, and the settings a raise tests.

`snippet` writes the old and new use of a row's names as its kind is written (a call, a field, a flag, a YAML key);
`upgrade` the requirement line for releases before a new name; `settings` reads the `if` around an unprobed raise
(data/matrix.json) as the settings it tests, and `condition_fix` the keyword arguments that avoid it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from checkpointing_migrate.table import Rename, RenameKind, Table


@dataclass(frozen=True)
class Snippet:
    """Two lines of code: the one that produces the text, then the one to write instead."""

    before: str
    after: str


def _receiver(head: str) -> str:
    """What code calls a member of `head` on: an instance for model and arguments classes, else `head` itself."""
    if head.endswith("Model"):
        return "model"
    if head.endswith("Arguments"):
        return "args"
    return head


def _renamed_member(table: Table, row: Rename) -> str | None:
    """For an argument of a method that was renamed with it, the method's new name."""
    owned = row.owned
    for other in table.select(RenameKind.METHOD, library=row.library):
        if other.owner == owned.head and other.old == owned.member:
            return other.new
    return None


def snippet(table: Table, row: Rename) -> Snippet:
    """The row's old and new names as a user writes them (values elided with `…`)."""
    owned, old, new = row.owned, row.old, row.new
    if row.kind == RenameKind.METHOD:
        receiver = _receiver(owned.head)
        return Snippet(f"{receiver}.{old}()", f"{receiver}.{new}()")
    if row.kind in (RenameKind.PROPERTY, RenameKind.ATTRIBUTE):
        receiver = _receiver(owned.head)
        return Snippet(f"{receiver}.{old}", f"{receiver}.{new}")
    if row.kind == RenameKind.ARGUMENT:
        receiver = _receiver(owned.head)
        member = owned.member or ""
        call = f"{receiver}.{member}" if owned.member else owned.head
        renamed = f"{receiver}.{_renamed_member(table, row) or member}" if owned.member else call
        return Snippet(f"{call}({old}=…)", f"{renamed}({new}=…)")
    if row.kind == RenameKind.FIELD:
        cls = owned.head if owned.is_name else (owned.details[0] if owned.details else owned.head)
        return Snippet(f"{cls}(…, {old}=…)", f"{cls}(…, {new}=…)")
    if row.kind == RenameKind.OVERRIDE:
        return Snippet(f"def {old}(self, …):", f"def {new}(self, …):")
    if row.kind == RenameKind.CLI_FLAG:
        return Snippet(f"… {old} …", f"… {new} …")
    if row.kind == RenameKind.CONFIG_KEY:
        return Snippet(f"{old}: …", f"{new}: …")
    if row.kind == RenameKind.FUNCTION:
        return Snippet(f"{owned.name}.{old}(…)", f"{owned.name}.{new}(…)")
    return Snippet(old, new)


def upgrade(table: Table, library: str, since: str) -> Snippet:
    """The requirement that excludes the releases before `since`, and the one that allows only those after."""
    pypi = table.libraries[library].pypi
    return Snippet(f"{pypi}<{since}", f"{pypi}>={since}")


@dataclass(frozen=True)
class Setting:
    """One thing the condition around a raise tests, as a user sets it."""

    name: str
    """The training argument (or a library's config field that extends them), e.g. `fsdp_config`."""
    true: bool
    """Whether the condition needs it true, or false or unset (`not …`)."""
    key: str = ""
    """For a dict (`(args.x or {}).get('key')`, `fsdp_config`'s keys), the key whose true value is tested."""

    @property
    def shown(self) -> str:
        """As the page names it: `name`, or `name['key']`."""
        return f"{self.name}['{self.key}']" if self.key else self.name

    @property
    def when_true(self) -> str:
        """As a keyword argument that makes the test true."""
        if self.key:
            return f"{self.name}={{…, '{self.key}': True}}"
        return f"{self.name}={self.true}"


def condition_fix(tested: tuple[Setting, ...]) -> Snippet | None:
    """The keyword arguments that raise, and the ones that do not: with several settings, only the first (the
    library's own, which the messages recommend) stays; with one, its test is turned around."""
    if len(tested) > 1 and all(s.true for s in tested):
        keep = tested[0].when_true
        return Snippet("…, " + ", ".join(s.when_true for s in reversed(tested)), f"…, {keep}")
    if len(tested) == 1:
        (one,) = tested
        if one.key:
            return Snippet(f"…, {one.when_true}", f"…, {one.name}={{…}}")
        return Snippet(f"…, {one.name}={one.true}", f"…, {one.name}={not one.true}")
    return None


def settings(table: Table, library: str, condition: str) -> tuple[Setting, ...]:
    """The settings a condition ands together, or `()` when it tests something else (a local variable).

    `self.args.X` and `args.X` are the training arguments (or a library's config that extends them); an attribute
    of the accelerator's FSDP plugin is the `fsdp_config` key the table lists for the library.
    """
    try:
        tree = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return ()
    parts = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    found = []
    for part in parts:
        setting = _setting(table, library, part)
        if setting is None:
            return ()
        found.append(setting)
    return tuple(found)


def _setting(table: Table, library: str, node: ast.expr) -> Setting | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _setting(table, library, node.operand)
        return Setting(inner.name, not inner.true, inner.key) if inner and not inner.key else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        target = node.func.value
        if isinstance(target, ast.BoolOp) and isinstance(target.op, ast.Or):  # `(args.x or {})`
            target = target.values[0]
        inner = _setting(table, library, target)
        if inner and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            return Setting(inner.name, True, str(node.args[0].value))
        return None
    if isinstance(node, ast.Attribute):
        chain = _chain(node)
        if chain[:-1] in (["self", "args"], ["args"]):
            return Setting(chain[-1], True)
        if len(chain) > 1 and chain[-2].endswith("_plugin"):
            section = chain[-2].removesuffix("_plugin") + "_config"  # accelerate's FSDP plugin reads fsdp_config
            if f"{section}.{chain[-1]}" in table.libraries[library].config:
                return Setting(section, True, chain[-1])
    return None


def _chain(node: ast.expr) -> list[str]:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.insert(0, node.attr)
        node = node.value
    return [node.id, *names] if isinstance(node, ast.Name) else []
