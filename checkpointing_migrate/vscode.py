"""VS Code's `.vscode/launch.json`: the `args` of each Python configuration are the flags its `program` gets.

The file is JSON with comments and trailing commas (JSONC): those are blanked in place before parsing, so offsets
stay the file's. `${workspaceFolder}` is the folder above `.vscode`; a program named through another variable, or a
`module`, cannot be checked (an `info`). JSON strings have no comments: no suppression here, use `per-file-ignores`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from checkpointing_migrate import codes, jsonpos, shell
from checkpointing_migrate.hits import Hit, Options, planned_hit
from checkpointing_migrate.located import ParseError

_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(?=\s*[\]}])')
_PYTHON_TYPES = frozenset({"python", "debugpy"})
_WORKSPACE = "${workspaceFolder}"


def plain_json(text: str) -> str:
    """`text` with JSONC's comments and trailing commas blanked (newlines kept)."""

    def blank(match: re.Match[str]) -> str:
        found = match[0]
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    return _TRAILING_COMMA.sub(blank, _COMMENT.sub(blank, text))  # a comma may come before a comment


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in the `args` of a launch.json's Python configurations; raises `ParseError`."""
    rules = options.rules
    if rules.stem not in text:
        return []
    try:
        root = jsonpos.parse(plain_json(text))
    except ParseError as exc:
        raise ParseError(exc.offset, codes.message("file-error", "launch-json", error=str(exc))) from None
    workspace = base.parent if base is not None else None
    hits: list[Hit] = []
    for _, words, program in _python_configurations(text, root):
        for word in words:
            flag = word.value.split("=")[0]
            if flag not in rules.flags:
                if options.planned and flag in rules.planned:
                    hits.append(planned_hit(rules.planned[flag], word.start, flag))
                continue
            located = text.startswith(flag, word.start)
            hits.append(shell.flag_hit(rules.flags[flag], flag, word.start, located, program, options, workspace))
    return hits


def launches(text: str) -> list[shell.Launch]:
    """The script each Python configuration runs, as `shell.launches` gives a command's (its name relative to the
    folder it runs in, the `cwd`, where relative paths in its `args` are looked up), with `${workspaceFolder}` in the
    `args` made relative to that folder: which config file it names (`checkpointing_migrate.launchreaders`). A
    configuration whose script or folder is named through another variable is left out; bad JSON gives none."""
    try:
        root = jsonpos.parse(plain_json(text))
    except ParseError:
        return []  # reported when the file is checked itself
    found: list[shell.Launch] = []
    for configuration, words, program in _python_configurations(text, root):
        folder, named = _folder(configuration), configuration.get("program")
        absolute = isinstance(named, jsonpos.JString) and named.value.startswith("/")  # not the workspace's script
        if program.kind != shell.ProgramKind.SCRIPT or folder is None or program.cwd is None or absolute:
            continue
        workspace = os.path.relpath(".", folder) if folder else "."
        script = os.path.relpath(os.path.join(program.cwd, program.name), folder or ".")
        words = [replace(w, value=w.value.replace(_WORKSPACE, workspace)) for w in words]
        found.append((replace(program, name=script, cwd=folder), words))
    return found


def _python_configurations(
    text: str, root: jsonpos.JNode
) -> Iterator[tuple[jsonpos.JObject, list[shell.Word], shell.Program]]:
    """Each Python configuration of the parsed launch.json `root`, with its `args` words and the program it runs."""
    configurations = root.get("configurations") if isinstance(root, jsonpos.JObject) else None
    for configuration in configurations.items if isinstance(configurations, jsonpos.JArray) else ():
        if not isinstance(configuration, jsonpos.JObject):
            continue
        kind = configuration.get("type")
        if isinstance(kind, jsonpos.JString) and kind.value in _PYTHON_TYPES:
            words = _args(text, configuration.get("args"))
            yield configuration, words, _program(configuration, words)


def _folder(configuration: jsonpos.JObject) -> str | None:
    """The configuration's `cwd` relative to the workspace (`""` when it has none, VS Code's default being the
    workspace); `None` when it is named through another variable or is not under the workspace."""
    cwd = configuration.get("cwd")
    if cwd is None:
        return ""
    if not isinstance(cwd, jsonpos.JString) or cwd.value.startswith("/"):
        return None
    folder = os.path.normpath(cwd.value.removeprefix(_WORKSPACE).lstrip("/") or ".")
    return None if "${" in folder or folder.startswith("..") else "" if folder == "." else folder


def _args(text: str, args: jsonpos.JNode | None) -> list[shell.Word]:
    """The arguments as words at their characters: a list's strings, or a string's words (debugpy splits it)."""
    if isinstance(args, jsonpos.JArray):
        return [shell.Word(s.start + 1, s.end - 1, s.value) for s in args.items if isinstance(s, jsonpos.JString)]
    if isinstance(args, jsonpos.JString):
        return [
            shell.Word(args.start + 1 + m.start(), args.start + 1 + m.end(), m[0])
            for m in re.finditer(r"\S+", text[args.start + 1 : args.end - 1])
        ]
    return []


def _program(configuration: jsonpos.JObject, words: list[shell.Word]) -> shell.Program:
    """The program a configuration runs: its script relative to the workspace, else what cannot be checked."""
    present = frozenset(shell.normal(w.value.split("=")[0]) for w in words if w.value.startswith("--"))
    program, module = configuration.get("program"), configuration.get("module")
    cwd = configuration.get("cwd")
    folder = (
        ""
        if cwd is None
        else cwd.value.removeprefix(_WORKSPACE).lstrip("/")
        if isinstance(cwd, jsonpos.JString)
        else None
    )
    if isinstance(program, jsonpos.JString) and "${" not in program.value.removeprefix(_WORKSPACE):
        script = program.value.removeprefix(_WORKSPACE).lstrip("/")
        # A path under the workspace is looked up from it (the `cwd` only matters for a relative one).
        return shell.Program(
            shell.ProgramKind.SCRIPT, script, "" if program.value.startswith(_WORKSPACE) else folder, None, present
        )
    name = (
        module.value
        if isinstance(module, jsonpos.JString)
        else program.value
        if isinstance(program, jsonpos.JString)
        else "the configuration's program"
    )
    return shell.Program(shell.ProgramKind.MODULE, name, folder, None, present)
