"""The measured behaviour matrix: probe every listed release in its own environment and keep the outcomes as data.

`python -m generator matrix` installs each listed release of a library with renames alone (`pip install --no-deps
--target` under `.cache/matrix/`; the project's `.venv` supplies torch and the rest), runs `generator.measure.probes`
there and `downstream` in `.venv`, and writes `data/*.json`; the pages render from these files, never from the table.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

from checkpointing_migrate import writing
from checkpointing_migrate.records import DocumentError, dump, loads
from checkpointing_migrate.table import Table
from generator import paths
from generator.measure import registry, saved, source, wording
from generator.measure.data import (
    DOWNSTREAM_FILE,
    MATRIX_FILE,
    SAVED_FILE,
    WORDING_FILE,
    MatrixData,
    MatrixError,
    ProbeOutput,
    RaisedInSource,
    ReleaseEntry,
    read,
)
from generator.paths import DATA_DIR, ROOT

CACHE_DIR = paths.CACHE_DIR / "matrix"
"""Where the per-release environments live (ignored by git; created on demand)."""
TIMEOUT = 600
"""Seconds one probe run or one install may take before the measurement is abandoned."""


@dataclasses.dataclass(frozen=True)
class Job:
    """One listed release to probe, in its own environment."""

    library: str
    pypi: str
    version: str

    @property
    def env(self) -> Path:
        """The `--target` folder holding just this release."""
        return CACHE_DIR / f"{self.pypi}-{self.version}"


def jobs_of(table: Table) -> list[Job]:
    """Every listed release of every library that has renames, in table order, oldest release first."""
    jobs = []
    for key, library in table.libraries.items():
        if table.select(library=key):
            jobs.extend(Job(key, library.pypi, release.version) for release in table.releases_of(key))
    return jobs


# --- Environments --------------------------------------------------------------------------------------------------------


def ensure_env(job: Job) -> Path:
    """The job's environment, installed first if it is missing; a half-finished install is never used."""
    # Any complete environment of the release will do, `refresh`'s (installed from a checked file) included.
    return install_env(job.env, f"{job.pypi}=={job.version}", f"{job.pypi}=={job.version}\n", reuse_any=True)


def install_env(env: Path, source: str, stamp: str, *options: str, reuse_any: bool = False) -> Path:
    """`env` holding `source` (a requirement, or a checked file with `--no-index` in `options`) for the probes'
    `PYTHONPATH`: installed into a staging folder that replaces `env` only when complete, with `stamp` in its
    `.complete` file; an `env` whose stamp matches (with `reuse_any`, any complete one) is used as it is."""
    done = env / ".complete"
    if done.is_file() and (reuse_any or done.read_text(encoding="utf-8") == stamp):
        return env
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{env.name}.", dir=CACHE_DIR))
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", *options]
    try:
        result = subprocess.run(
            [*command, "--target", str(staging), source], capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
        if result.returncode != 0:
            tail = "\n".join(result.stderr.strip().splitlines()[-5:])
            raise MatrixError(f"cannot install {Path(source).name} into {env}:\n{tail}")
        (staging / ".complete").write_text(stamp, encoding="utf-8")
        registry.settle(
            staging, env, lambda done: done.is_file() and (reuse_any or done.read_text(encoding="utf-8") == stamp)
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return env


def environment_problems(job: Job) -> list[str]:
    """Requirements of the release that the shared `.venv` does not meet (extras and markers aside): every release
    uses `.venv`'s one torch install and the rest, so `.venv` must meet them all."""
    dist = next(metadata.distributions(path=[str(job.env)]), None)
    if dist is None:
        return [f"{job.env} holds no installed distribution"]
    problems = []
    for text in dist.requires or []:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        try:
            installed = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            problems.append(f"{job.pypi} {job.version} needs {requirement}, which .venv does not have")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            problems.append(f"{job.pypi} {job.version} needs {requirement}, .venv has {requirement.name} {installed}")
    return problems


# --- Measuring -----------------------------------------------------------------------------------------------------------


def _run_module(module: str, args: list[str], pythonpath: list[Path]) -> str:
    """The JSON text `python -m module ARGS --out FILE` wrote, run with `pythonpath` first; `MatrixError` on failure."""
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        out = Path(tmp) / "out.json"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in [*pythonpath, ROOT])}
        env.pop("PYTHONWARNINGS", None)  # the probes record warnings themselves
        env["OMP_NUM_THREADS"] = "1"  # tiny models; several probe processes share the cores without oversubscribing
        result = subprocess.run(
            [sys.executable, "-m", module, *args, "--out", str(out)],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        if result.returncode != 0 or not out.is_file():
            tail = "\n".join(result.stderr.strip().splitlines()[-15:])
            where = f" with {pythonpath[0]}" if pythonpath else ""
            raise MatrixError(f"python -m {module}{where} failed (exit {result.returncode}):\n{tail}")
        return out.read_text(encoding="utf-8")


def probe_job(job: Job, table_path: Path) -> ReleaseEntry:
    """Probe one release and check that it really was that release that answered."""
    problems = environment_problems(job)
    if problems:
        raise MatrixError("the shared .venv does not fit this release:\n" + "\n".join(problems))
    output = _run_module(
        "generator.measure.probes", ["--table", str(table_path.resolve()), "--library", job.library], [job.env]
    )
    try:
        probed = loads(output, ProbeOutput, "the output of generator.measure.probes")
    except DocumentError as exc:
        raise MatrixError(str(exc)) from None
    versions, transformers_path, outcomes = probed.versions, probed.transformers_path, probed.outcomes
    measured = versions.get(job.library)
    if measured != job.version or (job.library == "transformers" and not transformers_path.startswith(str(job.env))):
        raise MatrixError(f"{job.env} should provide {job.pypi} {job.version}, but the probes ran {measured}")
    messages = [o.error.message for o in outcomes if o.error]
    raised = tuple(
        RaisedInSource(
            t.category, t.shown, t.path, t.line, t.function, t.condition, any(t.matches(m) for m in messages)
        )
        for t in source.raised_naming(job.env, job.library)
    )
    return ReleaseEntry(job.library, job.version, versions, outcomes, raised)


def measure(
    table: Table,
    table_path: Path,
    jobs: list[Job] | None = None,
    workers: int | None = None,
    *,
    kept: MatrixData | None = None,
) -> dict[str, Any]:
    """The matrix data for `jobs` (default: every listed release), environments created as needed; one probe process
    per core (`workers`), each with its release first on `PYTHONPATH`. A release that `kept` (measured earlier on
    this Python) holds is not probed again: its entry is taken as recorded."""
    jobs = jobs_of(table) if jobs is None else jobs
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    recorded = {(e.library, e.release): e for e in kept.releases} if kept and kept.python == python else {}
    probed = [job for job in jobs if (job.library, job.version) not in recorded]
    for job in probed:
        ensure_env(job)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        fresh = dict(zip(probed, pool.map(lambda job: probe_job(job, table_path), probed)))
    releases = tuple(recorded.get((job.library, job.version)) or fresh[job] for job in jobs)
    return {
        "about": "Measured by `python -m generator matrix` (generator/measure/probes.py); never edit by hand.",
        **dataclasses.asdict(MatrixData(python, releases)),
    }


def measure_downstream() -> dict[str, Any]:
    """PEFT's and TRL's warnings, measured in the project's own environment (see `generator.measure.downstream`)."""
    result = json.loads(_run_module("generator.measure.downstream", [], []))
    return {
        "about": "Measured by `python -m generator matrix` (generator/measure/downstream.py); never edit by hand.",
        **result,
    }


def measure_all(table: Table, table_path: Path) -> dict[str, dict[str, Any]]:
    """Every data file's content, keyed by file name; the downstream run and the saved state's overlap with the
    release probes."""
    releases = [(j.version, ensure_env(j)) for j in jobs_of(table) if j.library == "transformers"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        downstream = pool.submit(measure_downstream)
        before = pool.submit(saved.measure, table, releases, _run_module)
        matrix = measure(table, table_path)
        texts = wording.measure(releases)
        return {
            MATRIX_FILE: matrix,
            DOWNSTREAM_FILE: downstream.result(),
            SAVED_FILE: before.result(),
            WORDING_FILE: texts,
        }


# --- Data files ----------------------------------------------------------------------------------------------------------


def differences(recorded: dict[str, Any], measured: dict[str, Any], name: str) -> str:
    """A unified diff from the recorded to the measured data, empty when they are equal."""
    lines = difflib.unified_diff(
        dump(recorded).splitlines(keepends=True),
        dump(measured).splitlines(keepends=True),
        fromfile=f"data/{name} (recorded)",
        tofile=f"data/{name} (measured now)",
    )
    return "".join(lines)


def write_if_changed(measured: dict[str, dict[str, Any]], data_dir: Path = DATA_DIR) -> list[Path]:
    """Write each data file whose content changed, atomically; return the paths written."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return writing.write_if_changed({data_dir / name: dump(data) for name, data in measured.items()})


# --- The command ---------------------------------------------------------------------------------------------------------


def command(table: Table, table_path: Path, data_dir: Path, *, check: bool) -> int:
    """`python -m generator matrix [--check]`: measure, then write the data files that changed, or (`--check`) compare
    with them and exit 1 with a diff."""
    try:
        measured = measure_all(table, table_path)
        if check:
            diffs = [differences(read(data_dir / name), data, name) for name, data in measured.items()]
            diffs = [d for d in diffs if d]
            for diff in diffs:
                print(diff, file=sys.stderr, end="")
            if diffs:
                print(
                    "the releases no longer behave as recorded; run `python -m generator matrix`, then "
                    "`python -m generator render`, and review the diff",
                    file=sys.stderr,
                )
                return 1
            print(f"{', '.join(sorted(measured))}: every outcome measured again, no difference.")
            return 0
    except MatrixError as exc:
        print(exc, file=sys.stderr)
        print("nothing was written.", file=sys.stderr)
        return 1
    for path in write_if_changed(measured, data_dir):
        print(f"wrote {path}")
    return 0
