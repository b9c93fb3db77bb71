"""Dockerfiles (`Dockerfile`, `*.Dockerfile`, `Containerfile`): the commands of `RUN`, `CMD` and `ENTRYPOINT`.

Read as shell in place: the shell form as is, the exec form (`["python", "train.py", "--flag"]`) with its brackets and
commas blanked, `ENV`/`ARG NAME=…` as variables, a heredoc that is shell (`RUN <<EOF`, `RUN <<-EOT bash`, `COPY <<EOF
train.sh`) as one script. It all runs inside the image, whose files may not be the project's: its fixes are unsafe.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate import shell
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import kind_of, shebang_kind

_INSTRUCTION = re.compile(r"[ \t]*(?:RUN|CMD|ENTRYPOINT)(?:[ \t]+--[\w-]+=\S+)*[ \t]+", re.IGNORECASE)
"""An instruction whose arguments are a command (`RUN --mount=… cmd`: the options are Docker's)."""

_SETTING = re.compile(r"[ \t]*(?:ENV|ARG)[ \t]+(?=[A-Za-z_][A-Za-z0-9_]*=)", re.IGNORECASE)
"""`ENV ARGS="--flag"`, `ARG ARGS=…`: read as the shell assignment they look like (the `NAME value` form is not)."""

_COPY = re.compile(r"[ \t]*(?:COPY|ADD)(?:[ \t]+--[\w-]+=\S+)*[ \t]+(?=<<)", re.IGNORECASE)
"""`COPY <<EOF /app/train.sh`: the heredoc is the text of the file it names."""
_HEREDOC = re.compile(r"<<(?P<strip>-?)(?P<quote>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)")
"""`<<EOF`, `<<-EOT` (the closing line may be indented with tabs), `<<"EOF"`: BuildKit's heredocs."""
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})

IMAGE = "the image this Dockerfile builds"


def view(text: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The commands of `text` as shell text of the same length, everything else blanked, and the heredocs that are
    one script each (`shell.analyse`'s `joined` stretches)."""
    out: list[str] = []
    joined: list[tuple[int, int]] = []
    continued = False
    lines = text.splitlines(keepends=True)
    i, offset = 0, 0
    while i < len(lines):
        line = lines[i]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        instruction = None if continued else _INSTRUCTION.match(body)
        setting = None if continued else _SETTING.match(body)
        copy = None if continued else _COPY.match(body)
        heredocs = list(_HEREDOC.finditer(body)) if instruction is not None or copy is not None else []
        if setting is not None:
            out.append(" " * setting.end() + body[setting.end() :] + ending)
        elif heredocs:
            # The instruction line keeps its command (`bash` of `RUN <<EOF bash`), not its heredoc markers.
            kept = instruction.end() if copy is None and instruction is not None else len(body)
            shown = list(" " * kept + body[kept:])
            for heredoc in heredocs:
                shown[heredoc.start() : heredoc.end()] = " " * (heredoc.end() - heredoc.start())
            out.append("".join(shown) + ending)
            script = _is_script(body, copy is not None, heredocs, lines[i + 1 : i + 2])
            offset += len(line)
            for heredoc in heredocs:  # their bodies follow one after the other
                i, offset = _heredoc(lines, i + 1, offset, heredoc, script, out, joined)
            i += 1
            continued = False
            continue
        elif continued and not body.lstrip().startswith("#"):
            out.append(_exec_form(body) + ending)
        elif instruction is not None:
            out.append(" " * instruction.end() + _exec_form(body[instruction.end() :]) + ending)
        else:
            out.append(" " * len(body) + ending)
        continued = (continued or instruction is not None) and (body.endswith("\\") or body.lstrip().startswith("#"))
        offset += len(line)
        i += 1
    return "".join(out), tuple(joined)


def _is_script(body: str, copy: bool, heredocs: list[re.Match[str]], first: list[str]) -> bool:
    """Whether the heredocs of the instruction line `body` are shell: `RUN <<EOF` and `RUN <<EOF bash` run them with
    a shell (`RUN python3 <<EOF` is Python); `COPY <<EOF train.sh` writes a shell script (by its name or `#!`)."""
    rest = body
    for heredoc in reversed(heredocs):
        rest = rest[: heredoc.start()] + rest[heredoc.end() :]
    words = rest.split()
    if copy:
        head = first[0].encode() if first else b""
        return bool(words) and (kind_of(words[-1], sniff=False) == "shell" or shebang_kind(head) == "shell")
    words = words[1:]
    while words and words[0].startswith("--"):  # `RUN --mount=…`
        words = words[1:]
    return not words or words[0].rsplit("/", 1)[-1] in _SHELLS


def _heredoc(
    lines: list[str],
    i: int,
    offset: int,
    heredoc: re.Match[str],
    script: bool,
    out: list[str],
    joined: list[tuple[int, int]],
) -> tuple[int, int]:
    """Add the body of `heredoc`, starting at `lines[i]` (file offset `offset`), and its closing line to `out`: as
    shell when it is a `script`, else blanked. Returns the index of its closing line and the offset after it."""
    start, last = offset, offset
    while i < len(lines):
        line = lines[i]
        body = line.rstrip("\r\n")
        closing = (body.lstrip("\t") if heredoc["strip"] else body) == heredoc["name"]
        out.append(line if script and not closing else " " * len(body) + line[len(body) :])
        if closing:
            break
        last = offset
        offset += len(line)
        i += 1
    if script and last > start:
        joined.append((start, last))
    return i, offset + (len(lines[i]) if i < len(lines) else 0)


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
    code, joined = view(text)
    # Each instruction runs in a shell of its own; a heredoc's lines in one.
    return shell.analyse(code, options, base, image=IMAGE, each_line=True, joined=joined)
