"""The typed loaders of `data/*.json`: each committed file loads into its frozen dataclasses whole, and a broken file
is reported as `PATH:LINE:COL:` lines naming the JSON path of every problem and the command that measures it again,
from the loaders directly and from `python -m generator render` (exit 1, no traceback).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sitekit import copy_repo

from checkpointing_migrate.records import MAX_LISTED, dump
from generator import paths
from generator.measure import adoption_data, data

MATRIX = f"run `{data.MEASURE_COMMAND}` to measure it again"
ADOPTION = f"run `{adoption_data.ADOPTION_COMMAND}` to measure it again"


def _committed(name: str) -> str:
    return (paths.DATA_DIR / name).read_text(encoding="utf-8")


def test_each_committed_file_loads_into_dataclasses_that_hold_all_of_it() -> None:
    """Serialised back (the `about` note aside), the loaded dataclasses give the committed bytes."""
    for name, loaded in (
        (data.MATRIX_FILE, data.load_matrix()),
        (data.DOWNSTREAM_FILE, data.load_downstream()),
        (data.SAVED_FILE, data.load_saved()),
        (data.WORDING_FILE, data.load_wording()),
    ):
        about = json.loads(_committed(name))["about"]
        assert dump({"about": about, **dataclasses.asdict(loaded)}) == _committed(name), name
    assert dump(dataclasses.asdict(adoption_data.load_adoption())) == _committed("adoption.json")


def test_the_loaded_data_is_typed_all_the_way_down() -> None:
    measured = data.load_measured()
    outcomes = [o for found in measured.outcomes.values() for o in found]
    assert {type(o) for o in outcomes} == {data.Outcome} and {type(o.row) for o in outcomes} == {data.RowKey}
    assert {o.outcome for o in outcomes} == {"works", "warns", "raises", "absent"}
    assert all(isinstance(o.error, data.RaisedError) for o in outcomes if o.outcome == "raises")
    assert all(type(w) is data.RecordedWarning for o in outcomes for w in o.warnings)
    warning = next(w for e in measured.downstream.entries for w in e.warnings)
    assert isinstance(warning.site, data.CodeLine) and isinstance(warning.emitted_at, data.SourceLine)
    site = adoption_data.load_adoption().libraries[0].sites[0]
    assert isinstance(site, adoption_data.ScannedSite) and site.effect in adoption_data.EFFECTS


def _data_dir(tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of the committed data files, with `change` made to the JSON of `name`."""
    for file in (data.MATRIX_FILE, data.DOWNSTREAM_FILE, "adoption.json"):
        shutil.copy(paths.DATA_DIR / file, tmp_path / file)
    document = json.loads(_committed(name))
    change(document)
    (tmp_path / name).write_text(json.dumps(document, indent=1), encoding="utf-8")
    return tmp_path


def _parent(document: Any, path: tuple[str | int, ...]) -> Any:
    for key in path[:-1]:
        document = document[key]
    return document


def _set(value: object, *path: str | int) -> Callable[[dict[str, Any]], None]:
    return lambda document: _parent(document, path).__setitem__(path[-1], value)


def _delete(*path: str | int) -> Callable[[dict[str, Any]], None]:
    return lambda document: _parent(document, path).__delitem__(path[-1])


def _located(message: str, path: Path) -> tuple[str, str]:
    """(the text at the `PATH:LINE:COL:` a problem line names, the rest of the line): what a reader would jump to."""
    prefix = f"{path}:"
    assert message.startswith(prefix), message
    line, col, rest = message[len(prefix) :].split(":", 2)
    return path.read_text(encoding="utf-8").splitlines()[int(line) - 1][int(col) - 1 :], rest.removeprefix(" ")


@pytest.mark.parametrize(
    ("name", "change", "problem", "at"),
    [
        (
            data.MATRIX_FILE,
            _set("boom", "releases", 2, "outcomes", 5, "error"),
            "releases[2].outcomes[5].error: expected an object or null, found a string",
            '"boom"',
        ),
        (
            data.MATRIX_FILE,
            _delete("releases", 0, "outcomes", 3, "row", "kind"),
            "releases[0].outcomes[3].row.kind: missing",
            "{",  # the object that lacks it
        ),
        (
            data.MATRIX_FILE,
            _set("exploded", "releases", 1, "outcomes", 0, "outcome"),
            'releases[1].outcomes[0].outcome: expected one of works, warns, raises, absent, found "exploded"',
            '"exploded"',
        ),
        (data.MATRIX_FILE, _set({"releases": 1}, "releases"), "releases: expected an array, found an object", "{"),
        (
            data.DOWNSTREAM_FILE,
            _set("184", "entries", 0, "warnings", 0, "site", "line"),
            "entries[0].warnings[0].site.line: expected an integer, found a string",
            '"184"',
        ),
        (
            data.DOWNSTREAM_FILE,
            _set([], "entries", 1, "fix"),
            "entries[1].fix: expected an object or null, found an array",
            "[]",
        ),
        (data.DOWNSTREAM_FILE, _delete("base_setup"), "base_setup: missing", "{"),
    ],
)
def test_a_malformed_data_file_names_the_json_path_and_the_command(
    tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None], problem: str, at: str
) -> None:
    data_dir = _data_dir(tmp_path, name, change)
    with pytest.raises(data.MatrixError) as raised:
        data.load_measured(data_dir)
    text, rest = _located(str(raised.value), data_dir / name)
    assert rest == f"{problem}; {MATRIX}" and text.startswith(at), (text, rest)


@pytest.mark.parametrize(
    ("change", "problem", "at"),
    [
        (
            _set("boom", "libraries", 0, "sites", 1, "effect"),
            f'libraries[0].sites[1].effect: expected one of {", ".join(adoption_data.EFFECTS)}, found "boom"',
            '"boom"',
        ),
        (_set(None, "measured_with"), "measured_with: expected an object, found null", "null"),
        (_set(True, "libraries", 3, "files"), "libraries[3].files: expected an integer, found a boolean", "true"),
        (
            _set({"x": "1"}, "libraries", 2, "not_deprecated"),
            "libraries[2].not_deprecated.x: expected an integer, found a string",
            '"1"',
        ),
    ],
)
def test_malformed_adoption_data_names_the_json_path_and_the_command(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], problem: str, at: str
) -> None:
    path = _data_dir(tmp_path, "adoption.json", change) / "adoption.json"
    with pytest.raises(adoption_data.AdoptionDataError) as raised:
        adoption_data.load_adoption(path)
    text, rest = _located(str(raised.value), path)
    assert rest == f"{problem}; {ADOPTION}" and text.startswith(at), (text, rest)


def test_every_broken_item_is_reported_at_once(tmp_path: Path) -> None:
    def change(document: dict[str, Any]) -> None:
        _set("boom", "releases", 2, "outcomes", 5, "error")(document)
        _delete("releases", 0, "outcomes", 1, "uses")(document)
        _set(3, "releases", 4, "versions", "torch")(document)

    data_dir = _data_dir(tmp_path, data.MATRIX_FILE, change)
    with pytest.raises(data.MatrixError) as raised:
        data.load_matrix(data_dir)
    path = data_dir / data.MATRIX_FILE
    located = [_located(line, path) for line in str(raised.value).splitlines()]
    assert [rest for _, rest in located] == [
        f"releases[0].outcomes[1].uses: missing; {MATRIX}",
        f"releases[2].outcomes[5].error: expected an object or null, found a string; {MATRIX}",
        f"releases[4].versions.torch: expected a string, found an integer; {MATRIX}",
    ]
    assert [text.startswith(at) for (text, _), at in zip(located, ["{", '"boom"', "3"], strict=True)] == [True] * 3


def test_a_file_broken_throughout_lists_the_first_problems_and_counts_the_rest(tmp_path: Path) -> None:
    def change(document: dict[str, Any]) -> None:
        for outcome in document["releases"][0]["outcomes"]:
            del outcome["scenario"]

    data_dir = _data_dir(tmp_path, data.MATRIX_FILE, change)
    broken = len(json.loads(_committed(data.MATRIX_FILE))["releases"][0]["outcomes"])
    with pytest.raises(data.MatrixError) as raised:
        data.load_matrix(data_dir)
    lines = str(raised.value).splitlines()
    assert len(lines) == MAX_LISTED + 1
    assert lines[-1] == f"{data_dir / data.MATRIX_FILE}:1:1: and {broken - MAX_LISTED} more problems; {MATRIX}"
    assert all(not line.startswith(f"{data_dir / data.MATRIX_FILE}:1:1:") for line in lines[:-1])


def test_invalid_json_keeps_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "adoption.json"
    path.write_text('{\n "python_version": "3.12",\n "libraries": [,]\n}\n', encoding="utf-8")
    with pytest.raises(adoption_data.AdoptionDataError) as raised:
        adoption_data.load_adoption(path)
    assert str(raised.value) == f"{path}:3:16: not valid JSON (Expecting value); {ADOPTION}"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(adoption_data.AdoptionDataError, match=r"adoption.json:1:1: the document: expected an object"):
        adoption_data.load_adoption(path)
    with pytest.raises(adoption_data.AdoptionDataError) as raised:
        adoption_data.load_adoption(tmp_path / "nowhere.json")
    assert str(raised.value).endswith(":1:1: missing; run `python -m generator adoption` to measure it")


def test_render_names_a_malformed_outcome_and_exits_1_without_a_traceback(tmp_path: Path) -> None:
    repo = copy_repo(tmp_path / "repo")
    path = repo / "data" / data.MATRIX_FILE
    document = json.loads(path.read_text(encoding="utf-8"))
    document["releases"][2]["outcomes"][5]["error"] = "boom"
    path.write_text(dump(document), encoding="utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("PYTHONPATH", None)  # the copy's own package, from its working directory
    result = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--check"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    problem, done = result.stderr.splitlines()
    text, rest = _located(problem, path)
    assert rest == f"releases[2].outcomes[5].error: expected an object or null, found a string; {MATRIX}"
    assert text.startswith('"boom"') and done == "nothing was written."


def test_the_effects_explained_are_the_effects_a_site_may_have() -> None:
    """`ScannedSite.effect` is checked against the `Effect` words; `EFFECTS` explains each of them, once."""
    assert tuple(adoption_data.EFFECTS) == typing.get_args(adoption_data.Effect)
