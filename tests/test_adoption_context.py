"""The code around a use decides its v6 verdict (`generator.measure.context`, `verdict`): version branches, guards,
the package's own error, its own fields, overrides the Trainer judges, defaults that no longer reach transformers.

The first tests read small files written here; the last ones read the committed adoption data for the sites the
fact-check of issue 19 found wrong (TRL, Axolotl, oumi, sentence-transformers, llm2vec, PEFT).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.measure import context
from generator.measure.adoption_data import load_adoption

BRANCHES = """import transformers
from packaging.version import Version
from transformers.utils import is_transformers_version


def setup(args, model):
    if args.gradient_checkpointing and Version(transformers.__version__) < Version("5.0.0"):
        args.gradient_checkpointing_kwargs = args.gradient_checkpointing_kwargs or {}
    if is_transformers_version(">=", "5.23.0"):
        model.activation_checkpointing_enable()
    else:
        model.gradient_checkpointing_enable()
    if transformers.__version__ < "6":
        print(model.is_gradient_checkpointing)
    if hasattr(model, "gradient_checkpointing_enable"):
        model.gradient_checkpointing_enable()
    try:
        model.gradient_checkpointing_disable()
    except AttributeError:
        pass
    if not hasattr(model, "gradient_checkpointing_enable"):
        raise ValueError("only Hugging Face models")
    model.gradient_checkpointing_enable()
"""


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(BRANCHES, encoding="utf-8")
    return path


def _at(source: Path, needle: str, occurrence: int = 0) -> tuple[int, int]:
    """(line, 1-based column) of the `occurrence`-th `needle` in the file."""
    found = []
    for number, text in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        start = text.find(needle)
        while start >= 0:
            found.append((number, start + 1))
            start = text.find(needle, start + 1)
    return found[occurrence]


def test_a_read_in_a_branch_for_releases_before_5_runs_on_neither(source: Path) -> None:
    line, column = _at(source, "args.gradient_checkpointing_kwargs", 1)  # the read on the right-hand side
    for release in ("5.24.0", "6.0.0"):
        assert not context.around(source, line, column, "gradient_checkpointing_kwargs", release).runs
    test_line, test_column = _at(source, "args.gradient_checkpointing and")  # the test itself runs
    assert context.around(source, test_line, test_column, "gradient_checkpointing", "6.0.0").runs


def test_is_transformers_version_decides_the_branch(source: Path) -> None:
    line, column = _at(source, "model.gradient_checkpointing_enable()", 0)
    assert not context.around(source, line, column, "gradient_checkpointing_enable", "5.24.0").runs
    assert context.around(source, line, column, "gradient_checkpointing_enable", "5.22.2").runs


def test_a_string_comparison_of_the_version_decides_the_branch(source: Path) -> None:
    line, column = _at(source, "model.is_gradient_checkpointing")
    assert context.around(source, line, column, "is_gradient_checkpointing", "5.24.0").runs
    assert not context.around(source, line, column, "is_gradient_checkpointing", "6.0.0").runs


def test_guards_say_what_happens_instead(source: Path) -> None:
    line, column = _at(source, "model.gradient_checkpointing_enable()", 1)
    assert context.around(source, line, column, "gradient_checkpointing_enable", "6.0.0").instead == "skipped (hasattr)"
    line, column = _at(source, "model.gradient_checkpointing_disable()")
    assert (
        context.around(source, line, column, "gradient_checkpointing_disable", "6.0.0").instead
        == "caught (except AttributeError)"
    )


def test_the_packages_own_hasattr_check_raises_first(source: Path) -> None:
    line, column = _at(source, "model.gradient_checkpointing_enable()", 2)
    around = context.around(source, line, column, "gradient_checkpointing_enable", "6.0.0")
    assert (around.runs, around.instead, around.own_error) == (True, "", "ValueError")


# --- The committed adoption data ---------------------------------------------------------------------------------------

DATA = {lib.library: lib for lib in load_adoption().libraries}


def _sites(library: str, file: str, *lines: int) -> list:  # type: ignore[type-arg]
    found = [s for s in DATA[library].sites if s.file == file and s.line in lines]
    assert {s.line for s in found} == set(lines), (library, file, lines, found)
    return found


def test_trl_reads_in_a_branch_before_5_are_not_v6_failures() -> None:
    # :957 is the `if`'s own test, which runs, and reads TRL's own field; :958-959 only run before 5.0.0.
    (test,) = _sites("trl", "trl/trainer/grpo_trainer.py", 957)
    assert test.v6 == "", test
    for site in _sites("trl", "trl/trainer/grpo_trainer.py", 958, 959):
        assert (site.effect, site.v6) == ("dead", ""), site


def test_axolotl_reads_of_trls_field_and_in_an_old_branch_keep_running() -> None:
    prm = "axolotl/core/trainers/prm/prm_trainer.py"
    (read,) = _sites("axolotl", prm, 255)
    assert read.v6 == "", read
    for site in _sites("axolotl", prm, 259, 261):
        assert (site.effect, site.v6) == ("dead", ""), site


def test_oumis_own_check_raises_its_own_error_and_its_field_is_its_own() -> None:
    sites = _sites("oumi", "oumi/core/trainers/oumi_trainer.py", 175)
    assert {(s.code, s.v6) for s in sites} == {("call", "ValueError"), ("read", "")}, sites


def test_an_override_on_a_model_that_is_not_a_pretrained_model_fails_in_the_trainer() -> None:
    (override,) = _sites("sentence-transformers", "sentence_transformers/base/model.py", 1625)
    assert override.v6 == "AttributeError", override
    (inner,) = _sites("sentence-transformers", "sentence_transformers/base/model.py", 1640)
    assert inner.v6 == "" and "hasattr" in inner.changes, inner


def test_llm2vecs_override_without_kwargs_raises_today() -> None:
    (override,) = [s for s in _sites("llm2vec", "llm2vec/llm2vec.py", 490) if s.code == "override"]
    assert (override.effect, override.v6) == ("raises", "AttributeError"), override


def test_trls_default_true_is_a_silent_change() -> None:
    (declared,) = [s for s in DATA["trl"].sites if s.file == "trl/trainer/base_config.py" and s.line == 62]
    assert declared.v6 == "" and "checkpointing is off" in declared.changes, declared


def test_peft_getattr_default_is_a_silent_change() -> None:
    lookups = [s for s in DATA["peft"].sites if s.code == "string-lookup"]
    assert lookups and all(s.v6 == "" and "returns True" in s.changes for s in lookups), lookups


def test_the_silent_changes_are_counted_next_to_what_breaks_from_the_data() -> None:
    from generator.paths import DOCS_DIR

    page = (DOCS_DIR / "generated" / "adoption-report.md").read_text(encoding="utf-8")
    breaks, silent, packages = (
        page.index(h) for h in ("## What breaks in", "## What changes silently in", "## Packages")
    )
    assert breaks < silent < packages
    changing = [s for lib in DATA.values() for s in lib.sites if s.changes and not s.v6]
    owners = {lib.library for lib in DATA.values() if any(s.changes and not s.v6 for s in lib.sites)}
    assert f"**{len(changing)}** sites in\n**{len(owners)}** packages" in page
