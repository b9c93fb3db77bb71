"""Files: which handler reads which file, decoding without losing anything, applying edits (writing is `plan`'s job).

A file is read as bytes and decoded strictly (Python: the PEP 263 declaration, else UTF-8; everything else UTF-8, with
or without a BOM), without newline translation, so CRLF stays CRLF; the result is encoded back with the same codec.
A file that was not text, could not be decoded or no longer parses after the edits is reported and never touched.
"""

from __future__ import annotations

import ast
import io
import json
import os
import stat
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from checkpointing_migrate import python
from checkpointing_migrate.findings import Edit, FileError, Finding, link
from checkpointing_migrate.hits import Hit, Options, PositionedError
from checkpointing_migrate.requirements import Deferred, Finder, RequirementError

SUFFIXES = {
    ".py": "python",
    ".pyi": "python",
    ".ipynb": "notebook",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".sh": "shell",
    ".bash": "shell",
    ".md": "markdown",
    ".markdown": "markdown",
}
"""File suffix → handler."""

SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
"""Folders never entered when walking a directory (hidden folders such as .git and .venv are skipped too)."""

MAX_DEPTH = 256
"""Folders more than this many levels below a given PATH are reported and not entered."""

_SPECIAL = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a folder",
}

_SHELLS = (
    b"#!/bin/sh",
    b"#!/bin/bash",
    b"#!/usr/bin/env bash",
    b"#!/usr/bin/env sh",
    b"#!/usr/bin/bash",
    b"#!/bin/zsh",
)


def kind_of(path: str, *, sniff: bool = True) -> str | None:
    """The handler for `path`, by suffix, or by a shell `#!` line for regular files without one."""
    name = os.path.basename(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if sniff and not suffix:
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None  # a FIFO would block the read, a device may act on it
            with open(path, "rb") as f:
                head = f.readline(64)
        except OSError:
            return None
        return sniff_kind(head)
    return None


def walk(paths: list[Path]) -> Iterator[str | FileError]:
    """Every file to check under `paths` (files given by name are always checked if their type is known), and in
    place of the folders it could not enter (deeper than `MAX_DEPTH` below their PATH, or unlistable) a `FileError`."""
    for path in paths:
        if path.is_dir():
            yield from _walk_folder(str(path))
        elif kind_of(str(path)) is not None:
            yield str(path)


def _walk_folder(top: str) -> Iterator[str | FileError]:
    # Iterative (a recursive walk ends in RecursionError near 1000 levels); same order as `os.walk`: a folder's
    # files, then its subfolders one by one. Symlinked folders are not entered (no cycles), as with `os.walk`.
    stack = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield FileError(folder, 1, 1, f"cannot list this folder: {exc.strerror or exc}; its files were not checked")
            continue
        subfolders = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                file = os.path.normpath(entry.path)
                if kind_of(file) is not None:
                    yield file
            elif not entry.name.startswith(".") and entry.name not in SKIPPED_DIRS and not entry.is_symlink():
                subfolders.append(entry.path)
        if subfolders and depth + 1 > MAX_DEPTH:
            for sub in subfolders:
                yield FileError(
                    os.path.normpath(sub),
                    1,
                    1,
                    f"folder nested more than {MAX_DEPTH} levels below {top}; "
                    "not checked: pass it (or a folder above it) as its own PATH",
                )
            continue
        stack.extend((sub, depth + 1) for sub in reversed(subfolders))


@dataclass(frozen=True)
class Result:
    """What checking one file gave."""

    path: str
    findings: tuple[Finding, ...] = ()
    error: FileError | None = None
    fixed: str | None = None
    """The file's new text when `fix` findings changed it."""
    original: str | None = None
    encoding: str = "utf-8"
    digest: str | None = None
    """SHA-256 of the bytes read, when `fixed` is set: `fix --write` writes only if the file still has them."""


def decode(data: bytes, kind: str) -> tuple[str, str]:
    """(text, codec); raises `UnicodeDecodeError` / `SyntaxError` / `ValueError` with a reason."""
    if b"\x00" in data[:8192]:
        raise ValueError("not a text file (it holds NUL bytes)")
    if kind == "python":
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    else:
        encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    return data.decode(encoding), encoding


def analyse(text: str, kind: str, options: Options, base: Path) -> list[Hit]:
    # The other handlers are imported by the first file of their kind: a pre-commit run on Python files loads none.
    if kind == "python":
        return python.analyse(text, options, base=base)
    if kind == "notebook":
        from checkpointing_migrate import notebook

        return notebook.analyse(text, options, base)
    if kind in ("yaml", "json"):
        from checkpointing_migrate import yaml_json

        return (yaml_json.analyse_yaml if kind == "yaml" else yaml_json.analyse_json)(text, options)
    if kind == "shell":
        from checkpointing_migrate import shell

        return shell.analyse(text, options, base)
    from checkpointing_migrate import markdown

    return markdown.analyse(text, options, base)


def apply(text: str, edits: list[Edit]) -> str:
    """`text` with `edits` applied (they must not overlap)."""
    out, last = [], 0
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.start < last:
            raise ValueError(f"overlapping edits at offset {edit.start}")
        out.append(text[last : edit.start])
        out.append(edit.new)
        last = edit.end
    out.append(text[last:])
    return "".join(out)


def reparse(text: str, kind: str) -> None:
    """Raise if the rewritten `text` no longer parses as its kind (checked before anything is written)."""
    if kind == "python":
        ast.parse(text)
    elif kind in ("json", "notebook"):
        json.loads(text)
    elif kind == "yaml":
        list(yaml.compose_all(text, Loader=yaml.SafeLoader))


def _position(source: python.Source, offset: int) -> tuple[int, int]:
    line = source.line_of(offset)
    return line, offset - source.starts[line - 1] + 1


def describe_size(size: int) -> str:
    """`10 MB`, `52.4 MB`, `812 bytes`: a size as messages show it (decimal units, as `--max-file-size` reads them)."""
    if size < 1000:
        return f"{size} bytes"
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    raise AssertionError(size)


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def parse_size(text: str) -> int:
    """`10MB`, `512kB`, `1MiB`, `12345` (bytes) → bytes; raises `ValueError` with the accepted forms."""
    number = text.strip().rstrip("bBiIkKmMgG ")
    unit = text.strip()[len(number) :].strip().lower()
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not 0 <= value < 2**62 or unit not in _UNITS:  # also rejects nan and inf
        raise ValueError(
            f"{text!r} is not a size; write bytes or a number with kB, MB, GB (or KiB, MiB, GiB), e.g. 10MB"
        )
    return int(value * _UNITS[unit])


def read(path: str, limit: int | None) -> bytes | FileError:
    """The bytes of the regular file `path`; a `FileError` for anything else, or for a file over `limit` bytes."""
    try:
        kind = stat.S_IFMT(os.stat(path).st_mode)
        if kind != stat.S_IFREG:  # checked before opening: a FIFO blocks the reader, a device may act on an open
            return FileError(
                path,
                1,
                1,
                f"not a regular file ({_SPECIAL.get(kind, 'a special file')}); skipped: only regular files are read",
            )
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # in case it was swapped for a FIFO since
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                return FileError(path, 1, 1, "not a regular file; skipped: only regular files are read")
            if limit is not None and info.st_size > limit:
                return FileError(path, 1, 1, too_big(info.st_size, limit))
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError as exc:
        return FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}")
    if limit is not None and len(data) > limit:
        return FileError(path, 1, 1, too_big(len(data), limit))
    return data


def too_big(size: int, limit: int) -> str:
    return (
        f"{describe_size(size)}, over the {describe_size(limit)} limit; skipped: "
        f"pass --max-file-size {-(-size // 10**6)}MB (or more) to check it"
    )


_TOO_DEEP = (
    "nested too deeply to check (beyond Python's recursion limit); nothing was changed: simplify it or leave it out"
)


def check(path: str, options: Options, finder: Finder) -> Result:
    """Check one file; never raises for bad input (the problem is in `Result.error`)."""
    kind = kind_of(path) or "python"
    data = read(path, options.max_size)
    if isinstance(data, FileError):
        return Result(path, error=data)
    return check_data(path, data, kind, options, finder)


def sniff_kind(data: bytes) -> str | None:
    """The handler for a file without a known suffix, from its first bytes: `shell` for a shell `#!` line."""
    return "shell" if data.startswith(_SHELLS) else None


def check_data(path: str, data: bytes, kind: str, options: Options, finder: Finder) -> Result:
    """Check the bytes `data` of a file of `kind` named `path` (read from disk, or standard input under the name
    `--stdin-filename` gives it); never raises for bad input."""
    if options.rules.stem.encode() not in data:
        return Result(path)
    try:
        text, encoding = decode(data, kind)
    except (UnicodeDecodeError, SyntaxError) as exc:
        return Result(
            path, error=FileError(path, 1, 1, f"cannot be decoded ({exc}); save it as UTF-8 (or declare its encoding)")
        )
    except ValueError as exc:
        return Result(path, error=FileError(path, 1, 1, f"{exc}; pass only code, config, script and Markdown files"))
    source = python.Source(text)
    if options.gate:
        options = replace(options, allowed=Deferred(finder, Path(path)))
    try:
        hits = analyse(text, kind, options, Path(path).parent)
    except RequirementError as exc:
        return Result(path, error=FileError(path, 1, 1, f"the version gate cannot be read: {exc}"))
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        return Result(
            path,
            error=FileError(path, line, col, f"does not parse as Python: {exc.msg}; fix the syntax, then run again"),
        )
    except PositionedError as exc:
        line, col = _position(source, exc.offset)
        return Result(path, error=FileError(path, line, col, f"{exc}; fix it, then run again"))
    except ValueError as exc:
        return Result(path, error=FileError(path, 1, 1, f"does not parse: {exc}"))
    except RecursionError:
        return Result(path, error=FileError(path, 1, 1, _TOO_DEEP))
    findings = []
    for hit in hits:
        if not options.reports(hit.code):
            continue  # `--select`/`--ignore`: an unreported finding applies no edit either
        line, col = _position(source, hit.start)
        findings.append(
            Finding(
                path,
                line,
                col,
                hit.severity,
                hit.old,
                hit.new,
                hit.code,
                hit.message,
                hit.edits,
                row=hit.row,
                via=hit.via,
                applicability=hit.applicability,
            )
        )
    edits = [e for f in findings if f.applies(options.unsafe_fixes) for e in f.edits]
    fixed = None
    if edits and options.verify:
        fixed = apply(text, edits)
        try:
            reparse(fixed, kind)
        except (SyntaxError, ValueError, yaml.YAMLError) as exc:
            error = FileError(
                path, 1, 1, f"the rewrite would not parse ({exc}); nothing was written. Please report this file"
            )
            return Result(path, tuple(findings), error=error)
        except RecursionError:
            return Result(path, tuple(findings), error=FileError(path, 1, 1, _TOO_DEEP))
    digest = sha256(data) if fixed is not None else None
    # Only a fix needs the text again (its diff, a re-fix without patched methods); a scan's worker processes would
    # otherwise send every analysed file back to the parent.
    original = text if fixed is not None else None
    return Result(path, tuple(findings), fixed=fixed, original=original, encoding=encoding, digest=digest)


def sha256(data: bytes) -> str:
    """The digest `Result.digest` holds, and what `plan` compares a file with before writing it."""
    import hashlib  # only for a file `fix` will write (the check that it did not change since it was read)

    return hashlib.sha256(data).hexdigest()


def without_patched_fixes(result: Result, patches: dict[str, Finding], unsafe_fixes: bool) -> Result:
    """`result` with every rename of a method that a file of the run replaces on a transformers class (`patches`:
    old name → its `class-patch` finding) turned into a `patched-method` hazard, and its text fixed without them."""
    changed = False
    findings = []
    for f in result.findings:
        patch = patches.get(f.old) or patches.get(f.via or "")
        if f.severity != "fix" or patch is None:
            findings.append(f)
            continue
        changed = True
        what = (
            f"`{f.old}` is replaced on a transformers class at {patch.path}:{patch.line}, and `{f.new}` does not go "
            f"through that replacement: not rewritten; patch `{f.new}` too, then rename. See {link('model')}"
        )
        findings.append(
            replace(f, severity="hazard", code="patched-method", message=what, edits=(), applicability=None)
        )
    if not changed:
        return result
    edits = [e for f in findings if f.applies(unsafe_fixes) for e in f.edits]
    fixed = (
        apply(result.original, edits) if edits and result.fixed is not None and result.original is not None else None
    )
    return replace(result, findings=tuple(findings), fixed=fixed)
