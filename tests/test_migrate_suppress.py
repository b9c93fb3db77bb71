"""Suppression comments as a user writes them, and `fix --add-ignore` as ruff's `--add-noqa`: byte-exact before/after
pairs, merged with a comment already there, never inside a string or a continued line, idempotent, all or nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from migratekit import REQUIREMENT

from checkpointing_migrate import suppress
from checkpointing_migrate.cli import main

PAIRS = Path(__file__).parent / "fixtures" / "migrate" / "pairs"
LOAD = 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("m")\n'
UNSAFE = "other.gradient_checkpointing_enable()"
"""A call the tool cannot prove is a transformers model's: an unsafe fix, left by `fix` without --unsafe-fixes."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    shutil.copy(PAIRS / "train_hf.py", tmp_path / "train_hf.py")  # the shell cases' training script
    return tmp_path


ADD_IGNORE = {
    "appends": ("train.py", f"{LOAD}{UNSAFE}\n", f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[call]\n"),
    "fixes the safe one, silences the unsafe one": (
        "train.py",
        f"{LOAD}model.gradient_checkpointing_enable(); {UNSAFE}\n",
        f"{LOAD}model.activation_checkpointing_enable(); {UNSAFE}  # checkpointing-migrate: ignore[call]\n",
    ),
    "after another comment, trailing spaces dropped": (
        "train.py",
        f"{LOAD}{UNSAFE}  # noqa: E501   \n",
        f"{LOAD}{UNSAFE}  # noqa: E501  # checkpointing-migrate: ignore[call]\n",
    ),
    "merges into an existing comment": (
        "train.py",
        f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[keyword]\n",
        f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[keyword,call]\n",
    ),
    "a continued line: on the line that ends the statement": (
        "train.py",
        f"{LOAD}x = {UNSAFE} + \\\n    1\n",
        f"{LOAD}x = {UNSAFE} + \\\n    1  # checkpointing-migrate: ignore[call]\n",
    ),
    "inside brackets: on the name's own line": (
        "train.py",
        f"{LOAD}x = [\n    {UNSAFE},\n]\n",
        f"{LOAD}x = [\n    {UNSAFE},  # checkpointing-migrate: ignore[call]\n]\n",
    ),
    "CRLF kept": ("train.py", f"{LOAD}{UNSAFE}\r\n", f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[call]\r\n"),
    "no final newline": ("train.py", f"{LOAD}{UNSAFE}", f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[call]"),
    "yaml hazard": (
        "config.yaml",
        "activation_checkpointing: true\ngradient_checkpointing: false\n",
        "activation_checkpointing: true\ngradient_checkpointing: false  # checkpointing-migrate: ignore[both-names]\n",
    ),
    "shell hazard on a continued command: after its last line": (
        "run.sh",
        "python train_hf.py \\\n  --gradient_checkpointing --activation_checkpointing \\\n  --bf16\n",
        "python train_hf.py \\\n  --gradient_checkpointing --activation_checkpointing \\\n"
        "  --bf16  # checkpointing-migrate: ignore[both-names]\n",
    ),
}


def _codes(project: Path, name: str, capsys: pytest.CaptureFixture[str], *extra: str) -> list[tuple[int, str]]:
    capsys.readouterr()
    main(["scan", "--format", "json", *extra, str(project / name)])
    return [(f["line"], f["code"]) for f in json.loads(capsys.readouterr().out)]


@pytest.mark.parametrize("case", ADD_IGNORE, ids=str)
def test_add_ignore_writes_the_comment_and_a_second_run_adds_nothing(
    project: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name, before, after = ADD_IGNORE[case]
    path = project / name
    path.write_bytes(before.encode())
    found = _codes(project, name, capsys)
    assert found, "the case must have something to silence"
    if "hazard" in case:
        assert found[0][1] in after  # the code the pair expects is the one reported
    assert main(["fix", "--add-ignore", "--write", str(path)]) == 0
    assert path.read_bytes() == after.encode()
    assert main(["fix", "--add-ignore", "--write", str(path)]) == 0
    assert path.read_bytes() == after.encode()
    unused = [(3, "unused-ignore")] if "merges" in case else []  # `keyword` there silences nothing
    assert _codes(project, name, capsys, "--strict-ignores") == unused  # silenced, and the comment is used


def test_add_ignore_without_write_shows_the_diff_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "train.py"
    path.write_text(f"{LOAD}{UNSAFE}\n")
    assert main(["fix", "--add-ignore", str(project)]) == 1  # a pending change
    out = capsys.readouterr()
    assert f"+{UNSAFE}  # checkpointing-migrate: ignore[call]" in out.out
    assert "would silence 1 finding with ignore comments." in out.err
    assert path.read_text() == f"{LOAD}{UNSAFE}\n"


CARRIERS = [
    # (kind, text, lines whose comment goes elsewhere → the line carrying it; None: no line can)
    ("python", 'x = """a\nb\n"""  # c\ny = 1\n', {1: 3, 2: 3}),
    ("python", "x = 1 + \\\n    2 + \\\n    3\n", {1: 3, 2: 3}),
    ("python", 'x = f(\n    "a",\n)\n', {}),
    ("shell", "python a.py \\\n  --x \\\n  --y\necho 1\n", {1: 3, 2: 3}),
    ("shell", "cat <<EOF\n--x\nEOF\necho 1\n", {2: None, 3: None}),
    ("shell", "cat <<-'END'\n\t--x\n\tEND\n", {2: None, 3: None}),
    ("shell", "echo 'a\nb' --x\n", {1: 2}),
    ("shell", "echo a  # it's here\necho b\n", {}),
    ("yaml", "run: |\n  python a.py --x\n  echo\nkey: 1\n", {2: None, 3: None}),
    ("yaml", 'k: "a\n  b"\n', {1: 2}),
]


@pytest.mark.parametrize(("kind", "text", "expected"), CARRIERS)
def test_where_a_lines_comment_can_go(kind: str, text: str, expected: dict[int, int | None]) -> None:
    assert suppress.carriers(text, kind) == expected


def test_a_line_where_a_multi_line_string_ends_takes_the_comment(project: Path) -> None:
    path = project / "train.py"
    text = f'{LOAD}x = """\n"""; {UNSAFE}\n'
    path.write_text(text)  # the finding's line starts inside a string that ends on it: the comment goes there
    assert main(["fix", "--add-ignore", "--write", str(path)]) == 0
    assert path.read_text() == f'{LOAD}x = """\n"""; {UNSAFE}  # checkpointing-migrate: ignore[call]\n'


def test_a_finding_no_comment_can_be_added_for_gets_a_note_and_its_file_is_left_alone(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "README.md"
    text = f"```python\n{LOAD}{UNSAFE}\n```\n"
    path.write_text(text)
    assert main(["fix", "--add-ignore", "--write", str(path)]) == 1  # the unsafe fix is still left
    assert path.read_text() == text
    err = capsys.readouterr().err
    assert "README.md:4:7: no ignore comment added for [call]: a comment cannot be added to a markdown file" in err


def test_add_ignore_skips_info_findings(project: Path) -> None:
    # An info (here: a gated rename) asks nothing now; silencing it would hide the rename once the gate allows it.
    path = project / "train.py"
    path.write_text(f"{LOAD}model.gradient_checkpointing_enable()\n")
    main(["fix", "--add-ignore", "--write", "--target", "transformers>=5.20", str(path)])
    assert path.read_text() == f"{LOAD}model.gradient_checkpointing_enable()\n"


SUPPRESSED = {
    "python, the code named": ("train.py", f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[call]\n"),
    "python, bare": ("train.py", f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore\n"),
    "python, spaces and several codes": (
        "train.py",
        f"{LOAD}{UNSAFE}  #checkpointing-migrate:  ignore[ keyword , call ]\n",
    ),
    "yaml": ("c.yaml", "gradient_checkpointing: true  # checkpointing-migrate: ignore[config-key]\n"),
    "shell": ("run.sh", "python train_hf.py --gradient_checkpointing  # checkpointing-migrate: ignore\n"),
    "markdown fence": (
        "README.md",
        f"```python\n{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[call]\n```\n",
    ),
}


@pytest.mark.parametrize("case", SUPPRESSED, ids=str)
def test_a_comment_silences_its_line_and_its_fix_is_not_applied(
    project: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name, text = SUPPRESSED[case]
    path = project / name
    path.write_text(text)
    assert _codes(project, name, capsys) == []
    assert main(["fix", "--write", "--unsafe-fixes", str(path)]) == 0
    assert path.read_text() == text


def test_a_comment_silences_only_its_codes_and_only_its_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "train.py").write_text(
        f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[keyword]\n{UNSAFE}\n"
        f'x = "{UNSAFE}  # checkpointing-migrate: ignore"\n'  # in a string: not a comment
    )
    assert _codes(project, "train.py", capsys) == [(3, "call"), (4, "call")]


def test_strict_ignores_reports_what_silences_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "train.py").write_text(
        f"{LOAD}{UNSAFE}  # checkpointing-migrate: ignore[call,keyword]\n"
        "print(1)  # checkpointing-migrate: ignore\n"
        "print(2)  # checkpointing-migrate: ignore[cal]\n"
    )
    assert _codes(project, "train.py", capsys) == []
    capsys.readouterr()
    assert main(["scan", "--strict-ignores", str(project / "train.py")]) == 1
    out = capsys.readouterr().out
    assert "train.py:3:40: hazard [unused-ignore]" in out and "`keyword` silences nothing" in out
    assert "train.py:4:11: hazard [unused-ignore] # checkpointing-migrate: ignore: silences nothing" in out
    assert "did you mean `call`?" in out
    assert main(["scan", "--strict-ignores", "--ignore", "unused-ignore", str(project / "train.py")]) == 0


def test_the_notebook_and_fence_lines_are_read_where_the_pattern_ends_a_json_string() -> None:
    line = '    "model.x()  # checkpointing-migrate: ignore[call]\\n",\n'
    assert suppress.directives(line, "notebook")[1].codes == ("call",)
    assert suppress.directives('{"a": "# checkpointing-migrate: ignore"}', "json") == {}


def test_a_comment_in_a_notebook_cell_silences_its_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = [f"{UNSAFE}  # checkpointing-migrate: ignore[call]\n", f"{UNSAFE}\n"]
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (project / "n.ipynb").write_text(json.dumps(notebook, indent=1))
    assert _codes(project, "n.ipynb", capsys) == [(10, "call")]  # the second source line only
