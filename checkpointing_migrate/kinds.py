"""File kinds: one registry (`KINDS`) of what the tool reads, how each kind is recognised and which module handles it.

Recognition (by name or place, by suffix, by `#!` line), the walk's cheap pre-filter, suppression's comment kinds and
the message listing the known kinds all read this registry; a kind's handler module is imported by `handler`, on the
first file of that kind, so a run over Python files loads none of the others (`files.analyse` calls it).
"""

from __future__ import annotations

import fnmatch
import functools
import importlib
import os
import stat
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from checkpointing_migrate.hits import Hit, Options


class FileKind(StrEnum):
    """The name of a kind of file (`Kind.name`), also the syntax a rewrite is checked in and a piece's language."""

    PYTHON = "python"
    NOTEBOOK = "notebook"
    YAML = "yaml"
    JSON = "json"
    SHELL = "shell"
    MARKDOWN = "markdown"
    MAKEFILE = "makefile"
    DOCKERFILE = "dockerfile"
    LAUNCH = "launch"
    """`.vscode/launch.json`."""
    WORKFLOW = "workflow"
    """A GitHub Actions workflow."""
    ARGS = "args"
    """An `.args` file of flags `HfArgumentParser` reads for a script."""
    COMPOSE = "compose"
    """A Docker Compose file: its services' `command:` and `entrypoint:`."""
    PROCFILE = "procfile"
    """A `Procfile`: one `name: command` line per process."""
    JUSTFILE = "justfile"
    """A `justfile`: its recipes' lines."""
    TOX = "tox"
    """A `tox.ini`: the `commands` of its `[testenv]` sections."""


class Kind(NamedTuple):
    """One kind of file the tool reads (a named tuple: the registry is made at every start, and a frozen dataclass
    costs several times as much to make)."""

    name: FileKind
    handler: str
    """`module:function` of the tool reading it: `function(text, options, base=folder)`, or `path=file` (`by_path`)."""
    suffixes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    """File names, suffixes told apart from `suffixes` (`.mk`: a name, checked before them), and places
    (`FOLDER/…/PATTERN`, matched against the file's last folders); shown in the message about an unknown file."""
    prefixes: tuple[str, ...] = ()
    """Name prefixes (`Dockerfile.gpu`, as hadolint reads them), for names whose suffix is no other kind's."""
    interpreters: tuple[str, ...] = ()
    """What a `#!` line runs (without its version: `python3.11` is `python`)."""
    syntax: FileKind | None = None
    """What a rewrite must still parse as (`python`, `json`, `yaml`) before anything is written; the codec too:
    `python` reads the PEP 263 declaration, every other kind is UTF-8."""
    commented: bool = False
    """Its lines can hold a `#` comment, so an ignore comment (JSON has none)."""
    writable: bool = False
    """`--add-ignore` writes comments into it (a notebook's lines are JSON strings, a Markdown fence's language
    varies)."""
    by_path: bool = False


KINDS = (
    Kind(
        FileKind.PYTHON,
        "checkpointing_migrate.python:analyse_file",
        suffixes=(".py", ".pyi"),
        interpreters=("python",),
        syntax=FileKind.PYTHON,
        commented=True,
        writable=True,
    ),
    Kind(
        FileKind.NOTEBOOK,
        "checkpointing_migrate.notebook:analyse",
        suffixes=(".ipynb",),
        syntax=FileKind.JSON,
        commented=True,
    ),
    Kind(
        FileKind.YAML,
        "checkpointing_migrate.launchreaders:analyse_yaml",
        suffixes=(".yaml", ".yml"),
        syntax=FileKind.YAML,
        commented=True,
        writable=True,
        by_path=True,
    ),
    Kind(
        FileKind.JSON,
        "checkpointing_migrate.launchreaders:analyse_json",
        suffixes=(".json",),
        syntax=FileKind.JSON,
        by_path=True,
    ),
    Kind(
        FileKind.SHELL,
        "checkpointing_migrate.shell:analyse",
        suffixes=(".sh", ".bash", ".slurm", ".sbatch", ".pbs", ".job"),  # batch scripts: shell, `#SBATCH` comments
        interpreters=("sh", "bash", "zsh", "dash", "ksh"),
        commented=True,
        writable=True,
    ),
    Kind(FileKind.MARKDOWN, "checkpointing_migrate.markdown:analyse", suffixes=(".md", ".markdown"), commented=True),
    Kind(
        FileKind.MAKEFILE,
        "checkpointing_migrate.makefile:analyse",
        names=("Makefile", "makefile", "GNUmakefile", ".mk"),
        commented=True,
    ),
    Kind(
        FileKind.DOCKERFILE,
        "checkpointing_migrate.dockerfile:analyse",
        names=("Dockerfile", "Containerfile", ".dockerfile"),
        prefixes=("Dockerfile.", "Containerfile."),
        commented=True,
    ),
    Kind(FileKind.LAUNCH, "checkpointing_migrate.vscode:analyse", names=(".vscode/launch.json",)),
    Kind(
        FileKind.WORKFLOW,
        "checkpointing_migrate.workflows:analyse",
        names=(".github/workflows/*.yml", ".github/workflows/*.yaml"),
        syntax=FileKind.YAML,
        commented=True,
    ),
    Kind(FileKind.ARGS, "checkpointing_migrate.argsfile:analyse", suffixes=(".args",), by_path=True),
    Kind(
        FileKind.COMPOSE,
        "checkpointing_migrate.launchfiles:analyse_compose",
        names=(
            "docker-compose.yml",
            "docker-compose.yaml",
            "compose.yml",
            "compose.yaml",
            "docker-compose.*.yml",
            "docker-compose.*.yaml",
        ),
        syntax=FileKind.YAML,
        commented=True,
    ),
    Kind(FileKind.PROCFILE, "checkpointing_migrate.launchfiles:analyse_procfile", names=("Procfile",), commented=True),
    Kind(
        FileKind.JUSTFILE,
        "checkpointing_migrate.launchfiles:analyse_justfile",
        names=("justfile", "Justfile", ".justfile"),
        commented=True,
    ),
    Kind(FileKind.TOX, "checkpointing_migrate.launchfiles:analyse_tox", names=("tox.ini",), commented=True),
)
"""Every kind, in the order the message about an unknown file lists them; places and names are checked before
suffixes, so a workflow is not read as a plain YAML config (its keys are still checked as one)."""

BY_NAME = {k.name: k for k in KINDS}
SUFFIXES = {s: k.name for k in KINDS for s in k.suffixes}
"""File suffix → kind."""
_NAMED = {n: k.name for k in KINDS for n in k.names if "/" not in n and "*" not in n}
_GLOBS = [(n, k.name) for k in KINDS for n in k.names if "/" not in n and "*" in n]
"""Names with a `*` (`docker-compose.*.yml`, an override file), matched as `fnmatch` does."""
_PLACES = [(tuple(n.split("/")[:-1]), n.split("/")[-1], k.name) for k in KINDS for n in k.names if "/" in n]
_PREFIXES = tuple((p, k.name) for k in KINDS for p in k.prefixes)
_INTERPRETERS = {i: k.name for k in KINDS for i in k.interpreters}

SNIFFED_SUFFIXES = frozenset({""})
"""Suffixes of files a folder's walk opens to read their `#!` line (scripts without a suffix); other files of unknown
suffix are left alone unless named on the command line."""

WALKED_SUFFIXES = SUFFIXES.keys() | SNIFFED_SUFFIXES
"""The suffixes a folder's walk looks at further (with the files `named_kind` knows); every other file is skipped by
its name alone."""

COMMENTED = frozenset(k.name for k in KINDS if k.commented)
WRITABLE = frozenset(k.name for k in KINDS if k.writable)


def shebang_kind(head: bytes) -> FileKind | None:
    """The kind of a file whose first line is `head`: `#!/usr/bin/env python3`, `#!/bin/bash -e`, `#!/usr/bin/env
    -S bash -x` …; `None` when it is not a `#!` line of a known interpreter."""
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]  # `env -S`, `env VAR=1 python`
    if not words:
        return None
    interpreter = os.path.basename(words[0]).rstrip("0123456789.")
    return _INTERPRETERS.get(interpreter)


def _matches(name: str, suffix: str, pattern: str) -> bool:
    """`name` is `pattern`, or ends as `*SUFFIX` says (`suffix`: the name's, lower-cased, as suffixes are compared)."""
    if pattern.startswith("*"):
        return suffix == pattern[1:]
    return name == pattern


def named_kind(path: str) -> FileKind | None:
    """The kind `path` has by its place, name or name prefix: `.github/workflows/*.yml`, `.vscode/launch.json`,
    `Makefile`, `*.mk`, `Dockerfile`, `*.Dockerfile`, `Dockerfile.gpu`, `Containerfile`, `docker-compose.*.yml`."""
    name = os.path.basename(path)
    return _named_kind(path, name, os.path.splitext(name)[1].lower())


def _named_kind(path: str, name: str, suffix: str) -> FileKind | None:
    for where, pattern, kind in _PLACES:
        if _matches(name, suffix, pattern):  # the name first: the folders of an absolute path cost more to find
            folders = os.path.normpath(os.path.abspath(path)).split(os.sep)[:-1]
            if tuple(folders[len(folders) - len(where) :]) == where:
                return kind
    for prefix, kind in _PREFIXES:
        if name.startswith(prefix) and suffix not in SUFFIXES:
            return kind
    for pattern, kind in _GLOBS:
        if fnmatch.fnmatchcase(name, pattern):
            return kind
    return _NAMED.get(name) or _NAMED.get(suffix)


def kind_of(path: str, *, sniff: bool = True) -> FileKind | None:
    """The kind of `path`, by name, by suffix, else (with `sniff`) by its `#!` line (regular files only: a FIFO
    would block the read, a device may act on it)."""
    name = os.path.basename(path)
    suffix = os.path.splitext(name)[1].lower()
    named = _named_kind(path, name, suffix)
    if named is not None:
        return named
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if not sniff:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            head = f.readline(256)
    except OSError:
        return None
    return shebang_kind(head)


def sniff_kind(data: bytes) -> FileKind | None:
    """The kind of text without a known suffix (standard input), from its `#!` line."""
    return shebang_kind(data.split(b"\n", 1)[0][:256])


def known_kinds() -> str:
    """The kinds a file can be recognised as, for the message about a file that is none of them."""
    suffixes = " ".join(s for k in KINDS for s in k.suffixes)
    names = " ".join(n for k in KINDS for n in k.names)
    return f"suffixes {suffixes}, the names {names}, or a first line `#!` running {', '.join(_INTERPRETERS)}"


Handler = Callable[..., "list[Hit]"]


@functools.cache
def handler(kind: FileKind) -> Callable[[str, Options, Path, Path | None], list[Hit]]:
    """The function reading files of `kind`, as `(text, options, folder, path)`; its module is imported now."""
    entry = BY_NAME[kind]
    module, _, function = entry.handler.partition(":")
    read: Handler = getattr(importlib.import_module(module), function)

    def call(text: str, options: Options, base: Path, path: Path | None = None) -> list[Hit]:
        return read(text, options, path=path) if entry.by_path else read(text, options, base=base)

    return call
