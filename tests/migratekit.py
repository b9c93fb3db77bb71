"""What the migration tool's tests share: a project requirement that allows rewriting, and the tool as a user runs it.

`REQUIREMENT` pins transformers to the release that shipped the renames (from the table), so safe fixes apply;
`run` is `python -m checkpointing_migrate …` (the console script's command line) in a fresh process, bounded in time, from this checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys

from checkpointing_migrate.table import load
from generator.paths import ROOT, TABLE_PATH

SINCE = next(r.since for r in load(TABLE_PATH).renames if r.since)
"""The transformers release that shipped the renames."""

REQUIREMENT = f'[project]\nname = "p"\ndependencies = ["transformers>={SINCE}"]\n'
"""A `pyproject.toml` whose transformers requirement allows only releases with the new names."""


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
