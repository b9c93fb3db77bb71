"""`scan -` and `fix -`: standard input checked as the file `--stdin-filename` names, as an editor (or the site's
playground) uses it. `fix -` prints the fixed text, `fix --diff -` the diff `fix FILE` prints for the same file,
`--write` with `-` is refused; bad input is a positioned file error, never a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.paths import ROOT
from tests.migratekit import REQUIREMENT, SINCE, run

PAIRS = Path(__file__).parent / "fixtures" / "migrate" / "pairs"
BEFORE = sorted(PAIRS.glob("*.before.*"))


def stdin(data: bytes, *args: str, cwd: Path | str = ROOT) -> subprocess.CompletedProcess[bytes]:
    """`python -m checkpointing_migrate *args` with `data` on standard input, output kept as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", *args],
        input=data,
        cwd=cwd,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )


def _plain(before: Path) -> str:
    return before.name.replace(".before.", ".")


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_fix_stdin_prints_the_fixed_text_of_every_pair(before: Path) -> None:
    # NAME inside the fixtures folder: its pyproject.toml is the requirement that allows the rewrites.
    done = stdin(before.read_bytes(), "fix", "--stdin-filename", str(PAIRS / _plain(before)), "-")
    assert done.stdout == (PAIRS / before.name.replace(".before.", ".after.")).read_bytes()
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_fix_diff_stdin_is_the_diff_fix_prints_for_the_file(tmp_path: Path, before: Path) -> None:
    # In the pairs' project: the launch commands and scripts there are what proves a config's reader.
    for path in PAIRS.iterdir():
        if ".after." not in path.name and ".unsafe." not in path.name:
            shutil.copy(path, tmp_path / _plain(path))
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    from_file = stdin(b"", "fix", _plain(before), cwd=tmp_path)
    from_stdin = stdin(before.read_bytes(), "fix", "--diff", "--stdin-filename", _plain(before), "-", cwd=tmp_path)
    changed = (PAIRS / before.name.replace(".before.", ".after.")).read_bytes() != before.read_bytes()
    assert from_stdin.stdout.startswith(f"--- a/{_plain(before)}\n".encode()) == changed  # multi_doc: only unsafe
    assert (from_stdin.stdout, from_stdin.stderr, from_stdin.returncode) == (
        from_file.stdout,
        from_file.stderr,
        from_file.returncode,
    )


def test_scan_stdin_reports_what_scan_reports_for_the_file(tmp_path: Path) -> None:
    name = "hazards.py"
    shutil.copy(PAIRS / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    for fmt in ("text", "json"):
        from_file = stdin(b"", "scan", "--format", fmt, name, cwd=tmp_path)
        from_stdin = stdin(
            (PAIRS / name).read_bytes(), "scan", "--format", fmt, "--stdin-filename", name, "-", cwd=tmp_path
        )
        assert from_file.returncode == 1
        assert (from_stdin.stdout, from_stdin.returncode) == (from_file.stdout, from_file.returncode)


def test_the_requirement_is_looked_up_from_the_names_folder(tmp_path: Path) -> None:
    text = b"from transformers import TrainingArguments\n\nargs = TrainingArguments(gradient_checkpointing=True)\n"
    (tmp_path / "project" / "src").mkdir(parents=True)
    (tmp_path / "project" / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "elsewhere").mkdir()
    inside = stdin(text, "fix", "--stdin-filename", "project/src/train.py", "-", cwd=tmp_path)
    outside = stdin(text, "fix", "--stdin-filename", "elsewhere/train.py", "-", cwd=tmp_path)
    assert inside.stdout == text.replace(b"gradient", b"activation") and inside.returncode == 0
    # No requirement there: releases before the rename are allowed, so the text comes back as it was, with why.
    assert outside.stdout == text and outside.returncode == 0
    assert f"releases before {SINCE}".encode() in outside.stderr


def test_the_name_picks_the_file_kind(tmp_path: Path) -> None:
    text = b"#!/bin/bash\naccelerate launch train.py --gradient_checkpointing\n"
    as_script = stdin(text, "scan", "--target", f"transformers>={SINCE}", "--stdin-filename", "launch", "-")
    as_python = stdin(text, "scan", "--target", f"transformers>={SINCE}", "--stdin-filename", "launch.py", "-")
    assert b"launch:2:" in as_script.stdout  # sniffed as a shell script by its #! line
    assert as_python.returncode == 1 and b"launch.py:2:" in as_python.stderr  # not Python: a syntax error


def test_a_syntax_error_is_a_positioned_error_and_the_text_comes_back(tmp_path: Path) -> None:
    text = b"def f(:\n    model.gradient_checkpointing_enable()\n"
    scanned = stdin(text, "scan", "--stdin-filename", "train.py", "-", cwd=tmp_path)
    fixed = stdin(text, "fix", "--stdin-filename", "train.py", "-", cwd=tmp_path)
    assert scanned.returncode == fixed.returncode == 1
    assert scanned.stderr.startswith(b"train.py:1:7: error: does not parse as Python: invalid syntax")
    assert fixed.stdout == text  # an editor that replaces its buffer with the output loses nothing
    assert b"Traceback" not in scanned.stderr + fixed.stderr


def test_a_broken_notebook_is_a_positioned_error(tmp_path: Path) -> None:
    done = stdin(b'{"cells": [\n "gradient_checkpointing"\n', "scan", "--stdin-filename", "nb.ipynb", "-", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(b"nb.ipynb:3:1: error: not a valid notebook (JSON)")


def test_write_with_stdin_is_refused_and_nothing_is_read_or_printed() -> None:
    done = stdin(b"model.gradient_checkpointing_enable()\n", "fix", "--write", "--stdin-filename", "x.py", "-")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.startswith(b"error: --write cannot rewrite standard input")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("scan", "-", "README.md"), b"error: `-` (standard input) cannot be mixed with other paths"),
        (("scan", "--stdin-filename", "x.py", "README.md"), b"error: --stdin-filename names standard input"),
    ],
)
def test_stdin_usage_errors(args: tuple[str, ...], message: bytes) -> None:
    done = stdin(b"", *args)
    assert done.returncode == 2 and done.stderr.startswith(message)


def test_more_than_the_size_limit_is_reported_not_checked() -> None:
    done = stdin(b"x = 'gradient_checkpointing'\n" * 100, "scan", "--max-file-size", "1kB", "-")
    assert done.returncode == 1
    assert done.stderr.startswith(b"-:1:1: error: 2.9 kB, over the 1 kB limit; skipped")


def test_help_documents_stdin() -> None:
    text = run("fix", "--help").stdout
    assert "--stdin-filename NAME" in text and "`fix -` prints the fixed text" in " ".join(text.split())
