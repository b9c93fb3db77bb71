"""`python -m generator audit`: prove the table complete for every transformers release it lists.

Each listed release's wheel (sha256-checked, cached) is read statically. Every public checkpointing object or
parameter that appeared, disappeared or changed between releases (griffe) must be a row of the same owner, kind and
name, and every warning naming one a row's warning; or either is under `not_renamed` with a reason.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from checkpointing_migrate.table import NotRenamedKind, RenameKind, Status, Table, field_name, load_table_or_report
from generator.measure import registry
from generator.measure.source import NAME, SourceText, warning_calls
from generator.paths import TABLE_PATH

if TYPE_CHECKING:
    import griffe

LIBRARY = "transformers"
"""The library whose releases are audited (the only one with shipped renames)."""
PACKAGE = "transformers"
"""Its import package inside the wheel."""
API_SKIP = ("models",)
"""Subpackages left out of the API diff: the per-model classes only redeclare the base classes' names."""


@dataclass(frozen=True)
class Gap:
    """One thing the table misses, where it was found."""

    release: str
    where: str
    """`path/in/wheel.py:LINE` or `aliases.yaml:LINE`."""
    what: str

    def __str__(self) -> str:
        return f"{LIBRARY} {self.release}: {self.where}: {self.what}"


@dataclass(frozen=True)
class ApiObject:
    """A public object (or a function's parameter) whose name says checkpointing."""

    path: str
    """Dotted path; a parameter is `function(parameter)`."""
    name: str
    kind: str
    shape: str
    """What a change is measured on: a signature, an attribute's annotation and value, a class's bases."""
    where: str
    """`path/in/wheel.py:LINE`."""
    owners: tuple[str, ...] = ()
    """Who owns it, as a row's `owner` would say: its class and that class's bases (`TrainingArguments`), a
    function's class and name (`PreTrainedModel.gradient_checkpointing_enable`), or the package for a module-level
    object. A dataclass's `__init__` parameter is owned by the class, like the field it comes from."""

    @property
    def row_kinds(self) -> tuple[str, ...]:
        """The table kinds that can name it: griffe's kind, translated (an `__init__` parameter is a field)."""
        if self.kind == "parameter":
            return ("field", "attribute") if self.path.split("(")[0].endswith(".__init__") else ("argument",)
        return ROW_KINDS.get(self.kind, ())


ROW_KINDS = {
    "function": ("method", "function"),
    "property": ("property",),
    "attribute": ("field", "attribute"),
    "class": ("class",),
}
"""griffe's kind of object → the table kinds that rename one."""


# --- Public API ------------------------------------------------------------------------------------------------------


def _api_copy(tree: Path, package: str) -> Path:
    """A copy of the package's Python files without `API_SKIP`, beside the tree, made once."""
    target = tree.with_name(tree.name + ".api")
    if (target / ".complete").is_file():
        return target
    shutil.rmtree(target, ignore_errors=True)
    source = tree / package

    def ignore(folder: str, names: list[str]) -> list[str]:
        skip = list(API_SKIP) if Path(folder) == source else []
        return skip + [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]

    shutil.copytree(source, target / package, ignore=ignore)
    (target / ".complete").write_text("", encoding="utf-8")
    return target


def _public(path: str) -> bool:
    return not any(part.startswith("_") and not part.startswith("__") for part in path.split("."))


def api_objects(tree: Path, package: str = PACKAGE) -> dict[str, ApiObject]:
    """The public objects and parameters whose name says checkpointing, loaded statically with griffe."""
    import griffe

    root = griffe.load(
        package, search_paths=[str(_api_copy(tree, package))], allow_inspection=False, resolve_aliases=False
    )
    out: dict[str, ApiObject] = {}
    _visit(root, package, out)
    return out


def _where(obj: griffe.Object, package: str) -> str:
    relative = obj.relative_package_filepath if obj.filepath else Path(package)
    return f"{package}/{Path(relative).as_posix().split('/', 1)[-1]}:{obj.lineno or 1}"


def _classes(obj: griffe.Object, package: str) -> tuple[str, ...]:
    """A class's name and its bases' (last dotted part), or the package for anything outside a class."""
    if not obj.is_class:
        return (package,)
    return (obj.name, *(str(b).split(".")[-1] for b in obj.bases))


def _owners(member: griffe.Object, parameter: bool, package: str) -> tuple[str, ...]:
    owning = _classes(member.parent, package) if member.parent is not None else (package,)
    if not parameter:
        return owning
    if member.name == "__init__":
        return owning
    return tuple(f"{o}.{member.name}" for o in owning) + (member.name,)


def _parameters(member: griffe.Function, package: str, out: dict[str, ApiObject]) -> str:
    """The function's checkpointing parameters added to `out`; returns its shape (every parameter, listed)."""
    params = [(p.name, p.kind.value if p.kind else "", str(p.default)) for p in member.parameters]
    for name, kind, default in params:
        if NAME.search(name):
            key = f"{member.path}({name})"
            out[key] = ApiObject(
                key, name, "parameter", f"{kind}={default}", _where(member, package), _owners(member, True, package)
            )
    return repr(params)


def _visit(obj: griffe.Object, package: str, out: dict[str, ApiObject]) -> None:
    """The public checkpointing members of `obj` (and of its modules and classes, all the way down) added to `out`."""
    for member in obj.members.values():
        if member.is_alias or not _public(member.path):
            continue
        if member.is_function:
            shape = _parameters(member, package, out)
        elif member.is_attribute:
            shape = f"{member.annotation}={member.value}"
        elif member.is_class:
            shape = repr([str(b) for b in member.bases])
        else:
            shape = ""
        if NAME.search(member.name):
            kind = "property" if "property" in member.labels else member.kind.value
            out[member.path] = ApiObject(
                member.path, member.name, kind, shape, _where(member, package), _owners(member, False, package)
            )
        if member.is_module or member.is_class:
            _visit(member, package, out)


# --- The audit -------------------------------------------------------------------------------------------------------


def release_tree(version: str, index_url: str, cache: Path) -> Path:
    """The unpacked wheel (or sdist) of `transformers==version`, fetched and checked against the registry's sha256.

    Offline, a tree unpacked earlier is used: it was checked when it was downloaded.
    """
    try:
        project = registry.project(index_url, LIBRARY)
    except registry.RegistryError:
        unpacked = sorted(cache.glob(f"{LIBRARY}-{version}-*.tree/.complete"))
        if unpacked:
            return unpacked[0].parent
        raise
    if version not in project.releases:
        raise registry.RegistryError(f"{index_url}: {LIBRARY} has no release {version}")
    return registry.unpack(registry.fetch(registry.pick(project.releases[version]), cache))


def _row_keys(table: Table) -> set[tuple[str, str, str]]:
    """(owner, kind, name) of every transformers row, old and new name. A member-owned row (an argument of
    `PreTrainedModel.gradient_checkpointing_enable`) is also owned by the member's new name when a row renames it."""
    rows = table.select(library=LIBRARY)
    renamed = {
        (row.owned.head, row.old): row.new for row in rows if row.kind in (RenameKind.METHOD, RenameKind.FUNCTION)
    }
    keys: set[tuple[str, str, str]] = set()
    for row in rows:
        head, member = row.owned.head, row.owned.member
        owners = {head}
        if member:
            owners = {f"{head}.{member}"}
            if (head, member) in renamed:
                owners.add(f"{head}.{renamed[head, member]}")
        for owner in owners:
            keys |= {(owner, row.kind, field_name(row.old)), (owner, row.kind, field_name(row.new))}
    return keys


def _owned_members(table: Table) -> set[tuple[str, str]]:
    """(class, member) of every member a row's owner names: its signature changes when the row's argument does."""
    return {(row.owned.head, row.owned.member) for row in table.select(library=LIBRARY) if row.owned.member}


def covered(obj: ApiObject, change: str, keys: set[tuple[str, str, str]], members: set[tuple[str, str]]) -> bool:
    """Whether a row of the object's own owner, kind and name renames it (or, for a changed member, owns an argument
    of it)."""
    if any((owner, kind, obj.name) in keys for owner in obj.owners for kind in obj.row_kinds):
        return True
    return change == "changed" and any((owner, obj.name) in members for owner in obj.owners)


def warning_gaps(table: Table, release: str, calls: list[SourceText]) -> list[Gap]:
    """Warnings the release emits that are no row's warning and not listed under `not_renamed`."""
    messages = {row.warning.message for row in table.select(library=LIBRARY) if row.warning}
    known = [e for e in table.not_renamed if e.library == LIBRARY and e.kind == NotRenamedKind.WARNING]
    gaps = []
    for call in calls:
        if any(call.matches(m) for m in messages) or any(e.match in call.text for e in known):
            continue
        gaps.append(
            Gap(
                release,
                f"{call.path}:{call.line}",
                f'warning "{call.shown}" is not the warning of any row; add the rename it announces, or list it '
                f"under not_renamed (kind: warning) with the reason",
            )
        )
    return gaps


def row_gaps(table: Table, release: str, calls: list[SourceText]) -> list[Gap]:
    """Shipped rows whose recorded warning this release (between `since` and `removal`) cannot emit."""
    gaps = []
    for row in table.renames:
        if row.library != LIBRARY or row.status != Status.SHIPPED or not row.warning or not row.since:
            continue
        if Version(release) < Version(row.since) or (row.removal and Version(release) >= Version(row.removal)):
            continue
        if not any(call.matches(row.warning.message) for call in calls):
            gaps.append(
                Gap(
                    release,
                    str(row.position).rsplit(":", 1)[0],
                    f"row {row.owner}.{row.old} records a warning no call in the release emits: "
                    f'"{row.warning.message}"',
                )
            )
    return gaps


def api_gaps(
    table: Table, old_release: str, new_release: str, old: dict[str, ApiObject], new: dict[str, ApiObject]
) -> list[Gap]:
    """Objects that appeared, disappeared or changed from `old_release` to `new_release` without a row."""
    keys, members = _row_keys(table), _owned_members(table)
    known = {e.match for e in table.not_renamed if e.library == LIBRARY and e.kind == NotRenamedKind.API}
    gaps = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before and after and before.shape == after.shape:
            continue
        obj = after or before
        assert obj is not None
        change = "appeared" if before is None else "disappeared" if after is None else "changed"
        if not (covered(obj, change, keys, members) or path in known):
            detail = f" ({before.shape} → {after.shape})" if before and after else ""
            gaps.append(
                Gap(
                    new_release,
                    obj.where,
                    f"{obj.kind} {path} {change} since {old_release}{detail}, and no row renames "
                    f"'{obj.name}' of {' or '.join(obj.owners)} ({' or '.join(obj.row_kinds) or obj.kind}); add "
                    f"a row, or list it under not_renamed (kind: api) with the reason",
                )
            )
    return gaps


def audit(
    table: Table, index_url: str = registry.PYPI, cache: Path = registry.CACHE
) -> tuple[list[Gap], dict[str, list[SourceText]]]:
    """Every gap over the listed releases, oldest first, and each release's warning inventory."""
    releases = [r.version for r in table.releases_of(LIBRARY)]
    trees = {v: release_tree(v, index_url, cache) for v in releases}
    gaps: list[Gap] = []
    inventory: dict[str, list[SourceText]] = {}
    previous: tuple[str, dict[str, ApiObject]] | None = None
    for version in releases:
        every_call = warning_calls(trees[version], PACKAGE)
        calls = inventory[version] = [c for c in every_call if NAME.search(c.text)]
        gaps += warning_gaps(table, version, calls) + row_gaps(table, version, every_call)
        objects = api_objects(trees[version])
        if previous is not None:
            gaps += api_gaps(table, previous[0], version, previous[1], objects)
        previous = (version, objects)
    return gaps, inventory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", type=Path, default=TABLE_PATH, help="the alias table (default: %(default)s)")
    parser.add_argument(
        "--index-url", default=registry.PYPI, help="the registry's JSON API base (default: %(default)s)"
    )


def run(args: argparse.Namespace) -> int:
    """Exit 0 when the table is complete, 1 with one line per gap (`release: file:line: what`), 2 when the audit
    cannot run."""
    table = load_table_or_report(args.table)
    if isinstance(table, int):
        return table
    try:
        gaps, inventory = audit(table, args.index_url)
    except (registry.RegistryError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for gap in gaps:
        print(gap)
    releases = ", ".join(inventory)
    warnings_seen = sum(len(calls) for calls in inventory.values())
    if gaps:
        print(f"{len(gaps)} gap{'s' * (len(gaps) != 1)} in {args.table} over {LIBRARY} {releases}.", file=sys.stderr)
        return 1
    print(
        f"{LIBRARY} {releases}: every checkpointing name and all {warnings_seen} warnings naming one are in the table."
    )
    return 0
