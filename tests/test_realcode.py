"""The real-code proof, re-checked on every run for a representative subset (benchmarks/realcode.py has them all).

Three released projects that call the renamed names go through `fix --write`: TRL (safe fixes applied: every
rewritten file compiles, a second run changes nothing, the other files keep their bytes), diffusers (whose own
`is_gradient_checkpointing` must not be renamed), Axolotl, whose own tests of these names (a test double that
defines `gradient_checkpointing_enable`) must give the same outcome before and after, and unsloth-zoo, whose own
tests call a method the project replaces on `PreTrainedModel` (so they must not be rewritten, and keep their outcome).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import realcode
from sitekit import IN_CI

TARGET, HUB, PROJECTS = realcode.load()
BY_NAME = {p.name: p for p in PROJECTS}


def _check(name: str, *, tests: bool) -> realcode.Outcome:
    try:
        return realcode.check(BY_NAME[name], TARGET, HUB, tests=tests)
    except realcode.FetchError as exc:
        if IN_CI:
            raise
        pytest.skip(f"offline: {exc}")


ROUND_TWO = (
    "openrlhf oumi xtuner verl autotrain-advanced adapters llm2vec angle-emb ludwig colossalai optimum-neuron "
    "instructlab-training FlagEmbedding fschat simpletransformers"
).split()
"""The fifteen projects issue 18's second adversarial pass named."""


def test_the_pins_name_every_project_of_both_rounds_each_test_run_or_its_absence_explained() -> None:
    assert len({p.name for p in PROJECTS}) == len(PROJECTS) >= 25
    assert set(ROUND_TWO) <= set(BY_NAME)
    assert all(len(p.sha256) == 64 for p in PROJECTS)
    assert sum(1 for p in PROJECTS if p.tests) >= 4
    assert all(p.note for p in PROJECTS if not p.tests)  # why its tests are not run


@pytest.mark.parametrize("name", ["trl", "diffusers"])
def test_fix_write_keeps_the_release_compiling_and_is_idempotent(name: str) -> None:
    outcome = _check(name, tests=False)
    assert outcome.problems == []
    if name == "trl":
        assert outcome.rewritten  # there is something to prove: safe fixes were applied
    else:
        assert outcome.rewritten == [] and outcome.findings.get("fix", 0) == 0


def test_axolotls_own_tests_give_the_same_outcome_after_the_fix() -> None:
    outcome = _check("axolotl", tests=True)
    assert outcome.tests_before and "passed" in outcome.tests_before.values()
    assert outcome.tests_after == outcome.tests_before
    assert outcome.problems == []


def test_unsloth_zoos_own_tests_give_the_same_outcome_after_the_fix() -> None:
    """unsloth-zoo replaces `PreTrainedModel.gradient_checkpointing_enable` on the class (temporary_patches/misc.py),
    and `activation_checkpointing_enable` does not go through that replacement: renaming the calls in its test file
    made `test_grads_match_no_checkpointing` fail (found by this proof). Now the patch is a `class-patch` hazard and
    every call of the patched method a `patched-method` hazard: nothing is rewritten, and the tests do not change."""
    outcome = _check("unsloth-zoo", tests=True)
    assert "passed" in outcome.tests_before.values()
    assert (
        outcome.findings.get("hazard", 0) > 0
        and "tests/test_gradient_checkpointing_inherit.py" not in outcome.rewritten
    )
    assert outcome.tests_after == outcome.tests_before
    assert outcome.problems == []
