"""Where the tool's data files live: the alias table and its frozen form, the measured data and the guide's anchors.

An installed wheel carries copies of them (`pyproject.toml` maps them into `checkpointing_migrate/_bundled/` at build
time); run from a checkout of the repository, the tool reads the repository's own files. Kept free of other imports:
the command line names its defaults without loading anything.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The `checkpointing_migrate` package folder."""

BUNDLED_DIR = PACKAGE / "_bundled"
"""The table and the measured class data inside an installed wheel; absent in a checkout."""

IN_CHECKOUT = not BUNDLED_DIR.is_dir()
"""True when running from the repository (no bundled copies: the files are the repository's own)."""

TABLE_NAME = "aliases.yaml"
"""The alias table's file name, at the repository root."""

TRAINING_ARGUMENTS_NAME = "training-arguments.json"
"""The measured `TrainingArguments` data's file name, under the repository's `data/`."""

TABLE_PATH = PACKAGE.parent / TABLE_NAME if IN_CHECKOUT else BUNDLED_DIR / TABLE_NAME
"""The alias table the tool reads."""

TRAINING_ARGUMENTS_PATH = (PACKAGE.parent / "data" if IN_CHECKOUT else BUNDLED_DIR) / TRAINING_ARGUMENTS_NAME
"""Subclasses of the training-arguments class and the keys a training config may hold, measured from wheels."""

FROZEN_TABLE_NAME = "aliases-frozen.json"
"""The alias table's frozen form (`table.freeze`: validated, read without PyYAML), written by `python -m generator
render` beside the pages."""

FROZEN_TABLE_PATH = (PACKAGE.parent / "docs" / "generated" if IN_CHECKOUT else BUNDLED_DIR) / FROZEN_TABLE_NAME
"""The frozen form `table.load` reads when it was made from the table's text (else it reads the YAML)."""

GUIDE_SECTIONS_NAME = "guide-sections.json"
"""The anchors of the guide's sections that findings link to, written by `python -m generator render` beside the pages."""

GUIDE_SECTIONS_PATH = (PACKAGE.parent / "docs" / "generated" if IN_CHECKOUT else BUNDLED_DIR) / GUIDE_SECTIONS_NAME
"""Section key → its anchor in the migration guide (`generator.pages.guide_sections` derives them from the headings)."""
