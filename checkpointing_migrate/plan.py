"""`fix --write` writes every file or none: check them all, stage them all, then put them in place (`writing`).

Every file must still be a regular file with the bytes that were read, writable by its owner, have one link only, and
take a staged copy in its folder with its mode, owner and group; one problem and no file is touched. What can still
fail after that (the disk fills) is reported by name, written and not written: its transaction runs with `undo=False`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from checkpointing_migrate import writing
from checkpointing_migrate.codes import problem
from checkpointing_migrate.files import Result, sha256
from checkpointing_migrate.findings import FileError


@dataclass
class Outcome:
    """What a write plan did: problems found before writing (then nothing was written), or the files written."""

    problems: list[FileError] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    """The paths (as given) whose content was replaced."""
    not_written: list[str] = field(default_factory=list)
    """Paths that were due to be written when a write failed."""


def _problem(path: str, what: str) -> FileError:
    return FileError(path, 1, 1, what)


def _stamp(target: Path) -> tuple[int, int, int, int]:
    return _stamp_of(os.lstat(target))


def _stamp_of(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _preflight(result: Result, target: Path) -> FileError | tuple[int, int, int, int]:
    """A problem, or the file's stamp (to see that nothing changed it between this check and the write)."""
    path = result.path
    try:
        info = os.lstat(target)
    except OSError as exc:
        return _problem(path, problem("write-cannot", error=exc.strerror or exc))
    if not stat.S_ISREG(info.st_mode):
        return _problem(path, problem("write-not-regular"))
    if not info.st_mode & stat.S_IWUSR:  # mode bits, not only `os.access`: root may write anything, so it says yes
        mode = oct(stat.S_IMODE(info.st_mode))[2:]
        return _problem(path, problem("write-read-only", mode=mode))
    if os.geteuid() != 0 and not os.access(target, os.W_OK):
        return _problem(path, problem("write-not-yours"))
    if info.st_nlink > 1:
        return _problem(path, problem("write-hard-links", links=info.st_nlink))
    try:
        with open(target, "rb") as f:
            digest = sha256(f.read())
    except OSError as exc:
        return _problem(path, problem("write-unreadable", error=exc.strerror or exc))
    if digest != result.digest:
        return _problem(path, problem("write-changed"))
    return _stamp_of(info)


def write_all(results: list[Result]) -> Outcome:
    """Write the `fixed` text of every result, or (on any problem) none of them."""
    outcome = Outcome()
    targets: dict[Path, Result] = {}
    stamps: dict[Path, tuple[int, int, int, int]] = {}
    for result in results:
        assert result.fixed is not None
        # A symlink is written through to its target, once, and stays a link.
        target = Path(os.path.realpath(result.path))
        other = targets.setdefault(target, result)
        if other is not result and other.fixed != result.fixed:
            outcome.problems.append(_problem(result.path, problem("write-same-file", other=other.path)))
        elif other is result:
            checked = _preflight(result, target)
            if isinstance(checked, FileError):
                outcome.problems.append(checked)
            else:
                stamps[target] = checked
    with writing.transaction(undo=False) as files:  # what was staged and not put in place is discarded on return
        return _commit(files, targets, stamps, outcome)


def _commit(
    files: writing.Transaction,
    targets: dict[Path, Result],
    stamps: dict[Path, tuple[int, int, int, int]],
    outcome: Outcome,
) -> Outcome:
    """Stage every target, check none changed meanwhile, then put them all in place (`outcome` says what happened)."""
    if outcome.problems:
        return outcome
    staged: list[tuple[writing.Staged, Result]] = []
    for target, result in targets.items():
        assert result.fixed is not None
        try:
            staged.append((files.stage(target, result.fixed.encode(result.encoding), strict=True), result))
        except OSError as exc:
            outcome.problems.append(_problem(result.path, problem("write-in-place", error=exc.strerror or str(exc))))
    for item, result in staged if not outcome.problems else ():
        try:
            same = _stamp(item.target) == stamps[item.target]
        except OSError:
            same = False
        if not same:
            outcome.problems.append(_problem(result.path, problem("write-changed-meanwhile")))
    if outcome.problems:
        return outcome
    of = {item.target: result for item, result in staged}
    try:
        files.commit()
    except writing.Unfinished as exc:
        outcome.written = [of[one.target].path for one in exc.done]
        outcome.problems.append(_problem(of[exc.failed.target].path, f"could not be put in place: {exc.strerror}"))
        outcome.not_written = [r.path for _, r in staged[len(exc.done) :]]
        return outcome
    outcome.written = [r.path for _, r in staged]
    return outcome
