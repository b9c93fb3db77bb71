"""The adoption report's "measured v6 impact" agrees with data/rehearsal.json and with the static verdicts.

The committed page is read (a stale page is another test's failure); counts are taken from the data here, not from
the view, and every test whose outcome (or reason to fail) changes under the preview must be on the page with what the static scan says
at the line that raised: `agrees` for a site it says fails in v6, `disagrees` for one it says keeps running.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from checkpointing_migrate.records import dump
from generator.measure import rehearsal_data
from generator.measure.adoption_data import load_adoption
from generator.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import rehearsal  # noqa: E402

PAGE = ROOT / "docs" / "generated" / "adoption-report.md"
DATA = rehearsal_data.load_rehearsal()


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("## Measured v6 impact")
    return text[start : text.index("\n## ", start + 1)]


def test_the_committed_file_loads_and_holds_all_of_it() -> None:
    committed = rehearsal_data.REHEARSAL_PATH.read_text(encoding="utf-8")
    assert dump(dataclasses.asdict(DATA)) == committed
    assert DATA.packages and all(p.tests for p in DATA.packages)


def test_each_package_row_counts_what_the_data_measured() -> None:
    section = _section()
    for p in DATA.packages:
        today = sum(1 for t in p.tests if t.today.outcome == "passed")
        preview = sum(1 for t in p.tests if t.preview.outcome == "passed")
        assert f"| {p.package} | {p.version} | {len(p.tests)} | {today} | {preview} |" in section, p.package


def test_every_changed_test_is_listed_with_what_the_static_scan_says_at_the_raising_line() -> None:
    section = _section()
    scanned = {lib.library: lib for lib in load_adoption().libraries}
    for p in DATA.packages:
        lib = scanned.get(p.package)
        sites = {f"{s.file}:{s.line}": s for s in lib.sites} if lib and lib.version == p.version else {}
        for t in p.tests:
            if (t.today.outcome, t.today.reason) == (t.preview.outcome, t.preview.reason):
                continue
            name = t.test.rpartition("::")[2]
            rows = [line for line in section.splitlines() if name in line and line.startswith("- ")]
            assert rows, f"{p.package}: {t.test} changes under the preview but is not on the page"
            site = sites.get(t.preview.where)
            if site is not None:
                verdict = "agrees" if site.v6 else "disagrees"
                assert any(verdict in row for row in rows), (t.test, verdict)


def test_a_package_the_static_scan_read_in_another_release_is_not_compared() -> None:
    section = _section()
    scanned = {lib.library: lib for lib in load_adoption().libraries}
    for p in DATA.packages:
        lib = scanned.get(p.package)
        if lib is not None and lib.version != p.version:
            row = next(line for line in section.splitlines() if line.startswith(f"| {p.package} | {p.version} |"))
            assert f"read release {lib.version}" in row and "not compared" in row


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("E   AttributeError: 'Tiny' object has no attribute 'gradient_checkpointing_enable'", "removed-name"),
        ("E   AttributeError: 'Tiny' object has no attribute 'forward_hook'", "unrelated"),
        ("E   TypeError: enable() got an unexpected keyword argument 'offload'", "type-error"),
        ("E   FutureWarning: `gradient_checkpointing_enable` is deprecated", "deprecation-warning"),
        ("E   assert 0.1 == 0.2", "assertion"),
        ("E   ModuleNotFoundError: No module named 'deepspeed'", "unrelated"),
    ],
)
def test_a_first_error_line_is_classified_by_what_it_names(line: str, reason: str) -> None:
    assert rehearsal.classify(line, rehearsal.removed_names()) == reason


def test_malformed_rehearsal_data_names_the_json_path_and_the_command(tmp_path: Path) -> None:
    document = json.loads(rehearsal_data.REHEARSAL_PATH.read_text(encoding="utf-8"))
    document["packages"][0]["tests"][0]["preview"]["reason"] = "boom"
    path = tmp_path / "rehearsal.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    with pytest.raises(rehearsal_data.RehearsalDataError) as raised:
        rehearsal_data.load_rehearsal(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:") and "packages[0].tests[0].preview.reason" in message
    assert rehearsal_data.REHEARSAL_COMMAND in message


def test_the_raising_line_is_the_deepest_use_of_a_removed_name_in_the_release(tmp_path: Path) -> None:
    peft = next(p for p in rehearsal.realcode.load()[2] if p.name == "peft")
    root = tmp_path / "tree"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_x.py").write_text("def test():\n    model.gradient_checkpointing_enable()\n")
    (root / "src" / "peft").mkdir(parents=True)
    (root / "src" / "peft" / "tuners.py").write_text(
        "def __getattr__(self, name):\n    return getattr(self.model, name)\n"
    )
    text = (
        "tests/test_x.py:2: \n_ _ _\n"
        f"{root}/src/peft/tuners.py:2: in __getattr__\n    return getattr(self.model, name)\n_ _ _\n"
        "/x/lib/python3.11/site-packages/torch/nn/modules/module.py:1967: AttributeError\n"
    )
    removed = rehearsal.removed_names()
    assert rehearsal.raised_at(text, root, peft, removed) == "tests/test_x.py:2"  # not the forwarder, not torch
    without_use = text.replace("tests/test_x.py:2: \n_ _ _\n", "")
    assert rehearsal.raised_at(without_use, root, peft, removed) == "peft/tuners.py:2"
    outside = text.split("_ _ _\n")[-1]
    assert rehearsal.raised_at(outside, root, peft, removed) == "torch/nn/modules/module.py:1967"
