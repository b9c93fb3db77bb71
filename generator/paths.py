"""Where the project's files live: defined once, imported by every module that reads or writes them.

In a checkout the table and the data are the repository's own files. An installed wheel carries copies of the
two files the migration tool reads (`pyproject.toml` maps them into `generator/_bundled/` at build time), so the
tool needs no checkout. Kept free of other imports: the command line names its defaults without loading anything.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The `generator` package folder."""

ROOT = PACKAGE.parent
"""The repository root (in a checkout, or an editable install of one)."""

BUNDLED_DIR = PACKAGE / "_bundled"
"""The table and the measured class data inside an installed wheel; absent in a checkout."""

IN_CHECKOUT = not BUNDLED_DIR.is_dir()
"""True when running from the repository (the pages, templates and measuring code have their files)."""

TABLE_PATH = ROOT / "aliases.yaml" if IN_CHECKOUT else BUNDLED_DIR / "aliases.yaml"
"""The alias table."""

TEMPLATES_DIR = ROOT / "templates"
"""The Jinja2 templates of the generated pages."""

DOCS_DIR = ROOT / "docs"
"""The site's pages; the generator writes under `docs/generated/`."""

DATA_DIR = ROOT / "data"
"""Measured data, committed: the version matrix, downstream warnings, adoption, `TrainingArguments` fields."""

TRAINING_ARGUMENTS_PATH = (DATA_DIR if IN_CHECKOUT else BUNDLED_DIR) / "training-arguments.json"
"""Subclasses of the training-arguments class and the keys a training config may hold, measured from wheels."""

CACHE_DIR = ROOT / ".cache"
"""Downloaded releases and built environments (git-ignored), each checked by sha256 where it came from a registry."""
