"""`checkpointing-migrate` (also `python -m generator`): the one command line of the project.

Exit codes: 0 done, 1 problems found (see each subcommand's help), 2 usage errors; problems go to stderr as
`PATH:LINE:COL: message`, never as a traceback. `scan`, `fix`, `rules` and `explain` need only PyYAML and packaging;
`check`, `render` and `matrix` work on a checkout (table, pages, measured data) and need the `site`/`measure` extras.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from generator import NAME, paths

if TYPE_CHECKING:
    from generator.table import Table

_MIGRATE = ("scan", "fix", "rules", "explain")
"""The subcommands of the migration tool: each is the function of that name in `generator.migrate.cli`."""

PROG = NAME
"""The console script's name (`[project.scripts]` in pyproject.toml); `python -m generator` runs the same parser."""


def _table_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--table", type=Path, default=paths.TABLE_PATH, help="the alias table (default: %(default)s)")


def _render_options(sub: argparse.ArgumentParser) -> None:
    _table_options(sub)
    sub.add_argument("--check", action="store_true", help="write nothing; exit 1 and name the pages that are stale")
    sub.add_argument("--docs", type=Path, default=paths.DOCS_DIR, help="the docs folder (default: %(default)s)")


def _matrix_options(sub: argparse.ArgumentParser) -> None:
    _table_options(sub)
    sub.add_argument(
        "--check", action="store_true", help="write nothing; measure again and exit 1 with a diff on any difference"
    )
    sub.add_argument("--data", type=Path, default=paths.DATA_DIR, help="the data folder (default: %(default)s)")


def _options(name: str) -> Callable[[argparse.ArgumentParser], None]:
    """The function that adds `name`'s options, importing only that subcommand's module (so `scan` starts as fast as a
    linter)."""
    if name in ("scan", "fix"):
        from generator.migrate import cli as migrate_cli

        return lambda sub: migrate_cli.add_arguments(sub, name, paths.TABLE_PATH)
    if name in ("rules", "explain"):
        from generator.migrate import cli as migrate_cli

        return migrate_cli.add_rules_arguments if name == "rules" else migrate_cli.add_explain_arguments
    if name == "rehearse":
        from generator.rehearse import cli as rehearse_cli

        return rehearse_cli.add_arguments
    if name in ("audit", "refresh"):
        from generator.measure import audit, refresh

        return (audit if name == "audit" else refresh).add_arguments
    return {"check": _table_options, "render": _render_options, "matrix": _matrix_options}[name]


SUBCOMMANDS = {
    "scan": "report uses of the renamed names in code, notebooks, configs, scripts, Markdown",
    "fix": "rewrite what is safe to rewrite (a diff, or in place with --write)",
    "rules": "list every finding code: code, severity, effect, summary",
    "explain": "what a finding code means, with an example",
    "rehearse": "run a command as if the old names were gone (the table's v6 plan)",
    "check": "validate the alias table and report every problem",
    "render": "write the generated pages under docs/generated/ that changed",
    "matrix": "probe every listed release and record the outcomes under data/",
    "audit": "prove the table complete for every listed transformers release",
    "refresh": "find, measure and (with --write) record newer releases",
}
"""Every subcommand and its one-line help."""


@functools.cache
def _terminal_width() -> int:
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


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout with the terminal measured once per process: argparse builds a formatter for every
    option it adds, and measuring the terminal for each was most of the parser's share of a `scan`'s start-up."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_terminal_width())


def _parser(argv: list[str]) -> argparse.ArgumentParser:
    """The parser; only the subcommand named in `argv` gets its options (and its module imported)."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0], formatter_class=_HelpFormatter)
    commands = parser.add_subparsers(dest="subcommand", required=True, metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    # A known subcommand gets only its own parser (argparse spends milliseconds on each); anything else gets them
    # all, for the top-level help and the "invalid choice" error.
    for name, text in SUBCOMMANDS.items() if wanted not in SUBCOMMANDS else [(wanted, SUBCOMMANDS[wanted])]:
        sub = commands.add_parser(name, help=text, description=text, formatter_class=_HelpFormatter)
        if name == wanted:
            _options(name)(sub)
    return parser


def run() -> None:
    """The console script and `python -m generator`: `main`, then exit with its code.

    The cyclic collector is tuned for a short-lived process (a sixth of a pre-commit `scan`'s start-up): off while
    the parser imports the subcommand's modules, whose objects then live until exit and are frozen out of every
    later collection; and at the end everything is frozen, so the collection Python runs at exit has nothing to walk.
    """
    gc.disable()
    args = _parse(sys.argv[1:])
    gc.enable()
    gc.freeze()
    code = _dispatch(args)
    gc.freeze()
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default: the process's) and returns the exit code."""
    return _dispatch(_parse(sys.argv[1:] if argv is None else argv))


def _parse(argv: list[str]) -> argparse.Namespace:
    return _parser(argv).parse_args(argv)


def _dispatch(args: argparse.Namespace) -> int:
    if args.subcommand in _MIGRATE:
        from generator.migrate import cli as migrate_cli

        return getattr(migrate_cli, args.subcommand)(args)  # type: ignore[no-any-return]
    if args.subcommand == "rehearse":
        from generator.rehearse import cli as rehearse_cli

        return rehearse_cli.run(args)
    if args.subcommand in ("audit", "refresh"):
        from generator.measure import audit, refresh

        return (audit if args.subcommand == "audit" else refresh).run(args)
    if not paths.IN_CHECKOUT and args.subcommand in ("render", "matrix"):
        print(
            f"error: `{args.subcommand}` works on a checkout of the project (its templates, docs and data); "
            "run it there, after `make setup`",
            file=sys.stderr,
        )
        return 2
    from generator.table import TableError, load

    try:
        table = load(args.table)
    except TableError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        count = len(exc.problems)
        print(f"{count} problem{'s' * (count != 1)} in {args.table}; nothing was written.", file=sys.stderr)
        return 1
    if args.subcommand == "check":
        print(
            f"{args.table}: {len(table.renames)} renames, {len(table.libraries)} libraries, {len(table.releases)} releases: ok"
        )
        return 0
    if args.subcommand == "matrix":
        from generator.measure import matrix

        return matrix.command(table, args.table, args.data, check=args.check)
    return _render(table, args.docs, check=args.check)


def _render(table: Table, docs: Path, *, check: bool) -> int:
    from generator.pages import render

    try:
        pages = render.render_pages(table)
    except render.RenderError as exc:
        print(exc, file=sys.stderr)
        print("nothing was written.", file=sys.stderr)
        return 1
    if check:
        stale = render.stale_pages(pages, docs)
        for path in stale:
            print(f"{path}: stale; run `python -m generator render`", file=sys.stderr)
        return 1 if stale else 0
    changed = render.write_pages(pages, docs)
    for path in changed:
        print(f"wrote {path}")
    print(f"{len(changed)} of {len(pages)} pages changed.")
    return 0
