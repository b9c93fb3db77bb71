"""A JSON parser that keeps where every value stands, so an edit can change one string and leave every other byte.

`json.loads` returns values without positions; re-serialising with `json.dumps` would change indentation, key
order, escapes and number spellings. Here each string keeps its raw token's span, and `copied` gives the
stretches of a decoded string that stand as they are in the raw token (escapes such as `\\n` or `\\u00e9` do not).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Union

from checkpointing_migrate.codes import message
from checkpointing_migrate.located import ParseError

_SPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}

MAX_NESTING = 200
"""Arrays and objects nested deeper than this are an error (the parser recurses; configs nest a few levels)."""


@dataclass(frozen=True)
class JString:
    start: int
    end: int
    value: str


@dataclass(frozen=True)
class JScalar:
    start: int
    end: int
    value: object


@dataclass(frozen=True)
class JArray:
    start: int
    end: int
    items: tuple[JNode, ...]


@dataclass(frozen=True)
class JObject:
    start: int
    end: int
    items: tuple[tuple[JString, JNode], ...]

    def get(self, key: str) -> JNode | None:
        return next((v for k, v in self.items if k.value == key), None)


JNode = Union[JString, JScalar, JArray, JObject]


def parse(text: str) -> JNode:
    """The value in `text` with positions; raises `ParseError`."""
    node, end = _value(text, _SPACE.match(text, 0).end())  # type: ignore[union-attr]
    end = _SPACE.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise ParseError(end, "extra data after the JSON value")
    return node


def _value(text: str, i: int, depth: int = 0) -> tuple[JNode, int]:
    if i >= len(text):
        raise ParseError(i, "a value was expected, the file ended")
    char = text[i]
    if char in "{[" and depth >= MAX_NESTING:
        raise ParseError(i, message("file-error", "nesting", levels=str(MAX_NESTING)))
    if char == "{":
        return _object(text, i, depth + 1)
    if char == "[":
        return _array(text, i, depth + 1)
    if char == '"':
        return _string(text, i)
    if m := _NUMBER.match(text, i):
        return JScalar(i, m.end(), json.loads(m.group(0))), m.end()
    for word, value in _LITERALS.items():
        if text.startswith(word, i):
            return JScalar(i, i + len(word), value), i + len(word)
    raise ParseError(i, f"unexpected character {char!r}")


def _string(text: str, i: int) -> tuple[JString, int]:
    m = _STRING.match(text, i)
    if not m:
        raise ParseError(i, "invalid string (unterminated, a control character, or a bad escape)")
    return JString(i, m.end(), json.loads(m.group(0))), m.end()


def _skip(text: str, i: int) -> int:
    return _SPACE.match(text, i).end()  # type: ignore[union-attr]


def _array(text: str, i: int, depth: int) -> tuple[JArray, int]:
    start, i, items = i, _skip(text, i + 1), []
    if text.startswith("]", i):
        return JArray(start, i + 1, ()), i + 1
    while True:
        node, i = _value(text, i, depth)
        items.append(node)
        i = _skip(text, i)
        if text.startswith(",", i):
            i = _skip(text, i + 1)
        elif text.startswith("]", i):
            return JArray(start, i + 1, tuple(items)), i + 1
        else:
            raise ParseError(i, "',' or ']' expected")


def _object(text: str, i: int, depth: int) -> tuple[JObject, int]:
    start, i, items = i, _skip(text, i + 1), []
    if text.startswith("}", i):
        return JObject(start, i + 1, ()), i + 1
    while True:
        if not text.startswith('"', i):
            raise ParseError(i, "a key in double quotes was expected")
        key, i = _string(text, i)
        i = _skip(text, i)
        if not text.startswith(":", i):
            raise ParseError(i, "':' expected after the key")
        value, i = _value(text, _skip(text, i + 1), depth)
        items.append((key, value))
        i = _skip(text, i)
        if text.startswith(",", i):
            i = _skip(text, i + 1)
        elif text.startswith("}", i):
            return JObject(start, i + 1, tuple(items)), i + 1
        else:
            raise ParseError(i, "',' or '}' expected")


def copied(raw: str) -> list[tuple[int, int, int]]:
    """(offset in the decoded string, offset in the raw token `raw`, length) of each stretch copied as is, in order:
    one starts the string and one follows each escape (maybe empty); the last ends at the closing quote."""
    out, i, decoded, start = [], 1, 0, (0, 1)
    while i < len(raw) - 1:
        if raw[i] == "\\":
            out.append((*start, decoded - start[0]))
            step = 2
            if raw[i + 1] == "u":
                step = 6
                high = int(raw[i + 2 : i + 6], 16)
                if 0xD800 <= high < 0xDC00 and raw.startswith("\\u", i + 6):
                    step = 12  # a surrogate pair: one character
            i += step
            decoded += 1
            start = (decoded, i)
        else:
            i += 1
            decoded += 1
    out.append((*start, decoded - start[0]))
    return out
