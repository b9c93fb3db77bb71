"""The generator end to end: CLI behaviour, fresh committed pages, a new row reaching every page, escaping."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkpointing_migrate.table import TABLE_PROBLEMS, load
from generator import paths
from generator.cli import main
from generator.pages import render

ROOT = paths.ROOT

PLANNED_ROW = """
  - library: transformers
    kind: method
    owner: PreTrainedModel
    old: enable_input_require_grads
    new: enable_input_grads_for_checkpointing
    status: planned
    note: "Row added by a test: <script>alert(1)</script> | not a cell break"
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the table, templates and docs to render into."""
    shutil.copy(ROOT / "aliases.yaml", tmp_path / "aliases.yaml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=ROOT, capture_output=True, text=True)


def test_committed_pages_are_what_the_table_renders() -> None:
    result = run_cli("render", "--check")
    assert result.returncode == 0, f"stale generated pages; run `python -m generator render`:\n{result.stderr}"


def test_check_accepts_the_real_table() -> None:
    result = run_cli("check")
    assert result.returncode == 0 and result.stderr == ""
    assert "renames" in result.stdout


def test_a_new_row_appears_in_every_page_that_lists_renames(repo: Path) -> None:
    (repo / "aliases.yaml").write_text((repo / "aliases.yaml").read_text() + PLANNED_ROW)
    assert main(["render", "--table", str(repo / "aliases.yaml"), "--docs", str(repo / "docs")]) == 0
    generated = repo / "docs" / render.GENERATED_DIR
    guide = (generated / "migration-guide.md").read_text()
    timeline = (generated / "timeline.md").read_text()
    assert guide.count(">enable_input_grads_for_checkpointing</code>") >= 2  # "not renamed yet" and its section
    matrix = timeline[timeline.index("## Behaviour by release") :]
    # The grid has a row for the pair, old name above the new one.
    assert (
        '<code class="ck-old">enable_input_require_grads</code><br>→ '
        '<code class="ck-new">enable_input_grads_for_checkpointing</code>'
    ) in matrix
    # The table's text is data: it can neither inject HTML nor break a table row.
    assert "<script>" not in guide and "&lt;script&gt;alert(1)&lt;/script&gt; \\| not a cell break" in guide


def test_render_writes_only_what_changed(repo: Path) -> None:
    args = ["render", "--table", str(repo / "aliases.yaml"), "--docs", str(repo / "docs")]
    assert main(args) == 0
    page = repo / "docs" / render.GENERATED_DIR / "timeline.md"
    page.unlink()
    before = {p: p.stat().st_mtime_ns for p in (repo / "docs" / render.GENERATED_DIR).iterdir()}
    assert main(args) == 0
    assert page.exists()
    assert all(p.stat().st_mtime_ns == mtime for p, mtime in before.items())


def test_render_check_names_stale_pages_and_writes_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "aliases.yaml").write_text((repo / "aliases.yaml").read_text() + PLANNED_ROW)
    snapshot = {p: p.read_text() for p in (repo / "docs").rglob("*.md")}
    code = main(["render", "--check", "--table", str(repo / "aliases.yaml"), "--docs", str(repo / "docs")])
    assert code == 1
    err = capsys.readouterr().err
    assert "migration-guide.md: stale" in err and "timeline.md: stale" in err
    assert {p: p.read_text() for p in (repo / "docs").rglob("*.md")} == snapshot


def test_a_malformed_table_gets_positions_exit_2_no_traceback_and_no_writes(repo: Path) -> None:
    table = repo / "aliases.yaml"
    text = table.read_text()
    broken = text.replace("status: shipped", "status: shiped", 1).replace("kind: method", "kind: methd", 1)
    table.write_text(broken)
    snapshot = {p: p.read_bytes() for p in (repo / "docs").rglob("*.md")}
    result = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--table", str(table), "--docs", str(repo / "docs")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == TABLE_PROBLEMS == 2  # the tool's exit for the same table (test_migrate_cli)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    shiped = broken.splitlines().index(next(l for l in broken.splitlines() if "status: shiped" in l)) + 1
    assert any(l.startswith(f"{table}:{shiped}:") and "did you mean 'shipped'?" in l for l in lines), lines
    assert any("unknown kind 'methd'; did you mean 'method'?" in l for l in lines), lines
    assert lines[-1].endswith("nothing was written.")
    assert {p: p.read_bytes() for p in (repo / "docs").rglob("*.md")} == snapshot


def test_a_template_mistake_names_the_template_line(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    page = templates / "timeline.md.j2"
    page.write_text(page.read_text() + "\n{{ no_such_variable }}\n")
    line = page.read_text().count("\n")
    with pytest.raises(render.RenderError, match=rf"timeline\.md\.j2:{line}: UndefinedError"):
        render.render_pages(load(ROOT / "aliases.yaml"), templates)


def test_usage_errors_exit_2() -> None:
    assert run_cli("nonsense").returncode == 2
    assert run_cli().returncode == 2


def test_a_new_row_reaches_the_built_site(tmp_path: Path) -> None:
    """The hook renders before MkDocs reads the pages, so a table edit needs no separate render step."""
    for name in ("aliases.yaml", "mkdocs.yml", "pyproject.toml"):  # pyproject.toml: the tool's name on the pages
        shutil.copy(ROOT / name, tmp_path / name)
    for name in (
        "generator",
        "checkpointing_migrate",
        "templates",
        "docs",
        "data",
    ):  # data/: measured matrix and adoption data the pages render
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "aliases.yaml").write_text((tmp_path / "aliases.yaml").read_text() + PLANNED_ROW)
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    for page in ("migration-guide", "timeline"):
        html = (tmp_path / "site" / "generated" / page / "index.html").read_text()
        assert ">enable_input_grads_for_checkpointing</code>" in html, page


def test_every_rename_is_its_own_table_row() -> None:
    """A template that loses a row's line break glues rows together: Markdown then shows one row with many cells."""
    guide = (ROOT / "docs" / render.GENERATED_DIR / "migration-guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## All renames at a glance") : guide.index("## Training scripts")]
    rows = [line for line in section.splitlines() if line.startswith("| <code")]
    table = load(ROOT / "aliases.yaml")
    assert [line.split(" | ")[0] for line in rows] == [
        f'| <code class="ck-old">{r.old}</code>' for r in table.renames if r.status == "shipped"
    ]
    assert all(line.count(" | ") == 4 for line in rows), rows  # five cells each
