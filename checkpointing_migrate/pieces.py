"""A piece of a file: code cut out of a notebook cell's JSON strings or a Markdown fence, checked on its own.

A `Piece` holds its text, the language that reads it, its cell number (for `NAME:cell N:LINE:COL`) and the stretches
copied as they are from the file; `back` turns a hit in the piece into one in the file, and an edit that cannot be
placed (a name spelled with JSON escapes, an edit across a fence's indentation) makes the hit an `info`.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from checkpointing_migrate.codes import Applicability, Severity
from checkpointing_migrate.findings import Cell, Edit
from checkpointing_migrate.hits import Hit
from checkpointing_migrate.kinds import FileKind


@dataclass(frozen=True)
class Run:
    """A stretch of the piece copied as is from the file."""

    start: int
    """Offset in the piece."""
    at: int
    """Offset in the file."""
    length: int
    closes: bool
    """Its end maps too (the end of a JSON string: its closing quote; the end of a fence's line); otherwise what
    follows it is an escape, which maps to nothing."""


@dataclass(frozen=True)
class Piece:
    """Code cut out of a file, with the way back into it."""

    text: str
    language: FileKind
    """The kind reading it: `python`, `shell`, `yaml`, `json`."""
    runs: tuple[Run, ...]
    """In order, covering the piece; an offset past the last one's end maps to nothing."""
    cell: int | None = None
    """The notebook cell it is, counted from 1; findings then say where they are in it."""

    def to_file(self, offset: int) -> int | None:
        """The file offset of `offset` in the piece; `None` inside an escape."""
        i = bisect.bisect_right(self.runs, offset, key=lambda r: r.start) - 1
        if i < 0:
            return None
        run = self.runs[i]
        inside = offset < run.start + run.length or (offset == run.start + run.length and run.closes)
        return run.at + offset - run.start if inside else None

    def place(self, offset: int) -> Cell | None:
        """Where `offset` is in the cell (its LINE:COL counted in the cell's text), for a piece that is a cell."""
        if self.cell is None:
            return None
        line_start = self.text.rfind("\n", 0, offset) + 1
        return Cell(self.cell, self.text.count("\n", 0, offset) + 1, offset - line_start + 1)

    def back(self, hit: Hit, file: str, unplaced: str, why: str) -> Hit:
        """`hit` (offsets in the piece) in the file `file`; `unplaced` starts the message of the `info` it becomes
        when one of its edits does not stand in the file as it does in the piece, `why` is its short reason."""
        start = self.to_file(hit.start)
        start = start if start is not None else 0
        where = self.place(hit.start)
        edits = []
        for edit in hit.edits:
            at = self.to_file(edit.start)
            size = edit.end - edit.start
            if at is None or file[at : at + size] != self.text[edit.start : edit.end]:
                return replace(
                    hit,
                    start=start,
                    severity=Severity.INFO,
                    edits=(),
                    message=f"{unplaced}; {hit.message}",
                    applicability=Applicability.NONE,
                    cell=where,
                    why=why,
                )
            edits.append(Edit(at, at + size, edit.new))
        return replace(hit, start=start, edits=tuple(edits), cell=where)


def shift(hit: Hit, by: int) -> Hit:
    """`hit` found in a part of a piece that starts `by` characters into it."""
    edits = tuple(Edit(e.start + by, e.end + by, e.new) for e in hit.edits)
    return replace(hit, start=hit.start + by, edits=edits)


def prompted(lines: list[tuple[int, str]], prompts: tuple[str, ...], bare: tuple[str, ...]) -> list[tuple[int, str]]:
    """The input lines of a session (after a prompt, or continuing a `\\` line), without the prompts: a `pycon` or
    `console` fence, a doctest."""
    out: list[tuple[int, str]] = []
    continued = False
    for offset, line in lines:
        body = line.rstrip("\r\n")
        prompt = next((p for p in prompts if line.startswith(p)), None)
        if prompt is not None:
            out.append((offset + len(prompt), line[len(prompt) :]))
        elif body in bare:
            out.append((offset + len(body), line[len(body) :]))
        elif continued:
            out.append((offset, line))
        else:
            continue
        continued = body.endswith("\\") and not bare
    return out


def of_lines(language: FileKind, lines: list[tuple[int, str]]) -> Piece:
    """The lines `(file offset, text)` of a Markdown fence or a docstring's doctest as one piece, each line a stretch
    copied as is."""
    runs, at = [], 0
    for offset, line in lines:
        runs.append(Run(at, offset, len(line), True))
        at += len(line)
    return Piece("".join(line for _, line in lines), language, tuple(runs))
