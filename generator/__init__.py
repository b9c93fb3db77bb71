"""Render the `gradient_checkpointing*` → `activation_checkpointing*` migration site from one alias table.

`aliases.yaml` is read and validated by [`generator.table`][], turned into Markdown pages by
[`generator.pages.render`][], and re-rendered on every `mkdocs serve` build by `generator/pages/hook.py`.
"""
