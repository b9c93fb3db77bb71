"""The ecosystem rehearsal: scanned packages' own tests, run today and again under `pytest --v6-preview`.

Run: `.venv/bin/python benchmarks/rehearsal.py` (writes data/rehearsal.json; then `python -m generator render`). The
packages are the pinned releases of benchmarks/realcode.json whose tests run offline on CPU, set up exactly as there;
each test's first error line is classified (`generator.measure.rehearsal_data.REASONS`) and the line that raised is
kept, so the adoption report can set the measured v6 impact beside the static verdicts.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import realcode  # noqa: E402

from checkpointing_migrate.records import dump  # noqa: E402
from checkpointing_migrate.table import load as load_table  # noqa: E402
from generator.measure.rehearsal_data import (  # noqa: E402
    REHEARSAL_PATH,
    Reason,
    Rehearsal,
    RehearsedPackage,
    RehearsedTest,
    RunOutcome,
    load_rehearsal,
)
from generator.paths import TABLE_PATH  # noqa: E402

_ENTRY = re.compile(r"^(\S+\.py):(\d+):(?: in \S+| \w*)?\s*$", re.MULTILINE)
"""A traceback entry's location line as pytest prints it (`path.py:12: `, `path.py:12: in f`, the last one
`path.py:12: TypeError`)."""


def removed_names() -> tuple[str, ...]:
    """The old names the preview removes (the table's planned removals), as a message spells them."""
    return tuple(dict.fromkeys(r.old.lstrip("-") for r in load_table(TABLE_PATH).planned_removals()))


def classify(first_error: str, removed: tuple[str, ...]) -> Reason:
    """Why a test failed, from its first error line."""
    named = any(re.search(rf"\b{re.escape(name)}\b", first_error) for name in removed)
    if "AttributeError" in first_error and named:
        return "removed-name"
    if "TypeError" in first_error:
        return "type-error"
    if "Warning" in first_error and named:
        return "deprecation-warning"
    if re.match(r"E\s+(AssertionError|assert )", first_error):
        return "assertion"
    return "unrelated"


def raised_at(text: str, root: Path, project: realcode.Project, removed: tuple[str, ...]) -> str:
    """`file:line` of the use that led to the error: the deepest traceback entry in the release (or in a release beside
    it) whose source line names a removed name, else the deepest one in the release (an attribute forwarder), relative
    to the import root (`peft/peft_model.py:10`) or else to the release (`tests/test_x.py:5`); the deepest entry of
    all (`site-packages` stripped) when none is the release's."""
    entries = _ENTRY.findall(text)
    if not entries:
        return ""
    inside = Path(project.pythonpath)
    mine: list[tuple[str, bool]] = []
    for file, line in entries:
        path = Path(file)
        source = path if path.is_absolute() else root / path
        if path.is_absolute():
            parts = path.parts
            if "alongside" in parts:
                path = Path(*parts[parts.index("alongside") + 2 :])
            elif root in path.parents or root.resolve() in path.parents:
                path = path.relative_to(root if root in path.parents else root.resolve())
            else:
                continue
        if inside != Path(".") and inside in path.parents:
            path = path.relative_to(inside)
        try:
            code = source.read_text(encoding="utf-8", errors="replace").splitlines()[int(line) - 1]
        except (OSError, IndexError):
            code = ""
        mine.append((f"{path}:{line}", any(re.search(rf"\b{re.escape(n)}\b", code) for n in removed)))
    if mine:
        return next((where for where, names in reversed(mine) if names), mine[-1][0])
    parts = Path(entries[-1][0]).parts
    tail = parts[parts.index("site-packages") + 1 :] if "site-packages" in parts else parts
    return f"{Path(*tail)}:{entries[-1][1]}"


def outcome(entry: tuple[str, str], root: Path, project: realcode.Project, removed: tuple[str, ...]) -> RunOutcome:
    result, text = entry
    if result in ("passed", "skipped"):
        return RunOutcome(result, "", "", "")  # type: ignore[arg-type]
    first = next((line.strip() for line in text.splitlines() if line.startswith("E ")), text.strip()[:200])
    first = re.sub(r"\s+", " ", first)[:300]
    return RunOutcome(result, classify(first, removed), first, raised_at(text, root, project, removed))  # type: ignore[arg-type]


def rehearse(
    project: realcode.Project, hub_specs: list[dict[str, object]], removed: tuple[str, ...]
) -> RehearsedPackage:
    """The project's tests today and under the preview, on the unmodified release."""
    with tempfile.TemporaryDirectory() as tmp:
        root = realcode.unpack(realcode.fetch(project), Path(tmp) / "tree")
        for name in project.setup:
            (root / name).touch()
        hub = realcode.build_hub(hub_specs)
        pinned = {p.name: p for p in realcode.load()[2]}
        extra = tuple(
            realcode.unpack(realcode.fetch(pinned[n]), Path(tmp) / "alongside" / n) / pinned[n].pythonpath
            for n in project.alongside
        )
        runs = {}
        for preview in (False, True):
            report = Path(tmp) / f"{preview}.xml"
            realcode.run_tests(project, root, hub, report, extra, preview=preview)
            runs[preview] = realcode.cases(report) if report.is_file() else {"(collection)": ("error", "")}
        tests = tuple(
            RehearsedTest(
                test,
                outcome(runs[False].get(test, ("error", "not collected")), root, project, removed),
                outcome(runs[True].get(test, ("error", "not collected")), root, project, removed),
            )
            for test in sorted(set(runs[False]) | set(runs[True]))
        )
    return RehearsedPackage(project.name, project.version, project.file, project.sha256, " ".join(project.tests), tests)


def main(argv: list[str] | None = None) -> int:
    import argparse

    import transformers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only these packages (default: all); the others' results are kept")
    args = parser.parse_args(argv)
    _target, hub, projects = realcode.load()
    removed = removed_names()
    kept = {p.package: p for p in load_rehearsal().packages} if args.names else {}
    packages = []
    for project in projects:
        if not project.tests:
            continue
        if args.names and project.name not in args.names:
            if project.name in kept:
                packages.append(kept[project.name])
            continue
        package = rehearse(project, hub, removed)
        packages.append(package)
        tally = {
            when: sum(1 for t in package.tests if getattr(t, when).outcome == "passed") for when in ("today", "preview")
        }
        print(
            f"{project.name}: {len(package.tests)} tests, passed today {tally['today']}, under the preview {tally['preview']}",
            flush=True,
        )
    data = Rehearsal(transformers.__version__, tuple(packages))
    REHEARSAL_PATH.write_text(dump(data), encoding="utf-8")
    print(f"wrote {REHEARSAL_PATH.relative_to(realcode.ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
