"""Benchmark: a full refresh of every library of the table, parallel downloads against sequential ones.

Run: `.venv/bin/python benchmarks/refresh.py [--no-write]` (needs PyPI). The table is copied with every library's
`checked` set back to its previous final release, so that each of the 21 libraries has a newer release: the refresh
asks the registry about all of them, downloads both releases' files (sha256-checked) and looks every API name and
config key up in both. Two arms, each into its own empty cache, in the same run: `--workers 1` (the baseline,
one request and one download at a time, as `pip download` of the same files one after the other would) and the
default `--workers 8`. Timed per phase: registry queries and downloads (`discover`), then the name check (each
archive's Python sources read in memory, the archives `--workers` at a time). The probes of transformers/PEFT/TRL are left out: they are the matrix's
work, timed in benchmarks/matrix.py. Results go to benchmarks/RESULTS-refresh.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from packaging.version import Version

from checkpointing_migrate.table import load, parse
from generator.measure import refresh, registry
from generator.paths import TABLE_PATH

RESULTS = ROOT / "benchmarks" / "RESULTS-refresh.md"


def previous_releases(workers: int) -> dict[str, str]:
    """Each library's final release before its `checked` one, as the registry lists it."""
    table = load(TABLE_PATH)

    def previous(key: str) -> tuple[str, str]:
        library = table.libraries[key]
        project = registry.project(registry.PYPI, library.pypi)
        older = [v for v in project.releases if v in project.newer_than("0") and Version(v) < Version(library.checked)]
        return key, max(older, key=Version)

    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(previous, table.libraries))


def table_one_release_back(previous: dict[str, str]) -> tuple[str, object]:
    text = TABLE_PATH.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    key = None
    for index, line in enumerate(lines):
        if (m := re.match(r"  ([\w-]+):\s*$", line)) and m.group(1) in previous:
            key = m.group(1)
        elif key and line.startswith("    checked:"):
            lines[index] = f'    checked: "{previous[key]}"\n'
            key = None
    edited = "".join(lines)
    return edited, parse(edited, "aliases.yaml")


def run_arm(table: object, workers: int) -> dict[str, float]:
    cache = Path(tempfile.mkdtemp(prefix=f"refresh-bench-{workers}-"))
    try:
        start = time.perf_counter()
        findings = refresh.discover(table, registry.PYPI, None, workers, cache)  # type: ignore[arg-type]
        discovered = time.perf_counter()
        refresh.measure(table, TABLE_PATH, findings, probe=False, workers=workers)  # type: ignore[arg-type]
        done = time.perf_counter()
        size = sum(p.stat().st_size for p in cache.iterdir() if p.is_file())
        newer = sum(1 for f in findings if f.latest)
        files = sum(len(f.files) for f in findings)
        return {
            "discover": discovered - start,
            "names": done - discovered,
            "total": done - start,
            "bytes": size,
            "newer": newer,
            "files": files,
        }
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print the results; do not write RESULTS-refresh.md")
    args = parser.parse_args()
    previous = previous_releases(8)
    _, table = table_one_release_back(previous)
    load_before = os.getloadavg()[0]
    sequential = run_arm(table, 1)
    parallel = run_arm(table, 8)
    current = load(TABLE_PATH)  # the daily case: nothing newer, only the registry is asked
    quiet = {}
    for workers in (1, 8):
        start = time.perf_counter()
        refresh.discover(current, registry.PYPI, None, workers)
        quiet[workers] = time.perf_counter() - start
    load_after = os.getloadavg()[0]
    rows = [("`--workers 1` (sequential, baseline)", sequential), ("`--workers 8` (parallel, default)", parallel)]
    lines = [
        "# Refresh speed",
        "",
        f"A full refresh of all {len(previous)} libraries of the table, each set back one release so that every one has a",
        f"newer release: {parallel['files']} files ({parallel['bytes'] / 1e6:.0f} MB) downloaded from PyPI and checked against",
        "their sha256, then every API name and config key looked up in both releases' source. Each arm starts from an",
        (
            f"empty cache; same run, sequential first. Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; 1-minute load average {load_before:.2f} before and {load_after:.2f} after."
        ),
        "",
        "| arm | registry + downloads (s) | name check (s) | total (s) | total ÷ baseline |",
        "|---|---|---|---|---|",
    ]
    for name, arm in rows:
        lines.append(
            f"| {name} | {arm['discover']:.1f} | {arm['names']:.1f} | {arm['total']:.1f} | "
            f"{arm['total'] / sequential['total']:.2f} |"
        )
    lines += [
        "",
        (
            f"With the committed table (nothing newer, the daily case), asking the registry about all {len(previous)} "
            f"libraries takes {quiet[1]:.2f} s one at a time and {quiet[8]:.2f} s with `--workers 8` "
            f"({quiet[8] / quiet[1]:.2f}×)."
        ),
        "",
        (
            f"Downloads alone: parallel takes {parallel['discover'] / sequential['discover']:.2f}× the sequential time. "
            "The probes of a new transformers, PEFT or TRL release come on top (one matrix run per release, see "
            "RESULTS-issue3.md); a day with nothing new costs only the registry queries."
        ),
        "",
        "Reproduce: `.venv/bin/python benchmarks/refresh.py` (writes this file; `--no-write` only prints).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
