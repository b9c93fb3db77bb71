"""What the site tests share: a copy of the repository to build in, the build command, one build of the pristine
site for the whole session, a git snapshot.

Site tests never build in the working tree: the hook rewrites stale generated pages, which would repair the tree
before the freshness test looks at it, and a build would leave `site/` behind.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
"""The repository under test."""

BUILD = ("mkdocs", "build", "--strict")
"""The one build command: `make build`, CI's deploy workflow and these tests all run it."""

IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
"""Under CI a test that cannot run (no Chromium, no network to PyPI) fails instead of skipping."""

_SKIP = shutil.ignore_patterns(".git", ".venv", ".cache", ".pytest_cache", "site", "__pycache__", "*.pyc")


def copy_repo(dest: Path) -> Path:
    """What a build reads, copied: the repository without VCS data, environments, caches and output; the build's
    one cache, the Try it page's pinned downloads (`make setup` fetched them), is linked, not copied."""
    copied = Path(shutil.copytree(ROOT, dest, ignore=_SKIP))
    (copied / ".cache").mkdir()
    (copied / ".cache" / "playground").symlink_to(ROOT / ".cache" / "playground", target_is_directory=True)
    return copied


def build(repo: Path, site: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of `repo` into `site`; `env` adds environment variables (e.g. SITE_URL)."""
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **env}
    if "DOCS_VERSION_PROVIDER" not in env:
        full_env.pop("DOCS_VERSION_PROVIDER", None)
    mkdocs = Path(sys.executable).with_name(BUILD[0])
    return subprocess.run(
        [str(mkdocs), *BUILD[1:], "--site-dir", str(site)], cwd=repo, env=full_env, capture_output=True, text=True
    )


# The MkDocs API build: exit 3 when strict mode aborted, the nav and site_url written to a JSON file (argv[3]), anything
# else to a crash or an invalid config (1).
_API_BUILD = """
import json, logging, sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

# The mkdocs CLI sets up logging; without this, warnings are counted but never shown.
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
config = load_config(sys.argv[1], site_dir=sys.argv[2], strict=True)
with open(sys.argv[3], "w", encoding="utf-8") as f:
    json.dump({"nav": config.nav, "site_url": config.site_url}, f)
config.plugins.run_event("startup", command="build", dirty=False)
try:
    build(config)
except Abort as exc:
    print(f"ABORTED: {exc}", file=sys.stderr)
    sys.exit(3)
finally:
    config.plugins.run_event("shutdown")
"""


class Build(NamedTuple):
    """A strict build through the MkDocs API (load_config, startup event, build, shutdown), in a child process."""

    returncode: int
    log: str
    site: Path
    nav: list[dict[str, str]]
    site_url: str


def build_via_api(repo: Path) -> Build:
    """Build `repo` into `repo/../site` through the MkDocs API, with the site_url of `mkdocs.yml` (SITE_URL unset)."""
    site, config = repo.parent / "site", repo.parent / "config.json"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("SITE_URL", None)
    proc = subprocess.run(
        [sys.executable, "-c", _API_BUILD, str(repo / "mkdocs.yml"), str(site), str(config)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    read = json.loads(config.read_text(encoding="utf-8")) if config.exists() else {"nav": [], "site_url": ""}
    return Build(proc.returncode, proc.stdout + proc.stderr, site, read["nav"], read["site_url"])


def shared_site(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The pristine checkout, built once per test session and shared by every pytest-xdist worker (a build is ~50 s
    of CPU, and three test files read the same site). Readers must not change it. The first worker to ask builds
    under a lock in the temporary folder all workers share; the others wait, then read its result."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    work, record = shared / "shared-site", shared / "shared-site.json"
    with (shared / "shared-site.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            if work.exists():
                shutil.rmtree(work)  # a build interrupted before it recorded its result
            result = build_via_api(copy_repo(work / "repo"))
            record.write_text(json.dumps(result._asdict(), default=str), encoding="utf-8")
    read = json.loads(record.read_text(encoding="utf-8"))
    return Build(read["returncode"], read["log"], Path(read["site"]), read["nav"], read["site_url"])


def git_snapshot(repo: Path, home: Path) -> dict[str, str]:
    """Commit `repo` as it is into a new git repository; returns the environment that git commands there need."""
    env = {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "NO_MKDOCS_2_WARNING": "1",
        **{
            f"GIT_{who}_{what}": value
            for who in ("AUTHOR", "COMMITTER")
            for what, value in (("NAME", "docs test"), ("EMAIL", "docs-test@localhost"))
        },
    }
    for args in (
        ["init", "--quiet", "--initial-branch=main"],
        ["add", "--all"],
        ["commit", "--quiet", "-m", "snapshot"],
    ):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return env
