"""Measuring: what each listed release really does with the old and new names, recorded under `data/`.

`matrix`, `probes`, `downstream`, `adoption`, `audit`, `refresh`, `evidence` and `registry` measure (some need
torch and transformers); `data` is the typed loader of the committed `data/*.json` that the pages may read.
"""
