"""One notebook code cell as standard input (`--stdin-cell N`): what an editor holding a cell, or Try it, sends.

The text becomes cell N of a notebook (one JSON string per line, as Jupyter saves it), checked by the notebook
handler like any notebook (IPython's escapes, shell lines, ignore comments), and the result is put back in the cell's
terms: the fixed cell text, and findings and errors at the LINE:COL of the text sent (`NAME:cell N:LINE:COL`).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, replace

from checkpointing_migrate.files import Result, check_data, decode, sha256
from checkpointing_migrate.findings import Cell, Edit, FileError, Finding
from checkpointing_migrate.hits import Options
from checkpointing_migrate.kinds import FileKind
from checkpointing_migrate.pylex import Source
from checkpointing_migrate.requirements import Finder
from checkpointing_migrate.run import across_files

MAX_NUMBER = 10_000
"""The highest cell number `--stdin-cell` takes: the cells before it are written as placeholders (`null`)."""

_ESCAPED = re.compile(r'["\\\x00-\x1f]')
"""The characters `json.dumps` writes as an escape (with `ensure_ascii=False`); every other one is copied as is."""


@dataclass(frozen=True)
class Wrapped:
    """The notebook made of one cell, and where each stretch of the cell's text stands in it."""

    text: str
    runs: tuple[tuple[int, int, int], ...]
    """(offset in `text`, offset in the cell, length) of every stretch copied as is, in order: a line's start and the
    place after each escape begin one (maybe empty), so an offset inside an escape or between lines maps to the
    character it stands for."""
    number: int

    def to_cell(self, offset: int) -> int:
        """The offset in the cell's text of `offset` in the notebook's."""
        i = bisect.bisect_right(self.runs, (offset, float("inf"))) - 1
        if i < 0:
            return 0
        start, cell, length = self.runs[i]
        return cell + min(offset - start, length)


def wrap(code: str, number: int) -> Wrapped:
    """`code` as the code cell `number` (counted from 1) of an otherwise empty notebook."""
    head = '{"cells": [' + "null, " * (number - 1) + '{"cell_type": "code", "source": [\n'
    out, runs, at, cell = [head], [], len(head), 0
    lines = [line + "\n" for line in code.split("\n")]  # `\n` alone ends a cell's line, as the notebook handler counts
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    for i, line in enumerate(lines):
        out.append('"')
        at += 1
        last = 0
        runs.append((at, cell, 0))
        for match in _ESCAPED.finditer(line):
            runs[-1] = (runs[-1][0], runs[-1][1], match.start() - last)
            escape = json.dumps(match.group())[1:-1]
            out += [line[last : match.start()], escape]
            at += match.start() - last + len(escape)
            last = match.end()
            runs.append((at, cell + last, 0))
        runs[-1] = (runs[-1][0], runs[-1][1], len(line) - last)
        out += [line[last:], '",\n' if i < len(lines) - 1 else '"\n']
        at += len(line) - last + len(out[-1])
        cell += len(line)
    out.append("]}]}\n")
    return Wrapped("".join(out), tuple(runs), number)


def check(name: str, data: bytes, number: int, options: Options, finder: Finder) -> Result:
    """The bytes `data` checked as code cell `number` of the notebook `name`; never raises for bad input."""
    try:
        code, encoding = decode(data, FileKind.NOTEBOOK)
    except (UnicodeDecodeError, ValueError):
        return check_data(
            name, data, FileKind.NOTEBOOK, options, finder
        )  # the file layer says why, as for any notebook
    wrapped = wrap(code, number)
    result = check_data(name, wrapped.text.encode("utf-8"), FileKind.NOTEBOOK, options, finder)
    (result,) = across_files([result], options)
    return _unwrap(result, wrapped, code, encoding, data)


def _unwrap(result: Result, wrapped: Wrapped, code: str, encoding: str, data: bytes) -> Result:
    """`result`, of the notebook `wrapped`, in the terms of the cell `code` (the bytes `data`, decoded with `encoding`)."""
    lines = Source(wrapped.text).starts

    def place(line: int, column: int) -> tuple[int, int]:
        offset = wrapped.to_cell(lines[line - 1] + column - 1)
        return code.count("\n", 0, offset) + 1, offset - (code.rfind("\n", 0, offset) + 1) + 1

    def finding(f: Finding) -> Finding:
        where = f.cell or Cell(wrapped.number, *place(f.line, f.column))
        edits = tuple(Edit(wrapped.to_cell(e.start), wrapped.to_cell(e.end), e.new) for e in f.edits)
        return replace(f, line=where.line, column=where.column, cell=where, edits=edits)

    error = result.error
    if error is not None:
        where = error.cell or Cell(wrapped.number, *place(error.line, error.column))
        error = FileError(error.path, where.line, where.column, error.message, where)
    fixed = None
    if result.fixed is not None:  # the edits keep the JSON valid (`check_data` parsed it again): read the cell back
        fixed = "".join(json.loads(result.fixed)["cells"][wrapped.number - 1]["source"])
    return replace(
        result,
        findings=tuple(finding(f) for f in result.findings),
        error=error,
        fixed=fixed,
        original=code if result.original is not None else None,
        encoding=encoding,
        digest=sha256(data) if result.digest is not None else None,
    )
