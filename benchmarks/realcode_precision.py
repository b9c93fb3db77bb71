"""Precision on real code: safe fixes / unsafe fixes / hazards / info per pinned project, for earlier versions of the tool and this one.

Run: `.venv/bin/python benchmarks/realcode_precision.py --before CHECKOUT [--before CHECKOUT ...]`, each CHECKOUT an earlier
tool (its `checkpointing_migrate/`, `aliases.yaml`, `data/` and `docs/generated/`, e.g. `git archive 7fe69f7 ... | tar -x`),
labelled by `--label` in the same order: the tool before issue 18's safety work (`7fe69f7`, the first parent of the
`safety` merge), and the main branch before the latest change. All scan the same unpacked releases; each fix an earlier
one offered that this one no longer offers as safely is listed with what this one says there. The section goes into
benchmarks/RESULTS-realcode.md (kept there when `realcode.py` rewrites the page).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import realcode  # noqa: E402

HEADING = realcode.PRECISION_HEADING
KINDS = ("fix", "unsafe fix", "hazard", "info")


def scan(tool: Path, tree: Path, target: str) -> list[dict[str, object]]:
    """The findings of the tool checked out at `tool` (its package imported from there) on `tree`."""
    result = subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", "scan", "--format", "json", "--target", target, str(tree)],
        cwd=tool,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if result.returncode not in (0, 1):
        raise SystemExit(f"{tool}: scan of {tree} exited {result.returncode}: {result.stderr.strip()[-300:]}")
    return json.loads(result.stdout)


def kind(finding: dict[str, object]) -> str:
    return "unsafe fix" if finding.get("applicability") == "unsafe" else str(finding["severity"])


def tally(findings: list[dict[str, object]]) -> dict[str, int]:
    counts = dict.fromkeys((*KINDS, "error"), 0)
    for f in findings:
        counts[kind(f)] += 1  # `error`: a file the scanner did not read (too large, undecodable)
    return counts


def shown(counts: dict[str, int]) -> str:
    unread = f" ({counts['error']} file not read)" if counts["error"] else ""
    return " / ".join(str(counts[k]) for k in KINDS) + unread


def lost(before: list[dict[str, object]], after: list[dict[str, object]], root: Path, now: str = "now") -> list[str]:
    """Each fix of `before` (safe or unsafe) that `after` does not offer at that place at least as safe, with what
    `after` reports there instead (`now`: how the lines name `after`). Called the other way round, it lists the fixes
    the newer tool offers more readily: the direction in which a rewrite may have become wrong."""

    def key(f: dict[str, object]) -> tuple[str, object, object, object]:
        return (str(Path(str(f["path"])).relative_to(root)), f["line"], json.dumps(f.get("cell")), f["old"])

    at: dict[tuple[str, object, object, object], list[dict[str, object]]] = {}
    for f in after:
        at.setdefault(key(f), []).append(f)
    out = []
    for f in before:
        was = kind(f)
        if was not in ("fix", "unsafe fix"):
            continue
        there = at.get(key(f), [])
        if any(kind(g) == "fix" or kind(g) == was for g in there):
            continue
        where = f"{was} at `{key(f)[0]}:{f['line']}` `{f['old']}`"
        if not there:
            out.append(f"{where}: no finding {now}")
            continue
        g = there[0]
        message = str(g["message"]).split(" See ", 1)[0]
        out.append(f"{where}: {now} {kind(g)} [{g['code']}]: {message[:260]}")
    return out


def measure(before_tools: list[tuple[str, Path]]) -> str:
    """The Markdown section: the counts table and the safe fixes lost, per project and earlier tool."""
    target, _hub, projects = realcode.load()
    rows: list[str] = []
    notes: dict[str, list[str]] = {label: [] for label, _ in before_tools}
    gained: dict[str, list[str]] = {label: [] for label, _ in before_tools}
    for project in projects:
        with tempfile.TemporaryDirectory() as tmp:
            root = realcode.unpack(realcode.fetch(project), Path(tmp) / "tree")
            for name in project.setup:
                (root / name).touch()
            new = scan(realcode.ROOT, root, target)
            cells = []
            for label, tool in before_tools:
                old = scan(tool, root, target)
                cells.append(shown(tally(old)))
                if gone := lost(old, new, root):
                    notes[label].append(f"- **{project.name}** ({len(gone)}):")
                    notes[label] += [f"  - {line}" for line in gone]
                if more := lost(new, old, root, now="before"):
                    gained[label].append(f"- **{project.name}** ({len(more)}):")
                    gained[label] += [f"  - {line}" for line in more]
            rows.append(f"| {project.name} | {' | '.join(cells)} | {shown(tally(new))} |")
        print(rows[-1], flush=True)
    labels = [label for label, _ in before_tools]
    lines = [
        HEADING,
        "",
        f"`python benchmarks/realcode_precision.py {' '.join(f'--before CHECKOUT --label {label}' for label in labels)}`: "
        f"`scan --target '{target}'` of each pinned release by the earlier tools and by this one ({_described(labels)}). "
        "Counts are safe fixes / unsafe fixes / hazards / info.",
        "",
        f"| project | {' | '.join(f'`{label}`' for label in labels)} | now |",
        "|---" * (len(labels) + 2) + "|",
        *rows,
    ]
    for label in labels:
        found = notes[label]
        lines += [
            "",
            f"Against `{label}`: safe fixes lost: {sum(line.startswith('  - fix at') for line in found)} on "
            f"{len(projects)} releases. Fixes that tool offered that this one no longer offers as safely (a safe fix "
            "now unsafe or refused, an unsafe fix now refused), and what it says there now:",
            "",
            *(found or ["- none"]),
            "",
            f"Against `{label}`: fixes this one offers more readily (a fix where that tool gave a hazard, an info or "
            "nothing, a safe fix where it gave an unsafe one), each to be checked by hand, and what that tool said:",
            "",
            *(gained[label] or ["- none"]),
        ]
    return "\n".join(lines)


KNOWN = {
    "7fe69f7": "`7fe69f7` is the tool before issue 18's safety work, the first parent of the `safety` merge",
}


def _described(labels: list[str]) -> str:
    return "; ".join(KNOWN.get(label, f"`{label}`, the main branch this one starts from") for label in labels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, action="append", required=True, help="a checkout of an earlier tool")
    parser.add_argument("--label", action="append", default=[], help="its commit, in the order of --before")
    args = parser.parse_args(argv)
    if len(args.label) != len(args.before):
        parser.error("give one --label per --before")
    section = measure([(label, path.resolve()) for label, path in zip(args.label, args.before, strict=True)])
    text = realcode.RESULTS.read_text(encoding="utf-8") if realcode.RESULTS.is_file() else ""
    head = text.split(HEADING, 1)[0].rstrip("\n")
    realcode.RESULTS.write_text((head + "\n\n" if head else "") + section + "\n", encoding="utf-8")
    print(f"wrote {realcode.RESULTS.relative_to(realcode.ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
