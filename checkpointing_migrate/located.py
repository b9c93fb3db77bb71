"""Problems with a position, one type each: `Located`, a message at PATH:LINE:COL (a file that cannot be checked, a
problem in the table or in a data file; raised as `LocatedError`: a requirement that cannot be read), and
`ParseError`, text that does not parse at an offset its caller turns into LINE:COL (a config, a notebook cell, JSON).
`ToolError` is the base of every error a user can act on; `Cell` a place inside a notebook's code cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True)
class Position:
    """Where something stands in a file (1-based, as editors count)."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Located(Position):
    """A message about one place in a file."""

    message: str
    """What is wrong and how to fix it."""

    @classmethod
    def at(cls, position: Position, message: str) -> Self:
        return cls(position.path, position.line, position.column, message)

    @property
    def position(self) -> Position:
        return Position(self.path, self.line, self.column)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


class ToolError(Exception):
    """The base of every error a user can act on (a table, data file, config, requirement or text with a problem):
    its message says where and how to fix it, and the command line prints it and exits 2, never a traceback."""


@dataclass(frozen=True)
class Cell:
    """A position inside a notebook's code cell: `number` counts every cell (Markdown too) from 1, `line` and
    `column` (1-based) are in the cell's source."""

    number: int
    line: int
    column: int


class ParseError(ToolError, ValueError):
    """Text that does not parse; `offset` (into that text) is where the parser stopped, and `cell` where that is
    in a notebook's code cell (which is what the user edits)."""

    def __init__(self, offset: int, message: str, cell: Cell | None = None) -> None:
        super().__init__(message)
        self.offset = offset
        self.cell = cell


class LocatedError(ToolError, ValueError):
    """A `Located` problem raised (a requirement that cannot be read): `str()` is `PATH:LINE:COL: message`."""

    def __init__(self, at: Position, message: str) -> None:
        self.problem = Located.at(at, message)
        super().__init__(str(self.problem))
