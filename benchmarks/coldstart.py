"""Benchmark: the installed tool's cold start, as pre-commit pays it on every commit.

Run: `.venv/bin/python benchmarks/coldstart.py [--rounds 21]`. It builds a wheel of this tree, installs it into a
fresh virtual environment (only PyYAML and packaging come with it), and then times, in pairs run back to back:

- the baseline, `python -c "import yaml, packaging.version"` in that environment (what any tool using them pays);
- `checkpointing-migrate scan one.py` on a one-file project with one finding (the target: at most 2× the baseline).

The medians and their ratio go to benchmarks/RESULTS-coldstart.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS-coldstart.md"
TARGET = 2.0
SAMPLE = 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("x")\nmodel.gradient_checkpointing_enable()\n'


def install(into: Path) -> Path:
    """A new venv in `into` with the wheel of this tree; returns its bin folder."""
    subprocess.run([sys.executable, "-m", "venv", str(into / "venv")], check=True)
    bin_dir = into / "venv" / "bin"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(into / "dist"), str(ROOT)], check=True
    )
    wheel = next((into / "dist").glob("*.whl"))
    subprocess.run([str(bin_dir / "pip"), "install", "-q", str(wheel)], check=True)
    return bin_dir


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="pairs of runs (default: %(default)s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coldstart-") as tmp:
        work = Path(tmp)
        bin_dir = install(work)
        project = work / "project"
        project.mkdir()
        (project / "train.py").write_text(SAMPLE, encoding="utf-8")
        (project / "requirements.txt").write_text("transformers>=5.23.0\n", encoding="utf-8")
        baseline = [str(bin_dir / "python"), "-c", "import yaml, packaging.version"]
        tool = [str(bin_dir / "checkpointing-migrate"), "scan", "train.py"]
        for argv in (baseline, tool):  # warm the page cache and the bytecode caches once
            timed(argv, project)
        base, scan = [], []
        for _ in range(args.rounds):
            base.append(timed(baseline, project))
            scan.append(timed(tool, project))
    b, s = statistics.median(base), statistics.median(scan)
    ratio = s / b
    lines = [
        "# Cold start of the installed tool",
        "",
        f"`.venv/bin/python benchmarks/coldstart.py --rounds {args.rounds}` on {platform.machine()}, Python {platform.python_version()}; "
        "median of paired runs, each a fresh process in a fresh venv holding only the wheel and its two dependencies.",
        "",
        "| command | median (s) | ratio |",
        "|---|---:|---:|",
        f'| baseline: `python -c "import yaml, packaging.version"` | {b:.3f} | 1.00 |',
        f"| `checkpointing-migrate scan train.py` (one file, one finding) | {s:.3f} | {ratio:.2f} |",
        "",
        f"Target: ≤ {TARGET:.1f}× the baseline — {'met' if ratio <= TARGET else 'NOT met'}.",
        "",
    ]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
