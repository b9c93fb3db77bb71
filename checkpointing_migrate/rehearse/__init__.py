"""Rehearse v6: run a project's tests or scripts as if the table's planned removals had happened.

`preview` derives the removals from the shipped rows of `aliases.yaml` that name a `removal` and patches the
installed transformers in memory (undone on exit); `plugin` is the pytest plugin (`--v6-preview`); `cli` is the
`rehearse -- CMD` subcommand; `startup/` holds the `sitecustomize` bootstrap it puts on Python subprocesses' path.
"""

ENV_VAR = "CHECKPOINTING_V6_PREVIEW"
"""Set to `1` to run under the preview: read by the pytest plugin, `rehearse` and the `sitecustomize` bootstrap."""
