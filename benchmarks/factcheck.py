"""Re-check what the generated pages state against the released wheels and the measured data, and print the verdicts.

`python benchmarks/factcheck.py [--markdown]` reads `docs/generated/*.md` as a reader sees them and checks: each
"checked in" version of the naming comparison against a cached wheel or the measured data; each count of the adoption
report recomputed from `data/adoption.json`; each effect on the finding-codes page against the probes' outcomes
(`generator.measure.code_effects`); each warning text on the guide against the release's source, read from the
cached transformers wheels. Exit 1 when a claim is wrong (or cannot be found on its page).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from checkpointing_migrate import codes  # noqa: E402
from checkpointing_migrate.table import Table, load  # noqa: E402
from generator.measure import audit, code_effects, registry  # noqa: E402
from generator.measure.adoption_data import EFFECTS, load_adoption  # noqa: E402
from generator.measure.data import load_matrix  # noqa: E402
from generator.measure.source import warning_calls  # noqa: E402
from generator.paths import TABLE_PATH  # noqa: E402

PAGES = ROOT / "docs" / "generated"


@dataclass(frozen=True)
class Claim:
    claim: str
    page: str
    source: str
    verdict: str
    """`right`, `WRONG: why`, or `not on page`."""


def _plain(text: str) -> str:
    """A Markdown table cell as a reader sees it: tags and `<wbr>` dropped, escapes undone."""
    return re.sub(r"\\(.)", r"\1", re.sub(r"<[^>]+>", "", text)).strip()


def _table_rows(page: str, header: str) -> list[list[str]]:
    """The cells of the rows of the Markdown table whose header line starts with `header`."""
    lines = (PAGES / page).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([_plain(c) for c in line.strip("|").split(" | ")])
    return rows


def _key(cell: str) -> str:
    """`[PEFT](#peft)` → `peft`."""
    found = re.search(r"\(#([^)]+)\)", cell)
    return found.group(1) if found else cell


def naming_versions(table: Table) -> Iterator[Claim]:
    """Each "Checked in" version against a cached wheel of that release, or the release the matrix measured."""
    measured = {(e.library, v) for e in load_matrix().releases for v in e.versions.values()}
    measured |= {(e.library, e.release) for e in load_matrix().releases}
    adopted = {(lib.library, lib.version) for lib in load_adoption().libraries}
    page = "naming-comparison.md"
    shown = {}
    for cells in _table_rows(page, "| Library |"):
        shown[_key(cells[0])] = cells[-1]
    for key, library in table.libraries.items():
        text = shown.get(key)
        if text is None:
            yield Claim(f"{library.display or key} checked in {library.checked}", page, "aliases.yaml", "not on page")
            continue
        claim = f"{library.display or key} checked in {text}"
        if text != library.checked:
            yield Claim(claim, page, "aliases.yaml", f"WRONG: the table says {library.checked}")
            continue
        wheels = list(registry.CACHE.glob(f"{library.pypi.replace('-', '_')}-{text}-*.whl")) + list(
            registry.CACHE.glob(f"{library.pypi.replace('-', '_')}-{text}*.tree")
        )
        if (key, text) in measured:
            yield Claim(claim, page, "data/matrix.json (release measured)", "right")
        elif (key, text) in adopted:
            yield Claim(claim, page, "data/adoption.json (wheel scanned)", "right")
        elif wheels:
            yield Claim(claim, page, f".cache/registry/{wheels[0].name}", "right")
        else:
            yield Claim(claim, page, "no cached wheel", "UNCHECKED: no wheel of this release is cached")


def adoption_counts(table: Table) -> Iterator[Claim]:
    """Each package's effect counts, and each "Sites that fail" / "Sites that change", recomputed from the data."""
    page = "adoption-report.md"
    data = {lib.library: lib for lib in load_adoption().libraries}
    order = list(EFFECTS)
    for cells in _table_rows(page, "| Package | warns |"):
        key = _key(cells[0])
        lib = data[key]
        expected = [sum(1 for s in lib.sites if s.effect == e) for e in order]
        expected[order.index("not-deprecated")] = sum(lib.not_deprecated.values())
        shown = [int(c) for c in cells[1:]]
        verdict = "right" if shown == expected else f"WRONG: data gives {expected}"
        yield Claim(f"{key}: uses by effect {shown}", page, "data/adoption.json", verdict)
    for header, attribute in (
        ("| Package | Release | Sites that fail |", "v6"),
        ("| Package | Release | Sites that change |", "changes"),
    ):
        try:
            rows = _table_rows(page, header)
        except StopIteration:
            yield Claim(f"table {header}", page, "data/adoption.json", "not on page")
            continue
        listed = set()
        for cells in rows:
            key = _key(cells[0])
            listed.add(key)
            lib = data[key]
            if attribute == "v6":
                expected = sum(1 for s in lib.sites if s.v6)
            else:
                expected = sum(1 for s in lib.sites if s.changes and not s.v6)
            verdict = "right" if int(cells[2]) == expected else f"WRONG: data gives {expected}"
            yield Claim(
                f"{key}: {cells[2]} {header.split('|')[3].strip().lower()}", page, "data/adoption.json", verdict
            )
        missing = [
            k
            for k, lib in data.items()
            if k not in listed and any((s.v6 if attribute == "v6" else s.changes and not s.v6) for s in lib.sites)
        ]
        verdict = "right" if not missing else f"WRONG: missing {missing}"
        yield Claim(f"every package with {attribute} sites is listed", page, "data/adoption.json", verdict)


def code_effect_claims() -> Iterator[Claim]:
    """Each code's effect on the finding-codes page against the measured outcomes of its form."""
    page = "finding-codes.md"
    rows = {_plain(c[0]): c[2] for c in _table_rows(page, "| Code | Severity |")}
    renamed = [
        e for e in load_matrix().releases if e.library == "transformers" and Version(e.release) >= Version("5.23.0")
    ]
    for code in codes.CODES.values():
        shown = rows.get(code.code)
        if shown is None:
            yield Claim(f"code {code.code}", page, "codes.py", "not on page")
            continue
        stated = shown.split(" (")[0]
        claim = f"{code.code}: {shown}"
        if (code.code, "") not in code_effects.FORMS:
            why = code_effects.UNMEASURED.get(code.code)
            if stated in ("—", "not-deprecated", "dead") or why is None:
                yield Claim(
                    claim,
                    page,
                    "codes.py (no transformers behaviour claimed)",
                    "right" if stated == (code.effect or "—") else "WRONG: registry differs",
                )
            else:
                yield Claim(claim, page, "not measured", f"UNCHECKED: {why}")
            continue
        statements = [("", stated), *code.forms]
        wrong = []
        for form, effect in statements:
            for entry in renamed:
                found = code_effects.measured(code.code, form, entry.outcomes)
                if found != {effect}:
                    wrong.append(f"{form or 'effect'} measured {sorted(found)} on {entry.release}")
        source = "data/matrix.json: " + ", ".join(p.scenario for p in code_effects.FORMS[code.code, ""])[:60]
        yield Claim(claim, page, source, "right" if not wrong else "WRONG: " + "; ".join(wrong))


def warning_texts(table: Table) -> Iterator[Claim]:
    """Each row's warning, as the guide quotes it, against the calls in each listed release's source."""
    page = "migration-guide.md"
    text = _plain((PAGES / page).read_text(encoding="utf-8")).replace("`", "")
    releases = [r.version for r in table.releases_of("transformers")]
    inventories = {}
    for version in releases:
        tree = audit.release_tree(version, registry.PYPI, registry.CACHE)
        inventories[version] = warning_calls(tree, audit.PACKAGE)
    seen = set()
    for row in table.renames:
        if row.library != "transformers" or not row.warning or row.warning.message in seen:
            continue
        seen.add(row.warning.message)
        message = row.warning.message
        longest = max(message.split("{model}"), key=len)  # the Trainer's message names the model class
        on_page = longest.replace("`", "").strip()[:60] in text
        for version in releases:
            emits = any(call.matches(message) for call in inventories[version])
            expected = bool(row.since and Version(version) >= Version(row.since))
            if not on_page:
                verdict = "not on page"
            elif emits == expected:
                verdict = "right"
            else:
                verdict = f"WRONG: the release {'does not emit' if expected else 'emits'} it"
            where = next((f"{c.path}:{c.line}" for c in inventories[version] if c.matches(message)), "no call")
            short = message if len(message) < 70 else message[:67] + "…"
            yield Claim(
                f"{version} {'emits' if expected else 'does not emit'} “{short}”",
                page,
                f"transformers-{version} wheel, {where}",
                verdict,
            )


def error_headings() -> Iterator[Claim]:
    """Each exception the errors page has a section for: raised by a probe (data/matrix.json) or read from a release's
    source (its `raised_in_source`)."""
    page = "errors.md"
    lines = (PAGES / page).read_text(encoding="utf-8").splitlines()
    start = lines.index("## Exceptions")
    matrix = load_matrix().releases
    raised = {o.error.message: e.release for e in matrix for o in e.outcomes if o.error}
    # The page shows inline code as <code>, which a reader sees without the source's backticks.
    in_source = {r.text.replace("`", ""): f"{e.release} {r.path}:{r.line}" for e in matrix for r in e.raised_in_source}
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break  # the next part (the command-line flags) heads its sections with flags, not exception texts
        if not line.startswith("### "):
            continue
        heading = _plain(line[4:]).split(" { #")[0]
        if heading in raised:
            yield Claim(f"“{heading[:70]}”", page, f"data/matrix.json, raised by a probe of {raised[heading]}", "right")
        elif heading in in_source:
            yield Claim(f"“{heading[:70]}”", page, f"source of {in_source[heading]}", "right")
        elif any(m.startswith(heading) for m in raised):  # argparse's message, cut at its list of arguments
            yield Claim(f"“{heading[:70]}”", page, "data/matrix.json (start of a probe's error)", "right")
        else:
            yield Claim(f"“{heading[:70]}”", page, "data/matrix.json", "WRONG: no probe or source raises it")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    table = load(TABLE_PATH)
    claims = [
        *naming_versions(table),
        *adoption_counts(table),
        *code_effect_claims(),
        *warning_texts(table),
        *error_headings(),
    ]
    wrong = [c for c in claims if not c.verdict.startswith(("right", "UNCHECKED"))]
    if args.markdown:
        print("| # | Claim | Page | Source | Verdict |\n|---|---|---|---|---|")
        for number, c in enumerate(claims, 1):
            cells = [str(number), c.claim, c.page, c.source, c.verdict]
            print("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    else:
        for c in claims:
            print(f"{c.verdict[:40]:<42}{c.page:<22}{c.claim}  [{c.source}]")
    right = sum(1 for c in claims if c.verdict == "right")
    unchecked = sum(1 for c in claims if c.verdict.startswith("UNCHECKED"))
    print(f"\n{len(claims)} claims: {right} right, {len(wrong)} wrong or missing, {unchecked} not checkable here.")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
