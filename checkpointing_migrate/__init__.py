"""checkpointing-migrate: find and fix the rename `gradient_checkpointing*` → `activation_checkpointing*`.

`table` reads the alias table; `rules` derives the rules from it; a handler per file kind (`python`, `notebook`,
`yaml_json`, `shell`, `markdown`) returns hits; `files` and `run` turn them into findings and edits; `plan` writes
all files or none; `codes` is the finding-code registry; `cli` and `commands` are the command line; `rehearse` the v6 preview.
"""

NAME = "checkpointing-migrate"
"""The distribution and its console script (`[project] name` and `[project.scripts]` in pyproject.toml)."""
