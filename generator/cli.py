"""`python -m generator`: the maintainers' command line (check, render, matrix, adoption, audit, refresh).

It works on a checkout with the `site`/`measure` extras. Exit codes: 0 done, 1 problems found (see each subcommand's
help), 2 usage error, a table with problems (as the tool's) or an error no command expected; problems go to stderr as
`PATH:LINE:COL: message`. Users' command line is the migration tool's: `checkpointing-migrate` (`scan`, `fix`, …).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from checkpointing_migrate.cli import Command, dispatch, parser
from generator import paths
from generator.problems import GeneratorError

if TYPE_CHECKING:
    from checkpointing_migrate.table import Table

COMMANDS = (
    Command("check", "validate the alias table and report every problem", __name__, "check", "table_options", True),
    Command(
        "render",
        "write the generated pages under docs/generated/ that changed",
        __name__,
        "render",
        "render_options",
        True,
    ),
    Command(
        "matrix",
        "probe every listed release and record the outcomes under data/",
        __name__,
        "matrix",
        "matrix_options",
        True,
    ),
    Command(
        "adoption",
        "scan the released libraries for the old names and record data/adoption.json",
        "generator.measure.adoption",
        "run",
        "add_arguments",
        True,
    ),
    Command(
        "audit",
        "prove the table complete for every listed transformers release",
        "generator.measure.audit",
        "run",
        "add_arguments",
        True,
    ),
    Command(
        "refresh",
        "find, measure and (with --write) record newer releases",
        __name__,
        "refresh",
        "refresh_options",
        True,
    ),
)
"""The maintainers' subcommands, in the order `--help` lists them (the registry the tool's parser reads too)."""

PROG = "python -m generator"
"""How the maintainers' command line is run."""


def table_options(sub: argparse.ArgumentParser) -> None:
    """`check`: the table to validate."""
    sub.add_argument("--table", type=Path, default=paths.TABLE_PATH, help="the alias table (default: %(default)s)")


def render_options(sub: argparse.ArgumentParser) -> None:
    table_options(sub)
    sub.add_argument("--check", action="store_true", help="write nothing; exit 1 and name the pages that are stale")
    sub.add_argument("--docs", type=Path, default=paths.DOCS_DIR, help="the docs folder (default: %(default)s)")


def matrix_options(sub: argparse.ArgumentParser) -> None:
    table_options(sub)
    sub.add_argument(
        "--check", action="store_true", help="write nothing; measure again and exit 1 with a diff on any difference"
    )
    sub.add_argument("--data", type=Path, default=paths.DATA_DIR, help="the data folder (default: %(default)s)")


def refresh_options(sub: argparse.ArgumentParser) -> None:
    from generator.measure import refresh

    refresh.add_arguments(sub)


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default: the process's) and returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    description = __doc__.splitlines()[0]
    args = parser(argv, COMMANDS, prog=PROG, description=description).parse_args(argv)
    try:
        return dispatch(args, COMMANDS)
    except GeneratorError as exc:  # one a command did not expect: still a message, never a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _table(args: argparse.Namespace) -> Table | int:
    from checkpointing_migrate.table import load_table_or_report

    return load_table_or_report(args.table)


def check(args: argparse.Namespace) -> int:
    """`check`: the table validated, every problem reported."""
    table = _table(args)
    if isinstance(table, int):
        return table
    print(
        f"{args.table}: {len(table.renames)} renames, {len(table.libraries)} libraries, {len(table.releases)} releases: ok"
    )
    return 0


def matrix(args: argparse.Namespace) -> int:
    """`matrix`: every listed release probed, the outcomes recorded (or compared, with --check)."""
    table = _table(args)
    if isinstance(table, int):
        return table
    from generator.measure import matrix

    return matrix.command(table, args.table, args.data, check=args.check)


def render(args: argparse.Namespace) -> int:
    """`render`: the generated pages that changed written (or named, with --check)."""
    table = _table(args)
    if isinstance(table, int):
        return table
    return _render(table, args.table, args.docs, check=args.check)


def _render(table: Table, source: Path, docs: Path, *, check: bool) -> int:
    from generator.pages import render

    try:
        pages = render.render_pages(table, source=source)
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


def refresh(args: argparse.Namespace) -> int:
    """`refresh`: the report, and with --write its plan applied in one transaction: table and data written, then the
    pages rendered from them; when anything fails, every file written gets its old bytes back."""
    from checkpointing_migrate import writing
    from checkpointing_migrate.table import load
    from generator.measure import refresh
    from generator.pages import render

    code, outputs = refresh.run(args)
    if not outputs:
        return code
    try:
        with writing.transaction() as files:
            written = files.write_if_changed(outputs)
            pages = render.render_pages(load(args.table), source=args.table)
            written += files.write_if_changed(render.page_files(pages, paths.DOCS_DIR))
    except Exception as exc:  # noqa: BLE001 - whatever failed, the transaction put every file back as it was
        print(f"error: writing failed, every file restored: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(paths.ROOT) if path.is_relative_to(paths.ROOT) else path}", file=sys.stderr)
    return code
