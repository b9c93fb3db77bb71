"""Validation of the alias table: every class of mistake is reported with its line and column, all at once; the
frozen form the installed tool reads is the same table, and is used for exactly the text it was made from."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checkpointing_migrate.located import Position
from checkpointing_migrate.paths import FROZEN_TABLE_PATH
from checkpointing_migrate.table import FROZEN_FORMAT, Owner, RenameKind, Status, Table, TableError, freeze, load, parse
from generator.paths import TABLE_PATH

VALID = textwrap.dedent(
    """\
    libraries:
      transformers:
        pypi: transformers
        term: activation checkpointing
        docs: https://huggingface.co/docs/transformers
        checked: "5.24.0"
        api: [PreTrainedModel.activation_checkpointing_enable]
        config: [--activation_checkpointing]
    releases:
      - library: transformers
        version: "5.23.0"
        date: 2026-11-13
    renames:
      - library: transformers
        kind: method
        owner: PreTrainedModel
        old: gradient_checkpointing_enable
        new: activation_checkpointing_enable
        status: shipped
        since: "5.23.0"
        removal: "6.0.0"
        warning:
          category: FutureWarning
          message: "`gradient_checkpointing_enable` is deprecated."
    """
)


def problems(text: str) -> list[str]:
    with pytest.raises(TableError) as info:
        parse(text, "t.yaml")
    return [str(p) for p in info.value.problems]


def test_the_valid_example_and_the_real_table_load() -> None:
    table = parse(VALID, "t.yaml")
    assert [r.new for r in table.renames] == ["activation_checkpointing_enable"]
    assert table.renames[0].position.line == 14
    real = load(TABLE_PATH)
    assert any(r.status == "shipped" for r in real.renames)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "  - library: transformers\n    kind: method",
            "  - library: transformers\n    kind: method\n    sinse: x",
            "t.yaml:16:5: unknown field 'sinse' in rename; did you mean 'since'?",
            id="unknown-field",
        ),
        pytest.param(
            "    status: shipped\n",
            "    status: shiped\n",
            "t.yaml:19:13: unknown status 'shiped'; did you mean 'shipped'?",
            id="unknown-status",
        ),
        pytest.param(
            "    kind: method\n",
            "    kind: methd\n",
            "t.yaml:15:11: unknown kind 'methd'; did you mean 'method'?",
            id="unknown-kind",
        ),
        pytest.param(
            "  - library: transformers\n    kind",
            "  - library: transfomers\n    kind",
            "t.yaml:14:5: unknown library 'transfomers'; did you mean 'transformers'?",
            id="unknown-library",
        ),
        pytest.param(
            '    removal: "6.0.0"',
            '    removal: "six"',
            "t.yaml:21:14: removal 'six' is not a valid version (PEP 440, e.g. '5.23.0')",
            id="invalid-version",
        ),
        pytest.param(
            '    removal: "6.0.0"',
            '    removal: "5.0"',
            "t.yaml:21:14: removal 5.0 must come after since 5.23.0",
            id="removal-before-since",
        ),
        pytest.param(
            "    new: activation_checkpointing_enable",
            "    new: gradient_checkpointing_enable",
            "t.yaml:18:10: old and new are the same name 'gradient_checkpointing_enable'; a rename needs two different names",
            id="old-equals-new",
        ),
        pytest.param(
            "    old: gradient_checkpointing_enable",
            "    old: gradient-checkpointing-enable",
            "t.yaml:17:10: old name 'gradient-checkpointing-enable' is not a valid Python identifier, as a method name must be",
            id="bad-identifier",
        ),
        pytest.param(
            '    warning:\n      category: FutureWarning\n      message: "`gradient_checkpointing_enable` is deprecated."\n',
            "",
            "t.yaml:14:5: a shipped rename needs 'warning' (category and message, verbatim as the release emits it)",
            id="shipped-without-warning",
        ),
        pytest.param(
            "category: FutureWarning",
            "category: FutureWarnin",
            "t.yaml:23:17: unknown warning category 'FutureWarnin'; did you mean 'FutureWarning'?",
            id="unknown-category",
        ),
        pytest.param(
            '    since: "5.23.0"\n',
            "",
            "t.yaml:14:5: a shipped rename needs 'since': the first release with the new name",
            id="missing-since",
        ),
        pytest.param(
            "    owner: PreTrainedModel\n",
            "",
            "t.yaml:14:5: rename is missing the required field 'owner'",
            id="missing-field",
        ),
        pytest.param(
            '    checked: "5.24.0"',
            "    checked: [5]",
            "t.yaml:6:14: checked must be a version such as '5.23.0', not a list",
            id="wrong-type",
        ),
        pytest.param(
            "    date: 2026-11-13",
            "    date: 13/11/2026",
            "t.yaml:12:11: date must be a date written YYYY-MM-DD, not '13/11/2026'",
            id="bad-date",
        ),
        pytest.param(
            '    version: "5.23.0"',
            '    version: "5.22.0"',
            "t.yaml:14:5: since 5.23.0 is not a listed release of transformers (listed: 5.22.0); add it to releases",
            id="since-not-released",
        ),
        pytest.param(
            "    docs: https://huggingface.co/docs/transformers",
            "    docs: huggingface.co",
            "t.yaml:5:11: docs must be an https:// link (no spaces, parentheses or angle brackets) or null, not 'huggingface.co'",
            id="bad-link",
        ),
        pytest.param(
            "    docs: https://huggingface.co/docs/transformers",
            "    docs: https://x.org/a)b",
            "t.yaml:5:11: docs must be an https:// link (no spaces, parentheses or angle brackets) or null, not 'https://x.org/a)b'",
            id="link-breaking-markdown",
        ),
        pytest.param(
            "    term: activation checkpointing\n",
            "    term: activation checkpointing\n    term: again\n",
            "t.yaml:5:5: duplicate key 'term' in library 'transformers' (first at line 4)",
            id="duplicate-key",
        ),
        pytest.param(
            "    owner: PreTrainedModel\n",
            "    owner: PreTrainedModel)(\n",
            "t.yaml:16:12: owner 'PreTrainedModel)(' is not `Name`, `Name.member` or `Parser(Dataclass)`",
            id="owner-unparsed",
        ),
        pytest.param(
            "  transformers:\n    pypi",
            "  transformers:\n   pypi",
            "t.yaml:4:9: YAML syntax error: mapping values are not allowed",
            id="yaml-syntax",
        ),
    ],
)
def test_each_mistake_is_reported_with_its_position(old: str, new: str, expected: str) -> None:
    text = VALID
    assert old in text, old
    found = problems(text.replace(old, new, 1))
    assert any(p.startswith(expected) for p in found), found


def test_duplicates_chains_and_cycles_point_at_the_later_rows() -> None:
    row = VALID[VALID.index("  - library: transformers\n    kind") :]
    chained = row.replace("old: gradient_checkpointing_enable", "old: activation_checkpointing_enable").replace(
        "new: activation_checkpointing_enable", "new: checkpointing_enable"
    )
    found = problems(VALID + row + chained)
    assert (
        "t.yaml:25:5: 'gradient_checkpointing_enable' of transformers PreTrainedModel is renamed twice (first at line 14)"
        in found
    )
    assert any(
        p.startswith("t.yaml:14:5: chain: 'gradient_checkpointing_enable' → 'activation_checkpointing_enable'")
        for p in found
    )
    cycle = row.replace("old: gradient_checkpointing_enable", "old: activation_checkpointing_enable").replace(
        "new: activation_checkpointing_enable", "new: gradient_checkpointing_enable"
    )
    assert sum("chain:" in p for p in problems(VALID + cycle)) == 2


def test_a_section_of_the_wrong_shape() -> None:
    text = VALID[: VALID.index("renames:")] + "renames: {}\n"
    assert problems(text) == ["t.yaml:13:10: renames must be a list, not a mapping"]


def test_every_problem_is_reported_at_once_in_file_order() -> None:
    broken = VALID.replace("kind: method", "kind: methd").replace("status: shipped", "status: shiped")
    broken = broken.replace('removal: "6.0.0"', 'removal: "x"')
    found = problems(broken)
    assert [p.split(":")[1] for p in found] == ["15", "19", "21"]


def test_empty_and_non_mapping_tables() -> None:
    assert problems("") == ["t.yaml:1:1: the table is empty; it needs libraries, releases and renames"]
    assert problems("- a\n") == ["t.yaml:1:1: the table must be a mapping, not a list"]
    assert "t.yaml:1:1: unknown field 'librarys' in the table; did you mean 'libraries'?" in problems("librarys: {}\n")


def test_an_unreadable_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "aliases.yaml"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(TableError, match="cannot read the table"):
        load(path)


def test_only_an_override_row_may_name_the_model_class_in_its_warning() -> None:
    placeholder = VALID.replace("`gradient_checkpointing_enable` is deprecated.", "`{model}` only defines it.")
    assert problems(placeholder) == [
        "t.yaml:23:7: only an override row's warning may hold {model} (the caller names the model class)"
    ]
    table = parse(placeholder.replace("kind: method", "kind: override"), "t.yaml")
    (warning,) = [r.warning for r in table.renames]
    assert warning is not None and warning.matches("`SentenceTransformer` only defines it.")
    assert not warning.matches("`{model}` only defines it, and more.")
    assert warning.text_for("MyModel") == "`MyModel` only defines it."


@pytest.mark.parametrize(
    ("text", "head", "member", "argument", "qualifier", "details"),
    [
        ("PreTrainedModel", "PreTrainedModel", None, None, "", ()),
        (
            "PreTrainedModel.gradient_checkpointing_enable",
            "PreTrainedModel",
            "gradient_checkpointing_enable",
            None,
            "",
            (),
        ),
        ("peft.prepare_model_for_kbit_training", "peft", "prepare_model_for_kbit_training", None, "", ()),
        ("HfArgumentParser(TrainingArguments)", "HfArgumentParser", None, "TrainingArguments", "", ()),
        ("TrlParser (trl sft, trl dpo, ...)", "TrlParser", None, None, "", ("trl sft", "trl dpo")),
        (
            "TrainingArguments YAML/JSON (parse_yaml_file, parse_dict)",
            "TrainingArguments",
            None,
            None,
            "YAML/JSON",
            ("parse_yaml_file", "parse_dict"),
        ),
    ],
)
def test_an_owner_is_parsed_once_into_its_parts(
    text: str, head: str, member: str | None, argument: str | None, qualifier: str, details: tuple[str, ...]
) -> None:
    assert Owner.parse(text) == Owner(head, member, argument, qualifier, details)


def test_the_tables_lookups_agree_with_its_rows_and_are_computed_once() -> None:
    """`Table.select` and the facts built on it say what a loop over `renames` says, and a second call returns the
    very same tuple (computed once, not re-derived on each use)."""
    table = load(TABLE_PATH)
    for kind in RenameKind:
        for library in (None, *table.libraries):
            for shipped in (None, True, False):
                expected = tuple(
                    r
                    for r in table.renames
                    if r.kind == kind
                    and (library is None or r.library == library)
                    and (shipped is None or (r.status != Status.PLANNED) == shipped)
                )
                assert table.select(kind, library=library, shipped=shipped) == expected
    assert table.select(RenameKind.FIELD) is table.select(RenameKind.FIELD)
    assert table.select() == table.renames
    assert table.shipped + table.planned == tuple(sorted(table.renames, key=lambda r: r.status == Status.PLANNED))
    assert table.renamer == "transformers"
    assert (table.switch_field.old, table.switch_field.owner) == ("gradient_checkpointing", "TrainingArguments")
    assert str(table.first_since("transformers")) == min(r.since for r in table.shipped if r.since)
    for shipped in (None, True, False):
        rows, libraries = table.select(shipped=shipped), table.libraries_with_rows(shipped)
        assert sorted(libraries) == sorted({r.library for r in rows})  # each once
        assert list(libraries) == sorted(libraries, key=lambda lib: [r.library for r in rows].index(lib))
    first = table.row_of("transformers", "gradient_checkpointing")
    assert first is next(r for r in table.renames if r.library == "transformers" and r.old == "gradient_checkpointing")
    assert table.row_of("transformers", "no_such_name") is None
    assert table == load(TABLE_PATH)  # the cached facts are not fields: equality still compares the rows


def test_a_bad_not_renamed_kind_is_reported_with_a_suggestion() -> None:
    text = VALID + "not_renamed:\n  - library: transformers\n    kind: warnin\n    match: x\n    reason: y\n"
    assert problems(text) == ["t.yaml:27:11: unknown kind 'warnin'; did you mean 'warning'?"]


def test_the_committed_frozen_table_is_the_table_as_it_reads_now() -> None:
    """The wheel's table is read from its frozen form: `render` writes it, and it must be of today's aliases.yaml."""
    assert FROZEN_TABLE_PATH.read_text(encoding="utf-8") == freeze(TABLE_PATH.read_text(encoding="utf-8")), (
        f"{FROZEN_TABLE_PATH} is stale; run `python -m generator render`"
    )


def _positions(table: Table) -> list[Position]:
    return [r.position for r in (*table.releases, *table.renames, *table.not_renamed)]


def test_the_frozen_form_loads_the_same_table_as_the_yaml(tmp_path: Path) -> None:
    text = TABLE_PATH.read_text(encoding="utf-8")
    (tmp_path / "frozen.json").write_text(freeze(text), encoding="utf-8")
    (tmp_path / "aliases.yaml").write_text(text, encoding="utf-8")
    thawed, parsed = (
        load(tmp_path / "aliases.yaml", tmp_path / "frozen.json"),
        parse(text, str(tmp_path / "aliases.yaml")),
    )
    assert thawed == parsed and repr(thawed) == repr(parsed)
    assert _positions(thawed) == _positions(parsed) and str(_positions(thawed)[0]).startswith(str(tmp_path))
    # no PyYAML on the way: the installed tool's start-up
    code = "import sys; from checkpointing_migrate.table import load; load(__import__('pathlib').Path(sys.argv[1]))"
    loaded = subprocess.run(
        [sys.executable, "-c", f"{code}; print('yaml' in sys.modules)", str(TABLE_PATH)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout == "False\n"


def test_a_stale_or_foreign_frozen_form_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "frozen.json").write_text(freeze(VALID), encoding="utf-8")
    edited = VALID.replace('"5.24.0"', '"5.25.0"')
    (tmp_path / "aliases.yaml").write_text(edited, encoding="utf-8")
    assert load(tmp_path / "aliases.yaml", tmp_path / "frozen.json").libraries["transformers"].checked == "5.25.0"
    broken = edited.replace("status: shipped", "status: shiped")
    (tmp_path / "aliases.yaml").write_text(broken, encoding="utf-8")
    with pytest.raises(TableError, match="unknown status 'shiped'"):
        load(tmp_path / "aliases.yaml", tmp_path / "frozen.json")
    other = json.loads(freeze(VALID)) | {"format": FROZEN_FORMAT + 1, "renames": []}
    (tmp_path / "frozen.json").write_text(json.dumps(other), encoding="utf-8")
    (tmp_path / "aliases.yaml").write_text(VALID, encoding="utf-8")
    assert len(load(tmp_path / "aliases.yaml", tmp_path / "frozen.json").renames) == 1
    (tmp_path / "frozen.json").write_text("{not json", encoding="utf-8")
    assert len(load(tmp_path / "aliases.yaml", tmp_path / "frozen.json").renames) == 1


def test_a_damaged_frozen_form_of_the_same_text_is_not_used(tmp_path: Path) -> None:
    """Made from this very text but damaged since (a record cut short, a wrong value): the YAML is read, no traceback."""
    (tmp_path / "aliases.yaml").write_text(VALID, encoding="utf-8")
    good = json.loads(freeze(VALID))
    for damaged in (
        good | {"renames": [good["renames"][0][:3]]},
        good | {"releases": [["transformers", "5.24.0", "not a date", None, [1, 1]]]},
        {key: value for key, value in good.items() if key != "libraries"},
    ):
        (tmp_path / "frozen.json").write_text(json.dumps(damaged), encoding="utf-8")
        assert load(tmp_path / "aliases.yaml", tmp_path / "frozen.json") == parse(VALID, str(tmp_path / "aliases.yaml"))
