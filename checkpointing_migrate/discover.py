"""Which files a run checks: the PATHs named, and below the folders among them every file of a known kind that is
neither excluded (`--exclude`, ruff's default list) nor ignored by git's rules (`.gitignore`, `.git/info/exclude`).
A named path is always checked (kind by suffix, else by `#!` line; neither is reported). Exclude patterns are
`.gitignore` lines relative to the project's folder: `build` anywhere, `/build` only at the top.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from checkpointing_migrate.codes import message
from checkpointing_migrate.findings import FileError
from checkpointing_migrate.kinds import SUFFIXES, WALKED_SUFFIXES, kind_of, known_kinds, named_kind
from checkpointing_migrate.project import repository_root

if TYPE_CHECKING:
    from checkpointing_migrate import gitignore

DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
"""ruff's default `exclude` (and `__pycache__`), the same names so a project's habits carry over; other hidden
folders are checked, `.github/` above all: its workflows pass training flags."""

MAX_DEPTH = 256
"""Folders more than this many levels below a given PATH are reported and not entered."""


@dataclass(frozen=True)
class Selection:
    """How a folder's walk picks its files."""

    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    """`exclude` (replaces the defaults) followed by `extend-exclude`."""
    respect_gitignore: bool = True
    root: str = field(default_factory=os.getcwd)
    """The folder anchored exclude patterns (`/build`, `data/*.json`) are relative to."""
    force_exclude: bool = False
    """Apply the excludes and ignore rules to the PATHs named too (`--force-exclude`: pre-commit names every file)."""

    def levels(self) -> list[gitignore.Level]:
        """The exclude patterns as ignore levels: anchored ones relative to `root`, the others match anywhere."""
        from checkpointing_migrate import gitignore  # the patterns are compiled only when a folder is walked

        anywhere, anchored = [], []
        for line in self.exclude:
            pattern = gitignore.compile_line(line)
            if pattern is not None:
                (anchored if "/" in line.strip().rstrip("/") else anywhere).append(pattern)
        top = os.path.abspath(os.sep)
        return [gitignore.Level(top, tuple(anywhere)), gitignore.Level(os.path.abspath(self.root), tuple(anchored))]


def unknown_kind(path: str) -> FileError:
    """The error for a named file that is none of the kinds the tool reads."""
    return FileError(path, 1, 1, message("file-error", "unknown-kind", known=known_kinds()))


def walk(paths: list[Path], selection: Selection | None = None) -> Iterator[str | FileError]:
    """Every file to check under `paths`, and a `FileError` for a named file of no known kind and in place of the
    folders that could not be entered (deeper than `MAX_DEPTH` below their PATH, or unlistable)."""
    selection = selection or Selection()
    excludes: list[gitignore.Level] | None = None  # compiled on first need: a named file needs none
    for path in paths:
        if selection.force_exclude:
            excludes = excludes if excludes is not None else selection.levels()
            if left_out(str(path), selection, excludes):
                continue
        if path.is_dir():
            excludes = excludes if excludes is not None else selection.levels()
            yield from _walk_folder(str(path), selection, excludes)
        elif not path.is_file() or kind_of(str(path)) is not None:
            yield str(path)  # not a regular file: reading it reports what it is
        else:
            yield unknown_kind(str(path))


def left_out(path: str, selection: Selection, excludes: list[gitignore.Level]) -> bool:
    """Whether a walk from the project's folder (the repository's, without one `root`) would leave `path` out: it,
    or a folder above it, is excluded or ignored."""
    from checkpointing_migrate import gitignore

    absolute = os.path.abspath(path)
    top = repository_root(os.path.dirname(absolute)) or os.path.abspath(selection.root)
    if not absolute.startswith(top.rstrip(os.sep) + os.sep):
        return bool(gitignore.decide(excludes, absolute, os.path.isdir(absolute)))
    levels = gitignore.levels_above(top) if selection.respect_gitignore else []
    current = top
    for part in os.path.relpath(absolute, top).split(os.sep):
        if selection.respect_gitignore:
            own = gitignore.read_level(current)
            levels = [*levels, own] if own is not None else levels
        current = os.path.join(current, part)
        folder = current != absolute or os.path.isdir(absolute)
        walked = folder and part == ".vscode" and _default_excluded(selection) and _is_launch(absolute, current)
        if (
            gitignore.decide(excludes, current, folder)
            and not walked
            or (selection.respect_gitignore and gitignore.decide(levels, current, folder))
        ):
            return True
    return False


def _default_excluded(selection: Selection) -> bool:
    """Whether `.vscode` is left out only by the default list (not by an `--exclude` or `extend-exclude` of one's own)."""
    size = len(DEFAULT_EXCLUDE)
    return selection.exclude[:size] == DEFAULT_EXCLUDE and ".vscode" not in selection.exclude[size:]


def _is_launch(path: str, folder: str) -> bool:
    return path == os.path.join(folder, "launch.json")


def _walk_folder(top: str, selection: Selection, excludes: list[gitignore.Level]) -> Iterator[str | FileError]:
    # Iterative (a recursive walk ends in RecursionError near 1000 levels); same order as `os.walk`: a folder's
    # files, then its subfolders one by one. Symlinked folders are not entered (no cycles), as with `os.walk`. The
    # named folder itself is entered even if excluded; what is below it is matched by its own path.
    from checkpointing_migrate import gitignore

    absolute_top = os.path.abspath(top)
    above = gitignore.levels_above(absolute_top) if selection.respect_gitignore else []
    stack = [(top, absolute_top, 0, above)]
    while stack:
        folder, absolute, depth, levels = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield FileError(folder, 1, 1, message("file-error", "unlistable", error=str(exc.strerror or exc)))
            continue
        if selection.respect_gitignore:
            own = gitignore.read_level(absolute)
            levels = [*levels, own] if own is not None else levels
        subfolders = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir and entry.is_symlink():
                continue
            suffix = os.path.splitext(entry.name)[1].lower()
            if not is_dir and suffix not in WALKED_SUFFIXES and named_kind(entry.name) is None:
                continue  # decided by the name alone: no pattern matching for the many files of other kinds
            path = os.path.join(absolute, entry.name)
            if gitignore.decide(excludes, path, is_dir) or (
                selection.respect_gitignore and gitignore.decide(levels, path, is_dir)
            ):
                launch = os.path.join(path, "launch.json")
                if is_dir and entry.name == ".vscode" and _default_excluded(selection) and os.path.isfile(launch):
                    # ruff leaves `.vscode` out (no Python there); its launch configurations pass training flags.
                    if not (selection.respect_gitignore and gitignore.decide(levels, path, True)):
                        yield os.path.normpath(os.path.join(entry.path, "launch.json"))
                continue
            if is_dir:
                subfolders.append((entry.path, path))
                continue
            file = os.path.normpath(entry.path)
            if suffix in SUFFIXES or kind_of(file) is not None:  # a known suffix is a kind: no need to ask
                yield file
        if subfolders and depth + 1 > MAX_DEPTH:
            for sub, _ in subfolders:
                nested = message("file-error", "too-nested", levels=str(MAX_DEPTH), top=top)
                yield FileError(os.path.normpath(sub), 1, 1, nested)
            continue
        stack.extend((sub, path, depth + 1, levels) for sub, path in reversed(subfolders))
