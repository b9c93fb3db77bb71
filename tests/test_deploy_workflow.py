"""The docs workflow (.github/workflows/docs.yml): valid, building what the tests build, deploying with mike.

Its "Deploy" step is also run for real, without pushing, in a throwaway clone: here for a push to main and for a
mismatched tag, and in tests/test_browser.py for a release tag, whose gh-pages tree is then tested in a browser.
Nothing here uses the network: the clone has no remote, so the step's `git fetch` fails at once, as on a first
deploy.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from sitekit import BUILD, copy_repo, git_snapshot

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github/workflows/docs.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _steps(workflow: dict[Any, Any]) -> dict[str, dict[str, Any]]:
    steps = workflow["jobs"]["docs"]["steps"]
    return {step.get("name") or step["uses"].split("@")[0]: step for step in steps}


def _make_recipe(target: str) -> tuple[list[str], list[str]]:
    """(prerequisites, recipe lines) of a Makefile target."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{target}:([^\n]*)\n((?:\t[^\n]*\n)*)", text, re.MULTILINE)
    assert match, f"the Makefile has no `{target}` target"
    return match[1].split(), [line.strip() for line in match[2].splitlines()]


def test_triggers_and_permissions(workflow: dict[Any, Any]) -> None:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert on["push"]["branches"] == ["main"] and on["push"]["tags"] == ["v*"]
    assert workflow["permissions"] == {"contents": "write"}  # mike pushes gh-pages
    assert workflow["concurrency"]["cancel-in-progress"] is False  # never stop a push halfway


def test_steps_reuse_the_makefile_on_python_311(workflow: dict[Any, Any]) -> None:
    steps = _steps(workflow)
    assert list(steps) == ["actions/checkout", "actions/setup-python", "Set up the environment", "Build", "Deploy"]
    assert str(steps["actions/setup-python"]["with"]["python-version"]) == "3.11"
    assert steps["Set up the environment"]["run"].strip() == "make setup"
    setup, _ = _make_recipe("setup")
    test, _ = _make_recipe("test")
    assert setup == test, "`make setup` must prepare exactly what `make test` needs"


def test_the_build_step_is_the_command_the_tests_use(workflow: dict[Any, Any]) -> None:
    assert _steps(workflow)["Build"]["run"].strip() == "make build"
    _, recipe = _make_recipe("build")
    assert recipe == ["$(VENV)/bin/" + " ".join(BUILD)]
    assert recipe == ["$(VENV)/bin/mkdocs build --strict"]
    # mike (Deploy step, tests/test_browser.py) runs a plain `mkdocs build`: mkdocs.yml makes it strict too.
    assert re.search(r"^strict: true$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)


def test_deploy_publishes_versions_with_mike(workflow: dict[Any, Any]) -> None:
    deploy = _steps(workflow)["Deploy"]
    script = deploy["run"]
    assert 'mike deploy $PUSH --update-aliases "$version" "${aliases[@]}"' in script
    assert "aliases=(latest)" in script and "mike set-default $PUSH latest" in script
    assert deploy["env"]["PUSH"] == "--push" and deploy["env"]["REF"] == "${{ github.ref }}"
    assert "DOCS_VERSION_PROVIDER=mike" in script  # the version selector, off in local builds (mkdocs.yml)
    assert deploy["env"]["SITE_URL"].endswith("/")


# --- The Deploy step, run ------------------------------------------------------------------------------------------


def _deploy(tmp_path: Path, ref: str) -> tuple[subprocess.CompletedProcess[str], Path, dict[str, str]]:
    repo = copy_repo(tmp_path / "repo")
    env = git_snapshot(repo, tmp_path)
    script = _steps(yaml.safe_load(WORKFLOW.read_text(encoding="utf-8")))["Deploy"]["run"]
    run_env = {
        **env,
        "REF": ref,
        "PUSH": "",
        "SITE_URL": "https://docs.example.invalid/",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    result = subprocess.run(["bash", "-c", script], cwd=repo, env=run_env, capture_output=True, text=True, timeout=600)
    return result, repo, env


def test_a_push_to_main_deploys_dev_without_an_alias(tmp_path: Path) -> None:
    result, repo, env = _deploy(tmp_path, "refs/heads/main")
    assert result.returncode == 0, result.stderr

    def show(path: str) -> str:
        shown = subprocess.run(["git", "show", f"gh-pages:{path}"], cwd=repo, env=env, capture_output=True, text=True)
        return shown.stdout

    assert json.loads(show("versions.json")) == [{"version": "dev", "title": "dev", "aliases": []}]
    assert '"provider": "mike"' in show("dev/index.html")  # the version selector is on in deploys
    files = subprocess.run(
        ["git", "ls-tree", "--name-only", "gh-pages"], cwd=repo, env=env, capture_output=True, text=True
    ).stdout.split()
    assert "latest" not in files and "404.html" not in files  # only releases move latest and the root 404


def test_a_tag_that_does_not_match_pyproject_is_refused(tmp_path: Path) -> None:
    result, repo, env = _deploy(tmp_path, "refs/tags/v999.0.0")
    assert result.returncode == 1
    assert "tag v999.0.0 does not match the version in pyproject.toml" in result.stderr
    branches = subprocess.run(
        ["git", "branch", "--list", "gh-pages"], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    assert not branches.stdout.strip(), "nothing may be deployed for a mismatched tag"


def test_make_test_keeps_the_collection_order_that_puts_the_slowest_files_first(tmp_path: Path) -> None:
    """`conftest.py` sorts the slowest files first; xdist must hand them out in that order. Under xdist 3.8's default
    (scopes reordered by their number of tests) the refresh test started after ten minutes of small files."""
    from conftest import SLOWEST_FIRST

    assert [name for name in SLOWEST_FIRST if not (ROOT / "tests" / name).is_file()] == []
    _, recipe = _make_recipe("test")
    (line,) = [line for line in recipe if " -m pytest " in line]
    flags = line.split(" -m pytest ", 1)[1].split()
    ran = tmp_path / "ran.txt"
    (tmp_path / "conftest.py").write_text(
        "def pytest_collection_modifyitems(items):\n    items.sort(key=lambda item: item.path.name != 'test_few.py')\n",
        encoding="utf-8",
    )
    body = f"def test_{{n}}():\n    open({str(ran)!r}, 'a').write(__name__ + '\\n')\n"
    (tmp_path / "test_few.py").write_text(body.format(n=0), encoding="utf-8")
    (tmp_path / "test_many.py").write_text("".join(body.format(n=n) for n in range(5)), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *flags, "-n", "1", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert ran.read_text(encoding="utf-8").split()[0] == "test_few"
