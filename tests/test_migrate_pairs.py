"""Fixture pairs: each `NAME.before.EXT` under tests/fixtures/migrate/pairs becomes `NAME.after.EXT` after
`fix --write`, byte for byte (and `NAME.unsafe.EXT`, where there is one, with `--unsafe-fixes`); every other fixture is left exactly as it is; every line marked `# hazard` is
reported as a hazard (and no other line is), and a second run changes nothing.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from checkpointing_migrate import rules
from checkpointing_migrate.cli import main
from checkpointing_migrate.paths import TABLE_PATH
from checkpointing_migrate.table import load

PAIRS = Path(__file__).parent / "fixtures" / "migrate" / "pairs"
BEFORE = sorted(PAIRS.glob("*.before.*"))
UNTOUCHED = sorted(p for p in PAIRS.iterdir() if all(m not in p.name for m in (".before.", ".after.", ".unsafe.")))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixtures copied to a project folder, each `.before.` file under its plain name."""
    for path in PAIRS.iterdir():
        if ".after." not in path.name and ".unsafe." not in path.name:
            shutil.copy(path, tmp_path / path.name.replace(".before.", "."))
    return tmp_path


def _unsafe(before: Path) -> Path:
    return before.with_name(before.name.replace(".before.", ".unsafe."))


def _hazard_lines(path: Path) -> set[tuple[str, int]]:
    text = path.read_bytes().decode("utf-8")
    return {
        (path.name.replace(".before.", "."), n)
        for n, line in enumerate(text.splitlines(), 1)
        if re.search(r"#\s*hazard\b", line)
    }


def test_there_are_pairs_for_every_file_type() -> None:
    suffixes = {p.suffix for p in BEFORE}
    assert suffixes >= {".py", ".yaml", ".yml", ".json", ".sh", ".md", ".ipynb"}


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_fix_turns_before_into_after(project: Path, before: Path) -> None:
    assert main(["fix", "--write", str(project)]) in (0, 1)
    after = PAIRS / before.name.replace(".before.", ".after.")
    assert (project / before.name.replace(".before.", ".")).read_bytes() == after.read_bytes()


@pytest.mark.parametrize("before", [p for p in BEFORE if _unsafe(p).exists()], ids=lambda p: p.name)
def test_unsafe_fixes_turn_before_into_unsafe_and_stay(project: Path, before: Path) -> None:
    fixed = project / before.name.replace(".before.", ".")
    for _ in range(2):  # a second run changes nothing
        assert main(["fix", "--write", "--unsafe-fixes", str(project)]) in (0, 1)
        assert fixed.read_bytes() == _unsafe(before).read_bytes()


@pytest.mark.parametrize("fixture", UNTOUCHED, ids=lambda p: p.name)
def test_fix_leaves_the_other_fixtures_alone(project: Path, fixture: Path) -> None:
    main(["fix", "--write", str(project)])
    assert (project / fixture.name).read_bytes() == fixture.read_bytes()


def test_every_marked_line_and_only_those_are_hazards(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = set().union(
        *(_hazard_lines(p) for p in PAIRS.iterdir() if ".after." not in p.name and ".unsafe." not in p.name)
    )
    assert main(["scan", "--min-severity", "hazard", "--format", "json", str(project)]) == 1
    entries = json.loads(capsys.readouterr().out)
    assert {e["severity"] for e in entries} == {"hazard"}  # `hazard` is the top of hazard > fix > info
    found = {(Path(e["path"]).name, e["line"]) for e in entries}  # a notebook's line is the file's, as marked
    assert found == expected


def test_a_second_fix_changes_nothing(project: Path) -> None:
    main(["fix", "--write", str(project)])
    first = {p.name: p.read_bytes() for p in project.iterdir()}
    main(["fix", "--write", str(project)])
    assert {p.name: p.read_bytes() for p in project.iterdir()} == first


def test_after_files_have_no_safe_fix_left(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["fix", "--write", str(project)])
    capsys.readouterr()
    main(["scan", "--format", "json", str(project)])
    left = [f for f in json.loads(capsys.readouterr().out) if f["severity"] == "fix"]
    assert left and {f["applicability"] for f in left} == {"unsafe"}  # the fixtures' uses without evidence


def test_unsafe_fixes_apply_only_when_asked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["fix", "--write", str(project)])
    assert "peft_model.base_model.model.gradient_checkpointing_enable()" in (project / "model_methods.py").read_text()
    main(["fix", "--write", "--unsafe-fixes", str(project)])
    capsys.readouterr()
    assert "peft_model.base_model.model.activation_checkpointing_enable()" in (project / "model_methods.py").read_text()
    main(["scan", "--format", "json", str(project)])
    assert '"severity": "fix"' not in capsys.readouterr().out


def _library_findings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> dict[tuple[str, int, str], dict[str, object]]:
    """The findings on the pairs of parsers given libraries' dataclasses, by file, line and old name."""
    capsys.readouterr()
    main(["scan", "--format", "json", str(project)])
    names = ("library_parsers.sh", "library_parsed.yaml", "lora_parsed.yaml")
    return {
        (Path(e["path"]).name, e["line"], e["old"]): e
        for e in json.loads(capsys.readouterr().out)
        if Path(e["path"]).name in names
    }


def test_a_parser_given_a_dataclass_the_tool_has_not_measured_says_which(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PEFT's `LoraConfig` (not measured) keeps a flag and a key unsafe, naming it; TRL's measured ones do not."""
    found = _library_findings(project, capsys)
    assert {k: (e["severity"], e["applicability"]) for k, e in found.items()} == {
        ("library_parsers.sh", 4, "--gradient_checkpointing"): ("fix", "safe"),
        ("library_parsers.sh", 4, "--gradient_checkpointing_kwargs"): ("fix", "safe"),
        ("library_parsers.sh", 5, "--gradient_checkpointing"): ("fix", "unsafe"),
        ("library_parsed.yaml", 4, "gradient_checkpointing"): ("fix", "safe"),
        ("lora_parsed.yaml", 3, "gradient_checkpointing"): ("fix", "unsafe"),
    }
    reason = "`LoraConfig` is not in this file: it may declare `gradient_checkpointing` itself"
    assert reason in str(found["library_parsers.sh", 5, "--gradient_checkpointing"]["message"])
    assert reason in str(found["lora_parsed.yaml", 3, "gradient_checkpointing"]["message"])


def test_a_library_dataclass_measured_with_the_field_keeps_it_unsafe(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were TRL's `ModelConfig` measured to declare the renamed fields (as a TRL release that added them would be), its
    parser would read them into that dataclass: the pairs' safe fixes for it become unsafe ones that name it."""
    measured = rules.load_classes()
    model_config = measured.library_dataclasses["ModelConfig"]
    declaring = replace(model_config, fields=(*model_config.fields, *rules.from_table(load(TABLE_PATH)).fields))
    dataclasses_ = {**measured.library_dataclasses, "ModelConfig": declaring}
    monkeypatch.setattr(rules, "load_classes", lambda: replace(measured, library_dataclasses=dataclasses_))
    found = _library_findings(project, capsys)
    release = measured.sources["trl"]
    for (name, line, old), cls in {
        ("library_parsers.sh", 4, "--gradient_checkpointing"): "ModelConfig",
        ("library_parsers.sh", 4, "--gradient_checkpointing_kwargs"): "ModelConfig",
        ("library_parsed.yaml", 4, "gradient_checkpointing"): "trl.ModelConfig",
    }.items():
        finding = found[name, line, old]
        assert finding["applicability"] == "unsafe"
        field = old.lstrip("-")
        assert f"`{cls}` declares `{field}` itself (measured in trl {release})" in str(finding["message"])
    main(["fix", "--write", str(project)])
    for name in ("library_parsers.sh", "library_parsed.yaml"):
        assert (project / name).read_bytes() == (PAIRS / name.replace(".", ".before.", 1)).read_bytes()
    main(["fix", "--write", "--unsafe-fixes", str(project)])
    assert (project / "library_parsers.sh").read_bytes() == (PAIRS / "library_parsers.unsafe.sh").read_bytes()
    assert (project / "library_parsed.yaml").read_bytes() == (PAIRS / "library_parsed.after.yaml").read_bytes()
