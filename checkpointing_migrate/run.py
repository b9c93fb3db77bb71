"""Check many files, in parallel when there are many: the work behind `scan`, `fix` and the adoption report.

With more than `PARALLEL_FROM` files, the list is split into one share per core: forked worker processes take all
shares but one, and this process checks the last one meanwhile, so no core waits. Most files are rejected by a
substring test on their bytes, so the work is mostly reading and the few parses.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from checkpointing_migrate.discover import Selection, walk
from checkpointing_migrate.files import Result, check, without_patched_fixes
from checkpointing_migrate.hits import Options
from checkpointing_migrate.requirements import Allowed, Finder

PARALLEL_FROM = 200
"""Below this many files the start-up of a worker process costs more than it saves."""

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
    items = list(walk(paths, selection))
    files = [i for i in items if isinstance(i, str)]
    with _frozen_during_run():
        results = across_files(_check_files(files, options, finder, workers), options)
    by_path = {r.path: r for r in results}
    return [by_path[i] if isinstance(i, str) else Result(i.path, error=i) for i in items]


def across_files(results: list[Result], options: Options) -> list[Result]:
    """`results` after what one file says about the others: a file that replaces an old method on a transformers
    class makes renaming its calls unsafe in every file of the run (standard input is a run of one file)."""
    patches = {f.old: f for r in results for f in r.findings if f.code == "class-patch"}
    if patches:
        results = [without_patched_fixes(r, patches, options.unsafe_fixes) for r in results]
    return results


def _check_files(files: list[str], options: Options, finder: Finder, workers: int | None) -> list[Result]:
    workers = workers or min(os.cpu_count() or 1, 8)
    if len(files) < PARALLEL_FROM or workers < 2 or not hasattr(os, "fork"):
        return [_check(f, options, finder) for f in files]
    shares = _shares(files, workers)
    started: list[_Worker | None] = []
    try:
        for share in shares[1:]:
            started.append(_Worker.start(share, options, finder))
        mine = _prime([_check(f, options, finder) for f in shares[0]], finder)
        theirs = [_results_of(w, share, options, finder) for w, share in zip(started, shares[1:], strict=True)]
    finally:
        for worker in started:
            if worker is not None:
                worker.stop()
    return [r for share in [mine, *theirs] for r in share]


@dataclass
class _Worker:
    """A forked copy of this process checking one share and sending back its results, pickled, through a pipe. A
    bare fork, not a `multiprocessing` pool: the pool's import, threads and shutdown cost a tenth of a second, a
    sixth of a whole `scan` of the transformers tree."""

    pid: int
    pipe: int
    running: bool = True

    @classmethod
    def start(cls, paths: list[str], options: Options, finder: Finder) -> _Worker | None:
        """The worker checking `paths`; `None` when no process can be started (this one checks them then)."""
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
                os.close(read_end)
                results = _prime([_check(p, options, finder) for p in paths], finder)
                # The ranges found, not the errors: an exception whose arguments are not its message does not
                # unpickle; the caller looks those few up again.
                found = {k: v for k, v in finder.given.items() if isinstance(v, Allowed)}
                data = pickle.dumps((results, found), pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_end, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)  # no exit handlers, no flushing of the buffers it shares with the caller
        os.close(write_end)
        return cls(pid, read_end)

    def results(self, finder: Finder) -> list[Result] | None:
        """What the worker sent, once it has ended (its requirement lookups go into `finder`); `None` if it failed
        (it sent nothing whole)."""
        import pickle

        pipe, self.pipe = os.fdopen(self.pipe, "rb"), -1  # it closes the pipe now, whatever happens
        with pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.running = False
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        results, given = pickle.loads(data)
        finder.given.update(given)
        return results

    def stop(self) -> None:
        """End a worker whose results are no longer wanted (this process failed or was interrupted)."""
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
        if self.running:
            import signal

            self.running = False
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)


def _results_of(worker: _Worker | None, paths: list[str], options: Options, finder: Finder) -> list[Result]:
    """The results of `paths` from their worker; checked here when it could not start or failed, so a failing
    worker costs time, never results."""
    found = worker.results(finder) if worker is not None else None
    return found if found is not None else [_check(p, options, finder) for p in paths]


def _prime(results: list[Result], finder: Finder) -> list[Result]:
    """`results`, once `finder` has looked up what the project of each file with findings allows (the closing
    line's requirement), in the process that checked them: so the lookups run in parallel too."""
    finder.consulted([r.path for r in results if r.findings])
    return results


def _shares(files: list[str], workers: int) -> list[list[str]]:
    """`files` split into one share per worker of about the same number of bytes, biggest files first: the few big
    modules that use the names (and so get parsed) are the long poles, and two of them in one share would idle the
    other cores."""
    sizes = {}
    for f in files:
        try:
            sizes[f] = os.stat(f).st_size
        except OSError:
            sizes[f] = 0  # `check` reports it
    shares: list[list[str]] = [[] for _ in range(workers)]
    loads = [0] * workers
    for f in sorted(files, key=sizes.__getitem__, reverse=True):
        least = loads.index(min(loads))
        shares[least].append(f)
        loads[least] += sizes[f]
    return shares
