"""Benchmark: the old-names doc-test pass against the as-written pass, and both passes in one interpreter.

Runs pytest over docs/ three ways, each in a fresh interpreter, `--repeat` times (median reported):

- as written: `pytest docs -k "not old-names"`
- old names:  `pytest docs -k old-names` (runs every page that uses a renamed name again, rewritten)
- both:       `pytest docs`, one interpreter for both passes (what `make test` does)

Target: old names / as written ≤ 1.3. Each run includes the interpreter start and the imports (torch, transformers,
PEFT, TRL), exactly what a separate run of either pass would cost. Run from the repository root:

    .venv/bin/python benchmarks/doctests.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "as written": ["-k", "not old-names"],
    "old names": ["-k", "old-names"],
    "both passes, one interpreter": [],
}


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "docs", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    summary = result.stdout.strip().splitlines()[-1]
    if result.returncode != 0:
        sys.exit(f"pytest failed ({' '.join(args)}):\n{result.stdout[-3000:]}")
    return elapsed, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[float]] = {name: [] for name in RUNS}
    summaries = {}
    for _ in range(args.repeat):
        for name, extra in RUNS.items():  # interleaved, so a slow moment of the machine hits every variant
            seconds, summaries[name] = timed(extra)
            results[name].append(seconds)
    median = {name: statistics.median(times) for name, times in results.items()}
    base = median["as written"]
    print("| run | pytest result | median wall time (s) | ratio to as written |")
    print("|---|---|---|---|")
    for name in RUNS:
        print(f"| {name} | {summaries[name]} | {median[name]:.2f} | {median[name] / base:.2f} |")
    ratio = median["old names"] / base
    print(f"\nold names / as written = {ratio:.2f} (target ≤ 1.3): {'ok' if ratio <= 1.3 else 'TOO SLOW'}")
    separate = median["as written"] + median["old names"]
    print(f"both passes in one interpreter: {median['both passes, one interpreter']:.2f} s; in two: {separate:.2f} s")
    return 0 if ratio <= 1.3 else 1


if __name__ == "__main__":
    sys.exit(main())
