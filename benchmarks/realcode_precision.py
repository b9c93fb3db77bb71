"""Precision on real code: safe fixes / unsafe fixes / hazards / info per pinned project, for two versions of the tool.

Run: `.venv/bin/python benchmarks/realcode_precision.py --before CHECKOUT`, CHECKOUT being the tool before issue 18's
safety work (`git worktree add --detach /tmp/before ad1cd04^1`). Both scan the same unpacked releases; each fix the older
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


def lost(before: list[dict[str, object]], after: list[dict[str, object]], root: Path) -> list[str]:
    """Each fix of `before` (safe or unsafe) that `after` no longer offers at that place at least as safe, with what
    `after` reports there instead."""

    def key(f: dict[str, object]) -> tuple[str, object, object, object]:
        return (str(Path(str(f["path"])).relative_to(root)), f["line"], json.dumps(f.get("cell")), f["old"])

    now: dict[tuple[str, object, object, object], list[dict[str, object]]] = {}
    for f in after:
        now.setdefault(key(f), []).append(f)
    out = []
    for f in before:
        was = kind(f)
        if was not in ("fix", "unsafe fix"):
            continue
        there = now.get(key(f), [])
        if any(kind(g) == "fix" or kind(g) == was for g in there):
            continue
        where = f"{was} at `{key(f)[0]}:{f['line']}` `{f['old']}`"
        if not there:
            out.append(f"{where}: no finding now")
            continue
        g = there[0]
        message = str(g["message"]).split(" See ", 1)[0]
        out.append(f"{where}: now {kind(g)} [{g['code']}]: {message[:260]}")
    return out


def measure(before_tool: Path) -> str:
    """The Markdown section: the counts table and the safe fixes lost, per project."""
    target, _hub, projects = realcode.load()
    rows, notes = [], []
    for project in projects:
        with tempfile.TemporaryDirectory() as tmp:
            root = realcode.unpack(realcode.fetch(project), Path(tmp) / "tree")
            for name in project.setup:
                (root / name).touch()
            old = scan(before_tool, root, target)
            new = scan(realcode.ROOT, root, target)
            b, a = tally(old), tally(new)
            rows.append(f"| {project.name} | {shown(b)} | {shown(a)} |")
            if gone := lost(old, new, root):
                notes.append(f"- **{project.name}** ({len(gone)}):")
                notes += [f"  - {line}" for line in gone]
        print(rows[-1], flush=True)
    return "\n".join(
        [
            HEADING,
            "",
            f"`python benchmarks/realcode_precision.py --before CHECKOUT`: `scan --target '{target}'` of each pinned release "
            "by the tool before issue 18's safety work (the first parent of the `safety` merge, `7fe69f7`) and by this "
            "one. Counts are safe fixes / unsafe fixes / hazards / info.",
            "",
            "| project | before (`7fe69f7`) | now |",
            "|---|---|---|",
            *rows,
            "",
            f"Safe fixes lost: {sum(line.startswith('  - fix at') for line in notes)} on {len(projects)} releases. "
            "Fixes the earlier tool offered that this one no longer offers as safely (a safe fix now unsafe or refused, "
            "an unsafe fix now refused), and what it says there now:",
            "",
            *(notes or ["- none"]),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the earlier tool")
    args = parser.parse_args(argv)
    section = measure(args.before.resolve())
    text = realcode.RESULTS.read_text(encoding="utf-8") if realcode.RESULTS.is_file() else ""
    head = text.split(HEADING, 1)[0].rstrip("\n")
    realcode.RESULTS.write_text((head + "\n\n" if head else "") + section + "\n", encoding="utf-8")
    print(f"wrote {realcode.RESULTS.relative_to(realcode.ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
