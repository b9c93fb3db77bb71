"""Re-check what the generated pages state against the released wheels and the measured data, and print the verdicts.

`python benchmarks/factcheck.py [--markdown]` reads `docs/generated/*.md` as a reader sees them and checks: each
"checked in" version of the naming comparison against a cached wheel or the measured data; each count of the adoption
report recomputed from `data/adoption.json`; each effect on the finding-codes page against the probes' outcomes
(`generator.measure.code_effects`); each warning text on the guide against the release's source, read from the
cached transformers wheels; each reworded text, PEFT/TRL warning site and saved-state line against the wheel's line;
the scanner's both-names and string-lookup messages against the probes. Exit 1 when a claim is wrong (or missing).
"""

from __future__ import annotations

import argparse
import functools
import html
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
from generator.measure.data import load_downstream, load_matrix, load_saved  # noqa: E402
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
    return html.unescape(re.sub(r"\\(.)", r"\1", re.sub(r"<[^>]+>", "", text))).strip()


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
    described = {(n.library, n.release) for n in load_adoption().not_scanned}
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
        elif (key, text) in described:
            yield Claim(claim, page, "the registry's metadata of that release (adoption: not scanned)", "right")
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


@functools.cache
def _wheel_lines(library: str, version: str, path: str) -> tuple[str, ...] | None:
    """The lines of `path` in the cached, sha256-checked tree of `library==version`; `None` when none is cached."""
    if library == "transformers":
        tree = audit.release_tree(version, registry.PYPI, registry.CACHE)
    else:
        trees = sorted(registry.CACHE.glob(f"{library}-{version}-*.tree/.complete"))
        if not trees:
            return None
        tree = trees[0].parent
    return tuple((tree / path).read_text(encoding="utf-8", errors="replace").splitlines())


def _wheel_line(library: str, version: str, path: str, line: int) -> str | None:
    """Line `line` of `path` in the cached tree of `library==version` (empty past its end); `None`: none is cached."""
    lines = _wheel_lines(library, version, path)
    return None if lines is None else lines[line - 1] if 0 < line <= len(lines) else ""


SITE = re.compile(r"^\s*- (\d+\.\d+\.\d+)[,:] (.*?)(?:: <code>(.*)</code>)?\.?$")
CODE = re.compile(r"<code>([^<]+?):(\d+)</code>")


def _first_words(text: str) -> str:
    """A literal part of a text as a source line holds it: the start of its longest part known before run time."""
    return max(text.replace("`", "").split("{…}"), key=len).strip()[:25]


def reworded_texts() -> Iterator[Claim]:
    """Each release's wording on the errors page's "reworded" and "still say" sections: the line it names in the
    release's wheel holds the start of that wording (a message split over lines: one of the next three), and each
    section's regular expression matches every wording it lists."""
    page = "errors.md"
    lines = (PAGES / page).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Texts reworded in"))
    end = next(i for i, line in enumerate(lines) if line.startswith("## Command-line flags"))
    heading, pattern, wordings = "", "", []

    def check_pattern() -> Iterator[Claim]:
        if pattern and wordings:
            unmatched = [w for w in wordings if not re.fullmatch(pattern, w.replace("{…}", "XModel"))]
            verdict = "right" if not unmatched else f"WRONG: does not match {unmatched[0][:50]}"
            yield Claim(f"the pattern for “{heading[:50]}” matches its {len(wordings)} wordings", page, "re", verdict)

    for number in range(start, end):
        line = lines[number]
        if line.startswith("### "):
            yield from check_pattern()
            heading, pattern, wordings = _plain(line[4:]), "", []
        elif line == "```text" and heading:
            pattern = lines[number + 1]
        found = SITE.match(line)
        if not found:
            continue
        version, where, text = found.groups()
        if text:
            wordings.append(_plain(text))
        for path, n in CODE.findall(where)[:1]:
            source = _wheel_line("transformers", version, path, int(n))
            words = _first_words(_plain(text) if text else heading)
            # The call's line, the message on the lines after it, or assigned to a name a few lines before it.
            near = [_wheel_line("transformers", version, path, k) or "" for k in range(int(n) - 25, int(n) + 4)]
            verdict = "right" if any(words in x.replace("`", "") for x in near) else f"WRONG: {path}:{n} is {source!r}"
            yield Claim(f"{version} {path}:{n} says “{words}…”", page, f"transformers-{version} wheel", verdict)
    yield from check_pattern()


def downstream_sites() -> Iterator[Claim]:
    """Each line of PEFT or TRL the guide's "Warnings you cannot fix yet" names: the cached wheel has that code there."""
    page = "migration-guide.md"
    downstream = load_downstream()
    for cells in _table_rows(page, "| You call |"):
        found = re.match(r"(\w+)/(\S+?):(\d+) (.*?)→", cells[2])
        if not found:
            continue
        library, rest, n, code = found.groups()
        version = downstream.versions[library]
        source = _wheel_line(library, version, f"{library}/{rest}", int(n))
        if source is None:
            yield Claim(f"{cells[0]} from {library}/{rest}:{n}", page, "no cached wheel", "UNCHECKED: no wheel cached")
            continue
        verdict = "right" if source.strip() == code.strip() else f"WRONG: the line is {source.strip()!r}"
        yield Claim(f"{cells[0]} from {library}/{rest}:{n}", page, f"{library}-{version} wheel", verdict)


def saved_claims() -> Iterator[Claim]:
    """The guide's pitfall on pickled training arguments and its legacy config key, against the wheels' source: the line
    `Trainer.train` tests the new field on, the new field's default, and the line that consumes the key."""
    page = "migration-guide.md"
    text = _plain((PAGES / page).read_text(encoding="utf-8"))
    saved = load_saved()
    for r in saved.releases:
        line = _wheel_line("transformers", r.release, "transformers/trainer.py", r.decided_at) or ""
        claim = f"{r.release}: Trainer.train tests args.{saved.new} at trainer.py:{r.decided_at}"
        on_page = f"trainer.py:{r.decided_at}" in text
        verdict = "not on page" if not on_page else "right" if f"if args.{saved.new}:" in line else f"WRONG: {line!r}"
        yield Claim(claim, page, f"transformers-{r.release} wheel", verdict)
        tree = audit.release_tree(r.release, registry.PYPI, registry.CACHE)
        declared = (tree / "transformers" / "training_args.py").read_text(encoding="utf-8")
        default = re.search(rf"^    {saved.new}: [^=]+= field\(\s*default=(\w+)", declared, re.M)
        shown = f"class default `{r.loaded.new_value}`" in text.replace("\n", " ")
        verdict = (
            "right" if default and default.group(1) == str(r.loaded.new_value) and shown else "WRONG: default differs"
        )
        yield Claim(
            f"{r.release}: a loaded object lacking {saved.new} reads {r.loaded.new_value}",
            page,
            "training_args.py",
            verdict,
        )
        yield Claim(
            f"{r.release}: loaded arguments leave checkpointing off, dataclasses.replace turns it on",
            page,
            "data/saved.json (one training step, measured)",
            "right" if not r.loaded.checkpointing and r.replaced.checkpointing and r.fresh.checkpointing else "WRONG",
        )
    for c in saved.configs:
        lines = [
            _wheel_line("transformers", c.release, "transformers/modeling_utils.py", c.read_at + k) or ""
            for k in range(4)
        ]
        consumed = f'getattr(self.config, "{saved.old}"' in lines[0] and any(
            f'delattr(self.config, "{saved.old}")' in x for x in lines
        )
        verdict = (
            "right"
            if consumed and c.checkpointing and not c.key_kept and f"modeling_utils.py:{c.read_at}" in text
            else "WRONG"
        )
        yield Claim(
            f"{c.release}: config key {saved.old} turns checkpointing on and is deleted",
            page,
            f"modeling_utils.py:{c.read_at}",
            verdict,
        )


def message_claims() -> Iterator[Claim]:
    """What the scanner's messages say a use of both names and a string lookup do, against the probes (the tool's
    output is a page too: `checkpointing-migrate scan`)."""
    import contextlib
    import io
    import json
    import tempfile

    from checkpointing_migrate.cli import main as tool

    renamed = [
        e for e in load_matrix().releases if e.library == "transformers" and Version(e.release) >= Version("5.23.0")
    ]
    header = "from transformers import AutoModelForCausalLM, TrainingArguments\n\nmodel = AutoModelForCausalLM.from_pretrained('m')\nargs = TrainingArguments(output_dir='o')\n"
    uses = {
        ("both-names", ""): (
            "TrainingArguments(output_dir='o', gradient_checkpointing=True, activation_checkpointing=False)",
            {"new": "the new one wins"},
        ),
        ("both-names", "set_training"): (
            "args.set_training(gradient_checkpointing=True, activation_checkpointing=False)",
            {"old": "keeps the old value"},
        ),
        ("both-names", code_effects.ENABLE_OLD): (
            "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={}, activation_checkpointing_kwargs={})",
            {"raises": "raises TypeError"},
        ),
        ("string-lookup", "getattr or hasattr of a method"): (
            "hasattr(model, 'gradient_checkpointing_enable')",
            {"silent": "does not warn"},
        ),
        ("string-lookup", "setattr of the property"): (
            "setattr(model, 'is_gradient_checkpointing', True)",
            {"raises": "raises AttributeError"},
        ),
        ("string-lookup", "hasattr of the property"): (
            "hasattr(model, 'is_gradient_checkpointing')",
            {"warns": "warns like a direct use"},
        ),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for (code, form), (use, said) in uses.items():
            script = Path(tmp) / "train.py"
            script.write_text(header + use + "\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                tool(["scan", "--format", "json", "--target", "transformers>=5.23", str(script)])
            messages = [f["message"] for f in json.loads(out.getvalue()) if f["code"] == code]
            measured = set()
            for entry in renamed:
                outcomes = [o for probe in code_effects.FORMS[code, form] for o in probe.outcomes(entry.outcomes)]
                effects = {code_effects.effect_of(o) for o in outcomes}
                measured |= (
                    {code_effects.winner(o) for o in outcomes}
                    if code == "both-names" and effects != {"raises"} and all(o.effect for o in outcomes)
                    else effects
                )
            (expected,) = said
            ok = len(messages) == 1 and measured == {expected} and said[expected] in messages[0]
            verdict = "right" if ok else f"WRONG: measured {sorted(measured)}, message {messages[:1]}"
            yield Claim(
                f"{code} ({form or 'constructor'}): “{said[expected]}”",
                "scan output",
                "data/matrix.json probes",
                verdict,
            )


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
        *reworded_texts(),
        *downstream_sites(),
        *saved_claims(),
        *message_claims(),
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
