"""Benchmark: measuring three transformers releases against measuring one.

Each release is probed in its own interpreter and environment (see generator/measure/matrix.py); the environments are
created first and not timed. `generator.measure.matrix.measure` runs the probe processes in parallel, one per core, so
three releases should cost well under three times one. Also times the whole `python -m generator matrix --check`
(every listed release, PEFT and TRL, and the downstream warnings). Target: three / one ≤ 3. Run from the
repository root:

    .venv/bin/python benchmarks/matrix.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checkpointing_migrate.table import load
from generator.measure import matrix


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    table_path = ROOT / "aliases.yaml"
    table = load(table_path)
    releases = [job for job in matrix.jobs_of(table) if job.library == "transformers"]
    for job in releases:
        matrix.ensure_env(job)
    variants = {"1 release": releases[-1:], f"{len(releases)} releases": releases}
    times: dict[str, list[float]] = {name: [] for name in variants}
    check: list[float] = []
    for _ in range(args.repeat):
        for name, jobs in variants.items():
            start = time.perf_counter()
            matrix.measure(table, table_path, jobs)
            times[name].append(time.perf_counter() - start)
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "generator", "matrix", "--check"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        check.append(time.perf_counter() - start)
        if result.returncode != 0:
            sys.exit(f"matrix --check failed:\n{result.stderr[-3000:]}")
    median = {name: statistics.median(t) for name, t in times.items()}
    one = median["1 release"]
    print(f"cores: {os.cpu_count()}; releases: {', '.join(j.version for j in releases)}")
    print("| measured | median wall time (s) | ratio to 1 release |")
    print("|---|---|---|")
    for name in variants:
        print(f"| {name} | {median[name]:.2f} | {median[name] / one:.2f} |")
    print(
        f"| `python -m generator matrix --check` (everything) | {statistics.median(check):.2f} | {statistics.median(check) / one:.2f} |"
    )
    ratio = median[f"{len(releases)} releases"] / one
    print(f"\n{len(releases)} releases / 1 release = {ratio:.2f} (target ≤ 3): {'ok' if ratio <= 3 else 'TOO SLOW'}")
    return 0 if ratio <= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
