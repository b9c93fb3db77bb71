"""Benchmark: one big Python file, a use of a renamed name on every line; time and peak memory against ruff.

Run: `.venv/bin/python benchmarks/bigfile.py [--repeat 3]`. Files of 1, 2 and 4 MB are written to a temporary
folder; each is scanned by `python -m generator scan --max-file-size 100MB` and by `ruff check --select F401
--no-cache` (the baseline, same file, same round), each a fresh process. A 50 MB file is scanned once with the
default size limit (it is reported unread). Medians of time, peak resident memory of the process; written to
benchmarks/RESULTS-bigfile.md. The scanner should grow linearly with the file (time per MB about constant).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS-bigfile.md"
LINE = b"model.gradient_checkpointing_enable()  # " + b"x" * 60 + b"\n"
SIZES_MB = (1, 2, 4)
TIME = "/usr/bin/time"
"""GNU time, for the peak memory of each run (Debian: `apt-get install time`)."""


def run(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak resident MB) of one fresh process.

    The peak comes from GNU time: `wait4` on our own child would count this process's memory too (Linux carries the
    parent's high-water mark over a fork and exec).
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.NamedTemporaryFile("r") as peak:
        start = time.perf_counter()
        subprocess.run(
            [TIME, "-f", "%M", "-o", peak.name, *argv],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        seconds = time.perf_counter() - start
        return seconds, int(peak.read().split()[-1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the median is reported (default: %(default)s)")
    parser.add_argument("--no-write", action="store_true", help=f"print the table, do not write {RESULTS.name}")
    args = parser.parse_args()
    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} is missing: apt-get install time")
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if not ruff:
        raise SystemExit("ruff is not installed: .venv/bin/pip install -r requirements.txt")
    scan = [sys.executable, "-m", "checkpointing_migrate", "scan", "--max-file-size", "100MB"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for mb in SIZES_MB:
            path = Path(tmp) / f"big{mb}.py"
            path.write_bytes(LINE * (mb * 10**6 // len(LINE)))
            ours: list[tuple[float, float]] = []
            theirs: list[tuple[float, float]] = []
            for _ in range(args.repeat):
                ours.append(run([*scan, str(path)]))
                theirs.append(run([ruff, "check", "--select", "F401", "--no-cache", str(path)]))
            t, m = statistics.median(x[0] for x in ours), statistics.median(x[1] for x in ours)
            rt = statistics.median(x[0] for x in theirs)
            rows.append(
                f"| {mb} MB ({mb * 10**6 // len(LINE)} uses) | {t:.2f} | {t / mb:.2f} | {m:.0f} | {rt:.3f} | {t / rt:.0f} |"
            )
        huge = Path(tmp) / "huge.py"
        huge.write_bytes(LINE * (50 * 10**6 // len(LINE)))
        skip_t, skip_m = run([sys.executable, "-m", "checkpointing_migrate", "scan", str(huge)])
    text = "\n".join(
        [
            "# One big file",
            "",
            (
                f"A Python file with a use of `gradient_checkpointing_enable` on every line, scanned by a fresh process; medians of "
                f"{args.repeat} rounds. Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}."
            ),
            "",
            "| file | scan (s) | s per MB | scan peak memory (MB) | ruff F401 (s) | ÷ ruff |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            (
                f"A 50 MB file with the default `--max-file-size` (10 MB) is reported and not read: {skip_t:.2f} s, "
                f"{skip_m:.0f} MB peak."
            ),
            "",
            (
                "Target: time per MB about constant (no quadratic step; before the fix, line numbers were counted from the "
                "start of the file for every use). Ruff is the baseline, not a target: it parses once and reports nothing here."
            ),
            "",
            "Reproduce: `.venv/bin/python benchmarks/bigfile.py` (writes this file; `--no-write` only prints).",
            "",
        ]
    )
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
