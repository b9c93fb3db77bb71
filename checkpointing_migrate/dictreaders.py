"""The project's other modules that import a module-level dict (`from conf import DEFAULTS`, `import conf;
conf.DEFAULTS[...]`, `from conf import *`), and where they name it: `dictflow` judges those uses with the module's own
(a `TrainingArguments(**DEFAULTS)` there proves the consumer; a read by the old key there is a KeyError once renamed, an
`own-reader` hazard that says where). The project's files are listed once per run, each is read once per dict name,
and only one holding the dict's name is parsed.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from checkpointing_migrate.project import project_folder, python_files
from checkpointing_migrate.receivers import module_file


@dataclass(frozen=True)
class Importer:
    """Another module of the project that imports the module-level dict: its file (relative to the project folder),
    its tree, and the expressions that name the dict there (`DEFAULTS`, `conf.DEFAULTS`)."""

    where: str
    path: Path
    tree: ast.Module
    names: tuple[ast.expr, ...]


@dataclass(eq=False)
class Importers:
    """The project's Python files, listed the first time a module-level dict asks (one per run: `Memo.once`), and
    what the run read of them: each file once per dict name, and only one holding that name is parsed."""

    folders: dict[Path, list[Path]] = field(default_factory=dict)
    holding: dict[tuple[Path, str], list[tuple[Path, bytes]]] = field(default_factory=dict)
    """(project folder, a dict's name) → the files whose bytes hold the name, with those bytes."""
    kept: dict[Path, bytes | None] = field(default_factory=dict)
    """The bytes of each file that held a dict's name or that an import named (`None`: unreadable): read once."""
    found: dict[tuple[Path, str, str], list[Importer]] = field(default_factory=dict)

    def importers(self, base: Path, text: str, name: str) -> list[Importer]:
        """The other modules of the project that import the module-level `name` of the module whose folder is `base`
        and whose source is `text` (`from conf import DEFAULTS`, `import conf`, `from conf import *`)."""
        key = (base, text, name)
        if key not in self.found:
            self.found[key] = list(self._importers(base, text, name))
        return self.found[key]

    def _importers(self, base: Path, text: str, name: str) -> Iterator[Importer]:
        root, whole = project_folder(base)
        for path, data in self._holding(root, whole, name):
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError):
                continue  # a file that cannot be parsed is reported when checked itself
            names, holders = self._imported(tree, path.parent, base, text, name)
            if names or holders:
                found = tuple(n for n in ast.walk(tree) if _names_dict(n, name, names, holders))
                if found:
                    yield Importer(_shown(path, root), path, tree, found)

    def _holding(self, root: Path, whole: bool, name: str) -> list[tuple[Path, bytes]]:
        if root not in self.folders:
            self.folders[root] = list(python_files(root, whole))
        if (root, name) not in self.holding:
            self.holding[root, name] = []
            needle = name.encode()
            for path in self.folders[root]:
                data = self.kept[path] if path in self.kept else _read(path)
                if data is not None and needle in data:
                    self.kept[path] = data
                    self.holding[root, name].append((path, data))
        return self.holding[root, name]

    def _imported(self, tree: ast.Module, folder: Path, base: Path, text: str, name: str) -> tuple[set[str], set[str]]:
        """(the names this module binds the dict to, the dotted names it binds the dict's module to). A star import
        binds the dict when it is public: not `_`-prefixed, or listed in the module's literal `__all__`."""
        names: set[str] = set()
        holders: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                prefix = "." * node.level + (node.module or "")
                for alias in node.names:
                    star = alias.name == "*" and _exported(text, name)
                    if (alias.name == name or star) and self._is_module(folder, prefix, base, text):
                        names.add(name if star else alias.asname or name)
                    joined = prefix + ("." if node.module else "") + alias.name
                    if alias.name != "*" and self._is_module(folder, joined, base, text):
                        holders.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if self._is_module(folder, alias.name, base, text):
                        holders.add(alias.asname or alias.name)
        return names, holders

    def _is_module(self, folder: Path, module: str, base: Path, text: str) -> bool:
        """Whether `module`, imported from a file in `folder`, is the file in `base` whose source is `text`."""
        path = module_file(folder, module) if module.strip(".") else None
        if path is None or path.parent.resolve() != base.resolve():
            return False
        if path not in self.kept:
            self.kept[path] = _read(path)
        data = self.kept[path]
        try:
            return data is not None and data.decode(tokenize.detect_encoding(io.BytesIO(data).readline)[0]) == text
        except (SyntaxError, UnicodeDecodeError):
            return False


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None  # a file that cannot be read is reported when checked itself


def _exported(text: str, name: str) -> bool:
    """Whether `from module import *` binds `name` of the module whose source is `text`: listed in its literal
    `__all__` when it defines one, else public (no leading `_`)."""
    for node in ast.parse(text).body if "__all__" in text else ():
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
            node.value, (ast.List, ast.Tuple)
        ):
            return name in {_key(e) for e in node.value.elts}
    return not name.startswith("_")


def _names_dict(node: ast.AST, name: str, names: set[str], holders: set[str]) -> bool:
    """Whether `node` is a load of the dict: a name an import bound to it, or `holder.name`."""
    if isinstance(node, ast.Name):
        return node.id in names and not isinstance(node.ctx, ast.Store)
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and not isinstance(node.ctx, ast.Store)
        and ast.unparse(node.value) in holders
    )


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def _key(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
