"""A realistic project (training script, TRL config, accelerate launch script, notebook, custom modeling code,
other tools' configs) through `fix --write`, then run on the installed transformers with FutureWarnings as errors.

Markers in the fixture say what a person expects: a line with `# hazard` must be reported as a hazard, a line
with `keep` must keep its bytes; files with nothing to rename must not change at all.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkpointing_migrate.cli import main
from checkpointing_migrate.shell import commands

PROJECT = Path(__file__).parent / "fixtures" / "migrate" / "project"
UNCHANGED = ("axolotl.yaml", "accelerate_fsdp.yaml", "ds_config.json", "pyproject.toml")


@pytest.fixture
def fixed(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    main(["fix", "--write", str(project)])
    return project


def _marked(folder: Path, marker: str) -> dict[tuple[str, int], bytes]:
    out = {}
    for path in sorted(folder.iterdir()):
        for n, line in enumerate(path.read_bytes().split(b"\n"), 1):
            if re.search(marker.encode(), line):
                out[(path.name, n)] = line
    return out


def _train_arguments(launch: Path) -> list[str]:
    """The arguments launch.sh passes to train.py, with the shell's quoting removed."""
    for words in commands(launch.read_text()):
        values = [w.value for w in words]
        if "train.py" in values and values[0] == "accelerate":
            return [v.replace("${OUT:-out}", "out") for v in values[values.index("train.py") + 1 :]]
    raise AssertionError("launch.sh has no accelerate launch of train.py")


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", "error::FutureWarning", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_the_fixed_training_script_runs_without_future_warnings(fixed: Path) -> None:
    result = _python("train.py", *_train_arguments(fixed / "launch.sh"), cwd=fixed)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "checkpointing on: True" in result.stdout


def test_the_original_training_script_fails_under_the_same_flags(tmp_path: Path) -> None:
    # Proves the run above can fail: before the fix, the old names raise the FutureWarning. Run in a copy: Python
    # writes the bytecode of the project's own modules next to them, and the tests below read the fixture folder.
    original = Path(shutil.copytree(PROJECT, tmp_path / "project"))
    result = _python("train.py", *_train_arguments(original / "launch.sh"), cwd=original)
    assert result.returncode != 0 and "FutureWarning" in result.stderr


def test_the_fixed_notebook_code_runs_without_future_warnings(fixed: Path) -> None:
    notebook = json.loads((fixed / "explore.ipynb").read_text())
    code = [
        line
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and not "".join(cell["source"]).startswith("%%")
        for line in "".join(cell["source"]).splitlines()
        if not line.lstrip().startswith(("!", "%"))
    ]
    result = _python("-c", "\n".join(code), cwd=fixed)
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_fixed_trl_config_parses_without_future_warnings(fixed: Path) -> None:
    script = (
        "import yaml; from transformers import HfArgumentParser, TrainingArguments\n"
        "(args,) = HfArgumentParser(TrainingArguments).parse_dict(yaml.safe_load(open('sft.yaml')), allow_extra_keys=True)\n"
        "assert args.activation_checkpointing and args.activation_checkpointing_kwargs == {'use_reentrant': False}\n"
    )
    result = _python("-c", script, cwd=fixed)
    assert result.returncode == 0, result.stderr[-3000:]


def test_nothing_it_must_not_touch_changed(fixed: Path) -> None:
    assert _marked(fixed, r"\bkeep\b") == _marked(PROJECT, r"\bkeep\b")
    for name in UNCHANGED:
        assert (fixed / name).read_bytes() == (PROJECT / name).read_bytes(), name
    assert b"\r\n" in (fixed / "launch.sh").read_bytes() and b"\n" not in (fixed / "launch.sh").read_bytes().replace(
        b"\r\n", b""
    )
    assert (fixed / "launch.sh").stat().st_mode == (PROJECT / "launch.sh").stat().st_mode


def test_every_hazard_is_reported_by_line(fixed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["scan", "--format", "json", str(fixed)]) == 1
    found = json.loads(capsys.readouterr().out)
    hazards = {(Path(f["path"]).name, f["line"]) for f in found if f["severity"] == "hazard"}
    assert hazards == set(_marked(PROJECT, r"#\s*hazard\b"))
    # Left for --unsafe-fixes: `self` in `TinyLlama` may be a `LegacyTinyLlama`, whose narrow override would raise.
    left = {(Path(f["path"]).name, f["line"]) for f in found if f["severity"] == "fix"}
    assert left == set(_marked(PROJECT, r"#\s*unsafe\b"))
    assert all(f["applicability"] == "unsafe" for f in found if f["severity"] == "fix")


@pytest.mark.parametrize("how", ["target", "pin"])
def test_with_5_20_pinned_nothing_is_rewritten(tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    args = ["fix", "--write", str(project)]
    if how == "target":
        args[2:2] = ["--target", "transformers==5.20.0"]
    else:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace('"transformers>=5.23"', '"transformers==5.20.0"'))
    main(args)
    for path in PROJECT.iterdir():
        if path.name != "pyproject.toml":
            assert (project / path.name).read_bytes() == path.read_bytes(), path.name
    # The short reason says why each use is kept (the whole how-to is in the JSON message and `explain`).
    err = capsys.readouterr().err
    assert "info [call]" in err and "allows transformers==5.20.0" in err and "releases before" in err
    assert "lack the new name" in err
