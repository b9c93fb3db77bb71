"""Reads of a module-level dict by its old key in the project's other modules (`from conf import DEFAULTS`,
`import conf; conf.DEFAULTS[...]`): renamed where the dict reaches TrainingArguments, such a read is a KeyError, so
`dictflow` reports the key as an `own-reader` hazard that says where. The project's files are listed once per run, and
only one holding both the dict's name and the old key is parsed.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from checkpointing_migrate.project import project_folder, python_files
from checkpointing_migrate.receivers import module_file


@dataclass(frozen=True)
class Read:
    """One read of the old key in another module: the file (relative to the project folder), line, and the read."""

    where: str
    line: int
    read: str


@dataclass(eq=False)
class Importers:
    """The project's Python files, listed the first time a module-level dict asks (one per run: `Memo.once`)."""

    folders: dict[Path, list[Path]] = field(default_factory=dict)

    def read_elsewhere(self, base: Path, text: str, name: str, old: str) -> Read | None:
        """The first read of `name[old]` (also `.get`/`.pop`, `in`) in another module of the project that imports the
        module-level `name` from the module whose folder is `base` and whose source is `text`."""
        root, whole = project_folder(base)
        if root not in self.folders:
            self.folders[root] = list(python_files(root, whole))
        needles = (name.encode(), old.encode())
        for path in self.folders[root]:
            try:
                data = path.read_bytes()
                if not all(n in data for n in needles):
                    continue
                found = _read_in(ast.parse(data), path.parent, base, text, name, old)
            except (OSError, SyntaxError, ValueError, RecursionError):
                continue  # a file that cannot be read or parsed is reported when checked itself
            if found is not None:
                return Read(_shown(path, root), *found)
        return None


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def _read_in(tree: ast.Module, folder: Path, base: Path, text: str, name: str, old: str) -> tuple[int, str] | None:
    """(line, read) of the first read of the old key off `name` as this module imports it, or `None`."""
    names, holders = _imported(tree, folder, base, text, name)
    if not names and not holders:
        return None

    def is_dict(expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in names
        return isinstance(expr, ast.Attribute) and expr.attr == name and ast.unparse(expr.value) in holders

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Store) and is_dict(node.value):
            hit = _key(node.slice) == old
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_dict(node.func.value):
            hit = node.func.attr in ("get", "pop") and bool(node.args) and _key(node.args[0]) == old
        elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
            hit = _key(node.left) == old and is_dict(node.comparators[0])
        else:
            continue
        if hit:
            return node.lineno, ast.unparse(node)
    return None


def _imported(tree: ast.Module, folder: Path, base: Path, text: str, name: str) -> tuple[set[str], set[str]]:
    """(the names this module binds the dict to, the dotted names it binds the dict's module to)."""
    names: set[str] = set()
    holders: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            prefix = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == name and _is_module(folder, prefix, base, text):
                    names.add(alias.asname or name)
                joined = prefix + ("." if node.module else "") + alias.name
                if _is_module(folder, joined, base, text):
                    holders.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_module(folder, alias.name, base, text):
                    holders.add(alias.asname or alias.name)
    return names, holders


def _is_module(folder: Path, module: str, base: Path, text: str) -> bool:
    """Whether `module`, imported from a file in `folder`, is the file in `base` whose source is `text`."""
    path = module_file(folder, module) if module.strip(".") else None
    if path is None or path.parent.resolve() != base.resolve():
        return False
    data = path.read_bytes()
    return data.decode(tokenize.detect_encoding(io.BytesIO(data).readline)[0]) == text


def _key(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
