"""Markdown: check the code inside fenced blocks with the handler for the fence's language (`LANGUAGES`).

`pycon` sessions (after `>>> ` and `... `) go to the Python rules and `console` sessions (after `$ `) to the shell
rules, their output left out. A fence is handed over without its indentation and every offset is mapped back; one
that does not parse (a fragment with `...`) is reported as `info` and left alone. Other languages are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate import python, shell, yaml_json
from checkpointing_migrate.codes import Severity, message, shared
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import FileKind
from checkpointing_migrate.pieces import Piece, of_lines, prompted

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*\{?\.?(?P<lang>[\w+-]*)[^\n]*$", re.MULTILINE)
LANGUAGES = {
    "python": FileKind.PYTHON,
    "py": FileKind.PYTHON,
    "python3": FileKind.PYTHON,
    "bash": FileKind.SHELL,
    "sh": FileKind.SHELL,
    "shell": FileKind.SHELL,
    "zsh": FileKind.SHELL,
    "yaml": FileKind.YAML,
    "yml": FileKind.YAML,
    "json": FileKind.JSON,
}
"""Fence language → the kind whose handler reads it."""
_SESSIONS = {
    "pycon": (FileKind.PYTHON, (">>> ", "... "), (">>>", "...")),
    "console": (FileKind.SHELL, ("$ ",), ()),
    "shell-session": (FileKind.SHELL, ("$ ",), ()),
}
"""Fence language of a session → (the kind reading its input, its prompts, its prompts alone on a line)."""


def fences(text: str) -> list[Piece]:
    """The code of each fenced block with a known language, without the fence's indentation (fences inside lists
    and content tabs are indented) and a session's prompts and output."""
    out = []
    pos = 0
    while (m := _OPEN.search(text, pos)) is not None:
        indent, fence = m.group("indent"), m.group("fence")
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        body_start = m.end() + 1
        end = close.search(text, body_start)
        body_end = end.start() if end else len(text)
        lines = []
        offset = body_start
        for line in text[body_start:body_end].splitlines(keepends=True):
            cut = min(len(line) - len(line.lstrip(" \t")), len(indent))
            lines.append((offset + cut, line[cut:]))
            offset += len(line)
        language = m.group("lang").lower()
        if language in _SESSIONS:
            kind, prompts, bare = _SESSIONS[language]
            out.append(of_lines(kind, prompted(lines, prompts, bare)))
        elif language in LANGUAGES:
            out.append(of_lines(LANGUAGES[language], lines))
        pos = end.end() if end else len(text)
    return out


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in the fenced code of a Markdown file, with offsets into the file."""
    if options.rules.stem not in text:
        return []
    hits: list[Hit] = []
    blocks = fences(text)
    # What a name holds is told from all the Python fences of the file (a model loaded in an earlier one).
    context = python.context_of([p.text for p in blocks if p.language == FileKind.PYTHON])
    for piece in blocks:
        code = piece.text
        if options.rules.stem not in code:
            continue
        try:
            if piece.language == FileKind.PYTHON:
                found = python.analyse(code, options, context, base)
            elif piece.language == FileKind.SHELL:
                found = shell.analyse(code, options, base)
            elif piece.language == FileKind.YAML:
                found = yaml_json.analyse_yaml(code, options)
            else:
                found = yaml_json.analyse_json(code, options)
        except (SyntaxError, ValueError) as exc:
            found = _unparsed(code, options, piece.language, exc)
        hits += [piece.back(h, text, shared("across-indent"), shared("indented-fence")) for h in found]
    return hits


def _unparsed(code: str, options: Options, handler: FileKind, exc: Exception) -> list[Hit]:
    """One `info` per old name in a fence that does not parse: the fence is left alone."""
    names = options.rules.identifiers(planned=False) | set(options.rules.flags)
    said = message("unparsed-fence", language=handler, error=str(exc))
    return [
        Hit(start, word, None, Severity.INFO, "unparsed-fence", said)
        for start, word in python.identifiers(code, options.rules.stem)
        if word in names
    ]
