"""`rehearse -- CMD [ARGS...]`: run a command with the v6 preview in every Python process it starts.

The command runs with `CHECKPOINTING_V6_PREVIEW=1` and a `sitecustomize` bootstrap first on `PYTHONPATH`, so each
Python process applies the preview when it imports transformers and announces it on stderr. Exit codes: see `run`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import checkpointing_migrate
from checkpointing_migrate.paths import TABLE_PATH
from checkpointing_migrate.rehearse import preview
from checkpointing_migrate.table import load_table_or_report

STARTUP_DIR = Path(__file__).resolve().parent / "startup"
"""The folder holding the `sitecustomize` bootstrap."""

_USAGE = "give the command after --, e.g. `checkpointing-migrate rehearse -- python train.py`"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `rehearse` subcommand's arguments: everything after `--` is the command."""
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]", help="the command to run under the v6 preview"
    )


def environment(base: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """`base` plus what turns the preview on in Python subprocesses."""
    env = dict(base)
    env[preview.ENV_VAR] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(STARTUP_DIR), *filter(None, [env.get("PYTHONPATH")])])
    # Where `checkpointing_migrate` lives, for a command whose Python would not find it (a checkout, another virtualenv).
    env["CHECKPOINTING_V6_PREVIEW_PATH"] = str(Path(checkpointing_migrate.__file__).resolve().parent.parent)
    return env


def run(args: argparse.Namespace) -> int:
    """Run `args.command` under the preview and return its exit code (128 + N when signal N ended it); 2 when
    rehearse cannot run it (no command, the table cannot be rehearsed); 127 when the command is not found and 126 when
    it cannot be executed, as shells do."""
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print(f"rehearse: error: no command; {_USAGE}", file=sys.stderr)
        return 2
    table = load_table_or_report(TABLE_PATH)
    if isinstance(table, int):
        return table
    try:
        preview.plan(table)  # refuse up front a table the preview cannot carry out
    except preview.PreviewError as exc:
        print(f"rehearse: error: {exc}", file=sys.stderr)
        return 2
    try:
        completed = subprocess.run(command, env=environment(os.environ), check=False)
    except FileNotFoundError:
        print(f"rehearse: error: command not found: {command[0]}", file=sys.stderr)
        return 127
    except PermissionError:
        print(f"rehearse: error: cannot execute: {command[0]}", file=sys.stderr)
        return 126
    except KeyboardInterrupt:
        return 130
    code = completed.returncode
    return 128 - code if code < 0 else code
