"""Doctests in a Python file's docstrings: the `>>>` and `...` lines of each docstring, read as Python code the way
a Markdown `pycon` fence is (`pieces.prompted`), and judged alone (the names they use come from their own lines).

Each docstring's examples are one piece, cut from the file's own text (so every offset maps back as is); a doctest
that does not parse is left alone, as doctest itself would fail on it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from checkpointing_migrate.codes import shared
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import FileKind
from checkpointing_migrate.pieces import Piece, of_lines, prompted
from checkpointing_migrate.pylex import Source

PROMPTS = (">>> ", "... ")
BARE = (">>>", "...")
"""A doctest's prompts, and the same alone on a line (an empty line of a block)."""

_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def hits(text: str, options: Options, read: Callable[[str], list[Hit]]) -> list[Hit]:
    """The hits `read` finds in the doctests of the Python source `text`, with offsets into `text`."""
    if not _prompted_line_names(text, options.rules.stem):
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []  # the file itself is reported
    found = []
    for piece in _pieces(text, tree):
        if options.rules.stem not in piece.text:
            continue
        try:
            inside = read(piece.text)
        except (SyntaxError, ValueError):
            continue
        found += [piece.back(h, text, shared("across-prompts"), shared("doctest-lines")) for h in inside]
    return found


def _prompted_line_names(text: str, stem: str) -> bool:
    """Whether a line that starts with a prompt holds `stem`: most files with doctests (transformers' modeling files
    all have some) never name an old name in one, and parsing them all cost the scan of the tree nine times over."""
    at = text.find(stem)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if text[start:at].lstrip(" \t").startswith(PROMPTS):
            return True
        at = text.find(stem, at + 1)
    return False


def _pieces(text: str, tree: ast.Module) -> Iterator[Piece]:
    """The doctest lines of each docstring in `tree`, as a piece of `text`."""
    source = Source(text)
    for node in ast.walk(tree):
        if not isinstance(node, _DOCUMENTED) or not node.body:
            continue
        first = node.body[0]
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
            continue
        if not isinstance(first.value.value, str) or ">>>" not in first.value.value:
            continue
        string = first.value
        start = source.offset(string.lineno, string.col_offset)
        end = source.offset(string.end_lineno or string.lineno, string.end_col_offset or 0)
        lines = list(_lines(text, start, end))
        if lines:
            yield of_lines(FileKind.PYTHON, prompted(lines, PROMPTS, BARE))


def _lines(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """(offset, line without its indentation) of each line of the string literal at `text[start:end]`, inside its
    quotes."""
    token = text[start:end]
    prefix = len(token) - len(token.lstrip("rRuUbBfF"))
    quote = 3 if token[prefix : prefix + 3] in ('"""', "'''") else 1
    offset, body = start + prefix + quote, text[start + prefix + quote : end - quote]
    for line in body.splitlines(keepends=True):
        cut = len(line) - len(line.lstrip(" \t"))
        yield offset + cut, line[cut:]
        offset += len(line)
