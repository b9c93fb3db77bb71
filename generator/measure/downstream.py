"""Warnings a user cannot fix: deprecated-name FutureWarnings that PEFT's and TRL's own code emits.

PEFT and TRL still call the `gradient_checkpointing*` names, so under transformers ≥ 5.23 some of their public entry
points warn even when the user's code uses only the new names. `python -m generator matrix` runs this module in the
project's environment and commits `data/downstream-warnings.json` (the guide's "Warnings you cannot fix yet").
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

from checkpointing_migrate.records import dump
from generator.measure.data import (
    CodeLine,
    Downstream,
    DownstreamEntry,
    DownstreamWarning,
    Fix,
    RecordedWarning,
    SourceLine,
)
from generator.problems import GeneratorError

BASE_SETUP = (
    "import warnings",
    "from transformers import LlamaConfig, LlamaForCausalLM",
    (
        "config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,\n"
        "                     num_attention_heads=2, num_key_value_heads=2)"
    ),
)
"""What every entry point starts from; the migration guide's first example defines the same names."""


@dataclasses.dataclass(frozen=True)
class EntryPoint:
    """A public entry point of PEFT or TRL, as a user calls it."""

    id: str
    """Stable key, e.g. `peft.get_peft_model`."""
    library: str
    """`peft` or `trl`: whose code is expected to emit the warning."""
    title: str
    """What the user calls, as shown in the guide."""
    setup: tuple[str, ...]
    """Statements before the call (imports, a model); they must not warn."""
    call: str
    """The statement that is measured."""
    how: str = ""
    """How the measurement differs from real use, when it does (plain Markdown)."""
    fix: str | None = None
    """A statement with the new names that avoids the warning in the user's own code, if there is one."""


def _peft_wrap(name: str) -> EntryPoint:
    """Wrapping a tiny transformers model with a LoRA adapter through PEFT's `name`."""
    return EntryPoint(
        id=f"peft.{name}",
        library="peft",
        title=f"{name}()",
        setup=(f"from peft import LoraConfig, {name}",),
        call=f'peft_model = {name}(LlamaForCausalLM(config), LoraConfig(r=2, target_modules=["q_proj", "v_proj"]))',
    )


def _config_entry(name: str) -> EntryPoint:
    var = re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", name).lower()
    call = f'{var} = {name}(output_dir="out", report_to="none", bf16=False)'
    return EntryPoint(
        id=f"trl.{name}",
        library="trl",
        title=f"{name}()",
        setup=(f"from trl import {name}",),
        call=call,
        fix=call[:-1] + ", activation_checkpointing=True)",
    )


ENTRY_POINTS = (
    _peft_wrap("get_peft_model"),
    _peft_wrap("PeftModel"),
    _peft_wrap("PeftMixedModel"),
    EntryPoint(
        id="peft.prepare_model_for_kbit_training",
        library="peft",
        title="prepare_model_for_kbit_training()",
        setup=(
            "from peft import prepare_model_for_kbit_training",
            "quantized = LlamaForCausalLM(config)",
            "quantized.is_loaded_in_8bit = True  # simulated: the attribute PEFT reads; no bitsandbytes, no GPU",
        ),
        call="quantized = prepare_model_for_kbit_training(quantized)",
        how=(
            "PEFT takes this path only for a quantized model. Measured on the tiny model with `is_loaded_in_8bit` "
            "set to `True`, the attribute `prepare_model_for_kbit_training` reads to decide that a model is 8-bit; "
            "its parameters stay float32, so nothing but that decision is simulated."
        ),
    ),
    *(
        _config_entry(name)
        for name in (
            "SFTConfig",
            "DPOConfig",
            "GRPOConfig",
            "KTOConfig",
            "RLOOConfig",
            "RewardConfig",
            "DistillationConfig",
        )
    ),
    EntryPoint(
        id="trl.disable_gradient_checkpointing",
        library="trl",
        title="trl.models.utils.disable_gradient_checkpointing()",
        setup=(
            "from trl.models.utils import disable_gradient_checkpointing",
            "checkpointed = LlamaForCausalLM(config)",
            "checkpointed.activation_checkpointing_enable()",
        ),
        call="with disable_gradient_checkpointing(checkpointed):\n    pass",
        how="The DPO, KTO, GRPO and RLOO trainers enter this context manager around generation and reference passes.",
    ),
    EntryPoint(
        id="trl.unwrap_model_for_generation",
        library="trl",
        title="trl.models.utils.unwrap_model_for_generation()",
        setup=(
            "from accelerate import Accelerator",
            "from trl.models.utils import unwrap_model_for_generation",
            "accelerator = Accelerator(cpu=True)",
            "generating = LlamaForCausalLM(config)",
            "generating.activation_checkpointing_enable()",
        ),
        call="with unwrap_model_for_generation(generating, accelerator):\n    pass",
        how=(
            "The GRPO, RLOO and distillation trainers enter this context manager around each generation; on a "
            "checkpointed model it turns checkpointing off for the generation and on again after it."
        ),
    ),
    EntryPoint(
        id="trl.enable_selective_activation_checkpointing",
        library="trl",
        title="trl.models.enable_selective_activation_checkpointing()",
        setup=(
            "from trl.models import enable_selective_activation_checkpointing",
            "sac_model = LlamaForCausalLM(config)",
            "enable_selective_activation_checkpointing(sac_model)",
        ),
        call="sac_model.activation_checkpointing_enable()",
        how=(
            "`SFTTrainer` wraps the model this way when `gradient_checkpointing_kwargs` holds `selective: True`, "
            "and the `Trainer` then calls `activation_checkpointing_enable()`, as the last statement does."
        ),
    ),
)
"""Every entry point measured, in the order the guide lists them: each a few statements a user would write, run on a
tiny model (the doc tests run every example of the guide's section again)."""


class DownstreamError(GeneratorError):
    """An entry point cannot be measured as written (its setup warns or fails)."""


def _run(code: str, namespace: dict[str, Any]) -> None:
    exec(compile(code, "<entry point>", "exec"), namespace)  # noqa: S102 - the statements of ENTRY_POINTS


def _prepared(entry: EntryPoint) -> dict[str, Any]:
    """A fresh namespace with the base setup and the entry point's setup run; setup that warns is an error."""
    namespace: dict[str, Any] = {"__name__": "__entry__"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for statement in (*BASE_SETUP, *entry.setup):
            _run(statement, namespace)
    if caught:
        raise DownstreamError(f"{entry.id}: its setup warns ({caught[0].category.__name__}: {caught[0].message})")
    return namespace


def _recorded(code: str, namespace: dict[str, Any]) -> tuple[RecordedWarning, ...]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(code, namespace)
    return tuple(RecordedWarning(w.category.__name__, str(w.message)) for w in caught)


def _package_relative(filename: str) -> str | None:
    """`peft/peft_model.py` for a file inside an installed package folder, `None` for anything else."""
    path = Path(filename).resolve()
    for library in ("peft", "trl", "transformers"):
        root = Path(importlib.import_module(library).__file__).resolve().parent
        if path.is_relative_to(root):
            return f"{library}/{path.relative_to(root).as_posix()}"
    return None


def _located(entry: EntryPoint, warning: RecordedWarning) -> DownstreamWarning:
    """Run the call again with just this warning turned into an error, and read the frames it went through: the
    innermost frame in the entry point's library is the site, the innermost in transformers the line that emits it."""
    namespace = _prepared(entry)
    category = getattr(__import__("builtins"), warning.category)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", message=re.escape(warning.message) + r"\Z", category=category)
        try:
            _run(entry.call, namespace)
        except category as exc:
            frames = traceback.extract_tb(exc.__traceback__)
        else:
            raise DownstreamError(f"{entry.id}: the warning did not come back when run again: {warning.message}")
    located = [(frame, _package_relative(frame.filename)) for frame in frames]
    own = [(f, p) for f, p in located if p and p.startswith(f"{entry.library}/")]
    emitted = [(f, p) for f, p in located if p and p.startswith("transformers/")]
    return DownstreamWarning(
        warning.category,
        warning.message,
        site=CodeLine(own[-1][1], own[-1][0].lineno, own[-1][0].line) if own else None,
        emitted_at=SourceLine(emitted[-1][1], emitted[-1][0].lineno) if emitted else None,
    )


def measure_entry(entry: EntryPoint) -> DownstreamEntry:
    """What one entry point emits, where each warning comes from, and what the fix (if any) emits."""
    emitted = tuple(_located(entry, w) for w in _recorded(entry.call, _prepared(entry)))
    fix = None if entry.fix is None else Fix(entry.fix, _recorded(entry.fix, _prepared(entry)))
    return DownstreamEntry(entry.id, entry.library, entry.title, entry.setup, entry.call, entry.how, emitted, fix)


def measure() -> Downstream:
    """Every entry point, with the versions it was measured with."""
    import peft
    import torch
    import transformers
    import trl

    versions = {
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "trl": trl.__version__,
        "torch": torch.__version__.split("+")[0],
    }
    return Downstream(versions, BASE_SETUP, tuple(measure_entry(entry) for entry in ENTRY_POINTS))


def main(argv: list[str] | None = None) -> int:
    """`python -m generator.measure.downstream --out downstream.json`."""
    parser = argparse.ArgumentParser(prog="python -m generator.measure.downstream", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        result = measure()
    except DownstreamError as exc:
        print(exc, file=sys.stderr)
        return 1
    args.out.write_text(dump(dataclasses.asdict(result)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
