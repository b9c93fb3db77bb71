"""Where the repository's files live: defined once, imported by every module of the site generator that reads them.

The site generator runs only from a checkout, so every path is inside the repository; the file names the migration
tool also reads come from `checkpointing_migrate.paths`. Kept free of other imports.
"""

from __future__ import annotations

from pathlib import Path

from checkpointing_migrate.paths import TABLE_NAME, TRAINING_ARGUMENTS_NAME

PACKAGE = Path(__file__).resolve().parent
"""The `generator` package folder."""

ROOT = PACKAGE.parent
"""The repository root."""

TABLE_PATH = ROOT / TABLE_NAME
"""The alias table."""

TEMPLATES_DIR = ROOT / "templates"
"""The Jinja2 templates of the generated pages."""

DOCS_DIR = ROOT / "docs"
"""The site's pages; the generator writes under `docs/generated/`."""

DATA_DIR = ROOT / "data"
"""Measured data, committed: the version matrix, downstream warnings, adoption, `TrainingArguments` fields."""

TRAINING_ARGUMENTS_PATH = DATA_DIR / TRAINING_ARGUMENTS_NAME
"""Subclasses of the training-arguments class and the keys a training config may hold, measured from wheels."""

CACHE_DIR = ROOT / ".cache"
"""Downloaded releases and built environments (git-ignored), each checked by sha256 where it came from a registry."""
