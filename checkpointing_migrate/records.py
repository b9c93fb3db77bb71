"""Typed JSON records: a frozen dataclass read from a JSON document by its field hints, and written back as text.

`load(path, Cls)` checks every value against the hints (str, int, float, bool, Literal, `X | None`, tuple[X, ...],
Mapping[str, X], dataclasses, `object`) and raises `DocumentError` with every problem at its `SOURCE:LINE:COL` and
JSON path (looked up only then); a list item with a problem is skipped so the others are still checked.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from checkpointing_migrate.codes import problem
from checkpointing_migrate.located import Located, ToolError

T = TypeVar("T")

MAX_LISTED = 20
"""Problems listed one per line; past this many, one line counts the rest."""

_KINDS: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}
"""Python type of a parsed JSON value → what the messages call it."""

JsonPath = tuple[str | int, ...]


class DocumentError(ToolError):
    """A JSON document that is missing, not valid JSON or not of the expected shape: every problem at its place."""

    def __init__(self, source: str, problems: list[Located], *, missing: bool = False) -> None:
        if len(problems) > MAX_LISTED:
            problems = [
                *problems[:MAX_LISTED],
                Located(source, 1, 1, f"and {len(problems) - MAX_LISTED} more problems"),
            ]
        self.source, self.problems = source, problems
        self.missing = missing  # the file does not exist: `report` says "measure it", not "measure it again"
        super().__init__("\n".join(str(problem) for problem in problems))

    def report(self, command: str) -> str:
        """Each problem with the command that writes the file (`python -m generator matrix`) to run."""
        again = "" if self.missing else " again"
        return "\n".join(f"{problem}; run `{command}` to measure it{again}" for problem in self.problems)


class _Invalid(Exception):
    """One problem at a JSON path: abandons the list item (or the document) being read."""

    def __init__(self, path: JsonPath, message: str) -> None:
        super().__init__(message)
        self.path, self.message = path, message


def _shown(path: JsonPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _problem(path: JsonPath, what: str) -> _Invalid:
    return _Invalid(path, f"{_shown(path) or 'the document'}: {what}")


def _found(value: object) -> str:
    return _KINDS.get(type(value), "a value")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _build_record(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    if not isinstance(value, dict):
        raise _problem(path, problem("record", what="an object", found=_found(value)))
    fields = {}
    for field in dataclasses.fields(hint):
        if field.name not in value and field.default is not dataclasses.MISSING:
            continue  # a field added with a default: files written before it still load
        if field.name not in value:
            raise _problem((*path, field.name), "missing")
        fields[field.name] = _build(_hints(hint)[field.name], value[field.name], (*path, field.name), problems)
    return hint(**fields)


def _build_optional(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    options = [a for a in get_args(hint) if a is not type(None)]
    if value is None and len(options) < len(get_args(hint)):
        return None
    if len(options) != 1:
        raise TypeError(f"{hint}: only `X | None` unions are supported")
    try:
        return _build(options[0], value, path, problems)
    except _Invalid as exc:
        if exc.path != path:
            raise
        expected = "an object" if dataclasses.is_dataclass(options[0]) else _KINDS.get(options[0], "a value")
        raise _problem(path, f"expected {expected} or null, found {_found(value)}") from None


def _build_literal(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    choices = get_args(hint)
    if value not in choices or not isinstance(value, str):
        shown = json.dumps(value) if isinstance(value, str) else _found(value)
        raise _problem(path, f"expected one of {', '.join(choices)}, found {shown}")
    return value


def _build_tuple(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    item, *rest = get_args(hint)
    if rest != [Ellipsis]:
        raise TypeError(f"{hint}: only tuple[X, ...] is supported")
    if not isinstance(value, list):
        raise _problem(path, problem("record", what="an array", found=_found(value)))
    built = []
    for index, one in enumerate(value):
        if not dataclasses.is_dataclass(item):
            built.append(_build(item, one, (*path, index), problems))
            continue
        try:  # a record with a problem is skipped: the other records are still checked
            built.append(_build(item, one, (*path, index), problems))
        except _Invalid as exc:
            problems.append(exc)
    return tuple(built)


def _build_mapping(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    key, item = get_args(hint)
    if not isinstance(value, dict):
        raise _problem(path, problem("record", what="an object", found=_found(value)))
    return {name: _build(item, one, (*path, name), problems) for name, one in value.items()}


def _build_scalar(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    number = hint is float and isinstance(value, int) and not isinstance(value, bool)
    if not number and (not isinstance(value, hint) or (isinstance(value, bool) and hint is not bool)):
        raise _problem(path, f"expected {_KINDS[hint]}, found {_found(value)}")
    return value


_Builder = Callable[[Any, object, JsonPath, list[_Invalid]], Any]

_BUILDERS: dict[object, _Builder] = {
    Union: _build_optional,
    types.UnionType: _build_optional,
    Literal: _build_literal,
    tuple: _build_tuple,
    dict: _build_mapping,
    Mapping: _build_mapping,
}
"""`get_origin` of a generic hint → the builder for its values."""


def _build(hint: Any, value: object, path: JsonPath, problems: list[_Invalid]) -> Any:
    """`value` checked against `hint` (and dataclasses built); `_Invalid` for the first problem outside list items."""
    if hint is object:
        return value
    if dataclasses.is_dataclass(hint):
        return _build_record(hint, value, path, problems)
    builder = _BUILDERS.get(get_origin(hint))
    if builder is not None:
        return builder(hint, value, path, problems)
    if hint in (str, int, bool, float):
        return _build_scalar(hint, value, path, problems)
    raise TypeError(f"{hint}: not a type a JSON record can hold")


def _position(text: str | None, path: JsonPath) -> tuple[int, int]:
    """(line, column) of the value at `path` in `text` (or of the deepest object on it, for a missing key)."""
    if text is None:
        return 1, 1
    from checkpointing_migrate import jsonpos  # only a document with a problem needs positions

    node: jsonpos.JNode = jsonpos.parse(text)
    for part in path:
        child = None
        if isinstance(part, int) and isinstance(node, jsonpos.JArray) and part < len(node.items):
            child = node.items[part]
        elif isinstance(part, str) and isinstance(node, jsonpos.JObject):
            child = node.get(part)
        if child is None:
            break
        node = child
    line = text.count("\n", 0, node.start) + 1
    return line, node.start - (text.rfind(chr(10), 0, node.start) + 1) + 1


def from_value(value: object, cls: type[T], source: str, text: str | None = None) -> T:
    """`cls` built from an already parsed JSON `value`; `DocumentError` lists every problem (`source` names the
    document; `text`, when given, is what `value` was parsed from and gives the problems their positions)."""
    problems: list[_Invalid] = []
    try:
        built = _build(cls, value, (), problems)
    except _Invalid as exc:
        problems.append(exc)
    if not problems:
        return built  # type: ignore[no-any-return]
    raise DocumentError(source, [Located(source, *_position(text, p.path), p.message) for p in problems])


def loads(text: str, cls: type[T], source: str) -> T:
    """`cls` built from the JSON `text`; `DocumentError` for text that is not JSON or not of `cls`'s shape."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(source, [Located(source, exc.lineno, exc.colno, f"not valid JSON ({exc.msg})")]) from None
    return from_value(value, cls, source, text)


def load(path: Path, cls: type[T]) -> T:
    """`cls` built from the JSON file `path`; `DocumentError` names the file and every problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DocumentError(str(path), [Located(str(path), 1, 1, "missing")], missing=True) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(str(path), [Located(str(path), 1, 1, f"cannot read ({exc})")]) from None
    return loads(text, cls, str(path))


def dump(data: object) -> str:
    """The committed text of a data file (a record or a mapping): field order kept, one value per line, so diffs are
    readable."""
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        data = dataclasses.asdict(data)
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
