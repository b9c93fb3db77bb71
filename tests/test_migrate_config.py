"""`[tool.checkpointing-migrate]` in pyproject.toml: found as ruff finds its own, each key does what its flag does, a
flag given wins over the key, and a wrong key or value is an error at its line (exit 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from migratekit import REQUIREMENT, run

LOAD = 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("m")\n'
SAFE = "model.gradient_checkpointing_enable()\n"
UNSAFE = "other.gradient_checkpointing_enable()\n"


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT + "\n[tool.checkpointing-migrate]\n" + table)
    (tmp_path / "train.py").write_text(LOAD + SAFE + UNSAFE)
    return tmp_path


ERRORS = [
    # (the table's lines, the error's line:col (the table starts on line 5), what it says)
    ('selct = ["call"]\n', "6:1", "unknown key `selct` in [tool.checkpointing-migrate]; did you mean `select`?"),
    ("  unsafe_fixes = true\n", "6:3", "unknown key `unsafe_fixes`"),
    ('select = [\n  "call",\n  "cal",\n]\n', "8:4", "`select`: unknown finding code `cal`; did you mean `call`?"),
    ('ignore = "call"\n', "6:1", '`ignore` must be a list of codes, e.g. ignore = ["string-lookup"]; got a string'),
    ("unsafe-fixes = 1\n", "6:1", "`unsafe-fixes` must be true or false; got an integer (1)"),
    ('target = "transformers>>5"\n', "6:1", "`target`: --target 'transformers>>5' is not a requirement"),
    (
        'exclude = ["a"]\n[tool.checkpointing-migrate.per-file-ignores]\n"tests/*" = ["kwd"]\n',
        "8:15",
        '`per-file-ignores."tests/*"`: unknown finding code `kwd`',
    ),
    ('per-file-ignores = {"tests/*" = "call"}\n', "6:1", 'must be a list of codes, e.g. "tests/*" = ["call"]'),
    (
        '[tool.checkpointing-migrate.per-file-ignores]\n"a.py" = []\n"t/*.py" = "call"\n',
        "8:1",
        '`per-file-ignores."t/*.py"`',
    ),
    ('select = ["call"\n', "", "does not parse as TOML"),
    ('select = ["file-error"]\n', "6:12", "`file-error` cannot be selected or ignored"),
]


@pytest.mark.parametrize(("table", "where", "message"), ERRORS)
def test_a_bad_configuration_is_an_error_at_its_line(tmp_path: Path, table: str, where: str, message: str) -> None:
    project = _project(tmp_path, table)
    result = run("scan", ".", cwd=project)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert message in result.stderr
    if where:
        assert result.stderr.startswith(f"{project / 'pyproject.toml'}:{where}: "), result.stderr


def test_each_key_acts_and_a_flag_wins(tmp_path: Path) -> None:
    project = _project(tmp_path, 'unsafe-fixes = true\nselect = ["call"]\nextend-exclude = ["skipped"]\n')
    (project / "skipped").mkdir()
    (project / "skipped" / "x.py").write_text(LOAD + SAFE)
    (project / "other.yaml").write_text("gradient_checkpointing: true\n")
    scan = run("scan", ".", cwd=project)
    assert scan.stdout.splitlines()[-1].startswith(
        "2 findings (0 hazard, 2 fix, 0 info) in 2 files checked."
    )  # select, exclude
    fix = run("fix", ".", cwd=project).stdout
    assert fix.count("+model.activation") == 1 and "+other.activation" in fix  # unsafe-fixes
    fix = run("fix", "--no-unsafe-fixes", ".", cwd=project).stdout
    assert "+other.activation" not in fix
    scan = run("scan", "--select", "config-key", "--exclude", "", ".", cwd=project)
    assert "other.yaml:1:1: fix (unsafe) [config-key]" in scan.stdout and "train.py" not in scan.stdout
    assert "skipped/x.py" not in run("scan", ".", cwd=project).stdout
    assert "skipped/x.py:3:7" in run("scan", "--extend-exclude", "nothing", ".", cwd=project).stdout


def test_target_per_file_ignores_and_respect_gitignore(tmp_path: Path) -> None:
    table = 'target = "transformers==5.20.0"\nrespect-gitignore = false\n'
    table += '[tool.checkpointing-migrate.per-file-ignores]\n"tests/*" = ["call"]\n'
    project = _project(tmp_path, table)
    (project / ".gitignore").write_text("out/\n")
    (project / "out").mkdir()
    (project / "tests").mkdir()
    for folder in ("out", "tests"):
        (project / folder / "t.py").write_text(LOAD + SAFE)
    out = run("scan", ".", cwd=project).stdout
    assert "out/t.py:3:7: info [call]" in out and "tests/t.py" not in out  # the target gates, gitignore is off
    out = run("scan", "--respect-gitignore", "--target", "transformers>=5.23", ".", cwd=project).stdout
    assert "out/t.py" not in out and "train.py:3:7: fix [call]" in out


def test_the_closest_pyproject_with_the_table_is_used(tmp_path: Path) -> None:
    project = _project(tmp_path, 'ignore = ["call"]\n')
    sub = project / "pkg" / "src"
    sub.mkdir(parents=True)
    (project / "pkg" / "pyproject.toml").write_text('[project]\nname = "inner"\n')  # no table: looked past
    (sub / "a.py").write_text(LOAD + SAFE)
    assert run("scan", "a.py", cwd=sub).returncode == 0
    assert run("scan", str(sub), cwd=tmp_path.parent).returncode == 0  # from the PATHs, not the current folder
    assert run("scan", "--ignore", "keyword", "a.py", cwd=sub).returncode == 1


def test_a_dotted_key_is_found_at_its_line(tmp_path: Path) -> None:
    import tomllib

    from checkpointing_migrate import config

    text = '[project]\nname = "x"\n\n[tool]\nother = 1\ncheckpointing-migrate.unsafe-fixes = "yes"\n'
    table = tomllib.loads(text)["tool"]["checkpointing-migrate"]
    with pytest.raises(config.ConfigError) as caught:
        config.parse(tmp_path / "pyproject.toml", text, table)
    assert caught.value.error.line == 6 and "`unsafe-fixes` must be true or false" in caught.value.error.message
