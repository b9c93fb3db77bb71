"""Shell code (scripts, notebooks, Markdown, and the launch files' commands): rename whole CLI flags of training commands.

Commands are split into words as a POSIX shell would, keeping each word's span; variables, arrays, `cd`, wrappers
(`nice -n 10`, `env -C DIR`), `bash -c`/`sbatch --wrap` strings, `eval` and `docker run` are followed. A flag is renamed
only after the training program it belongs to, so a launcher's own flags and longer flags never match.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

import yaml

from checkpointing_migrate import codes
from checkpointing_migrate.argflags import abbreviated, mentioned
from checkpointing_migrate.codes import Applicability, Severity
from checkpointing_migrate.configreaders import flag_reader
from checkpointing_migrate.dictflow import VerdictKind
from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import Hit, Options, info, planned_hit, registered, rename
from checkpointing_migrate.pylex import declared_fields
from checkpointing_migrate.rules import Rules
from checkpointing_migrate.table import Rename, field_name

_PYTHON = re.compile(r"python[\d.]*\Z")
CONFIG_FLAG = "--config"
"""The flag TRL's command line reads a YAML config from, as a word of its own followed by the path
(`TrlParser.parse_args_and_config`, `trl/scripts/utils.py:321-324` in trl-1.16.0: `--config=PATH` is not seen)."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class _Wrapper:
    """A program that runs the command after its own options and operands (`nice -n 10 python …`): the options it
    follows, so the command is found and judged as if written directly; any other option may take a value or change
    what runs (`env -S STRING`), so the command after it is not known."""

    values: frozenset[str] = frozenset()
    """Options that take a value: the next word, or attached (`-n10`, `--signal=KILL`)."""
    switches: frozenset[str] = frozenset()
    """Options without a value."""
    operands: int = 0
    """Words between the options and the command (`timeout`'s DURATION, `taskset`'s MASK)."""
    folder: frozenset[str] = frozenset()
    """Options (among `values`) whose value is the folder the command runs in (`env -C DIR`), as after `cd DIR`."""
    numeric: bool = False
    """Whether `-N` is an option (`nice -10`)."""


def _wrapper(
    values: str = "", switches: str = "", operands: int = 0, folder: str = "", numeric: bool = False
) -> _Wrapper:
    """A `_Wrapper` from its options written as in its manual, separated by spaces, so the table reads like one."""
    return _Wrapper(
        frozenset(values.split()), frozenset(switches.split()), operands, frozenset(folder.split()), numeric
    )


_WRAPPERS: dict[str, _Wrapper | None] = {
    "env": _wrapper("-u --unset -C --chdir", "- -i --ignore-environment -0 --null -v --debug", folder="-C --chdir"),
    "nohup": _wrapper(),
    "time": _wrapper("-f --format -o --output", "-p --portability -v --verbose -a --append -q --quiet"),
    "exec": _wrapper("-a", "-c -l"),
    "command": _wrapper(switches="-p"),
    "nice": _wrapper("-n --adjustment", numeric=True),
    "ionice": _wrapper("-c --class -n --classdata", "-t --ignore"),
    "timeout": _wrapper("-s --signal -k --kill-after", "-v --verbose --preserve-status --foreground", operands=1),
    "stdbuf": _wrapper("-i --input -o --output -e --error"),
    "taskset": _wrapper(switches="-c --cpu-list -a --all-tasks", operands=1),
    "numactl": _wrapper(
        "-N --cpunodebind -m --membind -C --physcpubind -p --preferred -i --interleave -P --preferred-many",
        "-l --localalloc -a --all",
    ),
    "setsid": _wrapper(switches="-c --ctty -f --fork -w --wait"),
    **dict.fromkeys(("do", "then", "else", "elif", "{", "!")),
}
"""Words before the program: wrappers (with their options), and shell keywords (`None`) that start a command in a
loop, branch or function."""

_PREFIXES = frozenset({"srun", "mpirun", "mpiexec", "uvx"})
"""Programs that run another program given later on their command line (with options of their own before it)."""
_LAUNCHERS = frozenset({"accelerate", "torchrun", "deepspeed"})
_OPTION_WITH_VALUE = frozenset({"-W", "-X", "-c"})
_LAUNCHER_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch"})
_MODULE_SWITCHES = {"deepspeed": frozenset({"--module"})}
"""A launcher's switches that make the script word after them a module (`accelerate launch -m pkg.train`,
`torchrun --module pkg.train`), where they are not `-m`/`--module` (deepspeed's runner has no `-m`)."""
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
"""Shells whose `-c STRING` is a command line of its own (`bash -c '…'`, `srun bash -lc "…"`)."""
_CONTAINERS = frozenset({"docker", "podman"})
_CONTAINER_SWITCHES = frozenset(
    {"--rm", "-i", "-t", "-it", "-ti", "-d", "--detach", "--interactive", "--tty", "--privileged", "--init", "-P"}
)
"""`docker run` options without a value; every other option before the image takes one (`-v a:b`, `--gpus all`)."""
_DECLARE = frozenset({"export", "local", "declare", "readonly", "typeset"})
_VARIABLE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")
_EXPANSION = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[@*]\])?\}|([A-Za-z_][A-Za-z0-9_]*))")
"""`$ARGS`, `${ARGS}`, `${args[@]}`: a variable expanded into a command's words."""
_PRINTERS = frozenset({"echo", "printf"})
"""Programs whose expansion of a variable only shows it: no reader of the flags."""
_SCRIPT_FOLDER = re.compile(r"\$\(dirname \$(?:0|\{?BASH_SOURCE(?:\[0\])?\}?)\)")
"""`cd "$(dirname "$0")"`: the script's own folder, where scripts are looked up from anyway."""


class ProgramKind(StrEnum):
    """What a training command runs (`Program.kind`, see `_entry`)."""

    COMMAND = "command"
    """A library's training command (`trl sft`): its parser reads the TrainingArguments flags."""
    SCRIPT = "script"
    """A Python file (`python train.py`, `accelerate launch train.py`)."""
    MODULE = "module"
    """A module (`python -m package.train`)."""
    UNKNOWN = "unknown"
    """A program named by a shell expansion (`$PY train.py`): `launches` records it with every word after it, as a
    command line that may run any script it names."""


class FlagReader(StrEnum):
    """Who reads an old flag given to a program (`Program.verdict`, see `_script_verdict`)."""

    SURE = "sure"
    """The renamed flags' parser (`HfArgumentParser`) of training arguments."""
    OWN = "own"
    """The script's own `add_argument`."""
    ABBREVIATED = "abbreviated"
    """The script's own `add_argument` of a longer option the flag abbreviates (argparse's prefix matching)."""
    TAKES_NEW = "takes-new"
    """The script's own `add_argument` of a longer option the *new* flag would abbreviate: renamed, the script takes it."""
    FIELD = "field"
    """Maybe the script's own dataclass, which declares a field of the flag's name."""
    PARSED = "parsed"
    """The script's parser is given a dataclass of the project's that declares the field."""
    UNSURE = "unsure"
    """The script's parser is given a dataclass the tool cannot read, or a library's measured to declare the field."""
    UNKNOWN = "unknown"
    """Not known."""


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    value: str
    """The word with quotes and escapes removed."""
    through: str = ""
    """The variable whose value it is, where a launch's words are expanded (`launches`); `""`: written as is."""


def commands(text: str) -> list[list[Word]]:
    """The simple commands of `text`, each as its words with their spans."""
    return [words for words, _ in parts(text) if words]


def parts(text: str) -> list[tuple[list[Word], str]]:
    """The simple commands of `text`, each with the character that ended it (`;`, `&`, `|`, `(`, `)`, a newline, or
    `""` at the end); a parenthesis ends an empty command too, so arrays and subshells can be told."""
    out: list[tuple[list[Word], str]] = []
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
            if current or c in "()":
                out.append((current, c))
                current = []
            i += 1
        elif c == "#":
            while i < n and text[i] not in "\r\n":
                i += 1
        else:
            word, i = _word(text, i)
            current.append(word)
    if current:
        out.append((current, ""))
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


def _entry(words: list[Word], commands_: frozenset[str]) -> tuple[int, ProgramKind, str] | None:
    """(index of the entry word, kind, name): kind is `command`, `script` or `module`; `None` if not training.

    `trl <subcommand>`: TRL's parser reads the TrainingArguments flags, so the rename is sure. `python script.py`,
    `accelerate launch script.py`, `torchrun`, `deepspeed`, `python -m torch.distributed.run ... script.py` (a module
    after `python -m` or a launcher's `-m`/`--module`), also behind `srun`/`mpirun`/`uv run` and inside loops,
    branches and shell functions: see `_script_verdict`. `words` start at the program (`_unwrap` skips what comes
    before it)."""
    i = 0
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
        return i + 1, ProgramKind.COMMAND, f"{program} {words[i + 1].value}"
    if program.endswith(".py"):
        return i, ProgramKind.SCRIPT, words[i].value
    if not (_PYTHON.match(program) or program in _LAUNCHERS):
        return None
    j = i + 1
    launcher = not _PYTHON.match(program)
    switches = _MODULE_SWITCHES.get(program, frozenset({"-m", "--module"}))
    while j < len(words):
        value = words[j].value
        if value in switches and j + 1 < len(words) and launcher and not words[j + 1].value.startswith("-"):
            return j + 1, ProgramKind.MODULE, words[j + 1].value  # `accelerate launch -m pkg.train`: as `python -m`
        if value in ("-m", "--module") and j + 1 < len(words) and not launcher:
            if words[j + 1].value not in _LAUNCHER_MODULES:
                return j + 1, ProgramKind.MODULE, words[j + 1].value
            j += 2  # `python -m torch.distributed.run --nproc_per_node 2 train.py`: the script comes later
            launcher = True
            continue
        if value.endswith(".py"):
            return j, ProgramKind.SCRIPT, value
        if not launcher and not value.startswith("-"):
            return None  # python runs something that is not a script file (e.g. `-` or a zip)
        j += 2 if value in _OPTION_WITH_VALUE else 1
    return None


def normal(flag: str) -> str:
    return "--" + flag[2:].replace("-", "_")


def _script_verdict(
    script: str, base: Path | None, rules: Rules, flag: str, cwd: str | None = ""
) -> tuple[FlagReader, str]:
    """`sure`, `own` (the script defines the flag), `abbreviated` (its own argparse parser takes the flag for a longer
    option it declares, by prefix matching), `field` (it declares a dataclass field of the flag's name, so its parser
    may read the flag into the script's own dataclass), `parsed` (its parser is given a dataclass of the project's
    that declares the field), `unsure` (one the tool cannot read, or a library's that declares it) or `unknown`, for a
    script path as written in a command run from `cwd` (what `cd` made of the folder the shell file is run from;
    `None`: not known); with the evidence of `parsed` and `unsure` (`dictflow.Verdict.why`), and of `abbreviated`:
    the options, separated by spaces (two or more: argparse stops on the ambiguous abbreviation).

    Sure only when the script is found next to the file (or above it, up to the project) and builds its arguments
    with the renamed flags' parser (`HfArgumentParser`) without defining the flag itself; otherwise reported as
    `info`."""
    if base is None or cwd is None:
        return FlagReader.UNKNOWN, ""
    written = os.path.join(cwd, script)
    if os.path.isabs(written) and not _in_project(Path(written), base):
        # `cd /srv/app && python train.py`: a folder of the machine it runs on, not known to be this project's
        return FlagReader.UNKNOWN, ""
    for folder in (base, *base.parents):
        path = folder / written
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return FlagReader.UNKNOWN, ""
            if re.search(rf"add_argument\([^)]*[\"']{re.escape(flag)}[\"']", text):
                return FlagReader.OWN, ""
            if longer := _abbreviated(text, flag):
                return FlagReader.ABBREVIATED, " ".join(longer)
            if flag in rules.flags and (longer := _abbreviated(text, str(rules.flags[flag].new))):
                return FlagReader.TAKES_NEW, " ".join(longer)
            if declared_fields(text, flag):
                return FlagReader.FIELD, ""
            if not any(re.search(rf"\b{p}\b", text) for p in rules.parsers):
                return FlagReader.UNKNOWN, ""
            found = flag_reader(path, field_name(flag), rules)
            by_kind = {VerdictKind.OWN: FlagReader.PARSED, VerdictKind.UNSURE: FlagReader.UNSURE}
            verdict = by_kind.get(found.kind, FlagReader.SURE)
            if verdict == FlagReader.SURE and (test := _mentioned(text, flag)) is not None:
                where, tested = f"{path.name}:{test.lineno}", ast.unparse(test)
                return FlagReader.UNSURE, codes.message("flag", "mentioned", flag=flag, where=where, test=tested)
            return verdict, found.why
        if (folder / ".git").exists():
            break
    return FlagReader.UNKNOWN, ""


def _abbreviated(text: str, flag: str) -> list[str]:
    """The script's options that argparse's prefix matching would give `flag` (`argflags.abbreviated`); the file is
    parsed only when it declares an option that starts with the flag."""
    if "add_argument" not in text or not re.search(rf"[\"']{re.escape(flag)}[\w-]", text):
        return []
    try:
        return abbreviated(ast.parse(text), flag)
    except (SyntaxError, ValueError, RecursionError):
        return []  # a script that cannot be parsed does not run: reported when it is checked itself


def _mentioned(text: str, flag: str) -> ast.expr | None:
    """The script's own test for `flag` among its words (`argflags.mentioned`): the script is a consumer of the flag
    too, so renaming it is not safe. The file is parsed only when the flag is quoted in it."""
    if not re.search(rf"[\"']{re.escape(flag)}=?[\"']", text):
        return None
    try:
        return mentioned(ast.parse(text), flag)
    except (SyntaxError, ValueError, RecursionError):
        return None  # a script that cannot be parsed does not run: reported when it is checked itself


def _in_project(path: Path, base: Path) -> bool:
    """Whether absolute `path` lies in the project `base` is in (the folder that holds `.git`, else `base`)."""
    root = next((f for f in (base, *base.parents) if (f / ".git").exists()), base)
    return os.path.normpath(path).startswith(os.path.join(os.path.abspath(root), ""))


@dataclass(frozen=True)
class Program:
    """A training program a command runs, as far as its flags' verdict goes."""

    kind: ProgramKind
    name: str
    cwd: str | None = ""
    """The folder it runs in, relative to where the shell file is run (`cd`); `None`: not known."""
    image: str | None = None
    """The container image it runs in, in words (`docker run IMAGE …`, a Dockerfile): its files are not known to be
    this project's."""
    present: frozenset[str] = frozenset()
    """Every flag the program gets (spelt `--a_b`), from its words and the variables they expand."""
    configs: tuple[str, ...] = ()
    """The config files it is given after a word `--config` (TRL's `TrlParser`), as written."""

    def verdict(self, base: Path | None, rules: Rules, flag: str) -> tuple[FlagReader, str]:
        """See `_script_verdict`."""
        if self.kind == ProgramKind.COMMAND:
            return FlagReader.SURE, ""
        if self.kind == ProgramKind.SCRIPT:
            return _script_verdict(self.name, base, rules, flag, self.cwd)
        return FlagReader.UNKNOWN, ""


def flag_hit(
    row: Rename,
    flag: str,
    start: int,
    located: bool,
    program: Program,
    options: Options,
    base: Path | None,
    through: str | None = None,
    clash: str | None = None,
) -> Hit:
    """The verdict on one old flag given to `program` (`through`: the variable that holds it; `clash`: why renaming
    it is not safe whatever the program does, as an `.args` file's flag a command line gives the script too)."""
    name = program.name
    verdict, why = program.verdict(base, options.rules, flag)
    if program.kind == ProgramKind.SCRIPT and program.cwd:
        name = os.path.join(program.cwd, name)  # `cd legacy && python train.py`: says which `train.py`
    via = f" through `${through}`" if through else ""
    if normal(row.new) in program.present:
        return registered(row, start, code="both-names", who=f"`{name}` gets", old=flag, new=row.new, to="")
    config, sets = _config_sets(row, program, base)
    if sets == field_name(str(row.new)):
        to = codes.message("flag", "in-config", config=config)
        return registered(row, start, code="both-names", who=f"`{name}` gets", old=flag, new=sets, to=to)
    if verdict == FlagReader.OWN:
        return registered(row, start, code="own-flag", form="add_argument", who=f"`{name}`", flag=flag)
    if verdict == FlagReader.ABBREVIATED:
        longer = why.split()
        if len(longer) == 1:
            return registered(row, start, code="own-flag", form="abbreviated", who=f"`{name}`", option=why, flag=flag)
        options = " and ".join(f"`{o}`" for o in longer)
        return registered(row, start, code="own-flag", form="ambiguous", who=f"`{name}`", options=options, flag=flag)
    if verdict == FlagReader.TAKES_NEW:
        options = " and ".join(f"`{o}`" for o in why.split())
        names = {"who": f"`{name}`", "options": options, "flag": flag, "new": str(row.new)}
        return registered(row, start, code="own-flag", form="takes-new", **names)
    if verdict == FlagReader.FIELD:
        return registered(
            row, start, code="own-flag", form="dataclass", who=f"`{name}`", field=field_name(flag), flag=flag
        )
    if verdict == FlagReader.PARSED:
        return registered(row, start, code="own-flag", form="parsed", who=f"`{name}`", why=why, flag=flag)
    if verdict == FlagReader.UNKNOWN or not located:
        what = codes.message("unknown-program", name=name, flag=flag)
        return info(row, start, code="unknown-program", what=what, section="config", new=row.new)
    unsafe = clash
    if unsafe is not None:
        pass  # the clash says it all
    elif program.image is not None:
        unsafe = codes.message("flag", "unsafe-image", name=name, image=program.image)
    elif config:
        form = "unsafe-unread" if sets is None else "unsafe-config"
        unsafe = codes.message("flag", form, config=config, old=field_name(flag), new=field_name(str(row.new)))
    elif verdict == FlagReader.UNSURE:
        unsafe = codes.message("flag", "unsafe-parser", name=name, why=why)
    return rename(
        row,
        start,
        (Edit(start, start + len(flag), row.new),),
        options,
        code="flag",
        what=codes.message("flag", "gets", name=name, flag=flag, via=via),
        section="config",
        unsafe=unsafe,
    )


def _configs(args: list[Word]) -> tuple[str, ...]:
    """The words after each word `--config` of a command's arguments (`Program.configs`)."""
    return tuple(args[k + 1].value for k in range(len(args) - 1) if args[k].value == CONFIG_FLAG)


def _config_sets(row: Rename, program: Program, base: Path | None) -> tuple[str, str | None]:
    """(the config file `program` is given, which of `row`'s names it sets at its top level, or `None` when it cannot
    be read), for the first given that sets one or cannot be read; `("", "")` when none does. A value from the file
    and a flag on the command line meet in one parser (`TrlParser` makes the file's keys the defaults): renamed, the
    flag is no longer the same field as the file's key, and TrainingArguments keeps the new name's value."""
    for config in program.configs:
        if base is None or program.cwd is None:
            return config, None  # run from a folder the tool does not know
        try:
            data = yaml.safe_load((base / program.cwd / config).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, TypeError):
            return config, None
        keys = data if isinstance(data, dict) else {}
        for name in (field_name(str(row.new)), field_name(str(row.old))):
            if name in keys:
                return config, name
    return "", ""


def analyse(
    text: str,
    options: Options,
    base: Path | None = None,
    *,
    defined: dict[str, list[Word]] | None = None,
    image: str | None = None,
    each_line: bool = False,
    joined: tuple[tuple[int, int], ...] = (),
    cwd: str | None = "",
    folders: tuple[tuple[int, int, str | None], ...] = (),
) -> list[Hit]:
    """Hits in shell code `text`; `base` is the folder scripts named in it are looked up from. `defined`: variables
    set outside the text (a Makefile's), as the words of their values; `image`: the container image the text runs in
    (a Dockerfile's); `each_line`: every line runs in a shell of its own (a Makefile's recipe lines), so `cd` ends
    with its line, except in the `joined` stretches (a Dockerfile heredoc's script: from its first line's start to
    its last line's); `cwd`: the folder it runs in, relative to `base` (a workflow step's `working-directory`), or,
    with `each_line`, per stretch of `folders` (start, end, folder: a Dockerfile's `WORKDIR`s)."""
    if options.rules.stem not in text and not defined:
        return []
    reader = _Reader(text, options, base, None, dict(defined or {}), Program(ProgramKind.COMMAND, "", cwd, image))
    reader.each_line, reader.joined, reader.folders = each_line, joined, folders
    return reader.run()


def launches(
    text: str,
    options: Options,
    *,
    cwd: str | None = "",
    each_line: bool = False,
    fixed: dict[str, list[Word]] | None = None,
) -> list[Launch]:
    """Every training program the commands of `text` start, with the words it is given, followed as for the flags
    (`cd`, `pushd`, `bash -c`, `sbatch --wrap`, loops) and with each variable set once in the text expanded (`CFG=x.yaml`
    then `python train.py $CFG`), and each of `fixed` (set once outside it for every line: a Makefile's `CFG = x.yaml`):
    which config file a launch names (`checkpointing_migrate.launchreaders`)."""
    reader = _Reader(text, options, None, None, dict(fixed or {}), Program(ProgramKind.COMMAND, "", cwd, None))
    reader.each_line, reader.launches = each_line, []
    reader.assigned = dict.fromkeys(fixed or {}, 1)
    reader.everywhere = frozenset(fixed or {})
    reader.run()
    return reader.launches


Launch = tuple[Program, list[Word]]
"""A training program a command starts, and the words after its entry word (its arguments)."""


class _Reader:
    """One shell text: its variables, the folder each command runs in, and the programs that read the flags."""

    def __init__(
        self,
        text: str,
        options: Options,
        base: Path | None,
        parent: _Reader | None,
        variables: dict[str, list[Word]],
        where: Program,
    ) -> None:
        self.text, self.options, self.base, self.parent = text, options, base, parent
        self.variables = variables
        """Variables set in this text: the words of their values (`A="--x 1"` gives two, an array one per item)."""
        self.uses: dict[str, list[Program | None]] = {}
        """Variable → the training programs that expand it (`None`: a command the tool cannot place)."""
        self.assigned: dict[str, int] = {}
        """Variable → how many assignments set it (`+=` counts): only one set once has a value known at every use."""
        self.everywhere: frozenset[str] = frozenset()
        """Variables set outside the text for every line of it, though each line is a shell of its own."""
        self.origin = 0
        """Where the text starts in the outermost one (a `bash -c` string's), so set-before-use can be told."""
        self.where = where
        self.each_line = False
        self.joined: tuple[tuple[int, int], ...] = ()
        self.folders: tuple[tuple[int, int, str | None], ...] = ()
        """With `each_line`: the folder a line's shell starts in, by where the line is (`analyse`'s `folders`)."""
        self.hits: list[Hit] = []
        self.launches: list[Launch] | None = None
        """Set by `launches`: every program started is recorded there, and no hit is made."""

    def run(self) -> list[Hit]:
        steps = self._assignments(parts(self.text))
        # The folder each (sub)shell is in, with its `pushd` stack: a subshell starts with a copy of both.
        cwd: list[tuple[str | None, tuple[str | None, ...]]] = [(self.where.cwd, ())]
        fresh = True  # a line's shell of its own starts with the next command
        for index, (words, separator) in enumerate(steps):
            if fresh and words and self.folders:
                cwd = [(self._folder_at(words[0].start), ())]
            fresh = fresh and not words
            here, pushed = cwd[-1]
            if words and words[0].value in ("cd", "pushd") and separator != "(":
                folder = self._cd(_unredirected(words), here, steps[index + 1 :])
                cwd[-1] = (folder, (*pushed, here) if words[0].value == "pushd" else pushed)
            elif words and words[0].value == "popd" and separator != "(":
                # `popd` goes back to the folder of the last `pushd`; with none, or `popd +N`, it is not known.
                plain = pushed and len(_unredirected(words)) == 1
                cwd[-1] = (pushed[-1], pushed[:-1]) if plain else (None, ())
            elif words:
                self._command(words, here, self.where.image)
            if separator == "(":
                cwd.append(cwd[-1])
            elif separator == ")" and len(cwd) > 1:
                cwd.pop()
            elif separator in "\r\n" and separator and self.each_line and not self._joined(words):
                cwd, fresh = [(self.where.cwd, ())], True
        if self.launches is None:
            self._variable_hits()
        return self.hits

    def _assignments(self, found: list[tuple[list[Word], str]]) -> list[tuple[list[Word], str]]:
        """The commands of the text that are not assignments; the assignments go to `variables`."""
        rest: list[tuple[list[Word], str]] = []
        i = 0
        while i < len(found):
            words, separator = found[i]
            i += 1
            names = [w for w in words if w.value not in _DECLARE and not w.value.startswith("-")]
            if not names or not all(_VARIABLE.match(w.value) for w in names):
                rest.append((words, separator))
                continue
            last = names[-1]
            for word in names:
                match = _VARIABLE.match(word.value)
                assert match is not None
                held = self.variables.setdefault(match[1], [])
                self.assigned[match[1]] = self.assigned.get(match[1], 0) + 1
                if word is last and separator == "(" and word.value == match[0]:
                    # `args=(…)`: the array's items are the words up to the closing parenthesis, across lines.
                    while i < len(found):
                        items, closing = found[i]
                        held += items
                        i += 1
                        if closing == ")":
                            break
                    separator = ""
                else:
                    held += self._split(word, match.end())
            if separator in "()":
                rest.append(([], separator))
        return rest

    def _split(self, word: Word, at: int) -> list[Word]:
        """The words the value of an assignment splits into when expanded unquoted, with their spans (`end` -1 where
        escapes hide a word's characters)."""
        raw = self.text[word.start : word.end]
        position, out = raw.find("=") + 1, []
        for token in word.value[at:].split():
            found = raw.find(token, position)
            if found < 0:
                out.append(Word(word.start, -1, token))
                continue
            out.append(Word(word.start + found, word.start + found + len(token), token))
            position = found + len(token)
        return out

    def _cd(self, words: list[Word], cwd: str | None, after: list[tuple[list[Word], str]]) -> str | None:
        """The folder after `cd DIR`, relative to where the shell file is run; `None` when it cannot be told."""
        if len(words) != 2 or cwd is None:
            return None
        target = words[1].value
        if _SCRIPT_FOLDER.fullmatch(target) or target == "$" and after and _script_folder(after[0][0]):
            return cwd
        return _folder(target, cwd)

    def _folder_at(self, offset: int) -> str | None:
        """The folder of the `folders` stretch that holds `offset` (where none does: the text's own)."""
        return next((folder for start, end, folder in self.folders if start <= offset < end), self.where.cwd)

    def _joined(self, words: list[Word]) -> bool:
        """Whether the newline after `words` is inside a `joined` stretch, so the next line runs in the same shell."""
        return bool(words) and any(start <= words[-1].end < end for start, end in self.joined)

    def _expanded(self, words: list[Word]) -> list[Word]:
        """`words` as the program gets them: each variable set once in the text expanded (`$CFG`, `"${CFG}"`,
        `--config=$CFG`, `"${args[@]}"`), its words at the word that expands it; any other stays as it is written
        (set twice, after the command, or in a text of one shell per line, its value there is not known; `"$ARGS"` of
        several words is one word)."""
        out: list[Word] = []
        for word in words:
            match = _EXPANSION.search(word.value)
            name = (match[1] or match[2]) if match else ""
            reader = self._lookup(name) if match else None
            known = reader is not None and reader.assigned.get(name) == 1
            # Where each line is a shell of its own (a recipe line, a notebook's `!` line) a value may not reach.
            if match is None or reader is None or not known or reader.each_line and name not in reader.everywhere:
                out.append(word)
                continue
            held = reader.variables[name]
            if name not in reader.everywhere and held and reader.origin + held[0].start > self.origin + word.start:
                out.append(word)  # set after the command: not yet when it runs
                continue
            raw = self.text[word.start : word.end]
            if match.span() == (0, len(word.value)) and (len(held) == 1 or not raw.startswith('"') or "[" in raw):
                out += [Word(word.start, word.end, w.value, name) for w in held]
            elif len(held) == 1:
                value = word.value[: match.start()] + held[0].value + word.value[match.end() :]
                out.append(Word(word.start, word.end, value, name))
            else:
                out.append(word)
        return out

    def _lookup(self, name: str) -> _Reader | None:
        reader: _Reader | None = self
        while reader is not None and name not in reader.variables:
            reader = reader.parent
        return reader

    def _command(self, words: list[Word], cwd: str | None, image: str | None) -> None:
        rules = self.options.rules
        stem = any(rules.stem in w.value for w in words)
        expanded = [
            (w, m[1] or m[2]) for w in words for m in _EXPANSION.finditer(w.value) if self._lookup(m[1] or m[2])
        ]
        if not stem and not expanded and self.launches is None:
            return
        stem = stem or self.launches is not None  # a launch is looked for in every command
        unwrapped = _unwrap(words)
        for word, name in expanded:
            if words.index(word) < unwrapped.start:
                self._use(name, None)  # `env -u $NAME python …`, `X=$A python …`: not the program's words
        expanded = [(w, name) for w, name in expanded if words.index(w) >= unwrapped.start]
        if unwrapped.unknown is not None:
            self._unplaced(expanded)
            if stem and self.launches is None:
                self._unknown_option(words, *unwrapped.unknown)
            return
        words = words[unwrapped.start :]
        for folder in unwrapped.folders:
            cwd = _folder(folder, cwd)
        if not words:
            return
        i = _program_at(words, rules.commands)
        program = _program_name(words[i]) if i < len(words) else ""
        handed = self._wrapped(words, i, program, stem, cwd, image)
        if handed is not None:
            self._unplaced([(w, name) for w, name in expanded if not any(w is h for h in handed)])
            return
        found = _entry(words, rules.commands)
        if found is None:
            if program not in _PRINTERS:
                self._unplaced(expanded)
            k = _expansion_program(words, rules.commands)
            if self.launches is not None and k is not None:
                self.launches.append((Program(ProgramKind.UNKNOWN, words[k].value, cwd, image), words[k + 1 :]))
            if stem and self.launches is None:
                self._unknown_program(words)
            return
        index, kind, name = found
        args = words[index + 1 :]
        target = Program(kind, name, cwd, image, self._present(words, index, expanded), _configs(args))
        if self.launches is not None:
            self.launches.append((target, self._expanded(args)))
            return
        for word, variable in expanded:
            self._use(variable, target if words.index(word) > index else None)
        if stem:
            self._flag_hits(args, target)

    def _wrapped(
        self, words: list[Word], i: int, program: str, stem: bool, cwd: str | None, image: str | None
    ) -> list[Word] | None:
        """Whether the command at `words[i]` (`program`) runs a command line of its own, checked here (a shell's `-c`
        string, `sbatch --wrap`'s, the words `eval` joins, what `docker run IMAGE` runs): `None` if not, else the words
        given to it, whose expansions it records (`eval` reads its words only up to its first expansion); the caller
        records the other words' as read by no program the tool knows."""
        if stem and program in _SHELLS:
            option = next(
                (k for k in range(i + 1, len(words)) if re.fullmatch(r"-[a-z]*c[a-z]*", words[k].value)), None
            )
            if option is not None and option + 1 < len(words):
                self._inner([words[option + 1]], 0, cwd, image)
                return [words[option + 1]]
            return []
        if stem and program == "sbatch":
            handed = []
            for k in range(i + 1, len(words)):
                if words[k].value == "--wrap" and k + 1 < len(words):
                    self._inner([words[k + 1]], 0, cwd, image)
                    handed.append(words[k + 1])
                elif words[k].value.startswith("--wrap="):
                    self._inner([words[k]], len("--wrap="), cwd, image)
                    handed.append(words[k])
            return handed
        if stem and program == "eval":
            read = self._inner(words[i + 1 :], 0, cwd, image, evaluated=True) if i + 1 < len(words) else 0
            return words[i + 1 : i + 1 + read]
        if program in _CONTAINERS and i + 1 < len(words) and words[i + 1].value in ("run", "exec"):
            j = i + 2
            while j < len(words) and words[j].value.startswith("-"):
                j += 1 if "=" in words[j].value or words[j].value in _CONTAINER_SWITCHES else 2
            if j + 1 < len(words):
                self._command(words[j + 1 :], cwd, codes.shared("container-image", image=words[j].value))
            return words[j + 1 :]
        return None

    def _present(self, words: list[Word], index: int, expanded: list[tuple[Word, str]]) -> frozenset[str]:
        """Every flag the program entered at `words[index]` gets (spelt `--a_b`): its words', and those of the
        variables expanded after its entry word."""
        present = {normal(w.value.split("=")[0]) for w in words[index + 1 :] if w.value.startswith("--")}
        for word, variable in expanded:
            reader = self._lookup(variable)
            if reader is not None and words.index(word) > index:
                present |= {
                    normal(t.value.split("=")[0]) for t in reader.variables[variable] if t.value.startswith("--")
                }
        return frozenset(present)

    def _flag_hits(self, args: list[Word], target: Program) -> None:
        """The hits for the old flags (and, asked for, the planned ones) among the words `target` is given."""
        rules = self.options.rules
        for word in args:
            flag = word.value.split("=")[0]
            raw = self.text[word.start : word.end]
            offset = raw.find(flag)
            start = word.start + max(offset, 0)
            if flag not in rules.flags:
                if self.options.planned and flag in rules.planned:
                    self.hits.append(planned_hit(rules.planned[flag], start, flag))
                continue
            self.hits.append(flag_hit(rules.flags[flag], flag, start, offset >= 0, target, self.options, self.base))

    def _unknown_program(self, words: list[Word]) -> None:
        """An old flag given to a program named by a shell expansion (`$CMD --x`, `python $s --x` in a loop,
        `python "$@" --x` in a function): not rewritten, but reported where it is, with why."""
        k = _expansion_program(words, self.options.rules.commands)
        if k is not None:
            self._unknown_flags(words[k + 1 :], "variable", {"name": self.text[words[k].start : words[k].end]})

    def _unknown_option(self, words: list[Word], wrapper: int, option: int) -> None:
        """The old flags after an option of a wrapper's the tool does not follow (`env -S '…'`, `nice --foo`): it may
        take the next word or change what runs, so no program is known to get them; reported, never rewritten."""
        names = {"wrapper": words[wrapper].value, "option": self.text[words[option].start : words[option].end]}
        self._unknown_flags(words[option + 1 :], "wrapper-option", names)

    def _unknown_flags(
        self, words: list[Word], form: str, names: dict[str, str], where: tuple[str, Callable[[int], int]] | None = None
    ) -> None:
        """An `unknown-program` info (its message `form`, with `names`) at each old flag among `words`, whose spans are
        in this text, or in the text of `where`, which its function places in this one (`eval`'s command line)."""
        text, place = where or (self.text, lambda position: position)
        rules = self.options.rules
        for word in words:
            flag = word.value.split("=")[0]
            if flag in rules.flags:
                row = rules.flags[flag]
                start = place(word.start + max(text[word.start : word.end].find(flag), 0))
                what = codes.message("unknown-program", form, flag=flag, **names)
                self.hits.append(info(row, start, code="unknown-program", what=what, section="config", new=row.new))

    def _unplaced(self, expanded: list[tuple[Word, str]]) -> None:
        """Record each variable of `expanded` as read by a command the tool cannot place (`$ARGS` after `nice --foo`),
        so a fix of a flag it holds is never safe."""
        for _, name in expanded:
            self._use(name, None)

    def _use(self, variable: str, program: Program | None) -> None:
        reader = self._lookup(variable)
        if reader is not None:
            reader.uses.setdefault(variable, []).append(program)

    def _inner(
        self, words: list[Word], skip: int, cwd: str | None, image: str | None, *, evaluated: bool = False
    ) -> int:
        """The command line in strings (`bash -c '…'`, `sbatch --wrap "…"`, the words `eval` joins with spaces; `skip`:
        the characters of the first word before it), checked where it is written; how many of `words` it reads. With
        `evaluated` the outer shell expands the strings first and the command line is read from the result, so from
        the word that holds its first expansion on what it runs is not known (`_unknown_tail`), and its words are not
        read here: their expansions are the caller's to record."""
        joined = _mapped(self.text, words, skip) or _unmapped(words, skip)
        cut = _word_start(joined.code, joined.expansion) if evaluated else len(joined.code)
        inner = self._nested(joined.code[:cut], cwd, image, self.origin + joined.spans[0][1])
        self.hits += [joined.placed(hit) for hit in inner.run()]
        self._unknown_tail(joined, cut)
        return joined.before(cut)

    def _nested(self, code: str, cwd: str | None, image: str | None, origin: int) -> _Reader:
        """A reader of the command line `code` found in this text at `origin`, with this text's variables."""
        inner = _Reader(code, self.options, self.base, self, {}, Program(ProgramKind.COMMAND, "", cwd, image))
        inner.launches, inner.origin = self.launches, origin
        return inner

    def _unknown_tail(self, joined: _Joined, cut: int) -> None:
        """The old flags of the command line `eval` runs from the word that holds its first expansion on
        (`joined.code[cut:]`): the shell reads the expanded value as code, which may start another command or a
        comment, so no program is known to get them."""
        code, at = joined.code, joined.expansion
        if cut >= len(code) or self.launches is not None:
            return
        name = _EXPANDED.match(code, at)
        tail = [word for words in commands(code[cut:]) for word in words]
        where = (code[cut:], lambda position: joined.place(cut + position))
        self._unknown_flags(tail, "evaluated", {"name": name[0] if name else code[at]}, where)

    def _variable_hits(self) -> None:
        rules = self.options.rules
        for variable, held in self.variables.items():
            programs = self.uses.get(variable, [])
            for token in held:
                flag = token.value.split("=")[0]
                raw = self.text[token.start : token.end] if token.end >= 0 else ""
                offset = raw.find(flag)
                start = token.start + max(offset, 0)
                if flag not in rules.flags:
                    if self.options.planned and flag in rules.planned:
                        self.hits.append(planned_hit(rules.planned[flag], start, flag))
                    continue
                row = rules.flags[flag]
                known = [p for p in programs if p is not None]
                if not programs or len(known) < len(programs):
                    where = codes.message("flag", "unexpanded" if not programs else "also-expanded")
                    unsafe = codes.message("flag", "unsafe-variable", variable=variable, where=where, flag=flag)
                    what = codes.message("flag", "variable", variable=variable, flag=flag)
                    if offset < 0:
                        hit = info(
                            row,
                            start,
                            code="unknown-program",
                            what=codes.message("unknown-program", "escaped", subject=what),
                            section="config",
                            new=row.new,
                        )
                    else:
                        hit = rename(
                            row,
                            start,
                            (Edit(start, start + len(flag), row.new),),
                            self.options,
                            code="flag",
                            what=what,
                            section="config",
                            unsafe=unsafe,
                        )
                    self.hits.append(hit)
                    continue
                verdicts = [
                    flag_hit(row, flag, start, offset >= 0, p, self.options, self.base, variable) for p in known
                ]
                # The least sure verdict of every program that reads it: a hazard, then an info, then an unsafe fix.
                rank = {Severity.HAZARD: 0, Severity.INFO: 1, Severity.FIX: 2}
                self.hits.append(
                    min(verdicts, key=lambda h: (rank[h.severity], h.applicability != Applicability.UNSAFE))
                )


_BY_HAND = {
    "severity": Severity.INFO,
    "applicability": Applicability.NONE,
    "why": codes.message("flag", "by-hand"),
}
"""What a fix inside a string whose quoting does not map one to one becomes (reported at the string)."""


class _Joined(NamedTuple):
    """The command line strings hold (`bash -c '…'`, the words `eval` joins with spaces), mapped back to the text."""

    code: str
    spans: tuple[tuple[int, int], ...]
    """Where each word's part starts: (in `code`, in the text)."""
    expansion: int
    """Where the outer shell's first expansion is in `code` (`len(code)`: none)."""
    exact: bool
    """Whether `code`'s characters are the text's one to one; if not, every position is the first word's."""

    def place(self, position: int) -> int:
        """Where `position` of `code` is in the text."""
        if not self.exact:
            return self.spans[0][1]
        held, at = next(s for s in reversed(self.spans) if s[0] <= position)
        return at + position - held

    def before(self, cut: int) -> int:
        """How many words end before position `cut` of `code`."""
        ends = [start - 1 for start, _ in self.spans[1:]] + [len(self.code)]
        return sum(1 for end in ends if end <= cut)

    def placed(self, hit: Hit) -> Hit:
        """A hit of the command line, placed in the text; where the quoting does not map one to one, its fix is
        reported at the string, to make by hand."""
        if not self.exact:
            plain = hit.severity != Severity.FIX
            return replace(hit, start=self.place(hit.start), edits=(), **({} if plain else _BY_HAND))
        edits = tuple(Edit(self.place(e.start), self.place(e.start) + e.end - e.start, e.new) for e in hit.edits)
        return replace(hit, start=self.place(hit.start), edits=edits)


def _mapped(text: str, words: list[Word], skip: int) -> _Joined | None:
    """The command line `words` of `text` join into (`skip`: the characters of the first word before it), where each
    is quoted whole or not at all, so its characters map one to one; `None` otherwise."""
    pieces = [_literal(text[w.start + (skip if k == 0 else 0) : w.end]) for k, w in enumerate(words)]
    spans: list[tuple[int, int]] = []
    code, expansion = "", sys.maxsize
    for k, (word, piece) in enumerate(zip(words, pieces, strict=True)):
        if piece is None:
            return None
        value, quote = piece
        code += " " if k else ""
        spans.append((len(code), word.start + (skip if k == 0 else 0) + len(quote)))
        if expansion == sys.maxsize and (found := _first_expansion(value, quote)) < len(value):
            expansion = len(code) + found
        code += value
    return _Joined(code, tuple(spans), min(expansion, len(code)), exact=True)


def _unmapped(words: list[Word], skip: int) -> _Joined:
    """The command line `words` join into, their values without their quotes, all placed at the first word."""
    values = [w.value[skip if k == 0 else 0 :] for k, w in enumerate(words)]
    code = " ".join(values)
    starts = [sum(len(v) + 1 for v in values[:k]) for k in range(len(values))]
    return _Joined(code, tuple((start, words[0].start) for start in starts), _first_expansion(code), exact=False)


def _word_start(code: str, position: int) -> int:
    """Where the word of `code` (split as the shell does) that holds `position` starts: `eval` reads a word with an
    expansion in it (`--flag$SUFFIX`) only once it is expanded, so none of it is a flag as written; `position` where
    no word holds it (the end, a comment)."""
    return next((w.start for words, _ in parts(code) for w in words if w.start <= position < w.end), position)


def _folder(target: str, cwd: str | None) -> str | None:
    """The folder `target` names from `cwd` (`cd DIR`, `env -C DIR`); `None` when it cannot be told."""
    if cwd is None or any(c in target for c in "$`~*?") or target == "-":
        return None
    return os.path.normpath(os.path.join(cwd, target))


def _literal(raw: str) -> tuple[str, str] | None:
    """The text a word written as `raw` holds and its quote (`""`: unquoted), where its characters are the text's one
    to one (a word quoted whole, or not at all, without escapes); `None` otherwise."""
    quote = raw[:1] if raw[:1] in "'\"" else ""
    code = raw[len(quote) : len(raw) - len(quote)] if quote and raw.endswith(quote) and len(raw) > 1 else raw
    return (code, quote) if _one_to_one(code, quote) else None


_EXPANDED = re.compile(r"\$\{[^}]*\}?|\$\([^)]*\)?|\$\w+|`[^`]*`?|\$.?")
"""An expansion as written at its `$` or backtick (`$CMD`, `${X}`, `$(cmd)`, `` `cmd` ``): what a message names."""


def _first_expansion(code: str, quote: str = "") -> int:
    """Where the first expansion of `code` is (`len(code)` where none is): a `$` or a backtick, unless the text was
    written in single quotes (`quote`), where the outer shell expands neither."""
    if quote == "'":
        return len(code)
    return min((i for i in (code.find("$"), code.find("`")) if i >= 0), default=len(code))


def _one_to_one(code: str, quote: str) -> bool:
    """Whether the characters of a string written between `quote`s (`""`: unquoted) are its value's, one to one."""
    if quote == "'":
        return "'" not in code
    if quote == '"':
        return '"' not in code and "\\" not in code
    return not any(c in code for c in "'\"\\")


def _unredirected(words: list[Word]) -> list[Word]:
    """`words` without their redirections (`pushd legacy > /dev/null`, `popd >/dev/null`)."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif re.match(r"\d*(?:[<>]|&>)", word.value):
            skip = re.fullmatch(r"\d*(?:[<>]+|&>+)", word.value) is not None  # the target is the next word
        else:
            out.append(word)
    return out


class _Unwrapped(NamedTuple):
    """A command's words before its program, as `_unwrap` reads them."""

    start: int
    """Index of the command's first word after its assignments and wrappers."""
    folders: tuple[str, ...]
    """The folders wrappers run it in (`env -C DIR`), each relative to the one before."""
    unknown: tuple[int, int] | None
    """Indices of a wrapper and of an option of its the tool does not follow: what runs after it is not known."""


def _unwrap(words: list[Word]) -> _Unwrapped:
    """Skip a command's assignments, shell keywords and wrappers with their options (`_WRAPPERS`), so what they run
    is judged like the same command written directly."""
    i, folders = 0, []
    while i < len(words):
        if _ASSIGNMENT.match(words[i].value):
            i += 1
            continue
        name = _program_name(words[i])
        if name not in _WRAPPERS:
            break
        wrapper, at = _WRAPPERS[name], i
        i += 1
        while wrapper is not None and i < len(words) and words[i].value.startswith("-"):
            value = words[i].value
            if value == "--":
                i += 1
                break
            option, eq, attached = value.partition("=") if value.startswith("--") else (value, "", "")
            if option not in wrapper.values and not value.startswith("--") and value[:2] in wrapper.values:
                option, eq, attached = value[:2], "=", value[2:]  # `-n10`, `-oL`, `-sKILL`
            if option in wrapper.values:
                given = attached if eq else words[i + 1].value if i + 1 < len(words) else ""
                folders += [given] if option in wrapper.folder else []
                i += 1 if eq else 2
            elif option in wrapper.switches and not eq or wrapper.numeric and re.fullmatch(r"-\d+", value):
                i += 1
            else:
                return _Unwrapped(i, tuple(folders), (at, i))
        i += wrapper.operands if wrapper is not None else 0
    return _Unwrapped(i, tuple(folders), None)


def _program_at(words: list[Word], commands_: frozenset[str]) -> int:
    """Index of a command's program word (`words` start after its assignments and wrappers, see `_unwrap`): behind a
    prefix (`srun`), a shell or a container runner it starts before the training program, else the prefix itself."""
    i = 0
    if i < len(words) and words[i].value in _PREFIXES:
        j = next((j for j in range(i + 1, len(words)) if _runs(words[j].value, commands_)), len(words))
        k = next((k for k in range(i + 1, j) if _program_name(words[k]) in _SHELLS | _CONTAINERS), None)
        i = k if k is not None else i
    return i


def _expansion_program(words: list[Word], commands_: frozenset[str]) -> int | None:
    """Index of the word naming the program a command runs when it is a shell expansion (`$CMD`, `python $s`,
    `python "$@"`, `srun $CMD`, `torchrun $s`), which `_entry` cannot place; `None` for any other command."""
    i = 0
    if i < len(words) and (words[i].value in _PREFIXES or words[i].value == "uv"):
        i += 1
        while i < len(words) and "$" not in words[i].value and not _runs(words[i].value, commands_):
            i += 1
    if i >= len(words) or "$" in words[i].value:
        return i if i < len(words) else None
    program = _program_name(words[i])
    if not (_PYTHON.match(program) or program in _LAUNCHERS):
        return None
    previous = ""
    for j in range(i + 1, len(words)):
        value = words[j].value
        takes = previous in _OPTION_WITH_VALUE or previous.startswith("-") and program in _LAUNCHERS
        if "$" in value and not value.startswith("-") and not (takes and "=" not in previous):
            return j
        if _PYTHON.match(program) and not value.startswith("-") and previous not in _OPTION_WITH_VALUE:
            return None  # python runs something named as written (`-`, a zip): `_entry` has judged it
        previous = value
    return None


def _program_name(word: Word) -> str:
    return word.value.rsplit("/", 1)[-1]


def _script_folder(words: list[Word]) -> bool:
    """Whether `words` is `dirname $0` (what `$(…)` splits into when unquoted)."""
    return [w.value for w in words] in (["dirname", "$0"], ["dirname", "${BASH_SOURCE[0]}"])
