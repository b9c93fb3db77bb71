"""The real-code proof, re-checked on every run for a representative subset (benchmarks/realcode.py has them all).

Three released projects that call the renamed names go through `fix --write`: TRL (safe fixes applied: every
rewritten file compiles, a second run changes nothing, the other files keep their bytes), diffusers (whose own
`is_gradient_checkpointing` must not be renamed), Axolotl, whose own tests of these names (a test double that
defines `gradient_checkpointing_enable`) must give the same outcome before and after, and unsloth-zoo, whose own
tests get safe fixes and must give the same outcome too (they do not yet: see the test).
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


def test_the_pins_name_eight_projects_three_with_tests() -> None:
    assert len(PROJECTS) >= 8 and len({p.name for p in PROJECTS}) == len(PROJECTS)
    assert all(len(p.sha256) == 64 for p in PROJECTS)
    assert sum(1 for p in PROJECTS if p.tests) >= 3


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


KNOWN_CHANGE = "tests.test_gradient_checkpointing_inherit::test_grads_match_no_checkpointing"
"""The one test whose outcome the safe fixes change today (passed → failed): its fixture installs unsloth-zoo's
replacement of `PreTrainedModel.gradient_checkpointing_enable` (temporary_patches/misc.py), which the rewritten call
to `activation_checkpointing_enable` bypasses; nothing in the test file shows the replacement."""


def test_unsloth_zoos_own_tests_give_the_same_outcome_after_its_safe_fixes() -> None:
    outcome = _check("unsloth-zoo", tests=True)
    assert outcome.rewritten == ["tests/test_gradient_checkpointing_inherit.py"]  # safe fixes were applied
    assert "passed" in outcome.tests_before.values()
    changed = {
        k
        for k in outcome.tests_before.keys() | outcome.tests_after.keys()
        if outcome.tests_before.get(k) != outcome.tests_after.get(k)
    }
    if changed == {KNOWN_CHANGE} and outcome.tests_after[KNOWN_CHANGE] == "failed":
        pytest.xfail("known bug: a safe fix bypasses a library's replacement of the old method on PreTrainedModel")
    assert outcome.tests_after == outcome.tests_before
    assert outcome.problems == []
