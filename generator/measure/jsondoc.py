"""Typed reading of a JSON document: each value is checked where it is read, and named by its JSON path.

`load(path, build)` runs `build` on the file's root `JsonObject`; a value that is missing or of the wrong type abandons
the list item it is in (the other items are still read), and every problem is raised at once as `DocumentError`, one
`SOURCE:LINE:COL: what is wrong at which JSON path` line each. `dump` is the text each data file is written as.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
V = TypeVar("V")
S = TypeVar("S", bound=str)

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


class DocumentError(Exception):
    """A JSON document that is missing, not valid JSON or not of the expected shape: `LINE:COL: problem` each."""

    def __init__(self, source: str, problems: list[str], *, missing: bool = False) -> None:
        if len(problems) > MAX_LISTED:
            problems = [*problems[:MAX_LISTED], f"1:1: and {len(problems) - MAX_LISTED} more problems"]
        self.source, self.problems = source, problems
        self.missing = missing  # the file does not exist: `report` says "measure it", not "measure it again"
        super().__init__("\n".join(f"{source}:{problem}" for problem in problems))

    def report(self, command: str) -> str:
        """Each problem with the command that writes the file (`python -m generator matrix`) to run."""
        again = "" if self.missing else " again"
        return "\n".join(f"{self.source}:{problem}; run `{command}` to measure it{again}" for problem in self.problems)


class _Invalid(Exception):
    """One problem, `JSON.PATH: what is wrong`: abandons the list item (or the document) being read."""


def _checked(where: str, value: object, kind: type[V], expected: str | None = None) -> V:
    """`value` if it is a `kind` (JSON `true` is no integer), else `_Invalid` naming `where`."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise _Invalid(f"{where}: expected {expected or _KINDS[kind]}, found {_KINDS.get(type(value), 'a value')}")
    return value


@dataclass(frozen=True)
class JsonObject:
    """An object of a JSON document, with its path in the document (`releases[2].outcomes[5]`; empty: the root)."""

    fields: Mapping[str, object]
    path: str
    problems: list[str]
    """Shared by every object of one document: the problems of the list items abandoned so far."""

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def _get(self, key: str) -> object:
        if key not in self.fields:
            raise _Invalid(f"{self._at(key)}: missing")
        return self.fields[key]

    def text(self, key: str) -> str:
        return _checked(self._at(key), self._get(key), str)

    def integer(self, key: str) -> int:
        return _checked(self._at(key), self._get(key), int)

    def boolean(self, key: str) -> bool:
        return _checked(self._at(key), self._get(key), bool)

    def one_of(self, key: str, choices: tuple[S, ...]) -> S:
        """A string that must be one of `choices` (the words a page keys its legend or order by)."""
        value = self.text(key)
        for choice in choices:
            if value == choice:
                return choice
        raise _Invalid(f"{self._at(key)}: expected one of {', '.join(choices)}, found {json.dumps(value)}")

    def array(self, key: str, kind: type[V]) -> tuple[V, ...]:
        """An array whose items are all `kind` (`str`, `int`)."""
        values = _checked(self._at(key), self._get(key), list)
        return tuple(_checked(f"{self._at(key)}[{i}]", value, kind) for i, value in enumerate(values))

    def mapping(self, key: str, kind: type[V]) -> dict[str, V]:
        """An object whose values are all `kind`, in the file's order."""
        values = _checked(self._at(key), self._get(key), dict)
        return {name: _checked(f"{self._at(key)}.{name}", value, kind) for name, value in values.items()}

    def optional_mapping(self, key: str) -> Mapping[str, object] | None:
        """An object of any values, or null."""
        value = self._get(key)
        return None if value is None else _checked(self._at(key), value, dict, "an object or null")

    def record(self, key: str, build: Callable[[JsonObject], T]) -> T:
        """The object at `key`, built by `build`."""
        return build(JsonObject(_checked(self._at(key), self._get(key), dict), self._at(key), self.problems))

    def optional_record(self, key: str, build: Callable[[JsonObject], T]) -> T | None:
        """The object at `key` built by `build`, or `None` for null."""
        value = self._get(key)
        if value is None:
            return None
        return build(
            JsonObject(_checked(self._at(key), value, dict, "an object or null"), self._at(key), self.problems)
        )

    def records(self, key: str, build: Callable[[JsonObject], T]) -> tuple[T, ...]:
        """The array of objects at `key`, each built by `build`; an item with a problem is recorded and skipped."""
        built = []
        for index, value in enumerate(_checked(self._at(key), self._get(key), list)):
            where = f"{self._at(key)}[{index}]"
            try:
                built.append(build(JsonObject(_checked(where, value, dict), where, self.problems)))
            except _Invalid as exc:
                self.problems.append(str(exc))
        return tuple(built)


def parse(document: Mapping[str, object], build: Callable[[JsonObject], T], source: str) -> T:
    """`build` run on the document's root object; `DocumentError` lists every problem (`source` names the document)."""
    problems: list[str] = []
    try:
        built = build(JsonObject(document, "", problems))
    except _Invalid as exc:
        problems.append(str(exc))
    else:
        if not problems:
            return built
    raise DocumentError(source, [f"1:1: {problem}" for problem in problems])


def dump(data: Mapping[str, object]) -> str:
    """The committed text of a data file: stable key order, one value per line, so diffs are readable."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _read_object(path: Path) -> dict[str, object]:
    """The JSON object a file holds; `DocumentError` when it is missing, unreadable, not JSON or not an object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DocumentError(str(path), ["1:1: missing"], missing=True) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(str(path), [f"1:1: cannot read ({exc})"]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(str(path), [f"{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg})"]) from None
    if not isinstance(data, dict):
        raise DocumentError(str(path), ["1:1: expected a JSON object"])
    return data


def load(path: Path, build: Callable[[JsonObject], T]) -> T:
    """The file's root object built by `build`; `DocumentError` names the file and every problem."""
    return parse(_read_object(path), build, str(path))
