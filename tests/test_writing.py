"""`writing.write_if_changed`: the one transaction behind `render`, `refresh --write` and the measuring commands."""

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
