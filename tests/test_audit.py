"""`python -m generator audit`: the inventories it builds from the released wheels, and the gaps it names.

The listed transformers wheels are downloaded once from PyPI into .cache/registry/ (sha256-checked); offline and not
cached, these tests skip, except under CI=true. The inventories are built once per module; each test then audits a
variant of the table against them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from migratekit import PLANNED, whole_parse
from sitekit import IN_CI

from checkpointing_migrate.pylex import only_planned
from checkpointing_migrate.python import statements
from checkpointing_migrate.table import load, parse
from generator.measure import audit, registry
from generator.measure.source import NAME, SourceText, raised_naming, warning_calls
from generator.paths import ROOT, TABLE_PATH

TABLE = load(TABLE_PATH)
RELEASES = [r.version for r in TABLE.releases_of("transformers")]
TRAINER_MESSAGE = (
    "`LlamaForCausalLM` only defines `gradient_checkpointing_enable`, which is deprecated and will no longer be "
    "called in v6. Define `activation_checkpointing_enable` instead."
)
"""What the Trainer's fallback emits for a model named LlamaForCausalLM (its f-string, filled in)."""


@pytest.fixture(scope="module")
def trees() -> dict[str, Path]:
    try:
        return {v: audit.release_tree(v, registry.PYPI, registry.CACHE) for v in RELEASES}
    except registry.RegistryError as exc:
        if IN_CI:
            pytest.fail(f"the transformers wheels could not be downloaded: {exc}", pytrace=False)
        pytest.skip(f"the transformers wheels are not cached and cannot be downloaded: {exc}")


@pytest.fixture(scope="module")
def calls(trees: dict[str, Path]) -> dict[str, list[SourceText]]:
    return {v: warning_calls(tree, audit.PACKAGE) for v, tree in trees.items()}


@pytest.fixture(scope="module")
def objects(trees: dict[str, Path]) -> dict[str, dict[str, audit.ApiObject]]:
    return {v: audit.api_objects(tree) for v, tree in trees.items()}


def _gaps(table, calls, objects) -> list[str]:  # type: ignore[no-untyped-def]
    gaps = []
    for index, version in enumerate(RELEASES):
        naming = [c for c in calls[version] if NAME.search(c.text)]
        gaps += audit.warning_gaps(table, version, naming) + audit.row_gaps(table, version, calls[version])
        if index:
            gaps += audit.api_gaps(table, RELEASES[index - 1], version, objects[RELEASES[index - 1]], objects[version])
    return [str(g) for g in gaps]


def _without(text: str, start: str, end: str) -> str:
    """The table text without the block from the line `start` up to (not including) the line `end`."""
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    assert head and tail, f"{start!r} … {end!r} not found in the table"
    return head + end + tail


def test_the_trainer_warning_is_in_the_inventory(calls: dict[str, list[SourceText]]) -> None:
    for version in ("5.23.0", "5.24.0"):
        trainer = [c for c in calls[version] if c.path == "transformers/trainer.py" and "only defines" in c.text]
        assert [c.line for c in trainer] == [1519], trainer
        assert trainer[0].matches(TRAINER_MESSAGE)
        assert not trainer[0].matches(TRAINER_MESSAGE.replace("v6", "v7"))
    assert not [c for c in calls["5.22.2"] if "only defines" in c.text]


def test_the_inventory_resolves_f_strings_and_variables(calls: dict[str, list[SourceText]]) -> None:
    # training_args.py warns with f"`{old}` is deprecated ... Use `{new}` instead." inside a loop over name pairs.
    message = "`gradient_checkpointing_kwargs` is deprecated and will be removed in v6. Use `activation_checkpointing_kwargs` instead."
    matching = [c for c in calls["5.24.0"] if c.matches(message)]
    assert ("transformers/training_args.py", 1541) in {(c.path, c.line) for c in matching}


def test_a_removed_row_is_named_as_a_gap_with_release_file_and_line(calls, objects) -> None:  # type: ignore[no-untyped-def]
    text = TABLE_PATH.read_text(encoding="utf-8")
    start = "  - library: transformers\n    kind: property\n    owner: PreTrainedModel\n    old: is_gradient_checkpointing\n"
    edited = parse(_without(text, start, "  # The method's keyword"), str(TABLE_PATH))
    gaps = _gaps(edited, calls, objects)
    # The property's own warning, in both releases that emit it, and the new property that appeared in 5.23.0.
    assert any(
        g.startswith(
            'transformers 5.23.0: transformers/modeling_utils.py:3303: warning "`is_gradient_checkpointing` is deprecated'
        )
        for g in gaps
    ), gaps
    assert any(g.startswith("transformers 5.24.0: transformers/modeling_utils.py:3312: warning") for g in gaps), gaps
    assert any(
        g.startswith("transformers 5.23.0: transformers/modeling_utils.py:")
        and "property transformers.modeling_utils.PreTrainedModel.is_activation_checkpointing appeared since 5.22.2"
        in g
        for g in gaps
    ), gaps


def test_a_removed_not_renamed_entry_is_named_as_a_gap(calls, objects) -> None:  # type: ignore[no-untyped-def]
    text = TABLE_PATH.read_text(encoding="utf-8")
    edited = parse(
        text.replace('    match: "When using FSDP, prefer "', '    match: "not in any release"'), str(TABLE_PATH)
    )
    gaps = _gaps(edited, calls, objects)
    fsdp = [g for g in gaps if "When using FSDP, prefer" in g]
    assert [g.split(":")[0:2] for g in fsdp] == [
        ["transformers 5.22.2", " transformers/training_args.py"],
        ["transformers 5.23.0", " transformers/training_args.py"],
        ["transformers 5.24.0", " transformers/training_args.py"],
    ]


def test_a_row_whose_warning_no_release_emits_is_a_gap(calls, objects) -> None:  # type: ignore[no-untyped-def]
    text = TABLE_PATH.read_text(encoding="utf-8").replace(
        "`gradient_checkpointing_disable` is deprecated and will be removed in v6.",
        "`gradient_checkpointing_disable` is deprecated and will be removed in v7.",
    )
    gaps = _gaps(parse(text, "aliases.yaml"), calls, objects)
    wrong = [g for g in gaps if "records a warning no call in the release emits" in g]
    assert [g.split(":")[0] for g in wrong] == ["transformers 5.23.0", "transformers 5.24.0"]
    assert all(" aliases.yaml:" in g and "gradient_checkpointing_disable" in g for g in wrong)


def test_nothing_is_missing_from_the_table(calls, objects) -> None:  # type: ignore[no-untyped-def]
    """With the Trainer's own FutureWarning in the table (its `override` row), nothing is missing."""
    assert _gaps(TABLE, calls, objects) == []


def test_audit_passes_on_the_committed_table(trees: dict[str, Path]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "generator", "audit"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "every checkpointing name" in result.stdout


def test_audit_exits_2_when_the_registry_cannot_be_read(tmp_path: Path) -> None:
    # A release that was never downloaded: with the registry unreachable there is nothing to read it from.
    table = tmp_path / "aliases.yaml"
    table.write_text(
        TABLE_PATH.read_text(encoding="utf-8").replace(
            "releases:\n", 'releases:\n  - library: transformers\n    version: "4.0.0"\n    date: 2020-09-29\n\n', 1
        ),
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "generator", "audit", "--table", str(table), "--index-url", "http://127.0.0.1:9/pypi"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot read http://127.0.0.1:9/pypi/transformers/json")
    assert "Traceback" not in result.stderr


def test_the_fsdp_error_is_read_from_each_release_with_where_and_when(trees: dict[str, Path]) -> None:
    """No probe reaches it on a CPU (accelerate enables FSDP only on GPU-class devices): its text comes from the source."""
    fsdp = {v: [t for t in raised_naming(tree, audit.PACKAGE) if "fsdp" in t.text.lower()] for v, tree in trees.items()}
    assert {v: len(found) for v, found in fsdp.items()} == {"5.22.2": 1, "5.23.0": 1, "5.24.0": 1}
    old, new = fsdp["5.22.2"][0], fsdp["5.24.0"][0]
    assert old.text.startswith(
        "The activation_checkpointing in FSDP config and the gradient_checkpointing in training arg"
    )
    assert new.text.startswith(
        "`fsdp_config['activation_checkpointing']` (FSDP's own activation checkpointing) and the"
    )
    assert (new.path, new.category, new.function) == (
        "transformers/trainer.py",
        "ValueError",
        "Trainer.create_accelerator_and_postprocess",
    )
    assert (
        new.condition
        == "self.accelerator.state.fsdp_plugin.activation_checkpointing and self.args.activation_checkpointing"
    )
    assert old.condition.endswith("and self.args.gradient_checkpointing")


def test_a_missing_field_row_is_a_gap_even_when_an_argument_has_its_name(calls, objects) -> None:  # type: ignore[no-untyped-def]
    """The method argument `gradient_checkpointing_kwargs` (and the config key, the flags) share the field's name: the
    audit matches owner, kind and name, so they do not vouch for the TrainingArguments field."""
    text = TABLE_PATH.read_text(encoding="utf-8")
    start = "  - library: transformers\n    kind: field\n    owner: TrainingArguments\n    old: gradient_checkpointing_kwargs\n"
    edited = parse(_without(text, start, "  # set_training:"), str(TABLE_PATH))
    gaps = _gaps(edited, calls, objects)
    assert len(gaps) == 4, gaps
    assert all(g.startswith("transformers 5.23.0: transformers/training_args") for g in gaps), gaps
    named = {g.split(" since ")[0].split(": ", 2)[2] for g in gaps}
    assert named == {
        "attribute transformers.training_args.TrainingArguments.gradient_checkpointing_kwargs changed",
        "attribute transformers.training_args.TrainingArguments.activation_checkpointing_kwargs appeared",
        "parameter transformers.training_args.TrainingArguments.__init__(activation_checkpointing_kwargs) appeared",
        "parameter transformers.training_args_seq2seq.Seq2SeqTrainingArguments.__init__(activation_checkpointing_kwargs) appeared",
    }, gaps
    assert all("of TrainingArguments" in g or "or TrainingArguments" in g for g in gaps), gaps


def test_a_release_tree_read_statement_by_statement_gives_what_the_whole_parse_gives(trees: dict[str, Path]) -> None:
    """`scan --include-planned`'s reading of the files whose only uses are planned names (`python.statements`), on
    every tenth such file of the newest release: the same findings, at the same places, as parsing each whole."""
    tree = trees[RELEASES[-1]]
    texts = [p.read_text(encoding="utf-8") for p in sorted(tree.rglob("*.py"))]
    sample = [t for t in texts if PLANNED.rules.stem in t and only_planned(t, PLANNED) is not None][::10]
    assert len(sample) > 40
    for text in sample:
        found = statements.hits(text, PLANNED, only_planned(text, PLANNED) or [])
        assert found is not None
        assert [(h.start, h.message) for h in found] == sorted((h.start, h.message) for h in whole_parse(text))
