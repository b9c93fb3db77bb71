"""Which launch commands of a project name a config file, and what the script they start does with it.

A shell script, Makefile recipe, workflow step, Markdown fence, notebook `!cmd`/`%run` line or `.vscode/launch.json`
configuration running `python train.py cfg.yaml` (also after `cd DIR`, or as `$CFG`: `checkpointing_migrate.shell`)
proves the reader when that script parses the file with an `HfArgumentParser` of training arguments; `trl` is TRL's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import yaml

from checkpointing_migrate import makefile, markdown, notebook, shell, vscode, workflows, yaml_json
from checkpointing_migrate.codes import message
from checkpointing_migrate.configreaders import argument_reader, sources
from checkpointing_migrate.configreaders import consumer as python_consumer
from checkpointing_migrate.dictflow import Verdict, VerdictKind
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import FileKind, kind_of


def consumer(config: Path, old: str, options: Options) -> Verdict:
    """Who the project shows reads the top-level key `old` of `config`: its Python and its launch commands (the
    verdict kinds of `checkpointing_migrate.configreaders.consumer`)."""
    files = [s for s in sources(config.resolve().parent, config.name, options.memo) if not s.name.endswith(".py")]
    return python_consumer(config, old, options.rules, _verdicts(config, old, files, options), options.memo)


Placed = tuple[shell.Program, list[shell.Word], Path, str]
"""A launch of a launch file, placed: (program, its words, folder its script is looked up from, where it is for a
message)."""


@dataclass(eq=False)
class Launches:
    """The launches of each launch file, read the first time a file of the run asks (one per run: `Memo.once`; a
    project's configs share its files, and a later run in the same process sees the files as they are then)."""

    files: dict[Path, list[Placed]] = field(default_factory=dict)

    def of(self, path: Path, options: Options) -> list[Placed]:
        """The launches of the file `path`."""
        if path not in self.files:
            self.files[path] = _launches(path, options)
        return self.files[path]


class Run(NamedTuple):
    """A command line of a launch file, placed: the script it runs, in the folder it runs in."""

    script: Path | None
    """The script file, resolved; `None` for a program named by a shell expansion (`$PY train.py`)."""
    folder: Path
    """The folder it runs in: where the paths among its words start."""
    args: list[shell.Word]
    """The words after its entry word (the program's, for `script` `None`)."""
    where: str
    text: str
    """The script (or program) and its words as written (`train.py --x 1`), for a message."""


def runs(folder: Path, name: str, options: Options) -> list[Run]:
    """Every command line of `folder`'s project's launch files that contain the text `name`, which runs a script the
    tool finds as the flags' rule does, or a program it cannot place (read once per run: `Launches`)."""
    launches = options.memo.once(Launches, Launches)
    found = []
    for path in [s for s in sources(folder.resolve(), name, options.memo) if not s.name.endswith(".py")]:
        for program, args, base, where in launches.of(path, options):
            text = " ".join([program.name, *(w.value for w in args)])
            if program.kind == shell.ProgramKind.UNKNOWN and program.cwd is not None:
                found.append(Run(None, base / program.cwd, args, where, text))
            elif program.kind == shell.ProgramKind.SCRIPT and program.cwd is not None:
                run_from = _run_from(base, program.cwd, program.name)
                if run_from is not None:
                    script = (run_from / program.cwd / program.name).resolve()
                    found.append(Run(script, run_from / program.cwd, args, where, text))
    return found


def _verdicts(config: Path, old: str, files: list[Path], options: Options) -> list[Verdict]:
    """The verdicts of every launch command in `files` that names `config`."""
    launches = options.memo.once(Launches, Launches)
    found: list[Verdict] = []
    for path in files:
        for program, args, base, where in launches.of(path, options):
            found += _program(config, old, program, args, base, where, options)
    # A script that parses JSON and YAML alike is named by the call for this file's format.
    call = f"parse_{'json' if config.suffix.lower() == '.json' else 'yaml'}_file"
    return sorted(found, key=lambda v: call not in v.why)


def _launches(path: Path, options: Options) -> list[Placed]:
    """Each launch in the file `path` that runs on this machine in a folder the tool knows."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []  # reported when the file is checked itself
    if _kind(path) == FileKind.LAUNCH:
        return [(p, args, path.parent.parent, f"{path.name}:{_line(text, args)}") for p, args in vscode.launches(text)]
    found = []
    fixed = makefile.fixed(text) if _kind(path) == FileKind.MAKEFILE else None  # `CFG = x.yaml` then `$(CFG)`
    for code, base, cwd, each_line, label in _shell_texts(path, text):
        for program, args in shell.launches(code, options, cwd=cwd, each_line=each_line, fixed=fixed):
            if program.image is None and program.cwd is not None:
                found.append((program, args, base, f"{label}:{_line(code, args)}"))
    return found


def _shell_texts(path: Path, text: str) -> list[tuple[str, Path, str | None, bool, str]]:
    """(shell text, folder scripts are looked up from, `cd` folder, one shell per line, where it is for a message:
    the file's name or its cell) of each part of `path` that is shell; each text's lines are the file's (the cell's)."""
    kind = _kind(path)
    if kind == FileKind.SHELL:
        return [(text, path.parent, "", False, path.name)]
    if kind == FileKind.MAKEFILE:
        return [(makefile.view(text)[0], path.parent, "", True, path.name)]
    if kind == FileKind.MARKDOWN:
        view = [c if c in "\r\n" else " " for c in text]
        for piece in markdown.fences(text):
            for run in piece.runs if piece.language == FileKind.SHELL else ():
                view[run.at : run.at + run.length] = piece.text[run.start : run.start + run.length]
        return [("".join(view), path.parent, "", False, path.name)]
    if kind == FileKind.NOTEBOOK:
        texts = notebook.launch_texts(text)
        return [(code, path.parent, cwd, each, f"{path.name}:cell {cell}") for cell, code, each, cwd in texts]
    if kind == FileKind.WORKFLOW:
        try:
            documents = [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
        except yaml.YAMLError:
            return []
        root = path.parent.parent.parent  # the repository, above `.github/workflows`
        steps = [s for document in documents for s in workflows.steps(document)]
        return [
            (code, root, cwd, False, path.name)
            for node, cwd in steps
            if (code := workflows._code(text, node)) is not None
        ]
    return []


def _kind(path: Path) -> FileKind:
    """Which launch file `path` is, by the registry's names (`checkpointing_migrate.kinds`): the walk in
    `configreaders.sources` keeps only files that may be one, and one of no kind by its name (`job.slurm`) is shell."""
    return kind_of(str(path), sniff=False) or FileKind.SHELL


def _program(
    config: Path, old: str, program: shell.Program, args: list[shell.Word], base: Path, where: str, options: Options
) -> list[Verdict]:
    """The verdicts of one launch for the arguments of it that name `config`."""
    found = []
    for index, word in enumerate(args):
        flag, _, value = word.value.partition("=") if word.value.startswith("--") else ("", "", word.value)
        if not value:
            continue
        separate = not flag and index > 0 and args[index - 1].value.startswith("--")
        flag = args[index - 1].value if separate else flag
        command = " ".join(w.value for w in args[: index + 1])
        through = " and ".join(sorted({f"`${w.through}`" for w in args[: index + 1] if w.through}))
        # `CFG=x.yaml` then `$CFG`
        at = message("config-key", "at-through", where=where, through=through) if through else where
        aside = message("config-key", "aside-through", through=through) if through else ""
        run = f"{program.name} {command}"
        trl = program.kind == shell.ProgramKind.COMMAND and separate and flag == shell.CONFIG_FLAG
        if trl and _names(base / (program.cwd or ""), value, config):
            found.append(Verdict(VerdictKind.ARGS, message("config-key", "trl-config", run=run, at=at)))
        elif program.kind == shell.ProgramKind.SCRIPT and program.cwd is not None:
            folder = _run_from(base, program.cwd, program.name)
            if folder is None or not _names(folder / program.cwd, value, config):
                continue
            script = folder / program.cwd / program.name
            dests = frozenset({flag[2:].replace("-", "_")} if flag else {""})
            trl_config = separate and flag == shell.CONFIG_FLAG
            for verdict in argument_reader(script, dests, old, options.rules, trl_config=trl_config):
                why = (
                    message("config-key", "run-as", why=verdict.why, run=run, at=at)
                    if verdict.kind == VerdictKind.ARGS
                    else message("config-key", "runs", where=where, run=run, aside=aside, why=verdict.why)
                )
                found.append(Verdict(verdict.kind, why, verdict.line))
    return found


def _run_from(base: Path, cwd: str, name: str) -> Path | None:
    """The folder the command runs from, found as the flags' rule finds the script: `base` or the nearest parent, up
    to the project, where `cwd/name` is a file."""
    for folder in (base, *base.parents):
        if (folder / cwd / name).is_file():
            return folder
        if (folder / ".git").exists():
            break
    return None


def _names(folder: Path, value: str, config: Path) -> bool:
    """Whether the word `value`, a path as the command is run from `folder`, is the file `config`."""
    try:
        return (folder / value).resolve() == config.resolve()
    except (OSError, ValueError):
        return False


def _line(code: str, args: list[shell.Word]) -> int:
    return code.count("\n", 0, args[0].start) + 1 if args else 1


def analyse_yaml(text: str, options: Options, path: Path | None = None) -> list[Hit]:
    """The YAML kind's handler: `yaml_json.analyse_yaml` with each old key's readers asked (`consumer`); here, not in
    `yaml_json`, because the launch commands read Markdown, whose fences are YAML too."""
    return yaml_json.analyse_yaml(text, options, path, consumer)


def analyse_json(text: str, options: Options, path: Path | None = None) -> list[Hit]:
    """The JSON kind's handler, as `analyse_yaml`."""
    return yaml_json.analyse_json(text, options, path, consumer)
