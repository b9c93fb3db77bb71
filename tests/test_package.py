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

from generator import NAME

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
    """`generator.NAME` (the CLI's name, SARIF's tool, where the hosted-guide link is read from) is pyproject's."""
    assert PYPROJECT["project"]["name"] == NAME == SCRIPT


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
    site = _run(
        [str(installed / "python"), "-c", "import generator.paths as p; print(p.TABLE_PATH, p.IN_CHECKOUT)"]
    ).stdout
    table, in_checkout = site.split()
    assert Path(table).read_bytes() == (ROOT / "aliases.yaml").read_bytes() and in_checkout == "False"


def test_the_console_script_scans_and_links_to_the_hosted_guide(installed: Path, project: Path) -> None:
    result = _run([str(installed / SCRIPT), "scan", "train.py"], cwd=project)
    assert result.returncode == 1, result.stderr
    site = PYPROJECT["project"]["urls"]["Documentation"].rstrip("/")
    assert "train.py:3:7: fix [call] gradient_checkpointing_enable → activation_checkpointing_enable" in result.stdout
    assert f"See {site}/generated/migration-guide/#training-scripts" in result.stdout
    same = _run([str(installed / "python"), "-m", "generator", "scan", "train.py"], cwd=project)
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
    code = "import sys; from generator.cli import main; main(['scan', 'train.py']); print(*sorted(sys.modules))"

    def loaded() -> set[str]:
        return set(_run([str(installed / "python"), "-c", code], cwd=project).stdout.splitlines()[-1].split())

    with_requirement = loaded()
    assert not {
        m
        for m in with_requirement
        if m.startswith(("generator.pages", "generator.measure", "jinja2", "mkdocs", "torch"))
        # what only a diff, a did-you-mean or argparse's own terminal lookup would need
        or m in ("difflib", "shutil")
    }
    assert {"generator.migrate.cli", "packaging.specifiers"} <= with_requirement
    (project / "requirements.txt").unlink()
    assert "packaging.specifiers" not in loaded(), "read without a requirement to read"


def test_site_commands_say_they_need_a_checkout(installed: Path, tmp_path: Path) -> None:
    result = _run([str(installed / SCRIPT), "render", "--check"], cwd=tmp_path)
    assert result.returncode == 2 and "works on a checkout" in result.stderr and "Traceback" not in result.stderr


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
