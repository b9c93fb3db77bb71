"""`python -m generator audit`: prove the table complete for every transformers release it lists.

Each listed release's wheel (sha256-checked, cached) is read statically. Every public object or parameter whose name
says gradient/activation checkpointing that appeared, disappeared or changed between consecutive releases (griffe),
and every warning call whose text names one, must be a row (or its warning) or be under `not_renamed` with a reason.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from generator.measure import registry
from generator.paths import TABLE_PATH
from generator.table import Table, TableError, load

LIBRARY = "transformers"
"""The library whose releases are audited (the only one with shipped renames)."""
PACKAGE = "transformers"
"""Its import package inside the wheel."""
NAME = re.compile(r"(?:[Gg]radient|[Aa]ctivation)_?[Cc]heckpointing")
"""A name that says gradient or activation checkpointing (`gradient_checkpointing_enable`, `GradientCheckpointingLayer`)."""
WARNING_CALLS = frozenset(
    {"warn", "warning", "warning_once", "warning_advice", "warn_once", "warn_deprecated", "deprecate"}
)
"""Function or method names that emit a warning; the first argument (or `message=`) is its text."""
API_SKIP = ("models",)
"""Subpackages left out of the API diff: the per-model classes only redeclare the base classes' names."""
QUOTED_NAME = re.compile(r"""["'][^"'\n]*(?:[Gg]radient|[Aa]ctivation)_?[Cc]heckpointing""")
"""A name inside a string literal: only files with one can warn about it (the others are not parsed)."""
HOLE = "\x00"
"""Stands for a part of a warning's text only known at run time (an f-string field, a `%s`, a variable)."""


class AuditError(Exception):
    """The audit cannot run (registry, download, unreadable table); the message says what to do."""


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
class WarningCall:
    """A warning call in a release's source whose text names a checkpointing name."""

    path: str
    """Path inside the wheel, e.g. `transformers/trainer.py`."""
    line: int
    text: str
    """The text as written; `HOLE` where a part is only known at run time."""

    @property
    def shown(self) -> str:
        return self.text.replace(HOLE, "{…}")

    def matches(self, message: str) -> bool:
        """Whether the release can emit exactly `message` from this call."""
        pattern = ".+?".join(re.escape(part) for part in self.text.split(HOLE))
        return re.fullmatch(pattern, message, re.DOTALL) is not None


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


# --- Warnings --------------------------------------------------------------------------------------------------------


def _text(node: ast.expr | None, assigned: dict[str, ast.expr], depth: int = 0) -> str | None:
    """The text of a message expression, `HOLE` for run-time parts; `None` when it is not text at all."""
    if node is None or depth > 5:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values)  # type: ignore[misc]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, assigned, depth + 1), _text(node.right, assigned, depth + 1)
        return None if left is None and right is None else (left or HOLE) + (right or HOLE)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = _text(node.left, assigned, depth + 1)
        return re.sub(r"%[-#0 +]*\d*(?:\.\d+)?[sdrfi]", HOLE, left) if left is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        left = _text(node.func.value, assigned, depth + 1)
        return re.sub(r"\{[^{}]*\}", HOLE, left) if left is not None else None
    if isinstance(node, ast.Name) and node.id in assigned:
        return _text(assigned[node.id], assigned, depth + 1)
    return None


def _callee(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _assigned_before(scope: ast.AST, line: int) -> dict[str, ast.expr]:
    """The simple `name = <expression>` assignments of `scope` before `line`, the last one winning."""
    assigned: dict[str, ast.expr] = {}
    for node in sorted((n for n in ast.walk(scope) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        if node.lineno < line and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    return assigned


def _calls_in(tree: ast.Module) -> Iterator[tuple[ast.Call, str | None]]:
    """Each warning call and its text (`None` when it is not text), a variable resolved in its function."""
    functions: list[ast.AST] = []

    def visit(node: ast.AST) -> Iterator[tuple[ast.Call, str | None]]:
        is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if is_function:
            functions.append(node)
        if isinstance(node, ast.Call) and _callee(node) in WARNING_CALLS:
            message = (
                node.args[0]
                if node.args
                else next((k.value for k in node.keywords if k.arg in ("message", "msg")), None)
            )
            assigned = (
                _assigned_before(functions[-1] if functions else tree, node.lineno)
                if isinstance(message, ast.Name)
                else {}
            )
            yield node, _text(message, assigned)
        for child in ast.iter_child_nodes(node):
            yield from visit(child)
        if is_function:
            functions.pop()

    yield from visit(tree)


def warning_calls(tree: Path, package: str = PACKAGE, *, naming: bool = True) -> list[WarningCall]:
    """The warning calls under `tree/package` in files that name the feature, in file order.

    With `naming` (the inventory) only those whose text names a checkpointing name; without, every call with a text,
    which is what a row's recorded message is matched against (an f-string such as "`{old}` is deprecated" names
    nothing by itself).
    """
    found = []
    for path in sorted((tree / package).rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        if not QUOTED_NAME.search(source):
            continue  # most files never name the feature in a text: parsing them would only cost time
        try:
            parsed = ast.parse(source, filename=str(path))
        except SyntaxError:
            continue
        relative = path.relative_to(tree).as_posix()
        for call, text in _calls_in(parsed):
            if text is not None and (not naming or NAME.search(text)):
                found.append(WarningCall(relative, call.lineno, text))
    return sorted(found, key=lambda w: (w.path, w.line))


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

    def where(obj: griffe.Object) -> str:
        relative = obj.relative_package_filepath if obj.filepath else Path(package)
        return f"{package}/{Path(relative).as_posix().split('/', 1)[-1]}:{obj.lineno or 1}"

    def visit(obj: griffe.Object) -> None:
        for member in obj.members.values():
            if member.is_alias or not _public(member.path):
                continue
            if member.is_function:
                params = [(p.name, p.kind.value if p.kind else "", str(p.default)) for p in member.parameters]
                shape = repr(params)
                for name, kind, default in params:
                    if NAME.search(name):
                        key = f"{member.path}({name})"
                        out[key] = ApiObject(key, name, "parameter", f"{kind}={default}", where(member))
            elif member.is_attribute:
                shape = f"{member.annotation}={member.value}"
            elif member.is_class:
                shape = repr([str(b) for b in member.bases])
            else:
                shape = ""
            if NAME.search(member.name):
                kind = "property" if "property" in member.labels else member.kind.value
                out[member.path] = ApiObject(member.path, member.name, kind, shape, where(member))
            if member.is_module or member.is_class:
                visit(member)

    visit(root)
    return out


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


def _row_names(table: Table) -> set[str]:
    names: set[str] = set()
    for row in table.renames:
        if row.library == LIBRARY:
            names |= {row.old.lstrip("-").replace("-", "_"), row.new.lstrip("-").replace("-", "_")}
    return names


def _owners(table: Table) -> set[str]:
    return {(row.owned.member or row.owned.head).split(".")[-1] for row in table.renames if row.library == LIBRARY}


def warning_gaps(table: Table, release: str, calls: list[WarningCall]) -> list[Gap]:
    """Warnings the release emits that are no row's warning and not listed under `not_renamed`."""
    messages = {row.warning.message for row in table.renames if row.library == LIBRARY and row.warning}
    known = [e for e in table.not_renamed if e.library == LIBRARY and e.kind == "warning"]
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


def row_gaps(table: Table, release: str, calls: list[WarningCall]) -> list[Gap]:
    """Shipped rows whose recorded warning this release (between `since` and `removal`) cannot emit."""
    gaps = []
    for row in table.renames:
        if row.library != LIBRARY or row.status != "shipped" or not row.warning or not row.since:
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
    names, owners = _row_names(table), _owners(table)
    known = {e.match for e in table.not_renamed if e.library == LIBRARY and e.kind == "api"}
    gaps = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before and after and before.shape == after.shape:
            continue
        obj = after or before
        assert obj is not None
        change = "appeared" if before is None else "disappeared" if after is None else "changed"
        covered = obj.name in names or (change == "changed" and obj.name in owners) or path in known
        if not covered:
            detail = f" ({before.shape} → {after.shape})" if before and after else ""
            gaps.append(
                Gap(
                    new_release,
                    obj.where,
                    f"{obj.kind} {path} {change} since {old_release}{detail}, and no row renames "
                    f"'{obj.name}'; add a row, or list it under not_renamed (kind: api) with the reason",
                )
            )
    return gaps


def audit(
    table: Table, index_url: str = registry.PYPI, cache: Path = registry.CACHE
) -> tuple[list[Gap], dict[str, list[WarningCall]]]:
    """Every gap over the listed releases, oldest first, and each release's warning inventory."""
    releases = [r.version for r in table.releases_of(LIBRARY)]
    trees = {v: release_tree(v, index_url, cache) for v in releases}
    gaps: list[Gap] = []
    inventory: dict[str, list[WarningCall]] = {}
    previous: tuple[str, dict[str, ApiObject]] | None = None
    for version in releases:
        every_call = warning_calls(trees[version], naming=False)
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
    try:
        table = load(args.table)
    except TableError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"{args.table} has problems; run `python -m generator check`.", file=sys.stderr)
        return 2
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
