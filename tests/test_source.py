"""Texts read from source without running it: what a warning call or a raise says, where, and under which `if`."""

from __future__ import annotations

from pathlib import Path

from generator.measure.source import HOLE, raised_naming, source_texts

MODULE = """
import warnings


class Trainer:
    def setup(self, args):
        if args.fsdp and args.activation_checkpointing:
            raise ValueError("`activation_checkpointing` and FSDP's own can't both be set")
        else:
            message = f"`{args.name}` uses gradient_checkpointing"
            raise TypeError(message)
        warnings.warn("`gradient_checkpointing` is deprecated", FutureWarning)


def helper():
    raise RuntimeError("no checkpointing name here")
"""


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "trainer.py").write_text(MODULE)
    (tmp_path / "pkg" / "other.py").write_text(
        'raise ValueError("gradient_checkpointing")  # no quote before: still read\n'
    )
    return tmp_path


def test_raises_naming_the_feature_with_function_and_condition(tmp_path: Path) -> None:
    found = raised_naming(_tree(tmp_path), "pkg")
    assert [(t.path, t.line, t.category, t.function, t.condition) for t in found] == [
        ("pkg/other.py", 1, "ValueError", "", ""),
        ("pkg/trainer.py", 8, "ValueError", "Trainer.setup", "args.fsdp and args.activation_checkpointing"),
        ("pkg/trainer.py", 11, "TypeError", "Trainer.setup", "not (args.fsdp and args.activation_checkpointing)"),
    ]
    assert found[2].text == f"`{HOLE}` uses gradient_checkpointing"
    assert found[2].matches("`x` uses gradient_checkpointing") and found[2].shown == "`{…}` uses gradient_checkpointing"


def test_warning_calls_are_kept_apart_from_raises(tmp_path: Path) -> None:
    texts = source_texts(_tree(tmp_path), "pkg")
    assert [(t.line, t.raised) for t in texts if t.path == "pkg/trainer.py"] == [
        (8, True),
        (11, True),
        (12, False),
        (16, True),
    ]
