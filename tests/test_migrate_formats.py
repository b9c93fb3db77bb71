"""The conventions of linters, as a CI user meets them: `--select`/`--ignore`, `--format json|github|sarif` (SARIF
validated against the official schema, vendored with its sha256), `fix --diff`, and the exit codes."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import jsonschema
import pytest
from migratekit import REQUIREMENT

from checkpointing_migrate import NAME, codes, findings, formats
from checkpointing_migrate.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
SCHEMA = FIXTURES / "sarif-schema-2.1.0.json"
SCRIPT = (
    "from transformers import AutoModelForCausalLM, TrainingArguments\n"
    "model = AutoModelForCausalLM.from_pretrained('out')\n"
    "args = TrainingArguments(output_dir='out', gradient_checkpointing=True)\n"
    "model.gradient_checkpointing_enable()\n"
    "args.gradient_checkpointing = False\n"
)
BROKEN = "model.gradient_checkpointing_enable(\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "train.py").write_text(SCRIPT)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- --select / --ignore ----------------------------------------------------------------------------------------------


def test_select_and_ignore_keep_or_drop_codes_and_the_exit_code_follows(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "scan", "--format", "json", str(project))
    assert code == 1 and sorted(f["code"] for f in json.loads(out)) == ["call", "keyword", "write"]
    code, out, _ = _run(capsys, "scan", "--format", "json", "--select", "write, call", str(project))
    assert code == 1 and sorted(f["code"] for f in json.loads(out)) == ["call", "write"]
    code, out, _ = _run(capsys, "scan", "--format", "json", "--ignore", "call,keyword,write", str(project))
    assert code == 0 and json.loads(out) == []


def test_fix_applies_only_the_selected_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "fix", "--write", "--select", "keyword", str(project))[0] == 0  # the rest is not selected
    text = (project / "train.py").read_text()
    assert "activation_checkpointing=True" in text and "model.gradient_checkpointing_enable()" in text
    assert _run(capsys, "fix", "--write", "--ignore", "write", str(project))[0] == 0
    assert "model.activation_checkpointing_enable()" in (project / "train.py").read_text()


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--select", "cal", "unknown finding code `cal`; did you mean `call`?"),
        ("--ignore", "write,overide", "did you mean `override`"),
        ("--select", "zzz", "`rules` lists every code"),
        ("--select", ",", "expected one or more codes"),
        ("--ignore", "file-error", "always reported"),
    ],
)
def test_an_unknown_code_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, message: str
) -> None:
    for command in ("scan", "fix"):
        code, out, err = _run(capsys, command, option, value, str(project))
        assert code == 2 and message in err and out == "" and "Traceback" not in err


# --- JSON ---------------------------------------------------------------------------------------------------------------


def test_json_keeps_file_errors_as_entries(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.py").write_text(BROKEN)
    code, out, err = _run(capsys, "scan", "--format", "json", str(project))
    entries = json.loads(out)
    assert code == 1 and err == ""
    (error,) = [e for e in entries if e["severity"] == "error"]
    assert error["code"] == codes.FILE_ERROR and error["path"].endswith("broken.py") and error["line"] == 1
    assert "does not parse as Python" in error["message"]
    assert all(set(e) == set(error) for e in entries)  # one shape for findings and errors


def test_fix_reports_what_is_left_in_the_chosen_format_on_stderr(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "broken.py").write_text(BROKEN)
    code, out, err = _run(capsys, "fix", "--write", "--format", "json", str(project))
    assert code == 1 and out == ""
    assert sorted(e["code"] for e in json.loads(err)) == [codes.FILE_ERROR, "write"]


# --- GitHub annotations ---------------------------------------------------------------------------------------------------


def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_github_annotations_one_per_finding_with_levels(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.py").write_text(BROKEN)
    code, out, _ = _run(capsys, "scan", "--format", "github", str(project))
    lines = out.splitlines()
    assert code == 1 and len(lines) == 4
    pattern = re.compile(r"^::(warning|error|notice) file=([^,]+),line=(\d+),col=(\d+),title=([^,:]+)::(.+)$")
    parsed = [pattern.match(line) for line in lines]
    assert all(parsed), lines
    got = {
        (_unescape(m.group(2)).rsplit("/", 1)[-1], m.group(5)): (m.group(1), m.group(3), m.group(4))
        for m in parsed
        if m
    }
    assert got == {
        ("broken.py", codes.FILE_ERROR): ("error", "1", "36"),
        ("train.py", "keyword"): ("warning", "3", "44"),
        ("train.py", "call"): ("warning", "4", "7"),
        ("train.py", "write"): ("error", "5", "6"),
    }


def test_github_escaping_of_properties_and_message() -> None:
    finding = findings.Finding("dir,with:odd%/a.py", 2, 3, "hazard", "old", "new", "write", "line one\r\nline 50% two")
    (line,) = formats.to_github([finding], []).splitlines()
    assert (
        line
        == "::error file=dir%2Cwith%3Aodd%25/a.py,line=2,col=3,title=write::old → new: line one%0D%0Aline 50%25 two"
    )


# --- SARIF --------------------------------------------------------------------------------------------------------------


def test_the_vendored_schema_is_the_recorded_file() -> None:
    recorded = re.search(r"^sha256: ([0-9a-f]{64})$", (FIXTURES / "sarif-schema-2.1.0.md").read_text(), re.MULTILINE)
    assert recorded and hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == recorded.group(1)
    assert json.loads(SCHEMA.read_text())["id"].endswith("/sarif-schema-2.1.0.json")


def _validator() -> jsonschema.Draft4Validator:
    checker = jsonschema.Draft4Validator.FORMAT_CHECKER
    assert "uri" in checker.checkers, "install rfc3986-validator (requirements.txt) so `format: uri` is checked"
    return jsonschema.Draft4Validator(json.loads(SCHEMA.read_text()), format_checker=checker)


def test_sarif_is_valid_and_carries_rules_results_and_errors(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "broken.py").write_text(BROKEN)
    monkeypatch.chdir(project)
    code, out, _ = _run(capsys, "scan", "--format", "sarif", ".")
    log = json.loads(out)
    errors = sorted(_validator().iter_errors(log), key=str)
    assert code == 1 and not errors, [e.message for e in errors[:3]]
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == NAME and driver["informationUri"].startswith("file://")
    assert [r["id"] for r in driver["rules"]] == list(codes.CODES)
    write = driver["rules"][list(codes.CODES).index("write")]
    assert write["defaultConfiguration"]["level"] == "error" and write["helpUri"].endswith(
        "#" + findings.anchors()["pitfalls"]
    )
    results = {
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"]): r for r in run["results"]
    }
    assert set(results) == {
        ("broken.py", codes.FILE_ERROR),
        ("train.py", "keyword"),
        ("train.py", "call"),
        ("train.py", "write"),
    }
    for (_, rule), result in results.items():
        assert driver["rules"][result["ruleIndex"]]["id"] == rule
    call = results[("train.py", "call")]
    assert call["level"] == "warning" and call["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4,
        "startColumn": 7,
    }
    assert call["message"]["text"].startswith("gradient_checkpointing_enable → activation_checkpointing_enable: calls")


def test_the_schema_check_would_catch_a_broken_log() -> None:
    log = json.loads(formats.to_sarif([], []))
    assert not list(_validator().iter_errors(log))
    log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = findings.link("script")  # a relative path, not a URI
    del log["version"]
    assert len(list(_validator().iter_errors(log))) == 2


def test_absolute_paths_become_file_uris(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "scan", "--format", "sarif", str(project / "train.py"))
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(out)["runs"][0]["results"]
    }
    assert uris == {(project / "train.py").as_uri()}


# --- fix --diff ---------------------------------------------------------------------------------------------------------


def test_diff_is_explicit_and_the_default_and_excludes_write(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    explicit = _run(capsys, "fix", "--diff", str(project / "train.py"))
    default = _run(capsys, "fix", str(project / "train.py"))
    assert explicit == default and explicit[0] == 1 and "+model.activation_checkpointing_enable()" in explicit[1]
    assert (project / "train.py").read_text() == SCRIPT
    with pytest.raises(SystemExit) as exit_:
        main(["fix", "--diff", "--write", str(project)])
    assert exit_.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
