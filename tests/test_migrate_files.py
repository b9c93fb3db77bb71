"""Which files a run checks, as a user of ruff expects: git's ignore rules (a table of patterns → paths), the default
and given excludes, named paths always checked and recognised by their `#!` line, and the whole story on a project
with `wandb/`, `out/checkpoint-500/`, `build/`, a `.gitignore` and a `job.slurm`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from migratekit import REQUIREMENT, run

from checkpointing_migrate import gitignore
from checkpointing_migrate.discover import Selection, walk
from checkpointing_migrate.kinds import shebang_kind

GITIGNORE = [
    # (line, path relative to the .gitignore's folder, is a folder, ignored?)
    ("wandb/", "wandb", True, True),
    ("wandb/", "wandb", False, False),  # folders only
    ("wandb/", "src/wandb", True, True),  # no inner slash: any level
    ("/out", "out", True, True),
    ("/out", "src/out", True, False),  # anchored
    ("out/checkpoint-*", "out/checkpoint-500", True, True),
    ("out/checkpoint-*", "src/out/checkpoint-500", True, False),  # an inner slash anchors too
    ("*.log", "a/b/run.log", False, True),
    ("*.py[co]", "m.pyc", False, True),
    ("*.py[!co]", "m.pyi", False, True),
    ("run?.json", "run1.json", False, True),
    ("run?.json", "run/.json", False, False),  # ? never matches /
    ("a/*.json", "a/b/c.json", False, False),  # * never matches /
    ("**/logs", "logs", True, True),
    ("**/logs", "x/y/logs", True, True),
    ("a/**/b", "a/b", True, True),
    ("a/**/b", "a/x/y/b", True, True),
    ("a/**", "a/x/y.py", False, True),
    ("a/**", "a", True, False),  # the contents, not the folder
    ("\\#notes", "#notes", False, True),
    ("\\!important", "!important", False, True),
    ("# a comment", "# a comment", False, False),
    ("trailing   ", "trailing", False, True),
    ("[z-a].py", "z.py", False, False),  # a range that matches nothing, not an error
    ("[ab", "[ab", False, True),  # an unclosed bracket is itself
]


@pytest.mark.parametrize(("line", "path", "folder", "ignored"), GITIGNORE)
def test_gitignore_pattern_semantics(line: str, path: str, folder: bool, ignored: bool) -> None:
    level = gitignore.Level("/project", gitignore.compile_lines(line))
    assert bool(gitignore.decide([level], f"/project/{path}", folder)) is ignored


def test_the_last_matching_line_wins_and_a_deeper_file_wins_over_a_shallower_one() -> None:
    root = gitignore.Level("/p", gitignore.compile_lines("*.json\n!keep.json\n"))
    assert gitignore.decide([root], "/p/a.json", False) is True
    assert gitignore.decide([root], "/p/keep.json", False) is False
    deeper = gitignore.Level("/p/sub", gitignore.compile_lines("keep.json\n"))
    assert gitignore.decide([root, deeper], "/p/sub/keep.json", False) is True
    assert gitignore.decide([root, deeper], "/p/keep.json", False) is False
    assert gitignore.decide([root], "/elsewhere/a.json", False) is None


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"#!/usr/bin/env python\n", "python"),
        (b"#!/usr/bin/env python3.11\n", "python"),
        (b"#!/usr/bin/python3 -u\n", "python"),
        (b"#!/usr/bin/env -S python3 -X dev\n", "python"),
        (b"#!/bin/bash -e\n", "shell"),
        (b"#!/usr/bin/env bash\n", "shell"),
        (b"#!/bin/sh\n", "shell"),
        (b"#! /bin/zsh\n", "shell"),
        (b"#!/usr/bin/env VAR=1 bash\n", "shell"),
        (b"#!/usr/bin/env node\n", None),
        (b"#!\n", None),
        (b"print(1)\n", None),
    ],
)
def test_shebang_detection(head: bytes, kind: str | None) -> None:
    assert shebang_kind(head) == kind


def _walked(top: Path, selection: Selection | None = None) -> list[str]:
    return sorted(
        os.path.relpath(p, top) for p in walk([top], selection or Selection(root=str(top))) if isinstance(p, str)
    )


def _tree(top: Path, files: list[str]) -> None:
    for name in files:
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text("x = 1\n" if not name.endswith("job") else "#!/bin/bash\necho\n")


def test_nested_gitignores_negation_and_info_exclude(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.py", "gen.py", "sub/b.py", "sub/keep_gen.py", "sub/gen.py", "local.py", "deep/x/y.py"])
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("local.py\n")
    (tmp_path / ".gitignore").write_text("gen.py\n*_gen.py\n/deep/x\n")
    (tmp_path / "sub" / ".gitignore").write_text("!keep_gen.py\n")
    assert _walked(tmp_path) == ["a.py", "sub/b.py", "sub/keep_gen.py"]
    assert _walked(tmp_path / "sub") == ["b.py", "keep_gen.py"]  # the root's .gitignore applies from above
    everything = _walked(tmp_path, Selection(respect_gitignore=False, root=str(tmp_path)))
    assert everything == ["a.py", "deep/x/y.py", "gen.py", "local.py", "sub/b.py", "sub/gen.py", "sub/keep_gen.py"]


def test_gitignore_is_read_outside_a_repository_too(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.py", "out/b.py"])
    (tmp_path / ".gitignore").write_text("out/\n")
    assert _walked(tmp_path) == ["a.py"]


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.py", "build/b.py", "vendor/c.py", "src/vendor/d.py", "logs/e.py", "src/logs/f.py"])
    assert _walked(tmp_path) == ["a.py", "logs/e.py", "src/logs/f.py", "src/vendor/d.py", "vendor/c.py"]
    extended = Selection((*Selection().exclude, "vendor", "/logs"), root=str(tmp_path))
    assert _walked(tmp_path, extended) == ["a.py", "src/logs/f.py"]
    replaced = Selection(("vendor",), root=str(tmp_path))
    assert "build/b.py" in _walked(tmp_path, replaced)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The project a new user tried: 35 of 64 lines came from ignored folders, and `job.slurm` was skipped."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / ".gitignore").write_text("wandb/\nout/\n")
    files = {
        "wandb/run-1/files/config.yaml": "gradient_checkpointing: true\n",
        "out/checkpoint-500/training_args.json": '{"gradient_checkpointing": true}\n',
        "build/lib/train.py": "model.gradient_checkpointing_enable()\n",
        "config.yaml": "gradient_checkpointing: true\n",
        "job.slurm": "#!/bin/bash\n#SBATCH -N 1\npython -m mypkg.train --gradient_checkpointing\n",
        "tools/launch": "#!/usr/bin/env python3\nimport transformers\nargs = transformers.TrainingArguments('o', gradient_checkpointing=True)\n",
        "notes.txt": "gradient_checkpointing\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_project_with_ignored_folders_and_a_job_script(project: Path) -> None:
    result = run("scan", ".", cwd=project)
    lines = result.stdout.splitlines()
    assert {line.split(":")[0] for line in lines[:-1] if not line.startswith("[")} == {
        "config.yaml",
        "job.slurm",
        "tools/launch",
    }
    assert "in 3 files checked" in lines[-1]
    fix = run("fix", ".", cwd=project)
    assert "training_args.json" not in fix.stdout and "+gradient" not in fix.stdout
    assert "+activation_checkpointing: true" not in fix.stdout  # nothing shows who reads config.yaml: unsafe
    assert "+activation_checkpointing: true" in run("fix", "--unsafe-fixes", ".", cwd=project).stdout
    everything = run("scan", "--no-respect-gitignore", ".", cwd=project)
    assert "wandb/run-1/files/config.yaml:1:1:" in everything.stdout
    assert "out/checkpoint-500/training_args.json:1:3:" in everything.stdout


def test_a_dangling_symbolic_link_is_named_with_its_target_and_what_to_do(tmp_path: Path) -> None:
    """Seen in a released project's tree copied without its hidden folders: `CLAUDE.md -> .ai/CLAUDE.md`."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "CLAUDE.md").symlink_to(".ai/CLAUDE.md")
    result = run("scan", ".", cwd=tmp_path)
    assert "CLAUDE.md:1:1: error: a symbolic link to `.ai/CLAUDE.md`, which does not exist: fix or remove the link" in (
        result.stderr
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_a_named_path_is_always_checked_and_an_unknown_kind_is_said(project: Path) -> None:
    named = run("scan", "out/checkpoint-500/training_args.json", "build/lib/train.py", "job.slurm", cwd=project)
    assert "training_args.json:1:3: fix" in named.stdout and "build/lib/train.py:1:7:" in named.stdout
    assert "job.slurm:3:" in named.stdout and named.returncode == 1
    unknown = run("scan", "notes.txt", cwd=project)
    assert unknown.returncode == 1 and "Traceback" not in unknown.stderr
    assert unknown.stderr.startswith("notes.txt:1:1: error: cannot tell what kind of file this is")
    assert ".py" in unknown.stderr and "#!" in unknown.stderr


def test_force_exclude_applies_the_rules_to_named_paths_as_pre_commit_needs(project: Path) -> None:
    named = ("out/checkpoint-500/training_args.json", "build/lib/train.py", "wandb", "config.yaml")
    result = run("scan", "--force-exclude", *named, cwd=project)
    assert [line.split(":")[0] for line in result.stdout.splitlines()[:-1] if not line.startswith("[")] == [
        "config.yaml"
    ]
    assert "in 1 file checked" in result.stdout
    (project / "pyproject.toml").write_text(REQUIREMENT + "\n[tool.checkpointing-migrate]\nforce-exclude = true\n")
    assert "build/lib/train.py" not in run("scan", *named, cwd=project).stdout
    assert "build/lib/train.py" in run("scan", "--no-force-exclude", *named, cwd=project).stdout
