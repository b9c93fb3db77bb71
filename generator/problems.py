"""The site generator's exception base: every error it raises on purpose is a `GeneratorError`, itself the tool's
`ToolError` (one base for both packages). The message says what is wrong and how to fix it (`PATH:LINE:COL: …` where
there is a place); `python -m generator` turns any `GeneratorError` no command expects into one line on stderr and
exit 2, never a traceback. A problem with a position is the table's `checkpointing_migrate.table.Problem`.
"""

from __future__ import annotations

from checkpointing_migrate.located import ToolError


class GeneratorError(ToolError):
    """Something the site generator cannot do, said so that a maintainer can act on it."""
