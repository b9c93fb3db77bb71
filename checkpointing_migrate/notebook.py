"""Jupyter notebooks: check the code cells, and patch the renamed names inside the notebook's JSON text.

Never re-serialised: each code cell's `source` strings are found with their spans (`jsonpos`), the cell is checked as
Python (`!cmd`, `%run`, `%%bash` as shell; `%%writefile x.py`, `x.sh`, `x.yaml` as the file written), each edit is
mapped back into the raw JSON string it falls in (every other byte is kept), and a finding says where it is in its cell.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from pathlib import Path
from typing import NamedTuple

from checkpointing_migrate import codes, jsonpos, python, shell, yaml_json
from checkpointing_migrate.hits import ESCAPED, Hit, Options
from checkpointing_migrate.kinds import FileKind, kind_of
from checkpointing_migrate.located import ParseError
from checkpointing_migrate.pieces import Piece, Run, shift

_SHELL_CELL = re.compile(r"%%(?:bash|sh|script (?:ba)?sh)\b")
_PYTHON_CELL = re.compile(r"%%(?:time|timeit|capture|prun)\b")
_PYTHON_MAGIC = re.compile(r"%(?:time|timeit|prun)\b[ \t]*(?:-\w+[ \t]+(?:\d+[ \t]+)?)*")
_ESCAPE = re.compile(r"[ \t]*(?P<target>[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*)?(?P<escape>!!?|%)")
"""A line IPython runs as a shell command or a magic: `!cmd`, `!!cmd`, `%magic`, `x = !cmd`, `a, b = %magic`."""
_RUN = re.compile(r"run[ \t]+(?:-[A-Za-z]+[ \t]+)*(?=[^ \t-])")
"""`%run [-i] train.py ARGS`: IPython runs the script with ARGS as its `sys.argv`, as `python train.py ARGS` does."""
_RUN_HERE = re.compile(r"(?P<magic>%run[ \t]+(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*i[A-Za-z]*[ \t][^\r\n]*?)[ \t]*$")
"""`%run -i FILE`: IPython runs the file in the notebook's own namespace, where it may patch any name."""
_WRITEFILE = re.compile(r"%%writefile[ \t]+(?:(?:-a|--append)[ \t]+)?(?P<name>\S+)")
"""`%%writefile train.sh`: the cell is that file's text, checked as the file it writes (`_written`)."""
_HELP = re.compile(r"[ \t]*(?:\?\??[\w.*]+|[\w.*]+\?\??)[ \t]*$")
"""A help line: `obj?`, `obj??`, `?obj`, `??obj` (a dotted name, maybe with `*` wildcards)."""


def _pieces(cell: jsonpos.JObject) -> list[jsonpos.JString]:
    source = cell.get("source")
    if isinstance(source, jsonpos.JString):
        return [source]
    if isinstance(source, jsonpos.JArray):
        return [s for s in source.items if isinstance(s, jsonpos.JString)]
    return []


def _piece(text: str, cell: jsonpos.JObject, number: int) -> Piece:
    """The code of the cell `number` of the notebook `text`, mapped back into the JSON strings it is written in."""
    runs, at = [], 0
    for string in _pieces(cell):
        stretches = jsonpos.copied(text[string.start : string.end])
        runs += [
            Run(at + decoded, string.start + raw, length, i == len(stretches) - 1)
            for i, (decoded, raw, length) in enumerate(stretches)
        ]
        at += len(string.value)
    return Piece("".join(s.value for s in _pieces(cell)), FileKind.PYTHON, tuple(runs), number)


def _python_view(code: str) -> tuple[str, list[tuple[int, str]]]:
    """The code with IPython's escape lines blanked (keeping every offset), and the shell lines (offset of the
    command, text), line by line as IPython (and ruff) read them.

    `!cmd` and `x = !cmd` are shell commands, checked as shell lines; `%magic`, `x = %magic`, `obj?` and `??obj` are
    left as they are. The magics that run Python (`%time stmt`, `x = %time f()`, `%%time` cells, ...) keep that
    Python: only the magic is blanked, so the names in it are still checked and fixed.
    """
    out, shell_lines, offset = [], [], 0
    if _PYTHON_CELL.match(code) is not None:
        first = code.find("\n") + 1 if "\n" in code else len(code)
        out.append(" " * len(code[:first].rstrip("\r\n")) + code[len(code[:first].rstrip("\r\n")) : first])
        code, offset = code[first:], first
    for line in code.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        blank = " " * len(body) + line[len(body) :]
        escape = _ESCAPE.match(body)
        if escape is None:
            out.append(line if _HELP.match(body) is None else blank)
        elif (magic := _PYTHON_MAGIC.match(body, escape.start("escape"))) is not None:
            # `0;` keeps a bare statement at its indentation (`%time f()` → `0;    f()`); after `x =` blanks do.
            filler = " " if escape.group("target") else "0;"
            out.append(body[: magic.start()] + filler.ljust(magic.end() - magic.start()) + line[magic.end() :])
        else:
            run = _RUN.match(body, escape.end("escape"))
            if body[escape.start("escape")] == "!":
                command = escape.end("escape")
                shell_lines.append((offset + command, body[command:]))
            elif body[escape.start("escape")] == "%" and run is not None:
                shell_lines.append((offset + run.end(), body[run.end() :]))
            out.append(blank)
        offset += len(line)
    return "".join(out), shell_lines


_CHDIR = re.compile(r"^[ \t]*%cd\b|\bchdir\(", re.MULTILINE)
"""`%cd DIR` or `os.chdir(...)`: the folder the next lines and cells run their commands in is no longer the
notebook's."""
_CD = re.compile(r"%cd(?:[ \t]+-q)?[ \t]+(?P<folder>[^\r\n]*?)[ \t]*\Z")
"""`%cd DIR` at the start of a line (`-q`: quietly): IPython runs what follows in DIR."""


def _moved(cwd: str | None, line: str) -> str | None:
    """The folder after `line` runs in `cwd` (relative to the notebook's; `None`: not known). `%cd DIR` moves it to a
    folder its text tells (not `~`, `-`, `$VAR`, an absolute path: no project folder); `os.chdir(...)`, an indented
    `%cd` (maybe not run) and any other `%cd` make it unknown."""
    if _CHDIR.search(line) is None:
        return cwd
    found = _CD.match(line)
    folder = found["folder"].strip("'\"") if found is not None else ""
    if cwd is None or not folder or folder.startswith(("/", "~", "-")) or any(c in folder for c in "$`*?{\\"):
        return None
    moved = os.path.normpath(os.path.join(cwd, folder))
    return "" if moved == "." else moved


def _folders(code: str, cwd: str | None) -> tuple[list[tuple[int, str | None]], str | None]:
    """(offset, folder it runs in) of each line of the code cell `code` entered in `cwd`, and the folder after the
    cell, read top to bottom as "Run All" does. Only a Python cell moves it (a `cd` in `%%bash` ends with its
    shell)."""
    lines, offset = [], 0
    python_cell = not code.startswith("%%") or _PYTHON_CELL.match(code) is not None
    for line in code.splitlines(keepends=True):
        lines.append((offset, cwd))
        cwd = _moved(cwd, line.rstrip("\r\n")) if python_cell else cwd
        offset += len(line)
    return lines or [(0, cwd)], cwd


def _folder_at(lines: list[tuple[int, str | None]], offset: int) -> str | None:
    """The folder of the line that holds `offset` (`lines` from `_folders`)."""
    return lines[max(bisect.bisect_right(lines, offset, key=lambda line: line[0]) - 1, 0)][1]


def _runs_here(code: str, piece: int, cell: int | None) -> list[python.Ran]:
    """The `%run -i FILE` lines of the code cell `code` (blanked in its Python view), as code run in its namespace."""
    found = []
    for line, text in enumerate(code.splitlines(), 1):
        escape = _ESCAPE.match(text)
        if escape is not None and escape.group("target") is None and escape.group("escape") == "%":
            if (run := _RUN_HERE.match(text, escape.start("escape"))) is not None:
                found.append(python.Ran(piece, line, escape.start("escape"), run["magic"], cell))
    return found


class _Cell(NamedTuple):
    cell: int
    text: str


def launch_texts(text: str) -> list[tuple[int, str, bool, str | None]]:
    """(cell number, shell text of the cell's length, one shell per line, folder) of each code cell with shell in it:
    its `!cmd` and `%run script ARGS` lines (each run by a shell of its own), or a `%%bash` cell's body, everything
    else blanked; the folder is the notebook's (`""`), or `None` when a cell changes it. A notebook that does not
    parse gives none (it is reported when it is checked itself)."""
    try:
        root = json.loads(text)  # only the cells' text is needed here, not where it is: the C parser is faster
    except (ValueError, RecursionError):
        return []
    cells = root.get("cells") if isinstance(root, dict) else None
    pieces = [
        _Cell(number, "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else source)
        for number, cell in enumerate(cells if isinstance(cells, list) else (), 1)
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
        for source in [cell.get("source")]
        if isinstance(source, (str, list))
    ]
    found = []
    after: str | None = ""
    for piece in pieces:
        code = piece.text
        cwd = after
        lines, after = _folders(code, cwd) if _CHDIR.search(code) else ([(0, cwd)], cwd)
        if "!" not in code and "%" not in code:
            continue  # no escape: all Python
        if _SHELL_CELL.match(code):
            first = code.find("\n") + 1 if "\n" in code else len(code)
            view = [c if c in "\r\n" else " " for c in code]
            view[first:] = code[first:]
            shown = "".join(view)
            if shown.strip():
                found.append((piece.cell, shown, False, cwd))
        elif not code.startswith("%%") or _PYTHON_CELL.match(code):
            # One text per folder the cell's shell lines run in (a `%cd` line between them moves the later ones).
            views: dict[str | None, list[str]] = {}
            for offset, line in _python_view(code)[1]:
                view = views.setdefault(_folder_at(lines, offset), [c if c in "\r\n" else " " for c in code])
                view[offset : offset + len(line)] = line
            found += [(piece.cell, "".join(v), True, folder) for folder, v in views.items() if "".join(v).strip()]
        # `%%writefile`, `%%html`, …: not run here
    return found


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a notebook, with offsets into its JSON text; raises `ParseError` (also for a code cell that does not parse as Python)."""
    if options.rules.stem not in text:
        return []
    try:
        root = jsonpos.parse(text)
    except ParseError as exc:
        raise ParseError(exc.offset, codes.message("file-error", "notebook-json", error=str(exc))) from None
    cells = root.get("cells") if isinstance(root, jsonpos.JObject) else None
    if not isinstance(cells, jsonpos.JArray):
        raise ParseError(0, codes.message("file-error", "notebook"))
    hits: list[Hit] = []
    code_cells = []
    for number, cell in enumerate(cells.items, 1):
        kind = cell.get("cell_type") if isinstance(cell, jsonpos.JObject) else None
        if isinstance(cell, jsonpos.JObject) and isinstance(kind, jsonpos.JString) and kind.value == "code":
            code_cells.append(_piece(text, cell, number))
    # What a name holds is told from every cell: the model is usually loaded in an earlier one.
    pythons = [p for p in code_cells if not p.text.startswith("%%") or _PYTHON_CELL.match(p.text)]
    context = python.context_of(
        [_python_view(p.text)[0] for p in pythons],
        [_runs_here(p.text, i, p.cell) for i, p in enumerate(pythons)],
        [p.cell for p in pythons],
    )
    # After `%cd DIR`, later lines and cells run their commands in DIR; after `os.chdir(...)`, in a folder not known.
    after: str | None = ""
    for piece in code_cells:
        code = piece.text
        cwd = after
        lines, after = _folders(code, cwd) if _CHDIR.search(code) else ([(0, cwd)], cwd)
        if options.rules.stem not in code:
            continue
        found: list[Hit] = []
        if code.startswith("%%") and not _PYTHON_CELL.match(code):
            first = code.find("\n") + 1
            if _SHELL_CELL.match(code):
                found = [shift(h, first) for h in shell.analyse(code[first:], options, base, cwd=cwd)]
            elif (written := _WRITEFILE.match(code)) is not None and first:
                found = [shift(h, first) for h in _written(written["name"], code[first:], options, base)]
        else:
            view, shell_lines = _python_view(code)
            try:
                found = python.analyse(view, options, context, base)
            except (SyntaxError, ValueError) as exc:
                starts = python.Source(view).starts
                line_start = starts[min(max(getattr(exc, "lineno", 1) or 1, 1), len(starts)) - 1]
                at = min(line_start + max(getattr(exc, "offset", 1) or 1, 1) - 1, len(view))
                reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
                raise ParseError(
                    piece.to_file(at) or piece.to_file(line_start) or cells.start,
                    codes.message("file-error", "cell", cell=str(piece.cell), error=reason),
                    piece.place(at),
                ) from None
            for offset, line in shell_lines:
                here = _folder_at(lines, offset)
                found += [shift(h, offset) for h in shell.analyse(line, options, base, cwd=here)]
        hits += [piece.back(h, text, codes.shared("json-escapes"), ESCAPED) for h in found]
    return hits


def _written(name: str, body: str, options: Options, base: Path | None) -> list[Hit]:
    """Hits in the body of a `%%writefile NAME` cell, checked as the file it writes (by NAME's suffix): a Python
    module (alone: the notebook's names are not its), a shell script (the launch command it holds), or a YAML or JSON
    config (read as a Markdown fence is: no reader of it is proven); one that does not parse is not checked (the cell
    may be a fragment, or a template)."""
    kind = kind_of(name, sniff=False)
    if kind == FileKind.SHELL:
        return shell.analyse(body, options, base)
    if kind == FileKind.PYTHON:
        try:
            return python.analyse_file(body, options, base)
        except (SyntaxError, ValueError):
            return []
    if kind not in (FileKind.YAML, FileKind.JSON):
        return []
    try:
        return (yaml_json.analyse_yaml if kind == FileKind.YAML else yaml_json.analyse_json)(body, options)
    except ParseError:
        return []
