"""Row tests: every shipped row of aliases.yaml, checked against the installed transformers.

For each row, the old name must emit exactly the warning the table records (category and message, verbatim, once),
the new name must emit nothing at all (warnings are errors while it runs), and both must have the same effect:
the same per-module checkpointing flags, `is_activation_checkpointing` and checkpoint arguments, bit-identical
gradients of a tiny model, and equal `TrainingArguments` however they were made (constructor, command line, YAML).

A shipped row whose kind and owner this file cannot exercise fails `test_every_shipped_row_has_a_use`, so a new row
cannot go untested.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from checkpointing_migrate.table import Rename, load
from generator.measure.probes import (
    _switch_field,
    _train_one_step,
    checkpointing_model,
    checkpointing_state,
    field_pair,
    override_model,
    tiny_model,
    values_for,
)

ROOT = Path(__file__).resolve().parents[1]
TABLE = load(ROOT / "aliases.yaml")
SHIPPED = [row for row in TABLE.renames if row.status == "shipped"]
BASE = {"output_dir": "out", "report_to": "none"}


def row_id(row: Rename) -> str:
    return f"{row.kind}:{row.owner.split(' ')[0]}:{row.old}"


def quiet(func: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func()


def method_pair(row: Rename) -> tuple[str, str]:
    """Old and new name of the method that a keyword-argument row belongs to."""
    method = row.owner.split(".", 1)[1]
    (pair,) = [(r.old, r.new) for r in SHIPPED if r.kind == "method" and r.old == method]
    return pair


# --- One use of a name per kind: returns what the effect is read from -----------------------------------------------


def use_model_method(row: Rename, which: str, start: Callable[[], Any]) -> Any:
    model = start()
    getattr(model, getattr(row, which))()
    return model


def use_model_property(row: Rename, which: str, start: Callable[[], Any]) -> Any:
    model = start()
    return model, getattr(model, getattr(row, which))


def use_model_argument(row: Rename, which: str, start: Callable[[], Any]) -> Any:
    model = start()
    method = method_pair(row)[0 if which == "old" else 1]
    getattr(model, method)(**{getattr(row, which): {"use_reentrant": False}})
    return model


def use_field(row: Rename, which: str) -> Any:
    from transformers import TrainingArguments

    return TrainingArguments(**BASE, **{getattr(row, which): values_for(row.old)[0]})


def use_set_training(row: Rename, which: str) -> Any:
    from transformers import TrainingArguments

    args = quiet(lambda: TrainingArguments(**BASE))
    return args.set_training(**{getattr(row, which): values_for(row.old)[0]})


def use_flag(row: Rename, which: str) -> Any:
    from transformers import HfArgumentParser, TrainingArguments

    value = values_for(field_pair(row)[0])[0]
    words = [getattr(row, which)] + ([json.dumps(value)] if isinstance(value, dict) else [])
    parser = HfArgumentParser(TrainingArguments)
    (args,) = parser.parse_args_into_dataclasses(["--output_dir", "out", "--report_to", "none", *words])
    return args


def use_key(row: Rename, which: str, tmp: Path) -> Any:
    from transformers import HfArgumentParser, TrainingArguments

    path = tmp / f"{which}.yaml"
    path.write_text(json.dumps({**BASE, getattr(row, which): values_for(row.old)[0]}), encoding="utf-8")  # JSON is YAML
    (args,) = HfArgumentParser(TrainingArguments).parse_yaml_file(path)
    return args


def use_override(row: Rename, which: str) -> Any:
    """A model (not a `PreTrainedModel`) that defines only the old or the new method, trained one step by the
    Trainer with checkpointing on."""
    model = override_model(getattr(row, which))
    _train_one_step(model, _switch_field(TABLE))
    return model


MODEL_USES = {
    ("method", "PreTrainedModel"): use_model_method,
    ("property", "PreTrainedModel"): use_model_property,
    ("argument", "PreTrainedModel."): use_model_argument,
}
ARGS_USES = {
    ("field", "TrainingArguments"): use_field,
    ("argument", "TrainingArguments.set_training"): use_set_training,
    ("cli-flag", "HfArgumentParser(TrainingArguments)"): use_flag,
}


def model_use(row: Rename) -> Callable[..., Any] | None:
    for (kind, owner), use in MODEL_USES.items():
        if row.kind == kind and (row.owner == owner or (owner.endswith(".") and row.owner.startswith(owner))):
            return use
    return None


def args_use(row: Rename, tmp: Path) -> Callable[[Rename, str], Any] | None:
    if row.kind == "override" and row.owner.startswith("Trainer "):
        return use_override
    if row.kind == "config-key" and row.owner.startswith("TrainingArguments YAML"):
        return lambda r, which: use_key(r, which, tmp)
    return ARGS_USES.get((row.kind, row.owner))


def recorded(func: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What `func` returns and every warning it emits, as the doc tests print them."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # transformers warns without stacklevel: the default filter shows it once
        result = func()
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]


def use(row: Rename, which: str, tmp: Path) -> Any:
    """The row's first use (on a fresh model, for model names) with the old or the new name."""
    model_func = model_use(row)
    if model_func is not None:
        return model_func(row, which, tiny_model)
    args_func = args_use(row, tmp)
    assert args_func is not None
    return args_func(row, which)


# --- Tests -----------------------------------------------------------------------------------------------------------------


def test_every_shipped_row_has_a_use(tmp_path: Path) -> None:
    untested = [row_id(r) for r in SHIPPED if model_use(r) is None and args_use(r, tmp_path) is None]
    assert SHIPPED and not untested, (
        f"no row test can use these shipped rows; add a use to tests/test_rows.py: {untested}"
    )


@pytest.mark.parametrize("row", SHIPPED, ids=row_id)
def test_old_name_emits_exactly_the_recorded_warning(row: Rename, tmp_path: Path) -> None:
    assert row.warning is not None
    model, emitted = recorded(lambda: use(row, "old", tmp_path))
    # An override row's message names the model class: the one the use built.
    expected = row.warning.text_for(type(model).__name__) if row.kind == "override" else row.warning.message
    assert emitted == [f"{row.warning.category}: {expected}"], f"{row.position}: the warning aliases.yaml records"


@pytest.mark.parametrize("row", SHIPPED, ids=row_id)
def test_new_name_emits_nothing(row: Rename, tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # -W error: any warning, of any category, fails the use
        use(row, "new", tmp_path)


MODEL_ROWS = [row for row in SHIPPED if model_use(row) is not None]
ARGS_ROWS = [row for row in SHIPPED if model_use(row) is None and row.kind != "override"]
OVERRIDE_ROWS = [row for row in SHIPPED if row.kind == "override"]


@pytest.mark.parametrize("row", OVERRIDE_ROWS, ids=row_id)
def test_the_trainer_turns_checkpointing_on_through_either_method(row: Rename, tmp_path: Path) -> None:
    old = quiet(lambda: use(row, "old", tmp_path))
    new = use(row, "new", tmp_path)
    assert old.checkpointing and new.checkpointing
    assert old.checkpoint_kwargs == new.checkpoint_kwargs


def gradients(model: Any) -> list[torch.Tensor]:
    """Gradients of one training step on fixed tokens; checkpointing only acts in train mode."""
    model.train()
    tokens = torch.arange(12).reshape(2, 6) % model.config.vocab_size
    model(input_ids=tokens, labels=tokens).loss.backward()
    return [p.grad.clone() for p in model.parameters() if p.grad is not None]


@pytest.mark.parametrize("start", [tiny_model, checkpointing_model], ids=["fresh", "checkpointing"])
@pytest.mark.parametrize("row", MODEL_ROWS, ids=row_id)
def test_old_and_new_model_name_have_the_same_effect(row: Rename, start: Callable[[], Any]) -> None:
    torch.manual_seed(0)
    state = start().state_dict()

    def same_start() -> Any:
        model = start()
        model.load_state_dict(state)
        return model

    func = model_use(row)
    assert func is not None
    old = quiet(lambda: func(row, "old", same_start))
    new = func(row, "new", same_start)
    if row.kind == "property":
        (old, old_value), (new, new_value) = old, new
        assert old_value == new_value
    assert checkpointing_state(old) == checkpointing_state(new)
    assert old.is_activation_checkpointing == new.is_activation_checkpointing
    flags = [[getattr(m, "gradient_checkpointing", None) for m in model.modules()] for model in (old, new)]
    assert flags[0] == flags[1]
    old_grads, new_grads = gradients(old), gradients(new)
    assert len(old_grads) == len(new_grads) > 0
    assert all(torch.equal(a, b) for a, b in zip(old_grads, new_grads, strict=True)), "gradients differ in some bit"


@pytest.mark.parametrize("row", ARGS_ROWS, ids=row_id)
def test_old_and_new_argument_name_give_equal_training_arguments(row: Rename, tmp_path: Path) -> None:
    old = quiet(lambda: use(row, "old", tmp_path))
    new = use(row, "new", tmp_path)
    assert old == new
    assert old.to_dict() == new.to_dict()
    # The name took effect: the new field holds the value, whichever name set it.
    field = field_pair(row)[1] if row.kind in ("cli-flag", "config-key") else row.new
    assert (
        getattr(new, field) == values_for(field_pair(row)[0] if row.kind in ("cli-flag", "config-key") else row.old)[0]
    )


@pytest.mark.parametrize("which", ["old", "new"])
@pytest.mark.parametrize(
    "field", [r for r in SHIPPED if r.kind == "field" and r.owner == "TrainingArguments"], ids=row_id
)
def test_constructor_command_line_and_yaml_agree(field: Rename, which: str, tmp_path: Path) -> None:
    """The same name set three ways gives equal TrainingArguments (the flag and key rows of this field)."""
    flag = next(r for r in SHIPPED if r.kind == "cli-flag" and field_pair(r) == (field.old, field.new))
    key = next(r for r in SHIPPED if r.kind == "config-key" and (r.old, r.new) == (field.old, field.new))
    made = [
        quiet(lambda u=u: u())
        for u in (lambda: use_field(field, which), lambda: use_flag(flag, which), lambda: use_key(key, which, tmp_path))
    ]
    assert made[0] == made[1] == made[2]
