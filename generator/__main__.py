"""`python -m generator …`: the same command line as the `checkpointing-migrate` console script.

The parser lives in `generator.cli`; this module only runs it and exits with its code.
"""

from generator.cli import run

if __name__ == "__main__":
    run()
