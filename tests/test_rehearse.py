"""Rehearse v6: the preview, the pytest plugin and `rehearse -- CMD`.

The fixture projects under tests/fixtures/rehearse/ run in their own pytest, in a subprocess, with the plugin loaded
by `-p` as an installed package loads it by its entry point. The preview's errors for the old names are compared
with what transformers 5.22.2 was measured to do for the new names (data/matrix.json), by running the matrix's own
probes under the preview with each row's names swapped.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from checkpointing_migrate.rehearse import cli, preview
from checkpointing_migrate.table import Rename, Table, load
from generator.paths import ROOT, TABLE_PATH

FIXTURES = ROOT / "tests" / "fixtures" / "rehearse"
PROJECT_TESTS = (
    "method_call",
    "hasattr_branch",
    "getattr_default",
    "training_arguments_field",
    "set_training",
    "command_line",
    "config_keys",
)
"""The tests of each fixture project: one per way old names break (or keep working, migrated)."""


@pytest.fixture(scope="module")
def table() -> Table:
    return load(TABLE_PATH)


def tiny_model() -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    return LlamaForCausalLM(
        LlamaConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, vocab_size=64)
    )


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != preview.ENV_VAR}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the fixture projects run in place: no __pycache__/ left in tests/fixtures
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return {**env, **extra}


def run_project(name: str, tmp_path: Path, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The fixture project's own pytest; the plugin comes in by its entry point (`make setup` installs the package)."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        f"--basetemp={tmp_path / 'base'}",
        "-rA",
        *options,
    ]
    return subprocess.run(
        command, cwd=FIXTURES / name, env=_env(**env), capture_output=True, text=True, timeout=300, check=False
    )


def outcomes(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Test name → PASSED/FAILED, from the `-rA` summary."""
    found = re.findall(r"^(PASSED|FAILED) check_project\.py::test_(\w+)", result.stdout, re.MULTILINE)
    return {name: status for status, name in found}


def expected_announcement(table: Table) -> str:
    return preview.Preview(preview.plan(table), versions={"transformers": version("transformers")}).announcement()


# --- The plan ---------------------------------------------------------------------------------------------------------


def test_plan_removes_exactly_the_shipped_names_with_a_removal(table: Table) -> None:
    plan = preview.plan(table)
    wanted = table.planned_removals()
    assert wanted == [r for r in table.renames if r.status == "shipped" and r.removal]
    assert list(plan.rows) == wanted and wanted
    carried = [r for action in plan.actions for r in action.rows]
    assert sorted(carried, key=wanted.index) == wanted, "every row is carried out by exactly one action"
    assert not [r for r in carried if r.library != "transformers"], "PEFT and TRL rows are planned: nothing removed"
    assert plan.removals == tuple(dict.fromkeys(r.removal for r in wanted))


def test_a_row_the_preview_cannot_carry_out_is_refused_with_its_position(table: Table) -> None:
    row = next(r for r in table.renames if r.kind == "cli-flag" and r.status == "shipped")
    odd = dataclasses.replace(row, owner="a launcher nobody can import")
    with pytest.raises(preview.PreviewError, match=rf"^{re.escape(str(row.position))}: cannot rehearse '{row.old}'"):
        preview.plan(dataclasses.replace(table, renames=(*table.renames, odd)))


def test_importing_the_plugin_does_nothing() -> None:
    code = "import sys, checkpointing_migrate.rehearse.plugin, checkpointing_migrate.rehearse.cli; print(sorted(m for m in ('transformers', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- The fixture projects -------------------------------------------------------------------------------------------------


def test_old_names_project_passes_today_and_fails_under_the_preview(tmp_path: Path, table: Table) -> None:
    today = run_project("old_names", tmp_path)
    assert today.returncode == 0, today.stdout + today.stderr
    assert outcomes(today) == dict.fromkeys(PROJECT_TESTS, "PASSED")
    assert expected_announcement(table) not in today.stdout

    previewed = run_project("old_names", tmp_path, "--v6-preview")
    assert previewed.returncode == 1, previewed.stdout + previewed.stderr
    assert outcomes(previewed) == dict.fromkeys(PROJECT_TESTS, "FAILED")
    assert previewed.stdout.splitlines().count(expected_announcement(table)) == 1
    for error in (
        "AttributeError: 'LlamaForCausalLM' object has no attribute 'gradient_checkpointing_enable'",
        "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'gradient_checkpointing'",
        "Some specified arguments are not used by the HfArgumentParser: ['--gradient-checkpointing']",
        "Some keys are not used by the HfArgumentParser: ['gradient_checkpointing', 'gradient_checkpointing_kwargs']",
    ):
        assert error in previewed.stdout


def test_new_names_project_passes_with_and_without_the_preview(tmp_path: Path, table: Table) -> None:
    for options in ((), ("--v6-preview",)):
        result = run_project("new_names", tmp_path, *options)
        assert result.returncode == 0, result.stdout + result.stderr
        assert outcomes(result) == dict.fromkeys(PROJECT_TESTS, "PASSED")
        assert (expected_announcement(table) in result.stdout) == bool(options)


def test_the_environment_variable_turns_the_preview_on(tmp_path: Path) -> None:
    result = run_project("old_names", tmp_path, **{preview.ENV_VAR: "1"})
    assert outcomes(result) == dict.fromkeys(PROJECT_TESTS, "FAILED")


def test_a_bad_environment_value_is_a_usage_error(tmp_path: Path) -> None:
    result = run_project("new_names", tmp_path, **{preview.ENV_VAR: "maybe"})
    assert result.returncode == 4  # pytest's usage-error exit
    assert f"--v6-preview: {preview.ENV_VAR}='maybe': set it to 1" in result.stderr
    assert "Traceback" not in result.stderr


# --- rehearse -- CMD ------------------------------------------------------------------------------------------------------

SCRIPT = """\
import sys
from transformers import LlamaConfig, LlamaForCausalLM
model = LlamaForCausalLM(LlamaConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, vocab_size=64))
if hasattr(model, "gradient_checkpointing_enable"):
    model.gradient_checkpointing_enable()
print("checkpointing:", model.is_activation_checkpointing)
sys.exit(5)
"""


def test_rehearse_runs_a_script_under_the_preview(tmp_path: Path, table: Table) -> None:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT, encoding="utf-8")
    plain = subprocess.run(
        [sys.executable, "-W", "ignore", str(script)],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (plain.returncode, plain.stdout) == (5, "checkpointing: True\n")
    command = [
        sys.executable,
        "-m",
        "checkpointing_migrate",
        "rehearse",
        "--",
        sys.executable,
        "-W",
        "ignore",
        str(script),
    ]
    rehearsed = subprocess.run(
        command, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300, check=False
    )
    assert (rehearsed.returncode, rehearsed.stdout) == (5, "checkpointing: False\n"), rehearsed.stderr
    assert rehearsed.stderr.splitlines() == [expected_announcement(table)]


def test_rehearse_keeps_the_programs_own_sitecustomize(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text("import builtins\nbuiltins.USER_SITECUSTOMIZE = True\n")
    code = "import builtins; print(getattr(builtins, 'USER_SITECUSTOMIZE', False))"
    env = _env(PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT)]))
    result = subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", "rehearse", "--", sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "True\n", "")  # no transformers: no announcement


def test_a_python_that_cannot_load_the_preview_stops_at_transformers(tmp_path: Path) -> None:
    # packaging, not PyYAML: the preview reads the packaged table from its frozen form, without PyYAML
    (tmp_path / "packaging.py").write_text('raise ImportError("this Python has no packaging")\n')
    env = cli.environment(_env())
    env["PYTHONPATH"] = os.pathsep.join([str(cli.STARTUP_DIR), str(tmp_path), str(ROOT)])
    other_tool = subprocess.run(
        [sys.executable, "-c", "print('ran')"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert (other_tool.returncode, other_tool.stdout, other_tool.stderr) == (0, "ran\n", "")
    training = subprocess.run(
        [sys.executable, "-c", "import transformers; print('ran')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (training.returncode, training.stdout) == (2, "")  # never without the preview it was asked for
    assert (
        training.stderr
        == f"rehearse: error: cannot load the v6 preview in {sys.executable}: this Python has no packaging\n"
    )


def test_rehearse_runs_a_test_suite_without_the_plugin(tmp_path: Path, table: Table) -> None:
    command = [
        sys.executable,
        "-m",
        "checkpointing_migrate",
        "rehearse",
        "--",
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:checkpointing-v6-preview",
        f"--basetemp={tmp_path / 'base'}",
        "-rA",
    ]
    result = subprocess.run(
        command, cwd=FIXTURES / "old_names", env=_env(), capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 1
    assert outcomes(result) == dict.fromkeys(PROJECT_TESTS, "FAILED")
    assert result.stderr.splitlines() == [expected_announcement(table)]


@pytest.mark.parametrize(
    ("command", "code", "message"),
    [
        ([], 2, "rehearse: error: no command; give the command after --"),
        (["--"], 2, "rehearse: error: no command; give the command after --"),
        (["--", "no-such-command-x"], 127, "rehearse: error: command not found: no-such-command-x"),
    ],
)
def test_rehearse_usage_errors(command: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert cli.run(parser.parse_args(command)) == code
    assert capsys.readouterr().err.startswith(message)


# --- In-process: what the preview does, and that it leaves nothing behind ------------------------------------------------


def _state() -> dict[str, Any]:
    """Everything the preview may touch: the namespaces of the model base class and of every TrainingArguments class."""
    from transformers import PreTrainedModel, TrainingArguments

    classes = [PreTrainedModel, TrainingArguments, *TrainingArguments.__subclasses__()]
    return {c.__qualname__: {k: id(v) for k, v in vars(c).items()} for c in classes} | {
        "fields": [f.name for f in dataclasses.fields(TrainingArguments)]
    }


def test_apply_and_undo_leave_transformers_as_it_was(table: Table, tmp_path: Path) -> None:
    from transformers import HfArgumentParser, PreTrainedModel, TrainingArguments

    before = _state()
    model = tiny_model()
    with preview.v6_preview(table) as applied:
        assert applied.applied and preview.active() is None  # a `with` preview is not the process's preview
        assert not hasattr(PreTrainedModel, "gradient_checkpointing_enable")
        assert getattr(model, "is_gradient_checkpointing", "default") == "default"
        model.activation_checkpointing_enable()
        assert model.is_activation_checkpointing
    assert _state() == before
    assert hasattr(PreTrainedModel, "gradient_checkpointing_enable")
    with pytest.warns(FutureWarning, match="`gradient_checkpointing` is deprecated"):
        args = TrainingArguments(output_dir=str(tmp_path), report_to="none", gradient_checkpointing=True)
    assert args.activation_checkpointing and args.gradient_checkpointing
    with pytest.warns(FutureWarning, match="`gradient_checkpointing` is deprecated"):
        (parsed,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses(
            ["--output_dir", str(tmp_path), "--report_to", "none", "--gradient_checkpointing"]
        )
    assert parsed.activation_checkpointing


def test_the_process_preview_of_the_plugin_is_applied_once_and_undone() -> None:
    from transformers import PreTrainedModel

    before = _state()
    applied = preview.activate()
    try:
        assert preview.activate() is applied and preview.active() is applied
        with preview.v6_preview() as inner:  # inside a previewed process a `with` preview is that preview
            assert inner is applied
        assert not hasattr(PreTrainedModel, "gradient_checkpointing_enable")
    finally:
        preview.deactivate()
    assert preview.active() is None and _state() == before


def test_a_release_without_a_new_name_is_refused_and_nothing_stays_patched(table: Table) -> None:
    # As on transformers < 5.23: the last action finds no new name, after the others were applied.
    row = next(r for r in table.renames if r.kind == "argument" and r.owner == "TrainingArguments.set_training")
    broken = dataclasses.replace(
        table,
        renames=tuple(
            dataclasses.replace(r, new="activation_checkpointing_x") if r is row else r for r in table.renames
        ),
    )
    assert isinstance(preview.plan(broken).actions[-1], preview.RejectKeyword)
    before = _state()
    with (
        pytest.raises(
            preview.PreviewError,
            match=(
                rf"^transformers {re.escape(version('transformers'))} has no 'activation_checkpointing_x' on "
                rf"TrainingArguments.set_training, so its old name cannot be rehearsed away; the preview needs transformers "
                rf"{re.escape(row.since or '')} or later$"
            ),
        ),
        preview.v6_preview(broken),
    ):
        pass
    assert _state() == before


def test_the_preview_keeps_the_new_names_and_drops_the_old_ones(table: Table, tmp_path: Path) -> None:
    from transformers import TrainingArguments

    model = tiny_model()
    with preview.v6_preview(table):
        for old in ("gradient_checkpointing_enable", "gradient_checkpointing_disable", "is_gradient_checkpointing"):
            assert not hasattr(model, old)
            assert getattr(model, old, None) is None
        assert getattr(model, "is_gradient_checkpointing", True) is True  # PEFT 0.21.2's read takes the "on" path
        args = TrainingArguments(
            output_dir=str(tmp_path),
            report_to="none",
            activation_checkpointing=True,
            activation_checkpointing_kwargs={"use_reentrant": False},
        )
        assert not hasattr(args, "gradient_checkpointing") and not hasattr(args, "gradient_checkpointing_kwargs")
        args.set_training(activation_checkpointing=False)
        assert args.activation_checkpointing is False and not hasattr(args, "gradient_checkpointing")
        assert "gradient_checkpointing" not in args.to_dict() and "gradient_checkpointing" not in repr(args)
        assert args == dataclasses.replace(args)


def test_a_subclass_defined_before_the_preview_loses_the_inherited_fields(table: Table, tmp_path: Path) -> None:
    from transformers import TrainingArguments

    @dataclasses.dataclass
    class ProjectArgs(TrainingArguments):
        lora_rank: int = 8

    with preview.v6_preview(table):
        with pytest.raises(
            TypeError,
            match=r"\.<locals>\.ProjectArgs\.__init__\(\) got an unexpected keyword argument 'gradient_checkpointing'$",
        ):
            ProjectArgs(output_dir=str(tmp_path), gradient_checkpointing=True)
        args = ProjectArgs(output_dir=str(tmp_path), report_to="none", activation_checkpointing=True)
        assert args.activation_checkpointing and not hasattr(args, "gradient_checkpointing")
        assert "gradient_checkpointing" not in repr(args) and args == dataclasses.replace(args)
    with pytest.warns(FutureWarning):
        assert ProjectArgs(
            output_dir=str(tmp_path), report_to="none", gradient_checkpointing=True
        ).activation_checkpointing


def test_trl_configs_keep_their_own_field_but_transformers_stops_reading_it(table: Table, tmp_path: Path) -> None:
    from trl import SFTConfig

    options = {"output_dir": str(tmp_path), "report_to": "none", "bf16": False}
    with pytest.warns(FutureWarning, match="`gradient_checkpointing` is deprecated"):
        today = SFTConfig(**options)
    assert today.activation_checkpointing is True  # TRL's default True on the old field, forwarded by transformers
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with preview.v6_preview(table):
            rehearsed = SFTConfig(**options)
    # TRL's row is planned, so TRL's field stays; once transformers no longer reads the old name, its default is lost.
    assert (rehearsed.gradient_checkpointing, rehearsed.activation_checkpointing) == (True, False)


def test_peft_takes_the_checkpointing_path_once_the_property_is_gone(table: Table) -> None:
    from peft import LoraConfig, get_peft_model

    def hooks_after_wrapping() -> int:
        model = tiny_model()
        get_peft_model(model, LoraConfig(r=2, target_modules=["q_proj"]))
        return len(model.get_input_embeddings()._forward_hooks)

    with pytest.warns(FutureWarning, match="`is_gradient_checkpointing` is deprecated"):
        assert hooks_after_wrapping() == 0  # not checkpointing: PEFT leaves the embeddings alone
    with preview.v6_preview(table):
        assert hooks_after_wrapping() == 1  # getattr(model, "is_gradient_checkpointing", True) is now always True


# --- The same errors as a release without the name (measured) ------------------------------------------------------------


def _swapped(table: Table, rows: tuple[Rename, ...]) -> tuple[Table, list[Rename]]:
    """The rows with old and new exchanged (an argument's owner names the new method), so the matrix's probes use
    the new name where they used the old one."""
    methods = {r.old: r.new for r in rows if r.kind == "method"}

    def swap(r: Rename) -> Rename:
        owner, _, method = r.owner.rpartition(".")
        owner = f"{owner}.{methods[method]}" if r.kind == "argument" and method in methods else r.owner
        return dataclasses.replace(r, old=r.new, new=r.old, owner=owner)

    swapped = [swap(r) for r in rows]
    return dataclasses.replace(table, renames=tuple(swapped)), swapped


def test_old_names_fail_under_the_preview_as_new_names_failed_in_5_22_2(table: Table) -> None:
    from generator.measure import probes
    from generator.measure.data import load_matrix

    rows = preview.plan(table).rows
    pairs = {name: other for r in rows for name, other in ((r.old, r.new), (r.new, r.old))}
    pattern = re.compile("|".join(re.escape(n) for n in sorted(pairs, key=len, reverse=True)))
    swap = lambda text: pattern.sub(lambda m: pairs[m.group(0)], text)
    # The `override` probe's model class is named after the method it defines (swapped along with it), in the
    # "object has no attribute" message and in a refused keyword's `Class.method()`.
    model_class = lambda text: re.sub(r"\b\w+Model(?=' object|\.\w+\(\))", "<model>", text)

    swapped_table, swapped_rows = _swapped(table, rows)
    with preview.v6_preview(table):
        rehearsed = [o for r in swapped_rows for o in probes.probe_for(r)(r, swapped_table)]
    measured = next(r for r in load_matrix().releases if r.release == "5.22.2")
    keyed = {(o.row.kind, o.row.owner, o.row.old, o.scenario, o.uses): o for o in measured.outcomes}
    compared = 0
    for outcome in rehearsed:
        row = next(r for r in rows if r.kind == outcome.row.kind and r.old == outcome.row.new)
        # The swapped row's "old" is the name that exists (as the old one did in 5.22.2), its "new" the one that does not.
        want = keyed[(row.kind, row.owner, row.old, swap(outcome.scenario), outcome.uses)]
        got_error = outcome.error and dataclasses.replace(
            outcome.error, message=model_class(swap(outcome.error.message))
        )
        want_error = want.error and dataclasses.replace(want.error, message=model_class(want.error.message))
        assert (outcome.outcome, got_error, outcome.warnings) == (want.outcome, want_error, want.warnings), (
            f"{row.old} / {outcome.scenario} / uses {outcome.uses}"
        )
        if want.effect is not None:
            assert json.loads(swap(json.dumps(outcome.effect))) == want.effect
        compared += 1
    assert compared == len(
        [
            o
            for o in measured.outcomes
            if (o.row.kind, o.row.owner, o.row.old) in {(r.kind, r.owner, r.old) for r in rows}
        ]
    )


def test_the_guide_names_the_option_variable_and_module_the_code_defines() -> None:
    # The guide's shell lines are not executed; this keeps what they name in step with the code.
    from checkpointing_migrate.rehearse import plugin

    guide = (ROOT / "docs" / "generated" / "migration-guide.md").read_text(encoding="utf-8")
    section = guide.partition("## Rehearse v6")[2].partition("\n## ")[0]
    parser = argparse.ArgumentParser()
    plugin.pytest_addoption(_Options(parser))
    for name in (
        f"{preview.ENV_VAR}=1 pytest",
        f"pytest -p {plugin.__name__} --v6-preview",
        "checkpointing-migrate rehearse -- python train.py",
    ):
        assert name in section
    assert parser.parse_args(["--v6-preview"]).v6_preview is True


class _Options:
    """Just enough of pytest's option parser to read what the plugin adds."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser

    def getgroup(self, name: str) -> _Options:
        return self

    def addoption(self, *names: str, **options: Any) -> None:
        self.parser.add_argument(*names, **options)


def test_the_trainer_stops_falling_back_to_the_old_method(table: Table) -> None:
    """The `override` row: a model that defines only the old method trains today (the Trainer warns and calls it);
    under the preview the Trainer calls the new method, as v6 will, and the model's own AttributeError comes out."""
    from generator.measure import probes

    (caller,) = [r for r in table.renames if r.kind == "override"]
    switch = probes._switch_field(table)
    with preview.v6_preview(table):
        old_only = probes.override_model(caller.old)
        with pytest.raises(AttributeError, match=f"object has no attribute '{caller.new}'"):
            probes._train_one_step(old_only, switch)
        new_only = probes.override_model(caller.new)
        probes._train_one_step(new_only, switch)
        assert new_only.checkpointing
    old_only = probes.override_model(caller.old)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        probes._train_one_step(old_only, switch)
    assert old_only.checkpointing and caller.warning is not None
    assert [str(w.message) for w in caught if w.category is FutureWarning] == [
        caller.warning.text_for(type(old_only).__name__)
    ]
