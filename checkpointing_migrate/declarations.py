"""Where a project declares its transformers requirement: one reader per file kind, never executing anything.

Each reader returns `DependencyList`s, what one installation takes together (`[project.dependencies]`, an extra, a
group, a requirements file with its includes, conda, uv's overrides in `[tool.uv]`, `uv.toml` or a workspace root);
`requirements.union` makes the releases the project may run of them. Problems raise `RequirementError` at `PATH:LINE:COL`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from checkpointing_migrate.codes import message, problem
from checkpointing_migrate.located import LocatedError, Position

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

PACKAGE = "transformers"
"""The package whose releases the shipped renames belong to."""

PLACES = "pyproject.toml, requirements*.txt, requirements/*.txt, setup.cfg, setup.py or environment.yml"
"""Where the tool looks, for messages (the readers below, in `READERS`' order)."""


class RequirementError(LocatedError):
    """A requirement that cannot be read, at `PATH:LINE:COL`; the message says how to fix it."""


@dataclass(frozen=True)
class Declared:
    """One requirement on transformers."""

    specifier: SpecifierSet
    where: str
    """The file and the list it is in, for the announcement: `pyproject.toml [project.optional-dependencies] dev`."""
    marked: bool = False
    """Applies only in some environments (a PEP 508 marker, Poetry's `python`/`markers`)."""


class DependencyList(NamedTuple):
    """What one installation takes together (a named tuple: the class is made at every start, a frozen dataclass
    costs several times as much to make)."""

    role: str
    """`core` (installed with the project), `extra` (with the project, on request: extras and groups), `alone`
    (an installation of its own: a requirements file, a conda environment) or `override` (uv's, which replaces every
    requirement on transformers when uv resolves: a way of its own, but only where something requires it)."""
    requirements: tuple[Declared, ...]


def shown(path: Path) -> str:
    """`path` relative to the working folder when it is inside it (as the user typed the project), else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def position(name: str, text: str, needle: str, start: int = 0) -> Position:
    """Where the first `needle` in `text` (the file `name`) at or after offset `start` is (`1:1` if absent)."""
    index = text.find(needle, start)
    if index < 0:
        return Position(name, 1, 1)
    line_start = text.rfind("\n", 0, index) + 1
    return Position(name, text.count(chr(10), 0, index) + 1, index - line_start + 1)


_NAME = re.compile(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*")
_PEP508 = rf"\s*{PACKAGE}(?![A-Za-z0-9._-])\s*(?:\[[^\]]*\]\s*)?(?P<spec>[^;@]*)(?P<url>@[^;]*)?(?P<marker>;.*)?$"
"""A requirement on transformers, matched case-insensitively; compiled (by `re`'s cache) only when a requirement is read."""


def named(text: str) -> str | None:
    """The package a requirement names, as written (`None` when it names none)."""
    name = _NAME.match(text)
    return name.group(0).strip() if name and name.group(0).strip() else None


def names_transformers(text: str) -> bool:
    name = named(text)
    return name is not None and name.lower().replace("_", "-").replace(".", "-") == PACKAGE


def pep508(text: str) -> tuple[SpecifierSet, bool] | None:
    """The version specifier of a PEP 508 requirement on transformers and whether it has a marker (extras aside; a
    URL requirement allows any version); `None` when `text` requires another package. `packaging.requirements`
    would parse the same, at the cost of a tenth of a pre-commit `scan`'s start-up; `ValueError` when it is bad."""
    from packaging.specifiers import SpecifierSet  # here, not at the top: most scans read no requirement

    if not names_transformers(text):
        return None
    found = re.match(_PEP508, text, re.IGNORECASE)
    if found is None:
        raise ValueError(f"cannot read {text.strip()!r}")
    spec = found.group("spec").strip()
    spec = spec[1:-1].strip() if spec.startswith("(") and spec.endswith(")") else spec
    return SpecifierSet("" if found.group("url") else spec), found.group("marker") is not None


def _declared(text: str, where: str, at: Position) -> Declared | None:
    """`text` read as PEP 508 if it requires transformers; `at` is where it stands, for the error."""
    try:
        parsed = pep508(text)
    except ValueError as exc:
        said = problem("pep508", text=repr(text.strip()), error=exc, package=PACKAGE)
        raise RequirementError(at, said) from None
    return None if parsed is None else Declared(parsed[0], where, parsed[1])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RequirementError(Position(shown(path), 1, 1), problem("not-utf8", error=exc)) from None


# --- requirements files ---------------------------------------------------------------------------------------------

# Patterns of one place each are text, compiled (and cached) by `re` on first use: most scans never read them.
_INCLUDE = r"(?:-(?P<short>[rc])\s*|--(?P<long>requirement|constraint)(?:\s*=\s*|\s+))(?P<file>\S+)$"


class _Requirements:
    """One requirements file with its includes read: the requirements and the constraints (`-c`) on transformers (a
    plain class: making a dataclass costs every start-up)."""

    def __init__(self, requirements: list[Declared], constraints: list[Declared], constraint_files: set[Path]) -> None:
        self.requirements, self.constraints, self.constraint_files = requirements, constraints, constraint_files


def _requirements_file(path: Path, chain: tuple[Path, ...] = ()) -> _Requirements:
    """`path` and, recursively, its `-r` (requirements) and `-c` (constraints) includes, relative to its folder as
    pip reads them; an include that is missing or comes back to a file being read is an error at its line."""
    text = _read(path)
    name = shown(path)
    out = _Requirements([], [], set())
    chain = (*chain, path.resolve())
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        if not line:
            continue
        at = Position(name, number, raw.find(line[0]) + 1)
        if line.startswith("-"):
            include = re.match(_INCLUDE, line)
            if include is None:
                continue  # another pip option (`-e .`, `--index-url`): no requirement on transformers
            if "://" in include.group("file"):
                continue  # a remote file: the tool reads nothing over the network
            target = path.parent / include.group("file")
            option = f"-{include.group('short')}" if include.group("short") else f"--{include.group('long')}"
            if target.resolve() in chain:
                loop = " → ".join(shown(p) for p in (*chain, target.resolve()))
                raise RequirementError(
                    at, problem("include-loop", include=f"{option} {include.group('file')}", loop=loop)
                )
            if not target.is_file():
                said = problem("include-missing", include=f"{option} {include.group('file')}", path=shown(target))
                raise RequirementError(at, said)
            inner = _requirements_file(target, chain)
            constraint = (include.group("short") or include.group("long")[0]) == "c"
            if constraint:
                out.constraints += inner.requirements + inner.constraints
                out.constraint_files.add(target.resolve())
            else:
                out.requirements += inner.requirements
                out.constraints += inner.constraints
            out.constraint_files |= inner.constraint_files
            continue
        if (declared := _declared(line, name, at)) is not None:
            out.requirements.append(declared)
    return out


def from_requirements(folder: Path) -> list[DependencyList]:
    """`requirements*.txt` and `requirements/*.txt`: each file is an installation of its own (`pip install -r`),
    except a file that another one includes with `-c` (a constraints file installs nothing)."""
    paths = [*sorted(folder.glob("requirements*.txt")), *sorted(folder.glob("requirements/*.txt"))]
    read = {p: _requirements_file(p) for p in paths if p.is_file()}
    constraint_files = {c for r in read.values() for c in r.constraint_files}
    lists = []
    for path, found in read.items():
        if path.resolve() in constraint_files or not found.requirements:
            continue  # constraints alone install nothing: the versions come from what names transformers
        name = shown(path)
        found_here = [d if d.where == name else replace(d, where=f"{name} via {d.where}") for d in found.requirements]
        lists.append(DependencyList("alone", tuple(found_here + found.constraints)))
    return lists


# --- pyproject.toml: PEP 621, PEP 735, Poetry --------------------------------------------------------------------------


def _strings(text: str, name: str, where: str, items: object, after: int = 0) -> list[Declared]:
    """The requirements on transformers among `items` (others, and tables, skipped); each found from offset
    `after` on, for its error's position."""
    found = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str) and names_transformers(item):
            declared = _declared(item, where, position(name, text, item, after))
            if declared is not None:
                found.append(declared)
    return found


def _groups(text: str, name: str, groups: dict[str, Any]) -> list[DependencyList]:
    """PEP 735 `[dependency-groups]`, `{include-group = "..."}` followed (a missing or circular one is an error)."""

    def members(group: str, chain: tuple[str, ...]) -> list[Declared]:
        found: list[Declared] = []
        items = groups[group]
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and "include-group" in item:
                inner = str(item["include-group"])
                written = re.search(rf"""include-group\s*=\s*["']{re.escape(inner)}["']""", text)
                at = position(name, text, written.group(0)) if written else Position(name, 1, 1)
                if inner in chain or inner == group:
                    loop = " → ".join((*chain, group, inner))
                    raise RequirementError(at, problem("include-loop", include=f"include-group {inner!r}", loop=loop))
                if inner not in groups:
                    raise RequirementError(at, problem("no-group", group=repr(inner)))
                found += members(inner, (*chain, group))
        found += _strings(text, name, f"{name} [dependency-groups] {group}", items)
        return found

    return [DependencyList("extra", tuple(members(g, ()))) for g in groups]


def _caret_or_tilde(operator: str, version: str) -> str:
    """Poetry's `^V` (up to the next change of the leftmost non-zero part) and `~V` (up to the next minor, or major
    when only a major is given) as PEP 440."""
    from packaging.version import Version

    release = list(Version(version).release)
    if operator == "^":
        index = next((i for i, part in enumerate(release) if part != 0), len(release) - 1)
    else:
        index = min(1, len(release) - 1)
    upper = [*release[:index], release[index] + 1]
    return f">={version},<{'.'.join(map(str, upper))}"


_POETRY_PART = r"(?P<op>\^|~=|~|===|==|!=|>=|<=|>|<|=)?\s*(?P<version>[0-9A-Za-z.*+!_-]+)"  # see `_INCLUDE`


def poetry_constraint(text: str) -> list[str]:
    """A Poetry version constraint as PEP 440 specifier sets, one per `||` alternative: `^5.23` → `>=5.23,<6`,
    `~5.23` → `>=5.23,<5.24`, `5.23.*` → `==5.23.*`, `5.23.0` → `==5.23.0`, `*` → any; `ValueError` when bad."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    alternatives = []
    for alternative in text.split("||"):
        parts = []
        rest = alternative.strip()
        while rest:
            part = re.match(_POETRY_PART, rest)
            if part is None:
                raise ValueError(f"cannot read {rest!r}")
            rest = rest[part.end() :].lstrip(" ,")
            op, version = part.group("op") or "", part.group("version")
            if version == "*" and not op:
                continue
            if op in ("^", "~"):
                parts.append(_caret_or_tilde(op, version))
            else:
                parts.append(f"{'==' if op in ('', '=') else op}{version}")
        spec = ",".join(parts)
        try:
            SpecifierSet(spec)
        except InvalidSpecifier as exc:
            raise ValueError(str(exc)) from None
        alternatives.append(spec)
    return alternatives


def _poetry(text: str, name: str, table: dict[str, Any], label: str) -> tuple[list[Declared], list[Declared]]:
    """The transformers entries of one Poetry dependency table: (required, optional); `{optional = true}` ones
    are installed only through an extra."""
    from packaging.specifiers import SpecifierSet

    required: list[Declared] = []
    optional: list[Declared] = []
    for key, value in table.items():
        if not names_transformers(key) or _NAME.fullmatch(key) is None:
            continue
        at = position(name, text, key, max(text.find(label[label.rfind(" [") + 1 :]), 0))
        entries = value if isinstance(value, list) else [value]
        marked = len(entries) > 1  # several constraints: Poetry picks one by `python`/`markers`
        for entry in entries:
            if isinstance(entry, str):
                entry = {"version": entry}
            if not isinstance(entry, dict):
                raise RequirementError(at, problem("poetry-entry", key=key, value=repr(value)))
            constraint = entry.get("version", "*")  # git, path and url dependencies name no version
            try:
                alternatives = poetry_constraint(str(constraint))
            except ValueError as exc:
                raise RequirementError(at, problem("poetry", constraint=repr(constraint), error=exc)) from None
            each_marked = marked or len(alternatives) > 1 or "python" in entry or "markers" in entry
            found = [Declared(SpecifierSet(a), label, each_marked) for a in alternatives]
            (optional if entry.get("optional") else required).extend(found)
    return required, optional


def _uv_overrides(text: str, name: str, uv: object, table: str = " [tool.uv]") -> list[DependencyList]:
    """`[tool.uv] override-dependencies`, one way each: uv replaces every requirement on transformers with them (the
    project's own, an extra's, markers or not), and several must differ by marker, so each holds somewhere. A scoped
    override (a table) replaces only another package's requirement, which the project's own still narrows, and
    `constraint-dependencies` only narrow uv's resolution: pip ignores both, so neither changes the union. `table`
    is where the list stands, for the announcement (`uv.toml` has it at the top)."""
    items = uv.get("override-dependencies", []) if isinstance(uv, dict) else []
    after = max(text.find("override-dependencies"), 0)
    found = _strings(text, name, f"{name}{table} override-dependencies", items, after)
    return [DependencyList("override", (d,)) for d in found]


def toml_problem(name: str, text: str, exc: ValueError) -> tuple[Position, str]:
    """Where the TOML `text` of the file `name` stops parsing and what to say of it: tomllib gives the position only
    inside its message (`Invalid value (at line 3, column 10)`, `(at end of document)`: its last line), which is cut
    off, as the prefix says where."""
    said = str(exc)
    found = re.search(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$", said)
    if found and found[1]:
        at = Position(name, int(found[1]), int(found[2]))
    else:
        at = Position(name, len(text.splitlines()) or 1, 1)
    return at, message("file-error", "toml", error=said[: found.start()] if found else said)


def _toml(path: Path) -> tuple[str, str, dict[str, Any]]:
    """The text, shown name and data of the TOML file `path`; a file that does not parse is an error at its line."""
    import tomllib

    text, name = _read(path), shown(path)
    try:
        return text, name, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RequirementError(*toml_problem(name, text, exc)) from None


def from_uv_toml(folder: Path) -> list[DependencyList]:
    """`uv.toml`'s top-level `override-dependencies`: `uv pip install` in its folder applies them (in place of
    `[tool.uv]`'s, which `uv sync` still applies), so they are one more way to install, as `[tool.uv]`'s are."""
    path = folder / "uv.toml"
    if not path.is_file():
        return []
    text, name, data = _toml(path)
    return _uv_overrides(text, name, data, table="") if PACKAGE in text.lower() else []


def _is_member(root: Path, folder: Path, workspace: object) -> bool:
    """Whether `folder` (which exists) is a member of the uv workspace at `root`: a `members` glob (relative to
    `root`) names it and no `exclude` glob does. Its path is matched against the globs (`_glob_matches`), as uv does:
    no walk of the tree for every pattern."""
    parts = folder.relative_to(root).parts

    def named(key: str) -> bool:
        patterns = workspace.get(key, []) if isinstance(workspace, dict) else []
        return any(_glob_matches(str(p), parts) for p in (patterns if isinstance(patterns, list) else []) if p)

    return named("members") and not named("exclude")


def _glob_matches(pattern: str, parts: tuple[str, ...]) -> bool:
    """Whether the glob `pattern` (`packages/*`, `libs/**`, `./src/`) names the relative path `parts`: each segment
    is matched on its own (`*` stays inside one folder name, and a leading dot is matched only by a dot, as a glob
    on disk does), `**` matches any number of folders."""
    import fnmatch
    import posixpath

    segments = [s for s in posixpath.normpath(pattern.strip("/")).split("/") if s != "."]
    if segments and segments[0] == "..":
        return False  # a member outside the root: not a folder below it

    def match(i: int, j: int) -> bool:
        if i == len(segments):
            return j == len(parts)
        if segments[i] == "**":
            return any(match(i + 1, k) for k in range(j, len(parts) + 1))
        if j == len(parts) or (parts[j].startswith(".") and not segments[i].startswith(".")):
            return False
        return fnmatch.fnmatchcase(parts[j], segments[i]) and match(i + 1, j + 1)

    return match(0, 0)


def from_workspace_root(folder: Path) -> list[DependencyList]:
    """The `[tool.uv] override-dependencies` of the uv workspace `folder` is a member of: `uv sync` reads overrides
    only at the workspace root and applies them to every member, so the root's count here as the member's own. The
    root is the nearest folder above (up to a repository's top) whose `pyproject.toml` has `[tool.uv.workspace]`
    naming `folder`; one that does not mention transformers is not parsed (it overrides nothing). The root's
    `constraint-dependencies` only narrow what the member declares, as the member's own do: nothing to add."""
    import os

    from checkpointing_migrate.project import repository_root

    folder = Path(os.path.realpath(folder))
    top = repository_root(str(folder))
    above = list(folder.parents)
    if top is not None:  # the search stops at the repository's top, which may be `folder` itself
        above = above[: above.index(Path(top)) + 1] if Path(top) != folder else []
    for root in above:
        path = root / "pyproject.toml"
        if path.is_file():
            text = _read(path)
            if "workspace" in text and PACKAGE in text.lower():
                text, name, data = _toml(path)
                tool = data.get("tool", {})
                uv = tool.get("uv", {}) if isinstance(tool, dict) else {}
                if isinstance(uv, dict) and _is_member(root, folder, uv.get("workspace")):
                    return _uv_overrides(text, name, uv)
    return []


def from_pyproject(folder: Path) -> list[DependencyList]:
    """`[project]` dependencies and optional-dependencies, `[dependency-groups]`, Poetry's main dependencies,
    groups and dev-dependencies, and uv's `[tool.uv] override-dependencies`."""
    path = folder / "pyproject.toml"
    if not path.is_file():
        return []
    text, name, data = _toml(path)  # even without transformers: a file that does not parse may say anything
    if PACKAGE not in text.lower():
        return []  # the common case for a tool's own pyproject: no packaging import
    project = data.get("project", {})
    core = _strings(text, name, f"{name} [project.dependencies]", project.get("dependencies", []))
    lists = []
    extras = project.get("optional-dependencies", {})
    for extra, items in extras.items() if isinstance(extras, dict) else ():
        lists.append(
            DependencyList(
                "extra", tuple(_strings(text, name, f"{name} [project.optional-dependencies] {extra}", items))
            )
        )
    groups = data.get("dependency-groups", {})
    if isinstance(groups, dict):
        lists += _groups(text, name, groups)
    tool = data.get("tool", {})
    lists += _uv_overrides(text, name, tool.get("uv", {}) if isinstance(tool, dict) else {})
    poetry = tool.get("poetry", {}) if isinstance(tool, dict) else {}
    tables = [
        ("dependencies", poetry.get("dependencies", {})),
        ("dev-dependencies", poetry.get("dev-dependencies", {})),
    ]
    groups_table = poetry.get("group", {})
    for group, body in groups_table.items() if isinstance(groups_table, dict) else ():
        tables.append((f"group.{group}.dependencies", body.get("dependencies", {}) if isinstance(body, dict) else {}))
    for section, table in tables:
        if not isinstance(table, dict):
            continue
        required, optional = _poetry(text, name, table, f"{name} [tool.poetry.{section}]")
        if section == "dependencies":
            core += required
        elif required:
            lists.append(DependencyList("extra", tuple(required)))
        lists += [DependencyList("extra", (o,)) for o in optional]
    return [DependencyList("core", tuple(core)), *lists]


# --- setup.cfg, setup.py -----------------------------------------------------------------------------------------------


def _lines(text: str, name: str, where: str, value: str, after: int) -> list[Declared]:
    found = []
    for line in value.splitlines():
        line = line.split("#")[0].strip()
        if line and names_transformers(line):
            declared = _declared(line, where, position(name, text, line, after))
            if declared is not None:
                found.append(declared)
    return found


def from_setup_cfg(folder: Path) -> list[DependencyList]:
    """`[options] install_requires` and `[options.extras_require]`, read with `configparser`."""
    path = folder / "setup.cfg"
    if not path.is_file():
        return []
    import configparser

    text, name = _read(path), shown(path)
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, name)
    except configparser.Error as exc:  # its message: what, then the file and line again, then the line's text
        at = Position(name, getattr(exc, "lineno", None) or 1, 1)
        raise RequirementError(at, message("file-error", "ini", error=str(exc).splitlines()[0].rstrip("."))) from None
    after = max(text.find("[options]"), 0)
    core = _lines(
        text, name, f"{name} [options] install_requires", parser.get("options", "install_requires", fallback=""), after
    )
    lists = [DependencyList("core", tuple(core))]
    if parser.has_section("options.extras_require"):
        after = text.find("[options.extras_require]")
        for extra, value in parser.items("options.extras_require"):
            where = f"{name} [options.extras_require] {extra}"
            lists.append(DependencyList("extra", tuple(_lines(text, name, where, value, after))))
    return lists


def from_setup_py(folder: Path) -> list[DependencyList]:
    """`setup(install_requires=..., extras_require=...)` read with `ast`, never run: lists and dicts of strings,
    directly or through a module-level name. A value computed at run time is an error when the file mentions
    transformers (the tool cannot know the range), and ignored otherwise."""
    path = folder / "setup.py"
    if not path.is_file():
        return []
    text, name = _read(path), shown(path)
    if PACKAGE not in text.lower():
        return []
    import ast

    try:
        tree = ast.parse(text, name)
    except (SyntaxError, ValueError) as exc:
        at = Position(name, getattr(exc, "lineno", None) or 1, getattr(exc, "offset", None) or 1)
        raise RequirementError(at, message("file-error", "python", error=getattr(exc, "msg", exc))) from None
    names: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value

    def literal(node: ast.expr, keyword: str) -> Any:
        if isinstance(node, ast.Name) and node.id in names:
            node = names[node.id]
        try:
            return ast.literal_eval(node)
        except ValueError:
            raise RequirementError(
                Position(name, node.lineno, node.col_offset + 1),
                problem("computed", keyword=keyword),
            ) from None

    lists = []
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if not (
            isinstance(func, ast.Name)
            and func.id == "setup"
            or isinstance(func, ast.Attribute)
            and func.attr == "setup"
        ):
            continue
        assert isinstance(node, ast.Call)
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                value = literal(keyword.value, keyword.arg)
                items = [value] if isinstance(value, str) else list(value)
                lists.append(DependencyList("core", tuple(_strings(text, name, f"{name} install_requires", items))))
            elif keyword.arg == "extras_require":
                value = literal(keyword.value, keyword.arg)
                for extra, items in value.items() if isinstance(value, dict) else ():
                    items = [items] if isinstance(items, str) else list(items)
                    lists.append(
                        DependencyList("extra", tuple(_strings(text, name, f"{name} extras_require {extra}", items)))
                    )
    return lists


# --- conda environment.yml -------------------------------------------------------------------------------------------

_CONDA = r"\s*(?:[A-Za-z0-9_.-]+::)?(?P<name>[A-Za-z0-9_.-]+)\s*(?P<spec>[^\s#]*)\s*(?P<build>\S*)"  # see `_INCLUDE`


def conda_spec(text: str) -> list[str] | None:
    """A conda match spec on transformers as PEP 440 specifier sets (one per `|`): `=5.23` and `5.23` → `==5.23.*`,
    `==5.23` → `==5.23`, `>=5.23,<6` as is; `None` for another package; `ValueError` when bad."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    found = re.match(_CONDA, text)
    if found is None or found.group("name").lower() != PACKAGE:
        return None
    alternatives = []
    for alternative in found.group("spec").split("|") if found.group("spec") else [""]:
        parts = []
        for part in filter(None, alternative.split(",")):
            if part[0].isdigit():
                part = (
                    f"=={part.removesuffix('*').removesuffix('.')}.*"
                    if "*" in part or part.count(".") < 2
                    else f"=={part}"
                )
            elif part.startswith("=") and not part.startswith("=="):
                part = f"=={part[1:].removesuffix('*').removesuffix('.')}.*"
            parts.append(part)
        try:
            alternatives.append(str(SpecifierSet(",".join(parts))))
        except InvalidSpecifier as exc:
            raise ValueError(str(exc)) from None
    return alternatives


def from_environment(folder: Path) -> list[DependencyList]:
    """conda's `environment.yml` (or `.yaml`): `dependencies`, conda match specs, and its `pip:` list, PEP 508."""
    path = next((p for p in (folder / "environment.yml", folder / "environment.yaml") if p.is_file()), None)
    if path is None:
        return []
    text, name = _read(path), shown(path)
    if PACKAGE not in text.lower():
        return []
    import yaml
    from packaging.specifiers import SpecifierSet

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = Position(name, mark.line + 1, mark.column + 1) if mark else Position(name, 1, 1)
        said = problem("environment-yml", problem=message("file-error", "yaml", error=str(exc)))
        raise RequirementError(at, said) from None
    entries = data.get("dependencies", []) if isinstance(data, dict) else []
    found: list[Declared] = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            found += _strings(text, name, f"{name} dependencies pip", entry.get("pip", []))
        elif isinstance(entry, str):
            try:
                alternatives = conda_spec(entry)
            except ValueError as exc:
                said = problem("conda", entry=repr(entry), error=exc)
                raise RequirementError(position(name, text, entry), said) from None
            for spec in alternatives or ():
                found.append(Declared(SpecifierSet(spec), f"{name} dependencies", len(alternatives or ()) > 1))
    return [DependencyList("alone", tuple(found))]


READERS = (
    from_pyproject,
    from_uv_toml,
    from_workspace_root,
    from_requirements,
    from_setup_cfg,
    from_setup_py,
    from_environment,
)
"""Every reader, each taking the project folder."""
DECLARING = ("pyproject.toml", "requirements", "setup.cfg", "setup.py", "environment.yml", "environment.yaml")
"""How the names of the files (and the folder) the readers read start: a folder holding none declares nothing."""
