"""Find and fix the rename gradient_checkpointing* -> activation_checkpointing* in code, configs and scripts.

`checkpointing-migrate` (also `python -m checkpointing_migrate`). Exit codes: 0 nothing to do, 1 findings, 2 usage or
internal error; problems go to stderr as `PATH:LINE:COL: message`, never as a traceback. A closed pipe ends quietly
and text the terminal cannot encode is escaped. Each subcommand imports only its own module.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from checkpointing_migrate import NAME
from checkpointing_migrate.located import ToolError


class Command(NamedTuple):
    """One subcommand: what `--help` says, where it lives, and whether it needs a checkout of the repository. The
    parser, the help and the docs' lists of commands (tests/test_commands.py) all come from a registry of these (a
    named tuple: it is made at every start, and a frozen dataclass costs several times as much to make)."""

    name: str
    help: str
    """The one-line help (the top-level list and the subcommand's description)."""
    module: str
    """The module that implements it, imported only when it runs."""
    function: str
    """Its function in `module`: `(args) -> exit code`."""
    options: str
    """The function in `module` that adds its options to its parser."""
    checkout: bool = False
    """Whether it works only in a checkout of the repository (the site generator's commands)."""
    exit_codes: bool = False
    """Whether its `--help` ends with the exit codes (`EPILOG`)."""


COMMANDS = (
    Command(
        "scan",
        "report uses of the renamed names in code, notebooks, configs, scripts, Markdown",
        "checkpointing_migrate.commands",
        "scan",
        "add_scan_arguments",
        exit_codes=True,
    ),
    Command(
        "fix",
        "rewrite what is safe to rewrite (a diff, or in place with --write)",
        "checkpointing_migrate.commands",
        "fix",
        "add_fix_arguments",
        exit_codes=True,
    ),
    Command(
        "rules",
        "list every finding code: code, severity, effect, summary",
        "checkpointing_migrate.commands",
        "rules",
        "add_rules_arguments",
    ),
    Command(
        "explain",
        "what a finding code means, with an example",
        "checkpointing_migrate.commands",
        "explain",
        "add_explain_arguments",
    ),
    Command(
        "rehearse",
        "run a command as if the old names were gone (the table's v6 plan)",
        "checkpointing_migrate.rehearse.cli",
        "run",
        "add_arguments",
    ),
)
"""The migration tool's subcommands, in the order `--help` lists them."""

EPILOG = """exit codes:
  0  nothing to report (scan), nothing left to fix (fix)
  1  findings to act on, a file that could not be checked or written, or (fix --diff) rewrites pending
  2  usage error (bad option, unknown code, missing path, a --target no release meets, a table with problems) or
     internal error; fix --verify: the check fails before any rewrite (nothing written)
  130  fix --verify interrupted (Ctrl-C): the check was killed and every original put back"""
"""The exit codes, shown at the end of `--help`."""


def implementation(command: Command, attribute: str) -> Callable[..., Any]:
    """`command`'s function or options function (`attribute` names which), its module imported only now."""
    return getattr(importlib.import_module(command.module), attribute)  # type: ignore[no-any-return]


@functools.cache
def terminal_width() -> int:
    """What argparse would use: `shutil.get_terminal_size()` less 2 columns, without importing shutil (and the
    compression modules it loads) on every start."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout with the terminal measured once per process: argparse builds a formatter for every
    option it adds, and measuring the terminal for each was most of the parser's share of a `scan`'s start-up."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=terminal_width())

    def _split_lines(self, text: str, width: int) -> list[str]:
        """An option's help wrapped at spaces only: argparse also breaks at hyphens, which splits a file name the
        help lists (`docker-compose.yml`) or a flag in two."""
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _TopHelpFormatter(argparse.RawDescriptionHelpFormatter, HelpFormatter):
    """The top-level help: the same, with the epilog (the exit codes) kept as written."""


def parser(
    argv: list[str],
    commands: tuple[Command, ...],
    *,
    prog: str,
    description: str,
    epilog: str | None = None,
    version: bool = False,
) -> argparse.ArgumentParser:
    """A parser for `commands`; only the subcommand named in `argv` gets its options (argparse spends
    milliseconds on each); anything else gets them all, for the top-level help and the "invalid choice" error."""
    top = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog, formatter_class=_TopHelpFormatter)
    if version:
        top.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    subparsers = top.add_subparsers(dest="subcommand", required=True, metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    chosen = [c for c in commands if c.name == wanted] or commands
    for command in chosen:
        sub = subparsers.add_parser(
            command.name, help=command.help, description=command.help, formatter_class=HelpFormatter
        )
        if command.name == wanted:
            implementation(command, command.options)(sub)
            if command.exit_codes:  # the exit codes, where the options are
                sub.epilog, sub.formatter_class = EPILOG, _TopHelpFormatter
    return top


def dispatch(args: argparse.Namespace, commands: tuple[Command, ...]) -> int:
    """Run the subcommand `args` names with `args`; its exit code."""
    (command,) = [c for c in commands if c.name == args.subcommand]
    return implementation(command, command.function)(args)  # type: ignore[no-any-return]


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, read only when asked (importlib.metadata costs start-up)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib import metadata

        try:
            version = metadata.version(NAME)
        except metadata.PackageNotFoundError:
            version = "(not installed: run from a checkout)"
        print(f"{NAME} {version}")
        parser.exit()


def _parse(argv: list[str]) -> argparse.Namespace:
    description = __doc__.splitlines()[0]
    top = parser(argv, COMMANDS, prog=NAME, description=description, epilog=EPILOG, version=True)
    return top.parse_args(argv)


def safe_streams() -> None:
    """Output the terminal cannot encode (a `cp1252` console, `PYTHONIOENCODING=ascii`) is escaped, not a
    `UnicodeEncodeError`."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def exit_quietly_on_closed_pipe(code: Callable[[], int]) -> int:
    """`code()`; a reader that closed the pipe early (`scan . | head -1`) ends the output, not the run with a
    traceback: the rest goes to the null device (Python's documented recipe) and the exit code is kept."""
    try:
        result = code()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return result


USAGE_ERROR = 2
"""The exit code of a usage error: a bad option, path, table, config or data file."""

INTERNAL_ERROR = 2
"""The exit code of a run that met an unexpected exception (a bug): the usage-error code, as ruff does."""


def report_internal_errors(code: Callable[[], int]) -> int:
    """`code()`; an unexpected exception becomes one `internal error: …` line on stderr and exit 2, not a
    traceback (a user cannot act on one; the command line is what a report needs)."""
    try:
        return code()
    except (BrokenPipeError, KeyboardInterrupt):
        raise  # the closed pipe is `exit_quietly_on_closed_pipe`'s; Ctrl-C keeps Python's own exit
    except ToolError as exc:  # a problem of the user's input that no command caught: its message says what to do
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except Exception as exc:  # noqa: BLE001 - this is the one place that turns a bug into a message
        command = " ".join([NAME, *sys.argv[1:]])
        print(
            f"internal error: {type(exc).__name__}: {exc}; please report it with the command ({command})",
            file=sys.stderr,
        )
        return INTERNAL_ERROR


def run() -> None:
    """The console script and `python -m checkpointing_migrate`: `main`, then exit with its code.

    The cyclic collector is tuned for a short-lived process (a sixth of a pre-commit `scan`'s start-up): off while
    the parser imports the subcommand's modules, whose objects then live until exit and are frozen out of every
    later collection; and at the end everything is frozen, so the collection Python runs at exit has nothing to walk.
    """
    safe_streams()
    gc.disable()
    args = _parse(sys.argv[1:])
    gc.enable()
    gc.freeze()
    code = exit_quietly_on_closed_pipe(lambda: report_internal_errors(lambda: _dispatch(args)))
    gc.freeze()
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default: the process's) and returns the exit code."""
    args = _parse(sys.argv[1:] if argv is None else argv)
    return report_internal_errors(lambda: _dispatch(args))


def _dispatch(args: argparse.Namespace) -> int:
    return dispatch(args, COMMANDS)
