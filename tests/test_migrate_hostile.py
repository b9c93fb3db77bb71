"""Hostile trees: `fix --write` writes all files or none, keeps links, owners and modes; odd files never hang or crash."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from migratekit import REQUIREMENT, run
from sitekit import IN_CI

from checkpointing_migrate import commands, jsonpos, plan, writing
from checkpointing_migrate.cli import main

CALL = "model.gradient_checkpointing_enable()\n"
"""A call the tool has no evidence about (an unsafe fix): the tests of file handling apply it with --unsafe-fixes."""
NEW = "model.activation_checkpointing_enable()\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# --- All or nothing ------------------------------------------------------------------------------------------------


def test_a_read_only_file_is_reported_and_nothing_is_written(project: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (project / name).write_text(CALL)
    (project / "b.py").chmod(0o444)  # root could write it anyway: the mode bits decide
    before = snapshot(project)
    result = run("fix", "--write", "--unsafe-fixes", str(project))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{project / 'b.py'}:1:1: error: is read-only (mode 444)" in result.stderr
    assert "nothing was written" in result.stderr
    assert snapshot(project) == before  # a.py, before b.py in walk order, is untouched too
    assert sorted(p.name for p in project.iterdir()) == ["a.py", "b.py", "c.py", "pyproject.toml"]


def test_a_folder_that_cannot_take_a_file_means_nothing_is_written(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("a", "b"):
        (project / folder).mkdir()
        (project / folder / "x.py").write_text(CALL)
    before = snapshot(project)
    real = writing.tempfile.mkstemp

    def mkstemp(*args: object, dir: str, **kwargs: object) -> tuple[int, str]:
        if Path(dir) == (project / "b").resolve():
            raise PermissionError(13, "Permission denied")  # what a folder without write permission gives
        return real(*args, dir=dir, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(writing.tempfile, "mkstemp", mkstemp)
    assert main(["fix", "--write", "--unsafe-fixes", str(project)]) == 1
    err = capsys.readouterr().err
    assert f"{project / 'b' / 'x.py'}:1:1: error: cannot be written in place (Permission denied" in err
    assert "nothing was written: 1 of 2 files" in err
    assert snapshot(project) == before  # a/x.py was staged, then discarded
    assert sorted(p.name for p in (project / "a").iterdir()) == ["x.py"]


def test_a_file_changed_since_it_was_read_is_not_overwritten(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script, other = project / "old.py", project / "other.py"
    script.write_text(CALL)
    other.write_text(CALL)
    real = commands.check_all

    def check_then_edit(*args: object, **kwargs: object) -> list[object]:
        results = real(*args, **kwargs)  # type: ignore[arg-type]
        script.write_text(CALL + "# edited by someone else meanwhile\n")
        return results  # type: ignore[return-value]

    monkeypatch.setattr(commands, "check_all", check_then_edit)
    assert main(["fix", "--write", "--unsafe-fixes", str(project)]) == 1
    assert f"{script}:1:1: error: changed since it was read" in capsys.readouterr().err
    assert script.read_text() == CALL + "# edited by someone else meanwhile\n" and other.read_text() == CALL


def test_a_failure_midway_names_what_was_written_and_what_was_not(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (project / name).write_text(CALL)
    real = os.replace

    def replace(src: str, dst: str) -> None:
        if Path(dst).name == "b.py":
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(writing.os, "replace", replace)
    assert main(["fix", "--write", "--unsafe-fixes", str(project)]) == 1
    err = capsys.readouterr().err
    assert f"{project / 'b.py'}:1:1: error: could not be put in place: No space left on device" in err
    assert f"wrote {project / 'a.py'}; not written: {project / 'b.py'}, {project / 'c.py'}." in err
    assert [(project / n).read_text() for n in ("a.py", "b.py", "c.py")] == [NEW, CALL, CALL]
    assert sorted(p.name for p in project.iterdir()) == ["a.py", "b.py", "c.py", "pyproject.toml"]  # no temp file left


# --- What a write keeps --------------------------------------------------------------------------------------------


def test_a_symlink_stays_a_link_and_its_target_is_written_once(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "real").mkdir()
    target = project / "real" / "train.py"
    target.write_text(CALL)
    link = project / "link.py"
    link.symlink_to(Path("real") / "train.py")
    staged: list[Path] = []
    real = writing.stage
    monkeypatch.setattr(plan.writing, "stage", lambda path, data, **kw: staged.append(path) or real(path, data, **kw))
    assert (
        main(["fix", "--write", "--unsafe-fixes", str(project)]) == 0
    )  # the walk meets the file twice: as the link and as itself
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "train.py")
    assert target.read_text() == NEW and staged == [target.resolve()]


def _needs_root() -> None:
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("giving a file to another user needs root; CI must run these tests as root", pytrace=False)
        pytest.skip("giving a file to another user needs root")


def test_owner_group_and_mode_are_kept(project: Path) -> None:
    _needs_root()
    script = project / "old.py"
    script.write_text(CALL)
    os.chown(script, 12345, 12345)
    script.chmod(0o640)
    assert run("fix", "--write", "--unsafe-fixes", str(script)).returncode == 0
    info = script.stat()
    assert script.read_text() == NEW
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (12345, 12345, 0o640)


def test_a_hard_linked_file_is_reported_not_split(project: Path) -> None:
    script = project / "old.py"
    script.write_text(CALL)
    os.link(script, project / "twin.txt")
    result = run("fix", "--write", "--unsafe-fixes", str(script))
    assert result.returncode == 1 and "has 2 hard links" in result.stderr
    assert (project / "twin.txt").read_text() == CALL == script.read_text()


def test_atomic_write_and_write_if_changed(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("old\n")
    (tmp_path / "t.txt").chmod(0o600)
    (tmp_path / "l.txt").symlink_to("t.txt")
    assert writing.atomic_write(tmp_path / "l.txt", "new\n") == tmp_path / "t.txt"
    assert (tmp_path / "l.txt").is_symlink() and (tmp_path / "t.txt").read_text() == "new\n"
    assert stat.S_IMODE((tmp_path / "t.txt").stat().st_mode) == 0o600
    files = {tmp_path / "t.txt": "new\n", tmp_path / "sub" / "n.txt": "n\n"}
    assert writing.stale(files) == [tmp_path / "sub" / "n.txt"]
    mtime = (tmp_path / "t.txt").stat().st_mtime_ns
    assert writing.write_if_changed(files) == [tmp_path / "sub" / "n.txt"]
    assert writing.stale(files) == [] and writing.write_if_changed(files) == []
    assert (tmp_path / "t.txt").stat().st_mtime_ns == mtime
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "sub" / "n.txt").stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["l.txt", "n.txt", "sub", "t.txt"]


# --- Odd files and trees -------------------------------------------------------------------------------------------


def test_fifos_are_reported_and_never_opened(project: Path) -> None:
    os.mkfifo(project / "pipe.py")
    os.mkfifo(project / "pipe")  # no suffix: would be sniffed for a `#!` line if it were a regular file
    (project / "old.py").write_text(CALL)
    result = run("scan", str(project), timeout=60)  # opening either FIFO would block forever
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{project / 'pipe.py'}:1:1: error: not a regular file (a FIFO); skipped" in result.stderr
    assert "pipe:" not in result.stderr.replace("pipe.py:", "") and "old.py:1:7: fix (unsafe) [call]" in result.stdout
    assert run("scan", str(project / "pipe.py"), timeout=60).returncode == 1


@pytest.fixture
def nested(project: Path) -> Iterator[list[Path]]:
    """1000 nested folders, removed again from the bottom up: pytest's own clean-up of old temporary folders
    recurses (`shutil.rmtree`) and would end in RecursionError on them, in every later pytest run on the machine."""
    folders, folder = [], project
    for _ in range(1000):  # one by one: `mkdir(parents=True)` recurses too
        folder /= "d"
        folder.mkdir()
        folders.append(folder)
    try:
        yield folders
    finally:
        for folder in reversed(folders):
            for child in folder.iterdir():
                if not child.is_dir():
                    child.unlink()
            folder.rmdir()


def test_a_thousand_nested_folders_give_an_error_not_a_recursion_error(project: Path, nested: list[Path]) -> None:
    (nested[-1] / "old.py").write_text(CALL)
    (nested[9] / "near.py").write_text(CALL)
    result = run("scan", str(project))
    assert result.returncode == 1 and "RecursionError" not in result.stderr and "Traceback" not in result.stderr
    assert f"{nested[256]}:1:1: error: folder nested more than 256 levels below {project}" in result.stderr
    assert "near.py:1:7: fix (unsafe) [call]" in result.stdout and "old.py" not in result.stdout


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("deep.json", '{"gradient_checkpointing": ' + "[" * 700 + "]" * 700 + "}", "1:227"),
        ("deep.yaml", "gradient_checkpointing: " + "[" * 700 + "]" * 700 + "\n", "1:224"),
        (
            "deep.ipynb",
            '{"cells": [{"cell_type": "code", "source": ["model.gradient_checkpointing_enable()"], "metadata": '
            + "[" * 700
            + "]" * 700
            + "}]}",
            "1:296",
        ),  # the cell is level 3: the 198th bracket is level 201
        ("deep.py", "x = " + "a + " * 20000 + "a\n" + CALL, "1:1"),
    ],
)
def test_deep_nesting_gives_a_file_error(project: Path, name: str, text: str, where: str) -> None:
    path = project / name
    path.write_text(text)
    result = run("fix", "--write", "--unsafe-fixes", str(path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{path}:{where}: error: " in result.stderr and "nested" in result.stderr
    assert path.read_text() == text
    if name != "deep.py":
        assert f"nested deeper than {jsonpos.MAX_NESTING} levels" in result.stderr


def test_a_file_over_the_size_limit_is_reported_unread(project: Path) -> None:
    big = project / "big.py"
    big.write_bytes(CALL.encode() + b"#" * 11_000_000 + b"\n")
    result = run("scan", str(project))
    assert result.returncode == 1 and "0 findings" in result.stdout
    assert f"{big}:1:1: error: 11 MB, over the 10 MB limit; skipped: pass --max-file-size 12MB" in result.stderr
    small = project / "small.py"
    small.write_text(CALL + "#" * 2000 + "\n")
    assert "over the 1 kB limit" in run("scan", "--max-file-size", "1kB", str(small)).stderr
    (announced,) = run("scan", "--max-file-size", "3kB", str(small)).stderr.splitlines()  # no error, only the gate
    assert announced.startswith("checkpointing-migrate: transformers>=")
    assert "fix (unsafe) [call]" in run("scan", "--max-file-size", "3kB", str(small)).stdout
    usage = run("scan", "--max-file-size", "lots", str(small))
    assert usage.returncode == 2 and "is not a size" in usage.stderr and "Traceback" not in usage.stderr


def test_json_output_carries_file_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.json").write_text('{"gradient_checkpointing": true,}')
    (project / "old.py").write_text(CALL)
    assert main(["scan", "--format", "json", str(project)]) == 1
    finding, error = json.loads(capsys.readouterr().out)
    assert error == {
        "path": str(project / "broken.json"),
        "line": 1,
        "column": 33,
        "severity": "error",
        "old": None,
        "new": None,
        "code": "file-error",
        "message": error["message"],
        "applicability": None,
        "cell": None,
    }
    assert "not valid JSON" in error["message"] and finding["code"] == "call"


@pytest.mark.parametrize(
    "target",
    [
        "transformers>=5.23.0,<5.23.0",
        "transformers==5.23.0,!=5.23.0",
        "transformers>=6,<5",
        "transformers!=5.23.*,>=5.23,<5.24",
    ],
)
def test_a_target_no_release_meets_is_a_usage_error(project: Path, target: str) -> None:
    (project / "old.py").write_text(CALL)
    result = run("fix", "--write", "--unsafe-fixes", "--target", target, str(project))
    assert result.returncode == 2 and "allows no release at all" in result.stderr and "Traceback" not in result.stderr
    assert (project / "old.py").read_text() == CALL


@pytest.mark.parametrize(
    "target",
    [
        "transformers>5.23.0rc1,<5.23.0rc2",
        "transformers>5.23.0.post1,<5.23.0.post3",
        "transformers==5.23.*",
        "transformers",
    ],
)
def test_narrow_targets_some_release_meets_are_accepted(project: Path, target: str) -> None:
    (project / "old.py").write_text(CALL)
    assert main(["scan", "--target", target, str(project)]) in (0, 1)


def test_many_uses_in_one_file_get_their_own_lines(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Past a few uses, lines come from bisecting the line starts rather than counting newlines (which was quadratic).
    lines = [CALL if n % 3 == 0 else f"x = {n}\n" for n in range(300)]
    (project / "many.py").write_text("".join(lines))
    main(["scan", str(project)])
    found = [int(line.split(":")[1]) for line in capsys.readouterr().out.splitlines() if "fix (unsafe) [call]" in line]
    assert found == [n + 1 for n in range(300) if n % 3 == 0]


def test_an_owner_that_cannot_be_kept_stops_fix_but_not_generated_files(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs_root()
    script, page = project / "old.py", project / "page.md"
    script.write_text(CALL)
    page.write_text("old\n")
    for path in (script, page):
        os.chown(path, 12345, 12345)

    def chown(*args: object) -> None:  # what a user other than root meets
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(writing.os, "chown", chown)
    assert main(["fix", "--write", "--unsafe-fixes", str(script)]) == 1
    assert "cannot be written in place (Operation not permitted" in capsys.readouterr().err
    assert script.read_text() == CALL and script.stat().st_uid == 12345
    assert writing.write_if_changed({page: "new\n"}) == [page] and page.read_text() == "new\n"  # kept where permitted
