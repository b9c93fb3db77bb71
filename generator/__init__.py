"""The `gradient_checkpointing*` → `activation_checkpointing*` rename: one alias table, its site and its tools.

`aliases.yaml` is read and validated by [`generator.table`][]; `pages` renders the site, `measure` measures the
releases, `migrate` fixes users' code and `rehearse` runs it as if the old names were gone.
"""

NAME = "checkpointing-migrate"
"""The distribution and its console script (`[project] name` and `[project.scripts]` in pyproject.toml)."""
