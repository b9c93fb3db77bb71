"""The adoption report: the committed data is what the scanner finds in the released wheels today, it contains
the call sites the naming research found by reading the sources, and the page shows them as file:line.
"""

from __future__ import annotations

import json

import pytest
from markdown.extensions.toc import slugify

from generator import paths
from generator.pages import render
from generator.measure import adoption
from generator.migrate import findings, rules
from generator.table import load
from sitekit import IN_CI

TABLE = load(paths.TABLE_PATH)
PAGE = paths.DOCS_DIR / render.GENERATED_DIR / "adoption-report.md"

# Found by reading the released sources (research notes, naming.md §3), with the effect on transformers ≥ 5.23.
KNOWN_SITES = {
    ("peft", "peft/peft_model.py", 184, "is_gradient_checkpointing", "warns"),
    ("peft", "peft/mixed_model.py", 39, "is_gradient_checkpointing", "warns"),
    ("peft", "peft/utils/other.py", 258, "gradient_checkpointing_enable", "warns"),
    ("peft", "peft/utils/other.py", 243, "gradient_checkpointing_enable", "silent"),
    ("trl", "trl/models/utils.py", 136, "is_gradient_checkpointing", "warns"),
    ("trl", "trl/models/utils.py", 138, "gradient_checkpointing_disable", "warns"),
    ("trl", "trl/models/utils.py", 154, "gradient_checkpointing_enable", "warns"),
    ("trl", "trl/models/utils.py", 407, "is_gradient_checkpointing", "warns"),
    ("trl", "trl/models/utils.py", 409, "gradient_checkpointing_disable", "warns"),
    ("trl", "trl/models/utils.py", 414, "gradient_checkpointing_enable", "warns"),
    ("trl", "trl/trainer/base_config.py", 62, "gradient_checkpointing", "warns"),
    ("trl", "trl/models/selective_activation_checkpointing.py", 95, "gradient_checkpointing_enable", "overrides"),
    ("trl", "trl/experimental/utils.py", 895, "gradient_checkpointing", "lost-write"),
    ("trl", "trl/trainer/sft_trainer.py", 887, "gradient_checkpointing_kwargs", "lost-write"),
    ("trl", "trl/trainer/dpo_trainer.py", 705, "gradient_checkpointing_kwargs", "lost-write"),
    ("trl", "trl/trainer/grpo_trainer.py", 517, "gradient_checkpointing_kwargs", "lost-write"),
    ("trl", "trl/trainer/sft_trainer.py", 1080, "gradient_checkpointing_kwargs", "dead"),
    ("trl", "trl/experimental/online_dpo/online_dpo_trainer.py", 624, "gradient_checkpointing_enable", "warns"),
    ("axolotl", "axolotl/loaders/model.py", 638, "gradient_checkpointing_enable", "warns"),
    ("axolotl", "axolotl/utils/callbacks/__init__.py", 971, "gradient_checkpointing_disable", "warns"),
}


def _sites(data: dict) -> set[tuple[str, str, int, str, str]]:
    return {(lib["library"], s["file"], s["line"], s["old"], s["effect"]) for lib in data["libraries"] for s in lib["sites"]}


def test_committed_data_has_the_known_call_sites() -> None:
    assert KNOWN_SITES <= _sites(adoption.load_data())


def test_libraries_without_deprecated_uses_have_none() -> None:
    data = {lib["library"]: lib for lib in adoption.load_data()["libraries"]}
    assert data["accelerate"]["sites"] == [] and data["diffusers"]["sites"] == []
    assert data["diffusers"]["not_deprecated"]["is_gradient_checkpointing"] >= 1  # diffusers' own property


def test_the_page_lists_peft_and_trl_warning_sites() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for library, file, line, old, effect in KNOWN_SITES:
        if library in ("peft", "trl") and effect == "warns":
            assert f"| `{file}:{line}` | <code>{old}</code> | warns:" in page


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """A new measurement from the wheels (cached in .cache/wheels; downloaded from PyPI when missing)."""
    try:
        return adoption.measure(TABLE)
    except RuntimeError as exc:
        # Offline at home is a skip; in CI, which reaches PyPI, it would hide a stale report, so it fails.
        if IN_CI:
            pytest.fail(f"the wheels could not be downloaded: {exc}", pytrace=False)
        pytest.skip(f"the wheels are not cached and cannot be downloaded: {exc}")


def test_committed_adoption_data_is_what_the_wheels_give(measured: tuple[dict, dict]) -> None:
    classes, data = measured
    assert adoption.load_data() == json.loads(adoption.dump(data)), "run `python -m generator.measure.adoption`"
    assert rules.load_classes() == json.loads(adoption.dump(classes)), "run `python -m generator.measure.adoption`"


def test_measured_classes_include_trl_configs(measured: tuple[dict, dict]) -> None:
    classes, _ = measured
    assert {"SFTConfig", "DPOConfig", "Seq2SeqTrainingArguments"} <= set(classes["subclasses"])
    assert {"model_name_or_path", "dataset_name", "output_dir", "activation_checkpointing"} <= set(classes["config_keys"])
    assert "base_model" not in classes["config_keys"]  # Axolotl's key: its configs must not look like TRL's


def test_every_guide_link_of_the_tool_exists() -> None:
    guide = (paths.DOCS_DIR / render.GENERATED_DIR / "migration-guide.md").read_text(encoding="utf-8")
    anchors = {slugify(line.lstrip("#").strip().replace("`", ""), "-") for line in guide.splitlines() if line.startswith("#")}
    assert set(findings.SECTIONS.values()) <= anchors
    assert (paths.ROOT / findings.GUIDE).is_file()


@pytest.mark.parametrize(
    ("code", "effect"),
    [("call", "warns"), ("subclass-default", "warns"), ("write", "lost-write"), ("read", "silent"),
     ("reference", "silent"), ("override", "overrides"), ("dead-write", "dead"), ("not-renamed", "not-deprecated"),
     ("shared-name", "not-deprecated")],
)
def test_effect_of_each_rule(code: str, effect: str) -> None:
    assert adoption.effect(code) == effect
