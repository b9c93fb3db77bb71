"""Benchmark: the migration scanner against ruff and grep on the transformers 5.23.0 source tree.

Run: `.venv/bin/python benchmarks/scan.py [--repeat 7]` (downloads the wheel into .cache/registry once). Each round
runs, back to back on the same unpacked tree:

- `checkpointing-migrate scan TREE` (the console script), `python -m checkpointing_migrate scan TREE`, and
  `scan --include-planned TREE` (what a transformers maintainer runs: every internal use of the planned renames);
- `ruff check --select F401 --no-cache TREE` (the target: the scanner must not be slower);
- `grep -rn gradient_checkpointing TREE` (a floor: what a text search costs).

Every command is a fresh process, so interpreter start-up and loading the alias table are included. The median
of the rounds is reported, with ratios to ruff and to grep, and written to benchmarks/RESULTS-scan.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.measure import registry
from generator.measure.adoption import fetch

VERSION = "5.23.0"
RESULTS = ROOT / "benchmarks" / "RESULTS-scan.md"


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if not found:
        raise SystemExit("ruff is not installed: .venv/bin/pip install -r requirements.txt")
    return found


def commands(tree: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "scanner (checkpointing-migrate scan)": [str(Path(py).with_name("checkpointing-migrate")), "scan", str(tree)],
        "scanner (python -m checkpointing_migrate scan)": [py, "-m", "checkpointing_migrate", "scan", str(tree)],
        "scanner, planned renames too (scan --include-planned)": [
            str(Path(py).with_name("checkpointing-migrate")),
            "scan",
            "--include-planned",
            str(tree),
        ],
        "ruff check --select F401 --no-cache": [_ruff(), "check", "--select", "F401", "--no-cache", str(tree)],
        "grep -rn gradient_checkpointing": ["grep", "-rn", "gradient_checkpointing", str(tree)],
    }


def measure(argv: list[str]) -> float:
    # With bytecode caching on, as an installed tool runs (pip compiles it): PYTHONDONTWRITEBYTECODE, set in some
    # shells and CI images, would make every round compile the scanner's modules from source (about 0.1 s).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds; the median is reported (default: %(default)s)")
    parser.add_argument("--no-write", action="store_true", help=f"print the table, do not write {RESULTS.name}")
    args = parser.parse_args()
    wheel, _ = fetch("transformers", VERSION)
    tree = registry.unpack(wheel)
    files = sum(1 for _ in tree.rglob("*.py"))
    runs = commands(tree)
    for argv in runs.values():  # warm the file cache and the interpreter's bytecode
        measure(argv)
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, argv in runs.items():
            times[name].append(measure(argv))
    load_after = os.getloadavg()[0]
    median = {name: statistics.median(t) for name, t in times.items()}
    ruff = median["ruff check --select F401 --no-cache"]
    grep = median["grep -rn gradient_checkpointing"]
    lines = [
        "# Scanner speed",
        "",
        f"Scanning the transformers {VERSION} source tree ({files} Python files, unpacked from `{wheel.name}`), each",
        f"command a fresh process, {args.repeat} rounds back to back after one warm-up round; medians. Machine:",
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; 1-minute load average",
        f"{load_before:.2f} before and {load_after:.2f} after the rounds (other work slows every command, the ratios less).",
        "",
        "| command | median (s) | ÷ ruff | ÷ ruff in each round: median, slowest | ÷ grep |",
        "|---|---|---|---|---|",
    ]
    ruff_times = times["ruff check --select F401 --no-cache"]
    paired = {name: [a / b for a, b in zip(t, ruff_times, strict=True)] for name, t in times.items()}
    for name, value in median.items():
        rounds = f"{statistics.median(paired[name]):.2f}, {max(paired[name]):.2f}"
        lines.append(f"| `{name}` | {value:.3f} | {value / ruff:.2f} | {rounds} | {value / grep:.1f} |")
    lean = median["scanner (checkpointing-migrate scan)"]
    planned = median["scanner, planned renames too (scan --include-planned)"]
    slower = {
        name: sum(r > 1 for r in paired[name])
        for name in ("scanner (checkpointing-migrate scan)", "scanner, planned renames too (scan --include-planned)")
    }
    lines += [
        "",
        "Target: the scanner no slower than ruff, with `--include-planned` too. Result: "
        f"scan {'met' if lean <= ruff else 'NOT met'} ({lean / ruff:.2f}× ruff), "
        f"`--include-planned` {'met' if planned <= ruff else 'NOT met'} ({planned / ruff:.2f}× ruff). "
        f"Rounds in which it was slower than ruff (each round runs the commands back to back): scan "
        f"{slower['scanner (checkpointing-migrate scan)']} of {args.repeat}, `--include-planned` "
        f"{slower['scanner, planned renames too (scan --include-planned)']} of {args.repeat}.",
        "",
        "With `--include-planned` nearly every modeling file holds a use of the internal names; a file whose only "
        "uses are planned names is read statement by statement (`checkpointing_migrate/python/statements.py`: the "
        "statements that hold one are cut out and parsed alone) instead of parsed whole. The walk hands the files it "
        "finds to a forked worker in batches while it goes on (`checkpointing_migrate/run.py`), so no core waits "
        "for it.",
        "",
        "Reproduce: `.venv/bin/python benchmarks/scan.py` (writes this file; `--no-write` only prints).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
