"""The filters of "Warnings you cannot fix yet": each one silences its warning for every entry point it is shown
for, and nothing else.

The guide's examples already run in the doc tests (the call with its warning, then the call under the filter);
here every entry point of each example's group is run under the filters the page shows, and each filter alone
must remove exactly its own warning while every other warning the table records still comes through.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from checkpointing_migrate.table import load
from generator.measure import data, downstream
from generator.pages import measured

ROOT = Path(__file__).resolve().parents[1]
TABLE = load(ROOT / "aliases.yaml")
EXAMPLES = measured.downstream(data.load_measured())
ENTRIES = {entry.id: entry for entry in downstream.ENTRY_POINTS}
RECORDED = list(dict.fromkeys(row.warning for row in TABLE.renames if row.warning))

CASES = [
    (example, entry_id, index)
    for example in EXAMPLES
    for entry_id in (e.id for e in downstream.ENTRY_POINTS if e.title in example.titles)
    for index in range(len(example.filters))
]


def emitted_under(entry: downstream.EntryPoint, filters: tuple[str, ...]) -> list[str]:
    """Every warning the entry point's call emits with these filter lines in force (as the guide writes them)."""
    namespace = downstream._prepared(entry)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for line in filters:
            exec(line, {"warnings": warnings})  # noqa: S102 - the filter lines the guide renders
        exec(compile(entry.call, "<entry point>", "exec"), namespace)  # noqa: S102
        for warning in RECORDED:  # every warning the table records, emitted directly: the filters must let it pass
            warnings.warn(warning.message, getattr(__import__("builtins"), warning.category))
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def test_there_are_examples_for_both_libraries() -> None:
    assert {example.library for example in EXAMPLES} == {"peft", "trl"}
    assert len(CASES) >= len(EXAMPLES)


@pytest.mark.parametrize(
    ("example", "entry_id", "index"), CASES, ids=[f"{entry_id}-{index}" for _, entry_id, index in CASES]
)
def test_each_filter_silences_exactly_its_warning(
    example: measured.DownstreamExample, entry_id: str, index: int
) -> None:
    entry = ENTRIES[entry_id]
    target = f"{example.warnings[index].category}: {example.warnings[index].message}"
    unfiltered = emitted_under(entry, ())
    calls = unfiltered[: len(unfiltered) - len(RECORDED)]
    assert calls == [f"{w.category}: {w.message}" for w in example.warnings], "the entry point changed"
    expected = list(unfiltered)
    expected.remove(target)  # the call's own occurrence
    expected.remove(target)  # the one emitted directly: a filter for a message silences it wherever it comes from
    assert emitted_under(entry, (example.filters[index],)) == expected


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.titles[0] for e in EXAMPLES])
def test_all_filters_of_an_example_leave_the_call_silent(example: measured.DownstreamExample) -> None:
    for entry in (e for e in downstream.ENTRY_POINTS if e.title in example.titles):
        emitted = emitted_under(entry, example.filters)
        silenced = {f"{w.category}: {w.message}" for w in example.warnings}
        assert emitted == [
            f"{w.category}: {w.message}" for w in RECORDED if f"{w.category}: {w.message}" not in silenced
        ]
