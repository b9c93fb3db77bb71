"""The two command lines' registries: the parser, `--help` and every list of commands in the docs come from them, and
a table with problems gets the same report and exit code from every command that loads it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checkpointing_migrate import cli as tool_cli
from checkpointing_migrate.table import TABLE_PROBLEMS
from generator import cli as site_cli
from generator import paths

ROOT = paths.ROOT
TOOL = [c.name for c in tool_cli.COMMANDS]
SITE = [c.name for c in site_cli.COMMANDS]


def _listed(path: str, pattern: str) -> list[str]:
    """The command names in the one match of `pattern` in `path`: words joined by `|` or by commas."""
    text = (ROOT / path).read_text(encoding="utf-8")
    (found,) = re.findall(pattern, text, flags=re.S)
    return re.split(r"[|,]\s*", found.replace("`", ""))


@pytest.mark.parametrize(
    ("path", "pattern", "registry"),
    [
        ("README.md", r"`python -m generator` is the maintainers' one:\s*(.*?)\)", SITE),
        ("docs/migrate-automatically.md", r"the maintainers' command line \((.*?)\);", SITE),
        ("generator/cli.py", r"the maintainers' command line \((.*?)\)\.", SITE),
        ("docs/reference.md", r"`checkpointing-migrate ([a-z|]+)`", TOOL),
        ("docs/migrate-automatically.md", r"`python -m generator ([a-z|]+)`, and its wheel", TOOL),
    ],
)
def test_every_list_of_commands_in_the_docs_is_the_registry(path: str, pattern: str, registry: list[str]) -> None:
    assert _listed(path, pattern) == registry, f"{path}: the list of commands is not the registry's"


def test_readme_shows_every_tool_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("## Migrating your own code") :]
    shown = {m for m in re.findall(r"^checkpointing-migrate (\w+)|`(\w+) CODE`", block, flags=re.M) for m in m if m}
    assert shown == set(TOOL)


@pytest.mark.parametrize("module", [tool_cli, site_cli], ids=["tool", "site"])
def test_the_parser_and_help_are_the_registry(module: object, capsys: pytest.CaptureFixture[str]) -> None:
    commands = module.COMMANDS  # type: ignore[attr-defined]
    top = tool_cli.parser([], commands, prog="p", description="d")
    (choices,) = [a.choices for a in top._subparsers._group_actions]  # type: ignore[union-attr]
    assert list(choices) == [c.name for c in commands]
    help_text = " ".join(top.format_help().split())
    for command in commands:
        assert f"{command.name} {command.help}" in help_text
        assert callable(tool_cli.implementation(command, command.function))
        assert callable(tool_cli.implementation(command, command.options))
    assert all(c.checkout for c in site_cli.COMMANDS) and not any(c.checkout for c in tool_cli.COMMANDS)


BROKEN = "libraries: {}\nreleases: []\nrenames:\n  - library: transformers\n    kind: methd\n"


@pytest.mark.parametrize(
    "argv",
    [
        ("tool", "scan", "--table", "{table}", "{project}"),
        ("tool", "fix", "--table", "{table}", "{project}"),
        ("site", "check", "--table", "{table}"),
        ("site", "render", "--table", "{table}", "--docs", "{project}"),
        ("site", "matrix", "--check", "--table", "{table}"),
        ("site", "adoption", "--check", "--table", "{table}"),
        ("site", "audit", "--table", "{table}"),
        ("site", "refresh", "--table", "{table}"),
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_table_with_problems_gets_one_report_and_one_exit_code(
    argv: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "aliases.yaml"
    table.write_text(BROKEN, encoding="utf-8")
    (tmp_path / "train.py").write_text("model.gradient_checkpointing_enable()\n", encoding="utf-8")
    which, *args = argv
    args = [a.format(table=table, project=tmp_path) for a in args]
    main = tool_cli.main if which == "tool" else site_cli.main
    assert main(args) == TABLE_PROBLEMS
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and "Traceback" not in err
    assert all(line.startswith(f"{table}:") for line in lines[:-1]) and "kind 'methd'" in err, lines
    assert re.fullmatch(rf"\d+ problems? in {re.escape(str(table))}; nothing was written\.", lines[-1]), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aliases.yaml", "train.py"]


def test_a_generator_error_no_command_expected_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator.measure import registry

    def unreachable(args: object) -> int:
        raise registry.RegistryError("cannot read http://127.0.0.1:9/pypi/peft/json: connection refused")

    check = next(c for c in site_cli.COMMANDS if c.name == "check")
    monkeypatch.setattr(site_cli, "check", unreachable)
    assert check.module == site_cli.__name__
    assert site_cli.main(["check"]) == 2
    assert capsys.readouterr().err == "error: cannot read http://127.0.0.1:9/pypi/peft/json: connection refused\n"
