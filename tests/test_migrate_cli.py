"""The scan and fix commands as a user meets them: exit codes, output formats, bad input, what a write keeps."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest
from migratekit import REQUIREMENT, run

from checkpointing_migrate import findings
from checkpointing_migrate.cli import main

LOAD = 'model = AutoModelForCausalLM.from_pretrained("m")\n'
"""Evidence that `model` is a transformers model, so the call's fix is safe."""
CALL = LOAD + "model.gradient_checkpointing_enable()\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    return tmp_path


def test_exit_codes_clean_findings_and_usage(project: Path) -> None:
    clean = project / "clean.py"
    clean.write_text("model.activation_checkpointing_enable()\n")
    assert run("scan", str(clean)).returncode == 0
    (project / "old.py").write_text(CALL)
    result = run("scan", str(project))
    assert result.returncode == 1 and "old.py:2:7: fix [call]" in result.stdout
    assert run("scan", str(project / "missing.py")).returncode == 2
    assert run("scan", "--target", "torch==2.0", str(project)).returncode == 2
    bad = run("scan", "--target", "transformers>>5", str(project))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--target" in bad.stderr


def test_info_only_exits_zero(project: Path) -> None:
    (project / "old.py").write_text(CALL)
    assert main(["scan", "--target", "transformers==5.20.0", str(project)]) == 0


def test_json_output_is_a_list_of_findings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "old.py").write_text(CALL)
    main(["scan", "--format", "json", str(project)])
    (finding,) = json.loads(capsys.readouterr().out)
    assert {k: finding[k] for k in ("line", "column", "severity", "old", "new")} == {
        "line": 2,
        "column": 7,
        "severity": "fix",
        "old": "gradient_checkpointing_enable",
        "new": "activation_checkpointing_enable",
    }
    assert finding["applicability"] == "safe"
    assert finding["path"].endswith("old.py") and findings.GUIDE + "#training-scripts" in finding["message"]


def test_dry_run_prints_a_diff_and_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = project / "old.py"
    script.write_text(CALL)
    assert main(["fix", str(script)]) == 1
    out = capsys.readouterr().out
    assert "-model.gradient_checkpointing_enable()" in out and "+model.activation_checkpointing_enable()" in out
    assert script.read_text() == CALL


def test_the_diff_applies_with_git_apply(project: Path) -> None:
    (project / "old.py").write_text(CALL)
    diff = run("fix", "old.py", cwd=project).stdout
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "apply", "-"], cwd=project, input=diff, text=True, check=True)
    assert (project / "old.py").read_text() == LOAD + "model.activation_checkpointing_enable()\n"


def test_write_keeps_line_endings_encoding_bom_and_mode(project: Path) -> None:
    crlf = project / "crlf.py"
    crlf.write_bytes(
        b"# -*- coding: latin-1 -*-\r\nx = '\xe9'\r\nmodel = AutoModel.from_config(c)\r\nmodel.gradient_checkpointing_disable()\r\n"
    )
    bom = project / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbfoutput_dir: o\ngradient_checkpointing: true\n")
    crlf.chmod(0o751)
    assert main(["fix", "--write", "--unsafe-fixes", str(project)]) == 0  # nothing shows who reads bom.yaml
    assert (
        crlf.read_bytes()
        == b"# -*- coding: latin-1 -*-\r\nx = '\xe9'\r\nmodel = AutoModel.from_config(c)\r\nmodel.activation_checkpointing_disable()\r\n"
    )
    assert bom.read_bytes() == b"\xef\xbb\xbfoutput_dir: o\nactivation_checkpointing: true\n"
    assert stat.S_IMODE(crlf.stat().st_mode) == 0o751
    assert sorted(p.name for p in project.iterdir()) == ["bom.yaml", "crlf.py", "pyproject.toml"]  # no temp file left


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("binary.py", b"gradient_checkpointing\x00\x01\x02", "not a text file"),
        ("latin.yaml", b"gradient_checkpointing: \xe9t\xe9\n", "cannot be decoded"),
        ("broken.py", b"model.gradient_checkpointing_enable(\n", "does not parse as Python"),
        ("broken.yaml", b"gradient_checkpointing: [unclosed\n", "not valid YAML"),
        ("broken.json", b'{"gradient_checkpointing": true,}', "not valid JSON"),
        (
            "broken.ipynb",
            b'{"cells": [{"cell_type": "code", "source": ["model.gradient_checkpointing_enable(("]}]}',
            "does not parse as Python",
        ),
    ],
)
def test_bad_input_is_reported_and_left_untouched(project: Path, name: str, content: bytes, problem: str) -> None:
    path = project / name
    path.write_bytes(content)
    result = run("fix", "--write", str(path))
    assert result.returncode == 1
    assert f"{path}:" in result.stderr and problem in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == content


def test_error_positions_point_at_the_problem(project: Path) -> None:
    path = project / "broken.py"
    path.write_text("x = 1\nmodel.gradient_checkpointing_enable(\n")
    assert f"{path}:2:" in run("scan", str(path)).stderr


@pytest.mark.parametrize(
    ("files", "rewritten"),
    [
        ({"pyproject.toml": REQUIREMENT}, True),
        ({"pyproject.toml": '[project]\nname = "p"\ndependencies = ["transformers>=5.20"]\n'}, False),
        ({"requirements.txt": "torch\ntransformers==5.24.0  # pinned\n"}, True),
        ({"requirements-dev.txt": "transformers~=5.22.0\n"}, False),
        (
            {"setup.cfg": "[options]\ninstall_requires =\n    transformers>5.22.2,<6\n"},
            False,
        ),  # 5.22.3 would be allowed
        ({"setup.cfg": "[options]\ninstall_requires =\n    transformers>=5.23.0,<6\n"}, True),
        ({"requirements.txt": "transformers\n"}, False),
        ({}, False),
    ],
)
def test_the_version_gate_reads_the_project_requirement(tmp_path: Path, files: dict[str, str], rewritten: bool) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # the search stops at the repository
    (tmp_path / "src").mkdir()
    script = tmp_path / "src" / "train.py"
    script.write_text(CALL)
    main(["fix", "--write", str(script)])
    assert ("activation_checkpointing_enable" in script.read_text()) is rewritten


def test_target_overrides_the_requirement_and_gated_findings_explain(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "old.py").write_text(CALL)
    main(["scan", "--format", "json", "--target", "transformers==5.20.0", str(project)])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["severity"] == "info"
    assert (
        "transformers==5.20.0" in finding["message"]
        and "hasattr(type(model), 'activation_checkpointing_enable')" in finding["message"]
    )


def test_a_broken_requirement_is_an_error_not_a_guess(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("transformers>=>5\n")
    (tmp_path / "old.py").write_text(CALL)
    result = run("scan", str(tmp_path))
    # a usage error, like a bad --target (tests/test_migrate_requirements.py has every kind)
    assert (
        result.returncode == 2 and "requirements.txt:1:1: error:" in result.stderr and "Traceback" not in result.stderr
    )


def test_include_planned_reports_names_not_renamed_yet(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "model.py").write_text("class M(PreTrainedModel):\n    supports_gradient_checkpointing = True\n")
    assert main(["scan", str(project)]) == 0
    assert "0 findings" in capsys.readouterr().out
    assert main(["scan", "--include-planned", str(project)]) == 0
    assert "info [not-renamed] supports_gradient_checkpointing" in capsys.readouterr().out


def test_default_excluded_folders_are_skipped_but_named_files_are_not(project: Path) -> None:
    for folder in (".venv", "__pycache__", "build"):
        (project / folder).mkdir()
        (project / folder / "x.py").write_text(CALL)
    assert run("scan", str(project)).returncode == 0
    assert run("scan", str(project / ".venv" / "x.py")).returncode == 1
    (project / ".github").mkdir()
    (project / ".github" / "x.py").write_text(CALL)
    assert ".github/x.py:2:7:" in run("scan", str(project)).stdout  # hidden, but not excluded: workflows live there


@pytest.mark.parametrize("columns", ["60", "140", "0", "wide", None])
def test_help_is_laid_out_as_argparse_would_for_the_terminal(
    columns: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The parser measures the terminal once and without shutil (start-up time); the help must not change."""
    import argparse

    from checkpointing_migrate import cli

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)

    def help_text() -> str:
        cli.terminal_width.cache_clear()
        with pytest.raises(SystemExit):
            main(["fix", "--help"])
        return capsys.readouterr().out

    ours = help_text()
    monkeypatch.setattr(cli, "HelpFormatter", argparse.HelpFormatter)
    assert ours == help_text()
