"""Writing files: one atomic replace (staged, then committed), and one transaction for every all-or-nothing write.

Every write goes to a temporary file in the target's own folder, is flushed to disk, gets the original's mode, owner
and group, and then replaces the target with `os.replace`, so a crash leaves the old file or the new one, never half
of one. A `Transaction` stages every file before it replaces any (`render`, `refresh --write`, `fix --write`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path


def _umask() -> int:
    # Read where Linux shows it: setting and restoring it (the portable way) races with other threads' new files.
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@dataclass
class Staged:
    """New content written and flushed to a temporary file next to `target`, not yet in place."""

    target: Path
    """The file that `commit` replaces (a symlink's resolved target: the link stays a link)."""
    tmp: Path
    """The temporary file in the same folder (the same file system, so the replace is atomic)."""

    def commit(self) -> None:
        """Put the new content in place (one `os.replace`); the temporary file is gone afterwards, whatever happens."""
        try:
            os.replace(self.tmp, self.target)
        except BaseException:
            self.discard()
            raise
        _sync_folder(self.target.parent)

    def discard(self) -> None:
        """Remove the temporary file; the target is untouched."""
        self.tmp.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    # The rename itself is durable only once the folder's entry is flushed; not every platform can open a folder.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def stage(path: Path, data: bytes, *, strict: bool = False) -> Staged:
    """Write `data` to a temporary file beside `path` (resolved through symlinks) with its mode, owner and group.

    A new file gets the mode a plain `open` would give it (0o666 less the umask). The owner and group are kept
    where permitted (only root may give a file to another user); with `strict`, not being permitted raises
    `PermissionError`. Raises `OSError` when the folder cannot take the file; nothing is left behind then.
    """
    target = Path(os.path.realpath(path))
    try:
        old: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        old = None
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if old is None:
            os.chmod(tmp, 0o666 & ~_umask())
        else:
            mine = os.stat(tmp)
            if (mine.st_uid, mine.st_gid) != (old.st_uid, old.st_gid):
                try:
                    os.chown(tmp, old.st_uid if mine.st_uid != old.st_uid else -1, old.st_gid)
                except PermissionError:
                    if strict:
                        raise
            os.chmod(tmp, stat.S_IMODE(old.st_mode))  # after chown, which may clear set-id bits
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return Staged(target, tmp)


def atomic_write(path: Path, data: bytes | str, encoding: str = "utf-8") -> Path:
    """Replace the content of `path` (a symlink's target) by `data`, never half-written; return the file written."""
    staged = stage(path, data.encode(encoding) if isinstance(data, str) else data)
    staged.commit()
    return staged.target


def stale(files: Mapping[Path, str], encoding: str = "utf-8") -> list[Path]:
    """The paths in `files` whose bytes on disk differ from the text (missing files included), in order."""
    out = []
    for path, text in files.items():
        try:
            same = path.is_file() and path.read_bytes() == text.encode(encoding)
        except OSError:
            same = False
        if not same:
            out.append(path)
    return out


def write_if_changed(files: Mapping[Path, str], encoding: str = "utf-8") -> list[Path]:
    """Write the files of `files` whose content differs, all or none; return those paths.

    Every changed file is staged (folders created) before any is replaced; when a replace fails, the files already
    replaced get their old bytes back and the error is raised. The `check` companion is
    [`stale`][checkpointing_migrate.writing.stale]: it names the same paths and writes nothing.
    """
    with transaction() as done:
        return done.write_if_changed(files, encoding)


class Unfinished(OSError):
    """A replace failed after others succeeded, in a transaction that keeps what it put in place (`undo=False`)."""

    def __init__(self, failed: Staged, done: list[Staged], exc: OSError) -> None:
        super().__init__(exc.errno, exc.strerror or str(exc))
        self.failed = failed
        self.done = done
        """The files replaced before `failed`, in order; the ones staged after it were discarded."""


class Transaction:
    """Files staged, then put in place together; when the block fails, the staged ones are discarded and (with
    `undo`) every file replaced in it gets its old bytes back.

    `undo` is what `render` and `refresh --write` need: their pages and data stand or fall together. `fix --write`
    passes `undo=False`: each file it puts in place is complete, it names the ones written and not written, and a
    run again finishes the job, where undoing would write again to the disk that just failed a write.
    """

    def __init__(self, *, undo: bool = True) -> None:
        self.undo = undo
        self._before: dict[Path, bytes | None] = {}
        self._staged: list[Staged] = []

    def stage(self, path: Path, data: bytes, *, strict: bool = False) -> Staged:
        """[`stage`][checkpointing_migrate.writing.stage] `data` for `path`, put in place by `commit`."""
        staged = stage(path, data, strict=strict)
        self._staged.append(staged)
        return staged

    def commit(self) -> list[Staged]:
        """Put every staged file in place, in order; on a failed replace the rest are discarded and the error raised
        (`Unfinished` without `undo`). Returns what was put in place."""
        staged, self._staged = self._staged, []
        if self.undo:
            for one in staged:
                self._before.setdefault(one.target, one.target.read_bytes() if one.target.is_file() else None)
        for index, one in enumerate(staged):
            try:
                one.commit()
            except BaseException as exc:
                for later in staged[index + 1 :]:
                    later.discard()
                if isinstance(exc, OSError) and not self.undo:
                    raise Unfinished(one, staged[:index], exc) from exc
                raise
        return staged

    def discard(self) -> None:
        """Remove every staged file not yet put in place."""
        for one in self._staged:
            one.discard()
        self._staged = []

    def write_if_changed(self, files: Mapping[Path, str], encoding: str = "utf-8") -> list[Path]:
        """[`write_if_changed`][checkpointing_migrate.writing.write_if_changed] inside this transaction."""
        changed = stale(files, encoding)
        for path in changed:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.stage(path, files[path].encode(encoding))
        self.commit()
        return changed

    def rollback(self) -> None:
        """Every file replaced so far back as it was (a new one removed)."""
        for path, old in self._before.items():
            if old is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, old)


@contextlib.contextmanager
def transaction(*, undo: bool = True) -> Iterator[Transaction]:
    """A `Transaction`; when the block raises (the exception goes on), its staged files are discarded and, with
    `undo`, its replaced files rolled back. Files still staged when the block ends are discarded too."""
    done = Transaction(undo=undo)
    try:
        yield done
    except BaseException:
        done.discard()
        if undo:
            done.rollback()
        raise
    done.discard()
