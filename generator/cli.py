"""`python -m generator`: the maintainers' command line (check, render, matrix, adoption, audit, refresh).

It works on a checkout (the table, the templates, the pages, the measured data) with the `site`/`measure` extras.
Exit codes: 0 done, 1 problems found (see each subcommand's help), 2 usage error; problems go to stderr as
`PATH:LINE:COL: message`. Users' command line is the migration tool's: `checkpointing-migrate` (`scan`, `fix`, …).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from checkpointing_migrate.cli import parser
from generator import paths

if TYPE_CHECKING:
    from checkpointing_migrate.table import Table

SUBCOMMANDS = {
    "check": "validate the alias table and report every problem",
    "render": "write the generated pages under docs/generated/ that changed",
    "matrix": "probe every listed release and record the outcomes under data/",
    "adoption": "scan the released libraries for the old names and record data/adoption.json",
    "audit": "prove the table complete for every listed transformers release",
    "refresh": "find, measure and (with --write) record newer releases",
}
"""Every subcommand and its one-line help."""

PROG = "python -m generator"
"""How the maintainers' command line is run."""


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
    """The function that adds `name`'s options, importing only that subcommand's module."""
    if name == "adoption":
        from generator.measure import adoption

        return adoption.add_arguments
    if name in ("audit", "refresh"):
        from generator.measure import audit, refresh

        return (audit if name == "audit" else refresh).add_arguments
    return {"check": _table_options, "render": _render_options, "matrix": _matrix_options}[name]


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default: the process's) and returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    description = __doc__.splitlines()[0]
    args = parser(argv, SUBCOMMANDS, _options, prog=PROG, description=description).parse_args(argv)
    if args.subcommand == "adoption":
        from generator.measure import adoption

        return adoption.run(args)
    if args.subcommand == "audit":
        from generator.measure import audit

        return audit.run(args)
    if args.subcommand == "refresh":
        return _refresh(args)
    from checkpointing_migrate.table import TableError, load

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


def _refresh(args: argparse.Namespace) -> int:
    """`refresh`: the report, and with --write its plan applied: table and data written all or none, then the pages
    rendered from them; when rendering fails, the table and data get their old bytes back."""
    from checkpointing_migrate import writing
    from checkpointing_migrate.table import load
    from generator.measure import refresh
    from generator.pages import render

    code, outputs = refresh.run(args)
    if not outputs:
        return code
    before = {path: path.read_bytes() for path in outputs if path.is_file()}
    try:
        written = writing.write_if_changed(outputs)
        written += render.write_pages(render.render_pages(load(args.table)), paths.DOCS_DIR)
    except Exception as exc:  # noqa: BLE001 - whatever failed, the table and data are put back as they were
        for path in outputs:
            if path in before:
                writing.atomic_write(path, before[path])
            else:
                path.unlink(missing_ok=True)
        print(f"error: writing failed, every file restored: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(paths.ROOT) if path.is_relative_to(paths.ROOT) else path}", file=sys.stderr)
    return code
