"""Where the project's files live: defined once, imported by every module that reads or writes them.

Kept free of other imports, so the command line can name its defaults without loading the renderer, the
measuring code or the migration tool (`python -m generator scan` should start as fast as a linter).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository root."""

TABLE_PATH = ROOT / "aliases.yaml"
"""The alias table."""

TEMPLATES_DIR = ROOT / "templates"
"""The Jinja2 templates of the generated pages."""

DOCS_DIR = ROOT / "docs"
"""The site's pages; the generator writes under `docs/generated/`."""

DATA_DIR = ROOT / "data"
"""Measured data, committed: the version matrix, downstream warnings, adoption, `TrainingArguments` fields."""
