"""Check many files, in parallel when there are many: the work behind `scan`, `fix` and the adoption report.

Once the walk has found `PARALLEL_FROM` files, forked worker processes start, and the walk hands out the files it
finds in small batches through a pipe while they check them; when the walk ends, this process takes batches too,
until none is left, so no core waits. Most files are rejected by a substring test on their bytes.
"""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from checkpointing_migrate.discover import Selection, walk
from checkpointing_migrate.files import Result, check, without_overridden_fixes, without_patched_fixes
from checkpointing_migrate.findings import FileError, Finding
from checkpointing_migrate.hits import Options
from checkpointing_migrate.requirements import Allowed, Finder

PARALLEL_FROM = 200
"""Below this many files the start-up of a worker process costs more than it saves."""

BATCH = 16
"""Files per batch: small enough that at the end no process waits long for another's last batch."""

YOUNG_LIMIT = 10_000
"""After a file that leaves more new objects alive than this (the project modules read to follow its imports, kept
for the rest of the run), the collector goes over them once and then leaves them out of later collections."""


def _check(path: str, options: Options, finder: Finder) -> Result:
    """`check` with the cyclic collector paused. A parsed module is hundreds of thousands of nodes, alive until its
    file is done and then freed by reference counting: collections while it was built went over them again and
    again (a quarter of the time of `scan --include-planned` on the transformers tree). Between files it runs as
    usual, so what cycles a file leaves behind (a YAML loader's) are still freed."""
    if not gc.isenabled():
        return check(path, options, finder)
    gc.disable()
    try:
        return check(path, options, finder)
    finally:
        gc.enable()
        if gc.get_count()[0] > YOUNG_LIMIT:
            gc.collect(0)  # frees this file's cycles; what survives is the run's to keep
            gc.freeze()


@contextmanager
def _frozen_during_run() -> Iterator[None]:
    """What `_check` freezes is unfrozen when the run ends (unless the caller had frozen objects of its own: then
    they all stay frozen, as the caller asked for its own)."""
    before = gc.get_freeze_count()
    try:
        yield
    finally:
        if before == 0:
            gc.unfreeze()


def check_all(
    paths: list[Path],
    options: Options,
    finder: Finder,
    workers: int | None = None,
    selection: Selection | None = None,
) -> list[Result]:
    """The result of every file under `paths` that `selection` picks (default: the default excludes and the
    `.gitignore` files), in walk order (folders that could not be entered, named files of no known kind as errors)."""
    items: list[str | FileError] = []
    with _frozen_during_run():
        results = across_files(_check_walked(walk(paths, selection), items, options, finder, workers), options)
    by_path = {r.path: r for r in results}
    return [by_path[i] if isinstance(i, str) else Result(i.path, error=i) for i in items]


def across_files(results: list[Result], options: Options) -> list[Result]:
    """`results` after what one file says about the others (standard input is a run of one file): a file that
    replaces an old method on a transformers class makes renaming its calls a hazard in every file of the run, and
    a class that defines an old method makes every safe rename of its calls an unsafe fix (nothing shows which
    class a receiver is an instance of, subclasses and mixins included)."""
    patches = {f.old: f for r in results for f in r.findings if f.code == "class-patch"}
    if patches:
        results = [without_patched_fixes(r, patches, options.unsafe_fixes) for r in results]
    overrides: dict[str, Finding] = {}
    for f in (f for r in results for f in r.findings if f.defines):
        overrides.setdefault(f.old, f)
    if overrides:
        enable = options.rules.enable
        results = [without_overridden_fixes(r, overrides, options.unsafe_fixes, enable) for r in results]
    return results


def _check_walked(
    walked: Iterator[str | FileError],
    items: list[str | FileError],
    options: Options,
    finder: Finder,
    workers: int | None,
) -> list[Result]:
    """The results of the files `walked` yields, in walk order (every item is appended to `items` as it comes):
    checked here alone, or, once the walk has found `PARALLEL_FROM` files, with workers too."""
    workers = workers or min(os.cpu_count() or 1, 8)
    files: list[str] = []
    for item in walked:
        items.append(item)
        if isinstance(item, str):
            files.append(item)
            if len(files) == PARALLEL_FROM and workers >= 2 and hasattr(os, "fork"):
                return _in_parallel(files, walked, items, options, finder, workers)
    return [_check(f, options, finder) for f in files]


def _in_parallel(
    files: list[str],
    walked: Iterator[str | FileError],
    items: list[str | FileError],
    options: Options,
    finder: Finder,
    workers: int,
) -> list[Result]:
    """`_check_walked` with `workers - 1` forked workers taking batches while the walk goes on, and this process
    once it has ended. A batch a failed worker took is checked here: a failing worker costs time, never results."""
    batches = _Batches()
    started: list[_Worker] = []
    try:
        with _interrupts_held() as mask:  # a Ctrl-C reaches this process once every worker is in `started`
            for _ in range(workers - 1):
                worker = _Worker.start(batches, options, finder, mask)
                if worker is not None:
                    started.append(worker)
        for f in files:
            batches.add(f)
        for item in walked:
            items.append(item)
            if isinstance(item, str):
                files.append(item)
                batches.add(item)
        batches.walked()
        mine = _take(batches, options, finder)
        theirs = [r for worker in started for r in worker.results(finder)]
    finally:
        batches.close()
        for worker in started:
            worker.stop()
    wanted = set(files)
    by_path = {r.path: r for r in (*theirs, *mine) if r.path in wanted}
    missed = [f for f in files if f not in by_path]
    by_path.update((r.path, r) for r in _prime([_check(f, options, finder) for f in missed], finder))
    return [by_path[f] for f in files]


def _take(batches: _Batches, options: Options, finder: Finder) -> list[Result]:
    """Check the batches this process takes until none is left."""
    results: list[Result] = []
    while (batch := batches.take()) is not None:
        results += [_check(f, options, finder) for f in batch]
    return _prime(results, finder)


class _Batches:
    """The files still to check, in batches of up to `BATCH`, each one record of `select.PIPE_BUF` bytes in a pipe:
    a write of that size is atomic and every read asks for one record, so a batch goes whole to one process. The
    walk never waits: a batch the pipe has no room for waits here, the oldest of those goes into the pipe each time
    the walk fills another batch or this process takes one, and this process, once the walk has ended, takes the
    newest (a plain class, as `Finder`)."""

    def __init__(self) -> None:
        import select  # only here: most runs check a few files and start no worker

        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.write_end, False)
        self.size = select.PIPE_BUF
        """The record size (POSIX allows it to be as small as 512)."""
        self.filling: list[bytes] = []
        self.filled = 0
        """The bytes of the batch being filled, a newline after each path."""
        self.waiting: deque[list[bytes]] = deque()
        """Batches not in the pipe yet, oldest first."""
        self.own: list[str] = []
        """Paths no record can carry (too long, or with a newline): this process checks them."""

    def add(self, path: str) -> None:
        name = os.fsencode(path)
        if b"\n" in name or len(name) >= self.size:
            self.own.append(path)
            return
        if self.filled + len(name) > self.size:
            self._send()
        self.filling.append(name)
        self.filled += len(name) + 1
        if len(self.filling) == BATCH:
            self._send()

    def walked(self) -> None:
        """The walk has ended: what is being filled is the last batch."""
        if self.filling:
            self._send()

    def _send(self) -> None:
        self.waiting.append(self.filling)
        self.filling, self.filled = [], 0
        self._push()

    def _push(self) -> None:
        """Into the pipe, oldest first, as many waiting batches as it has room for."""
        while self.waiting and self.write_end >= 0:
            try:
                os.write(self.write_end, b"\n".join(self.waiting[0]).ljust(self.size, b"\0"))
            except BlockingIOError:
                return
            self.waiting.popleft()

    def take(self) -> list[str] | None:
        """The next batch for this process, once the walk has ended; `None` when none is left."""
        self._push()
        if self.own:
            batch, self.own = self.own, []
            return batch
        if self.waiting:
            return [os.fsdecode(p) for p in self.waiting.pop()]
        if self.write_end >= 0:
            os.close(self.write_end)  # nothing more will come: a read of the empty pipe is the end
            self.write_end = -1
        return _read_batch(self.read_end, self.size)

    def close(self) -> None:
        for end in (self.read_end, self.write_end):
            if end >= 0:
                os.close(end)
        self.read_end = self.write_end = -1


def _read_batch(pipe: int, size: int) -> list[str] | None:
    """The next record of `pipe` as paths; `None` at its end."""
    record = os.read(pipe, size)
    return [os.fsdecode(p) for p in record.rstrip(b"\0").split(b"\n")] if record else None


@dataclass
class _Worker:
    """A forked copy of this process checking the batches it reads from the pipe and sending back its results,
    pickled, through a pipe of its own. A bare fork, not a `multiprocessing` pool: the pool's import, threads and
    shutdown cost a tenth of a second, a sixth of a whole `scan` of the transformers tree."""

    pid: int
    pipe: int
    running: bool = True

    @classmethod
    def start(cls, batches: _Batches, options: Options, finder: Finder, mask: set[int]) -> _Worker | None:
        """A worker checking the batches it reads; `None` when no process can be started (the others read them)."""
        import pickle  # only here: most runs (a pre-commit hook's) check a few files and start no worker

        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:  # the worker: it never returns, so nothing of the caller's runs twice
            code = 1
            try:
                _set_signal_mask(mask)  # inside the `try`: an interrupt ends the worker here, not in the caller's code
                os.close(read_end)
                os.close(batches.write_end)  # else the pipe never ends
                results = []
                while (batch := _read_batch(batches.read_end, batches.size)) is not None:
                    results += [_check(p, options, finder) for p in batch]
                _prime(results, finder)
                # The ranges found, not the errors: an exception whose arguments are not its message does not
                # unpickle; the caller looks those few up again.
                found = {k: v for k, v in finder.given.items() if isinstance(v, Allowed)}
                # Most files have nothing to say: their paths alone, not a pickled `Result` each (half of the bytes).
                empty = [r == Result(r.path) for r in results]
                said = [r for r, e in zip(results, empty, strict=True) if not e]
                quiet = [r.path for r, e in zip(results, empty, strict=True) if e]
                data = pickle.dumps((said, quiet, found), pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_end, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)  # no exit handlers, no flushing of the buffers it shares with the caller
        os.close(write_end)
        return cls(pid, read_end)

    def results(self, finder: Finder) -> list[Result]:
        """What the worker sent, once it has ended (its requirement lookups go into `finder`); nothing if it failed
        (it sent nothing whole)."""
        import pickle

        pipe, self.pipe = os.fdopen(self.pipe, "rb"), -1  # it closes the pipe now, whatever happens
        with pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.running = False
        if os.waitstatus_to_exitcode(status) != 0:
            return []
        said, quiet, given = pickle.loads(data)
        finder.given.update(given)
        return [*said, *map(Result, quiet)]

    def stop(self) -> None:
        """End a worker whose results are no longer wanted (this process failed or was interrupted)."""
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
        if self.running:
            import signal

            self.running = False
            try:  # an interrupt may have come between `results`' wait and its `running = False`
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


@contextmanager
def _interrupts_held() -> Iterator[set[int]]:
    """SIGINT blocked while workers are forked, then delivered to this process, if one came, on leaving; yields the
    mask to restore (a child inherits the blocked one and restores it in its `try`)."""
    import signal

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield mask
    finally:
        _set_signal_mask(mask)


def _set_signal_mask(mask: set[int]) -> None:
    import signal

    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _prime(results: list[Result], finder: Finder) -> list[Result]:
    """`results`, once `finder` has looked up what the project of each file with findings allows (the closing
    line's requirement), in the process that checked them: so the lookups run in parallel too."""
    finder.consulted([r.path for r in results if r.findings])
    return results
