"""The Python rule engine: what a run reads is the run's own (no module-level cache outlives it), and a rule family
is one module of rules registered by node type, which the one walk over the tree dispatches to.
"""

from __future__ import annotations

import ast
import json
import os
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from migratekit import REQUIREMENT
from packaging.specifiers import SpecifierSet

from checkpointing_migrate import python, rules
from checkpointing_migrate.cli import main
from checkpointing_migrate.hits import Hit, Options, info
from checkpointing_migrate.python.context import At, File, Run, register
from checkpointing_migrate.python.walk import FAMILIES
from checkpointing_migrate.requirements import Allowed
from checkpointing_migrate.table import load
from generator import paths

TABLE = load(paths.TABLE_PATH)


def _verdicts(path: Path, capsys: pytest.CaptureFixture[str]) -> set[tuple[int, str, str]]:
    capsys.readouterr()
    main(["scan", "--format", "json", str(path)])
    return {(f["line"], f["severity"], f["code"]) for f in json.loads(capsys.readouterr().out)}


def test_a_second_run_in_one_process_reads_the_imported_module_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A long-lived process (an editor's, the Try it page's) runs the tool again after a module changed; the old
    # process-wide cache, keyed by mtime and size, answered from the first reading when both happened to be equal.
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    modeling, train = tmp_path / "modeling.py", tmp_path / "train.py"
    model = "from transformers import LlamaForCausalLM as Base\n\nclass Tiny(Base):\n    pass\n"
    tower = "from torch.nn import Module as Base\n\nclass Tiny(Base):\n    pass\n"
    tower = tower.replace("\n\n", " " * (len(model) - len(tower)) + "\n\n", 1)
    assert len(tower) == len(model)
    modeling.write_text(model)
    stamp = modeling.stat()
    train.write_text("from modeling import Tiny\n\ntiny = Tiny(cfg)\ntiny.gradient_checkpointing_enable()\n")
    assert _verdicts(train, capsys) == {(4, "fix", "call")}
    modeling.write_text(tower)
    os.utime(modeling, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert _verdicts(train, capsys) == {(4, "info", "not-transformers")}


def test_a_new_family_is_one_module_of_registered_rules() -> None:
    # The hook a new family (e.g. a dict data-flow rule) plugs into: its rules see each node of their type once,
    # in source order, next to the existing families' findings.
    options = Options(rules.from_table(TABLE), Allowed.of(SpecifierSet(">=5.23.0"), "test"))
    row = options.rules.fields["gradient_checkpointing"]
    family = types.ModuleType("dictflow")

    @register(ast.Dict)
    def every_dict(file: File, node: ast.Dict, at: At) -> Iterator[Hit]:
        yield info(row, file.at(node.lineno, node.col_offset), code="read", what="a dict", section="config")

    family.every_dict = every_dict  # type: ignore[attr-defined]
    options.memo.made[Run] = Run.of(options.rules, (*FAMILIES, family))
    hits = python.analyse("args.gradient_checkpointing = {'a': {}}\nx = {}\n", options)
    # Only the statements on lines with an old name are walked: the second line's dict is never looked at.
    assert [(h.start, h.code) for h in hits] == [(5, "write"), (30, "read"), (36, "read")]


def test_both_names_set_reads_the_same_in_every_file_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The sentence is the registry's (`codes.Code.messages`); the shell and the argv-list forms used to drop its advice.
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "train.py").write_text(
        "from transformers import HfArgumentParser, TrainingArguments\n\n"
        "a = TrainingArguments(output_dir='o', gradient_checkpointing=True, activation_checkpointing=True)\n"
        "b = TrainingArguments(**{'gradient_checkpointing': True, 'activation_checkpointing': True})\n"
        "HfArgumentParser(TrainingArguments).parse_args_into_dataclasses(\n"
        "    ['--gradient_checkpointing', 'true', '--activation_checkpointing', 'true'])\n"
    )
    (tmp_path / "run.sh").write_text("trl sft --gradient_checkpointing true --activation_checkpointing true\n")
    (tmp_path / "sft.yaml").write_text(
        "output_dir: out\ngradient_checkpointing: true\nactivation_checkpointing: true\n"
    )
    capsys.readouterr()
    main(["scan", "--format", "json", "--select", "both-names", str(tmp_path)])
    found = json.loads(capsys.readouterr().out)
    tail = ": the new one wins and the old value is dropped without a word; remove one. See "
    assert sorted((Path(f["path"]).name, f["line"]) for f in found) == [
        ("run.sh", 1),
        ("sft.yaml", 2),
        ("train.py", 3),
        ("train.py", 4),
        ("train.py", 6),
    ]
    assert all(tail in f["message"] for f in found), [f["message"] for f in found]
