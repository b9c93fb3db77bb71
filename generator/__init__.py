"""The site generator of the `gradient_checkpointing*` → `activation_checkpointing*` rename (repository only).

`pages` renders the site from the alias table and the measured data; `measure` measures the releases (matrix,
downstream warnings, adoption, refresh, audit); `oldnames` writes the old-name Before tabs. The table itself, its
loader and the migration tool are the `checkpointing_migrate` package, which this one imports and never the reverse.
"""
