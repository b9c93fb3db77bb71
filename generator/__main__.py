"""`python -m generator …`: the same command line as the `checkpointing-migrate` console script."""

import sys

from generator.cli import main

if __name__ == "__main__":
    sys.exit(main())
