"""The adoption report's "measured v6 impact": packages' own tests today and under the v6 preview, beside the verdicts.

A pure function from `data/rehearsal.json` and `data/adoption.json` to what the template shows: per package the tests
run and passed in each session, each test whose outcome differs with its reason, and whether the line that raised is a
site the static scan says fails in v6 (agrees), one it says keeps running (disagrees), or no site it scanned.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.measure.adoption_data import Adoption
from generator.measure.rehearsal_data import REASONS, Rehearsal


@dataclass(frozen=True)
class Changed:
    """A test whose outcome under the preview, or the reason it fails, differs from today's."""

    test: str
    today: str
    today_reason: str
    """What `REASONS` says of today's failure; empty when it passes today."""
    preview: str
    reason: str
    """What `REASONS` says of the preview's failure; empty when it passes under the preview."""
    first_error: str
    where: str
    static: str
    """What the static verdicts say at `where`: `agrees: …`, `disagrees: …` or why they cannot say."""


@dataclass(frozen=True)
class PackageView:
    key: str
    version: str
    file: str
    sha256: str
    command: str
    tests: int
    passed_today: int
    passed_preview: int
    failing_today: tuple[tuple[str, str], ...]
    """(reason, count) of the tests that do not pass today, by reason."""
    changed: tuple[Changed, ...]
    static: str
    """The package's static verdict (breaking sites in the adoption data) and how it compares, in one sentence."""


def _static_at(where: str, sites: dict[str, tuple[str, str]], same_release: bool) -> str:
    if not where:
        return "no line raised"
    if not same_release:
        return "not compared (another release was scanned)"
    if where in sites:
        effect, v6 = sites[where]
        if v6:
            return f"agrees: the static verdict at this line is {v6}"
        return f"disagrees: the static verdict at this line is `{effect}`, keeps running"
    if where.startswith("tests/") or "/tests/" in where:
        return "in the package's tests, which the released wheel (what the static scan reads) does not ship"
    return "no site of the static scan at this line"


def view(data: Rehearsal, adoption: Adoption) -> dict[str, object]:
    """What templates/adoption-report.md.j2 shows under "Measured v6 impact" (a pure function)."""
    scanned = {lib.library: lib for lib in adoption.libraries}
    packages = []
    for package in data.packages:
        lib = scanned.get(package.package)
        same = lib is not None and lib.version == package.version
        sites = {f"{s.file}:{s.line}": (s.effect, s.v6) for s in lib.sites} if lib is not None else {}
        changed = tuple(
            Changed(
                t.test,
                t.today.outcome,
                REASONS[t.today.reason] if t.today.reason else "",
                t.preview.outcome,
                REASONS[t.preview.reason] if t.preview.reason else "",
                t.preview.first_error,
                t.preview.where,
                _static_at(t.preview.where, sites, same),
            )
            for t in package.tests
            if (t.today.outcome, t.today.reason) != (t.preview.outcome, t.preview.reason)
        )
        failing: dict[str, int] = {}
        for t in package.tests:
            if t.today.reason:
                failing[REASONS[t.today.reason]] = failing.get(REASONS[t.today.reason], 0) + 1
        breaking = sum(1 for s in lib.sites if s.v6) if lib is not None else 0
        if lib is None:
            static = "not in the static scan"
        elif not same:
            static = (
                f"the static scan read release {lib.version} ({breaking} sites that fail in v6), "
                f"the tests come from {package.version}: not compared"
            )
        else:
            reached = {c.where for c in changed if c.where in sites and sites[c.where][1]}
            static = (
                f"{breaking} sites that fail in v6 in the static scan of the same release; "
                f"the tests that change reach {len(reached)} of them"
            )
        packages.append(
            PackageView(
                package.package,
                package.version,
                package.file,
                package.sha256,
                package.command,
                len(package.tests),
                sum(1 for t in package.tests if t.today.outcome == "passed"),
                sum(1 for t in package.tests if t.preview.outcome == "passed"),
                tuple(sorted(failing.items())),
                changed,
                static,
            )
        )
    return {"transformers": data.transformers, "packages": packages}
