"""`python -m generator …`: the maintainers' command line (`generator.cli`); this module only runs it.

Users' command line is the migration tool's console script, `checkpointing-migrate`.
"""

import sys

from generator.cli import main

if __name__ == "__main__":
    sys.exit(main())
