"""The probe suite: what each name of the alias table does in the transformers (or PEFT, TRL) that is importable.

A probe uses a name the way a user would (a call, a read, a constructor keyword, a command line, a YAML file) and
records what happened (silent, warns, raises, absent) and what it did (a tiny model's checkpointing state, the values
`TrainingArguments` holds). Nothing here knows which release renamed what: names come from the table, outcomes are seen.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import functools
import importlib
import inspect
import io
import itertools
import json
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr
from pathlib import Path
from typing import Any

from checkpointing_migrate.table import Rename, RenameKind, Status, Table, field_name, load
from generator.measure.data import Outcome, RaisedError, RecordedWarning, row_key
from generator.measure.scenarios import Scenario
from generator.problems import GeneratorError

ABSENT = "absent"
"""Outcome of a name that the release does not have (no attribute, parameter, field, flag or key of that name)."""

BOOL_VALUES = (True, False)
"""Values a boolean name is set to: alone the first; together the old name gets the first, the new one the second."""
DICT_VALUES = ({"use_reentrant": False}, {"use_reentrant": True})
"""The same for a dict-valued name (the `*_kwargs` names)."""

OWNER_OBJECTS = {
    "trl configs (_BaseConfig: SFTConfig, DPOConfig, ...)": "trl.SFTConfig",
    "TrlParser (trl sft, trl dpo, ...)": "trl.TrlParser",
}
"""Owners that are a description rather than an importable name, and the object that stands for them."""


class ProbeError(GeneratorError):
    """The table has a row this suite cannot exercise; the message names the row's position."""


# --- Running one use ---------------------------------------------------------------------------------------------------


@functools.cache
def _scratch() -> Path:
    """A scratch folder for output_dir and YAML files, made on first use and removed at exit; its path never
    reaches recorded messages."""
    folder = tempfile.TemporaryDirectory(prefix="probe-")
    atexit.register(folder.cleanup)
    return Path(folder.name)


def _clean(text: str) -> str:
    return text.replace(str(_scratch()), "<tmp>")


@contextmanager
def _quiet() -> Iterator[None]:
    """Setup and read-back are not what is measured: their warnings are dropped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def run(
    row: Rename,
    scenario: str,
    uses: str,
    exists: bool,
    action: Callable[[], Any],
    effect: Callable[[Any], dict[str, Any]],
) -> Outcome:
    """Run `action` recording every warning (the transformers warnings have no stacklevel: `always` is needed)."""
    error = None
    result = None
    stderr = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, redirect_stderr(stderr):
        warnings.simplefilter("always")
        try:
            result = action()
        except Exception as exc:  # noqa: BLE001 - any exception is the outcome being measured
            error = RaisedError(type(exc).__name__, _clean(str(exc)))
        except SystemExit:  # argparse rejects a command line by printing `prog: error: ...` and exiting
            message = stderr.getvalue().strip().splitlines()[-1].partition("error: ")[2]
            error = RaisedError("SystemExit", _clean(message))
    recorded = tuple(RecordedWarning(w.category.__name__, _clean(str(w.message))) for w in caught)
    if not exists:
        outcome = ABSENT
    elif error:
        outcome = "raises"
    else:
        outcome = "warns" if recorded else "works"
    with _quiet():
        after = None if error else effect(result)
    return Outcome(row_key(row), scenario, uses, outcome, recorded, error, after)


# --- Model names: methods, properties and their keyword arguments --------------------------------------------------


def tiny_model() -> Any:
    """A randomly initialised two-layer Llama: built from a config, nothing is downloaded."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    with _quiet():
        return LlamaForCausalLM(config)


def checkpointing_state(model: Any) -> dict[str, Any]:
    """The model's per-module flags and the keyword arguments its layers pass to `torch.utils.checkpoint`.

    Read through the per-module `gradient_checkpointing` flag and `_gradient_checkpointing_func`, which neither
    release renamed, so the same reader works on all of them and emits nothing.
    """
    flagged = [m for m in model.modules() if hasattr(m, "gradient_checkpointing")]
    func = next((m._gradient_checkpointing_func for m in flagged if m.gradient_checkpointing), None)
    return {
        "checkpointing": any(m.gradient_checkpointing for m in flagged),
        "checkpoint_kwargs": dict(func.keywords) if func is not None and hasattr(func, "keywords") else None,
    }


def checkpointing_model() -> Any:
    """A tiny model with checkpointing on, set through the private `_set_gradient_checkpointing`, which no release
    renamed, with `use_reentrant=False` as both public names default to."""
    from functools import partial

    from torch.utils.checkpoint import checkpoint

    model = tiny_model()
    with _quiet():
        model._set_gradient_checkpointing(
            enable=True, gradient_checkpointing_func=partial(checkpoint, use_reentrant=False)
        )
    return model


LOOKUPS: dict[Scenario, Callable[[Any, str], Any]] = {
    Scenario.HASATTR: hasattr,
    Scenario.GETATTR_WITH_A_DEFAULT: lambda obj, name: getattr(obj, name, None),
    Scenario.REFERENCE_WITHOUT_A_CALL: getattr,
}
"""Ways code looks a name up without calling it (the scanner's `string-lookup` and `reference` forms)."""


def subclass_override(method: str, wide: bool) -> Any:
    """A tiny Llama whose class overrides `method`, calling up: with `**kwargs` (`wide`) or only the old keyword,
    as a Hub model or llm2vec's encoder writes it. It records that it ran."""
    from transformers import LlamaForCausalLM

    def enable(self: Any, gradient_checkpointing_kwargs: Any = None, **kwargs: Any) -> None:
        self.override_ran = True
        getattr(super(type(self), self), method)(gradient_checkpointing_kwargs, **kwargs)

    def narrow(self: Any, gradient_checkpointing_kwargs: Any = None) -> None:
        self.override_ran = True
        getattr(super(type(self), self), method)(gradient_checkpointing_kwargs)

    enable.__qualname__ = narrow.__qualname__ = f"TinyLlama.{method}"  # the error names the class, as a user's would
    model = tiny_model()
    model.__class__ = type("TinyLlama", (LlamaForCausalLM,), {method: enable if wide else narrow})
    model.override_ran = False
    return model


def _under_both_names(
    row: Rename,
    scenario: Scenario,
    make: Callable[[], Any],
    act: Callable[[Any, str], Any],
    observe: Callable[[Any, Any], dict[str, Any]],
) -> Iterator[Outcome]:
    """`scenario` with the old name, then the new one, each on a fresh model from `make`: `act(model, name)` is the
    use, `observe(model, value)` what it left behind."""
    for uses in ("old", "new"):
        name, model = getattr(row, uses), make()
        exists = callable(getattr(type(model), name, None))
        yield run(row, scenario, uses, exists, lambda m=model, n=name: act(m, n), lambda v, m=model: observe(m, v))


def _model_method(row: Rename, table: Table) -> Iterator[Outcome]:
    for scenario, make in (
        (Scenario.CALL_ON_A_FRESH_MODEL, tiny_model),
        (Scenario.CALL_ON_A_CHECKPOINTING_MODEL, checkpointing_model),
    ):
        yield from _under_both_names(
            row, scenario, make, lambda m, n: getattr(m, n)(), lambda m, _: checkpointing_state(m)
        )
    for scenario, lookup in LOOKUPS.items():
        yield from _under_both_names(
            row, scenario, tiny_model, lookup, lambda _, v: {"found": v is not False and v is not None}
        )
    # A subclass overriding the method, then the method called by its new name (what the Trainer and users call).
    if row.new == _enable_pair(table)[1]:
        for scenario, wide in (
            (Scenario.OVERRIDDEN_WITH_KWARGS, True),
            (Scenario.OVERRIDDEN_WITHOUT_KWARGS, False),
        ):
            for uses in ("old", "new"):
                name, model = getattr(row, uses), tiny_model()
                exists = callable(getattr(type(model), row.new, None)) and callable(getattr(type(model), name, None))
                model = subclass_override(name, wide) if exists else model
                yield run(
                    row,
                    scenario,
                    uses,
                    exists,
                    lambda m=model: getattr(m, row.new)(),
                    # A release without the old name gets no override (`exists`): it cannot have run.
                    lambda _, m=model: {"override_ran": getattr(m, "override_ran", False), **checkpointing_state(m)},
                )


def _enable_pair(table: Table) -> tuple[str, str]:
    """Old and new name of the method that turns checkpointing on: the owner of the method's keyword row."""
    for row in table.select(RenameKind.ARGUMENT):
        if row.owned.head == "PreTrainedModel" and row.owned.member:
            return _method_pair(row, table)
    raise ProbeError("the table has no keyword row of a PreTrainedModel method")


def _model_property(row: Rename, table: Table) -> Iterator[Outcome]:
    for scenario, make in (
        (Scenario.READ_ON_A_FRESH_MODEL, tiny_model),
        (Scenario.READ_ON_A_CHECKPOINTING_MODEL, checkpointing_model),
    ):
        for uses in ("old", "new"):
            name, model = getattr(row, uses), make()
            exists = isinstance(getattr(type(model), name, None), property)
            yield run(
                row, scenario, uses, exists, lambda m=model, n=name: getattr(m, n), lambda value: {"value": value}
            )
    for scenario, lookup in LOOKUPS.items():
        if scenario == Scenario.REFERENCE_WITHOUT_A_CALL:
            continue  # for a property, a read: measured above
        for uses in ("old", "new"):
            name, model = getattr(row, uses), tiny_model()
            exists = isinstance(getattr(type(model), name, None), property)
            yield run(row, scenario, uses, exists, lambda m=model, n=name, f=lookup: f(m, n), lambda v: {"value": v})
    for uses in ("old", "new"):
        name, model = getattr(row, uses), tiny_model()
        exists = isinstance(getattr(type(model), name, None), property)
        yield run(row, Scenario.SETATTR, uses, exists, lambda m=model, n=name: setattr(m, n, True), lambda _: {})


def _method_pair(row: Rename, table: Table) -> tuple[str, str]:
    """Old and new name of the method that `row` (a keyword argument) belongs to, from the table."""
    method = row.owned.member
    for other in table.select(RenameKind.METHOD, library=row.library):
        if other.old == method and other.status == Status.SHIPPED:
            return other.old, other.new
    raise ProbeError(f"{row.position}: no shipped method row renames '{method}', the owner of this argument")


def _accepts(func: Any, keyword: str) -> bool:
    parameters = inspect.signature(func).parameters
    return keyword in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _model_argument(row: Rename, table: Table) -> Iterator[Outcome]:
    old_method, new_method = _method_pair(row, table)
    value, other_value = DICT_VALUES
    plans = [
        (Scenario.WITH_ITS_OWN_METHOD, "old", old_method, {row.old: value}),
        (Scenario.WITH_ITS_OWN_METHOD, "new", new_method, {row.new: value}),
        (Scenario.WITH_THE_OTHER_METHOD, "old", new_method, {row.old: value}),
        (Scenario.WITH_THE_OTHER_METHOD, "new", old_method, {row.new: value}),
        (Scenario.TOGETHER_WITH_THE_OLD_METHOD, "both", old_method, {row.old: value, row.new: other_value}),
        (Scenario.TOGETHER_WITH_THE_NEW_METHOD, "both", new_method, {row.old: value, row.new: other_value}),
    ]
    for scenario, uses, method, kwargs in plans:
        model = tiny_model()
        func = getattr(type(model), method, None)
        exists = callable(func) and all(_accepts(func, k) for k in kwargs)
        yield run(
            row,
            scenario.of(method),
            uses,
            exists,
            lambda m=model, f=method, k=kwargs: getattr(m, f)(**k),
            lambda _, m=model: checkpointing_state(m),
        )


def override_model(method: str, wide: bool = True) -> Any:
    """A tiny model that is not a `PreTrainedModel` and defines only `method` to turn checkpointing on (as
    sentence-transformers' models do); it records what the caller passed. Its class is named after the method.
    Not `wide`: the method takes only its kwargs keyword, no `**kwargs` (as llm2vec's does)."""
    import torch

    def enable(self: Any, *args: Any, **kwargs: Any) -> None:
        self.checkpointing = True
        self.checkpoint_kwargs = {k.split("_checkpointing_")[-1]: v for k, v in kwargs.items()}

    keyword = method.rsplit("_", 1)[0] + "_kwargs"  # gradient_checkpointing_enable → gradient_checkpointing_kwargs
    namespace: dict[str, Any] = {}
    exec(f"def narrow(self, {keyword}=None):\n    self.checkpointing = True\n", namespace)  # noqa: S102 - a signature

    def forward(self: Any, input_ids: Any = None, labels: Any = None) -> dict[str, Any]:
        return {"loss": self.linear(input_ids.float()).pow(2).mean()}

    def init(self: Any) -> None:
        torch.nn.Module.__init__(self)
        self.linear = torch.nn.Linear(4, 1)
        self.checkpointing, self.checkpoint_kwargs = False, None

    name = "".join(part.title() for part in method.split("_")[:2]) + "Model"  # e.g. GradientCheckpointingModel
    chosen = enable if wide else namespace["narrow"]
    chosen.__qualname__ = f"{name}.{method}"  # the error names the class and method, as a user's would
    return type(name, (torch.nn.Module,), {"__init__": init, "forward": forward, method: chosen})()


def _switch_field(table: Table) -> Rename:
    """The `TrainingArguments` field that turns checkpointing on (a boolean field row of transformers)."""
    for row in table.select(RenameKind.FIELD, library="transformers"):
        if row.owned.head == "TrainingArguments":
            if values_for(row.old, new_name=row.new) == BOOL_VALUES:
                return row
    raise ProbeError("the table has no boolean TrainingArguments field row to turn checkpointing on with")


def _train_one_step(model: Any, switch: Rename) -> None:
    import torch
    from transformers import Trainer

    fields = _fields()
    flag = switch.new if switch.new in fields else switch.old
    with _quiet():  # the arguments are setup; what is measured is what the Trainer does with the model
        args = _training_arguments()(
            **_base(),
            **{flag: True},
            max_steps=1,
            per_device_train_batch_size=1,
            save_strategy="no",
            logging_strategy="no",
            disable_tqdm=True,
            use_cpu=True,
        )
    data = [{"input_ids": torch.ones(4), "labels": torch.zeros(1)}]
    Trainer(model=model, args=args, train_dataset=data).train()


def _trainer_override(row: Rename, table: Table) -> Iterator[Outcome]:
    switch = _switch_field(table)
    for (scenario, wide), uses in itertools.product(
        (
            (Scenario.TRAIN_WITH_CHECKPOINTING, True),
            (Scenario.TRAIN_WITH_A_NARROW_OVERRIDE, False),
        ),
        ("old", "new"),
    ):
        model = override_model(getattr(row, uses), wide)
        outcome = run(
            row,
            scenario,
            uses,
            True,
            lambda m=model: _train_one_step(m, switch),
            lambda _, m=model: {"checkpointing": m.checkpointing, "checkpoint_kwargs": m.checkpoint_kwargs},
        )
        # A caller that never looks for the name it does not know fails on the name it does: the release lacks it.
        if outcome.error and outcome.error.type == "AttributeError" and row.old in outcome.error.message:
            outcome = dataclasses.replace(outcome, outcome=ABSENT)
        yield outcome


# --- TrainingArguments: fields, method arguments, command-line flags, config-file keys ---------------------------------


def _training_arguments() -> Any:
    from transformers import TrainingArguments

    return TrainingArguments


def _base() -> dict[str, Any]:
    # bf16=False is TrainingArguments' default; TRL's configs default to bf16, which a CPU-only machine rejects.
    return {"output_dir": str(_scratch() / "out"), "report_to": "none", "bf16": False}


def _fields(cls: Any = None) -> dict[str, Any]:
    return {f.name: f for f in dataclasses.fields(cls or _training_arguments())}


def _config_class(row: Rename) -> Any:
    """The dataclass a field row belongs to: `TrainingArguments`, or a library's subclass (TRL's configs)."""
    return _training_arguments() if row.owner == "TrainingArguments" else resolve_owner(row)


def values_for(field_name: str, cls: Any = None, new_name: str | None = None) -> tuple[Any, Any]:
    """The probe values for a field, by its annotation in this release (`dict` for the `*_kwargs` fields).

    Read from the class annotations, not `dataclasses.fields`: `HfArgumentParser` rewrites `Field.type` in place
    (`dict | str | None` becomes `str`), so the field objects depend on whether a parser was built before.
    """
    annotations: dict[str, Any] = {}
    for klass in reversed((cls or _training_arguments()).__mro__):
        annotations.update(getattr(klass, "__annotations__", {}))
    if field_name not in annotations and new_name in annotations:
        field_name = new_name  # a release that removed the old field: the new one has the same type
    if field_name not in annotations:
        raise ProbeError(
            f"{(cls or _training_arguments()).__name__} has no field '{field_name}' to take the value type from"
        )
    return DICT_VALUES if "dict" in str(annotations[field_name]) else BOOL_VALUES


def field_pair(row: Rename) -> tuple[str, str]:
    """The `TrainingArguments` field names a flag or key row stands for."""
    return field_name(row.old), field_name(row.new)


def _read_fields(args: Any, names: tuple[str, str]) -> dict[str, Any]:
    """The values of the old and new field after the use; a name that is not a field is left out."""
    fields = _fields(type(args))
    return {name: getattr(args, name) for name in names if name in fields}


def _args_field(row: Rename, table: Table) -> Iterator[Outcome]:
    cls = _config_class(row)
    names, fields = (row.old, row.new), _fields(cls)
    value, other = values_for(row.old, cls, row.new)
    read = lambda args: _read_fields(args, names)
    for uses in ("old", "new"):
        name = getattr(row, uses)
        yield run(
            row,
            Scenario.SET_IN_THE_CONSTRUCTOR,
            uses,
            name in fields,
            lambda n=name: cls(**_base(), **{n: value}),
            read,
        )
    yield run(
        row,
        Scenario.SET_BOTH_IN_THE_CONSTRUCTOR,
        "both",
        all(n in fields for n in names),
        lambda: cls(**_base(), **{row.old: value, row.new: other}),
        read,
    )
    for uses in ("old", "new"):
        name = getattr(row, uses)
        with _quiet():  # a release without the old field cannot set it: that read is absent
            args = cls(**_base(), **{row.old: value}) if row.old in fields else None
        yield run(
            row,
            Scenario.READ_AFTER_SETTING_THE_OLD_NAME,
            uses,
            name in fields and args is not None,
            lambda a=args, n=name: getattr(a, n),
            lambda v: {"value": v},
        )
    for uses in ("old", "new"):
        name = getattr(row, uses)
        with _quiet():
            args = cls(**_base())
        yield run(
            row,
            Scenario.SET_THROUGH_REPLACE,
            uses,
            name in fields,
            lambda a=args, n=name: dataclasses.replace(a, **{n: value}),
            read,
        )
    for uses in ("old", "new"):
        # A subclass that declares the name with a default (TRL's configs), constructed without setting anything.
        name, annotation = getattr(row, uses), type(value)
        declares = dataclasses.make_dataclass(
            "Declared", [(name, annotation, dataclasses.field(default_factory=lambda: value))], bases=(cls,)
        )
        yield run(row, Scenario.DECLARED_BY_A_SUBCLASS, uses, name in fields, lambda c=declares: c(**_base()), read)
    for uses in ("old", "new"):
        name = getattr(row, uses)
        with _quiet():
            args = cls(**_base())
        yield run(
            row,
            Scenario.WRITTEN_AFTER_CONSTRUCTION,
            uses,
            name in fields,
            lambda a=args, n=name: setattr(a, n, value),
            lambda _, a=args: _read_fields(a, names),
        )


def _args_method_argument(row: Rename, table: Table) -> Iterator[Outcome]:
    cls, method = _training_arguments(), row.owned.member
    names = (row.old, row.new)
    value, other = values_for(row.old, None, row.new)
    func = getattr(cls, method)
    read = lambda args: _read_fields(args, names)
    plans = [
        (Scenario.CALL, "old", {row.old: value}),
        (Scenario.CALL, "new", {row.new: value}),
        (Scenario.CALL_WITH_BOTH, "both", {row.old: value, row.new: other}),
    ]
    for scenario, uses, kwargs in plans:
        with _quiet():
            args = cls(**_base())
        exists = all(_accepts(func, k) for k in kwargs)
        yield run(row, scenario.of(method), uses, exists, lambda a=args, k=kwargs: getattr(a, method)(**k), read)


def _parser() -> Any:
    from transformers import HfArgumentParser

    return HfArgumentParser(_training_arguments())


def _flag_words(flag: str, value: Any, explicit: bool) -> list[str]:
    if isinstance(value, dict):
        return [flag, json.dumps(value)]
    return [flag, str(value).lower()] if explicit else [flag]


def _cli_flag(row: Rename, table: Table) -> Iterator[Outcome]:
    names = field_pair(row)
    value, other = values_for(names[0], None, names[1])
    parser = _parser()
    known = parser._option_string_actions
    read = lambda result: _read_fields(result[0], names)
    base = ["--output_dir", str(_scratch() / "out"), "--report_to", "none"]
    for uses in ("old", "new"):
        flag = getattr(row, uses)
        words = base + _flag_words(flag, value, explicit=False)
        yield run(
            row, Scenario.COMMAND_LINE, uses, flag in known, lambda w=words: parser.parse_args_into_dataclasses(w), read
        )
    words = base + _flag_words(row.old, value, True) + _flag_words(row.new, other, True)
    yield run(
        row,
        Scenario.COMMAND_LINE_WITH_BOTH,
        "both",
        row.old in known and row.new in known,
        lambda: parser.parse_args_into_dataclasses(words),
        read,
    )


def _yaml_text(keys: dict[str, Any]) -> str:
    # JSON is YAML: no YAML library is needed to write the file, and the values keep their types.
    return json.dumps({**_base(), **keys}, indent=2)


def _config_key(row: Rename, table: Table) -> Iterator[Outcome]:
    value, other = values_for(row.old, None, row.new)
    parser, fields, names = _parser(), _fields(), (row.old, row.new)
    read = lambda result: _read_fields(result[0], names)
    plans = [
        (Scenario.YAML_FILE, "old", {row.old: value}),
        (Scenario.YAML_FILE, "new", {row.new: value}),
        (Scenario.YAML_FILE_WITH_BOTH, "both", {row.old: value, row.new: other}),
    ]
    for index, (scenario, uses, keys) in enumerate(plans):
        path = _scratch() / f"{row.old}-{index}.yaml"
        path.write_text(_yaml_text(keys), encoding="utf-8")
        exists = all(k in fields for k in keys)
        yield run(row, scenario, uses, exists, lambda p=path: parser.parse_yaml_file(p), read)
    # What a tool that tolerates unknown keys gets: a release without the new field drops it without a word.
    for uses in ("old", "new"):
        keys = {getattr(row, uses): value}
        yield run(
            row,
            Scenario.PARSE_DICT,
            uses,
            all(k in fields for k in keys),
            lambda k=keys: parser.parse_dict({**_base(), **k}, allow_extra_keys=True),
            read,
        )


# --- Planned rows: does each name exist? ---------------------------------------------------------------------------------


def resolve_owner(row: Rename) -> Any:
    """The object a row's owner names: a module, class or function, imported by its dotted name."""
    text = OWNER_OBJECTS.get(row.owner, row.owned.name)
    module_name = row.library  # the table's library keys are their import names
    parts = text.split(".")
    if parts[0] != module_name:
        parts = [module_name, *parts]
    obj: Any = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[: index + 1]))
    return obj


def name_exists(row: Rename, name: str) -> bool:
    """Whether the owner has `name` as the kind of name the row is."""
    try:
        owner = resolve_owner(row)
    except (ImportError, AttributeError) as exc:
        if row.status == Status.REMOVED:
            return False  # the release removed the owner itself (a deprecated method's keyword goes with the method)
        raise ProbeError(f"{row.position}: cannot import the owner '{row.owner}': {exc}") from None
    if row.kind == RenameKind.FIELD or row.kind == RenameKind.CONFIG_KEY:
        return name in {f.name for f in dataclasses.fields(owner)}
    if row.kind == RenameKind.ARGUMENT:
        return name in inspect.signature(owner).parameters
    if row.kind == RenameKind.CLI_FLAG:
        from trl import SFTConfig

        parser = owner(SFTConfig) if row.library == "trl" else owner(_training_arguments())
        return name in parser._option_string_actions
    return hasattr(owner, name)


def _existence(row: Rename, table: Table) -> Iterator[Outcome]:
    for uses in ("old", "new"):
        name = getattr(row, uses)
        exists = name_exists(row, name)
        yield Outcome(row_key(row), Scenario.EXISTS, uses, "works" if exists else ABSENT, (), None, None)


# --- Dispatch ------------------------------------------------------------------------------------------------------------

Probe = Callable[[Rename, Table], Iterator[Outcome]]


def probe_for(row: Rename) -> Probe:
    """The probe that exercises `row`; `ProbeError` names the row when the suite has none for it.

    Shipped rows get every scenario their kind has; planned rows only whether each name exists, since there is nothing
    to compare a name that no release has with."""
    if row.status != Status.SHIPPED:
        return _existence
    owner, kind = row.owner, row.kind
    if owner == "PreTrainedModel" and kind == RenameKind.METHOD:
        return _model_method
    if owner == "PreTrainedModel" and kind == RenameKind.PROPERTY:
        return _model_property
    if owner.startswith("PreTrainedModel.") and kind == RenameKind.ARGUMENT:
        return _model_argument
    if owner.startswith("Trainer ") and kind == RenameKind.OVERRIDE:
        return _trainer_override
    if (owner == "TrainingArguments" or owner in OWNER_OBJECTS) and kind == RenameKind.FIELD:
        return _args_field
    if owner.startswith("TrainingArguments.") and kind == RenameKind.ARGUMENT:
        return _args_method_argument
    if owner == "HfArgumentParser(TrainingArguments)" and kind == RenameKind.CLI_FLAG:
        return _cli_flag
    if owner.startswith("TrainingArguments YAML") and kind == RenameKind.CONFIG_KEY:
        return _config_key
    raise ProbeError(
        f"{row.position}: the probe suite cannot exercise a shipped {kind} of {owner}; add a probe to generator/measure/probes.py"
    )


def probe_rows(table: Table, library: str) -> list[Outcome]:
    """Every outcome for the rows of `library`, in table order."""
    outcomes: list[Outcome] = []
    for row in table.renames:
        if row.library == library:
            outcomes.extend(probe_for(row)(row, table))
    return outcomes


def installed_versions(library: str) -> dict[str, str]:
    """The versions the outcomes were measured with: the library, transformers and torch."""
    import torch
    import transformers

    versions = {"transformers": transformers.__version__, "torch": torch.__version__.split("+")[0]}
    if library != "transformers":
        versions[library] = importlib.import_module(library).__version__
    return versions


def main(argv: list[str] | None = None) -> int:
    """`python -m generator.measure.probes --table aliases.yaml --library transformers --out outcomes.json`; `python -m
    generator matrix` runs it once per listed release, with that release first on `PYTHONPATH`."""
    parser = argparse.ArgumentParser(prog="python -m generator.measure.probes", description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    table = load(args.table)
    try:
        outcomes = probe_rows(table, args.library)
    except ProbeError as exc:
        print(exc, file=sys.stderr)
        return 1
    import transformers

    result = {
        "versions": installed_versions(args.library),
        "transformers_path": str(Path(transformers.__file__).parent),
        "outcomes": [dataclasses.asdict(o) for o in outcomes],
    }
    args.out.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
