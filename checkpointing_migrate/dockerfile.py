"""Dockerfiles (`Dockerfile`, `*.Dockerfile`, `Containerfile`): the commands of `RUN`, `CMD` and `ENTRYPOINT`.

Read as shell in place (the exec form with its brackets and commas blanked, `ENV`/`ARG NAME=…` as variables, a shell
heredoc as one script, `COPY <<EOF cfg.yaml` as YAML or JSON); after a `WORKDIR`, a script is looked up in the folder
`COPY`/`ADD` put there, else not known. It runs inside the image, whose files may not be the project's: fixes are unsafe.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from checkpointing_migrate import shell, yaml_json
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import FileKind, kind_of, shebang_kind
from checkpointing_migrate.located import ParseError
from checkpointing_migrate.pieces import shift

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

_WORKDIR = re.compile(r"^[ \t]*WORKDIR[ \t]", re.IGNORECASE | re.MULTILINE)
_PLACING = re.compile(r"[ \t]*(?P<op>FROM|WORKDIR|COPY|ADD)[ \t]+(?P<rest>[^\r\n]*)", re.IGNORECASE)
"""The instructions that change which project folder a command runs in: a stage, its `WORKDIR`, the copies."""


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
        return bool(words) and (
            kind_of(words[-1], sniff=False) == FileKind.SHELL or shebang_kind(head) == FileKind.SHELL
        )
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
    configs = [h for start, body, kind in _configs(text) for h in _config_hits(start, body, kind, options)]
    # Each instruction runs in a shell of its own (a heredoc's lines in one), in the folder of its stretch: one pass,
    # so an `ENV` setting is judged by every command that expands it, whatever `WORKDIR` each runs in.
    folders = tuple(_stretches(text, code, base)) if _WORKDIR.search(text) else ()
    return shell.analyse(code, options, base, image=IMAGE, each_line=True, joined=joined, folders=folders) + configs


def _configs(text: str) -> list[tuple[int, str, FileKind]]:
    """(offset, text, kind) of the body of each `COPY <<EOF cfg.yaml` heredoc that writes a YAML or JSON file (by
    its name); the bodies of other heredocs are skipped."""
    out: list[tuple[int, str, FileKind]] = []
    lines = text.splitlines(keepends=True)
    i, offset = 0, 0
    while i < len(lines):
        body = lines[i].rstrip("\r\n")
        copy = _COPY.match(body)
        heredocs = list(_HEREDOC.finditer(body)) if copy is not None or _INSTRUCTION.match(body) else []
        offset += len(lines[i])
        i += 1
        for heredoc in heredocs:  # their bodies follow one after the other
            start, end = offset, None
            while i < len(lines) and end is None:
                line = lines[i].rstrip("\r\n")
                if (line.lstrip("\t") if heredoc["strip"] else line) == heredoc["name"]:
                    end = offset
                offset += len(lines[i])
                i += 1
            end = offset if end is None else end  # not closed: to the end of the file
            words = (body[: heredoc.start()] + body[heredoc.end() :]).split()
            kind = kind_of(words[-1], sniff=False) if copy is not None and len(heredocs) == 1 and words else None
            if kind in (FileKind.YAML, FileKind.JSON):
                out.append((start, text[start:end], kind))
    return out


def _config_hits(start: int, body: str, kind: FileKind, options: Options) -> list[Hit]:
    """The hits of a config heredoc's body, read as a Markdown fence is (no reader of it is proven); none when it
    does not parse (a template)."""
    try:
        found = (yaml_json.analyse_yaml if kind == FileKind.YAML else yaml_json.analyse_json)(body, options)
    except ParseError:
        return []
    return [shift(h, start) for h in found]


def _stretches(text: str, code: str, base: Path | None) -> list[tuple[int, int, str | None]]:
    """The stretches of `text` between the instructions that place commands (`_PLACING`), each with the folder its
    commands run in, relative to `base` (`""` before any `WORKDIR`, as without one; `None`: not known)."""
    out: list[tuple[int, int, str | None]] = []
    workdir: str | None = ""  # the image's folder; "" before any WORKDIR of the stage
    copies: list[tuple[str, str]] = []  # (folder in the image, project folder) of each folder copied
    start = offset = 0
    previous = ""
    for line in text.splitlines(keepends=True):
        found = _PLACING.match(line)
        # A placing line of its own: not continued, not a heredoc's body (the view blanks a WORKDIR line, keeps a
        # shell heredoc's lines).
        if found is not None and not previous.rstrip().endswith("\\") and not code[offset : offset + len(line)].strip():
            out.append((start, offset, _folder(workdir, copies)))
            start = offset
            op, rest = found["op"].upper(), found["rest"].strip()
            if op == "FROM":
                workdir, copies = "", []
            elif op == "WORKDIR":
                workdir = _joined(workdir, rest)
            elif "<<" not in rest:
                copies += _copied(rest, workdir, base)
        previous = line
        offset += len(line)
    out.append((start, len(text), _folder(workdir, copies)))
    return [s for s in out if s[0] < s[1]]


def _joined(workdir: str | None, path: str) -> str | None:
    """The image folder after `WORKDIR path` from `workdir` (a relative one from a base image's folder: not known)."""
    if any(c in path for c in "$\"'"):
        return None
    if path.startswith("/"):
        return posixpath.normpath(path)
    return None if not workdir else posixpath.normpath(posixpath.join(workdir, path))


def _copied(rest: str, workdir: str | None, base: Path | None) -> list[tuple[str, str]]:
    """(folder in the image, project folder) of `COPY SRC DEST` (`rest`) when SRC is one folder of the build
    context (`--from=` copies from another image)."""
    words = rest.split()
    if rest.startswith("["):
        try:
            words = [str(w) for w in json.loads(rest)]
        except (ValueError, TypeError):
            return []
    options = [w for w in words if w.startswith("--")]
    words = [w for w in words if not w.startswith("--")]
    if any(o.startswith("--from") for o in options) or len(words) != 2:
        return []
    source, dest = words
    folder = source in (".", "./") or source.endswith("/") or (base is not None and (base / source).is_dir())
    target = _joined(workdir, dest.rstrip("/") or "/") if dest not in (".", "./") else workdir or None
    if not folder or target is None or any(c in source for c in "$*?["):
        return []
    return [(target, posixpath.normpath(source))]


def _folder(workdir: str | None, copies: list[tuple[str, str]]) -> str | None:
    """The project folder that image folder `workdir` is (the latest copy that holds it), relative to the context."""
    if workdir == "":
        return ""
    for target, source in reversed(copies):
        if workdir is not None and (workdir == target or workdir.startswith(target.rstrip("/") + "/")):
            folder = posixpath.normpath(posixpath.join(source, posixpath.relpath(workdir, target)))
            return None if folder.startswith("..") else "" if folder == "." else folder
    return None
