"""The measured behaviour matrix: re-measured against the real releases, checked against the table, and rendered.

`test_matrix_check_finds_no_difference` runs `python -m generator matrix --check`, which installs any missing
release environment under .cache/matrix/ (from PyPI) and probes every listed release again, so CI re-measures on
every run. The other tests read the committed data, which that test has just shown to be what the releases do.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from checkpointing_migrate.records import dump
from checkpointing_migrate.table import Rename, load
from generator import paths
from generator.measure import data as measured_data
from generator.measure import matrix, probes
from generator.measure.data import Outcome, RaisedError, row_key
from generator.measure.probes import field_pair
from generator.measure.scenarios import Scenario
from generator.pages import measured, render, views

ROOT = Path(__file__).resolve().parents[1]
TABLE = load(ROOT / "aliases.yaml")
DATA = measured_data.load_measured()
SHIPPED = [row for row in TABLE.renames if row.status == "shipped"]


def row_id(row: Rename) -> str:
    return f"{row.library}:{row.kind}:{row.owner.split(' ')[0]}:{row.old}"


def first_use(row: Rename, release: str, which: str) -> Outcome:
    """The outcome of the row's first scenario for the old or the new name (what the matrix cell shows)."""
    outcomes = DATA.of_row(row.library, release, row_key(row))
    found = next((o for o in outcomes if o.uses == which), None)
    assert found is not None, f"{row.position}: no {which}-name outcome measured in {row.library} {release}"
    return found


def test_matrix_check_finds_no_difference() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "generator", "matrix", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert result.returncode == 0, f"the releases no longer behave as recorded:\n{result.stderr}"
    assert "no difference" in result.stdout


def test_every_listed_release_and_row_is_measured() -> None:
    for job in matrix.jobs_of(TABLE):
        assert job.version in DATA.releases.get(job.library, []), (
            f"{job.library} {job.version} is listed but not measured"
        )
        versions = DATA.versions[(job.library, job.version)]
        assert versions[job.library] == job.version, "the data was measured with another release"
        for row in (r for r in TABLE.renames if r.library == job.library):
            uses = {o.uses for o in DATA.of_row(job.library, job.version, row_key(row))}
            assert {"old", "new"} <= uses, f"{row.position}: not measured in {job.library} {job.version}"


@pytest.mark.parametrize("row", SHIPPED, ids=row_id)
def test_since_and_warning_agree_with_the_measurement(row: Rename) -> None:
    """Before `since` only the old name exists and it is silent; from `since` on the new name works silently and
    the old one emits exactly the recorded warning."""
    assert row.since is not None and row.warning is not None
    releases = DATA.releases[row.library]
    assert any(Version(r) >= Version(row.since) for r in releases), f"no measured release at or after {row.since}"
    for release in releases:
        old, new = first_use(row, release, "old"), first_use(row, release, "new")
        if Version(release) < Version(row.since):
            assert (old.outcome, new.outcome) == ("works", "absent"), (
                f"{row.position}: {release} before since {row.since}"
            )
        else:
            assert new.outcome == "works", f"{row.position}: the new name in {release}: {new}"
            emitted = [(w.category, w.message) for w in old.warnings]
            assert len(emitted) == 1 and emitted[0][0] == row.warning.category and row.warning.matches(emitted[0][1]), (
                f"{row.position}: aliases.yaml's warning differs from what {release} emits: {emitted}"
            )
            assert old.effect == new.effect, f"{row.position}: old and new name do different things in {release}"


@pytest.mark.parametrize("row", [r for r in TABLE.renames if r.status == "planned"], ids=row_id)
def test_planned_rows_have_no_new_name_in_any_release(row: Rename) -> None:
    for release in DATA.releases.get(row.library, []):
        if row.library == "trl" and row.kind == "field":
            continue  # TRL's configs inherit the transformers field, so the new name exists there (see the row's note)
        assert first_use(row, release, "new").outcome == "absent", f"{row.position}: {row.new} exists in {release}"
        assert first_use(row, release, "old").outcome == "works", f"{row.position}: {row.old} is gone in {release}"


def test_downstream_warnings_are_ones_the_table_records() -> None:
    recorded = {(r.warning.category, r.warning.message) for r in SHIPPED if r.warning}
    emitted = [(w.category, w.message) for e in DATA.downstream.entries for w in e.warnings]
    assert emitted, "no downstream warning measured"
    assert set(emitted) <= recorded, set(emitted) - recorded
    for entry in DATA.downstream.entries:
        for warning in entry.warnings:
            assert warning.site and warning.site.path.startswith(f"{entry.library}/"), entry.id
    assert DATA.downstream.versions["transformers"] == max(
        (r.version for r in TABLE.releases_of("transformers")), key=Version
    )


def _timeline(data: measured_data.Measured) -> str:
    env = render.environment(TABLE)
    context = {**views.context(TABLE), **measured.context(TABLE, data)}
    return env.get_template("timeline.md.j2").render(**context)


def test_the_matrix_page_is_rendered_from_the_data() -> None:
    page = _timeline(DATA)
    assert render.with_banner(page, "timeline.md.j2") == (ROOT / "docs/generated/timeline.md").read_text(
        encoding="utf-8"
    )
    row = SHIPPED[0]
    key = (row.library, "5.24.0")
    first = DATA.of_row(*key, row_key(row))[0]
    made_up = dataclasses.replace(
        first, outcome="raises", warnings=(), error=RaisedError("RuntimeError", "made up by a test")
    )
    outcomes = tuple(made_up if o is first else o for o in DATA.outcomes[key])
    page = _timeline(dataclasses.replace(DATA, outcomes={**DATA.outcomes, key: outcomes}))
    assert "RuntimeError: made up by a test" in page
    head = f'| <code class="ck-old">{row.old}</code><br>→ <code class="ck-new">{row.new}</code><br><small>{row.kind} of'
    line = next(l for l in page.splitlines() if l.startswith(head))
    last_release = line.rstrip(" |").rsplit(" | ", 1)[1]  # the 5.24.0 cell: the old name's outcome, then the new one's
    assert last_release.startswith('<span class="ck-pair">old: <span class="ck-outcome ck-raises">'), line
    assert '<span aria-hidden="true">✗</span> RuntimeError</span>' in last_release.split("<br>")[0], line


def test_a_row_without_data_shows_as_not_measured() -> None:
    empty = dataclasses.replace(DATA, outcomes={})
    page = _timeline(empty)
    assert page.count(measured.NOT_MEASURED) >= 2 * len(TABLE.renames)


def _tampered(tmp_path: Path) -> Path:
    for name in (measured_data.MATRIX_FILE, measured_data.DOWNSTREAM_FILE):
        (tmp_path / name).write_text((paths.DATA_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    data = json.loads((tmp_path / measured_data.MATRIX_FILE).read_text(encoding="utf-8"))
    data["releases"][-1]["outcomes"][0]["outcome"] = "tampered"
    (tmp_path / measured_data.MATRIX_FILE).write_text(dump(data), encoding="utf-8")
    return tmp_path


def test_check_fails_with_a_diff_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = {
        name: measured_data.read(paths.DATA_DIR / name)
        for name in (measured_data.MATRIX_FILE, measured_data.DOWNSTREAM_FILE)
    }
    monkeypatch.setattr(matrix, "measure_all", lambda table, path: recorded)  # this test is about the comparison
    data_dir = _tampered(tmp_path)
    before = {p: p.read_bytes() for p in data_dir.iterdir()}
    assert matrix.command(TABLE, ROOT / "aliases.yaml", data_dir, check=True) == 1
    err = capsys.readouterr().err
    changed = [
        line.replace(" ", "") for line in err.splitlines() if line.startswith(("-", "+")) and '"outcome"' in line
    ]
    assert changed == ['-"outcome":"tampered",', '+"outcome":"works",'], err
    assert {p: p.read_bytes() for p in data_dir.iterdir()} == before
    assert matrix.command(TABLE, ROOT / "aliases.yaml", data_dir, check=False) == 0
    assert matrix.command(TABLE, ROOT / "aliases.yaml", data_dir, check=True) == 0


def test_broken_data_is_reported_with_its_position(tmp_path: Path) -> None:
    (tmp_path / measured_data.MATRIX_FILE).write_text('{"releases": [\n  {"library": }\n]}\n', encoding="utf-8")
    (tmp_path / measured_data.DOWNSTREAM_FILE).write_text("{}", encoding="utf-8")
    with pytest.raises(
        measured_data.MatrixError, match=rf"{tmp_path / measured_data.MATRIX_FILE}:2:15: not valid JSON"
    ):
        measured_data.load_measured(tmp_path)
    with pytest.raises(measured_data.MatrixError, match="missing; run `python -m generator matrix`"):
        measured_data.load_measured(tmp_path / "nowhere")


def test_render_reports_missing_data_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load = measured_data.load_measured
    monkeypatch.setattr(measured_data, "load_measured", lambda: load(tmp_path))
    with pytest.raises(render.RenderError, match="matrix.json:1:1: missing"):
        render.render_pages(TABLE)


def test_each_release_environment_fits_the_shared_venv() -> None:
    for job in matrix.jobs_of(TABLE):
        if (job.env / ".complete").is_file():
            assert matrix.environment_problems(job) == [], job


@pytest.mark.parametrize("row", [r for r in SHIPPED if r.kind == "config-key"], ids=row_id)
def test_parse_dict_with_allow_extra_keys_drops_the_new_key_before_since(row: Rename) -> None:
    """The guide's claim: before `since`, `allow_extra_keys=True` swallows the new key without a word."""
    assert row.since is not None
    dropped = {d.release for d in measured.dropped_keys(TABLE, DATA) if d.row == row}
    for release in DATA.releases[row.library]:
        (use,) = [
            o
            for o in DATA.of_row(row.library, release, row_key(row))
            if o.scenario == Scenario.PARSE_DICT and o.uses == "new"
        ]
        if Version(release) < Version(row.since):
            assert release in dropped and use.error is None and use.warnings == () and use.effect is not None
            assert field_pair(row)[1] not in use.effect and use.effect[field_pair(row)[0]] != values_for_old(row)
        else:
            assert release not in dropped and use.outcome == "works"


def values_for_old(row: Rename) -> object:
    return probes.DICT_VALUES[0] if row.old.endswith("kwargs") else probes.BOOL_VALUES[0]


def test_every_recorded_scenario_is_one_of_the_vocabulary() -> None:
    """The probes write, and the adoption scan and the codes' effects look up, scenarios by `Scenario`: each recorded
    one is a member (or a member about one named method or member), and every member is recorded."""
    recorded = {o.scenario for outcomes in DATA.outcomes.values() for o in outcomes}
    bare = {s.partition(" (")[0] for s in recorded}  # `with its own method (gradient_checkpointing_enable)`
    assert bare == {str(s) for s in Scenario}
