"""The guide's YAML and shell examples, executed: the migration tool turns each Before into its After, and both parse.

The examples come from `generator.pages.configs` (the table's rows); the guide must show exactly them. Parsing uses
`HfArgumentParser` on the installed transformers (a release with the new names): the After is silent, the Before
prints the table's `FutureWarning`, and both turn checkpointing on (or, for TRL's `--no_` flag, off).
"""

from __future__ import annotations

import shlex
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
import yaml
from packaging.version import Version

from checkpointing_migrate.cli import main
from checkpointing_migrate.table import load
from generator.pages import configs

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
TABLE = load(ROOT / "aliases.yaml")
EXAMPLES = configs.examples(TABLE)
GUIDE = ROOT / "docs/generated/migration-guide.md"
TRAIN_PY = """import os
import sys

from transformers import HfArgumentParser, TrainingArguments

parser = HfArgumentParser(TrainingArguments)
if len(sys.argv) == 2 and sys.argv[1].endswith(".yaml"):
    (args,) = parser.parse_yaml_file(os.path.abspath(sys.argv[1]))
else:
    (args,) = parser.parse_args_into_dataclasses()
"""
"""What the launchers start, as transformers' examples write it: a config file named alone, else the flags."""
CPU_ONLY = ["--bf16", "false"]
"""TRL's configs default to bf16, which this machine's CPU build refuses; the flag changes nothing checkpointed."""


def _since() -> str:
    return min((r.since for r in TABLE.renames if r.library == "transformers" and r.since), key=Version)


def _messages(category: type[Warning]) -> set[str]:
    return {r.warning.message for r in TABLE.renames if r.warning and r.warning.category == category.__name__}


def _future_warnings(run: Callable[[], T]) -> tuple[T, list[str]]:
    """What `run` returns, and the messages of the FutureWarnings it emits."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run()
    return result, [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]


def test_there_are_yaml_and_launcher_examples() -> None:
    assert {e.language for e in EXAMPLES} == {"yaml", "sh"}
    text = " ".join(e.after for e in EXAMPLES)
    for launcher in ("accelerate launch", "torchrun", "deepspeed", "trl sft"):
        assert launcher in text, launcher


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.filename)
def test_the_guide_shows_each_example_as_tested(example: configs.ConfigExample) -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    for body in (example.before, example.after):
        assert textwrap.indent(body, "    ") in guide, body
    assert not example.launch or f"`{example.launch}`" in guide  # the reader the tool's safe fix rests on


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.by_tool], ids=lambda e: e.filename)
def test_the_tool_turns_the_before_into_the_after(example: configs.ConfigExample, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\ndependencies = ["transformers>={_since()}"]\n', encoding="utf-8"
    )
    (tmp_path / "train.py").write_text(TRAIN_PY, encoding="utf-8")
    (tmp_path / example.filename).write_text(example.before, encoding="utf-8")
    if example.launch:  # the command that shows who reads the config; without it the rename is only unsafe
        assert main(["fix", "--write", str(tmp_path)]) == 1
        assert (tmp_path / example.filename).read_text(encoding="utf-8") == example.before
        (tmp_path / "run.sh").write_text(example.launch + "\n", encoding="utf-8")
    assert main(["fix", "--write", str(tmp_path)]) == 0
    assert (tmp_path / example.filename).read_text(encoding="utf-8") == example.after


def test_the_yaml_example_parses_on_the_installed_transformers(tmp_path: Path) -> None:
    from transformers import HfArgumentParser, TrainingArguments

    (example,) = [e for e in EXAMPLES if e.language == "yaml"]
    for body, expected_warnings in ((example.after, False), (example.before, True)):
        path = tmp_path / example.filename
        path.write_text(body, encoding="utf-8")
        assert isinstance(yaml.safe_load(body), dict)
        (args,), printed = _future_warnings(lambda: HfArgumentParser(TrainingArguments).parse_yaml_file(path))
        assert args.activation_checkpointing is True
        assert args.activation_checkpointing_kwargs == {"use_reentrant": False}
        assert bool(printed) == expected_warnings, printed
        assert set(printed) <= _messages(FutureWarning)


def _commands(body: str) -> list[list[str]]:
    return [shlex.split(line) for line in body.replace("\\\n", " ").splitlines() if line.strip()]


def _script_args(words: list[str]) -> list[str]:
    """The arguments the training script's parser reads: after `train.py`, without the DeepSpeed config (it needs
    the deepspeed package, which the launch example assumes and this environment lacks)."""
    args = words[words.index("train.py") + 1 :]
    if "--deepspeed" in args:
        i = args.index("--deepspeed")
        del args[i : i + 2]
    return args


def test_the_launch_commands_parse_on_the_installed_transformers() -> None:
    from transformers import HfArgumentParser, TrainingArguments

    (example,) = [e for e in EXAMPLES if e.filename == "launch.sh"]
    for body, expected_warnings in ((example.after, False), (example.before, True)):
        for words in _commands(body):
            parser = HfArgumentParser(TrainingArguments)
            (args,), printed = _future_warnings(lambda: parser.parse_args_into_dataclasses(_script_args(words)))
            assert args.activation_checkpointing is True, words
            assert bool(printed) == expected_warnings, (words, printed)
            assert set(printed) <= _messages(FutureWarning)


def test_the_trl_off_switch_parses_with_trl() -> None:
    from transformers import HfArgumentParser
    from trl import SFTConfig

    (example,) = [e for e in EXAMPLES if not e.by_tool]
    for body, expected_warnings in ((example.after, False), (example.before, True)):
        (words,) = _commands(body)
        assert words[:2] == ["trl", "sft"]
        parser = HfArgumentParser(SFTConfig)
        (args,), printed = _future_warnings(lambda: parser.parse_args_into_dataclasses([*words[2:], *CPU_ONLY]))
        assert args.activation_checkpointing is False
        assert bool(printed) == expected_warnings, printed
        assert set(printed) <= _messages(FutureWarning)
