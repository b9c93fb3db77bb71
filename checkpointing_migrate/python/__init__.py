"""Python sources: find the renamed names where the syntax says what they are, and rewrite only those.

Two passes keep this fast enough for a whole library tree: a lexical pass (`checkpointing_migrate.pylex`) looks for the
rules' names as whole words, and only a file with one is parsed with `ast`, visiting only the statements on those
lines (`walk`), where each rule family (one module each) decides from the syntax alone, never importing the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.pylex import Source, candidate_lines, identifiers, only_planned
from checkpointing_migrate.python import doctests, namespace, statements, warning_tests
from checkpointing_migrate.python.context import File
from checkpointing_migrate.python.namespace import Ran
from checkpointing_migrate.python.walk import run_of, walk

__all__ = ["Ran", "Source", "analyse", "analyse_file", "context_of", "identifiers"]


def analyse(text: str, options: Options, context: ast.Module | None = None, base: Path | None = None) -> list[Hit]:
    """The hits in Python source `text`; raises `SyntaxError` (or `ValueError`) if a candidate file does not parse.

    `context`: the whole document when `text` is one piece of it (notebook cells, Markdown fences), so that what a
    name holds is told from every piece. `base`: the file's folder, where classes imported from the project's
    own modules are looked up.
    """
    planned = only_planned(text, options)
    if planned is not None:
        found = statements.hits(text, options, planned)
        if found is not None:
            return found
    source = Source(text)
    lines = candidate_lines(text, options, source)
    if not lines:
        return []
    tree = ast.parse(text)
    hits = walk(File(source, tree, lines, options, run_of(options), context, base))
    return warning_tests.kept(tree, source, hits)  # a test of the deprecation needs the old name


def analyse_file(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """The hits in a Python file: its code's (`analyse`), then its docstrings' doctests', each judged alone."""
    found = analyse(text, options, None, base)
    return found + doctests.hits(text, options, lambda code: analyse(code, options, None, base))


def context_of(
    pieces: list[str], magics: list[list[Ran]] | None = None, cells: list[int | None] | None = None
) -> ast.Module:
    """One module holding the statements of every piece that parses (for `analyse`'s `context`), with the code each
    runs in the document's namespace (`namespace`): `exec(src)` at its top level, and `magics`, what the tool blanked
    from it (a notebook's `%run -i FILE`); `cells`: each piece's cell number, to name a run by."""
    body: list[ast.stmt] = []
    runs: list[Ran] = []
    for i, piece in enumerate(pieces):
        runs += magics[i] if magics else []
        try:
            statements = ast.parse(piece).body
        except (SyntaxError, ValueError):
            continue
        body += statements
        runs += namespace.runs_in(statements, i, cells[i] if cells else None)
    module = ast.Module(body=body, type_ignores=[])
    namespace.keep(module, pieces, runs)
    return module
