"""What the migration tool's tests share: a project requirement that allows rewriting, and the tool as a user runs it.

`REQUIREMENT` pins transformers to the release that shipped the renames (from the table), so safe fixes apply;
`run` is `python -m checkpointing_migrate …` (the console script's command line) in a fresh process, bounded in time, from this checkout.
`PLANNED` and `whole_parse`: a run with `--include-planned`, and the hits of a file parsed whole.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.pylex import Source, candidate_lines
from checkpointing_migrate.python.context import File
from checkpointing_migrate.python.walk import run_of, walk
from checkpointing_migrate.requirements import Allowed
from checkpointing_migrate.rules import from_table
from checkpointing_migrate.table import load
from generator.paths import ROOT, TABLE_PATH

SINCE = next(r.since for r in load(TABLE_PATH).renames if r.since)
"""The transformers release that shipped the renames."""

REQUIREMENT = f'[project]\nname = "p"\ndependencies = ["transformers>={SINCE}"]\n'
"""A `pyproject.toml` whose transformers requirement allows only releases with the new names."""

PLANNED = Options(from_table(load(TABLE_PATH)), Allowed(None, ""), planned=True)
"""A run's options with `--include-planned`."""


def whole_parse(text: str) -> list[Hit]:
    """The hits of `text` parsed whole (what `python.analyse` does for a file that holds more than planned names)."""
    source = Source(text)
    lines = candidate_lines(text, PLANNED, source)
    return walk(File(source, ast.parse(text), lines, PLANNED, run_of(PLANNED))) if lines else []


def run(*args: str, cwd: os.PathLike[str] | str = ROOT, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m checkpointing_migrate *args` in `cwd`, with this checkout first on the import path."""
    return subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=timeout,
        check=False,
    )
