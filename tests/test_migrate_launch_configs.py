"""A config's key is a safe fix only where its reader is proven (issue 18): by a launch command of the project (a shell
script, a Makefile recipe after `cd`, a README fence, a workflow step in its `working-directory`) whose script parses
the file with `HfArgumentParser(TrainingArguments)`, or `trl CMD --config PATH`. Each `X.before.EXT` under tests/fixtures/migrate/configs becomes
`X.after.EXT` after `fix --write` (and `X.unsafe.EXT` with `--unsafe-fixes`), byte for byte, and a second run changes
nothing; the config a script loads with `yaml.safe_load` is a hazard that names the launch and the load.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from checkpointing_migrate.cli import main

TREE = Path(__file__).parent / "fixtures" / "migrate" / "configs"
BEFORE = sorted(p.relative_to(TREE) for p in TREE.rglob("*.before.*"))
MODES = {"after": [], "unsafe": ["--unsafe-fixes"]}


def _as(before: Path, mode: str) -> Path:
    return before.with_name(before.name.replace(".before.", f".{mode}." if mode else "."))


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The fixture tree as a project, fixed in each mode; the bytes after a second run are checked too."""
    out = {}
    for mode, extra in MODES.items():
        project = tmp_path_factory.mktemp(mode)
        for path in TREE.rglob("*"):
            name = path.relative_to(TREE)
            if path.is_file() and ".after." not in path.name and ".unsafe." not in path.name:
                (project / _as(name, "")).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, project / _as(name, ""))
        assert main(["fix", "--write", *extra, str(project)]) == 1  # the hazard is left
        first = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
        main(["fix", "--write", *extra, str(project)])
        assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == first
        out[mode] = project
    return out


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("before", BEFORE, ids=str)
def test_fix_turns_before_into_after(fixed: dict[str, Path], before: Path, mode: str) -> None:
    expected = TREE / _as(before, mode)
    expected = expected if expected.exists() else TREE / _as(before, "after")
    assert (fixed[mode] / _as(before, "")).read_bytes() == expected.read_bytes()


def test_the_launch_kinds_and_the_unproven_case_are_covered() -> None:
    assert {p.name.split(".")[0] for p in BEFORE} == {
        "proven_sh", "proven_make", "proven_md", "proven_ci", "proven_trl", "trl_eq", "unproven"
    }  # fmt: skip
    for name in ("unproven", "trl_eq"):
        assert (TREE / f"{name}.after.yaml").read_bytes() == (TREE / f"{name}.before.yaml").read_bytes()


def test_each_verdict_says_who_reads_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "scan"
    shutil.copytree(TREE, project, ignore=shutil.ignore_patterns("*.after.*", "*.unsafe.*"))
    for before in BEFORE:
        shutil.move(project / before, project / _as(before, ""))
    capsys.readouterr()
    assert main(["scan", "--format", "json", str(project)]) == 1
    found = {Path(e["path"]).name: e for e in json.loads(capsys.readouterr().out)}
    assert {name: (e["code"], e["severity"], e["applicability"]) for name, e in found.items()} == {
        "proven_sh.yaml": ("config-key", "fix", "safe"),
        "proven_make.json": ("config-key", "fix", "safe"),
        "proven_md.yaml": ("config-key", "fix", "safe"),
        "proven_ci.yaml": ("config-key", "fix", "safe"),
        "proven_trl.yaml": ("config-key", "fix", "safe"),
        "trl_eq.yaml": ("config-key", "fix", "unsafe"),
        "unproven.yaml": ("config-key", "fix", "unsafe"),
        "own.yaml": ("own-reader", "hazard", None),
    }
    assert (
        "(read by `parser.parse_json_file` (train_cfg.py:11), run as `train_cfg.py --config=../proven_make.json` (Makefile:3))"
        in found["proven_make.json"]["message"]
    )
    assert (
        "no launch command or Python file of the project was found reading this file"
        in found["unproven.yaml"]["message"]
    )
    own = found["own.yaml"]["message"]
    assert "start.sh:5 runs `read_own.py own.yaml`, and read_own.py:7 loads this file with `yaml.safe_load`" in own
