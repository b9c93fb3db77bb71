"""Evidence for a planned rename: does a new release's own code warn when the old name is used?

`refresh` runs this module in a new release's environment (its `--target` folder first on `PYTHONPATH`, as the matrix
does); only warnings whose origin lies inside the library's own package count (transformers' are not the library's).
Run as `python -m generator.measure.evidence --table aliases.yaml --library trl --out evidence.json`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
import warnings
from pathlib import Path

from checkpointing_migrate.table import RenameKind, load
from generator.measure import probes
from generator.measure.data import RaisedError, RecordedWarning, RowKey, row_key

PROBED_KINDS = (RenameKind.FIELD,)
"""The kinds of planned rows whose old name this module can use the way a user would (set in the config's
constructor); other kinds have no such probe, and `refresh` then proposes nothing for them."""


@dataclasses.dataclass(frozen=True)
class Evidence:
    """What setting a planned row's old name did in a release."""

    row: RowKey
    warnings: tuple[RecordedWarning, ...]
    """The warnings whose origin lies inside the library's own package, in order."""
    error: RaisedError | None
    """The exception the use raised, or the one that kept the row from being probed."""


@dataclasses.dataclass(frozen=True)
class EvidenceOutput:
    """What `python -m generator.measure.evidence` reports from inside one release's environment."""

    results: tuple[Evidence, ...]


def own_warnings(library: str, row: probes.Rename) -> Evidence:
    """The warnings the library's own code emits when the row's old name is set, or the error it raises."""
    package = Path(importlib.import_module(library).__file__ or "").parent
    try:
        cls = probes.resolve_owner(row)
        value, _ = probes.values_for(row.old, cls)
    except (probes.ProbeError, ImportError, AttributeError) as exc:
        return Evidence(row_key(row), (), RaisedError(type(exc).__name__, str(exc)))
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            cls(**probes._base(), **{row.old: value})
        except Exception as exc:  # noqa: BLE001 - the outcome being measured
            error = RaisedError(type(exc).__name__, str(exc))
    own = tuple(
        RecordedWarning(w.category.__name__, str(w.message))
        for w in caught
        if Path(w.filename).resolve().is_relative_to(package.resolve())
    )
    return Evidence(row_key(row), own, error)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.measure.evidence", description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    table = load(args.table)
    rows = table.select(*PROBED_KINDS, library=args.library, shipped=False)
    results = [dataclasses.asdict(own_warnings(args.library, row)) for row in rows]
    version = importlib.import_module(args.library).__version__
    args.out.write_text(json.dumps({"version": version, "results": results}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
