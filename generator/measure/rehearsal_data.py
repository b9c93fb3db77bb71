"""Typed loader of `data/rehearsal.json`: scanned packages' own tests run today and under `pytest --v6-preview`.

`benchmarks/rehearsal.py` writes the file from these frozen dataclasses (the measured v6 impact); the adoption report
reads it back through `load_rehearsal`, which names the file and the JSON path of anything malformed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

from checkpointing_migrate.records import DocumentError, load
from generator.paths import DATA_DIR
from generator.problems import GeneratorError

REHEARSAL_PATH = DATA_DIR / "rehearsal.json"
REHEARSAL_COMMAND = "python benchmarks/rehearsal.py"
"""The command that writes the file: every loading error says to run it."""

Outcome = Literal["passed", "failed", "error", "skipped"]

Reason = Literal["", "removed-name", "type-error", "assertion", "deprecation-warning", "unrelated"]
"""Why a test did not pass, from its first error line: an AttributeError naming a name the preview removed, a
TypeError, an assertion on behaviour, a deprecation warning turned into an error by the project's filters, or
something else; empty when it passed or was skipped."""

REASONS: dict[Reason, str] = {
    "removed-name": "AttributeError of a removed name",
    "type-error": "TypeError",
    "assertion": "an assertion on behaviour",
    "deprecation-warning": "a deprecation warning of an old name, an error under the project's warning filters",
    "unrelated": "unrelated to the rename",
}


class RehearsalDataError(GeneratorError, ValueError):
    """The committed rehearsal data is missing or unreadable; the message starts with `PATH:LINE:COL:`."""


@dataclasses.dataclass(frozen=True)
class RunOutcome:
    """One test's outcome in one session."""

    outcome: Outcome
    reason: Reason
    first_error: str
    """The first `E   ` line of the failure (empty when it passed or was skipped)."""
    where: str
    """`file:line` of the deepest traceback entry in the release: the package's own line that led to the error,
    relative to its import root (`peft/peft_model.py:10`) or else to the release (`tests/test_x.py:5`); the deepest
    entry of all when none is the release's (`torch/nn/modules/module.py:1967`); empty when it passed."""


@dataclasses.dataclass(frozen=True)
class RehearsedTest:
    """One test of a package: today, and under the v6 preview."""

    test: str
    """The pytest node id's class path and name (`tests.test_x::test_y`)."""
    today: RunOutcome
    preview: RunOutcome


@dataclasses.dataclass(frozen=True)
class RehearsedPackage:
    """One scanned package whose own tests run offline on CPU here."""

    package: str
    """The adoption report's key (the table's key or the PyPI name)."""
    version: str
    file: str
    """The release file the tests came from (pinned in benchmarks/realcode.json)."""
    sha256: str
    command: str
    """The pytest arguments, as run."""
    tests: tuple[RehearsedTest, ...]


@dataclasses.dataclass(frozen=True)
class Rehearsal:
    """The content of `data/rehearsal.json`."""

    transformers: str
    """The transformers release the tests ran on (today; the preview removes the table's planned names from it)."""
    packages: tuple[RehearsedPackage, ...]


def load_rehearsal(path: Path = REHEARSAL_PATH) -> Rehearsal:
    """The committed rehearsal data; `RehearsalDataError` names the file and every JSON path that is malformed."""
    try:
        return load(path, Rehearsal)
    except DocumentError as exc:
        raise RehearsalDataError(exc.report(REHEARSAL_COMMAND)) from None
