"""What was saved under the old name does on the releases with the new one: a `TrainingArguments` pickled before the
rename (`torch.save(args)`, the Trainer's `training_args.bin`), and a model config holding the legacy key.

`python -m generator matrix` runs `save` with the newest release before the rename first on the path, `load` with each
release after it (one-step training runs of a tiny model), and commits `data/saved.json`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from generator.measure.data import LegacyConfig, Loaded, Run

if TYPE_CHECKING:
    from checkpointing_migrate.table import Table


def _save(path: Path, old: str) -> dict[str, Any]:
    import torch
    import transformers

    args = transformers.TrainingArguments(**_settings(path), **{old: True})
    torch.save(args, path / "training_args.bin")
    return {"release": transformers.__version__, "config": dataclasses.asdict(_legacy_config(old))}


def _legacy_config(key: str) -> LegacyConfig:
    import transformers

    config = _config(**{key: True})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = transformers.LlamaForCausalLM(config)
    on = any(getattr(m, key, False) for m in model.modules() if m is not model)  # the layers' own per-module flag
    source = (Path(transformers.__file__).parent / "modeling_utils.py").read_text().splitlines()
    read = next(n for n, text in enumerate(source, 1) if f'getattr(self.config, "{key}"' in text)
    emitted = tuple(dict.fromkeys(str(w.message) for w in caught if "checkpoint" in str(w.message)))
    return LegacyConfig(transformers.__version__, on, hasattr(config, key), emitted, read)


def _config(**extra: Any) -> Any:
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        **extra,
    )


def _settings(path: Path) -> dict[str, Any]:
    return {
        "output_dir": str(path / "out"),
        "report_to": "none",
        "max_steps": 1,
        "save_strategy": "no",
        "use_cpu": True,
    }


def _train(args: Any, new: str) -> tuple[bool, tuple[str, ...]]:
    import torch
    from transformers import LlamaForCausalLM, Trainer

    torch.manual_seed(0)
    model = LlamaForCausalLM(_config())
    data = [{"input_ids": [1, 2, 3, 4], "labels": [1, 2, 3, 4]}] * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Trainer(model=model, args=args, train_dataset=data).train()
    return bool(getattr(model, f"is_{new}")), tuple(
        dict.fromkeys(str(w.message) for w in caught if "checkpoint" in str(w.message))
    )


def _run(args: Any, new: str, made: tuple[str, ...] = ()) -> Run:
    checkpointing, emitted = _train(args, new)
    return Run(getattr(args, new), checkpointing, tuple(dict.fromkeys((*made, *emitted))))


def _replaced(loaded: Any) -> tuple[Any, tuple[str, ...]]:
    """`dataclasses.replace(loaded)` and the warnings it emits."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        replaced = dataclasses.replace(loaded)
    return replaced, tuple(str(w.message) for w in caught if "checkpoint" in str(w.message))


def _load(path: Path, old: str, new: str) -> dict[str, Any]:
    import torch
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading the old field warns; `_run` records what training does
        loaded = torch.load(path / "training_args.bin", weights_only=False)
        old_value = getattr(loaded, old)
    trainer_py = Path(transformers.__file__).parent / "trainer.py"
    decided = re.compile(rf"^\s*if args\.{new}:\s*$")
    line = next(n for n, text in enumerate(trainer_py.read_text().splitlines(), 1) if decided.match(text))
    fresh = transformers.TrainingArguments(**_settings(path), **{new: True})
    replaced, made = _replaced(loaded)
    return {"config": dataclasses.asdict(_legacy_config(old))} | dataclasses.asdict(
        Loaded(
            transformers.__version__,
            new in vars(loaded),
            old_value,
            _run(loaded, new),
            _run(replaced, new, made),
            _run(fresh, new),
            line,
        )
    )


def measure(
    table: Table, releases: list[tuple[str, Path]], run: Callable[[str, list[str], list[Path]], str]
) -> dict[str, Any]:
    """Pickle on the newest listed transformers release before the field's rename, load on every one after it; build a
    model from a legacy config on each of them. `releases`: (version, its matrix environment) in order; `run`: runs a
    module with those environments first on its path and returns what it prints (the matrix's runner)."""
    row = table.switch_field
    before = [env for version, env in releases if Version(version) < Version(row.since or "")][-1]
    after = [env for version, env in releases if Version(version) >= Version(row.since or "")]
    with tempfile.TemporaryDirectory(prefix="saved-") as tmp:
        common = ["--path", tmp, "--old", row.old, "--new", row.new]
        saved = json.loads(run(__name__, ["save", *common], [before]))
        loaded = [json.loads(run(__name__, ["load", *common], [env])) for env in after]
    configs = [saved.pop("config"), *(r.pop("config") for r in loaded)]
    return {
        "about": "Measured by `python -m generator matrix` (generator/measure/saved.py); never edit by hand.",
        "saved_on": saved["release"],
        "old": row.old,
        "new": row.new,
        "releases": loaded,
        "configs": configs,
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m generator.measure.saved save|load --path DIR --old NAME --new NAME --out FILE`."""
    parser = argparse.ArgumentParser(prog="python -m generator.measure.saved", description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("save", "load"))
    for option in ("--path", "--old", "--new", "--out"):
        parser.add_argument(option, required=True)
    args = parser.parse_args(argv)
    path = Path(args.path)
    result = _save(path, args.old) if args.step == "save" else _load(path, args.old, args.new)
    Path(args.out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
