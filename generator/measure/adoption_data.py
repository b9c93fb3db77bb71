"""Typed loader of `data/adoption.json`, the adoption scan's data: what the adoption report page reads.

`python -m generator adoption` writes the file from these frozen dataclasses; `load_adoption` reads it back,
and names the file and the JSON path of anything missing or malformed (`PATH:LINE:COL: ...`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from checkpointing_migrate.records import DocumentError, load
from generator.paths import DATA_DIR
from generator.problems import GeneratorError

ADOPTION_PATH = DATA_DIR / "adoption.json"
ADOPTION_COMMAND = "python -m generator adoption"
"""The command that writes the file: every loading error says to run it."""

Effect = Literal["warns", "raises", "overrides", "silent", "lost-write", "dead", "not-deprecated"]
"""What a use of an old name does on the newest measured release (the words `EFFECTS` explains)."""

EFFECTS: dict[Effect, str] = {
    "warns": "emits a deprecation warning (the message measured for this use is shown)",
    "raises": "raises on the newest release (measured for this use)",
    "overrides": "overrides the old method: stays the entry point until the old name is removed, warns when it calls up",
    "silent": "silent: reads the mirrored old field, or refers to the old method without calling it",
    "lost-write": "write that no longer takes effect (the Trainer reads the new field)",
    "dead": "only runs on transformers releases older than the rename",
    "not-deprecated": "a name that is not deprecated (per-module flag, another library's own name, a planned rename)",
}
"""Effect → what it means, in the order the report lists them."""


class AdoptionDataError(GeneratorError, ValueError):
    """The committed adoption data is missing or unreadable; the message starts with `PATH:LINE:COL:`."""


@dataclasses.dataclass(frozen=True)
class ScannedSite:
    """One use of an old name in a released package, with its measured effect."""

    file: str
    """Relative to the wheel's root, e.g. `peft/peft_model.py`."""
    line: int
    column: int
    old: str
    """The old name used."""
    code: str
    """The scanner's finding code, e.g. `call`, `read`, `override`."""
    effect: Effect
    """A key of `EFFECTS`."""
    warnings: tuple[str, ...]
    """`Category: message` of each warning the same use emitted on the newest measured release."""
    v6: str
    """The exception the use raises once the old name is removed; empty when it keeps running."""
    changes: str = ""
    """What silently behaves differently once the old name is removed (a default that no longer reaches
    transformers, a guard that now skips the code); empty when nothing does."""


@dataclasses.dataclass(frozen=True)
class ScannedLibrary:
    """One released package as scanned: the wheel, what it requires, and its uses of the old names."""

    library: str
    """The table's key for a table library, the PyPI name for the others."""
    pypi: str
    version: str
    category: str
    """What the package is, e.g. `RL trainer`; empty for the table's libraries."""
    wheel: str
    """The wheel's file name."""
    sha256: str
    requires_transformers: str
    """The specifier of its transformers requirement (with the extra's marker when only an extra requires it)."""
    requires: Mapping[str, str]
    """Name → specifier, for transformers, TRL, PEFT and Accelerate when the wheel requires them."""
    files: int
    """Python files scanned."""
    errors: tuple[str, ...]
    """`path:line: message` of each file the scanner could not read."""
    sites: tuple[ScannedSite, ...]
    """The uses whose effect is not `not-deprecated`, in file order."""
    not_deprecated: Mapping[str, int]
    """Old name → occurrences that use a name which is not deprecated."""


@dataclasses.dataclass(frozen=True)
class MeasuredWith:
    """The transformers releases of `data/matrix.json` the effects were taken from."""

    newest: str
    """The newest measured release: what each use emits today."""
    before: str
    """The last release before the rename: what a use of a missing name raises."""


@dataclasses.dataclass(frozen=True)
class NotScanned:
    """A library of the naming comparison that the report does not scan, and why (read from the registry)."""

    library: str
    """Its key in the table."""
    release: str
    """The release whose declared requirements were read."""
    requires_transformers: tuple[str, ...]
    """Its `Requires-Dist` entries for transformers, as declared (empty: it does not require transformers at all)."""
    reason: str


@dataclasses.dataclass(frozen=True)
class Adoption:
    """The content of `data/adoption.json`."""

    python_version: str
    """The Python version the wheels were picked for (the wheel `pip download --python-version` would take)."""
    measured_with: MeasuredWith
    libraries: tuple[ScannedLibrary, ...]
    """The table's libraries first, then the other packages, in the order scanned."""
    not_scanned: tuple[NotScanned, ...] = ()
    """The naming comparison's other libraries: none may use transformers on a release with the new names."""


def load_adoption(path: Path = ADOPTION_PATH) -> Adoption:
    """The committed adoption data; `AdoptionDataError` names the file and every JSON path that is malformed."""
    try:
        return load(path, Adoption)
    except DocumentError as exc:
        raise AdoptionDataError(exc.report(ADOPTION_COMMAND)) from None
