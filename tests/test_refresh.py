"""`python -m generator refresh` against a fake registry on 127.0.0.1 serving simulated releases built from real wheels.

The whole chain runs once, in a copy of the repository: transformers 6.0.0 (5.24.0 with the deprecated aliases removed)
and a TRL 1.17.0 whose configs declare `activation_checkpointing` are detected, measured, proposed, written and
rendered. It re-measures the whole matrix with the edited table, so it takes about three minutes on two cores.
The real wheels and the matrix environments of the listed releases come from .cache/ (downloaded once from PyPI;
offline and not cached, the tests skip, except under CI=true). Nothing else leaves 127.0.0.1.
"""

from __future__ import annotations

import datetime
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import fakeregistry
import pytest
import yaml
from sitekit import IN_CI, copy_repo

from checkpointing_migrate.table import load, parse
from generator.measure import matrix, refresh, registry
from generator.measure.data import load_matrix
from generator.paths import ROOT, TABLE_PATH

TABLE = load(TABLE_PATH)
WORKFLOW = ROOT / ".github" / "workflows" / "refresh.yml"
DAY = datetime.date(2026, 11, 30)


def _offline(what: str, exc: Exception) -> None:
    if IN_CI:
        pytest.fail(f"{what}: {exc}", pytrace=False)
    pytest.skip(f"{what} (offline and not cached): {exc}")


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The real wheels the table knows and the simulated releases made from them."""
    try:
        real = {name: fakeregistry.real_wheel(name, TABLE.libraries[name].checked) for name in ("transformers", "trl")}
    except registry.RegistryError as exc:
        _offline("the real wheels could not be downloaded", exc)
    out = tmp_path_factory.mktemp("wheels")
    return {
        **real,
        "transformers-6": fakeregistry.transformers_6(real["transformers"], out),
        "trl-1.17": fakeregistry.trl_activation(real["trl"], out),
    }


def _serve(wheels: dict[str, Path], *, new: bool) -> fakeregistry.Registry:
    releases = {
        "transformers": {"5.24.0": (wheels["transformers"], datetime.date(2026, 11, 21))},
        "trl": {"1.16.0": (wheels["trl"], datetime.date(2026, 10, 15))},
    }
    if new:
        releases["transformers"]["6.0.0"] = (wheels["transformers-6"], DAY)
        releases["trl"]["1.17.0"] = (wheels["trl-1.17"], datetime.date(2026, 11, 28))
    return fakeregistry.Registry(releases)


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


# --- The registry client ------------------------------------------------------------------------------------------------


def _file(name: str, *, yanked: bool = False, packagetype: str = "bdist_wheel", size: int = 1) -> registry.File:
    return registry.File(name, f"https://x/{name}", "0" * 64, packagetype, size, DAY, yanked)


def test_newer_releases_skip_prereleases_yanked_and_empty_releases() -> None:
    project = registry.Project(
        "p",
        {
            "1.0.0": (_file("p-1.0.0.whl"),),
            "1.1.0rc1": (_file("p-1.1.0rc1.whl"),),
            "1.1.0": (_file("p-1.1.0.whl", yanked=True),),
            "1.2.0": (),
            "1.10.0": (_file("p-1.10.0.whl"),),
            "1.3.0": (_file("p-1.3.0.whl"),),
            "0.9": (_file("p-0.9.whl"),),
        },
    )
    assert project.newer_than("1.0.0") == ["1.3.0", "1.10.0"]


def test_the_file_read_is_a_pure_wheel_else_the_sdist_else_the_smallest_wheel() -> None:
    linux, mac = _file("t-1-cp311-linux.whl", size=900), _file("t-1-cp311-macos.whl", size=100)
    sdist = _file("t-1.tar.gz", packagetype="sdist")
    pure = _file("t-1-py3-none-any.whl")
    assert registry.pick((sdist, linux, pure)) is pure
    assert registry.pick((linux, sdist)) is sdist
    assert registry.pick((linux, mac)) is mac


def test_the_wheel_for_a_python_is_the_one_pip_would_take_never_an_sdist() -> None:
    sdist, pure = _file("t-1.tar.gz", packagetype="sdist"), _file("t-1-py2.py3-none-any.whl")
    built, other = _file("t-1-cp312-none-any.whl"), _file("t-1-cp311-none-any.whl")
    assert registry.pick((sdist, pure, other), "3.12") is pure
    assert registry.pick((pure, built), "3.12") is built  # pip prefers the more specific tag
    with pytest.raises(registry.RegistryError, match="no wheel for Python 3.12"):
        registry.pick((sdist, other), "3.12")


def test_a_folder_another_worker_finished_first_is_kept_and_a_leftover_replaced(tmp_path: Path) -> None:
    """Parallel test workers unpack and install the same releases: the second must not remove the first's, in use."""
    target, staging = tmp_path / "env", tmp_path / "staging"
    for folder, text in ((target, "theirs"), (staging, "mine")):
        folder.mkdir()
        (folder / ".complete").write_text(text)
    registry.settle(staging, target, lambda done: done.is_file())
    assert (target / ".complete").read_text() == "theirs" and staging.is_dir()  # the caller drops its own
    (target / ".complete").unlink()  # a leftover of an interrupted run: replaced
    registry.settle(staging, target, lambda done: done.is_file())
    assert (target / ".complete").read_text() == "mine" and not staging.exists()


def test_a_download_that_does_not_match_its_sha256_is_refused_and_not_kept(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    with _serve(wheels, new=False) as fake:
        good = registry.pick(registry.project(fake.url, "trl").releases["1.16.0"])
        bad = registry.File(
            good.filename,
            good.url,
            hashlib.sha256(b"something else").hexdigest(),
            good.packagetype,
            good.size,
            good.uploaded,
            False,
        )
        with pytest.raises(registry.RegistryError, match="does not match the registry's"):
            registry.fetch(bad, tmp_path)
        assert list(tmp_path.iterdir()) == []
        assert registry.fetch(good, tmp_path).read_bytes() == wheels["trl"].read_bytes()


# --- Exit codes without anything new ------------------------------------------------------------------------------------


def test_a_current_table_exits_0_and_says_so(wheels: dict[str, Path]) -> None:
    with _serve(wheels, new=False) as fake:
        result = _run("refresh", "--index-url", fake.url, "--only", "transformers,trl")
    assert result.returncode == 0, result.stderr
    assert "| transformers | 5.24.0 | 5.24.0 | none |" in result.stdout
    assert result.stdout.rstrip().endswith("The table is current.")
    assert [r for r in fake.requests if r.startswith("/files/")] == []  # nothing new: nothing downloaded


def test_an_unreachable_registry_exits_2_without_a_traceback() -> None:
    result = _run("refresh", "--index-url", "http://127.0.0.1:9/pypi", "--only", "peft")
    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot read http://127.0.0.1:9/pypi/peft/json")
    assert "nothing was written." in result.stderr and "Traceback" not in result.stderr


def test_an_unknown_library_in_only_exits_2() -> None:
    result = _run("refresh", "--only", "transformer")
    assert result.returncode == 2
    assert "--only names unknown libraries: transformer" in result.stderr


# --- Editing the table --------------------------------------------------------------------------------------------------


def test_table_edits_keep_every_comment_and_touch_only_what_changed() -> None:
    rows = {(r.library, r.owner, r.old): r for r in TABLE.renames}
    transformers = refresh.Finding("transformers", "transformers", "5.24.0", ["6.0.0"], DAY)
    transformers.changes.append(
        refresh.Change(rows[("transformers", "PreTrainedModel", "gradient_checkpointing_enable")], "removed", "")
    )
    torch = refresh.Finding("pytorch", "torch", "2.15.0", ["2.16.0"], DAY)
    text = TABLE_PATH.read_text(encoding="utf-8")
    edited = refresh.edit_table(text, TABLE, [transformers, torch])
    table = parse(edited, "aliases.yaml")
    assert table.libraries["transformers"].checked == "6.0.0" and table.libraries["pytorch"].checked == "2.16.0"
    assert [(r.version, r.date) for r in table.releases_of("transformers")][-1] == ("6.0.0", DAY)
    assert table.releases_of("pytorch") == []  # torch is not on the release timeline: only `checked` moves
    assert [r.status for r in table.renames if r.old == "gradient_checkpointing_enable" and r.kind == "method"] == [
        "removed"
    ]
    comments = lambda t: [line for line in t.splitlines() if line.lstrip().startswith("#")]
    assert comments(edited) == comments(text)
    diff = list(difflib.unified_diff(text.splitlines(), edited.splitlines(), lineterm="", n=0))
    removed = [line[1:] for line in diff if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    assert removed == ['    checked: "5.24.0"', '    checked: "2.15.0"', "    status: shipped"]
    assert sorted(added) == sorted(
        [
            '    checked: "6.0.0"',
            '    checked: "2.16.0"',
            "",
            "  - library: transformers",
            '    version: "6.0.0"',
            "    date: 2026-11-30",
            '    note: "Removes gradient_checkpointing_enable"',
            "    status: removed",
        ]
    )


# --- The whole chain ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def refreshed(
    wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A copy of the repository after `refresh --write` against the simulated releases."""
    try:
        for job in matrix.jobs_of(TABLE):
            matrix.ensure_env(job)  # the listed releases' environments, shared with the matrix tests
    except matrix.MatrixError as exc:
        _offline("the matrix environments could not be installed", exc)
    repo = copy_repo(tmp_path_factory.mktemp("refresh") / "repo")
    for cache in (matrix.CACHE_DIR, registry.CACHE):  # reuse the caches, but keep what this run adds inside the copy
        copy = repo / cache.relative_to(ROOT)
        copy.mkdir(parents=True)
        for entry in cache.iterdir():
            if not entry.name.startswith(".") and not entry.name.startswith(("transformers-6.0.0", "trl-1.17.0")):
                (copy / entry.name).symlink_to(entry)
    with _serve(wheels, new=True) as fake:
        result = _run("refresh", "--index-url", fake.url, "--only", "transformers,trl", "--write", cwd=repo)
    return repo, result


def test_newer_releases_are_detected_and_exit_1(refreshed: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    _, result = refreshed
    assert result.returncode == 1, result.stderr
    assert "| transformers | 5.24.0 | 6.0.0 | 6.0.0 |" in result.stdout
    assert "| trl | 1.16.0 | 1.17.0 | 1.17.0 |" in result.stdout
    assert "## transformers 6.0.0 (uploaded 2026-11-30)" in result.stdout


def test_the_old_names_measured_on_6_0_0_give_the_exact_errors(
    refreshed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    _, result = refreshed
    report = result.stdout
    # The count of uses is how many forms the probes try (calls, lookups, overrides...): a number the probes decide.
    assert re.search(
        r"`gradient_checkpointing_enable` → `activation_checkpointing_enable` \(PreTrainedModel\): shipped → "
        r"\*\*removed\*\*; measured: \d+ uses of `gradient_checkpointing_enable` fail \(call on a fresh model: "
        r"AttributeError: 'LlamaForCausalLM' object has no attribute 'gradient_checkpointing_enable'\)",
        report,
    )
    assert re.search(
        r"\(TrainingArguments\): shipped → \*\*removed\*\*; measured: \d+ uses of `gradient_checkpointing` fail "
        r"\(set in the constructor: TypeError: TrainingArguments.__init__\(\) got an unexpected keyword argument "
        r"'gradient_checkpointing'\)",
        report,
    )
    assert len(re.findall(r"shipped → \*\*removed\*\*", report)) == sum(
        r.status == "shipped" for r in TABLE.renames if r.library == "transformers"
    )


def test_the_trl_alias_is_proposed_as_shipped_with_its_own_warning(
    refreshed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    repo, result = refreshed
    assert (
        "planned → **shipped**; measured: 1.17.0 declares `activation_checkpointing`, and setting "
        "`gradient_checkpointing` emits its own FutureWarning"
    ) in result.stdout
    table = load(repo / "aliases.yaml")
    (row,) = [
        r for r in table.renames if r.library == "trl" and r.kind == "field" and r.old == "gradient_checkpointing"
    ]
    assert (row.status, row.since, row.warning.category, row.warning.message) == (  # type: ignore[union-attr]
        "shipped",
        "1.17.0",
        "FutureWarning",
        fakeregistry.TRL_WARNING,
    )
    # The kwargs field is not declared by the new release: it stays planned.
    assert [r.status for r in table.renames if r.library == "trl" and r.old == "gradient_checkpointing_kwargs"] == [
        "planned"
    ]


def test_the_write_records_releases_and_statuses(refreshed: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    repo, _ = refreshed
    table = load(repo / "aliases.yaml")
    assert table.libraries["transformers"].checked == "6.0.0" and table.libraries["trl"].checked == "1.17.0"
    assert [(r.version, r.date) for r in table.releases_of("transformers")][-1] == ("6.0.0", DAY)
    assert [(r.version, r.date) for r in table.releases_of("trl")][-1] == ("1.17.0", datetime.date(2026, 11, 28))
    assert {r.status for r in table.renames if r.library == "transformers" and r.since == "5.23.0"} == {"removed"}
    before, after = TABLE_PATH.read_text(encoding="utf-8"), (repo / "aliases.yaml").read_text(encoding="utf-8")
    assert [l for l in before.splitlines() if l.lstrip().startswith("#")] == [
        l for l in after.splitlines() if l.lstrip().startswith("#")
    ]


def test_the_matrix_data_holds_the_new_release(refreshed: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    repo, _ = refreshed
    data = load_matrix(repo / "data")
    (entry,) = [e for e in data.releases if (e.library, e.release) == ("transformers", "6.0.0")]
    assert entry.versions["transformers"] == "6.0.0"
    enable = [
        o
        for o in entry.outcomes
        if o.row.old == "gradient_checkpointing_enable" and o.row.kind == "method" and o.uses == "old"
    ]
    assert {o.outcome for o in enable} == {"absent"}
    assert ("trl", "1.17.0") in {(e.library, e.release) for e in data.releases}


def test_afterwards_check_and_render_check_pass(refreshed: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    repo, _ = refreshed
    for args in (("check",), ("render", "--check")):
        result = _run(*args, cwd=repo)
        assert result.returncode == 0, f"{args}: {result.stdout}{result.stderr}"
    guide = (repo / "docs" / "generated" / "migration-guide.md").read_text(encoding="utf-8")
    assert "5.23.0 → removed in 6.0.0 |" in guide


# --- The workflow -------------------------------------------------------------------------------------------------------


def test_the_workflow_is_scheduled_daily_and_pins_actions_by_sha() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as a boolean
    assert "workflow_dispatch" in triggers
    (cron,) = [t["cron"] for t in triggers["schedule"]]
    assert re.fullmatch(r"\d+ \d+ \* \* \*", cron)
    uses = [s["uses"] for job in workflow["jobs"].values() for s in job["steps"] if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert any(u.startswith("peter-evans/create-pull-request@") for u in uses)
    steps = "\n".join(s.get("run", "") for job in workflow["jobs"].values() for s in job["steps"])
    assert "python -m generator refresh --write" in steps


@pytest.mark.parametrize("workflow", sorted(p.name for p in WORKFLOW.parent.glob("*.yml")))
def test_actionlint_passes_on_every_workflow(workflow: str) -> None:
    actionlint = Path(sys.executable).with_name("actionlint")
    if not actionlint.is_file():
        if IN_CI:
            pytest.fail("actionlint is not installed (requirements.txt pins it)", pytrace=False)
        pytest.skip("actionlint is not installed (requirements.txt pins it)")
    path = WORKFLOW.parent / workflow
    result = subprocess.run([str(actionlint), "-no-color", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    uses = re.findall(r"^\s*(?:- )?uses: (\S+)", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), (
        f"{workflow}: pin actions by sha: {uses}"
    )


def test_an_edit_that_does_not_validate_writes_nothing(tmp_path: Path) -> None:
    table_path = tmp_path / "aliases.yaml"
    table_path.write_text(TABLE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    (planned, *_) = [r for r in TABLE.renames if r.status == "planned"]
    finding = refresh.Finding(planned.library, TABLE.libraries[planned.library].pypi, "1", ["2"], DAY)
    finding.changes.append(refresh.Change(planned, "shipped", "", since=None, warning=None))  # no since, no warning
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(refresh.RefreshError, match="the edited table does not validate"):
        refresh.plan(table_path, [finding])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_plan_that_probes_nothing_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`plan` writes the edited table (staged for the probe processes) only when it measures the matrix: a library
    without rows and not scanned for adoption plans the table alone, and no file is written."""
    table_path = tmp_path / "aliases.yaml"
    table_path.write_text(TABLE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    finding = refresh.Finding("lightning", TABLE.libraries["lightning"].pypi, TABLE.libraries["lightning"].checked)
    finding.newer, finding.uploaded = ["999.0"], DAY
    written: list[Path] = []
    monkeypatch.setattr(Path, "write_text", lambda path, *_, **__: written.append(path))
    outputs = refresh.plan(table_path, [finding])
    assert set(outputs) == {table_path} and "999.0" in outputs[table_path]
    assert written == []


def test_names_are_looked_up_as_whole_words_in_wheels_and_sdists(tmp_path: Path) -> None:
    import io
    import tarfile
    import zipfile

    source = b"class FSDPStrategy:\n    activation_checkpointing_policy = None  # not activation_checkpointing\n"
    wheel = tmp_path / "lib-1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zipped:
        zipped.writestr("lib/strategies.py", source)
        zipped.writestr("lib/README.md", b"recompute_grad")  # not Python source: not read
    sdist = tmp_path / "lib-1.tar.gz"
    with tarfile.open(sdist, "w:gz") as tarred:
        info = tarfile.TarInfo("lib-1/lib/strategies.py")
        info.size = len(source)
        tarred.addfile(info, io.BytesIO(source))
    words = {"FSDPStrategy", "activation_checkpointing", "recompute_grad", "Strategy"}
    assert refresh.words_in(wheel, words) == {"FSDPStrategy", "activation_checkpointing"}
    assert refresh.words_in(sdist, words) == {"FSDPStrategy", "activation_checkpointing"}
    assert refresh.word_of("--activation-checkpoint.memory-budget") == "memory_budget"
    assert refresh.word_of("PreTrainedModel.activation_checkpointing_enable()") == "activation_checkpointing_enable"


def _plan_probing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changes: list[refresh.Change]
) -> tuple[list[tuple[str, str]], dict[Path, str]]:
    """`refresh.plan` for a new PEFT release, with the probes and the adoption scan replaced (this is about which
    releases get probed): the releases probed, and the files planned."""
    from generator.measure import adoption
    from generator.measure.adoption_data import load_adoption
    from generator.measure.data import ReleaseEntry

    table_path = tmp_path / "aliases.yaml"
    table_path.write_text(TABLE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    probed: list[tuple[str, str]] = []

    def probe(job: matrix.Job, _: Path) -> ReleaseEntry:
        probed.append((job.library, job.version))
        return ReleaseEntry(job.library, job.version, {job.pypi: job.version}, (), ())

    monkeypatch.setattr(matrix, "ensure_env", lambda job: job.env)
    monkeypatch.setattr(matrix, "probe_job", probe)
    monkeypatch.setattr(adoption, "measure", lambda table, pins: ({}, load_adoption()))
    finding = refresh.Finding("peft", "peft", "0.21.2", ["0.21.3"], DAY)
    finding.files, finding.sha256 = {"0.21.3": tmp_path / "peft-0.21.3-py3-none-any.whl"}, {"0.21.3": "0" * 64}
    finding.changes += changes
    return probed, refresh.plan(table_path, [finding])


def test_refresh_probes_only_the_releases_new_since_the_matrix_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probed, outputs = _plan_probing(tmp_path, monkeypatch, [])
    assert probed == [("peft", "0.21.3")]
    committed = json.loads((ROOT / "data" / "matrix.json").read_text(encoding="utf-8"))
    written = json.loads(outputs[ROOT / "data" / "matrix.json"])
    new = [e for e in written["releases"] if (e["library"], e["release"]) == ("peft", "0.21.3")]
    assert len(new) == 1 and {**written, "releases": [e for e in written["releases"] if e not in new]} == committed
    assert ROOT / "data" / "downstream.json" not in outputs  # measured in .venv, which a new release does not change


def test_a_status_change_measures_every_release_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row's status decides which scenarios the probes try (a keyword's method pair reads another row's): after a
    change, every release is probed with the edited table."""
    (row, *_) = [r for r in TABLE.renames if r.library == "peft"]
    change = refresh.Change(row, row.status, "measured by a test", since=row.since, warning=row.warning)
    probed, _ = _plan_probing(tmp_path, monkeypatch, [change])
    assert sorted(probed) == sorted([*((j.library, j.version) for j in matrix.jobs_of(TABLE)), ("peft", "0.21.3")])


def test_refresh_write_puts_table_and_data_back_when_rendering_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator import cli
    from generator.pages import render

    table, data = tmp_path / "aliases.yaml", tmp_path / "matrix.json"
    table.write_text(TABLE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    outputs = {table: table.read_text(encoding="utf-8") + "# recorded\n", data: "{}\n"}
    monkeypatch.setattr(refresh, "run", lambda args: (1, outputs))

    def fail(*_: object, **__: object) -> dict[str, str]:
        assert table.read_text(encoding="utf-8").endswith("# recorded\n") and data.is_file()  # written before rendering
        raise render.RenderError("migration-guide.md.j2:1: a template failed")

    monkeypatch.setattr(render, "render_pages", fail)
    assert cli.main(["refresh", "--table", str(table), "--write"]) == 2
    assert table.read_text(encoding="utf-8") == TABLE_PATH.read_text(encoding="utf-8") and not data.exists()
    assert "every file restored: RenderError: migration-guide.md.j2:1" in capsys.readouterr().err
