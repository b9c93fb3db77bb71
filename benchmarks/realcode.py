"""Proof on real code: `fix --write` on released fine-tuning projects keeps their code, and their tests, working.

Run: `.venv/bin/python benchmarks/realcode.py [NAME ...]` (results in benchmarks/RESULTS-realcode.md when every
project ran). Each project is pinned in benchmarks/realcode.json by version, file and sha256, downloaded once from PyPI
into .cache/registry/ (`generator.measure.registry`) and checked against the pin on every use. For each, in a fresh
copy of the unpacked release:

1. the project's own tests that touch the renamed names run, offline and on CPU, with its source first on
   PYTHONPATH (the Hub models they load are built from tiny configs into a local Hub cache);
2. `fix --write --target 'transformers>=5.23.0'` rewrites the tree (safe fixes only);
3. every rewritten file still parses (Python compiles), a second run changes nothing, and every file without a
   safe fix finding keeps its bytes;
4. the tests run again and must give the same outcome, test by test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator import paths  # noqa: E402
from generator.measure import registry  # noqa: E402

PINS = ROOT / "benchmarks" / "realcode.json"
HUB = paths.CACHE_DIR / "realcode" / "hub"
"""The local Hub cache of the stand-in models the projects' tests load (git-ignored, kept between runs)."""
RESULTS = ROOT / "benchmarks" / "RESULTS-realcode.md"
PRECISION_HEADING = "## Precision before and after the safety work"
"""The section `realcode_precision.py` writes into RESULTS; rewriting the page keeps it."""


class FetchError(RuntimeError):
    """A pinned release that could not be downloaded, or whose sha256 differs from the pin."""


@dataclass(frozen=True)
class Project:
    """One pinned release and the tests of it that touch the renamed names."""

    name: str
    version: str
    file: str
    sha256: str
    pythonpath: str
    """Folder (relative to the unpacked root) that holds the importable package."""
    tests: tuple[str, ...]
    """pytest arguments (paths, `-k`, ...); empty when the release ships no runnable test of these names."""
    note: str
    setup: tuple[str, ...] = ()
    """Empty files to create after unpacking (a package marker the sdist leaves out), before anything runs."""
    alongside: tuple[str, ...] = ()
    """Other pinned projects whose unpacked release goes on `PYTHONPATH` after this one's source, for its tests
    (a package its import guard requires to be present)."""


@dataclass
class Outcome:
    """What one project gave."""

    project: Project
    files: int = 0
    findings: dict[str, int] = field(default_factory=dict)
    """Counts by `fix`, `unsafe fix`, `hazard`, `info`."""
    rewritten: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Every broken promise: a rewrite that does not compile, a second run that changes something, ..."""
    tests_before: dict[str, str] = field(default_factory=dict)
    tests_after: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def load(path: Path = PINS) -> tuple[str, list[dict[str, object]], list[Project]]:
    """(target, Hub stand-ins, projects) from the pin file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    projects = [
        Project(
            **{
                **p,
                "tests": tuple(p["tests"]),
                "setup": tuple(p.get("setup", ())),
                "alongside": tuple(p.get("alongside", ())),
            }
        )
        for p in data["projects"]
    ]
    return data["target"], data["hub"], projects


def fetch(project: Project, cache: Path = registry.CACHE) -> Path:
    """The pinned file, from the cache or downloaded once from the registry, checked against the pin's sha256;
    raises `FetchError`."""
    if found := registry.cached(cache / project.file, project.sha256):
        return found  # the pin names the file: a checked copy needs no registry (offline too)
    try:
        files = registry.project(registry.PYPI, project.name).releases.get(project.version, ())
        file = next((f for f in files if f.filename == project.file), None)
        if file is None:
            raise FetchError(f"{project.name}=={project.version}: the registry lists no {project.file}")
        if file.sha256 != project.sha256:
            raise FetchError(f"{project.file}: sha256 {file.sha256} differs from the pin {project.sha256}")
        return registry.fetch(file, cache)
    except registry.RegistryError as exc:
        raise FetchError(str(exc)) from None


def unpack(archive: Path, into: Path) -> Path:
    """A fresh copy of the unpacked release (`registry.unpack`, extracted once) at `into`, for `fix --write` to edit;
    returns `into`, the project root (an sdist's top folder is already gone)."""
    try:
        tree = registry.unpack(archive)
    except registry.RegistryError as exc:
        raise FetchError(str(exc)) from None
    shutil.copytree(tree, into)
    (into / ".complete").unlink()  # the registry's marker, not the project's
    return into


def build_hub(specs: list[dict[str, object]], hub: Path = HUB) -> Path:
    """A local Hub cache holding each stand-in model (built from its tiny config); returns the cache folder."""
    revision = "0" * 40
    for spec in specs:
        repo = str(spec["id"])
        folder = hub / f"models--{repo.replace('/', '--')}"
        snapshot = folder / "snapshots" / revision
        if (snapshot / "config.json").is_file():
            continue
        import torch
        import transformers

        torch.manual_seed(0)
        config_kwargs = dict(spec["config"])  # type: ignore[call-overload]
        config = transformers.AutoConfig.for_model(config_kwargs.pop("model_type"), **config_kwargs)
        model = getattr(transformers, str(spec["class"]))(config)
        model.save_pretrained(snapshot)
        (folder / "refs").mkdir(parents=True, exist_ok=True)
        (folder / "refs" / "main").write_text(revision)
    return hub


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def run_tests(
    project: Project, root: Path, hub: Path, report: Path, extra: tuple[Path, ...] = (), *, preview: bool = False
) -> dict[str, str]:
    """Test id → outcome (`passed`, `failed`, `error`, `skipped`) of the project's tests, run offline on CPU.

    `extra`: folders put on `PYTHONPATH` after the project's source (the releases of `project.alongside`).
    `preview`: under this repository's `pytest --v6-preview` (its package last on `PYTHONPATH`), instead of without it."""
    if not project.tests:
        return {}
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(map(str, (root / project.pythonpath, *extra, *((ROOT,) if preview else ())))),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_CACHE": str(hub),
        "HF_DATASETS_OFFLINE": "1",
        "CUDA_VISIBLE_DEVICES": "",
        "CI": "",
    }
    env.pop("PYTEST_ADDOPTS", None)
    # `-p no:...`: this repository's own pytest plugin, when installed, has no business in another project's tests.
    command = [
        sys.executable,
        "-m",
        "pytest",
        *project.tests,
        "-q",
        "-p",
        "no:cacheprovider",
        *(("--v6-preview",) if preview else ("-p", "no:checkpointing-v6-preview")),
        "-o",
        "addopts=",
        f"--junitxml={report}",
    ]
    subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=1800, check=False)
    if not report.is_file():
        return {"(collection)": "error"}
    return {test: outcome for test, (outcome, _text) in cases(report).items()}


def cases(report: Path) -> dict[str, tuple[str, str]]:
    """Test id → (outcome, the failure's or error's text, empty when it passed or was skipped) from a JUnit report."""
    outcomes: dict[str, tuple[str, str]] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag: child for child in case}
        outcome = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
        bad = kinds.get("failure", kinds.get("error"))
        text = "" if bad is None else (bad.text or bad.get("message") or "")
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = (
            {"failure": "failed"}.get(outcome, outcome),
            text,
        )
    return outcomes


def _parses(path: Path) -> str | None:
    """Why a rewritten file no longer parses, or `None`."""
    import yaml

    try:
        if path.suffix == ".py":
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        elif path.suffix in (".json", ".ipynb"):
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix in (".yaml", ".yml"):
            list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        elif path.suffix in (".sh", ".bash"):
            result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
            if result.returncode:
                return result.stderr.strip()
    except (ValueError, SyntaxError, yaml.YAMLError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def check(
    project: Project, target: str, hub_specs: list[dict[str, object]], *, tests: bool = True, work: Path | None = None
) -> Outcome:
    """Run the whole proof for one project (see the module docstring); raises `FetchError` when offline."""
    started = time.perf_counter()
    outcome = Outcome(project)
    archive = fetch(project)
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        root = unpack(archive, Path(tmp) / "tree")
        for name in project.setup:
            (root / name).touch()
        hub = build_hub(hub_specs) if tests and project.tests else HUB
        extra = _alongside(project, Path(tmp)) if tests and project.tests and project.alongside else []
        if tests:
            outcome.tests_before = run_tests(project, root, hub, Path(tmp) / "before.xml", tuple(extra))
        _remove_caches(root)
        before = snapshot(root)
        with_fix = _scan(outcome, root, target, before)
        _fix(outcome, root, target, before, with_fix)
        if tests:
            outcome.tests_after = run_tests(project, root, hub, Path(tmp) / "after.xml", tuple(extra))
            if outcome.tests_after != outcome.tests_before:
                changed = {
                    k: (outcome.tests_before.get(k), outcome.tests_after.get(k))
                    for k in set(outcome.tests_before) | set(outcome.tests_after)
                    if outcome.tests_before.get(k) != outcome.tests_after.get(k)
                }
                outcome.problems.append(f"test outcomes changed: {dict(list(changed.items())[:5])}")
    outcome.seconds = time.perf_counter() - started
    return outcome


def _alongside(project: Project, tmp: Path) -> list[Path]:
    """The import roots of the pinned projects `project`'s tests import from, each fetched and unpacked in `tmp`."""
    pinned = {p.name: p for p in load()[2]}
    extra: list[Path] = []
    for name in project.alongside:
        other = pinned[name]
        extra.append(unpack(fetch(other), tmp / "alongside" / name) / other.pythonpath)
    return extra


def _remove_caches(root: Path) -> None:
    """The `__pycache__` folders under `root` removed: a snapshot compares the project's own files."""
    for cache in root.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def _scan(outcome: Outcome, root: Path, target: str, before: dict[str, bytes]) -> set[str]:
    """`scan` the project: the files and findings counted in `outcome`; returns the files with a safe fix."""
    scan = _tool("scan", "--format", "json", "--target", target, str(root))
    findings = json.loads(scan.stdout)
    outcome.files = len([p for p in before if p.endswith((".py", ".ipynb", ".yaml", ".yml", ".json", ".sh", ".md"))])
    for f in findings:
        key = "unsafe fix" if f.get("applicability") == "unsafe" else f["severity"]
        outcome.findings[key] = outcome.findings.get(key, 0) + 1
    return {
        str(Path(f["path"]).relative_to(root))
        for f in findings
        if f["severity"] == "fix" and f.get("applicability") == "safe"
    }


def _fix(outcome: Outcome, root: Path, target: str, before: dict[str, bytes], with_fix: set[str]) -> None:
    """`fix --write` the project twice: what it rewrote in `outcome`, and every way it went wrong in its problems."""
    fixed = _tool("fix", "--write", "--target", target, str(root))
    if "Traceback" in fixed.stderr:
        outcome.problems.append(f"fix --write crashed: {fixed.stderr[-400:]}")
    _remove_caches(root)
    after = snapshot(root)
    if set(after) != set(before):
        outcome.problems.append(f"files added or removed: {sorted(set(after) ^ set(before))[:5]}")
    outcome.rewritten = sorted(p for p in after if p in before and after[p] != before[p])
    for path in outcome.rewritten:
        if path not in with_fix:
            outcome.problems.append(f"{path} changed without a safe fix finding")
        if (why := _parses(root / path)) is not None:
            outcome.problems.append(f"{path} no longer parses: {why}")
    missed = sorted(with_fix - set(outcome.rewritten))
    if missed:
        outcome.problems.append(f"safe fixes not applied in {missed[:5]}")
    again = _tool("fix", "--write", "--target", target, str(root))
    if "Traceback" in again.stderr or snapshot(root) != after:
        outcome.problems.append("a second fix --write changed files")


def _tally(outcomes: dict[str, str]) -> str:
    if not outcomes:
        return "—"
    counts: dict[str, int] = {}
    for value in outcomes.values():
        counts[value] = counts.get(value, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def table(outcomes: list[Outcome], target: str) -> str:
    """The results page (Markdown)."""
    import platform

    import transformers

    lines = [
        "# Real code: `fix --write` keeps working code working",
        "",
        f"`python benchmarks/realcode.py` on {platform.python_version()} with transformers {transformers.__version__}, "
        f"target `{target}`. Each release is pinned in `benchmarks/realcode.json` by version and sha256; "
        "`make test` re-checks a subset (`tests/test_realcode.py`). `fix` counts safe fixes (applied); `unsafe` "
        "counts the fixes without evidence either way (listed, applied only with `--unsafe-fixes`). The same tests "
        "under `pytest --v6-preview` are the ecosystem rehearsal (`benchmarks/rehearsal.py` → `data/rehearsal.json`, "
        'the adoption report\'s "Measured v6 impact").',
        "",
        "| project | version | sha256 | files | fix | unsafe | hazard | info | rewritten files | compiles, 2nd run, others byte-identical | own tests before → after | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        p = o.project
        ok = "yes" if not o.problems else "NO: " + "; ".join(o.problems)
        if unread := o.findings.get("error", 0):
            ok += f" ({unread} file not scanned: see its note)"  # the scanner's `error` findings: files it did not read
        if p.tests:
            same = "same" if o.tests_after == o.tests_before else "DIFFERENT"
            tests = f"{_tally(o.tests_before)} → {same}"
        else:
            tests = "not run"
        f = o.findings
        lines.append(
            f"| {p.name} | {p.version} | `{p.sha256[:12]}` | {o.files} | {f.get('fix', 0)} | {f.get('unsafe fix', 0)} | "
            f"{f.get('hazard', 0)} | {f.get('info', 0)} | {len(o.rewritten)} | {ok} | {tests} | {o.seconds:.0f} |"
        )
    lines += ["", "Tests run per project (offline, CPU, the project's source first on `PYTHONPATH`):", ""]
    for o in outcomes:
        p = o.project
        what = f"`pytest {' '.join(p.tests)}`" if p.tests else "none"
        lines.append(f"- **{p.name}**: {what}. {p.note}")
    lines += ["", "Rewritten files:", ""]
    for o in outcomes:
        if o.rewritten:
            lines.append(f"- {o.project.name}: " + ", ".join(f"`{r}`" for r in o.rewritten))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only these projects (default: all); results are written only for all")
    parser.add_argument("--no-tests", action="store_true", help="skip the projects' own tests")
    args = parser.parse_args(argv)
    target, hub, projects = load()
    chosen = [p for p in projects if not args.names or p.name in args.names]
    outcomes = []
    for project in chosen:
        outcome = check(project, target, hub, tests=not args.no_tests)
        outcomes.append(outcome)
        status = "ok" if not outcome.problems else "PROBLEMS: " + "; ".join(outcome.problems)
        print(
            f"{project.name} {project.version}: {outcome.findings} rewritten={len(outcome.rewritten)} "
            f"tests={_tally(outcome.tests_before)} -> {_tally(outcome.tests_after)} {status} ({outcome.seconds:.0f}s)",
            flush=True,
        )
    if not args.names and not args.no_tests:
        kept = RESULTS.read_text(encoding="utf-8").partition(PRECISION_HEADING) if RESULTS.is_file() else ("", "", "")
        RESULTS.write_text(table(outcomes, target) + ("\n" + "".join(kept[1:]) if kept[1] else ""), encoding="utf-8")
        print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 1 if any(o.problems for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
