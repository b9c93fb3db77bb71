"""`mkdocs serve` shows an edit of aliases.yaml without a restart, and survives a broken edit.

Runs the real server on a copy of the repository (the hook writes next to the generator it was loaded from, so
the copy's pages change, never the working tree's). How fast the change shows is measured in
`benchmarks/`, not asserted here: timing assertions are flaky on shared machines.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")
PAGE = "generated/naming-comparison/"
DEADLINE = 60.0
"""Seconds to wait for a rebuild before calling it missing: generous, since CI machines are shared."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8"))
    except OSError:
        return None


def _wait_for(url: str, predicate: Callable[[str], bool], deadline: float = DEADLINE) -> str:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        html = _get(url)
        if html is not None and predicate(html):
            return html
        time.sleep(0.2)
    raise AssertionError(f"{url} did not show the expected change within {deadline} s")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str, Path]]:
    """A copy of the repo served by `mkdocs serve`: (copy, base url, server log)."""
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("aliases.yaml", "mkdocs.yml"):
        shutil.copy(ROOT / name, copy / name)
    for name in ("generator", "checkpointing_migrate", "templates", "docs", "data"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    port = _free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(MKDOCS), "serve", "--livereload", "-a", f"127.0.0.1:{port}"],
            cwd=copy,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        base = f"http://127.0.0.1:{port}/"
        _wait_for(base + PAGE, lambda html: "Naming comparison" in html)
        yield copy, base, log
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_an_edit_of_the_table_is_served_without_a_restart(served: tuple[Path, str, Path]) -> None:
    copy, base, log = served
    table = copy / "aliases.yaml"
    marker = "Edited while serving."
    text = table.read_text()
    old_note = 'note: "Already says activation_checkpointing'
    assert old_note in text
    table.write_text(text.replace(old_note, f'note: "{marker} Already says activation_checkpointing', 1))
    _wait_for(base + PAGE, lambda html: marker in html)
    # The committed page in the copy was rewritten too, so doc tests and the freshness check see the edit.
    assert marker in (copy / "docs" / "generated" / "naming-comparison.md").read_text()


def test_a_broken_edit_keeps_the_server_and_the_pages(served: tuple[Path, str, Path]) -> None:
    copy, base, log = served
    table = copy / "aliases.yaml"
    good = table.read_text()
    page = (copy / "docs" / "generated" / "naming-comparison.md").read_text()
    table.write_text(good.replace("status: shipped", "status: shiped", 1))
    end = time.monotonic() + DEADLINE
    while "did you mean 'shipped'?" not in log.read_text() and time.monotonic() < end:
        time.sleep(0.2)
    assert f"{table}:" in log.read_text() and "did you mean 'shipped'?" in log.read_text()
    assert (copy / "docs" / "generated" / "naming-comparison.md").read_text() == page
    marker = "Fixed while serving."
    table.write_text(good.replace('note: "Already says', f'note: "{marker} Already says', 1))
    _wait_for(base + PAGE, lambda html: marker in html)


def test_an_edit_of_the_generator_code_is_served_fresh(served: tuple[Path, str, Path]) -> None:
    """`mkdocs serve` caches the hook's imports; the hook must import the generator afresh on each rebuild."""
    copy, base, log = served
    render = copy / "generator" / "pages" / "render.py"
    text = render.read_text()
    assert "Do not edit. -->" in text
    render.write_text(text.replace("Do not edit. -->", "Do not edit (served fresh). -->", 1))
    _wait_for(base + PAGE, lambda html: "Do not edit (served fresh). -->" in html)
