"""Typed loaders of the measured data in `data/`: what the pages read, without loading anything that measures.

`generator.measure.matrix` writes `matrix.json` and `downstream-warnings.json`; this module reads them back, and
names the file and the position of anything missing or malformed.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from packaging.version import Version

from generator.paths import DATA_DIR
from generator.table import Rename

MATRIX_FILE = "matrix.json"
DOWNSTREAM_FILE = "downstream-warnings.json"

PARSE_DICT_EXTRA = "parse_dict(allow_extra_keys=True)"
"""The scenario of a config key passed to `HfArgumentParser.parse_dict` with `allow_extra_keys=True`."""


class MatrixError(Exception):
    """Measuring failed, or the recorded data cannot be read; the message says what to do."""


def row_key(row: Rename) -> dict[str, str]:
    """The fields that identify a row across table edits that do not rename anything."""
    return {"library": row.library, "kind": row.kind, "owner": row.owner, "old": row.old, "new": row.new}


def read(path: Path) -> dict[str, Any]:
    """A data file, or `MatrixError` with `PATH:LINE:COL` when it is missing or not valid JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MatrixError(f"{path}:1:1: missing; run `python -m generator matrix` to measure it") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MatrixError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); run `python -m generator matrix` to measure it again"
        ) from None
    if not isinstance(data, dict):
        raise MatrixError(f"{path}:1:1: expected a JSON object; run `python -m generator matrix` to measure it again")
    return data


@dataclasses.dataclass(frozen=True)
class Measured:
    """The recorded outcomes, as the pages use them."""

    releases: dict[str, list[str]]
    """Per library, the measured releases, oldest first."""
    outcomes: dict[tuple[str, str], list[dict[str, Any]]]
    """(library, release) → outcomes in probe order."""
    versions: dict[tuple[str, str], dict[str, str]]
    """(library, release) → the versions of transformers, torch (and the library) that answered."""
    downstream: dict[str, Any]
    """The content of `data/downstream-warnings.json`."""

    def of_row(self, library: str, release: str, key: dict[str, str]) -> list[dict[str, Any]]:
        """The outcomes of one row in one release (empty when the row was not measured)."""
        return [o for o in self.outcomes.get((library, release), []) if o["row"] == key]


def load_measured(data_dir: Path = DATA_DIR) -> Measured:
    """Both data files; `MatrixError` names the file and position when one is missing or malformed."""
    matrix, downstream = read(data_dir / MATRIX_FILE), read(data_dir / DOWNSTREAM_FILE)
    releases: dict[str, list[str]] = {}
    outcomes, versions = {}, {}
    try:
        for entry in matrix["releases"]:
            key = (entry["library"], entry["release"])
            releases.setdefault(entry["library"], []).append(entry["release"])
            outcomes[key], versions[key] = entry["outcomes"], entry["versions"]
        downstream["entries"], downstream["versions"]
    except (KeyError, TypeError) as exc:
        raise MatrixError(
            f"{data_dir}: a data file lacks {exc}; run `python -m generator matrix` to measure it again"
        ) from None
    for versions_of_library in releases.values():
        versions_of_library.sort(key=Version)
    return Measured(releases, outcomes, versions, downstream)


# --- The adoption scan (data/adoption.json, written by `python -m generator.measure.adoption`) ---

ADOPTION_PATH = DATA_DIR / "adoption.json"

EFFECTS = {
    "warns": "emits a deprecation warning (the message measured for this use is shown)",
    "raises": "raises on the newest release (measured for this use)",
    "overrides": "overrides the old method: stays the entry point until the old name is removed, warns when it calls up",
    "silent": "silent: reads the mirrored old field, or refers to the old method without calling it",
    "lost-write": "write that no longer takes effect (the Trainer reads the new field)",
    "dead": "only runs on transformers releases older than the rename",
    "not-deprecated": "a name that is not deprecated (per-module flag, another library's own name, a planned rename)",
}
"""Effect → what it means, in the order the report lists them."""


class AdoptionDataError(ValueError):
    """The committed adoption data is missing or unreadable; the message starts with `PATH:1:1:`."""


def load_adoption(path: Path = ADOPTION_PATH) -> dict[str, object]:
    """The committed adoption data; raises `AdoptionDataError`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except FileNotFoundError:
        raise AdoptionDataError(
            f"{path}:1:1: missing; run `python -m generator.measure.adoption` to measure it"
        ) from None
    except (OSError, ValueError) as exc:
        raise AdoptionDataError(f"{path}:1:1: cannot read: {exc}; run `python -m generator.measure.adoption`") from None
