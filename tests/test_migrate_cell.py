"""`--stdin-cell N`: one notebook code cell on standard input, as an editor holding a cell (or the Try it page) sends
it. Fixing each cell of the notebook pair alone gives that cell of the after-notebook byte for byte; findings stand
where a scan of the whole notebook puts them (`NAME:cell N:LINE:COL`); IPython's escapes, escaped characters and CRLF
keep their places; bad input is a positioned error or a usage error (exit 2), never a traceback.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from checkpointing_migrate.cli import main
from tests.migratekit import SINCE, run

PAIRS = Path(__file__).parent / "fixtures" / "migrate" / "pairs"
NOTEBOOK = PAIRS / "notebook.ipynb"
"""The name the cells are sent under: the pairs' pyproject.toml allows the rewrites."""
TARGET = ("--target", f"transformers>={SINCE}")


def _code_cells(path: Path) -> list[tuple[int, str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(n, "".join(c["source"])) for n, c in enumerate(cells, 1) if c["cell_type"] == "code"]


def _run(monkeypatch: pytest.MonkeyPatch, data: bytes, *args: str) -> tuple[int, bytes, str]:
    """`checkpointing-migrate *args` in this process with `data` on standard input: exit code, stdout, stderr."""
    out, err = io.BytesIO(), io.BytesIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", write_through=True))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="utf-8", write_through=True))
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue().decode("utf-8")


BEFORE, AFTER = _code_cells(PAIRS / "notebook.before.ipynb"), _code_cells(PAIRS / "notebook.after.ipynb")


@pytest.mark.parametrize(("before", "after"), list(zip(BEFORE, AFTER, strict=True)), ids=lambda c: f"cell {c[0]}")
def test_fixing_a_cell_alone_gives_that_cell_of_the_after_notebook(
    monkeypatch: pytest.MonkeyPatch, before: tuple[int, str], after: tuple[int, str]
) -> None:
    number, text = before
    _, out, err = _run(
        monkeypatch, text.encode(), "fix", "--stdin-cell", str(number), "--stdin-filename", str(NOTEBOOK), "-"
    )
    assert out == after[1].encode(), err


def test_a_cells_findings_stand_where_the_notebook_scan_puts_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = PAIRS / "notebook.before.ipynb"
    assert main(["scan", "--format", "json", str(whole)]) == 1
    expected = json.loads(capsys.readouterr().out)
    got = []
    for number, text in BEFORE:
        _, out, _ = _run(
            monkeypatch,
            text.encode(),
            "scan",
            "--format",
            "json",
            "--stdin-cell",
            str(number),
            "--stdin-filename",
            str(whole),
            "-",
        )
        got += json.loads(out)
    keys = ("path", "cell", "severity", "code", "old", "new", "applicability", "message")
    assert [{k: f[k] for k in keys} for f in got] == [{k: f[k] for k in keys} for f in expected]
    # The line and column are the cell's: what an editor holding the cell jumps to.
    assert all((f["line"], f["column"]) == (f["cell"]["line"], f["cell"]["column"]) for f in got)


IPYTHON = (
    "%%time\n"
    "!pip install -q transformers\n"
    "files = !ls\n"
    "AutoModelForCausalLM?\n"
    'model = AutoModelForCausalLM.from_pretrained("gpt2")\n'
    'print("\\t", "\t", model.is_gradient_checkpointing)\r\n'
    "model.gradient_checkpointing_enable()  # checkpointing-migrate: ignore[keyword]\n"
    "!python train_hf.py --gradient_checkpointing"
)
"""A cell with IPython's escapes, characters JSON escapes (a backslash, a quote, a tab) before a name, a CRLF line
and no final newline."""


def test_ipython_escapes_escaped_characters_and_crlf_keep_their_places(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _run(
        monkeypatch,
        IPYTHON.encode(),
        "fix",
        "--strict-ignores",
        "--stdin-cell",
        "3",
        "--stdin-filename",
        str(NOTEBOOK),
        "-",
    )
    assert out == IPYTHON.replace("gradient_checkpointing", "activation_checkpointing").encode()
    assert code == 1  # the comment that silences nothing is left
    assert f"{NOTEBOOK}:cell 3:7:40: hazard [unused-ignore]" in err
    _, out, _ = _run(
        monkeypatch, IPYTHON.encode(), "scan", "--stdin-cell", "3", "--stdin-filename", "nb.ipynb", *TARGET, "-"
    )
    assert [line.split(": ")[0] for line in out.decode().splitlines() if line.startswith("nb.ipynb:")] == [
        "nb.ipynb:cell 3:6:24",
        "nb.ipynb:cell 3:7:7",
        "nb.ipynb:cell 3:8:21",
    ]


def test_only_the_cell_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model loaded in another cell is not seen: renaming its methods has no evidence, so it is an unsafe fix."""
    project = PAIRS.parent / "project"
    monkeypatch.chdir(project)
    number, text = _code_cells(project / "explore.ipynb")[2]
    _, out, _ = _run(
        monkeypatch, text.encode(), "scan", "--stdin-cell", str(number), "--stdin-filename", "explore.ipynb", "-"
    )
    assert "explore.ipynb:cell 4:2:7: fix (unsafe) [call] gradient_checkpointing_disable" in out.decode()
    _, out, _ = _run(monkeypatch, b"", "scan", "explore.ipynb")
    assert "explore.ipynb:cell 4:2:7: fix [call] gradient_checkpointing_disable" in out.decode()


def test_a_cell_that_does_not_parse_is_an_error_at_its_line_and_column(monkeypatch: pytest.MonkeyPatch) -> None:
    text = b"!pip install transformers\nmodel.gradient_checkpointing_enable()\ndef f(:\n"
    code, out, err = _run(monkeypatch, text, "fix", "--stdin-cell", "2", "--stdin-filename", "nb.ipynb", *TARGET, "-")
    assert (code, out) == (1, text)  # an editor that replaces its cell with the output loses nothing
    assert err.startswith(
        "nb.ipynb:cell 2:3:7: error: code cell 2 does not parse as Python: invalid syntax; fix it, then run again\n"
    )


def test_a_notebook_cell_that_does_not_parse_is_named_by_cell_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error is where the user edits (`cell N:LINE:COL`), with the parser's reason and no `(<unknown>, line 2)`;
    `--format json` keeps the file's position and adds the cell, as for findings."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Train"]},
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": ["x = (1,\n", "model.gradient_checkpointing_enable(\n"],
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(monkeypatch, b"", "scan", "nb.ipynb")
    assert code == 1
    assert err.splitlines()[0] == (
        "nb.ipynb:cell 2:2:36: error: code cell 2 does not parse as Python: '(' was never closed; fix it, then run again"
    )
    _, out, _ = _run(monkeypatch, b"", "scan", "--format", "json", "nb.ipynb")
    (entry,) = json.loads(out)
    assert entry["cell"] == {"number": 2, "line": 2, "column": 36} and entry["line"] > 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--stdin-cell", "1", "--stdin-filename", "train.py", "-"), "error: --stdin-cell reads a cell of a notebook"),
        (("--stdin-cell", "1", "README.md"), "error: --stdin-cell reads standard input: pass `-`"),
        (("--stdin-cell", "0", "-"), "argument --stdin-cell: '0' is not a cell number"),
    ],
)
def test_cell_usage_errors(monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], message: str) -> None:
    code, out, err = _run(monkeypatch, b"model.gradient_checkpointing_enable()\n", "scan", *args)
    assert (code, out) == (2, b"") and message in err, err


def test_help_documents_the_cell() -> None:
    text = " ".join(run("fix", "--help").stdout.split())
    assert "--stdin-cell N" in text and "`fix -` prints the fixed cell" in text
