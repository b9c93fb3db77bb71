"""The two packages and their roles, as the import statements show them: read with `ast` (deferred and
`TYPE_CHECKING` imports included), the tool never imports the site generator nor anything beyond PyYAML and packaging;
each module imported alone in a fresh interpreter loads only the roles it may use, and importing it does no work."""

from __future__ import annotations

import ast
import builtins
import importlib.util
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import checkpointing_migrate
import generator

ROOT = Path(__file__).resolve().parent.parent


def _modules(package: object) -> list[str]:
    name = package.__name__  # type: ignore[attr-defined]
    found = pkgutil.walk_packages(package.__path__, f"{name}.")  # type: ignore[attr-defined]
    return [name, *sorted(m.name for m in found if not m.name.endswith("__main__"))]


TOOL = _modules(checkpointing_migrate)
SITE = _modules(generator)

TOOL_THIRD_PARTY = {"yaml", "packaging"}
"""What the wheel depends on (`[project] dependencies`); the pytest plugin may also import pytest, which loads it."""

CORE = ("generator", "generator.oldnames", "generator.paths", "generator.problems", "generator.cli")
"""Exact module names here; a name ending in "." below allows a whole role package."""
MEASURE_DATA = (
    "generator.measure",
    "generator.measure.data",
    "generator.measure.adoption_data",
    "generator.measure.scenarios",
    "generator.measure.rehearsal_data",
)
"""What the pages may read of the measuring role: the typed loaders of data/*.json and their vocabulary, nothing that
measures."""

HEAVY = ("torch", "transformers", "jinja2", "mkdocs", "peft", "trl", "accelerate", "griffe")


def _source(module: str) -> Path:
    return Path(importlib.util.find_spec(module).origin)  # type: ignore[union-attr, arg-type]


def _is_project_module(name: str) -> bool:
    """Whether `name` is a module or package of this tree (a file, not whatever a package's `__init__` defines)."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(module: str) -> list[tuple[int, str]]:
    """Every module that `module`'s source imports, anywhere in the file, with its line; relative imports resolved."""
    path = _source(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports_in(path.read_text(encoding="utf-8"), package)


def _imports_in(source: str, package: str) -> list[tuple[int, str]]:
    """The modules `source` (a module of `package`) imports, with their lines: `from PKG import NAME` counts as
    `PKG.NAME` when that is a module of the tree, so a submodule is judged by its own name, not its package's."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names]
            modules = [name for name in names if _is_project_module(name)]
            found += [(node.lineno, name) for name in modules]
            if len(modules) < len(names):  # a name the package itself defines
                found.append((node.lineno, base))
    return found


def test_the_import_reader_names_the_submodule_a_deferred_from_import_loads() -> None:
    source = "def view() -> None:\n    from generator.measure import matrix, data\n    from . import views\n"
    found = _imports_in(source, "generator.pages")
    assert found == [(2, "generator.measure.matrix"), (2, "generator.measure.data"), (3, "generator.pages.views")]
    assert not _site_arrow_allowed("generator.pages.views", "generator.measure.matrix")
    assert _imports_in("from generator.measure import MatrixError\n", "generator.pages") == [(1, "generator.measure")]


@pytest.mark.parametrize("module", TOOL)
def test_the_tool_imports_only_itself_the_stdlib_pyyaml_and_packaging(module: str) -> None:
    allowed = TOOL_THIRD_PARTY | {"plugin": {"pytest"}, "sitecustomize": {"sitecustomize"}}.get(
        module.rpartition(".")[2], set()
    )
    wrong = [
        f"{_source(module).relative_to(ROOT)}:{line}: imports {name}"
        for line, name in _imported(module)
        if (top := name.split(".")[0]) != "checkpointing_migrate"
        and top not in sys.stdlib_module_names
        and top not in allowed
    ]
    assert not wrong, "\n".join(wrong)


def _allowed(module: str) -> tuple[str, ...]:
    """The `generator` modules (and prefixes) that importing `module` may load."""
    if module.startswith("generator.pages"):
        return (*CORE, *MEASURE_DATA, "generator.pages", "generator.pages.")
    if module.startswith("generator.measure"):
        return (*CORE, "generator.measure", "generator.measure.")
    return CORE


def _loaded(module: str, tmp: Path) -> set[str]:
    code = f"import sys, {module}; print(*sorted(sys.modules))"
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("module", SITE + TOOL)
def test_a_module_loads_only_the_roles_it_may_use_and_does_no_work(module: str, tmp_path: Path) -> None:
    loaded = _loaded(module, tmp_path)
    if module.startswith("checkpointing_migrate"):
        site = sorted(m for m in loaded if m.split(".")[0] == "generator")
        assert not site, f"importing {module} loads the site generator: {site}"
    else:
        ours = {m for m in loaded if m.split(".")[0] == "generator"}
        allowed = _allowed(module)
        outside = sorted(m for m in ours if not any(m.startswith(a) if a.endswith(".") else m == a for a in allowed))
        assert not outside, f"importing {module} loads {outside}"
    assert not list(tmp_path.iterdir()), f"importing {module} wrote {list(tmp_path.iterdir())}"


def test_the_tool_and_the_page_renderer_load_nothing_heavy(tmp_path: Path) -> None:
    for module in ("checkpointing_migrate.cli", "checkpointing_migrate.commands", "checkpointing_migrate.files"):
        heavy = sorted(m for m in _loaded(module, tmp_path) if m.split(".")[0] in HEAVY)
        assert not heavy, f"{module} loads {heavy}"
    render = _loaded("generator.pages.render", tmp_path)
    assert not {m for m in render if m.split(".")[0] in ("torch", "transformers", "peft", "trl")}


def test_the_pytest_plugin_imports_nothing_until_asked(tmp_path: Path) -> None:
    """Every pytest start in a venv with the tool loads the plugin: without `--v6-preview` it loads no table, no
    PyYAML, no packaging."""
    loaded = _loaded("checkpointing_migrate.rehearse.plugin", tmp_path)
    ours = sorted(m for m in loaded if m.split(".")[0] in ("checkpointing_migrate", "yaml", "packaging"))
    assert ours == ["checkpointing_migrate", "checkpointing_migrate.rehearse", "checkpointing_migrate.rehearse.plugin"]


@pytest.mark.parametrize("module", [*SITE, *TOOL, "generator.__main__", "checkpointing_migrate.__main__"])
def test_a_module_docstring_has_three_to_five_lines(module: str) -> None:
    """House style: what the module is for and its key contract; details live next to the code they explain."""
    # Read from the source, not by importing: a `__main__` module runs when imported.
    docstring = ast.get_docstring(ast.parse(_source(module).read_text(encoding="utf-8")), clean=False)
    assert docstring, f"{module} has no module docstring"
    lines = docstring.strip("\n").splitlines()
    assert 3 <= len(lines) <= 5, f"{module}'s docstring has {len(lines)} lines"


def _site_arrow_allowed(module: str, imported: str) -> bool:
    """Inside the site generator: pages read measured data but never run measuring; measuring never renders (the
    command line does, once measuring has returned its data); nothing but `__main__` imports the command line."""
    if imported == "generator.cli":
        return module == "generator.__main__"
    if module.startswith("generator.measure"):
        return not imported.startswith("generator.pages")
    if module.startswith("generator.pages"):
        return not imported.startswith("generator.measure") or imported in MEASURE_DATA
    return True


@pytest.mark.parametrize("module", [*SITE, "generator.__main__"])
def test_the_site_generator_imports_flow_one_way(module: str) -> None:
    wrong = [
        f"{_source(module).relative_to(ROOT)}:{line}: imports {name}"
        for line, name in _imported(module)
        if name.split(".")[0] == "generator" and not _site_arrow_allowed(module, name)
    ]
    assert not wrong, "\n".join(wrong)


def _project_imports(module: str, modules: set[str]) -> set[str]:
    """The project's modules that `module` imports (`from package import module` counts as the module, not as the
    package's own code)."""
    found = {name for _, name in _imported(module)}
    packages_used = set()
    for node in ast.walk(ast.parse(_source(module).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {f"{node.module}.{alias.name}" for alias in node.names}
            found |= names
            if not names <= modules:
                packages_used.add(node.module)  # a name defined by the package itself
        elif isinstance(node, ast.Import):
            packages_used |= {alias.name for alias in node.names}
    submodule_parents = {n.rsplit(".", 1)[0] for n in found & modules if "." in n}
    found -= submodule_parents - packages_used
    return (found & modules) - {module}


def test_no_modules_import_each_other() -> None:
    """A cycle (even through a `TYPE_CHECKING` import) means two modules hold one concern between them."""
    modules = set(TOOL) | set(SITE)
    graph = {m: _project_imports(m, modules) for m in modules}
    cycles = set()
    for start in sorted(modules):
        path, todo = {start: [start]}, [start]
        while todo:
            for nxt in sorted(graph[(here := todo.pop())]):
                if nxt == start:
                    cycles.add(" -> ".join([*path[here], start]))
                elif nxt not in path:
                    path[nxt] = [*path[here], nxt]
                    todo.append(nxt)
    assert not cycles, "\n".join(sorted(cycles))


NOT_IN_THE_REFERENCE = {
    "checkpointing_migrate": "the page's introduction says what the package is; its one name, NAME, is the wheel's",
    "generator": "the page's introduction says what the package is; it defines nothing",
    "generator.measure": "its section's introduction says what the package is; it defines nothing",
    "generator.pages": "its section's introduction says what the package is; it defines nothing",
    "checkpointing_migrate.rehearse.startup": "a folder `rehearse` puts on PYTHONPATH, a package only to be shipped",
    "checkpointing_migrate.rehearse.startup.sitecustomize": "Python's startup hook, run by name, not called: no "
    "public names",
}
"""The modules of both packages that `docs/reference.md` leaves out on purpose, each with why."""


def test_the_reference_documents_every_module_but_the_ones_left_out_on_purpose() -> None:
    documented = re.findall(r"^::: (\S+)$", (ROOT / "docs" / "reference.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert len(documented) == len(set(documented)), "a module is documented twice"
    missing = sorted((set(TOOL) | set(SITE)) - set(documented) - set(NOT_IN_THE_REFERENCE))
    assert missing == [], f"add `::: MODULE` to docs/reference.md, or say why not in NOT_IN_THE_REFERENCE: {missing}"
    assert set(documented) <= set(TOOL) | set(SITE), "docs/reference.md documents a module that does not exist"
    assert not set(documented) & set(NOT_IN_THE_REFERENCE), "a module left out on purpose is documented"


def test_the_readmes_layout_table_names_every_module() -> None:
    """Each module file is named in the README's layout row of the deepest folder that has one (`startup/
    sitecustomize.py` in `checkpointing_migrate/rehearse/`'s); a package's `__init__.py` is the row itself."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([\w/]+)/` \| (.*) \|$", readme, re.MULTILINE))
    unnamed = []
    for module in TOOL + SITE:
        path = _source(module).relative_to(ROOT)
        if path.name == "__init__.py":
            continue
        folder = next(str(p) for p in path.parents if str(p) in rows)
        if f"`{path.relative_to(folder)}`" not in rows[folder]:
            unnamed.append(f"{path} (row `{folder}/`)")
    assert unnamed == []


NOT_A_USERS_PROBLEM = {
    "MisusedCode": "a programming error: a rule asked the registry for a code of another severity",
    "Interrupted": "control flow: a signal arrived while --verify's check ran",
    "_Invalid": "control flow inside the typed reader, turned into a DocumentError",
    "Unfinished": "an OSError: the transaction's own, raised where an OSError is expected",
}
"""The exception classes that are not `ToolError`s, each with why."""


def test_every_error_a_user_can_act_on_is_a_tool_error() -> None:
    """One exception base for both packages (`located.ToolError`; the generator's `GeneratorError` is one): a class
    deriving from an exception is a `ToolError` unless it is named, with its reason, above."""
    bases: dict[str, list[str]] = {}
    for folder in (ROOT / "checkpointing_migrate", ROOT / "generator"):
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases[node.name] = [ast.unparse(b).rpartition(".")[2] for b in node.bases]

    def ancestors(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found = set(bases.get(name, []))
        return found.union(*(ancestors(b, seen | {name}) for b in found if b not in seen))

    def builtin_exception(name: str) -> bool:
        value = getattr(builtins, name, None)
        return isinstance(value, type) and issubclass(value, BaseException)

    errors = {name for name in bases if any(builtin_exception(a) for a in ancestors(name))}
    stray = sorted(n for n in errors - set(NOT_A_USERS_PROBLEM) - {"ToolError"} if "ToolError" not in ancestors(n))
    assert stray == [], f"not ToolErrors: {stray}; derive them from ToolError (or GeneratorError), or say why not above"
    assert set(NOT_A_USERS_PROBLEM) <= errors
