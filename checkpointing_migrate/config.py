"""`[tool.checkpointing-migrate]` in `pyproject.toml`: a project's defaults for `scan` and `fix`, as ruff reads its own.

The closest `pyproject.toml` with that table, walking up from the PATHs' common folder (else the current folder), is
used; a command-line flag wins over its key. A wrong key or value is a `PATH:LINE:COL:` error at its line (tomllib
gives no positions, so the key is found in the text) with a "did you mean", and the run stops with exit code 2.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from checkpointing_migrate import codes
from checkpointing_migrate.declarations import toml_problem
from checkpointing_migrate.findings import FileError
from checkpointing_migrate.located import ToolError
from checkpointing_migrate.requirements import parse_target

if TYPE_CHECKING:
    import tomllib

TABLE = "tool.checkpointing-migrate"
"""The table's name, as written in the header."""

KEYS = {
    "target": 'a requirement string, e.g. target = "transformers>=5.23"',
    "select": 'a list of codes, e.g. select = ["call", "keyword"]',
    "ignore": 'a list of codes, e.g. ignore = ["string-lookup"]',
    "exclude": 'a list of patterns (replaces the default list), e.g. exclude = ["vendor", "/old"]',
    "extend-exclude": 'a list of patterns (added to the default list), e.g. extend-exclude = ["wandb"]',
    "per-file-ignores": 'a table of pattern = list of codes, e.g. per-file-ignores = {"tests/*" = ["call"]}',
    "unsafe-fixes": "true or false",
    "respect-gitignore": "true or false",
    "force-exclude": "true or false",
    "strict-ignores": "true or false",
}
"""Every key, with the value it takes (shown when a value has the wrong type)."""


class ConfigError(ToolError):
    """A configuration that cannot be used; `error` says where and how to fix it."""

    def __init__(self, error: FileError) -> None:
        super().__init__(error.text())
        self.error = error


@dataclass(frozen=True)
class Config:
    """The keys a project set (`None`: not set) and where they were read."""

    path: Path | None = None
    root: Path = field(default_factory=Path.cwd)
    """The folder of the `pyproject.toml` (the current folder without one): patterns are relative to it."""
    target: str | None = None
    select: frozenset[str] | None = None
    ignore: frozenset[str] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    unsafe_fixes: bool | None = None
    respect_gitignore: bool | None = None
    strict_ignores: bool | None = None
    force_exclude: bool | None = None


def find(paths: list[Path]) -> Path | None:
    """The closest `pyproject.toml` with the table, above the PATHs' common folder, else above the current folder."""
    starts = []
    try:
        common = os.path.commonpath([os.path.abspath(p) for p in paths]) if paths else None
    except ValueError:  # paths on different drives
        common = None
    if common is not None:
        starts.append(Path(common) if os.path.isdir(common) else Path(common).parent)
    starts.append(Path.cwd())
    for start in starts:
        for folder in (start, *start.parents):
            candidate = folder / "pyproject.toml"
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "checkpointing-migrate" in text and _has_table(candidate, text):
                return candidate
    return None


def _has_table(path: Path, text: str) -> bool:
    import tomllib  # only for a pyproject.toml that names the tool: most runs have none

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_error(path, text, exc)) from None
    return isinstance(data.get("tool"), dict) and "checkpointing-migrate" in data["tool"]


def _syntax_error(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> FileError:
    at, said = toml_problem(str(path), text, exc)
    return FileError(at.path, at.line, at.column, said)


def load(paths: list[Path]) -> Config:
    """The configuration for a run over `paths` (an empty one when no `pyproject.toml` has the table); raises
    `ConfigError`."""
    path = find(paths)
    if path is None:
        return Config()
    import tomllib

    text = path.read_text(encoding="utf-8")
    table = tomllib.loads(text)["tool"]["checkpointing-migrate"]
    return parse(path, text, table)


def parse(path: Path, text: str, table: object) -> Config:
    """`table` (read from `text` at `path`) checked and turned into a `Config`; raises `ConfigError`."""
    where = _Locator(path, text)
    if not isinstance(table, dict):
        raise ConfigError(where.error(None, codes.problem("config-table", table=TABLE)))
    for key in table:
        if key not in KEYS:
            import difflib  # only on the way to an error message

            near = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
            hint = f"did you mean `{near[0]}`?" if near else f"the keys are {', '.join(KEYS)}"
            raise ConfigError(where.error(key, codes.problem("config-key", key=key, table=TABLE, hint=hint)))
    values: dict[str, object] = {}
    for key, value in table.items():
        attribute = key.replace("-", "_")
        if key in ("unsafe-fixes", "respect-gitignore", "strict-ignores", "force-exclude"):
            values[attribute] = where.expect(key, value, bool)
        elif key == "target":
            try:
                parse_target(str(where.expect(key, value, str)))  # checked here, to be reported at its line
            except ValueError as exc:
                raise ConfigError(where.error(key, f"`target`: {exc}")) from None
            values[attribute] = value
        elif key in ("select", "ignore"):
            values[attribute] = where.codes(key, where.strings(key, value))
        elif key in ("exclude", "extend-exclude"):
            values[attribute] = tuple(where.strings(key, value))
        else:
            if not isinstance(value, dict):
                raise ConfigError(where.error(key, f"`{key}` must be {KEYS[key]}"))
            values[attribute] = tuple(
                (pattern, where.codes(pattern, where.strings(pattern, listed, key), key))
                for pattern, listed in value.items()
            )
    return Config(path, path.parent, **values)  # type: ignore[arg-type]


class _Locator:
    """Finds a key's line in the file's text, and builds the error there."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def position(self, key: str | None, parent: str | None = None) -> tuple[int, int]:
        """Line and column of `key` in the table (or in its sub-table `parent`), else of the table's header."""
        section = TABLE if parent is None else f"{TABLE}.{parent}"
        header = re.compile(r"\s*\[\s*([^\[\]]+?)\s*\]")
        current, header_line = "", None
        for number, line in enumerate(self.lines, 1):
            match = header.match(line)
            if match:
                current = re.sub(r"\s*\.\s*", ".", match[1]).replace('"', "").replace("'", "")
                if current == section or (header_line is None and current == TABLE):
                    header_line = number
                continue
            if key is None or current not in (TABLE, section, "tool", ""):
                continue
            prefix = {TABLE: "", section: "", "tool": "checkpointing-migrate.", "": f"{TABLE}."}[current]
            if current == TABLE and parent is not None:
                prefix = f"{parent}."
            quoted = r"[\"']?"
            parts = [*prefix.split(".")[:-1], key]  # the prefix's parts are plain names; a key may hold dots
            dotted = r"\s*\.\s*".join(quoted + re.escape(p) + quoted for p in parts)
            found = re.match(rf"(\s*){dotted}\s*=", line)
            if found is None and current == TABLE and parent is not None and line.lstrip().startswith(parent):
                found = re.search(rf"(){quoted}{re.escape(key)}{quoted}\s*=", line)  # an inline table
            if found:
                return number, len(found[1]) + 1
        return (header_line or 1), 1

    def error(self, key: str | None, message: str, parent: str | None = None) -> FileError:
        line, column = self.position(key, parent)
        return FileError(str(self.path), line, column, message)

    def expect(self, key: str, value: object, kind: type) -> object:
        if not isinstance(value, kind):
            raise ConfigError(self.error(key, f"`{key}` must be {KEYS[key]}; got {_describe(value)}"))
        return value

    def strings(self, key: str, value: object, parent: str | None = None) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            wanted = KEYS[key] if parent is None else f'a list of codes, e.g. "{key}" = ["call"]'
            raise ConfigError(
                self.error(key, f"{_label(key, parent)} must be {wanted}; got {_describe(value)}", parent)
            )
        return value

    def codes(self, key: str, names: list[str], parent: str | None = None) -> frozenset[str]:
        try:
            return codes.parse_list(",".join(names)) if names else frozenset()
        except codes.UnknownCode as exc:
            line, column = self.position(key, parent)
            bad = next(n.strip() for n in names if n.strip() not in codes.CODES or n.strip() == codes.FILE_ERROR)
            for number in range(line, len(self.lines) + 1):  # the code itself: on the key's line or below it
                for quote in ('"', "'"):
                    at = self.lines[number - 1].find(f"{quote}{bad}{quote}", column - 1 if number == line else 0)
                    if at >= 0:
                        raise ConfigError(
                            FileError(str(self.path), number, at + 2, f"{_label(key, parent)}: {exc}")
                        ) from None
            raise ConfigError(FileError(str(self.path), line, column, f"{_label(key, parent)}: {exc}")) from None


def _label(key: str, parent: str | None) -> str:
    """How a message names the key: `select`, or `per-file-ignores."tests/*"`."""
    return f"`{key}`" if parent is None else f'`{parent}."{key}"`'


def _describe(value: object) -> str:
    kinds = {bool: "a boolean", str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table"}
    return f"{kinds.get(type(value), type(value).__name__)} ({value!r})"
