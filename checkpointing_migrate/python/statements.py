"""A file whose only uses are planned names (`--include-planned`): its hits, from the statements that hold them.

Nearly every modeling file of a library holds a planned name and nothing else; parsing each whole was most of a
planned scan. Strings and comments are found by jumping from quote to quote, and each statement holding a planned name
is cut out and parsed alone; where that cannot be exact (an f-string, a `case`), `hits` says to parse the whole file.
"""

from __future__ import annotations

import ast
import bisect
import re

from checkpointing_migrate.hits import Hit, Options, planned_hit
from checkpointing_migrate.pylex import Source
from checkpointing_migrate.rules import Rules

_COMMENTS = re.compile(r"#[^\n]*(?:\n[ \t]*#[^\n]*)*")
"""A comment and the comment lines right below it, as one (a licence header is one step, not thirteen)."""
_PREFIX = frozenset("rRbBuUfF")
_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DECORATED = "\ndef _(): pass"
"""What a decorator line is parsed with; `_` is no planned name."""


class Parsed(dict[str, tuple[tuple[int, str], ...] | None]):
    """A statement's text → the planned names in it and their offsets (`None`: not to be told alone), for the run:
    modeling code is copied from model to model, so the same statements come back file after file."""


def hits(text: str, options: Options, found: list[tuple[int, str]]) -> list[Hit] | None:
    """The planned hits of `text`, whose lexical pass found no use but the planned names `found` (offset, name:
    `pylex.only_planned`); `None`: parse the file."""
    rules = options.rules
    if "\r" in text:
        return None
    if any(w.startswith("-") for _, w in found):
        return None  # a planned flag: the flags family reads strings
    # To the end of the last one's line: a comment after it, say, is one (a statement it is in may go on further).
    line_end = text.find("\n", found[-1][0]) if found else 0
    literals = _literals(text, len(text) if line_end < 0 else line_end)
    if literals is None:
        return None
    starts = [s for s, _, _ in literals]
    parsed = options.memo.once(Parsed, Parsed)
    blank: _Blank | None = None
    seen: set[int] = set()
    out: list[Hit] = []
    for start, _ in found:
        i = bisect.bisect_right(starts, start) - 1
        if i >= 0 and start < literals[i][1]:
            if literals[i][2]:
                return None  # in an f-string, where it may be code
            continue  # in a string or a comment
        blank = blank or _Blank(text, literals)
        span = blank.statement(start)
        if span is None:
            return None
        if span[0] in seen:
            continue
        seen.add(span[0])
        statement = _statement_hits(text, blank, span, parsed, rules)
        if statement is None:
            return None
        out += statement
    return sorted(out, key=lambda h: h.start)


def _statement_hits(text: str, blank: _Blank, span: tuple[int, int], parsed: Parsed, rules: Rules) -> list[Hit] | None:
    """The planned hits of the statement at `span` (its names found once per run for each statement text)."""
    line = text[span[0] : span[1]]
    first = span[0] + len(line) - len(line.lstrip(" \t"))
    code = text[first : span[1]]
    if code not in parsed:
        parsed[code] = _names_in(code, rules, blank.text[first : span[1]].rstrip().endswith(":"))
    names = parsed[code]
    if names is None:
        return None
    return [planned_hit(rules.planned[name], first + at, name) for at, name in names]


def _literals(text: str, last: int) -> list[tuple[int, int, bool]] | None:
    """(start, end, is an f-string) of every string and comment that starts before offset `last`, in order; `None`
    when one is not closed or an f-string's end cannot be told."""
    out: list[tuple[int, int, bool]] = []
    append, find, size, i = out.append, text.find, len(text), 0
    # The next `#`, `"` and `'` from `i`, each found again only once passed: three scans at the speed of `str.find`.
    hash_at = double = single = -1
    while True:
        if hash_at < i:
            hash_at = find("#", i) % (size + 1)  # not found: `size`
        if double < i:
            double = find('"', i) % (size + 1)
        if single < i:
            single = find("'", i) % (size + 1)
        j = min(hash_at, double, single)
        if j > last or j == size:
            break
        c = text[j]
        if c == "#":
            i = _COMMENTS.match(text, j).end()  # type: ignore[union-attr]  # (it matches at a `#`)
            append((j, i, False))
            continue
        k = j
        if j > 0 and text[j - 1] in _PREFIX:
            while k > 0 and text[k - 1] in _PREFIX:
                k -= 1
            if k > 0 and text[k - 1] in _NAME:
                k = j  # `if"x"`: the letters are a keyword's, not a prefix
        fstring = k < j and "f" in text[k:j].lower()
        quote = c * 3 if text.startswith(c * 3, j) else c
        body = j + len(quote)
        end = _closing(text, body, quote)
        if end < 0:
            return None
        if fstring:
            inside = text[body:end].replace("{{", "").replace("}}", "")
            if inside.count("{") != inside.count("}"):
                return None  # the quote may be inside a replacement field (Python 3.12 allows it)
        i = end + len(quote)
        append((k, i, fstring))
    return out


def _closing(text: str, at: int, quote: str) -> int:
    """Where the `quote` that closes a string whose body starts at `at` is: not escaped, and for a one-line string on
    its line (an escaped newline goes on); -1 when none does."""
    while True:
        end = text.find(quote, at)
        if end < 0:
            return -1
        if len(quote) == 1:
            newline = text.find("\n", at, end)
            while newline >= 0:
                if _escapes(text, at, newline) % 2 == 0:
                    return -1
                newline = text.find("\n", newline + 1, end)
        if text[end - 1] != "\\" or _escapes(text, at, end) % 2 == 0:
            return end
        at = end + 1


def _escapes(text: str, at: int, end: int) -> int:
    """How many backslashes stand right before `end` (back to `at`)."""
    back = end
    while back > at and text[back - 1] == "\\":
        back -= 1
    return end - back


class _Blank:
    """The text with every string and comment turned into spaces (their newlines too: they end no statement), and
    the bracket depth at the last offset asked about (occurrences are asked about in order)."""

    def __init__(self, text: str, literals: list[tuple[int, int, bool]]) -> None:
        pieces, at = [], 0
        for start, end, _ in literals:
            pieces += [text[at:start], " " * (end - start)]
            at = end
        pieces.append(text[at:])
        self.text = "".join(pieces)
        self.at, self.depth = 0, 0

    def brackets(self, start: int, end: int) -> int:
        """How many more brackets open than close in `start:end`."""
        n = self.text.count
        return (
            n("(", start, end)
            + n("[", start, end)
            + n("{", start, end)
            - n(")", start, end)
            - n("]", start, end)
            - n("}", start, end)
        )

    def continued(self, newline: int) -> bool:
        """Whether the line that ends at offset `newline` ends with a `\\` (it goes on on the next line)."""
        i = newline - 1
        while i >= 0 and self.text[i] in " \t":
            i -= 1
        return i >= 0 and self.text[i] == "\\"

    def statement(self, at: int) -> tuple[int, int] | None:
        """(start, end) of the logical line that holds offset `at`: from a line start outside brackets and not after
        a `\\` line end, to the newline that ends it."""
        self.depth += self.brackets(self.at, at)
        self.at = at
        inside, blank = self.depth, self.text
        if inside < 0:
            return None
        start = blank.rfind("\n", 0, at) + 1
        depth = inside - self.brackets(start, at)
        while depth != 0 or start > 0 and self.continued(start - 1):
            if start == 0:
                return None
            before = blank.rfind("\n", 0, start - 1) + 1
            depth -= self.brackets(before, start)
            start = before
        end = blank.find("\n", at)
        depth = inside + self.brackets(at, end) if end >= 0 else 0
        while end >= 0 and (depth != 0 or self.continued(end)):
            after = blank.find("\n", end + 1)
            depth += self.brackets(end, after) if after >= 0 else 0
            end = after
        if end < 0:
            end = len(blank)
            if inside + self.brackets(at, end) != 0:
                return None
        return start, end


def _names_in(code: str, rules: Rules, header: bool) -> tuple[tuple[int, str], ...] | None:
    """(offset, name) of each planned name the families report in the statement `code`, parsed alone as they would
    see it (`header`: it ends with the colon of a block, which is given a body); `None` when it does not parse alone
    or holds a planned keyword or attribute that is also a renamed name (another family's)."""
    prefix, code, suffix = _wrapped(code)
    try:
        tree = ast.parse(prefix + code + suffix + ("\n pass" if header else ""))
    except (SyntaxError, ValueError):
        return None
    snippet = Source(prefix + code + suffix + "\n pass")
    names, others = rules.planned_identifiers(), rules.identifiers(planned=False)
    calls = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Call) for k in node.keywords}
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        name, at = _planned_name(node, snippet, names)
        if name is None or not len(prefix) <= at < len(prefix) + len(code):
            continue
        if isinstance(node, ast.keyword):
            if id(node) not in calls:
                continue  # `class X(metaclass=…)`: no call's keyword
            if name in others:
                return None
        if isinstance(node, ast.Attribute) and name in rules.members:
            return None
        out.append((at - len(prefix), name))
    return tuple(out)


def _wrapped(code: str) -> tuple[str, str, str]:
    """(prefix, code, suffix) that make a statement parse alone: a decorator its `def`, an `except` or `finally`
    its `try`, an `elif` or `else` turned into an `if` of the same length (so offsets hold)."""
    head = code.split(None, 1)[0] if code.strip() else ""
    if head.startswith("@"):
        return "", code, _DECORATED
    if head.rstrip(":") in ("except", "finally"):
        return "try: pass\n", code, ""
    if head.rstrip(":") in ("elif", "else"):
        return "", ("if  " if head.startswith("elif") else "if 1") + code[4:], ""
    return "", code, ""


def _planned_name(node: ast.AST, snippet: Source, names: frozenset[str]) -> tuple[str | None, int]:
    """The planned name a node stands for where the families report one (a name, an attribute, an imported name, a
    `def`, a keyword), and its offset in the snippet."""
    text = snippet.text
    if isinstance(node, ast.Name) and node.id in names:
        return node.id, snippet.offset(node.lineno, node.col_offset)
    if isinstance(node, ast.Attribute) and node.attr in names:
        return node.attr, snippet.offset(node.end_lineno or node.lineno, node.end_col_offset or 0) - len(node.attr)
    if isinstance(node, ast.alias) and node.name.split(".")[-1] in names:
        name = node.name.split(".")[-1]
        return name, text.find(name, snippet.offset(node.lineno, node.col_offset))
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names:
        return node.name, text.index(node.name, snippet.offset(node.lineno, node.col_offset))
    if isinstance(node, ast.keyword) and node.arg in names:
        return node.arg, snippet.offset(node.lineno, node.col_offset)
    return None, -1
