"""`checkpointing-migrate` (also `python -m generator`): the one command line of the project.

`scan`, `fix`, `rules` and `explain` migrate users' code and need only PyYAML and packaging; `check`, `render` and `matrix` work on the
table, the pages and the measured data of a checkout and need the `site`/`measure` extras. Each subcommand imports
only its own modules, so `scan` starts as fast as a linter. Exit codes: 0 done, 1 problems found (see each
subcommand's help), 2 usage errors; problems go to stderr as `PATH:LINE:COL: message`, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from generator import paths

if TYPE_CHECKING:
    from generator.table import Table

_MIGRATE = ("scan", "fix", "rules", "explain")
"""The subcommands of the migration tool: each is the function of that name in `generator.migrate.cli`."""

PROG = "checkpointing-migrate"
"""The console script's name (`[project.scripts]` in pyproject.toml); `python -m generator` runs the same parser."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="subcommand", required=True, metavar="COMMAND")
    scan = commands.add_parser("scan", help="report uses of the renamed names in code, notebooks, configs, scripts, Markdown")
    fix = commands.add_parser("fix", help="rewrite what is safe to rewrite (a diff, or in place with --write)")
    from generator.migrate import cli as migrate_cli

    migrate_cli.add_arguments(scan, fix, paths.TABLE_PATH)
    migrate_cli.add_rules_arguments(commands.add_parser("rules", help="list every finding code: code, severity, effect, summary"))
    migrate_cli.add_explain_arguments(commands.add_parser("explain", help="what a finding code means, with an example"))

    from generator.rehearse import cli as rehearse_cli

    rehearse_cli.add_arguments(commands.add_parser("rehearse", help="run a command as if the old names were gone (the table's v6 plan)"))

    check = commands.add_parser("check", help="validate the alias table and report every problem")
    rend = commands.add_parser("render", help="write the generated pages under docs/generated/ that changed")
    mat = commands.add_parser("matrix", help="probe every listed release and record the outcomes under data/")
    for sub in (check, rend, mat):
        sub.add_argument("--table", type=Path, default=paths.TABLE_PATH, help="the alias table (default: %(default)s)")
    rend.add_argument("--check", action="store_true", help="write nothing; exit 1 and name the pages that are stale")
    rend.add_argument("--docs", type=Path, default=paths.DOCS_DIR, help="the docs folder (default: %(default)s)")
    mat.add_argument("--check", action="store_true", help="write nothing; measure again and exit 1 with a diff on any difference")
    mat.add_argument("--data", type=Path, default=paths.DATA_DIR, help="the data folder (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.subcommand in _MIGRATE:
        from generator.migrate import cli as migrate_cli

        return getattr(migrate_cli, args.subcommand)(args)  # type: ignore[no-any-return]
    if args.subcommand == "rehearse":
        from generator.rehearse import cli as rehearse_cli

        return rehearse_cli.run(args)
    if not paths.IN_CHECKOUT and args.subcommand in ("render", "matrix"):
        print(f"error: `{args.subcommand}` works on a checkout of the project (its templates, docs and data); "
              "run it there, after `make setup`", file=sys.stderr)
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
        print(f"{args.table}: {len(table.renames)} renames, {len(table.libraries)} libraries, {len(table.releases)} releases: ok")
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
