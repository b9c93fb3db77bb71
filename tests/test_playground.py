"""The Try it page's runtime as the build publishes it: the pinned downloads checked by sha256, the tool's own wheel,
a manifest from the table; a bad pin or a tampered download stops the build with what to run. (What the page does
with it, in Chromium, is in tests/test_browser.py.)
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from checkpointing_migrate import codes
from checkpointing_migrate.table import load
from generator.pages import playground
from generator.paths import ROOT, TABLE_PATH
from tests.migratekit import SINCE


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    playground.publish(site, load(TABLE_PATH))
    return site / playground.SITE_FOLDER


def test_the_runtime_is_published_with_a_manifest_from_the_table(published: Path) -> None:
    manifest = json.loads((published / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["requirement"] == f">={SINCE}"
    files = {a["file"]: a for a in manifest["archives"]}
    assert set(files) == {p.name for p in published.iterdir() if p.is_file() and p.name != "manifest.json"}
    for name in playground.PYODIDE_FILES:
        assert (published / "pyodide" / name).stat().st_size > 0
    # Every code links its own section of this site's guide, which the link test checks like any other anchor.
    assert set(manifest["guide"]) >= set(codes.CODES)
    assert all(link.startswith(playground.GUIDE_PAGE) for link in manifest["guide"].values())


def test_the_page_runs_the_wheel_of_this_checkout(published: Path) -> None:
    (wheel,) = published.glob("checkpointing_migrate-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        bundled = archive.read("checkpointing_migrate/_bundled/aliases.yaml")
        stdin_module = archive.read("checkpointing_migrate/stdin.py")
    assert bundled == TABLE_PATH.read_bytes()
    assert stdin_module == (ROOT / "checkpointing_migrate/stdin.py").read_bytes()
    assert not [n for n in names if n.startswith("generator/")]


def test_pyyaml_is_its_pure_python_source(published: Path) -> None:
    (archive_path,) = published.glob("pyyaml-*.zip")
    with zipfile.ZipFile(archive_path) as archive:
        names = archive.namelist()
    assert "yaml/__init__.py" in names and all(n.startswith("yaml/") and n.endswith(".py") for n in names)


def test_a_tampered_download_stops_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playground, "CACHE", tmp_path)
    pin = playground.pins()["packaging"]
    (tmp_path / pin.file).write_bytes(b"not the wheel")
    with pytest.raises(
        playground.PlaygroundError, match=r"sha256 .*, but playground.pins pins .*; delete it and run `make setup`"
    ):
        playground._checked(pin)
    (tmp_path / pin.file).unlink()
    with pytest.raises(playground.PlaygroundError, match=r"missing .*run `make setup` to download it"):
        playground._checked(pin)


def test_a_bad_pin_line_is_named_by_position(tmp_path: Path) -> None:
    pins = tmp_path / "playground.pins"
    pins.write_text("# comment\nnpm pyodide 314.0.8 pyodide-314.0.8.tgz\n", encoding="utf-8")
    with pytest.raises(playground.PlaygroundError, match=rf"^{pins}:2:1: expected `npm\|sdist\|wheel NAME"):
        playground.pins(pins)


def test_the_pins_are_the_versions_the_makefile_fetches() -> None:
    pins = playground.pins()
    assert set(pins) == {"pyodide", "pyyaml", "packaging"}
    assert all(len(p.sha256) == 64 and p.version in p.file for p in pins.values())
    assert "generator/pages/playground.pins" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_without_the_downloads_the_build_publishes_no_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A build of a copy of the sources (or before `make setup`) still builds; the page then says what is missing.
    monkeypatch.setattr(playground, "CACHE", tmp_path)
    assert [p.name for p in playground.missing()] == list(playground.pins())
    assert "this build has no Python runtime" in (ROOT / "docs/assets/javascripts/playground.js").read_text()


def test_building_a_wheel_keeps_the_recent_wheels_of_other_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checkouts and test workers sharing the cache each build their own source: a build evicts only the least
    recently used wheels, never one another checkout built a moment ago."""
    monkeypatch.setattr(playground, "CACHE", tmp_path)
    folders = []
    for age in range(6):  # the oldest last
        folder = tmp_path / f"wheel-other{age}"
        folder.mkdir()
        (folder / "x.whl").write_bytes(b"")
        os.utime(folder, (1_000_000 - age * 1000, 1_000_000 - age * 1000))
        folders.append(folder)
    wheel = playground.tool_wheel()
    kept = sorted(p.name for p in tmp_path.glob("wheel-*"))
    assert wheel.parent.name in kept and len(kept) == playground.KEPT_WHEELS
    assert [f.name for f in folders[: playground.KEPT_WHEELS - 1]] == [n for n in kept if n != wheel.parent.name]
    assert playground.tool_wheel() == wheel  # the same source: built once
