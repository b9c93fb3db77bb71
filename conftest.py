# Doc tests: every ```pycon fence in docs/**/*.md runs as doctests under pytest (Sybil).
#
# Why a custom lexer: Sybil's stock Markdown parsers only take ```python and match the
# info string exactly, so a Material fence such as ```pycon title="x" hl_lines="2" would
# be skipped without a word. PyconFenceLexer takes `pycon` plus any attributes, inside
# `=== "Tab"` content tabs and admonitions too, and keeps the indentation so that test
# ids point at the right page line. tests/test_doc_examples.py counts fences with a
# plain line scan and compares with pycon_blocks() (this same lexer): a miss fails.
#
# Why warnings are output: a page shows what a reader will see. A "Before" block lists
# `FutureWarning: ...` as a line of expected output, and an "After" block that still
# warns fails, because the warning shows up under "Got". The evaluator prints warnings
# inside its own catch_warnings(): a showwarning set in Sybil's `setup` would be reset
# by pytest's per-test catch_warnings, and simplefilter("always") there overrides the
# project's `filterwarnings = error`, so a warning is printed instead of raised.
#
# Logging is left alone: doctest compares stdout only, and transformers logs to stderr
# (under CI=true also through the root logger into pytest's log capture). Log lines
# never enter the expected output; they show under "Captured stderr/log" on a failure.
#
# Each `>>>` statement is one test item (id `docs/page.md::line:N,column:M`); a page's
# statements share one namespace and run in order, so run whole pages, not single items.
# There is no skip directive: every example that ships runs.
from __future__ import annotations

import doctest
import re
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from re import Match
from typing import Any, TextIO

from sybil import Document, Example, Lexeme, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

__all__ = [
    "OPTIONFLAGS",
    "PYCON_LEXER",
    "PyconFenceLexer",
    "PyconParser",
    "WarningsAsOutputEvaluator",
    "pycon_blocks",
]


class PyconFenceLexer(RawFencedCodeBlockLexer):
    """Sybil's Markdown fence scanner, for fences whose info string is `pycon`, alone or
    followed by whitespace and Material attributes (title="x" hl_lines="2" ...).
    `pycon3` or `pycon{...}` don't match, so the count test reports them.

    The `source` lexeme is the fence content as written, indentation included: Sybil's
    lexers dedent it, which gives examples inside content tabs wrong lines and columns
    in test ids. doctest handles the indentation itself. Its `offset` is where the
    content starts, counted from the opening fence.
    """

    def __init__(self) -> None:
        super().__init__(
            re.compile(
                r"pycon(?:[ \t]+(?P<attributes>[^\n]*?))?[ \t]*$\n", re.MULTILINE
            )
        )

    def make_region(
        self, opening: Match[str], document: Document, closing: Match[str] | None
    ) -> Region | None:
        region = super().make_region(opening, document, closing)
        if region is not None:
            start = opening.start() + region.lexemes["source"].offset
            end = len(document.text) if closing is None else closing.start()
            region.lexemes["source"] = Lexeme(
                document.text[start:end], start - opening.start(), 0
            )
        return region


PYCON_LEXER = PyconFenceLexer()

# ELLIPSIS lets a page write `...` for addresses and long reprs. NORMALIZE_WHITESPACE is
# not used: it would hide layout changes in printed tables and reprs.
OPTIONFLAGS = doctest.ELLIPSIS


def _print_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    print(f"{category.__name__}: {message}")


class WarningsAsOutputEvaluator(DocTestEvaluator):
    """Run one doctest example, printing each warning as `Category: message`."""

    def __call__(self, example: Example) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = _print_warning
            return super().__call__(example)


class PyconParser:
    """Yield a doctest example for each `>>>` statement in each pycon fence."""

    def __init__(self, optionflags: int = OPTIONFLAGS) -> None:
        self.doctest_parser = DocTestStringParser(
            WarningsAsOutputEvaluator(optionflags)
        )

    def __call__(self, document: Document) -> Iterator[Region]:
        for fence in PYCON_LEXER(document):
            start = fence.start + fence.lexemes["source"].offset
            for example in self.doctest_parser(fence.lexemes["source"], document.path):
                example.start += start
                example.end += start
                yield example


def pycon_blocks(path: str | Path) -> list[tuple[int, str]]:
    """(line of the opening fence, dedented content) of each fence PYCON_LEXER finds."""
    document = Document.parse(str(path))
    return [
        (
            document.text.count("\n", 0, fence.start) + 1,
            textwrap.dedent(fence.lexemes["source"]),
        )
        for fence in PYCON_LEXER(document)
    ]


def _drop_namespace(namespace: dict[str, Any]) -> None:
    namespace.clear()  # free the page's models before the next page runs


pytest_collect_file = Sybil(
    parsers=[PyconParser()], path="docs", patterns=["*.md"], teardown=_drop_namespace
).pytest()
