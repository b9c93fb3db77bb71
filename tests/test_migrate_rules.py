"""The rules come from the table (a new row is enough to teach the tool a rename), the version gate reads ranges
exactly, and the pre-commit hooks point at a script that runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet

from generator import paths
from generator.__main__ import main
from generator.migrate import rules
from generator.migrate.requirements import Allowed
from generator.table import load

ROOT = paths.ROOT
NEW_ROW = """
  - library: transformers
    kind: method
    owner: PreTrainedModel
    old: gradient_checkpointing_status
    new: activation_checkpointing_status
    status: shipped
    since: "5.23.0"
    removal: "6.0.0"
    warning:
      category: FutureWarning
      message: "`gradient_checkpointing_status` is deprecated. Use `activation_checkpointing_status` instead."
"""


def test_a_row_added_to_the_table_is_rewritten(tmp_path: Path) -> None:
    table = tmp_path / "aliases.yaml"
    table.write_text((ROOT / "aliases.yaml").read_text() + NEW_ROW)
    script = tmp_path / "train.py"
    script.write_text("model = AutoModel.from_config(c)\nprint(model.gradient_checkpointing_status())\n")
    assert main(["fix", "--write", "--target", "transformers>=5.24", "--table", str(table), str(script)]) == 0
    assert script.read_text() == "model = AutoModel.from_config(c)\nprint(model.activation_checkpointing_status())\n"
    script.write_text("print(model.gradient_checkpointing_status())\n")
    assert main(["scan", str(script), "--target", "transformers>=5.24"]) == 0  # the real table has no such row


def test_every_shipped_row_has_a_place_in_the_rules() -> None:
    table = load(paths.TABLE_PATH)
    r = rules.from_table(table)
    placed = {*r.members.values(), *r.fields.values(), *r.flags.values(), *r.keys.values()}
    placed |= {row for kw in (*r.member_kwargs.values(), *r.method_kwargs.values()) for row in kw.values()}
    assert placed == {row for row in table.renames if row.status == "shipped"}
    assert r.model_classes == {"PreTrainedModel"} and "TrainingArguments" in r.config_classes
    assert r.stem and all(r.stem in row.old for row in table.renames)


@pytest.mark.parametrize(
    ("spec", "before"),
    [(">=5.23.0", False), (">=5.23", False), ("==5.24.*", False), ("~=5.23.0", False), ("===5.23.0", False),
     (">5.22.2", True), ("<5.23", True), (">=5.20,<6", True), ("!=5.22.0,>=5.23", False), ("", True),
     (">=5.23,>=5.20", False), ("==5.20.0", True)],
)
def test_the_gate_knows_whether_older_releases_are_allowed(spec: str, before: bool) -> None:
    assert Allowed(SpecifierSet(spec), "test").allows_before("5.23.0") is before


def test_pre_commit_hooks_run_the_shipped_script(tmp_path: Path) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"checkpointing-scan", "checkpointing-fix"}
    for hook in hooks:
        script, *args = hook["entry"].split()
        assert (ROOT / script).stat().st_mode & 0o111, f"{script} is not executable"
    (tmp_path / "requirements.txt").write_text("transformers>=5.23\n")
    staged = tmp_path / "train.py"
    staged.write_text("model.gradient_checkpointing_enable()\n")
    scan = next(h for h in hooks if h["id"] == "checkpointing-scan")["entry"].split()
    env = {**os.environ, "CHECKPOINTING_PYTHON": sys.executable}
    result = subprocess.run([str(ROOT / scan[0]), *scan[1:], staged.name], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 1 and "train.py:1:7: fix [call]" in result.stdout
    fix = next(h for h in hooks if h["id"] == "checkpointing-fix")["entry"].split()
    assert subprocess.run([str(ROOT / fix[0]), *fix[1:], staged.name], cwd=tmp_path, env=env, capture_output=True).returncode == 0
    assert staged.read_text() == "model.activation_checkpointing_enable()\n"
