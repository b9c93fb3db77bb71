"""Files: one file read and decoded without losing anything, checked by its kind's handler (`kinds`), edits applied.

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
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from checkpointing_migrate import kinds, python, suppress
from checkpointing_migrate.codes import Applicability, Severity, message, shared
from checkpointing_migrate.findings import Edit, FileError, Finding, link
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import FileKind
from checkpointing_migrate.located import ParseError
from checkpointing_migrate.receivers import new_keywords
from checkpointing_migrate.requirements import Deferred, Finder, RequirementError

_SPECIAL = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a folder",
}


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


def decode(data: bytes, kind: FileKind) -> tuple[str, str]:
    """(text, codec); raises `UnicodeDecodeError` / `SyntaxError` / `ValueError` with a reason."""
    if b"\x00" in data[:8192]:
        raise ValueError("not a text file (it holds NUL bytes)")
    if kinds.BY_NAME[kind].syntax == FileKind.PYTHON:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    else:
        encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    return data.decode(encoding), encoding


def analyse(text: str, kind: FileKind, options: Options, base: Path, path: Path | None = None) -> list[Hit]:
    """The hits of `kind`'s handler in `text` (imported with the first file of its kind: see `kinds`)."""
    return kinds.handler(kind)(text, options, base, path)


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


def reparse(text: str, kind: FileKind) -> None:
    """Raise `SyntaxError` or `ValueError` if the rewritten `text` no longer parses as its kind (checked before
    anything is written)."""
    syntax = kinds.BY_NAME[kind].syntax
    if syntax == FileKind.PYTHON:
        ast.parse(text)
    elif syntax == FileKind.JSON:
        json.loads(text)
    elif syntax == FileKind.YAML:
        import yaml  # only a YAML file's rewrite needs it: a Python-only run never loads PyYAML

        try:
            list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        except yaml.YAMLError as exc:
            raise ValueError(str(exc)) from exc


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
            what = f" ({_SPECIAL.get(kind, 'a special file')})"
            return FileError(path, 1, 1, message("file-error", "special", what=what))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # in case it was swapped for a FIFO since
        try:  # no file object around it: its buffer cost more than the reading of most files
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return FileError(path, 1, 1, message("file-error", "special", what=""))
            if limit is not None and info.st_size > limit:
                return FileError(path, 1, 1, too_big(info.st_size, limit))
            # Asked for the size it has (plus one byte, to see it grew): asking for `limit + 1` bytes allocated that
            # much for every file, half of the time `scan` spent reading the transformers tree.
            want = info.st_size + 1 if limit is None else min(info.st_size, limit) + 1
            data = _read_up_to(fd, want)
            if len(data) == want:  # it grew since (or tells no size, as /proc files): read on, up to the limit
                data += _read_up_to(fd, None if limit is None else limit + 1 - len(data))
        finally:
            os.close(fd)
    except OSError as exc:
        if os.path.islink(path) and not os.path.exists(path):
            target = os.readlink(path)
            return FileError(path, 1, 1, message("file-error", "dangling-link", target=target))
        return FileError(path, 1, 1, message("file-error", "unreadable", error=exc.strerror or exc))
    if limit is not None and len(data) > limit:
        return FileError(path, 1, 1, too_big(len(data), limit))
    return data


def _read_up_to(fd: int, size: int | None) -> bytes:
    """Up to `size` bytes (all, for `None`) from `fd`, fewer only at its end."""
    chunks, left = [], size
    while left is None or left > 0:
        chunk = os.read(fd, left if left is not None else 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        left = None if left is None else left - len(chunk)
    return b"".join(chunks) if len(chunks) != 1 else chunks[0]


def too_big(size: int, limit: int) -> str:
    return message(
        "file-error", "too-big", size=describe_size(size), limit=describe_size(limit), megabytes=-(-size // 10**6)
    )


GATE_UNREADABLE = "the version gate cannot be read"
"""How a file error caused by an unreadable requirement starts; `commands` reports those once, as a usage error."""


def check(path: str, options: Options, finder: Finder) -> Result:
    """Check one file; never raises for bad input (the problem is in `Result.error`)."""
    data = read(path, options.max_size)
    if isinstance(data, FileError):
        return Result(path, error=data)
    if not _worth_a_look(data, options):
        return Result(path)  # most files of a tree: their kind is not even asked
    return check_data(path, data, kinds.kind_of(path) or FileKind.PYTHON, options, finder)


def _worth_a_look(data: bytes, options: Options) -> bool:
    """Whether the bytes hold the stem every old name shares (or, with `--strict-ignores`, an ignore comment)."""
    return options.rules.stem.encode() in data or (options.strict_ignores and suppress.MARKER.encode() in data)


def _reported(
    path: str,
    source: python.Source,
    hits: list[Hit],
    suppressor: suppress.Suppressor,
    options: Options,
    ignored_here: frozenset[str],
) -> list[Finding]:
    """The findings for `hits` that no suppression comment, `--select`/`--ignore` or `per-file-ignores` hides."""
    findings = []
    for hit in hits:
        line, col = source.position(hit.start)
        if suppressor.covers(line, hit.code) or not options.reports(hit.code) or hit.code in ignored_here:
            continue  # suppressed, `--select`/`--ignore`, `per-file-ignores`: an unreported finding applies no edit
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
                cell=hit.cell,
                why=hit.why,
                defines=hit.defines,
                any_subclass=hit.any_subclass,
            )
        )
    return findings


def check_data(path: str, data: bytes, kind: FileKind, options: Options, finder: Finder) -> Result:
    """Check the bytes `data` of a file of `kind` named `path` (read from disk, or standard input under the name
    `--stdin-filename` gives it); never raises for bad input."""
    if not _worth_a_look(data, options):
        return Result(path)
    try:
        text, encoding = decode(data, kind)
    except (UnicodeDecodeError, SyntaxError) as exc:
        return Result(path, error=FileError(path, 1, 1, message("file-error", "undecodable", error=exc)))
    except ValueError as exc:
        return Result(path, error=FileError(path, 1, 1, message("file-error", "not-code", error=exc)))
    source = python.Source(text)
    if options.gate:
        options = replace(options, allowed=Deferred(finder, path))
    try:
        hits = analyse(text, kind, options, Path(path).parent, Path(path))
    except RequirementError as exc:
        return Result(path, error=FileError(path, 1, 1, f"{GATE_UNREADABLE}: {exc}"))
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        return Result(path, error=FileError(path, line, col, message("file-error", "python", error=exc.msg)))
    except ParseError as exc:
        line, col = source.position(exc.offset)
        return Result(path, error=FileError(path, line, col, f"{exc}; fix it, then run again", exc.cell))
    except ValueError as exc:
        return Result(path, error=FileError(path, 1, 1, f"does not parse: {exc}"))
    except RecursionError:
        return Result(path, error=FileError(path, 1, 1, message("file-error", "too-deep")))
    suppressor = suppress.Suppressor.of(path, text, kind)
    ignored_here = suppress.ignored_in(path, options.per_file_ignores) if options.per_file_ignores else frozenset()
    findings = _reported(path, source, hits, suppressor, options, ignored_here)
    if options.strict_ignores:
        findings += [f for f in suppressor.unused() if options.reports(f.code) and f.code not in ignored_here]
    edits = [e for f in findings if f.applies(options.unsafe_fixes) for e in f.edits]
    fixed = None
    if edits and options.verify:
        fixed = apply(text, edits)
        try:
            reparse(fixed, kind)
        except (SyntaxError, ValueError) as exc:
            error = FileError(path, 1, 1, message("file-error", "rewrite-breaks", error=exc))
            return Result(path, tuple(findings), error=error)
        except RecursionError:
            return Result(path, tuple(findings), error=FileError(path, 1, 1, message("file-error", "too-deep")))
    keep = fixed is not None or options.keep_text
    digest = sha256(data) if keep else None
    # Only a fix needs the text again (its diff, a re-fix without patched methods, comments to add); a scan's worker
    # processes would otherwise send every analysed file back to the parent.
    original = text if keep else None
    return Result(path, tuple(findings), fixed=fixed, original=original, encoding=encoding, digest=digest)


def sha256(data: bytes) -> str:
    """The digest `Result.digest` holds, and what `plan` compares a file with before writing it."""
    import hashlib  # only for a file `fix` will write (the check that it did not change since it was read)

    return hashlib.sha256(data).hexdigest()


def without_patched_fixes(result: Result, patches: dict[str, Finding], unsafe_fixes: bool) -> Result:
    """`result` with every rename of a method that a file of the run replaces on a transformers class (`patches`:
    old name → its `class-patch` finding) turned into a `patched-method` hazard, and its text fixed without them."""

    def hazard(f: Finding) -> Finding:
        patch = patches.get(f.old) or patches.get(f.via or "")
        if f.severity != Severity.FIX or patch is None:
            return f
        where = f"{patch.path}:{patch.line}"
        what = message("patched-method", "", old=f.old, new=f.new, where=where, link=link("model"))
        return replace(
            f,
            severity=Severity.HAZARD,
            code="patched-method",
            message=what,
            edits=(),
            applicability=Applicability.NONE,
            why=None,
        )

    return _refixed(result, hazard, unsafe_fixes)


def without_overridden_fixes(result: Result, overrides: dict[str, Finding], unsafe_fixes: bool, enable: str) -> Result:
    """`result` with every safe rename of a method that a class of the run defines (`overrides`: old name → a
    finding with `defines`) on a receiver of any subclass (`Finding.any_subclass`) made an unsafe fix that says
    where the definition is (`enable`: the old enable method, whose new name passes an override the new keywords)."""

    def unsafe(f: Finding) -> Finding:
        override = overrides.get(f.old) or overrides.get(f.via or "")
        if f.applicability is not Applicability.SAFE or not f.any_subclass or override is None or f.row is None:
            return f
        where = override.where.rpartition(":")[0]  # `path:line`, `path:cell N:line` in a notebook
        keywords = new_keywords(override.old, enable)
        names = {"old": override.old, "where": where, "keywords": keywords}
        reason = shared("overridden", since=str(f.row.since), **names)
        head, see, link_text = f.message.rpartition(". See ")
        if not see:  # no link to keep after the reason
            head, link_text = f.message, ""
        text = f"{shared('unsafe', fix=head, unsafe=reason)}{see}{link_text}"
        return replace(f, message=text, applicability=Applicability.UNSAFE)

    return _refixed(result, unsafe, unsafe_fixes)


def _refixed(result: Result, change: Callable[[Finding], Finding], unsafe_fixes: bool) -> Result:
    """`result` with `change` applied to each finding, and its text fixed again with the edits that still apply."""
    findings = [change(f) for f in result.findings]
    if all(new is old for new, old in zip(findings, result.findings, strict=True)):
        return result
    edits = [e for f in findings if f.applies(unsafe_fixes) for e in f.edits]
    fixed = (
        apply(result.original, edits) if edits and result.fixed is not None and result.original is not None else None
    )
    return replace(result, findings=tuple(findings), fixed=fixed)
