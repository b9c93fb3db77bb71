"""The tool as users install it: a wheel with only PyYAML and packaging, run as a console script, with `pipx run`
and as a pre-commit hook pip-installed by pre-commit itself. These tests need PyPI for the two dependencies (and
pre-commit's build of the hook); offline they skip, under CI they fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from sitekit import IN_CI, copy_repo, git_snapshot

import checkpointing_migrate
from checkpointing_migrate import NAME, kinds

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SCRIPT = next(iter(PYPROJECT["project"]["scripts"]))
OLD_CALL = "from transformers import AutoModel\nmodel = AutoModel.from_pretrained('x')\nmodel.gradient_checkpointing_enable()\n"


def _offline(result: subprocess.CompletedProcess[str], what: str) -> None:
    """Skip (fail under CI) when an install step could not reach the registry; fail on any other error."""
    if result.returncode == 0:
        return
    text = result.stdout + result.stderr
    if not IN_CI and any(
        s in text
        for s in ("Could not find a version", "No matching distribution", "Temporary failure", "Network is unreachable")
    ):
        pytest.skip(f"{what}: the package registry is not reachable")
    pytest.fail(f"{what} failed ({result.returncode}):\n{text[-3000:]}")


def _run(
    argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run outside the checkout (so `python -c` cannot import it from the working directory) and without PYTHONPATH."""
    env = {k: v for k, v in (env or os.environ).items() if k != "PYTHONPATH"}
    return subprocess.run(argv, cwd=cwd or Path.home(), env=env, capture_output=True, text=True, check=False)


def test_the_tool_name_is_the_package_and_its_script() -> None:
    """`checkpointing_migrate.NAME` (the CLI's name, SARIF's tool, where the hosted-guide link is read from) is
    pyproject's, and the import name is the distribution's."""
    assert PYPROJECT["project"]["name"] == NAME == SCRIPT
    assert (
        NAME.replace("-", "_")
        == checkpointing_migrate.__name__
        == PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"][0]
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)])
    assert built.returncode == 0, built.stderr
    return next(out.glob("*.whl"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel and whatever it pulls in; returns its bin folder."""
    venv = tmp_path_factory.mktemp("venv")
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    _offline(_run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)]), "pip install of the wheel")
    return venv / "bin"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "requirements.txt").write_text("transformers>=5.23.0\n")
    (tmp_path / "train.py").write_text(OLD_CALL)
    return tmp_path


def test_the_wheel_carries_the_table_and_needs_only_pyyaml_and_packaging(installed: Path) -> None:
    listed = json.loads(_run([str(installed / "pip"), "list", "--format", "json"]).stdout)
    assert {p["name"].lower() for p in listed} - {"pip", "setuptools"} == {
        "checkpointing-migrate",
        "pyyaml",
        "packaging",
    }
    code = "import checkpointing_migrate.paths as p; print(p.TABLE_PATH, p.GUIDE_SECTIONS_PATH, p.FROZEN_TABLE_PATH, p.IN_CHECKOUT)"
    table, anchors, frozen, in_checkout = _run([str(installed / "python"), "-c", code]).stdout.split()
    assert Path(table).read_bytes() == (ROOT / "aliases.yaml").read_bytes() and in_checkout == "False"
    # The guide's anchors the links use, as `render` wrote them beside the pages.
    assert Path(anchors).read_bytes() == (ROOT / "docs" / "generated" / "guide-sections.json").read_bytes()
    # The table's frozen form (read instead of the YAML: no PyYAML at start-up), as `render` wrote it too.
    assert Path(frozen).read_bytes() == (ROOT / "docs" / "generated" / "aliases-frozen.json").read_bytes()


def test_the_console_script_scans_and_links_to_the_hosted_guide(installed: Path, project: Path) -> None:
    result = _run([str(installed / SCRIPT), "scan", "train.py"], cwd=project)
    assert result.returncode == 1, result.stderr
    site = PYPROJECT["project"]["urls"]["Documentation"].rstrip("/")
    assert "train.py:3:7: fix [call] gradient_checkpointing_enable → activation_checkpointing_enable" in result.stdout
    # The link is printed once per code, in the closing block, not on the finding line.
    assert f"\n[call]: {site}/generated/migration-guide/#training-scripts\n" in result.stdout
    same = _run([str(installed / "python"), "-m", "checkpointing_migrate", "scan", "train.py"], cwd=project)
    assert same.stdout == result.stdout and same.returncode == 1
    # A code without a section of its own links the hosted page too, never a path inside site-packages.
    explained = _run([str(installed / SCRIPT), "explain", "file-error"], cwd=project).stdout
    assert f"guide: {site}/generated/migration-guide/\n" in explained, explained
    sarif = json.loads(_run([str(installed / SCRIPT), "scan", "--format", "sarif", "train.py"], cwd=project).stdout)
    assert sarif["runs"][0]["tool"]["driver"]["informationUri"] == f"{site}/generated/migration-guide/"


def test_the_installed_tool_fixes_in_place(installed: Path, project: Path) -> None:
    assert _run([str(installed / SCRIPT), "fix", "--write", "train.py"], cwd=project).returncode == 0
    assert (project / "train.py").read_text() == OLD_CALL.replace("gradient_checkpointing", "activation_checkpointing")


def test_the_installed_tool_loads_only_what_scan_needs(installed: Path, project: Path) -> None:
    code = "import sys; from checkpointing_migrate.cli import main; main(['scan', 'train.py']); print(*sorted(sys.modules))"

    def loaded() -> set[str]:
        return set(_run([str(installed / "python"), "-c", code], cwd=project).stdout.splitlines()[-1].split())

    with_requirement = loaded()
    assert not {
        m
        for m in with_requirement
        if m.startswith(("generator", "jinja2", "mkdocs", "torch"))
        # what only a diff, a did-you-mean or argparse's own terminal lookup would need
        or m in ("difflib", "shutil")
        # what only a YAML file or a table other than the wheel's own (its frozen form) would need
        or m.split(".")[0] == "yaml"
        # what only a walked folder, a pyproject.toml naming the tool or per-file-ignores would need
        or m in ("tomllib", "checkpointing_migrate.gitignore")
        # what only an old name read off an object (a project's own flag?) or a config file's consumer would need
        or m in ("checkpointing_migrate.argflags", "checkpointing_migrate.configreaders")
        # what only a dict key, a subscript or a keyword on a candidate line would need
        or m == "checkpointing_migrate.dictflow"
    }
    assert {"checkpointing_migrate.commands", "packaging.specifiers"} <= with_requirement
    other_kinds = {k.handler.partition(":")[0] for k in kinds.KINDS if k.name != "python"}
    assert not other_kinds & with_requirement, "a Python file's scan loads the handlers of other kinds"
    (project / "requirements.txt").unlink()
    assert "packaging.specifiers" not in loaded(), "read without a requirement to read"


def test_the_wheel_is_the_tool_alone(installed: Path, tmp_path: Path) -> None:
    """The site generator stays in the repository: no `generator` package, no site subcommands, no `--table` default
    inside site-packages in the help."""
    top = _run([str(installed / SCRIPT), "--help"], cwd=tmp_path)
    assert top.returncode == 0
    for command in ("scan", "fix", "rules", "explain", "rehearse"):
        assert f"    {command} " in top.stdout
    for command in ("render", "matrix", "audit", "refresh", "check"):
        assert f"    {command} " not in top.stdout
    assert "site-packages" not in _run([str(installed / SCRIPT), "scan", "--help"], cwd=tmp_path).stdout
    render = _run([str(installed / SCRIPT), "render", "--check"], cwd=tmp_path)
    assert render.returncode == 2 and "invalid choice: 'render'" in render.stderr and "Traceback" not in render.stderr
    packages = _run([str(installed / "python"), "-c", "import generator"], cwd=tmp_path)
    assert "No module named 'generator'" in packages.stderr


USER_GENERATOR = 'def make():\n    return "the project\'s own generator"\n'
"""A module of a user's project named like the repository's site generator (a common name)."""

USER_TEST = """\
import generator


def test_the_project_imports_its_own_generator():
    assert generator.make() == "the project's own generator", generator.__file__
"""


@pytest.mark.parametrize("layout", ["module", "package"])
@pytest.mark.parametrize("preview", [False, True], ids=["plain", "v6-preview"])
def test_a_project_with_its_own_generator_runs_its_tests(
    installed: Path, tmp_path: Path, layout: str, preview: bool
) -> None:
    """Installing the tool next to pytest never changes how a user's imports resolve: a project with its own
    `generator.py` or `generator/` runs its tests, with and without `--v6-preview`, and gets its own module."""
    if not (installed / "pytest").exists():
        _offline(_run([str(installed / "pip"), "install", "-q", f"pytest=={pytest.__version__}"]), "pip install pytest")
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    if layout == "module":
        (project / "generator.py").write_text(USER_GENERATOR)
    else:
        (project / "generator").mkdir()
        (project / "generator" / "__init__.py").write_text(USER_GENERATOR)
    (project / "tests" / "test_own.py").write_text(USER_TEST)
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    args = [str(installed / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *(["--v6-preview"] * preview)]
    result = _run(args, cwd=project)
    if preview:
        # The preview needs transformers, which this venv does not have: a clear usage error, after the plugin loaded.
        assert result.returncode == 4, result.stdout + result.stderr
        assert "--v6-preview" in result.stderr and "No module named 'generator" not in result.stderr
        return
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_pipx_runs_the_tool_from_a_wheel(wheel: Path, project: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "pipx-bin")}
    pipx = Path(sys.executable).with_name("pipx")
    result = _run([str(pipx), "run", "--spec", str(wheel), SCRIPT, "scan", "train.py"], cwd=project, env=env)
    if result.returncode != 1:
        _offline(result, "pipx run")
    assert "train.py:3:7: fix [call]" in result.stdout


def test_pre_commit_try_repo_runs_both_hooks(project: Path, tmp_path: Path) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {h["id"]: h["language"] for h in hooks} == {"checkpointing-scan": "python", "checkpointing-fix": "python"}
    # pre-commit installs a hook repository from its commits: snapshot the tree as it is, untracked files included.
    hook_repo = copy_repo(tmp_path / "hook-repo")
    env = git_snapshot(hook_repo, tmp_path)
    git_snapshot(project, tmp_path)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    pre_commit = str(Path(sys.executable).with_name("pre-commit"))
    scan = _run([pre_commit, "try-repo", str(hook_repo), "checkpointing-scan", "--all-files"], cwd=project, env=env)
    if "train.py:3:7: fix [call]" not in scan.stdout:
        _offline(scan, "pre-commit try-repo")
    assert scan.returncode == 1, scan.stdout
    fix = _run([pre_commit, "try-repo", str(hook_repo), "checkpointing-fix", "--all-files"], cwd=project, env=env)
    assert fix.returncode == 1, fix.stdout  # pre-commit fails a hook that changed files
    assert (project / "train.py").read_text() == OLD_CALL.replace("gradient_checkpointing", "activation_checkpointing")
