"""The rules come from the table (a new row is enough to teach the tool a rename), the version gate reads ranges
exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from checkpointing_migrate import declarations, requirements, rules
from checkpointing_migrate.cli import main
from checkpointing_migrate.requirements import Allowed
from checkpointing_migrate.table import load
from generator import paths

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
    placed |= set(r.callers.values())
    assert placed == {row for row in table.renames if row.status == "shipped"}
    assert r.model_classes == {"PreTrainedModel"} and "TrainingArguments" in r.config_classes
    assert r.stem and all(r.stem in row.old for row in table.renames)


def test_an_override_of_only_the_old_method_says_the_trainer_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Trainer's own FutureWarning (an `override` row) names the class; a class that also defines the new
    method is not told so, since the Trainer calls the new one."""
    table = load(paths.TABLE_PATH)
    (caller,) = [r for r in table.renames if r.kind == "override"]
    script = tmp_path / "model.py"
    script.write_text(
        "class Encoder(torch.nn.Module):\n    def gradient_checkpointing_enable(self, **kwargs):\n        pass\n\n"
        "class Both(torch.nn.Module):\n    def gradient_checkpointing_enable(self, **kwargs):\n        pass\n"
        "    def activation_checkpointing_enable(self, **kwargs):\n        pass\n"
    )
    main(["scan", "--format", "json", str(script), "--target", "transformers>=5.24"])
    # The whole message is in JSON (a text line has the short reason): the override of `Encoder` on line 2, of `Both` on 6.
    messages = {e["line"]: e["message"] for e in json.loads(capsys.readouterr().out)}
    encoder, both = messages[2], messages[6]
    assert f"{caller.warning.category}: {caller.warning.text_for('Encoder')}" in encoder
    assert "the Trainer warns" in encoder and "the Trainer warns" not in both


@pytest.mark.parametrize(
    ("spec", "before"),
    [
        (">=5.23.0", False),
        (">=5.23", False),
        ("==5.24.*", False),
        ("~=5.23.0", False),
        ("===5.23.0", False),
        (">5.22.2", True),
        ("<5.23", True),
        (">=5.20,<6", True),
        ("!=5.22.0,>=5.23", False),
        ("", True),
        (">=5.23,>=5.20", False),
        ("==5.20.0", True),
    ],
)
def test_the_gate_knows_whether_older_releases_are_allowed(spec: str, before: bool) -> None:
    assert Allowed.of(SpecifierSet(spec), "test").allows_before("5.23.0") is before


@pytest.mark.parametrize(
    ("specs", "before"),
    [((">=5.23", "==5.24.*"), False), ((">=5.23", ">=5.20"), True), ((">=5.24", ""), True), ((">=5.23",), False)],
)
def test_the_gate_takes_the_union_of_every_way_to_install(specs: tuple[str, ...], before: bool) -> None:
    """A name is written only if every release any of them allows has it."""
    ways = tuple(requirements.Alternative(SpecifierSet(s), (f"way {i}",)) for i, s in enumerate(specs))
    assert Allowed(ways, "").allows_before("5.23.0") is before


@pytest.mark.parametrize(
    ("line", "spec"),
    [
        ("transformers>=5.23.0", (">=5.23.0", False)),
        ('transformers [torch] >=5.23,<6 ; python_version>"3.9"', ("<6,>=5.23", True)),
        ("Transformers==5.20.0", ("==5.20.0", False)),
        ("transformers(>=5.23)", (">=5.23", False)),
        ("transformers @ https://x/t.whl", ("", False)),
        ("transformers", ("", False)),
        ("transformers-stream-generator>=1", None),
        ("numpy>=1", None),
    ],
)
def test_requirement_lines_are_read_as_pep_508(line: str, spec: tuple[str, bool] | None) -> None:
    found = declarations.pep508(line)
    assert (None if found is None else (str(found[0]), found[1])) == spec


@pytest.mark.parametrize(
    ("poetry", "pep440"),
    [
        ("^5.23", [">=5.23,<6"]),
        ("^5.23.1", [">=5.23.1,<6"]),
        ("^0.2.3", [">=0.2.3,<0.3"]),
        ("~5.23", [">=5.23,<5.24"]),
        ("~5", [">=5,<6"]),
        ("5.23.*", ["==5.23.*"]),
        ("*", [""]),
        ("5.23.0", ["==5.23.0"]),
        ("=5.23.0", ["==5.23.0"]),
        (">= 5.20, < 6", [">=5.20,<6"]),
        (">=5.20 <6", [">=5.20,<6"]),
        ("^5.20 || ^6.1", [">=5.20,<6", ">=6.1,<7"]),
    ],
)
def test_poetry_constraints_are_read_as_pep_440(poetry: str, pep440: list[str]) -> None:
    assert declarations.poetry_constraint(poetry) == pep440


@pytest.mark.parametrize(
    ("conda", "pep440"),
    [
        ("transformers", [""]),
        ("transformers=5.24", ["==5.24.*"]),
        ("transformers==5.24.0", ["==5.24.0"]),
        ("transformers >=5.23,<6", ["<6,>=5.23"]),
        ("conda-forge::transformers 5.24.*", ["==5.24.*"]),
        ("transformers>=5.23|<5.0", [">=5.23", "<5.0"]),
        ("transformers-cli", None),
    ],
)
def test_conda_specs_are_read_as_pep_440(conda: str, pep440: list[str] | None) -> None:
    assert declarations.conda_spec(conda) == pep440


def test_a_malformed_transformers_requirement_is_an_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("numpy\ntransformers>=five\n")
    with pytest.raises(
        requirements.RequirementError, match=r"requirements.txt:2:1: cannot read the requirement 'transformers>=five'"
    ):
        requirements.declared_in(tmp_path)
