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
        "proven_sh", "proven_make", "proven_md", "proven_ci", "proven_trl", "trl_eq", "unproven",
        "proven_var", "unproven_var", "proven_pushd", "proven_vscode", "proven_nb", "proven_run", "unproven_nb",
        "proven_makevar", "unproven_makevar", "proven_cd",
    }  # fmt: skip
    for name in ("unproven", "trl_eq", "unproven_var", "unproven_nb", "unproven_makevar"):
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
        "proven_var.yaml": ("config-key", "fix", "safe"),  # `CFG=proven_var.yaml` then `--config "${CFG}"`
        "own_var.yaml": ("own-reader", "hazard", None),  # through `$OWN_CFG` to a script that loads it itself
        "unproven_var.yaml": ("config-key", "fix", "unsafe"),  # `$TWICE` is set twice
        "proven_pushd.yaml": ("config-key", "fix", "safe"),  # `pushd scripts` then `--config ../proven_pushd.yaml`
        "proven_vscode.yaml": ("config-key", "fix", "safe"),  # launch.json `args`, run from its `cwd`
        "own_vscode.yaml": ("own-reader", "hazard", None),
        "proven_nb.yaml": ("config-key", "fix", "safe"),  # `!python scripts/train_cfg.py --config …`
        "proven_run.yaml": ("config-key", "fix", "safe"),  # `%run scripts/train_cfg.py --config …`
        "proven_cd.yaml": ("config-key", "fix", "safe"),  # `%cd scripts`, then a later cell's `--config ../…`
        "unproven_nb.yaml": ("config-key", "fix", "unsafe"),  # after `os.chdir(...)`
        "own_nb.yaml": ("own-reader", "hazard", None),  # `!python read_own.py own_nb.yaml`
        "proven_makevar.yaml": ("config-key", "fix", "safe"),  # Makefile `CFG = …` then `--config $(CFG)`
        "unproven_makevar.yaml": ("config-key", "fix", "unsafe"),  # `TWICE += …`
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
    for name, says in {
        "proven_var.yaml": "run as `scripts/train_cfg.py --config proven_var.yaml` (start.sh:9, through `$CFG`)",
        "own_var.yaml": "start.sh:11 runs `read_own.py own_var.yaml` (through `$OWN_CFG`), and read_own.py:7 loads",
        "proven_pushd.yaml": "run as `train_cfg.py --config ../proven_pushd.yaml` (start.sh:17)",
        "proven_vscode.yaml": "run as `train_cfg.py --config ../proven_vscode.yaml` (launch.json:11)",
        "own_vscode.yaml": "launch.json:18 runs `read_own.py own_vscode.yaml`, and read_own.py:7 loads",
        "proven_nb.yaml": "run as `scripts/train_cfg.py --config proven_nb.yaml` (train.ipynb:cell 1:2)",
        "proven_run.yaml": "run as `scripts/train_cfg.py --config proven_run.yaml` (train.ipynb:cell 2:1)",
        "proven_cd.yaml": "run as `train_cfg.py --config ../proven_cd.yaml` (moved.ipynb:cell 2:2)",
        "proven_makevar.yaml": "run as `scripts/train_cfg.py --config proven_makevar.yaml` (Makefile:10, through `$CFG`)",
        "unproven_makevar.yaml": "no launch command or Python file of the project was found reading this file",
        "own_nb.yaml": "train.ipynb:cell 3:1 runs `read_own.py own_nb.yaml`, and read_own.py:7 loads this file",
        "unproven_var.yaml": "no launch command or Python file of the project was found reading this file",
        "unproven_nb.yaml": "no launch command or Python file of the project was found reading this file",
    }.items():
        assert says in found[name]["message"], name


def test_broken_launch_files_prove_nothing_and_never_raise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    shutil.copytree(TREE / "scripts", tmp_path / "scripts")
    (tmp_path / "cfg.yaml").write_text("output_dir: out\ngradient_checkpointing: true\n")
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "launch.json").write_text('{"configurations": [{"type": "debugpy", "args": ["cfg.yaml"')
    (tmp_path / "cells.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "source": "!python scripts/train_cfg.py cfg.yaml'
    )
    (tmp_path / "run.sh").write_text('CFG="cfg.yaml\npython scripts/train_cfg.py --config $CFG\n')  # an unclosed quote
    capsys.readouterr()
    assert main(["scan", "--format", "json", str(tmp_path)]) == 1  # no traceback: they hold no old name to report
    (entry,) = [e for e in json.loads(capsys.readouterr().out) if Path(e["path"]).name == "cfg.yaml"]
    assert (entry["severity"], entry["applicability"]) == ("fix", "unsafe")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Makefile", "train:\n\tCFG=cfg.yaml\n\tpython scripts/train_cfg.py --config $$CFG\n"),
        ("late.sh", "python scripts/train_cfg.py --config $CFG\nCFG=cfg.yaml\n"),  # set after the launch
        # not the workspace's `scripts/`, and a folder named through a variable VS Code fills in
        (
            ".vscode/launch.json",
            '{"configurations": [{"type": "debugpy", "program": "/scripts/train_cfg.py", "args": ["--config", "cfg.yaml"]}]}',
        ),
        (
            ".vscode/launch.json",
            '{"configurations": [{"type": "debugpy", "program": "scripts/train_cfg.py", "cwd": "${fileDirname}", "args": ["--config", "cfg.yaml"]}]}',
        ),
        (
            "nb.ipynb",
            '{"cells": [{"cell_type": "code", "source": ["!CFG=cfg.yaml\\n", "!python scripts/train_cfg.py --config $CFG"]}]}',
        ),
    ],
)
def test_a_variable_not_set_when_the_launch_runs_proves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    """Each recipe line and each `!` line is a shell of its own: a variable set on one is not set on the next; a
    variable set after the command is not set yet."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    shutil.copytree(TREE / "scripts", tmp_path / "scripts")
    (tmp_path / "cfg.yaml").write_text("output_dir: out\ngradient_checkpointing: true\n")
    (tmp_path / name).parent.mkdir(exist_ok=True)
    (tmp_path / name).write_text(text)
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path)])
    (entry,) = [e for e in json.loads(capsys.readouterr().out) if Path(e["path"]).name == "cfg.yaml"]
    assert entry["applicability"] == "unsafe"


def test_a_trl_script_reads_the_file_after_a_config_word_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`TrlParser.parse_args_and_config()` reads the file after a word `--config` (trl-1.16.0
    `trl/scripts/utils.py:321-324`), so such a script's config keys are TRL's dataclasses' fields; `--config=PATH` it
    does not see."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "sft.py").write_text(
        "from trl import ModelConfig, ScriptArguments, SFTConfig, TrlParser\n\n"
        "parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))\n"
        "script_args, training_args, model_args = parser.parse_args_and_config()\n",
        encoding="utf-8",
    )
    for name in ("word.yaml", "joined.yaml"):
        (tmp_path / name).write_text("output_dir: out\ngradient_checkpointing: true\n", encoding="utf-8")
    (tmp_path / "run.sh").write_text("python sft.py --config word.yaml\npython sft.py --config=joined.yaml\n")
    capsys.readouterr()
    assert main(["scan", "--format", "json", str(tmp_path)]) == 1
    found = {Path(e["path"]).name: e for e in json.loads(capsys.readouterr().out)}
    assert {name: found[name]["applicability"] for name in ("word.yaml", "joined.yaml")} == {
        "word.yaml": "safe",
        "joined.yaml": "unsafe",
    }
    assert (
        "read by `parser.parse_args_and_config` (sft.py:4), run as `sft.py --config word.yaml` (run.sh:1)"
        in (found["word.yaml"]["message"])
    )
