"""The project a file belongs to, as the cross-file evidence reads it (the flags its parsers declare, the configs its
code reads, the modules that read a dict back): its folder, and its Python files, from about `MAX_FOLDERS` folders
at most, leaving out hidden folders and `SKIP`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

SKIP = frozenset({"node_modules", "site-packages", "__pycache__", "build", "dist", "venv"})
"""Folders no walk of a project enters: installed or built copies of code, not the project's own."""

MAX_FOLDERS = 5000
"""Folders walked per project, at most."""


def repository_root(folder: str) -> str | None:
    """The closest folder at or above `folder` that holds `.git` (a folder, or a file in a worktree), if any."""
    current = folder
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def root_of(folder: Path) -> tuple[Path, bool]:
    """The project folder: the nearest of `folder` and three parents with `.git` or `pyproject.toml`, walked whole;
    without one, only `folder` itself (a config checked from a home folder must not walk all of it)."""
    for candidate in [folder, *list(folder.parents)[:3]]:
        if (candidate / ".git").exists() or (candidate / "pyproject.toml").is_file():
            return candidate, True
    return folder, False


def project_folder(base: Path) -> tuple[Path, bool]:
    """The folder whose Python files are the project's: the nearest with `.git` or `pyproject.toml` (`root_of`);
    without one (an unpacked wheel), the outermost package holding `base`; else `base` alone (not walked whole)."""
    root, whole = root_of(base)
    if whole or not (base / "__init__.py").is_file():
        return root, whole
    top = base
    while (top.parent / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    return top, True


def python_files(root: Path, whole: bool) -> Iterator[Path]:
    """The Python files of the project folder `root`, in a stable order (only `root`'s own unless `whole`)."""
    for count, (here, dirs, files) in enumerate(os.walk(root)):
        dirs[:] = sorted(d for d in dirs if whole and not d.startswith(".") and d not in SKIP)
        for name in sorted(f for f in files if f.endswith(".py")):
            yield Path(here, name)
        if count > MAX_FOLDERS:
            break
