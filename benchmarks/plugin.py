"""Benchmark: what the pytest plugin costs every pytest start of someone who installed the tool and never asks for it.

Run: `.venv/bin/python benchmarks/plugin.py [--rounds 15]`. It builds a wheel of this tree, installs it and pytest into
a fresh venv, and times `python -m pytest -q` on a one-test project in pairs (A B A B …) against the same start with
the plugin disabled (`-p no:checkpointing-v6-preview`). The median of the pairs' ratios of CPU time (user + sys of the
child: on a shared machine wall time mostly measures the neighbours) is the figure (target ≤ 1.05×); wall time is shown
too. Results: benchmarks/RESULTS-plugin.md.
"""

from __future__ import annotations

import argparse
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coldstart import ROOT, install  # type: ignore[import-not-found]  # run as a script from benchmarks/

RESULTS = ROOT / "benchmarks" / "RESULTS-plugin.md"
TARGET = 1.05
PLUGIN = "checkpointing-v6-preview"
"""The plugin's `pytest11` entry-point name (pyproject.toml), which `-p no:NAME` disables."""


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of `argv`: the children's user + sys time before and after it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="pairs of runs (default: %(default)s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="plugin-") as tmp:
        work = Path(tmp)
        bin_dir = install(work)
        subprocess.run([str(bin_dir / "pip"), "install", "-q", "pytest"], check=True)
        project = work / "project"
        project.mkdir()
        (project / "test_one.py").write_text("def test_one():\n    assert True\n", encoding="utf-8")
        pytest = [str(bin_dir / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        without, with_plugin = [*pytest, "-p", f"no:{PLUGIN}"], pytest
        loaded = subprocess.run([*pytest, "--help"], cwd=project, capture_output=True, text=True, check=False).stdout
        assert "--v6-preview" in loaded, "the plugin is not registered in the benchmark's venv"
        for argv in (without, with_plugin):  # warm the page cache and the bytecode caches once
            timed(argv, project)
        base, plugin = [], []
        for _ in range(args.rounds):
            base.append(timed(without, project))
            plugin.append(timed(with_plugin, project))
        version = subprocess.run(
            [*pytest[:3], "--version"], cwd=project, capture_output=True, text=True, check=False
        ).stdout.strip()
    ratio = statistics.median(p[0] / b[0] for b, p in zip(base, plugin, strict=True))
    wall_ratio = statistics.median(p[1] / b[1] for b, p in zip(base, plugin, strict=True))
    b_cpu, p_cpu = (statistics.median(run[0] for run in runs) for runs in (base, plugin))
    b_wall, p_wall = (statistics.median(run[1] for run in runs) for runs in (base, plugin))
    lines = [
        "# The pytest plugin's cost when unused",
        "",
        f"`.venv/bin/python benchmarks/plugin.py --rounds {args.rounds}` on {platform.machine()}, Python "
        f"{platform.python_version()}, {version}; median of paired runs (A B A B …), each a fresh process in a fresh "
        "venv holding only the wheel, its two dependencies and pytest, on a project with one passing test.",
        "",
        "| command | CPU, median (s) | CPU ratio, median of pairs | wall, median (s) | wall ratio, median of pairs |",
        "|---|---:|---:|---:|---:|",
        f"| baseline: `python -m pytest -q -p no:{PLUGIN}` (plugin installed, disabled) | {b_cpu:.3f} | 1.00 | {b_wall:.3f} | 1.00 |",
        f"| `python -m pytest -q` (plugin loaded, `--v6-preview` not given) | {p_cpu:.3f} | {ratio:.2f} | {p_wall:.3f} | {wall_ratio:.2f} |",
        "",
        f"Target: ≤ {TARGET:.2f}× the baseline in CPU time — {'met' if ratio <= TARGET else 'NOT met'}. Unasked, the "
        "plugin imports only pytest and the package's two `__init__`s (checked in this run: `--v6-preview` is in "
        "`pytest --help`).",
        "",
    ]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
