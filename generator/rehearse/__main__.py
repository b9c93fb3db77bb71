"""`python -m generator.rehearse -- CMD [ARGS...]`: the `rehearse` subcommand on its own.

Same options and exit codes as `checkpointing-migrate rehearse` (see `generator.rehearse.cli`).
"""

from __future__ import annotations

import argparse
import sys

from generator.rehearse import cli


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.rehearse", description=cli.__doc__.splitlines()[0])
    cli.add_arguments(parser)
    return cli.run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
