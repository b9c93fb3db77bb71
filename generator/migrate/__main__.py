"""`python -m generator.migrate scan|fix ...`: the same commands as `python -m generator scan|fix`, importing less.

`python -m generator` also loads the page renderer and its templates engine; this entry point loads only the
migration tool, which matters when it runs as a pre-commit hook on every commit.
"""

from __future__ import annotations

import argparse
import sys

from generator.migrate import cli
from generator.paths import ROOT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.migrate", description=cli.__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scan = commands.add_parser("scan", help="report uses of the renamed names")
    fix = commands.add_parser("fix", help="rewrite what is safe to rewrite (a diff, or in place with --write)")
    cli.add_arguments(scan, fix, ROOT / "aliases.yaml")
    args = parser.parse_args(argv)
    return cli.scan(args) if args.command == "scan" else cli.fix(args)


if __name__ == "__main__":
    sys.exit(main())
