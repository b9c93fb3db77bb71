"""The text report of `scan` and `fix`: short finding lines, `--statistics`, `--show-fixes`, the closing block.

A finding line is `where: severity [code] old → new: short reason`; each code's guide link is printed once, above
the one summary line. `--quiet` leaves only the findings, `--output-file` writes the report (any format) atomically,
and colour is used only on a terminal (`NO_COLOR` turns it off, `FORCE_COLOR` on).
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from checkpointing_migrate import NAME, codes
from checkpointing_migrate.findings import FileError, Finding, link

_COLOURS = {"hazard": "1;31", "fix": "33", "fix (unsafe)": "33", "info": "36", "error": "1;31"}
"""ANSI SGR codes by severity label: a hazard is the one to look at first."""


def add_arguments(sub: argparse.ArgumentParser, command: str) -> None:
    """The output options shared by `scan` and `fix` (`command`: where the report goes by default)."""
    where = "stdout" if command == "scan" else "stderr"
    group = sub.add_argument_group("output")
    group.add_argument("--quiet", "-q", action="store_true", help="print only the findings: no summary, no links")
    group.add_argument(
        "--statistics", action="store_true", help="print how many findings of each code, instead of each finding"
    )
    group.add_argument(
        "--show-fixes",
        action="store_true",
        help="list the fixes "
        + ("available, per file" if command == "scan" else "applied (or, with --diff, to apply)"),
    )
    group.add_argument(
        "--output-file",
        "-o",
        type=Path,
        metavar="FILE",
        help=f"write the report to FILE (replaced atomically, never half-written) instead of {where}",
    )


def use_colour(stream: TextIO) -> bool:
    """Colour on a terminal; never with `NO_COLOR` set (no-color.org), always with `FORCE_COLOR` (otherwise)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _paint(text: str, sgr: str, colour: bool) -> str:
    return f"\033[{sgr}m{text}\033[0m" if colour else text


def line(finding: Finding, colour: bool) -> str:
    """`Finding.text()`, with the location bold and the severity in its colour when `colour`."""
    if not colour:
        return finding.text()
    names = f"{finding.old} → {finding.new}" if finding.new else finding.old
    label = _paint(finding.label, _COLOURS[finding.label], colour)
    return f"{_paint(finding.where, '1', colour)}: {label} [{finding.code}] {names}: {finding.reason}"


def error_line(error: FileError, colour: bool) -> str:
    """`FileError.text()`, in the colour of an error when `colour`."""
    return _paint(error.text(), _COLOURS["error"], colour)


def statistics(findings: list[Finding]) -> list[str]:
    """One line per code and severity, most frequent first (ruff's `--statistics`): count, code, severity, summary."""
    counts = Counter((f.code, f.label) for f in findings)
    if not counts:
        return []
    width = max(len(code) for code, _ in counts)
    label_width = max(len(label) for _, label in counts)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [
        f"{n:>5}  {code:<{width}}  {label:<{label_width}}  {codes.get(code).summary}" for (code, label), n in ordered
    ]


def fixes(findings: list[Finding], applies: Callable[[Finding], bool], heading: str) -> list[str]:
    """`heading`, then per file the fixes for which `applies` holds, as `  path: 2 × call, 1 × flag`."""
    by_path: dict[str, Counter[str]] = {}
    for f in findings:
        if applies(f):
            by_path.setdefault(f.path, Counter())[f.code] += 1
    if not by_path:
        return [f"{heading}: none"]
    return [f"{heading}:"] + [
        f"  {path}: " + ", ".join(f"{n} × {code}" for code, n in sorted(counted.items(), key=lambda c: (-c[1], c[0])))
        for path, counted in by_path.items()
    ]


def guide_links(findings: list[Finding]) -> list[str]:
    """Each guide section the reported codes point to, once, with those codes: `[call] [property]: LINK`."""
    by_link: dict[str, list[str]] = {}
    for code in sorted({f.code for f in findings}, key=list(codes.CODES).index):
        by_link.setdefault(link(codes.get(code).section), []).append(f"[{code}]")
    return [f"{' '.join(names)}: {address}" for address, names in by_link.items()]


def closing(findings: list[Finding], summary_line: str) -> list[str]:
    """The block after the findings: the guide links, then the one summary line (with how to explain a code)."""
    if not findings:
        return [summary_line]
    hint = f" `{NAME} explain CODE` explains a code."
    return [*guide_links(findings), summary_line + hint]


class Output:
    """Where the report goes: `stream`, or collected and written to `--output-file` at the end (atomically)."""

    def __init__(self, stream: TextIO, path: Path | None) -> None:
        self.stream, self.path = stream, path
        self.lines: list[str] = []
        self.colour = path is None and use_colour(stream)

    def print(self, text: str) -> None:
        if self.path is None:
            print(text, file=self.stream)
        else:
            self.lines.append(text)

    def close(self) -> str | None:
        """Write the collected report to the file; the problem, as an error line, when that fails."""
        if self.path is None:
            return None
        from checkpointing_migrate.writing import atomic_write  # only with --output-file

        try:
            atomic_write(self.path, "".join(f"{text}\n" for text in self.lines))
        except OSError as exc:
            return f"{self.path}: cannot write the report: {exc.strerror or exc}; pass another --output-file"
        return None
