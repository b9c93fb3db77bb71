"""The migration guide's sections that the tool's findings link to: each heading, once, and the anchor derived from it.

The guide's template writes these headings and the tool prints links to their anchors, read from the file `render`
writes beside the pages (`guide-sections.json`, bundled into the wheel): a renamed heading moves its link with it.
A key is what `checkpointing_migrate.codes.Code.section` names; the anchor is MkDocs' slug of the heading.
"""

from __future__ import annotations

import json

from markdown.extensions.toc import slugify

from checkpointing_migrate.paths import GUIDE_SECTIONS_NAME
from checkpointing_migrate.table import Table

TITLES = {
    "script": "Training scripts",
    "config": "Configs and command lines",
    "model": "Custom models and remote code",
    "library": "Libraries that call these names",
    "pitfalls": "Pitfalls of the {since} implementation",
}
"""Section key → its heading in the guide; `{since}` is the release that shipped transformers' renames."""

FILE_NAME = GUIDE_SECTIONS_NAME
"""The anchors' file, under `docs/generated/` beside the guide."""


def first_since(table: Table) -> dict[str, str]:
    """Library → the first release that shipped one of its renames (a removed row was shipped before)."""
    return {library: str(table.first_since(library)) for library in table.libraries_with_rows(shipped=True)}


def titles(table: Table) -> dict[str, str]:
    """Section key → its heading, as the guide writes it."""
    since = first_since(table)["transformers"]
    return {key: title.format(since=since) for key, title in TITLES.items()}


def anchor(title: str) -> str:
    """The anchor MkDocs gives the heading `title` (its `toc` extension's default slug; code marks dropped)."""
    return slugify(title.replace("`", ""), "-")


def anchors(table: Table) -> dict[str, str]:
    """Section key → the anchor of its heading in the guide."""
    return {key: anchor(title) for key, title in titles(table).items()}


def anchors_file(table: Table) -> str:
    """The text of `guide-sections.json`: the tool reads it to link each finding to its section."""
    return json.dumps(anchors(table), indent=1) + "\n"
