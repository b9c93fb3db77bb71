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
from pathlib import Path

from checkpointing_migrate.discover import Selection, walk
from checkpointing_migrate.files import Result, check, without_patched_fixes
from checkpointing_migrate.hits import Options
from checkpointing_migrate.requirements import Finder

PARALLEL_FROM = 200
"""Below this many files the start-up of a worker process costs more than it saves."""

COLLECT_EVERY = (10_000, 50, 50)
"""The collector's thresholds while files are checked. A parsed module is hundreds of thousands of nodes, all alive
until its file is done: at the default (700, 10, 10) the collector went over them again and again, half of the
time of `scan --include-planned` on the transformers tree. Rarer, not never: what cycles hold is still freed."""

_STATE: tuple[Options, Finder] | None = None


@contextmanager
def _rare_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*COLLECT_EVERY)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _init(options: Options, finder: Finder) -> None:
    global _STATE
    _STATE = (options, finder)


def _check_share(paths: list[str]) -> list[Result]:
    assert _STATE is not None
    return [check(p, *_STATE) for p in paths]


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
    with _rare_collections():  # forked workers inherit it
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
    if len(files) < PARALLEL_FROM or workers < 2:
        return [check(f, options, finder) for f in files]
    import multiprocessing  # only here: most runs (a pre-commit hook's) check a few files and never need it

    if "fork" not in multiprocessing.get_all_start_methods():
        return [check(f, options, finder) for f in files]
    shares = _shares(files, workers)
    context = multiprocessing.get_context("fork")
    with context.Pool(workers - 1, initializer=_init, initargs=(options, finder)) as pool:
        pending = pool.map_async(_check_share, shares[1:])
        mine = [check(f, options, finder) for f in shares[0]]
        theirs = pending.get()
    return [r for share in [mine, *theirs] for r in share]


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
