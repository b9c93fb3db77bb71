"""`fix --write --verify CMD`: the project's own check decides which rewrites stay.

Each project holds six scripts with one safe rewrite each and a check (`check.py`) that counts its runs in a file and
fails when chosen scripts are rewritten; the tool runs as a user runs it (`migratekit.run`, a fresh process).
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from migratekit import REQUIREMENT, run

from generator.paths import ROOT

SCRIPT = (
    "from transformers import AutoModelForCausalLM\n\nmodel = AutoModelForCausalLM.from_pretrained('m')\nmodel.{}()\n"
)
OLD, NEW = SCRIPT.format("gradient_checkpointing_enable"), SCRIPT.format("activation_checkpointing_enable")
NAMES = [f"m{i}.py" for i in range(6)]

CHECK = """import pathlib, sys, time
with open("runs", "a") as f:
    f.write("x")
runs = len(pathlib.Path("runs").read_text())
if {hang_from} and runs >= {hang_from}:
    pathlib.Path("hanging").write_text("")
    time.sleep(60)
broken = [n for n in {breaks!r} if "activation" in pathlib.Path(n).read_text()]
print("checked", runs)
for name in broken:
    print(f"AttributeError in {{name}}")
sys.exit(1 if broken else 0)
"""


def _project(tmp_path: Path, breaks: list[str], hang_from: int = 0) -> Path:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    for name in NAMES:
        (tmp_path / name).write_text(OLD)
    (tmp_path / "check.py").write_text(CHECK.format(breaks=breaks, hang_from=hang_from))
    return tmp_path


def _runs(project: Path) -> int:
    return len((project / "runs").read_text())


def _state(project: Path) -> dict[str, str]:
    return {n: {OLD: "original", NEW: "fixed"}.get((project / n).read_text(), "partial") for n in NAMES}


def _verify(project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run("fix", "--write", "--verify", f"{sys.executable} check.py", *extra, *NAMES, cwd=project)


def test_the_files_whose_rewrite_breaks_the_check_are_backed_out_by_bisection(tmp_path: Path) -> None:
    project = _project(tmp_path, ["m1.py", "m4.py"])
    done = _verify(project)
    assert done.returncode == 1, done.stderr
    assert _state(project) == {n: "original" if n in ("m1.py", "m4.py") else "fixed" for n in NAMES}
    assert "kept the rewrites of 4 files: m0.py, m2.py, m3.py, m5.py" in done.stderr
    assert "backed out m1.py: the check fails with its rewrite (exit 1)" in done.stderr
    assert "AttributeError in m1.py" in done.stderr and "AttributeError in m4.py" in done.stderr
    # Before, after, then at most two runs per level of the split for each breaking file.
    assert _runs(project) <= 2 + 2 * 2 * math.ceil(math.log2(len(NAMES))), _runs(project)
    assert f"ran {_runs(project)} times" in done.stderr


def test_one_breaking_file_among_many_takes_about_log2_runs(tmp_path: Path) -> None:
    project = _project(tmp_path, ["m3.py"])
    done = _verify(project)
    assert done.returncode == 1, done.stderr
    assert [n for n, s in _state(project).items() if s == "original"] == ["m3.py"]
    assert _runs(project) <= 2 + math.ceil(math.log2(len(NAMES))), _runs(project)


def test_a_check_that_passes_keeps_every_rewrite(tmp_path: Path) -> None:
    project = _project(tmp_path, [])
    done = _verify(project)
    assert done.returncode == 0, done.stderr
    assert set(_state(project).values()) == {"fixed"} and _runs(project) == 2
    assert "rewrote 6 names in 6 files" in done.stderr


def test_a_check_failing_before_the_fix_writes_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path, [])
    (project / "m0.py").write_text(OLD.replace("'m'", "'activation'"))  # the check fails on the original
    (project / "check.py").write_text(CHECK.format(breaks=["m0.py"], hang_from=0))
    done = _verify(project)
    assert done.returncode == 2, done.stderr
    assert "fails before any rewrite (exit 1); nothing was written" in done.stderr
    assert "AttributeError in m0.py" in done.stderr and _runs(project) == 1
    assert all((project / n).read_text() == OLD for n in NAMES[1:])


def test_a_hanging_check_is_killed_and_counts_as_failing(tmp_path: Path) -> None:
    project = _project(tmp_path, [], hang_from=2)
    start = time.monotonic()
    done = _verify(project, "--verify-timeout", "2")
    assert done.returncode == 1, done.stderr
    assert "timed out after 2 s" in done.stderr
    # Every run after the first hangs: no rewrite can be shown to pass, so every one is put back.
    assert set(_state(project).values()) == {"original"}
    assert time.monotonic() - start < 60


def test_verify_needs_write_and_a_positive_timeout(tmp_path: Path) -> None:
    project = _project(tmp_path, [])
    done = run("fix", "--verify", "true", "m0.py", cwd=project)
    assert done.returncode == 2 and "need --write" in done.stderr and "Traceback" not in done.stderr
    done = run("fix", "--write", "--verify", "true", "--verify-timeout", "soon", "m0.py", cwd=project)
    assert done.returncode == 2 and "'soon' is not a number of seconds" in done.stderr
    assert (project / "m0.py").read_text() == OLD


def test_ctrl_c_during_the_check_leaves_every_file_whole(tmp_path: Path) -> None:
    project = _project(tmp_path, [], hang_from=2)
    tool = subprocess.Popen(
        [sys.executable, "-m", "checkpointing_migrate", "fix", "--write", "--verify", f"{sys.executable} check.py"]
        + NAMES,
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (project / "hanging").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (project / "hanging").exists()
    assert set(_state(project).values()) == {"fixed"}  # the second run checks the rewritten files
    tool.send_signal(signal.SIGINT)
    _, err = tool.communicate(timeout=30)
    assert tool.returncode == 130, err
    assert "SIGINT: stopped; every file is as it was before the fix" in err and "Traceback" not in err
    assert set(_state(project).values()) == {"original"}
    assert not [p.name for p in project.iterdir() if p.name.endswith(".tmp")]
