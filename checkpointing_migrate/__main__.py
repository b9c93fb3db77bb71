"""`python -m checkpointing_migrate …`: the same command line as the `checkpointing-migrate` console script.

The parser lives in `checkpointing_migrate.cli`; this module only runs it and exits with its code.
"""

from checkpointing_migrate.cli import run

if __name__ == "__main__":
    run()
