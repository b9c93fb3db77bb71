"""The registry of file kinds and the pieces of a file: each name and place recognised as its kind, the message that
lists them word for word, every handler importable, and a notebook cell's code mapped back to the JSON characters
it was decoded from (escapes mapping to nothing), as a rename inside it needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkpointing_migrate import jsonpos, kinds, launchreaders, markdown, notebook
from checkpointing_migrate.codes import Applicability, Severity
from checkpointing_migrate.findings import Cell, Edit
from checkpointing_migrate.hits import Hit
from checkpointing_migrate.pieces import Piece, Run

NAMES = [
    ("train.py", "python"),
    ("stubs.PYI", "python"),
    ("explore.ipynb", "notebook"),
    ("config.yml", "yaml"),
    ("args.json", "json"),
    ("run.bash", "shell"),
    ("README.markdown", "markdown"),
    ("GNUmakefile", "makefile"),
    ("rules.mk", "makefile"),
    ("Dockerfile.gpu", "dockerfile"),
    ("Containerfile", "dockerfile"),
    ("train.Dockerfile", "dockerfile"),
    ("Dockerfile.yml", "yaml"),  # a prefix gives way to a suffix another kind owns
    ("proj/.vscode/launch.json", "launch"),
    ("proj/vscode/launch.json", "json"),
    ("proj/.github/workflows/ci.YAML", "workflow"),
    ("proj/github/workflows/ci.yml", "yaml"),
    ("proj/.github/ci.yml", "yaml"),
    ("job.PBS", "shell"),  # a batch script, whatever its first line
    ("proj/docker-compose.prod.yaml", "compose"),
    ("proj/compose.yml", "compose"),
    ("Procfile", "procfile"),
    ("justfile", "justfile"),
    ("proj/tox.ini", "tox"),
    ("notes.txt", None),
]


@pytest.mark.parametrize(("path", "kind"), NAMES)
def test_a_file_is_known_by_its_place_name_or_suffix(path: str, kind: str | None) -> None:
    assert kinds.kind_of(path, sniff=False) == kind


def test_the_unknown_kind_message_lists_the_registry_in_its_order() -> None:
    assert kinds.known_kinds() == (
        "suffixes .py .pyi .ipynb .yaml .yml .json .sh .bash .slurm .sbatch .pbs .job .md .markdown .args, the names "
        "Makefile makefile GNUmakefile .mk Dockerfile Containerfile .dockerfile .vscode/launch.json "
        ".github/workflows/*.yml .github/workflows/*.yaml docker-compose.yml docker-compose.yaml compose.yml "
        "compose.yaml docker-compose.*.yml docker-compose.*.yaml Procfile justfile Justfile .justfile tox.ini, or a "
        "first line `#!` running python, sh, bash, zsh, dash, ksh"
    )


@pytest.mark.parametrize("kind", [k.name for k in kinds.KINDS])
def test_every_kind_has_a_handler_and_a_comment_rule(kind: str) -> None:
    assert callable(kinds.handler(kind))
    assert kind not in kinds.WRITABLE or kind in kinds.COMMENTED


def test_the_registry_has_one_kind_per_name() -> None:
    """`FileKind` is the vocabulary every handler compares kinds in: a name without a registered kind (or a kind
    named outside it) would fail only on the first file of that kind."""
    assert [k.name for k in kinds.KINDS] == list(kinds.FileKind)
    assert {k.syntax for k in kinds.KINDS} - {None} <= set(kinds.FileKind)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("proj/.github/workflows/ci.yml", kinds.FileKind.WORKFLOW),
        ("proj/.vscode/launch.json", kinds.FileKind.LAUNCH),
        ("proj/explore.ipynb", kinds.FileKind.NOTEBOOK),
        ("proj/rules.mk", kinds.FileKind.MAKEFILE),
        ("proj/GNUmakefile", kinds.FileKind.MAKEFILE),
        ("proj/README.markdown", kinds.FileKind.MARKDOWN),
        ("proj/run.bash", kinds.FileKind.SHELL),
        ("proj/job.slurm", kinds.FileKind.SHELL),  # a batch script, whatever its first line
        ("proj/config.yml", kinds.FileKind.YAML),  # a config, no launch file: none of its launches is read
    ],
)
def test_a_launch_file_is_read_as_the_kind_the_registry_gives_it(path: str, kind: kinds.FileKind) -> None:
    assert launchreaders._kind(Path(path)) == kind


@pytest.mark.parametrize(
    "value", ["plain", 'a "quoted" name', "tab\there\n", "é and \U0001f600 and \\", "", "\\\\gradient_x"]
)
def test_each_decoded_character_maps_to_itself_or_to_nothing_inside_an_escape(value: str) -> None:
    for ascii_only in (False, True):
        raw = json.dumps(value, ensure_ascii=ascii_only)
        runs = tuple(Run(d, r, n, i == len(s) - 1) for s in [jsonpos.copied(raw)] for i, (d, r, n) in enumerate(s))
        piece = Piece(value, "python", runs)
        for i, char in enumerate(value):
            at = piece.to_file(i)
            escaped = json.dumps(char, ensure_ascii=ascii_only)[1:-1] != char
            assert (at is None) == escaped and (escaped or raw[at] == char), (raw, i)  # type: ignore[index]
        assert piece.to_file(len(value)) == len(raw) - 1  # the end of the string: its closing quote
        copied = "".join(raw[r.at : r.at + r.length] for r in runs)
        assert copied == "".join(c for i, c in enumerate(value) if piece.to_file(i) is not None)


def test_a_cell_is_one_piece_across_its_json_strings() -> None:
    text = json.dumps({"cells": [{"cell_type": "code", "source": ["a = 1\n", 'b = "\\t"\n', "c"]}]}, indent=1)
    cell = jsonpos.parse(text).get("cells").items[0]  # type: ignore[union-attr]
    piece = notebook._piece(text, cell, 1)
    assert piece.text == 'a = 1\nb = "\\t"\nc'
    assert [text[piece.to_file(i)] for i in (0, 6, 12, 15)] == ["a", "b", "t", "c"]  # type: ignore[index]
    assert piece.to_file(11) is None  # the backslash, written `\\\\` in the JSON: an escape
    assert piece.place(15) == Cell(1, 3, 1) and piece.place(7) == Cell(1, 2, 2)


def test_the_help_lists_every_kind_of_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    from checkpointing_migrate.cli import main

    with pytest.raises(SystemExit):
        main(["scan", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert kinds.known_kinds() in shown


def test_an_edit_across_an_indented_fence_lines_is_not_applied_but_said() -> None:
    """A fence in a list item is handed over without its indentation: an edit spanning two of its lines would
    otherwise overwrite the indentation between them in the file."""
    text = "- step\n\n    ```python\n    a = (x.\n        y)\n    ```\n"
    (piece,) = markdown.fences(text)
    assert piece.text == "a = (x.\n    y)\n" and piece.to_file(piece.text.index("y")) == text.rindex("y")
    span = piece.text.index("x."), piece.text.index("y") + 1
    hit = Hit(span[0], "x.y", "z", Severity.FIX, "call", "renamed", (Edit(*span, "z"),), Applicability.SAFE)
    back = piece.back(hit, text, "cannot place", "by hand")
    assert (back.severity, back.edits, back.message, back.why) == (
        Severity.INFO,
        (),
        "cannot place; renamed",
        "by hand",
    )
    one_line = Hit(5, "x", "b", Severity.FIX, "call", "renamed", (Edit(5, 6, "b"),), Applicability.SAFE)
    assert piece.back(one_line, text, "cannot place", "by hand").edits == (
        Edit(text.index("x"), text.index("x") + 1, "b"),
    )
