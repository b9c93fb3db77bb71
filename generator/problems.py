"""The site generator's one exception base: every error it raises on purpose is a `GeneratorError`.

The message says what is wrong and how to fix it (`PATH:LINE:COL: …` where there is a place); each command catches
the kinds it expects, and `python -m generator` turns any other `GeneratorError` into one line on stderr and exit 2,
never a traceback. A problem with a position is the table's `checkpointing_migrate.table.Problem`.
"""

from __future__ import annotations


class GeneratorError(Exception):
    """Something the site generator cannot do, said so that a maintainer can act on it."""
