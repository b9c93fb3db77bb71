"""The lexical pass over Python sources: decide, without parsing, whether a file needs a closer look.

Most files that contain the stem every old name shares still need nothing: the name is the per-module flag of
modeling code (`self.gradient_checkpointing`), sits in a comment or prose, or is a model config's key. These checks
look only at the characters around each word, and never drop a word the `ast` pass (`checkpointing_migrate.python`) reports.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from itertools import accumulate

from checkpointing_migrate.hits import Options
from checkpointing_migrate.table import field_name

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_CLASS_HEADER = re.compile(r"class[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]*)\)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_RECEIVER = re.compile(r"(\w+)\s*\.\s*\Z")
_LOOKUP = re.compile(r"(?:get|set|has)attr\(\s*([\w.]+)\s*,\s*[\"']\Z")
CONVENTIONAL_ARGS = ("args", "training_args")
"""Names that conventionally hold training arguments (`self.args` on a Trainer); a guess, so never a rewrite."""


def words(text: str, stem: str) -> Iterator[tuple[int, str]]:
    """(offset, word) of each run of name characters and `-` that contains `stem`."""
    size, i = len(text), text.find(stem)
    while i >= 0:
        start, end = i, i + len(stem)
        while start > 0 and text[start - 1] in _WORD:
            start -= 1
        while end < size and text[end] in _WORD:
            end += 1
        yield start, text[start:end]
        i = text.find(stem, end)


def identifiers(text: str, stem: str) -> Iterator[tuple[int, str]]:
    """Like `words`, but split at `-` into Python names; flags (`--name`) are yielded whole."""
    for start, word in words(text, stem):
        if word.startswith("--"):
            yield start, word
            continue
        offset = start
        for part in word.split("-"):
            if stem in part:
                yield offset, part
            offset += len(part) + 1


def config_subclasses(text: str, known: frozenset[str]) -> set[str]:
    """Classes defined in `text` (by a `class X(...)` header) whose bases reach a known config class."""
    headers = [
        (m.group(1), set(_NAME.findall(m.group(2))))
        for m in _CLASS_HEADER.finditer(text)
        if not text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip()  # `class` starts its line
    ]
    local: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, bases in headers:
            if name not in local and bases & (known | local):
                local.add(name)
                changed = True
    return local


_COUNTS = 16
"""`Source.line_of` counts newlines this many times before it finds the line starts once."""


def declared_fields(text: str, flag: str) -> bool:
    """Whether `text` declares a dataclass field that `HfArgumentParser` turns into `flag` (`name: type` in a class)."""
    name = field_name(flag)
    return name in text and re.search(rf"^[ \t]+{re.escape(name)}[ \t]*:", text, re.M) is not None


class Source:
    """A text with its line starts, to turn `ast` positions (line, UTF-8 byte column) into offsets and back.

    The line starts are found only when first needed: most files are looked at without ever needing them.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._counts = 0
        """How many `line_of` answers were counted without the line starts (each a scan from the last one asked)."""
        self._counted = (0, 1)
        """The last offset counted and its line: asked in order (the hits of a file are), each count goes on from
        there instead of from the top."""
        self._plain: bool | None = None
        """Whether the text has no `\r` (then lines end at `\n` alone and can be counted); found once."""

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            if "\r" in self.text:
                self._starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
            else:  # the common case, a third of the regular expression's time (`--include-planned` asks for many)
                lengths = map((1).__add__, map(len, self.text.split("\n")))  # each line and its newline, in C
                self._starts = list(accumulate(lengths, initial=0))
                self._starts.pop()  # where a line after the last would start
        return self._starts

    def offset(self, line: int, byte_col: int) -> int:
        starts = self.starts
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.text)
        row = self.text[start:end]
        if row.isascii():
            return start + byte_col
        return start + len(row.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def line_of(self, offset: int) -> int:
        # A few counts are cheaper than finding every line start; thousands of them were quadratic (a 5 MB file
        # with 49,000 uses took 79 s), so after `_COUNTS` the starts are found once and bisected.
        if self._plain is None:
            self._plain = "\r" not in self.text
        if self._starts is None and self._counts < _COUNTS and self._plain:
            self._counts += 1
            since, line = self._counted if self._counted[0] <= offset else (0, 1)
            line += self.text.count("\n", since, offset)
            self._counted = (offset, line)
            return line
        return bisect.bisect_right(self.starts, offset)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column), both from 1, of `offset`; found as `line_of` finds the line, so a file with a few findings
        never needs its line starts."""
        line = self.line_of(offset)
        if self._starts is None:  # counted: no `\r` in the text, so the line starts after the last `\n`
            return line, offset - self.text.rfind("\n", 0, offset)
        return line, offset - self._starts[line - 1] + 1


def _in_comment(text: str, start: int) -> bool:
    """Whether `start` follows a `#` on its line with no quote before it (so surely a comment)."""
    line = text[text.rfind("\n", 0, start) + 1 : start]
    hash_at = line.find("#")
    return hash_at >= 0 and "'" not in line[:hash_at] and '"' not in line[:hash_at]


class _Lexical:
    """Decides from the text around a word whether the parser must look at it (never misses what it would report)."""

    def __init__(self, text: str, options: Options) -> None:
        self.text, self.rules = text, options.rules
        self.local: set[str] | None = None
        self.mentions: bool | None = None

    def receiver_may_be_config(self, receiver: str | None) -> bool:
        if receiver == "self":
            if self.local is None:
                self.local = config_subclasses(self.text, self.rules.config_classes)
            return bool(self.local)
        if receiver in CONVENTIONAL_ARGS:
            return True
        if self.mentions is None:
            # A name bound to a constructor call or annotated with the class names the class in the file.
            self.mentions = any(c in self.text for c in self.rules.config_classes)
        return self.mentions

    def field_use(self, start: int, name: str) -> bool:
        """A field or keyword name: only as `x.name`, `name=`, `name:` or `getattr(x, "name")` can it matter."""
        text = self.text
        before = text[max(0, start - 80) : start]
        if before.endswith("."):
            receiver = _RECEIVER.search(before)
            return self.receiver_may_be_config(receiver.group(1) if receiver else None)
        after = text[start + len(name) : start + len(name) + 40].lstrip(" \t")
        if before.endswith(("'", '"')):
            if after[:1] == before[-1] and after[1:].lstrip(" \t").startswith(":"):
                return True  # a dict key, which may be unpacked into a constructor: `Config(**{"name": ...})`
            if after[:1] == before[-1] and after[1:].lstrip(" \t").startswith("]"):
                return True  # a subscript: `cfg["name"] = ...` unpacked later, `args.to_dict()["name"]`
            lookup = _LOOKUP.search(before)
            return lookup is not None and self.receiver_may_be_config(lookup.group(1).split(".")[-1])
        return (after.startswith("=") and not after.startswith("==")) or after.startswith(":")


def candidate_lines(text: str, options: Options, source: Source) -> list[int]:
    """Lines holding a name worth parsing the file for; empty when the file needs no closer look."""
    return sorted({source.line_of(start) for start in _candidates(text, options, planned=options.planned)})


def only_planned(text: str, options: Options) -> list[tuple[int, str]] | None:
    """With `--include-planned`, the planned names (offset, name) of a file that holds no name worth parsing it for
    but planned ones (so the families can report nothing there but those: `checkpointing_migrate.python.statements`);
    `None` when it holds another, or the run reports no planned names."""
    if not options.planned:
        return None
    rules, found = options.rules, []
    if rules.stem in text:
        candidate = _Candidate(text, options, planned=False)
        for start, name in identifiers(text, rules.stem):
            if candidate(start, name):
                return None
            if name in rules.planned:
                found.append((start, name))
    return found


def _candidates(text: str, options: Options, *, planned: bool) -> Iterator[int]:
    if options.rules.stem not in text:
        return
    candidate = _Candidate(text, options, planned=planned)
    for start, name in identifiers(text, options.rules.stem):
        if candidate(start, name):
            yield start


class _Candidate:
    """Whether a word of a text is worth parsing the file for (`planned`: the planned names too)."""

    def __init__(self, text: str, options: Options, *, planned: bool) -> None:
        rules = options.rules
        self.text, self.rules, self.planned = text, rules, planned
        self.names = rules.identifiers(planned=planned)
        self.flags = set(rules.flags) | ({n for n in rules.planned if n.startswith("-")} if planned else set())
        self.lexical = _Lexical(text, options)

    def __call__(self, start: int, name: str) -> bool:
        if name.startswith("--"):
            return name.split("=")[0] in self.flags
        if name not in self.names or _in_comment(self.text, start) or self.text.endswith("`", 0, start):
            return False  # not a name of the rules, a comment or prose in a docstring
        return self.planned or name in self.rules.members or self.lexical.field_use(start, name)
