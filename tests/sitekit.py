"""What the site tests share: a copy of the repository to build in, the build command, a git snapshot.

Site tests never build in the working tree: the hook rewrites stale generated pages, which would repair the tree
before the freshness test looks at it, and a build would leave `site/` behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

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
