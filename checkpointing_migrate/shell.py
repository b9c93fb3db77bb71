"""Shell scripts (and shell code in notebooks and Markdown): rename whole CLI flags of training commands.

A command is split into words the way a POSIX shell would (quotes, backslash-newline, comments, `;`, `&&`, `|`), keeping
each word's span. A flag is renamed only after the training program it belongs to, so flags of the launcher itself
(`accelerate launch --fsdp_activation_checkpointing`) and longer flags (`--gradient_checkpointing_steps`) never match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import Hit, Options, info, planned_hit, registered, rename
from checkpointing_migrate.pylex import declared_fields
from checkpointing_migrate.table import field_name

_PYTHON = re.compile(r"python[\d.]*\Z")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = frozenset({"env", "nohup", "time", "exec", "command", "do", "then", "else", "elif", "{", "!"})
"""Words before the program: wrappers, and shell keywords that start a command in a loop, branch or function."""
_PREFIXES = frozenset({"srun", "mpirun", "mpiexec", "uvx"})
"""Programs that run another program given later on their command line (with options of their own before it)."""
_LAUNCHERS = frozenset({"accelerate", "torchrun", "deepspeed"})
_OPTION_WITH_VALUE = frozenset({"-W", "-X", "-c"})
_LAUNCHER_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch"})


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    value: str
    """The word with quotes and escapes removed."""


def commands(text: str) -> list[list[Word]]:
    """The simple commands of `text`, each as its words with their spans."""
    out: list[list[Word]] = []
    current: list[Word] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and text.startswith("\n", i + 1):
            i += 2
        elif c == "\\" and text.startswith("\r\n", i + 1):
            i += 3
        elif c in " \t":
            i += 1
        elif c in "\r\n;&|()":
            if current:
                out.append(current)
                current = []
            i += 1
        elif c == "#":
            while i < n and text[i] not in "\r\n":
                i += 1
        else:
            word, i = _word(text, i)
            current.append(word)
    if current:
        out.append(current)
    return out


def _word(text: str, i: int) -> tuple[Word, int]:
    start, value, n = i, [], len(text)
    while i < n and text[i] not in " \t\r\n;&|()":
        c = text[i]
        if c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            value.append(text[i + 1 : end])
            i = end + 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`':
                    i += 1
                value.append(text[i])
                i += 1
            i += 1
        elif c == "\\" and i + 1 < n:
            if text[i + 1] in "\r\n":
                break
            value.append(text[i + 1])
            i += 2
        else:
            value.append(c)
            i += 1
    return Word(start, min(i, n), "".join(value)), min(i, n)


def _runs(value: str, commands_: frozenset[str]) -> bool:
    """Whether a word is a program that runs training code (a script, Python, a launcher, a training command)."""
    program = value.rsplit("/", 1)[-1]
    return program.endswith(".py") or bool(_PYTHON.match(program)) or program in _LAUNCHERS or program in commands_


def _entry(words: list[Word], commands_: frozenset[str]) -> tuple[int, str, str] | None:
    """(index of the entry word, kind, name): kind is `command`, `script` or `module`; `None` if not training.

    `trl <subcommand>`: TRL's parser reads the TrainingArguments flags, so the rename is sure. `python script.py`,
    `accelerate launch script.py`, `torchrun`, `deepspeed`, `python -m torch.distributed.run ... script.py`, also
    behind `srun`/`mpirun`/`uv run` and inside loops, branches and shell functions: see `_script_verdict`."""
    i = 0
    while i < len(words) and (_ASSIGNMENT.match(words[i].value) or words[i].value in _WRAPPERS):
        i += 1
    if i < len(words) and (
        words[i].value in _PREFIXES or words[i].value == "uv" and i + 1 < len(words) and words[i + 1].value == "run"
    ):
        # `srun -N 2 python ...`, `uv run --with x train.py ...`: what the prefix runs is the first program word.
        i += 1
        while i < len(words) and not _runs(words[i].value, commands_):
            i += 1
    if i >= len(words):
        return None
    program = words[i].value.rsplit("/", 1)[-1]
    if program in commands_ and i + 1 < len(words):
        return i + 1, "command", f"{program} {words[i + 1].value}"
    if program.endswith(".py"):
        return i, "script", words[i].value
    if not (_PYTHON.match(program) or program in _LAUNCHERS):
        return None
    j = i + 1
    launcher = not _PYTHON.match(program)
    while j < len(words):
        value = words[j].value
        if value in ("-m", "--module") and j + 1 < len(words) and not launcher:
            if words[j + 1].value not in _LAUNCHER_MODULES:
                return j + 1, "module", words[j + 1].value
            j += 2  # `python -m torch.distributed.run --nproc_per_node 2 train.py`: the script comes later
            launcher = True
            continue
        if value.endswith(".py"):
            return j, "script", value
        if not launcher and not value.startswith("-"):
            return None  # python runs something that is not a script file (e.g. `-` or a zip)
        j += 2 if value in _OPTION_WITH_VALUE else 1
    return None


def _normal(flag: str) -> str:
    return "--" + flag[2:].replace("-", "_")


def _script_verdict(script: str, base: Path | None, parsers: frozenset[str], flag: str) -> str:
    """`sure`, `own` (the script defines the flag), `field` (it declares a dataclass field of the flag's name, so its
    parser may read the flag into the script's own dataclass) or `unknown`, for a script path as written in a command.

    Sure only when the script is found next to the file (or above it, up to the project) and builds its arguments
    with the renamed flags' parser (`HfArgumentParser`) without defining the flag itself; otherwise reported as
    `info`."""
    if base is None:
        return "unknown"
    for folder in (base, *base.parents):
        path = folder / script
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return "unknown"
            if re.search(rf"add_argument\([^)]*[\"']{re.escape(flag)}[\"']", text):
                return "own"
            if declared_fields(text, flag):
                return "field"
            return "sure" if any(re.search(rf"\b{p}\b", text) for p in parsers) else "unknown"
        if (folder / ".git").exists():
            break
    return "unknown"


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in shell code `text`; `base` is the folder scripts named in it are looked up from."""
    rules = options.rules
    if rules.stem not in text:
        return []
    hits: list[Hit] = []
    for words in commands(text):
        if not any(rules.stem in w.value for w in words) or (found := _entry(words, rules.commands)) is None:
            continue
        index, kind, name = found
        args = words[index + 1 :]
        present = {_normal(w.value.split("=")[0]) for w in args if w.value.startswith("--")}
        for word in args:
            flag = word.value.split("=")[0]
            raw = text[word.start : word.end]
            offset = raw.find(flag)
            start = word.start + max(offset, 0)
            if flag not in rules.flags:
                if options.planned and flag in rules.planned:
                    hits.append(planned_hit(rules.planned[flag], start, flag))
                continue
            row = rules.flags[flag]
            verdict = (
                "sure"
                if kind == "command"
                else _script_verdict(name, base, rules.parsers, flag)
                if kind == "script"
                else "unknown"
            )
            if _normal(row.new) in present:
                hits.append(
                    registered(row, start, code="both-names", who=f"`{name}` gets", old=flag, new=row.new, to="")
                )
            elif verdict == "own":
                hits.append(registered(row, start, code="own-flag", form="add_argument", who=f"`{name}`", flag=flag))
            elif verdict == "field":
                what = f"`{name}` declares its own dataclass field `{field_name(flag)}`: its HfArgumentParser may read `{flag}` into that dataclass, not TrainingArguments (renaming it would be refused as an unused argument), so it is not rewritten"
                hits.append(info(row, start, code="own-flag", what=what, section="config"))
            elif verdict == "unknown" or offset < 0:
                what = f"cannot tell whether `{name}` reads `{flag}` with HfArgumentParser (it was not found from here, or does not use it): rename it by hand if it does"
                hits.append(info(row, start, code="unknown-program", what=what, section="config", new=row.new))
            else:
                hits.append(
                    rename(
                        row,
                        start,
                        (Edit(start, start + len(flag), row.new),),
                        options,
                        code="flag",
                        what=f"`{name}` gets the flag `{flag}`",
                        section="config",
                    )
                )
    return hits
