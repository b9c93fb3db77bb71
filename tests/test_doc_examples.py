"""Guards for the Markdown doc tests (tests/pycon_doctests.py, collected through the root conftest.py).

The Sybil lexer there decides which ```pycon fences run. These tests check it against a
deliberately simple scan of the raw text, so no pycon fence in docs/ can go untested
without a failure, and every fence holds at least one `>>>` example.
"""

from __future__ import annotations

import doctest
from collections.abc import Callable
from pathlib import Path

import pytest

from checkpointing_migrate.table import load
from generator.oldnames import OldNames
from tests import pycon_doctests

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md"))

Blocks = Callable[[str | Path], list[tuple[int, str]]]


def scan_pycon_fences(text: str) -> list[int]:
    """Line numbers of every line whose stripped text starts with ```pycon."""
    return [n for n, line in enumerate(text.split("\n"), 1) if line.strip().startswith("```pycon")]


@pytest.fixture(scope="session")
def pycon_blocks() -> Blocks:
    """The lexer's view of a page: the same `pycon_blocks()` the collector in conftest.py uses."""
    return pycon_doctests.pycon_blocks


@pytest.fixture(scope="session")
def old_name_examples() -> Callable[[str | Path], list[tuple[int, str]]]:
    """(line, mode) of each statement the old-names pass runs."""
    return pycon_doctests.old_name_examples


def renamed_statements(source: str, names: OldNames) -> list[int]:
    """0-based line offsets of the `>>>` statements in a block that use a renamed (new) name."""
    return [
        example.lineno
        for example in doctest.DocTestParser().get_examples(source)
        if names.rewrite(example.source) != example.source
    ]


def test_docs_folder_has_pages() -> None:
    # Without pages the two tests below would only be skipped (empty parameter set).
    assert PAGES, f"no Markdown pages under {ROOT / 'docs'}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_pycon_fence_is_collected(page: Path, pycon_blocks: Blocks) -> None:
    scanned = scan_pycon_fences(page.read_text(encoding="utf-8"))
    lexed = [line for line, _ in pycon_blocks(page)]
    assert lexed == scanned, f"pycon fences at lines {scanned} but the doc-test lexer found {lexed}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_pycon_fence_has_an_example(page: Path, pycon_blocks: Blocks) -> None:
    empty = [line for line, source in pycon_blocks(page) if not doctest.DocTestParser().get_examples(source)]
    assert not empty, f"pycon fences with no `>>>` statement at lines {empty}"


PAGE_WITH_ATTRIBUTES = """\
# Page

```pycon
>>> 1 + 1
2
```

```pycon title="train.py" hl_lines="2"
>>> x = 3
>>> x
3
```

=== "Before"

    ```pycon
    >>> print("a")
    a
    ```

=== "After"

    ```pycon title="x.py"
    >>> print("b")
    b
    ```

```python
not_a_pycon_block = True
```
"""


def test_lexer_accepts_attributes_and_content_tabs(tmp_path: Path, pycon_blocks: Blocks) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE_WITH_ATTRIBUTES, encoding="utf-8")
    assert pycon_blocks(page) == [
        (3, ">>> 1 + 1\n2\n"),
        (8, ">>> x = 3\n>>> x\n3\n"),
        (16, '>>> print("a")\na\n'),
        (23, '>>> print("b")\nb\n'),
    ]
    assert scan_pycon_fences(PAGE_WITH_ATTRIBUTES) == [3, 8, 16, 23]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_statement_with_a_renamed_name_runs_under_the_old_names(
    page: Path, pycon_blocks: Blocks, old_name_examples: Callable[[str | Path], list[tuple[int, str]]]
) -> None:
    names = OldNames.from_table(load(ROOT / "aliases.yaml"))
    blocks = pycon_blocks(page)
    statements = [
        line + 1 + example.lineno for line, source in blocks for example in doctest.DocTestParser().get_examples(source)
    ]
    renamed = [line + 1 + offset for line, source in blocks for offset in renamed_statements(source, names)]
    runs = dict(old_name_examples(page))
    missing = [line for line in renamed if line not in runs]
    assert not missing, f"statements using a renamed name at lines {missing} have no old-names example"
    # A page that uses a renamed name runs whole (later statements need earlier ones); any other page not at all.
    assert sorted(runs) == (statements if renamed else []), (
        f"old-names examples at {sorted(runs)}, statements at {statements}"
    )
    assert set(runs.values()) <= {"rewritten", "before-tab", "unchanged", "kept"}


def test_the_old_names_pass_covers_every_renamed_statement_of_the_site(
    pycon_blocks: Blocks, old_name_examples: Callable[[str | Path], list[tuple[int, str]]]
) -> None:
    names = OldNames.from_table(load(ROOT / "aliases.yaml"))
    renamed = sum(len(renamed_statements(source, names)) for page in PAGES for _, source in pycon_blocks(page))
    old_names = sum(len(old_name_examples(page)) for page in PAGES)
    # The acceptance criterion: at least as many old-names items as statements that use a renamed name.
    assert renamed > 0 and old_names >= renamed, (old_names, renamed)
