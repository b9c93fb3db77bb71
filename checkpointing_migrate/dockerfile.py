"""Dockerfiles (`Dockerfile`, `*.Dockerfile`, `Containerfile`): the commands of `RUN`, `CMD` and `ENTRYPOINT`.

Handed to the shell rules in place: the shell form as it is, the exec form (`["python", "train.py", "--flag"]`) with
brackets and commas blanked (each JSON string a word), `ENV`/`ARG` settings as variables. Every command runs inside
the image being built, whose files the tool cannot tell are the project's: its fixes are unsafe.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate import shell
from checkpointing_migrate.hits import Hit, Options

_INSTRUCTION = re.compile(r"[ \t]*(?:RUN|CMD|ENTRYPOINT)(?:[ \t]+--[\w-]+=\S+)*[ \t]+", re.IGNORECASE)
"""An instruction whose arguments are a command (`RUN --mount=… cmd`: the options are Docker's)."""

_SETTING = re.compile(r"[ \t]*(?:ENV|ARG)[ \t]+(?=[A-Za-z_][A-Za-z0-9_]*=)", re.IGNORECASE)
"""`ENV ARGS="--flag"`, `ARG ARGS=…`: read as the shell assignment they look like (the `NAME value` form is not)."""

IMAGE = "the image this Dockerfile builds"


def view(text: str) -> str:
    """The commands of `text` as shell text of the same length, everything else blanked."""
    out: list[str] = []
    continued = False
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        instruction = None if continued else _INSTRUCTION.match(body)
        setting = None if continued else _SETTING.match(body)
        if setting is not None:
            out.append(" " * setting.end() + body[setting.end() :] + ending)
        elif continued and not body.lstrip().startswith("#"):
            out.append(_exec_form(body) + ending)
        elif instruction is not None:
            out.append(" " * instruction.end() + _exec_form(body[instruction.end() :]) + ending)
        else:
            out.append(" " * len(body) + ending)
        continued = (continued or instruction is not None) and (body.endswith("\\") or body.lstrip().startswith("#"))
    return "".join(out)


def _exec_form(text: str) -> str:
    """`text` with the JSON array's brackets and commas (outside strings) blanked; shell text is kept as it is."""
    if not text.lstrip().startswith("[") and not text.rstrip().rstrip("\\").rstrip().endswith(("]", ",", '"')):
        return text
    out, inside, i = [], False, 0
    while i < len(text):
        c = text[i]
        if inside and c == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if c == '"':
            inside = not inside
        out.append(" " if not inside and c in "[]," else c)
        i += 1
    return "".join(out)


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a Dockerfile's commands, with offsets into the file."""
    if options.rules.stem not in text:
        return []
    return shell.analyse(view(text), options, base, image=IMAGE, each_line=True)  # each instruction its own shell
