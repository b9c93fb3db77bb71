"""Suppression: `# checkpointing-migrate: ignore[CODE,…]` (bare `ignore`: every code) silences its line;
`per-file-ignores` (globs → codes) whole files; `--strict-ignores` reports a comment that silenced nothing. A line
inside a multi-line string or continued with a backslash is carried by the line where it ends (as ruff's `noqa`),
a block scalar's or heredoc's content by none, so reading and `annotate` agree on where a comment goes.
"""

from __future__ import annotations

import functools
import io
import os
import re
import tokenize
from typing import TYPE_CHECKING, NamedTuple

from checkpointing_migrate import codes
from checkpointing_migrate.findings import Finding
from checkpointing_migrate.kinds import COMMENTED, FileKind

if TYPE_CHECKING:
    from checkpointing_migrate import gitignore

MARKER = "checkpointing-migrate:"
"""What every suppression comment holds; a file without it has none."""

DIRECTIVE = r"#\s*checkpointing-migrate:\s*ignore(?:\[([^\]\n]*)\])?(?=\s*(?:$|#|\\n|\"))"
"""A suppression comment (a `re.MULTILINE` pattern); group 1 holds its codes. It ends its line, or a notebook's JSON
string (`…\\n",`). Kept as text, compiled (and cached by `re`) by the first file holding `MARKER`: most hold none."""


class Directive(NamedTuple):
    """One suppression comment (a named tuple: the class is made at every start, a frozen dataclass costs several
    times as much to make)."""

    line: int
    column: int
    start: int
    """Offsets of the comment in the file's text (from `#` to the closing `]`)."""
    end: int
    codes: tuple[str, ...] | None
    """The codes it names, in its order; `None` for a bare `ignore` (every code)."""

    @property
    def text(self) -> str:
        return render(self.codes)


def render(names: tuple[str, ...] | None) -> str:
    """The comment for `names` (`None`: every code), as `--add-ignore` writes it."""
    return f"# {MARKER} ignore" + (f"[{','.join(names)}]" if names is not None else "")


def directives(text: str, kind: FileKind) -> dict[int, Directive]:
    """The suppression comments of `text`, by line; in Python only real comments (not text in a string)."""
    if MARKER not in text or kind not in COMMENTED:
        return {}
    starts = line_starts(text)
    comments = _python_comments(text) if kind == FileKind.PYTHON else None
    found = {}
    for match in re.finditer(DIRECTIVE, text, re.MULTILINE):
        line = _line_of(starts, match.start())
        if comments is not None and not any(a <= match.start() < b for a, b in comments.get(line, ())):
            continue
        names = None if match[1] is None else tuple(n.strip() for n in match[1].split(",") if n.strip())
        found[line] = Directive(line, match.start() - starts[line - 1] + 1, match.start(), match.end(), names)
    return found


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts (`\n`, `\r\n` and `\r` end lines, as the file layer counts them)."""
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)


def _python_comments(text: str) -> dict[int, list[tuple[int, int]]] | None:
    """Comment spans by line; `None` (trust the pattern) when the text does not tokenize."""
    starts = line_starts(text)
    spans: dict[int, list[tuple[int, int]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                line, column = token.start
                start = starts[line - 1] + column
                spans.setdefault(line, []).append((start, start + len(token.string)))
    except (tokenize.TokenError, SyntaxError):
        return None
    return spans


def carriers(text: str, kind: FileKind) -> dict[int, int | None]:
    """Lines whose comment must go elsewhere → the line that carries it (`None`: no line can); a line not listed
    carries its own."""
    if kind == FileKind.PYTHON:
        return _python_carriers(text)
    if kind in (
        FileKind.SHELL,
        FileKind.MAKEFILE,
        FileKind.DOCKERFILE,
        FileKind.JUSTFILE,
        FileKind.TOX,
    ):  # a recipe, a `RUN` or a tox command continued with `\` is carried as in shell
        return _shell_carriers(text)
    if kind == FileKind.YAML:
        return _yaml_carriers(text)
    return {}


def _spans_to_carriers(spans: list[tuple[int, int]]) -> dict[int, int | None]:
    """Each (first, last) line span: its lines are carried by `last` (later spans extend earlier ones)."""
    result: dict[int, int | None] = {}
    for first, last in sorted(spans, reverse=True):
        target = result.get(last, last)
        for line in range(first, last):
            result[line] = target
    return result


def _python_carriers(text: str) -> dict[int, int | None]:
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                spans.append((token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return {}
    spans += _continuations(text, {line for first, last in spans for line in range(first, last)})
    return _spans_to_carriers(spans)


def _continuations(text: str, inside: set[int]) -> list[tuple[int, int]]:
    """Runs of lines that end with a backslash (outside a string), each with the line that ends the run."""
    spans, first = [], None
    for number, line in enumerate(text.splitlines(), 1):
        continued = line.endswith("\\") and number not in inside
        if continued and first is None:
            first = number
        elif not continued and first is not None:
            spans.append((first, number))
            first = None
    return spans


_HEREDOC = r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1"  # compiled (by `re`) at a shell file's first `<<`


def _shell_line(
    line: str, number: int, quote: str | None, quote_from: int, heredocs: list[str]
) -> tuple[str | None, int]:
    """Line `number` of a shell script read up to its comment, with `quote` open (since line `quote_from`) at its
    start: the quote open at its end and the line that opened it; the heredocs it starts are added to `heredocs`."""
    i = 0
    while i < len(line):
        c = line[i]
        if quote == "'":
            quote = None if c == "'" else quote
        elif quote == '"':
            if c == "\\":
                i += 1
            elif c == '"':
                quote = None
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote, quote_from = c, number
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            break
        elif line.startswith("<<", i) and not line.startswith("<<<", i):
            found = re.compile(_HEREDOC).match(line, i)
            if found:
                heredocs.append(found[2])
                i = found.end() - 1
        i += 1
    return quote, quote_from


def _shell_carriers(text: str) -> dict[int, int | None]:
    result: dict[int, int | None] = {}
    spans = []
    quote, quote_from, heredocs = None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        if heredocs:  # a heredoc's body is data: a comment there would become part of it
            result[number] = None
            if line.lstrip("\t") == heredocs[0]:
                heredocs.pop(0)
            continue
        quote, quote_from = _shell_line(line, number, quote, quote_from, heredocs)
        if quote is None and quote_from and quote_from < number:
            spans.append((quote_from, number))
        if quote is None:
            quote_from = 0
    if quote is not None:  # an unclosed quote: the shell handler reports the file; nothing can carry these lines
        result.update(dict.fromkeys(range(quote_from, len(text.splitlines()) + 1)))
    inside = {line for first, last in spans for line in range(first, last)} | set(result)
    for line, target in _spans_to_carriers(spans + _continuations(text, inside)).items():
        result.setdefault(line, target)
    return result


def _yaml_carriers(text: str) -> dict[int, int | None]:
    import yaml

    result: dict[int, int | None] = {}
    spans = []
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if not isinstance(token, yaml.ScalarToken) or token.end_mark.line == token.start_mark.line:
                continue
            first = token.start_mark.line + 1
            last = token.end_mark.line + 1 if token.end_mark.column > 0 else token.end_mark.line
            if token.style in ("|", ">"):  # a block scalar's lines are its content; its `|` line may hold one
                result.update(dict.fromkeys(range(first + 1, last + 1)))
            else:
                spans.append((first, last))
    except yaml.YAMLError:
        return {}
    for line, target in _spans_to_carriers(spans).items():
        result.setdefault(line, target)
    return result


class Suppressor:
    """The comments of one file, and which of their codes silenced something (a plain class: making a dataclass costs
    every start-up)."""

    def __init__(self, path: str, found: dict[int, Directive], carried: dict[int, int | None]) -> None:
        self.path, self.found, self.carried = path, found, carried
        self.used: dict[int, set[str]] = {}

    @classmethod
    def of(cls, path: str, text: str, kind: FileKind) -> Suppressor:
        found = directives(text, kind)
        return cls(path, found, carriers(text, kind) if found else {})

    def covers(self, line: int, code: str) -> bool:
        """Whether a comment silences `code` at `line` (its own, or the line that carries it); records the use."""
        for where in dict.fromkeys((line, self.carried.get(line, line))):
            directive = self.found.get(where) if where is not None else None
            if directive is not None and (directive.codes is None or code in directive.codes):
                self.used.setdefault(where, set()).add(code)  # type: ignore[arg-type]
                return True
        return False

    def unused(self) -> list[Finding]:
        """An `unused-ignore` finding for each comment, or code in one, that silenced nothing."""
        out, entry = [], codes.get("unused-ignore")
        for line, directive in self.found.items():
            used = self.used.get(line, set())
            if directive.codes is None:
                if used:
                    continue
                what = entry.message("line")
            else:
                spare = [c for c in directive.codes if c not in used]
                if not spare:
                    continue
                unknown = [c for c in spare if c not in codes.CODES]
                named = ", ".join(f"`{c}`" for c in spare)
                which = entry.message("all" if len(spare) == len(directive.codes) else "some")
                what = entry.message("codes", named=named, s="s" * (len(spare) == 1), which=which)
                if unknown:
                    what = entry.message("unknown", why=what, unknown="; ".join(_unknown(c) for c in unknown))
            out.append(
                Finding(
                    self.path,
                    line,
                    directive.column,
                    entry.severity,
                    directive.text,
                    None,
                    code="unused-ignore",
                    message=entry.message(why=what),
                    why=what,  # short already, and the only way to tell which code is spare
                )
            )
        return out


def _unknown(code: str) -> str:
    try:
        codes.get(code)
    except codes.UnknownCode as exc:
        return str(exc)
    raise AssertionError(code)


def ignored_in(path: str, per_file_ignores: tuple[tuple[str, str, frozenset[str]], ...]) -> frozenset[str]:
    """The codes `per-file-ignores` (root folder, pattern, codes) silence in `path`."""
    from checkpointing_migrate import gitignore  # only a configuration with per-file-ignores needs the matcher

    absolute = os.path.abspath(path)
    out: frozenset[str] = frozenset()
    for root, pattern, names in per_file_ignores:
        if gitignore.decide([_level(root, pattern)], absolute, False):
            out |= names
    return out


@functools.cache
def _level(root: str, pattern: str) -> gitignore.Level:
    from checkpointing_migrate import gitignore

    compiled = gitignore.compile_line(pattern)
    anywhere = "/" not in pattern.strip().rstrip("/")
    return gitignore.Level(os.path.abspath(os.sep) if anywhere else root, (compiled,) if compiled else ())
