"""How much the generator hook adds to a strict build of the whole site.

Two configurations of the same pages are built alternately from a private copy of the repository:

- `with hook`: mkdocs.yml as it is. The hook renders docs/generated/*.md from aliases.yaml before the build
  (writing nothing, since the committed pages are current) and publishes aliases.json, its schema, llms.txt,
  llms-full.txt and the Markdown sources after it.
- `without hook`: the same file minus its `hooks:` entry, building the committed pages as they are.

Each run is the wall time of the whole command, `mkdocs build --strict --site-dir DIR`, as a reader of the
Makefile would type it (interpreter start and imports included). Runs alternate so that drift on a shared
machine hits both sides alike; the median is reported. Target: the hook adds at most 10 %.

Usage: `.venv/bin/python benchmarks/build.py [--runs N]`. Exit code 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")
TARGET = 1.10
"""Largest acceptable ratio of the median build time with the hook to the one without it."""


def copy_repo(dest: Path) -> Path:
    skip = shutil.ignore_patterns(".git", ".venv", ".cache", ".pytest_cache", "site", "__pycache__", "*.pyc")
    return Path(shutil.copytree(ROOT, dest, ignore=skip))


def without_hook(config: str) -> str:
    """mkdocs.yml with its `hooks:` list removed (and nothing else changed)."""
    stripped, count = re.subn(r"^hooks:\n(?:  - .*\n)+", "", config, flags=re.MULTILINE)
    if count != 1:
        sys.exit("benchmarks/build.py: could not find the `hooks:` list in mkdocs.yml")
    return stripped


def build_seconds(repo: Path, config: str, site: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one build; CPU time (user + system of the child) is less disturbed by other load."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    command = [str(MKDOCS), "build", "--strict", "--quiet", "--config-file", config, "--site-dir", str(site)]
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    result = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"benchmarks/build.py: `{' '.join(command)}` failed:\n{result.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="builds per configuration (default: %(default)s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        repo = copy_repo(Path(tmp) / "repo")
        (repo / "mkdocs-nohook.yml").write_text(without_hook((repo / "mkdocs.yml").read_text(encoding="utf-8")))
        configs = {"with hook": "mkdocs.yml", "without hook": "mkdocs-nohook.yml"}
        for name, config in configs.items():  # warm-up: file cache, bytecode of the libraries
            build_seconds(repo, config, Path(tmp) / "site")
        times: dict[str, list[float]] = {name: [] for name in configs}
        cpu: dict[str, list[float]] = {name: [] for name in configs}
        for run in range(args.runs):
            order = list(configs) if run % 2 == 0 else list(reversed(configs))
            for name in order:
                wall, used = build_seconds(repo, configs[name], Path(tmp) / f"site-{configs[name]}-{run}")
                times[name].append(wall)
                cpu[name].append(used)
        # Same pages, and the hook did its whole job: the outputs exist only in the build with it.
        with_outputs = {p.name for p in (Path(tmp) / "site-mkdocs.yml-0").rglob("*")}
        without_outputs = {p.name for p in (Path(tmp) / "site-mkdocs-nohook.yml-0").rglob("*")}
    ratio = statistics.median(times["with hook"]) / statistics.median(times["without hook"])
    cpu_ratio = statistics.median(cpu["with hook"]) / statistics.median(cpu["without hook"])
    print(f"{args.runs} runs each, alternating; `mkdocs build --strict` of the whole site, seconds\n")
    print("| configuration | wall, median | wall, min–max | CPU, median | CPU, min–max |")
    print("|---|---|---|---|---|")
    for name in configs:
        w, c = times[name], cpu[name]
        print(
            f"| {name} | {statistics.median(w):.2f} | {min(w):.2f}–{max(w):.2f} "
            f"| {statistics.median(c):.2f} | {min(c):.2f}–{max(c):.2f} |"
        )
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"\nhook overhead, wall: {(ratio - 1) * 100:+.1f} % (ratio {ratio:.3f}; target ≤ {TARGET:.2f}): {verdict}")
    print(f"hook overhead, CPU:  {(cpu_ratio - 1) * 100:+.1f} % (ratio {cpu_ratio:.3f})")
    print(f"only in the build with the hook: {', '.join(sorted(with_outputs - without_outputs))}")
    assert without_outputs <= with_outputs, sorted(without_outputs - with_outputs)
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
