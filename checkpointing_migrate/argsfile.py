"""`.args` files: the flags `HfArgumentParser.parse_args_into_dataclasses` reads before the command line's.

Read for `train.py` as `train.args` (by default), `args_filename=`, or after its `args_file_flag=` on a command line;
its words are the script's flags, judged by the shell's rule (`shell.flag_hit`), and one a command line of the script
gives too (or may: `"$@"`) is no safe fix: the last old name wins now, the new name after. Unread, no finding.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from checkpointing_migrate import codes, launchreaders, shell
from checkpointing_migrate.configreaders import sources
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.launchreaders import Run
from checkpointing_migrate.table import Rename

_PARSE = "parse_args_into_dataclasses"
"""The `HfArgumentParser` method that reads an `.args` file (transformers 5.23 `hf_argparser.py:309-315`)."""
_FLAG_OPTION = re.compile(r"args_file_flag\s*=\s*[\"'](-[^\"']+)[\"']")


def analyse(text: str, options: Options, path: Path | None = None) -> list[Hit]:
    """Hits for the old flags among the words of the `.args` file at `path`, given to the script that reads it."""
    rules = options.rules
    if path is None or rules.stem not in text:
        return []
    found = _reader(path, options)
    if found is None:
        return []
    script, given = found
    words = [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
    present = frozenset(shell.normal(w.split("=")[0]) for _, w in words if w.startswith("--"))
    name = os.path.relpath(script, path.resolve().parent)
    program = shell.Program(shell.ProgramKind.SCRIPT, name, "", None, present)
    return [
        shell.flag_hit(row, flag, start, True, program, options, path.parent, clash=_clash(flag, row, given))
        for start, word in words
        if (row := rules.flags.get(flag := word.split("=")[0])) is not None
    ]


def _reader(path: Path, options: Options) -> tuple[Path, list[Run]] | None:
    """The script that reads `path`, and the project's command lines that give it the file: `X.py` next to `X.args`
    when it calls `parse_args_into_dataclasses` without `look_for_args_file=False`, one next to it that names the file
    in `args_filename=` (both: every command line of the script), else one a command line gives the file after the
    script's `args_file_flag=` (those command lines)."""
    here = path.resolve().parent
    own = path.with_suffix(".py")
    named = [s for s in sources(here, path.name, options.memo) if s.suffix == ".py"]
    for script in [own, *named]:
        code = _code(script)
        if code is None or _PARSE not in code or script.resolve().parent != here:
            continue
        by_name = re.search(rf"args_filename\s*=\s*[\"']{re.escape(path.name)}[\"']", code)
        if by_name or script == own and not re.search(r"look_for_args_file\s*=\s*False", code):
            target = script.resolve()
            runs = launchreaders.runs(here, script.name, options)
            return target, [r for r in runs if r.script == target or r.script is None and _names_script(r, script)]
    flagged = [(r, f) for r in launchreaders.runs(here, path.name, options) if (f := _flag_of(r.script)) is not None]
    given = [r for r, flag in flagged if _gives(r, flag, path)]
    if not given:
        return None
    script = given[0].script
    assert script is not None  # `_flag_of` read it
    return script, [r for r in given if r.script == script]


def _code(script: Path) -> str | None:
    try:
        return script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _flag_of(script: Path | None) -> str | None:
    """The `args_file_flag=` of the `parse_args_into_dataclasses` call of `script`, if it has one."""
    code = _code(script) if script is not None else None
    found = _FLAG_OPTION.search(code) if code is not None and _PARSE in code else None
    return found[1] if found else None


def _gives(run: Run, flag: str, path: Path) -> bool:
    """Whether the command line `run` gives its script the file `path` after `flag` (`--args_file x.args`, or
    `--args_file=x.args`)."""
    for k, word in enumerate(run.args):
        if word.value.startswith(f"{flag}="):
            value = word.value[len(flag) + 1 :]
        elif word.value == flag and k + 1 < len(run.args):
            value = run.args[k + 1].value
        else:
            continue
        if (run.folder / value).resolve() == path.resolve():
            return True
    return False


def _names_script(run: Run, script: Path) -> bool:
    """Whether a command line of a program the tool cannot place (`$PY train.py`) names `script` among its words."""
    return any(w.value.rsplit("/", 1)[-1] == script.name for w in run.args)


def _clash(flag: str, row: Rename, given: list[Run]) -> str | None:
    """Why renaming the file's `flag` is not safe: a command line that gives the script the file gives the old or the
    new flag too (the file's flags come first: the last old one wins, and the new name beats the old), or words the
    tool cannot read (`"$@"`, a program it cannot place)."""
    names = {shell.normal(flag), shell.normal(str(row.new))}
    for run in given:
        flags = {w.value.split("=")[0] for w in run.args if w.value.startswith("--")}
        if both := sorted(f for f in flags if shell.normal(f) in names):
            also = " and ".join(f"`{f}`" for f in both)
            return codes.message("flag", "args-file-clash", where=run.where, run=run.text, given=also)
        if run.script is None or any("$" in w.value for w in run.args):
            return codes.message("flag", "args-file-unknown", where=run.where, run=run.text, flag=flag, new=row.new)
    return None
