"""The package's roles, as the import graph shows them: each module imported alone, in a fresh interpreter, loads
only the roles it may use, and importing it does no work (no file or folder appears in the temp directory)."""

from __future__ import annotations

import ast
import importlib.util
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import generator

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(
    m.name for m in pkgutil.walk_packages(generator.__path__, "generator.") if not m.name.endswith("__main__")
)

CORE = ("generator", "generator.table", "generator.oldnames", "generator.paths", "generator.cli", "generator.writing")
"""Exact module names here; a name ending in "." below allows a whole role package."""
MEASURE_DATA = (
    "generator.measure",
    "generator.measure.data",
    "generator.measure.adoption_data",
    "generator.measure.jsondoc",
)
"""What the pages may read of the measuring role: the typed loaders of data/*.json, nothing that measures."""
CODES = ("generator.migrate", "generator.migrate.codes", "generator.migrate.findings")
"""What the pages may read of the tool: the registry of finding codes (leaf modules), for the list of codes."""

HEAVY = ("torch", "transformers", "jinja2", "mkdocs", "peft", "trl", "accelerate", "griffe")


def allowed(module: str) -> tuple[str, ...]:
    """The generator modules (and prefixes) that importing `module` may load."""
    if module.startswith("generator.pages"):
        return (*CORE, *MEASURE_DATA, *CODES, "generator.pages", "generator.pages.")
    if module.startswith("generator.measure"):
        return (*CORE, "generator.measure", "generator.measure.", "generator.migrate", "generator.migrate.")
    if module.startswith("generator.migrate"):
        return (*CORE, "generator.migrate", "generator.migrate.")
    if module.startswith("generator.rehearse"):
        return (*CORE, "generator.rehearse", "generator.rehearse.")
    return CORE


def _loaded(module: str, tmp: Path) -> set[str]:
    code = f"import sys, {module}; print(*sorted(sys.modules))"
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("module", MODULES)
def test_a_module_loads_only_the_roles_it_may_use_and_does_no_work(module: str, tmp_path: Path) -> None:
    loaded = _loaded(module, tmp_path)
    ours = {m for m in loaded if m == "generator" or m.startswith("generator.")}
    outside = sorted(
        m for m in ours if not any(m.startswith(a) if a.endswith(".") else m == a for a in allowed(module))
    )
    assert not outside, f"importing {module} loads {outside}"
    assert not list(tmp_path.iterdir()), f"importing {module} wrote {list(tmp_path.iterdir())}"


def test_the_tool_and_the_page_renderer_load_nothing_heavy(tmp_path: Path) -> None:
    for module in ("generator.cli", "generator.migrate.cli", "generator.migrate.files"):
        heavy = sorted(m for m in _loaded(module, tmp_path) if m.split(".")[0] in HEAVY)
        assert not heavy, f"{module} loads {heavy}"
    render = _loaded("generator.pages.render", tmp_path)
    assert not {m for m in render if m.split(".")[0] in ("torch", "transformers", "peft", "trl")}


@pytest.mark.parametrize(
    "module", ["generator", *sorted(m.name for m in pkgutil.walk_packages(generator.__path__, "generator."))]
)
def test_a_module_docstring_has_three_to_five_lines(module: str) -> None:
    """House style: what the module is for and its key contract; details live next to the code they explain."""
    # Read from the source, not by importing: a `__main__` module runs when imported.
    origin = importlib.util.find_spec(module).origin
    docstring = ast.get_docstring(ast.parse(Path(origin).read_text(encoding="utf-8")), clean=False)
    assert docstring, f"{module} has no module docstring"
    lines = docstring.strip("\n").splitlines()
    assert 3 <= len(lines) <= 5, f"{module}'s docstring has {len(lines)} lines"
