"""`benchmarks/factcheck.py`: every claim it samples from the generated pages holds, and a wrong number is caught.

It reads the cached transformers wheels (as the audit tests do: downloaded once into .cache/registry/).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from generator.measure.data import load_wording
from generator.paths import ROOT

SPEC = importlib.util.spec_from_file_location("factcheck", ROOT / "benchmarks" / "factcheck.py")
assert SPEC and SPEC.loader
factcheck = importlib.util.module_from_spec(SPEC)
sys.modules["factcheck"] = factcheck  # its dataclasses look their module up while being built
SPEC.loader.exec_module(factcheck)


def test_every_sampled_claim_on_the_pages_holds(capsys: pytest.CaptureFixture[str]) -> None:
    assert factcheck.main([]) == 0
    out = capsys.readouterr().out
    summary = re.fullmatch(
        r"(\d+) claims: (\d+) right, 0 wrong or missing, \d+ not checkable here\.", out.splitlines()[-1]
    )
    assert summary, out.splitlines()[-1]
    claims, right = int(summary.group(1)), int(summary.group(2))
    assert claims >= 60 and right >= 60, out
    for page in ("naming-comparison.md", "adoption-report.md", "finding-codes.md", "migration-guide.md", "errors.md"):
        assert f"right{' ' * 37}{page}" in out, page


def test_a_wrong_count_on_the_adoption_page_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(factcheck.PAGES, tmp_path, dirs_exist_ok=True)
    page = tmp_path / "adoption-report.md"
    text = page.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| [TRL](#trl) | 1.16.0 |"))
    cells = row.split(" | ")
    cells[2] = str(int(cells[2]) + 1)  # one more failing site than the data has
    page.write_text(text.replace(row, " | ".join(cells)), encoding="utf-8")
    monkeypatch.setattr(factcheck, "PAGES", tmp_path)
    wrong = [c for c in factcheck.adoption_counts(None) if c.verdict.startswith("WRONG")]
    assert [c.claim.split(":")[0] for c in wrong] == ["trl"], wrong


def test_a_wrong_line_of_a_reworded_text_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The errors page's release-by-release wordings are checked against the wheel's line, not against our data."""
    shutil.copytree(factcheck.PAGES, tmp_path, dirs_exist_ok=True)
    page = tmp_path / "errors.md"
    text = page.read_text(encoding="utf-8")
    raised = next(w for w in load_wording().texts if w.raised and w.changed and "support" in w.versions[0].text)
    said = raised.versions[-1]  # the newest release's wording
    site = f"{said.sites[0].path}:{said.sites[0].line}"
    assert f"<code>{site}</code>" in text
    moved = f"{said.sites[0].path}:{said.sites[0].line - 100}"
    page.write_text(text.replace(f"<code>{site}</code>", f"<code>{moved}</code>"), encoding="utf-8")
    monkeypatch.setattr(factcheck, "PAGES", tmp_path)
    wrong = [c.claim for c in factcheck.reworded_texts() if c.verdict.startswith("WRONG")]
    assert len(wrong) == 1 and wrong[0].startswith(f"{said.release} {moved} says"), wrong
