"""Standard input as a file (`scan -`, `fix -`, ruff's convention): what an editor or the site's playground sends.

`--stdin-filename NAME` names the text: its name or suffix picks the handler (`Makefile`, `x.sh`; else a shell `#!`
line, else Python) and its folder is where the project's transformers requirement is looked up, as for a file on
disk. The bytes are read whole (more than `--max-file-size` is reported, not checked) and checked like a file's; findings carry NAME.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

from checkpointing_migrate.files import Result, check_data, too_big
from checkpointing_migrate.findings import FileError
from checkpointing_migrate.hits import Options
from checkpointing_migrate.kinds import FileKind, kind_of, sniff_kind
from checkpointing_migrate.requirements import Finder
from checkpointing_migrate.run import across_files

MARK = "-"
"""The PATH that means standard input."""

DEFAULT_NAME = "-"
"""The name findings carry without `--stdin-filename` (a Python file in the working folder)."""


def read() -> bytes:
    """Standard input's bytes, whole (what was sent is checked or reported as too big; a pipe has no size to ask)."""
    # The bytes, not the text: the file's own encoding declaration and line endings must reach the decoder as sent.
    stream: BinaryIO = sys.stdin.buffer
    return stream.read()


def check(name: str, options: Options, finder: Finder, cell: int | None = None) -> tuple[Result, bytes]:
    """Standard input checked as the file `name` (with `cell`, as that code cell of the notebook `name`), and the
    bytes read (what `fix -` prints when nothing changes)."""
    data = read()
    if options.max_size is not None and len(data) > options.max_size:
        return Result(name, error=FileError(name, 1, 1, too_big(len(data), options.max_size))), data
    if cell is not None:
        from checkpointing_migrate import notebook_cell  # only `--stdin-cell` reads one cell

        return notebook_cell.check(name, data, cell, options, finder), data
    kind = kind_of(name, sniff=False) or sniff_kind(data) or FileKind.PYTHON
    (result,) = across_files([check_data(name, data, kind, options, finder)], options)
    return result, data
