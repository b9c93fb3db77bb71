"""`writing.transaction`: the one transaction behind `render`, `refresh --write`, `fix --write` and the measuring commands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkpointing_migrate import writing


def test_a_failed_replace_puts_back_every_file_already_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, third = tmp_path / "a.md", tmp_path / "b.md", tmp_path / "new" / "c.md"
    first.write_text("old a")
    second.write_text("old b")
    real = os.replace
    calls = []

    def failing_second(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(writing.os, "replace", failing_second)
    with pytest.raises(OSError, match="No space left"):
        writing.write_if_changed({first: "new a", second: "new b", third: "new c"})
    monkeypatch.setattr(writing.os, "replace", real)
    assert first.read_text() == "old a" and second.read_text() == "old b" and not third.exists()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["a.md", "b.md"]  # no temporary file left


def test_only_changed_files_are_written_and_named(tmp_path: Path) -> None:
    same, changed = tmp_path / "same.md", tmp_path / "changed.md"
    same.write_text("x")
    changed.write_text("x")
    before = same.stat().st_mtime_ns
    assert writing.write_if_changed({same: "x", changed: "y"}) == [changed]
    assert changed.read_text() == "y" and same.stat().st_mtime_ns == before


def test_a_transaction_that_fails_puts_back_every_file_it_wrote(tmp_path: Path) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "sub" / "new.txt"
    old.write_text("before\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="the second step failed"), writing.transaction() as files:
        assert files.write_if_changed({old: "after\n"}) == [old]
        assert files.write_if_changed({new: "created\n", old: "after\n"}) == [new]
        assert old.read_text(encoding="utf-8") == "after\n" and new.is_file()
        raise RuntimeError("the second step failed")
    assert old.read_text(encoding="utf-8") == "before\n" and not new.exists()
    with writing.transaction() as files:  # a block that succeeds keeps what it wrote
        files.write_if_changed({old: "kept\n"})
    assert old.read_text(encoding="utf-8") == "kept\n"


def test_what_a_transaction_staged_but_never_put_in_place_leaves_no_file(tmp_path: Path) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("before\n")
    with writing.transaction() as files:  # `fix --write` returns like this when a check fails after staging
        files.stage(kept, b"after\n")
        assert len(list(tmp_path.iterdir())) == 2
    assert list(tmp_path.iterdir()) == [kept] and kept.read_text() == "before\n"


def test_without_undo_a_failed_replace_keeps_the_files_put_in_place_and_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, third = (tmp_path / n for n in ("a", "b", "c"))
    real = writing.os.replace

    def replace(src: str, dst: str) -> None:
        if Path(dst) == second:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(writing.os, "replace", replace)
    with pytest.raises(writing.Unfinished) as failed, writing.transaction(undo=False) as files:
        for path in (first, second, third):
            files.stage(path, path.name.encode())
        files.commit()
    assert [one.target for one in failed.value.done] == [first] and failed.value.failed.target == second
    assert failed.value.strerror == "No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"] and first.read_text() == "a"
