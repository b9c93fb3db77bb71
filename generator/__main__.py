"""`python -m generator …`: the same command line as the `checkpointing-migrate` console script.

The parser lives in `generator.cli`; this module only runs it and exits with its code.
"""

import sys

from generator.cli import main

if __name__ == "__main__":
    sys.exit(main())
