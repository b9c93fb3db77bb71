"""Files: which handler reads which file, decoding without losing anything, applying edits, writing atomically.

A file is read as bytes and decoded strictly (Python: the PEP 263 declaration, else UTF-8; everything else UTF-8,
with or without a BOM), without newline translation, so CRLF stays CRLF. Edits replace exact spans of the decoded
text and the result is encoded back with the same codec. Before anything is written the result is parsed again
(Python, YAML, JSON, notebooks); a file that was not text, could not be decoded or did not parse is reported and
never touched. Writes go to a temporary file in the same folder that then replaces the original (`os.replace`),
with the original's permission bits, so a crash leaves either the old file or the new one.
"""

from __future__ import annotations

import ast
import io
import json
import os
import stat
import tempfile
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from generator.migrate import markdown, notebook, python, shell, yaml_json
from generator.migrate.findings import Edit, FileError, Finding
from generator.migrate.hits import Hit, Options
from generator.migrate.requirements import Deferred, Finder, RequirementError

SUFFIXES = {
    ".py": "python", ".pyi": "python", ".ipynb": "notebook", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
    ".sh": "shell", ".bash": "shell", ".md": "markdown", ".markdown": "markdown",
}
"""File suffix → handler."""

SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
"""Folders never entered when walking a directory (hidden folders such as .git and .venv are skipped too)."""

_SHELLS = (b"#!/bin/sh", b"#!/bin/bash", b"#!/usr/bin/env bash", b"#!/usr/bin/env sh", b"#!/usr/bin/bash", b"#!/bin/zsh")


def kind_of(path: str, *, sniff: bool = True) -> str | None:
    """The handler for `path`, by suffix, or by a shell `#!` line for files without one."""
    name = os.path.basename(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if sniff and not suffix:
        try:
            with open(path, "rb") as f:
                head = f.readline(64)
        except OSError:
            return None
        return "shell" if head.startswith(_SHELLS) else None
    return None


def walk(paths: list[Path]) -> Iterator[str]:
    """Every file to check under `paths` (files given by name are always checked if their type is known)."""
    for path in paths:
        if path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
                for name in sorted(files):
                    file = os.path.normpath(os.path.join(folder, name))
                    if kind_of(file) is not None:
                        yield file
        elif kind_of(str(path)) is not None:
            yield str(path)


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
    if kind == "python":
        return python.analyse(text, options, base=base)
    if kind == "notebook":
        return notebook.analyse(text, options, base)
    if kind == "yaml":
        return yaml_json.analyse_yaml(text, options)
    if kind == "json":
        return yaml_json.analyse_json(text, options)
    if kind == "shell":
        return shell.analyse(text, options, base)
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
    """Raise if the rewritten `text` no longer parses as its kind."""
    if kind == "python":
        ast.parse(text)
    elif kind in ("json", "notebook"):
        json.loads(text)
    elif kind == "yaml":
        list(yaml.compose_all(text, Loader=yaml.SafeLoader))


def _position(source: python.Source, offset: int) -> tuple[int, int]:
    line = source.line_of(offset)
    return line, offset - source.starts[line - 1] + 1


def check(path: str, options: Options, finder: Finder) -> Result:
    """Check one file; never raises for bad input (the problem is in `Result.error`)."""
    kind = kind_of(path) or "python"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return Result(path, error=FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
    if options.rules.stem.encode() not in data:
        return Result(path)
    try:
        text, encoding = decode(data, kind)
    except (UnicodeDecodeError, SyntaxError) as exc:
        return Result(path, error=FileError(path, 1, 1, f"cannot be decoded ({exc}); save it as UTF-8 (or declare its encoding)"))
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
        return Result(path, error=FileError(path, line, col, f"does not parse as Python: {exc.msg}; fix the syntax, then run again"))
    except (yaml_json.ConfigParseError, notebook.CellError) as exc:
        line, col = _position(source, exc.offset)
        return Result(path, error=FileError(path, line, col, f"{exc}; fix it, then run again"))
    except ValueError as exc:
        return Result(path, error=FileError(path, 1, 1, f"does not parse: {exc}"))
    findings = []
    for hit in hits:
        line, col = _position(source, hit.start)
        findings.append(Finding(path, line, col, hit.severity, hit.old, hit.new, hit.code, hit.message, hit.edits, hit.applicability))
    edits = [e for f in findings if f.applies(options.unsafe_fixes) for e in f.edits]
    fixed = None
    if edits and options.verify:
        fixed = apply(text, edits)
        try:
            reparse(fixed, kind)
        except (SyntaxError, ValueError, yaml.YAMLError) as exc:
            error = FileError(path, 1, 1, f"the rewrite would not parse ({exc}); nothing was written. Please report this file")
            return Result(path, tuple(findings), error=error)
    return Result(path, tuple(findings), fixed=fixed, original=text, encoding=encoding)


def write_atomically(path: Path, text: str, encoding: str) -> None:
    """Replace `path` by `text` encoded as `encoding`, keeping its permission bits; never half-written."""
    data = text.encode(encoding)
    mode = stat.S_IMODE(path.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
