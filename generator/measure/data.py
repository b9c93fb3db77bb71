"""Typed loaders of the measured data in `data/`: what the pages read, without loading anything that measures.

`generator.measure.matrix` writes `matrix.json`, `downstream-warnings.json`, `saved.json` and `wording.json`
from these frozen dataclasses (the last two defined by `saved` and `wording`, which measure them); this
module reads them back, and names the file and the JSON path of anything missing or malformed (`PATH:LINE:COL: ...`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from packaging.version import Version

from checkpointing_migrate.records import DocumentError, load
from checkpointing_migrate.table import Rename
from generator.paths import DATA_DIR
from generator.problems import GeneratorError

MATRIX_FILE = "matrix.json"
DOWNSTREAM_FILE = "downstream-warnings.json"
SAVED_FILE = "saved.json"
WORDING_FILE = "wording.json"
MEASURE_COMMAND = "python -m generator matrix"
"""The command that writes these files: every loading error says to run it."""

Uses = Literal["old", "new", "both"]
"""Which of a row's names a use used (`both`: both names in one use, with different values)."""
OutcomeWord = Literal["works", "warns", "raises", "absent"]
"""What a use did: `works` silently, `warns`, `raises`, or `absent` (the release has no such name)."""

T = TypeVar("T")


class MatrixError(GeneratorError):
    """Measuring failed, or the recorded data cannot be read; the message says what to do."""


# --- data/matrix.json ----------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RowKey:
    """The fields that identify a table row across table edits that do not rename anything."""

    library: str
    kind: str
    owner: str
    old: str
    new: str


def row_key(row: Rename) -> RowKey:
    """The key of a row of the table, as outcomes record it."""
    return RowKey(row.library, row.kind, row.owner, row.old, row.new)


@dataclasses.dataclass(frozen=True)
class RecordedWarning:
    """A warning as a release emitted it."""

    category: str
    """The warning class's name, e.g. `FutureWarning`."""
    message: str
    """Verbatim (a temporary folder's path replaced by `<tmp>`)."""


@dataclasses.dataclass(frozen=True)
class RaisedError:
    """An exception as a release raised it."""

    type: str
    """The exception class's name, e.g. `TypeError`."""
    message: str
    """Verbatim (for `SystemExit`, argparse's `error:` line)."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one use of a name did in one release."""

    row: RowKey
    scenario: str
    """How the name was used, e.g. `call on a fresh model`, `command line`."""
    uses: Uses
    outcome: OutcomeWord
    warnings: tuple[RecordedWarning, ...]
    """Each warning emitted during the use, in order."""
    error: RaisedError | None
    """The exception the use raised, if it raised."""
    effect: Mapping[str, object] | None
    """What the use did, read back without warnings: a model's `checkpointing` state, or the values the old and new
    names hold (`None` when it raised, or when only the name's existence was probed). A mapping, not a dataclass:
    its keys are the row's own names (`gradient_checkpointing`, `activation_checkpointing_kwargs`...)."""


@dataclasses.dataclass(frozen=True)
class RaisedInSource:
    """An exception that a release's source raises with a text naming the feature, read without running it
    (`generator.measure.source`): the errors no probe reaches here (FSDP's needs GPUs) still get their section."""

    category: str
    """The exception class as written, e.g. `ValueError`."""
    text: str
    """As written; `{…}` where a part is only known at run time."""
    path: str
    """Path inside the release, e.g. `transformers/trainer.py`."""
    line: int
    function: str
    """The enclosing class and function, e.g. `Trainer.create_accelerator_and_postprocess`."""
    condition: str
    """The test of the innermost `if` around the `raise`, as source; empty when there is none."""
    probed: bool
    """A probe of this release raised a message this text produces (so its section is a measured one)."""


@dataclasses.dataclass(frozen=True)
class ReleaseEntry:
    """One measured release: the versions that answered, and every outcome of its library's rows."""

    library: str
    """The table's key of the library, e.g. `peft`."""
    release: str
    versions: Mapping[str, str]
    """Distribution → version: transformers, torch, and the library itself."""
    outcomes: tuple[Outcome, ...]
    """In table order of the rows, each row's uses in probe order."""
    raised_in_source: tuple[RaisedInSource, ...]
    """The exceptions whose text names the feature in the library's source, in file order."""


@dataclasses.dataclass(frozen=True)
class MatrixData:
    """The content of `data/matrix.json` (its `about` note aside)."""

    python: str
    """The Python version the probes ran on, e.g. `3.11`."""
    releases: tuple[ReleaseEntry, ...]


@dataclasses.dataclass(frozen=True)
class ProbeOutput:
    """What `generator.measure.probes` reports from inside one release's environment."""

    versions: Mapping[str, str]
    """Distribution → the version that answered."""
    transformers_path: str
    """Where the transformers that answered was imported from (it must be the release's environment)."""
    outcomes: tuple[Outcome, ...]


# --- data/downstream-warnings.json ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SourceLine:
    """A line of an installed package's source."""

    path: str
    """Relative to the folder the packages are installed in, e.g. `transformers/modeling_utils.py`."""
    line: int


@dataclasses.dataclass(frozen=True)
class CodeLine(SourceLine):
    """A line of an installed package's source, with its code."""

    code: str


@dataclasses.dataclass(frozen=True)
class DownstreamWarning(RecordedWarning):
    """A warning a library's entry point emitted, and where it came from."""

    site: CodeLine | None
    """The innermost frame in the entry point's own library: its use of the old name (`None`: none was found)."""
    emitted_at: SourceLine | None
    """The innermost frame in transformers: the line that emits the warning."""


@dataclasses.dataclass(frozen=True)
class Fix:
    """A statement with the new names that avoids an entry point's warning, and what it emits in turn."""

    code: str
    warnings: tuple[RecordedWarning, ...]


@dataclasses.dataclass(frozen=True)
class DownstreamEntry:
    """One measured entry point of PEFT or TRL (see `generator.measure.downstream.EntryPoint`)."""

    id: str
    """Stable key, e.g. `peft.get_peft_model`."""
    library: str
    title: str
    """What the user calls, e.g. `get_peft_model()`."""
    setup: tuple[str, ...]
    """Statements run before the call (after the base setup)."""
    call: str
    how: str
    """How the measurement differs from real use (Markdown; empty when it does not)."""
    warnings: tuple[DownstreamWarning, ...]
    """Every warning the call emitted, in order; empty: the call is silent."""
    fix: Fix | None


@dataclasses.dataclass(frozen=True)
class Downstream:
    """The content of `data/downstream-warnings.json` (its `about` note aside)."""

    versions: Mapping[str, str]
    """Distribution → the version measured with: transformers, PEFT, TRL, torch."""
    base_setup: tuple[str, ...]
    """Statements every entry point starts from."""
    entries: tuple[DownstreamEntry, ...]


# --- Wording across releases (generator.measure.wording) and saved state (generator.measure.saved) -----------------


@dataclasses.dataclass(frozen=True)
class Site:
    path: str
    """Path inside the wheel, e.g. `transformers/modeling_utils.py`."""
    line: int
    function: str


@dataclasses.dataclass(frozen=True)
class Said:
    """One release's wording of a text, and where that release emits it."""

    release: str
    text: str
    """As `source.SourceText.shown`: `{…}` where a part is only known at run time."""
    sites: tuple[Site, ...]


@dataclasses.dataclass(frozen=True)
class Wording:
    """One warning or exception text, release by release (a release without it is left out)."""

    category: str
    """The exception class as written for a `raise`; empty for a warning call."""
    raised: bool
    versions: tuple[Said, ...]

    @property
    def changed(self) -> bool:
        return len({v.text for v in self.versions}) > 1


@dataclasses.dataclass(frozen=True)
class WordingData:
    releases: tuple[str, ...]
    texts: tuple[Wording, ...]


@dataclasses.dataclass(frozen=True)
class Run:
    """Arguments given to `Trainer.train` and what it did with them."""

    new_value: bool | None
    """The new field as the arguments hold it (the class default when the object lacks it)."""
    checkpointing: bool
    """The model's `is_<new>` after one training step: whether the Trainer turned checkpointing on."""
    warnings: tuple[str, ...]
    """The checkpointing warnings making the arguments and training emitted."""


@dataclasses.dataclass(frozen=True)
class LegacyConfig:
    """A model built from a config that holds the legacy key set to true (an old `config.json` does)."""

    release: str
    checkpointing: bool
    """Whether the new model's layers have checkpointing on."""
    key_kept: bool
    """Whether the config still has the key afterwards (else the model consumed it, and it is not saved again)."""
    warnings: tuple[str, ...]
    read_at: int
    """The line of `transformers/modeling_utils.py` that reads the key."""


@dataclasses.dataclass(frozen=True)
class Loaded:
    release: str
    has_new: bool
    """Whether the loaded object itself holds the new field (else a read falls back to the class default)."""
    old_value: bool | None
    loaded: Run
    """The loaded arguments as they are."""
    replaced: Run
    """After `dataclasses.replace(loaded)`, which runs `__post_init__` again."""
    fresh: Run
    """Arguments built on this release with the new name set: what the loaded ones should have done."""
    decided_at: int
    """The line of `transformers/trainer.py` where `Trainer.train` tests the new field."""


@dataclasses.dataclass(frozen=True)
class SavedData:
    saved_on: str
    old: str
    new: str
    releases: tuple[Loaded, ...]
    """The pickled arguments, loaded on each release with the new name."""
    configs: tuple[LegacyConfig, ...]
    """The legacy config key on every listed release."""


# --- Loading -------------------------------------------------------------------------------------------------------------


def _loaded(path: Path, cls: type[T]) -> T:
    try:
        return load(path, cls)
    except DocumentError as exc:
        raise MatrixError(exc.report(MEASURE_COMMAND)) from None


def read(path: Path) -> dict[str, Any]:
    """A data file's JSON as it is (what `matrix --check` compares), or `MatrixError` with `PATH:LINE:COL`."""
    return _loaded(path, dict[str, object])  # type: ignore[arg-type]


def load_matrix(data_dir: Path = DATA_DIR) -> MatrixData:
    """`data/matrix.json`; `MatrixError` names the file and every JSON path that is missing or malformed."""
    return _loaded(data_dir / MATRIX_FILE, MatrixData)


def load_downstream(data_dir: Path = DATA_DIR) -> Downstream:
    """`data/downstream-warnings.json`; `MatrixError` as `load_matrix`."""
    return _loaded(data_dir / DOWNSTREAM_FILE, Downstream)


def load_saved(data_dir: Path = DATA_DIR) -> SavedData:
    """`data/saved.json`; `MatrixError` as `load_matrix`."""
    return _loaded(data_dir / SAVED_FILE, SavedData)


def load_wording(data_dir: Path = DATA_DIR) -> WordingData:
    """`data/wording.json`; `MatrixError` as `load_matrix`."""
    return _loaded(data_dir / WORDING_FILE, WordingData)


@dataclasses.dataclass(frozen=True)
class Measured:
    """The recorded outcomes, as the pages use them."""

    releases: Mapping[str, tuple[str, ...]]
    """Per library, the measured releases, oldest first."""
    outcomes: Mapping[tuple[str, str], tuple[Outcome, ...]]
    """(library, release) → outcomes in probe order."""
    versions: Mapping[tuple[str, str], Mapping[str, str]]
    """(library, release) → the versions of transformers, torch (and the library) that answered."""
    downstream: Downstream
    raised_in_source: Mapping[tuple[str, str], tuple[RaisedInSource, ...]]
    """(library, release) → the exceptions naming the feature in its source, read without running it."""

    def of_row(self, library: str, release: str, key: RowKey) -> tuple[Outcome, ...]:
        """The outcomes of one row in one release (empty when the row was not measured)."""
        return tuple(o for o in self.outcomes.get((library, release), ()) if o.row == key)


def load_measured(data_dir: Path = DATA_DIR) -> Measured:
    """Both data files; `MatrixError` names the file and position when one is missing or malformed."""
    matrix, downstream = load_matrix(data_dir), load_downstream(data_dir)
    releases: dict[str, list[str]] = {}
    for entry in matrix.releases:
        releases.setdefault(entry.library, []).append(entry.release)
    return Measured(
        {library: tuple(sorted(found, key=Version)) for library, found in releases.items()},
        {(entry.library, entry.release): entry.outcomes for entry in matrix.releases},
        {(entry.library, entry.release): entry.versions for entry in matrix.releases},
        downstream,
        {(entry.library, entry.release): entry.raised_in_source for entry in matrix.releases},
    )
