"""Command line: `python -m generator check|render|matrix [--table PATH] [--check]`, `scan|fix PATH...` (the migration tool), `audit`, `refresh`.

Exit codes: 0 done, 1 the table has problems, (with `render --check`) pages are stale or (with `matrix --check`) the
measured data differs, 2 usage errors.
Problems go to stderr as `PATH:LINE:COL: message`, one per line, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.paths import DATA_DIR, DOCS_DIR, TABLE_PATH

# The subcommands' modules are imported only by the subcommand that runs: `scan` should not pay for Jinja2 and the
# renderer, nor `render` for the migration tool.


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="validate the alias table and report every problem")
    rend = commands.add_parser("render", help="write the generated pages under docs/generated/ that changed")
    for sub in (check, rend):
        sub.add_argument("--table", type=Path, default=TABLE_PATH, help="the alias table (default: %(default)s)")
    rend.add_argument("--check", action="store_true", help="write nothing; exit 1 and name the pages that are stale")
    rend.add_argument("--docs", type=Path, default=DOCS_DIR, help="the docs folder (default: %(default)s)")
    scan = commands.add_parser("scan", help="report uses of the renamed names in code, notebooks, configs, scripts, Markdown")
    fix = commands.add_parser("fix", help="rewrite what is safe to rewrite (a diff, or in place with --write)")
    from generator.migrate import cli as migrate_cli

    migrate_cli.add_arguments(scan, fix, TABLE_PATH)
    mat = commands.add_parser("matrix", help="probe every listed release and record the outcomes under data/")
    mat.add_argument("--table", type=Path, default=TABLE_PATH, help="the alias table (default: %(default)s)")
    mat.add_argument("--check", action="store_true", help="write nothing; measure again and exit 1 with a diff on any difference")
    mat.add_argument("--data", type=Path, default=DATA_DIR, help="the data folder (default: %(default)s)")
    from generator.measure import audit, refresh

    audit.add_arguments(commands.add_parser("audit", help="prove the table complete for every listed transformers release"))
    refresh.add_arguments(commands.add_parser("refresh", help="find, measure and (with --write) record newer releases"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command in ("scan", "fix"):
        from generator.migrate import cli as migrate_cli

        return migrate_cli.scan(args) if args.command == "scan" else migrate_cli.fix(args)
    if args.command in ("audit", "refresh"):
        import importlib

        return int(importlib.import_module(f"generator.measure.{args.command}").run(args))
    from generator.table import TableError, load

    try:
        table = load(args.table)
    except TableError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        count = len(exc.problems)
        print(f"{count} problem{'s' * (count != 1)} in {args.table}; nothing was written.", file=sys.stderr)
        return 1
    if args.command == "check":
        print(f"{args.table}: {len(table.renames)} renames, {len(table.libraries)} libraries, {len(table.releases)} releases: ok")
        return 0
    if args.command == "matrix":
        from generator.measure import matrix

        return matrix.command(table, args.table, args.data, check=args.check)

    from generator.pages import render

    try:
        pages = render.render_pages(table)
    except render.RenderError as exc:
        print(exc, file=sys.stderr)
        print("nothing was written.", file=sys.stderr)
        return 1
    if args.check:
        stale = render.stale_pages(pages, args.docs)
        for path in stale:
            print(f"{path}: stale; run `python -m generator render`", file=sys.stderr)
        return 1 if stale else 0
    changed = render.write_pages(pages, args.docs)
    for path in changed:
        print(f"wrote {path}")
    print(f"{len(changed)} of {len(pages)} pages changed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
