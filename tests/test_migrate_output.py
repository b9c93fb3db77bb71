"""What `scan` and `fix` print, and how they end: notebooks with IPython escapes and cell positions, short finding
lines with the guide linked once per code, hazard > fix > info, `--quiet`/`--statistics`/`--show-fixes`/
`--output-file`, colour only on a terminal, the internal-error exit, a closed pipe and a console that cannot encode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from checkpointing_migrate import NAME, codes, commands, findings
from checkpointing_migrate.cli import main
from checkpointing_migrate.config import ConfigError
from checkpointing_migrate.located import Located, LocatedError, ParseError, ToolError
from checkpointing_migrate.records import DocumentError
from checkpointing_migrate.table import TableError, load
from generator.paths import ROOT, TABLE_PATH
from tests.migratekit import REQUIREMENT, SINCE, run

REMOVAL = next(r.removal for r in load(TABLE_PATH).renames if r.old == "gradient_checkpointing_enable")

LOADED = "from transformers import AutoModel\nmodel = AutoModel.from_pretrained('x')\n"
SCRIPT = "from transformers import HfArgumentParser, TrainingArguments\n\nHfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n"
"""A training script that parses its flags with HfArgumentParser: its old flags are rewritten."""

ESCAPES = [
    "files = !ls\n",
    "model?\n",
    "??model.gradient_checkpointing_enable\n",
    "%load_ext autoreload\n",
    "x = %time model.gradient_checkpointing_enable()\n",
    "%time model.gradient_checkpointing_disable()\n",
    "if True:\n",
    "    model.gradient_checkpointing_enable()\n",
]
"""A cell of IPython escapes around Python: before these were handled, the first line made the notebook a file error."""


def _diagnostics(err: str) -> list[str]:
    """Stderr without the line announcing which transformers requirement the run used (it is no problem)."""
    return [line for line in err.splitlines() if not line.startswith(f"{NAME}: transformers")]


def _notebook(cells: list[tuple[str, list[str]]]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": source}
                | ({"execution_count": None, "outputs": []} if kind == "code" else {})
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


NOTEBOOK = _notebook(
    [
        ("markdown", ["# Fine-tune\n"]),
        ("code", [LOADED, *ESCAPES]),
        (
            "code",
            [
                "!python train.py --gradient_checkpointing true\n",
                "out = !python train.py --gradient_checkpointing true",
            ],
        ),
        ("code", ["%%writefile notes.txt\n", "model.gradient_checkpointing_enable()\n"]),
    ]
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "train.py").write_text(SCRIPT + LOADED + "model.gradient_checkpointing_enable()\n")
    (tmp_path / "explore.ipynb").write_text(NOTEBOOK)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_escapes_are_left_and_the_python_and_shell_around_them_fixed(project: Path) -> None:
    assert main(["fix", "--write", str(project / "explore.ipynb")]) == 0
    expected = NOTEBOOK
    for old in (
        "x = %time model.gradient_checkpointing_enable()",
        "%time model.gradient_checkpointing_disable()",
        "    model.gradient_checkpointing_enable()",
        "!python train.py --gradient_checkpointing true\\n",
        "out = !python train.py --gradient_checkpointing true",
    ):
        assert old in expected
        expected = expected.replace(old, old.replace("gradient_checkpointing", "activation_checkpointing"))
    # The help line, the other magics and the %%writefile cell (a text file, not Python) keep their bytes.
    assert (project / "explore.ipynb").read_text() == expected


def test_a_call_after_run_i_is_unsafe_and_one_before_it_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`%run -i patch.py` runs the file in the notebook's namespace, where it may replace the model's old method with
    a narrow one: a safe rename of a later call raised a TypeError. `%run patch.py` (a namespace of its own) does not."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    notebook = _notebook(
        [
            ("code", [LOADED, "model.gradient_checkpointing_disable()\n", "%run patch.py\n"]),
            ("markdown", ["Patch it\n"]),
            ("code", ["%run -i patch.py\n"]),
            ("code", ["model.gradient_checkpointing_enable()\n"]),
        ]
    )
    (tmp_path / "nb.ipynb").write_text(notebook)
    main(["scan", "--format", "json", str(tmp_path / "nb.ipynb")])
    found = {f["cell"]["number"]: f for f in json.loads(capsys.readouterr().out)}
    assert found[1].get("applicability") != "unsafe"
    assert found[4]["applicability"] == "unsafe"
    assert "line 1 of cell 3 runs other code in its namespace (`%run -i patch.py`)" in found[4]["message"]


def test_notebook_positions_are_cells_counting_every_cell(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chdir(project)
    try:
        code, out, err = _run(capsys, "scan", "--quiet", "explore.ipynb")
    finally:
        os.chdir(ROOT)
    assert code == 1 and _diagnostics(err) == []
    where = [line.split(": ", 1)[0] for line in out.splitlines()]
    # Cell 1 is Markdown: the code cells are 2 and 3, lines and columns inside each cell (ruff's form).
    assert where == [
        "explore.ipynb:cell 2:7:17",
        "explore.ipynb:cell 2:8:13",
        "explore.ipynb:cell 2:10:11",
        "explore.ipynb:cell 3:1:18",
        "explore.ipynb:cell 3:2:24",
    ]


def test_json_github_and_sarif_keep_the_file_line_and_name_the_cell(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(project / "explore.ipynb")
    lines = NOTEBOOK.splitlines()
    file_line = next(n for n, text in enumerate(lines, 1) if "x = %time" in text)
    main(["scan", "--format", "json", path])
    first = json.loads(capsys.readouterr().out)[0]
    assert first["cell"] == {"number": 2, "line": 7, "column": 17}
    assert first["line"] == file_line and lines[file_line - 1][first["column"] - 1 :].startswith("gradient_")
    main(["scan", "--format", "github", path])
    annotation = capsys.readouterr().out.splitlines()[0]
    assert f"line={file_line}," in annotation and annotation.split("::")[2].startswith("cell 2:7:17: ")
    main(["scan", "--format", "sarif", path])
    log = json.loads(capsys.readouterr().out)
    schema = json.loads((ROOT / "tests" / "fixtures" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    result = log["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == file_line
    assert result["message"]["text"].startswith("cell 2:7:17: ")


def test_a_line_is_short_and_the_guide_is_linked_once_per_code(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "scan", str(project / "train.py"))
    *lines, call_link, total = out.splitlines()
    assert code == 1 and len(lines) == 1
    # The short reason comes from the table row: since when the name is deprecated and when it goes.
    # The short reason comes from the table row: since when the name is deprecated and when it goes; no message.
    assert lines[0] == (
        f"{project / 'train.py'}:6:7: fix [call] gradient_checkpointing_enable → activation_checkpointing_enable: "
        f"deprecated since {SINCE}, removed in {REMOVAL}"
    )
    assert call_link == f"[call]: {findings.link('script')}"
    assert total.startswith("1 finding (0 hazard, 1 fix, 0 info) in 1 file checked.") and "explain CODE" in total


def test_min_severity_fix_shows_hazards_and_fixes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "args.py").write_text(
        "from transformers import TrainingArguments\n\nargs = TrainingArguments(output_dir='o')\n"
        "args.gradient_checkpointing = True\nprint(args.gradient_checkpointing)\n"
    )
    main(["scan", "--format", "json", str(project / "args.py")])
    assert {e["severity"] for e in json.loads(capsys.readouterr().out)} == {"hazard", "info"}
    main(["scan", "--format", "json", "--min-severity", "fix", str(project)])
    shown = {e["severity"] for e in json.loads(capsys.readouterr().out)}
    assert shown == {"hazard", "fix"}


def test_quiet_statistics_and_show_fixes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "scan", "--quiet", str(project))
    assert code == 1 and len(out.splitlines()) == 6 and all(": fix [" in line for line in out.splitlines())
    code, out, _ = _run(capsys, "scan", "--statistics", "--quiet", str(project))
    assert out.splitlines() == [
        f"    4  call  fix  {codes.get('call').summary}",
        f"    2  flag  fix  {codes.get('flag').summary}",
    ]
    code, out, _ = _run(capsys, "scan", "--show-fixes", "--quiet", "--select", "flag", str(project))
    assert out.splitlines()[-2:] == [
        "fixes available (`fix --write` applies them):",
        f"  {project / 'explore.ipynb'}: 2 × flag",
    ]
    code, _, err = _run(capsys, "fix", "--write", "--show-fixes", str(project))
    assert code == 0 and "fixes applied:\n" in err and f"  {project / 'train.py'}: 1 × call\n" in err


def test_output_file_gets_the_report_atomically(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = project / "out" / "findings.json"
    report.parent.mkdir()
    code, out, err = _run(capsys, "scan", "--format", "json", "--output-file", str(report), str(project / "train.py"))
    assert (code, out, err) == (1, "", "") and json.loads(report.read_text())[0]["code"] == "call"
    code, out, err = _run(capsys, "scan", "-o", str(project / "missing" / "r.txt"), str(project / "train.py"))
    assert code == 2 and out == "" and "cannot write the report" in err and "pass another --output-file" in err
    assert not (project / "missing").exists()


def test_file_errors_are_counted_in_the_summary(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.py").write_text("model.gradient_checkpointing_enable(\n")
    code, out, err = _run(capsys, "scan", str(project / "broken.py"), str(project / "train.py"))
    assert code == 1 and "broken.py:1:" in err
    assert out.splitlines()[-1].startswith(
        "1 finding (0 hazard, 1 fix, 0 info) in 1 file checked, 1 could not be checked."
    )


@pytest.mark.parametrize(
    ("env", "coloured"), [({}, False), ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False)]
)
def test_colour_only_when_asked_or_on_a_terminal(project: Path, env: dict[str, str], coloured: bool) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    result = subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", "scan", "train.py"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert ("\033[33mfix\033[0m" in result.stdout) is coloured and ("\033[" in result.stdout) is coloured


def test_an_unexpected_exception_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(commands, "check_all", broken)
    code, out, err = _run(capsys, "scan", str(project))
    assert code == 2 and out == ""
    assert err.startswith("internal error: KeyError: 'boom'; please report it with the command (")
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_a_problem_of_the_input_that_escapes_a_command_is_a_usage_error_not_a_bug(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every error a user can act on derives from `ToolError`: one that no command caught is printed as it is (it
    says where and what to do), with the usage-error exit, not as an internal error to report."""

    def unreadable(*_: object, **__: object) -> None:
        raise DocumentError("data/training-arguments.json", [Located("data/training-arguments.json", 3, 5, "bad")])

    monkeypatch.setattr(commands, "check_all", unreadable)
    code, out, err = _run(capsys, "scan", str(project))
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "data/training-arguments.json:3:5" in err and "internal error" not in err
    assert all(issubclass(e, ToolError) for e in (DocumentError, ConfigError, TableError, ParseError, LocatedError))


def test_a_reader_that_closes_the_pipe_ends_the_output_not_the_run(project: Path) -> None:
    for n in range(300):
        (project / f"t{n}.py").write_text(LOADED + "model.gradient_checkpointing_enable()\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "checkpointing_migrate", "scan", "."],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()  # `| head -1`
    process.stdout.close()
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=120) == 1
    assert b": fix [call]" in first and _diagnostics(err.decode()) == []


def test_a_console_that_cannot_encode_the_arrow_gets_an_escape(project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", "scan", "train.py"],
        cwd=project,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "cp1252"},
        timeout=120,
        check=False,
    )
    assert result.returncode == 1 and _diagnostics(result.stderr.decode()) == []
    assert b"gradient_checkpointing_enable \\u2192 activation_checkpointing_enable" in result.stdout


@pytest.mark.parametrize("command", ["scan", "fix"])
def test_help_of_scan_and_fix_lists_the_exit_codes(command: str) -> None:
    result = run(command, "--help")
    assert result.returncode == 0
    assert "exit codes:\n  0  nothing to report" in result.stdout and "internal error" in result.stdout
    for option in ("--quiet", "--statistics", "--show-fixes", "--output-file"):
        assert option in result.stdout
