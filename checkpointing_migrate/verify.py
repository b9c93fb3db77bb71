"""`fix --write --verify CMD`: keep only the rewrites the project's own check still passes with (cargo fix's way).

CMD must pass before anything is written and runs again after every rewrite is in place; when it fails, the files that
break it are found by bisection (about log2(files) runs each) and put back through `plan`'s all-or-nothing writer.
A signal (Ctrl-C) is held off while a file is replaced, kills the check, and puts back every original.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

from checkpointing_migrate import codes
from checkpointing_migrate.files import Result, sha256
from checkpointing_migrate.plan import write_all

TAIL = 15
"""How many of the check's last output lines a report shows."""

INTERRUPTED = 130
"""The exit code after Ctrl-C (128 + SIGINT, as a shell reports it); SIGTERM gives 143."""


class Interrupted(Exception):
    """A signal arrived: the check was killed; the caller puts the originals back."""


@dataclass
class Run:
    """One run of the check."""

    passed: bool
    output: str
    how: str
    """How it ended, for messages: `exit 0`, `exit 1`, `timed out after 5 s`."""

    def tail(self) -> str:
        lines = self.output.rstrip("\n").splitlines()[-TAIL:] or ["(no output)"]
        return "\n".join(f"    {line}" for line in lines)


@dataclass
class Verified:
    """What `verify_write` did."""

    code: int = 0
    """0: every rewrite kept; 1: some backed out or a file could not be written; 2: the check failed before
    anything was written; `INTERRUPTED` (or 128 + the signal)."""
    kept: list[str] = field(default_factory=list)
    """The paths whose rewrite is in place at the end."""


class _Check:
    """Runs the command line `command` in a shell of its own process group, which a timeout or signal kills whole."""

    def __init__(self, command: str, timeout: float | None) -> None:
        self.command, self.timeout = command, timeout
        self.runs = 0
        self.signal: int | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def __call__(self) -> Run:
        self.runs += 1
        process = subprocess.Popen(
            self.command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        self._process = process
        try:
            if self.signal is not None:  # arrived between the check and the start of this run
                self._kill()
            out, _ = process.communicate(timeout=self.timeout)
            how = f"exit {process.returncode}"
        except subprocess.TimeoutExpired:
            self._kill()
            out, _ = process.communicate()
            how = f"timed out after {self.timeout:g} s"
        finally:
            self._process = None
        if self.signal is not None:
            raise Interrupted
        text = out.decode(errors="replace")
        return Run(how == "exit 0", text, how)

    def _kill(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    @contextmanager
    def signals_held(self) -> Iterator[None]:
        """SIGINT and SIGTERM only note themselves and kill the running check: nothing stops a write halfway."""

        def note(signum: int, _: FrameType | None) -> None:
            self.signal = signum
            self._kill()

        previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    def stop_if_signalled(self) -> None:
        if self.signal is not None:
            raise Interrupted


class _Files:
    """The fixed files, each either original or rewritten; `show(paths)` puts exactly `paths` in their rewritten form."""

    def __init__(self, results: list[Result]) -> None:
        self.results = {r.path: r for r in results}
        self.rewritten: set[str] = set()

    def show(self, paths: set[str]) -> list[str]:
        """Rewrite `paths`, restore the others; the problems (a file changed meanwhile), nothing written then."""
        changes = []
        for path, result in self.results.items():
            assert result.fixed is not None and result.original is not None
            now, wanted = path in self.rewritten, path in paths
            if now == wanted:
                continue
            current, text = (result.fixed, result.original) if now else (result.original, result.fixed)
            changes.append(
                Result(path, fixed=text, encoding=result.encoding, digest=sha256(current.encode(result.encoding)))
            )
        outcome = write_all(changes)
        done = {r.path for r in changes} if not outcome.problems else set(outcome.written)
        self.rewritten ^= done
        return [p.text() for p in outcome.problems]


def _say(text: str) -> None:
    print(f"verify: {text}", file=sys.stderr)


def _names(paths: list[str]) -> str:
    return ", ".join(paths) or "none"


def verify_write(results: list[Result], command: str, timeout: float | None) -> Verified:
    """Write the rewrites of `results` that `command` still passes with; see the module docstring."""
    check = _Check(command, timeout)
    files = _Files(results)
    with check.signals_held():
        try:
            return _verify(files, check, command)
        except Interrupted:
            problems = files.show(set())
            name = signal.Signals(check.signal or signal.SIGINT).name
            if problems or files.rewritten:
                for problem in problems:
                    print(problem, file=sys.stderr)
                _say(codes.problem("verify-stopped", signal=name, files=_names(sorted(files.rewritten))))
            else:
                _say(codes.problem("verify-stopped-clean", signal=name))
            return Verified(128 + (check.signal or signal.SIGINT), sorted(files.rewritten))


def _verify(files: _Files, check: _Check, command: str) -> Verified:
    before = check()
    if not before.passed:
        _say(codes.problem("verify-fails-before", command=command, how=before.how, tail=before.tail()))
        return Verified(2)
    everything = list(files.results)
    problems = files.show(set(everything))
    check.stop_if_signalled()
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        _say(codes.problem("unsafe-writes", problems=len(problems), files=len(everything)))
        return Verified(1)
    after = check()
    if after.passed:
        _say(codes.problem("verify-passes", command=command, runs=check.runs))
        return Verified(0, everything)
    kept: list[str] = []
    broken: list[tuple[str, Run]] = []
    _bisect(everything, kept, broken, after, files, check)
    problems = files.show(set(kept))
    check.stop_if_signalled()
    for problem in problems:
        print(problem, file=sys.stderr)
    plural = "s" * (len(kept) != 1)
    _say(
        codes.problem("verify-kept", command=command, how=after.how, count=len(kept), plural=plural, files=_names(kept))
    )
    for path, run in broken:
        _say(codes.problem("verify-backed-out", path=path, how=run.how, tail=run.tail()))
    _say(codes.problem("verify-ran", command=command, runs=check.runs))
    return Verified(1, sorted(files.rewritten))


def _bisect(
    group: list[str], kept: list[str], broken: list[tuple[str, Run]], failed: Run, files: _Files, check: _Check
) -> None:
    """Split `group` (whose rewrite, with `kept`'s, is known to fail as `failed`) until each breaking file is alone.

    A half that passes joins `kept`; when the first half passes, the second is known to fail without running it.
    """
    if len(group) == 1:
        broken.append((group[0], failed))
        return
    middle = len(group) // 2
    left, right = group[:middle], group[middle:]
    run = _try(kept + left, files, check)
    if run.passed:
        kept += left
        _bisect(right, kept, broken, failed, files, check)
        return
    _bisect(left, kept, broken, run, files, check)
    run = _try(kept + right, files, check)
    if run.passed:
        kept += right
    else:
        _bisect(right, kept, broken, run, files, check)


def _try(paths: list[str], files: _Files, check: _Check) -> Run:
    """The check with exactly `paths` rewritten (a file that cannot be switched counts as failing)."""
    problems = files.show(set(paths))
    check.stop_if_signalled()
    if problems:
        return Run(False, "\n".join(problems), codes.problem("verify-switched"))
    return check()
