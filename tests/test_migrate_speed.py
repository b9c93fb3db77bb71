"""The scanner's fast paths give what the slow ones they replace give (`benchmarks/scan.py` measures the speed)."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from checkpointing_migrate import files
from checkpointing_migrate.findings import FileError
from checkpointing_migrate.hits import MAX_FILE_SIZE
from checkpointing_migrate.pylex import Source
from checkpointing_migrate.receivers import _statements

TEXTS = [
    "",
    "x = 1",
    "x = 1\n",
    "\n\n",
    "a = 1\r\nb = 2\r\n",
    "a = 1\rb = 2",
    "s = 'é'\nt = '\u2028'\n\x0cu = 3\n",  # U+2028 and form feed start no line for Python
    "def f():\n    return 1\n\n\nclass A:\n    pass",
]


@pytest.mark.parametrize("text", TEXTS)
def test_line_starts_are_where_each_line_begins(text: str) -> None:
    expected = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]
    assert Source(text).starts == expected


def _statements_by_queue(tree: ast.Module, *, nested: bool) -> list[ast.stmt]:
    """`_statements` as it was before it used a stack (popping the front of a list was quadratic)."""
    found, pending = [], list(tree.body)
    while pending:
        node = pending.pop(0)
        found.append(node)
        if not nested and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inner = [
            n for name in ("body", "orelse", "finalbody") for n in getattr(node, name, []) if isinstance(n, ast.stmt)
        ]
        inner += [n for h in getattr(node, "handlers", []) for n in h.body]
        inner += [n for c in getattr(node, "cases", []) for n in c.body]
        pending[:0] = inner
    return found


def test_statements_come_in_the_same_order_as_before() -> None:
    tree = ast.parse(
        "import a\nif x:\n    def f():\n        y = 1\n    z = 2\nelse:\n    w = 3\ntry:\n    t = 1\n"
        "except E:\n    u = 1\nfinally:\n    v = 1\nclass C:\n    k = 1\nmatch m:\n    case 1:\n        r = 1\nq = 1\n"
    )
    for nested in (True, False):
        assert list(_statements(tree, nested=nested)) == _statements_by_queue(tree, nested=nested)
    assert len(list(_statements(tree, nested=True))) == 15


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 70_000])
def test_a_file_is_read_whole_up_to_the_limit(tmp_path: Path, size: int) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x" * size)
    assert files.read(str(path), None) == b"x" * size
    assert files.read(str(path), size) == b"x" * size
    too_big = files.read(str(path), size - 1) if size else b""
    assert isinstance(too_big, FileError) if size else too_big == b""


@pytest.mark.skipif(not os.path.isfile("/proc/self/status"), reason="no /proc")
def test_a_file_that_tells_no_size_is_read_whole() -> None:
    data = files.read("/proc/self/status", MAX_FILE_SIZE)
    assert isinstance(data, bytes) and data.startswith(b"Name:") and len(data) > 100
