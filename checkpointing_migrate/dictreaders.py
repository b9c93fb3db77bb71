"""The project's other modules that import a module-level dict (`from conf import DEFAULTS`, `import conf;
conf.DEFAULTS[...]`, `from conf import *`), and where they name it: `dictflow` judges those uses with the module's own
(a `TrainingArguments(**DEFAULTS)` there proves the consumer; a read by the old key there is a KeyError once renamed, an
`own-reader` hazard that says where). The project's files are listed once per run, each is read once per dict name,
and only one holding the dict's name is parsed, once per run.
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
    what the run read of them: each file once per dict name, and only one holding that name is parsed (once, however
    many dict modules bind the name)."""

    folders: dict[Path, list[Path]] = field(default_factory=dict)
    holding: dict[tuple[Path, str], list[tuple[Path, bytes]]] = field(default_factory=dict)
    """(project folder, a dict's name) → the files whose bytes hold the name, with those bytes."""
    kept: dict[Path, bytes | None] = field(default_factory=dict)
    """The bytes of each file that held a dict's name or that an import named (`None`: unreadable): read once."""
    trees: dict[Path, ast.Module | None] = field(default_factory=dict)
    """The tree of each file that held a dict's name (`None`: does not parse): parsed once per run."""
    exports: dict[tuple[str, str], bool] = field(default_factory=dict)
    """(a dict module's source, the dict's name) → whether `from module import *` binds it (`_exported`)."""
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
            tree = self._tree(path, data)
            if tree is None:
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

    def _tree(self, path: Path, data: bytes) -> ast.Module | None:
        """The tree of the file at `path`: a file holding a name that several dict modules bind is parsed once."""
        if path not in self.trees:
            try:
                self.trees[path] = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError):
                self.trees[path] = None
        return self.trees[path]

    def _imported(self, tree: ast.Module, folder: Path, base: Path, text: str, name: str) -> tuple[set[str], set[str]]:
        """(the names this module binds the dict to, the dotted names it binds the dict's module to). A star import
        binds the dict when `_exported` says so, asked only of an import of the dict's own module."""
        names: set[str] = set()
        holders: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                prefix = "." * node.level + (node.module or "")
                for alias in node.names:
                    if alias.name in (name, "*") and self._is_module(folder, prefix, base, text):
                        if alias.name == name:
                            names.add(alias.asname or name)
                        elif self._exported(text, name):
                            names.add(name)
                    joined = prefix + ("." if node.module else "") + alias.name
                    if alias.name != "*" and self._is_module(folder, joined, base, text):
                        holders.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if self._is_module(folder, alias.name, base, text):
                        holders.add(alias.asname or alias.name)
        return names, holders

    def _exported(self, text: str, name: str) -> bool:
        """`_exported`, parsing the dict's module once however many star imports of it the project's files make."""
        if (text, name) not in self.exports:
            self.exports[text, name] = _exported(text, name)
        return self.exports[text, name]

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
    """Whether `from module import *` binds `name` of the module whose source is `text`: public (no leading `_`) when
    it has no `__all__`, else listed in it. Only an `__all__` the tool can follow whole (`_listed`) leaves a name out:
    any other, built from another module's or in a loop, may list it, so it counts as exported."""
    tree = ast.parse(text) if "__all__" in text else ast.Module([], [])
    mentions = [n for n in ast.walk(tree) if _is_all(n)]
    if not mentions:
        return not name.startswith("_")
    listed = _listed(tree, mentions)
    return listed is None or name in listed


def _listed(tree: ast.Module, mentions: list[ast.AST]) -> set[str] | None:
    """The names the module's `__all__` lists, when each statement that binds or changes it is at module level and
    literal (`__all__ = [...]`, `__all__ += [...]`, `__all__.append("X")`, `__all__.extend([...])`) and nothing else
    names it (`mentions`: every node that does); else `None`."""
    listed: set[str] | None = None
    followed: set[int] = set()
    for node in tree.body:
        change = _all_change(node)
        if change is None:
            continue
        assign, names, mention = change
        if names is None or (listed is None and not assign):
            return None  # not literal, or changed before it is bound
        listed = set(names) if assign or listed is None else listed | set(names)
        followed.add(id(mention))
    return listed if all(id(n) in followed for n in mentions) else None


def _all_change(node: ast.stmt) -> tuple[bool, list[str] | None, ast.expr] | None:
    """(whether it binds anew, the literal names it adds or `None` when not literal, the `__all__` it names) for a
    module-level statement that binds or changes `__all__` the way `_listed` follows; `None` for any other."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        if _is_all(target):
            return True, _strings(value), target
    if isinstance(node, ast.AnnAssign) and _is_all(node.target) and node.value is not None:
        return True, _strings(node.value), node.target
    if isinstance(node, ast.AugAssign) and _is_all(node.target) and isinstance(node.op, ast.Add):
        return False, _strings(node.value), node.target
    call = node.value if isinstance(node, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and _is_all(call.func.value):
        if call.func.attr in ("append", "extend") and len(call.args) == 1 and not call.keywords:
            value = ast.List([call.args[0]]) if call.func.attr == "append" else call.args[0]
            return False, _strings(value), call.func.value
    return None


def _is_all(node: ast.AST) -> bool:
    """Whether `node` names `__all__`: a name, or an import or `global` of it."""
    if isinstance(node, ast.Name):
        return node.id == "__all__"
    if isinstance(node, ast.alias):
        return "__all__" in (node.name, node.asname)
    return isinstance(node, ast.Global) and "__all__" in node.names


def _strings(node: ast.expr) -> list[str] | None:
    """The strings of a literal list or tuple of strings; `None` for anything else."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    found = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return found if len(found) == len(node.elts) else None


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
