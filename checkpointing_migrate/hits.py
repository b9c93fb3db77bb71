"""What every file handler shares: the options of a run, a found name in handler coordinates, and the verdicts.

A handler returns `Hit`s with offsets into the piece of text it was given; the file layer maps them to lines and
columns. The verdict functions here decide the severity and write the message, so every handler says the same thing
about the same rename: a `fix` where the gate allows the new name, otherwise an `info` with the reason.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from checkpointing_migrate import codes
from checkpointing_migrate.codes import Applicability, Severity
from checkpointing_migrate.findings import Cell, Edit, link
from checkpointing_migrate.requirements import PLACES, Allowed, Deferred
from checkpointing_migrate.rules import Rules
from checkpointing_migrate.table import Rename, RenameKind

MAX_FILE_SIZE = 10 * 10**6
"""Files bigger than this (bytes) are reported and not read, unless `--max-file-size` says otherwise."""


_T = TypeVar("_T")


class Memo:
    """What a run derives once and every file of it reuses (compiled patterns, modules read to follow imports), by
    type: it travels with `Options` through the per-file copies, so nothing is cached at module level."""

    def __init__(self) -> None:  # a plain class: making a dataclass costs every start-up
        self.made: dict[type, object] = {}

    def once(self, kind: type[_T], make: Callable[[], _T]) -> _T:
        """The run's `kind`, made by `make` the first time a file asks."""
        if kind not in self.made:
            self.made[kind] = make()
        found = self.made[kind]
        assert isinstance(found, kind)
        return found


@dataclass(frozen=True)
class Options:
    """How one run treats every file."""

    rules: Rules
    allowed: Allowed | Deferred
    """The transformers releases the file's project allows."""
    planned: bool = False
    """Also report names the table lists as planned (not renamed in any release yet)."""
    gate: bool = True
    """Apply the version gate; the adoption scan turns it off to classify calls as on the newest release."""
    package: str | None = None
    """Import name of the package being scanned (adoption report): its own API names are not transformers'."""
    verify: bool = True
    """Parse each rewritten file again before offering it; `scan`, which writes nothing, skips that cost."""
    max_size: int | None = MAX_FILE_SIZE
    """Files bigger than this many bytes are reported and skipped; `None`: no limit."""
    select: frozenset[str] | None = None
    """`--select`: report (and fix) only these codes; `None` for all."""
    ignore: frozenset[str] = frozenset()
    """`--ignore`: never report (nor fix) these codes."""

    def reports(self, code: str) -> bool:
        """Whether findings of `code` are kept (their edits applied) in this run."""
        return (self.select is None or code in self.select) and code not in self.ignore

    unsafe_fixes: bool = False
    """Also apply `unsafe` fixes (`--unsafe-fixes`): renames the tool has no evidence for either way."""
    per_file_ignores: tuple[tuple[str, str, frozenset[str]], ...] = ()
    """`per-file-ignores`: (folder the pattern is relative to, pattern, codes never reported in matching files)."""
    strict_ignores: bool = False
    """Report suppression comments that silence nothing (`--strict-ignores`)."""
    keep_text: bool = False
    """Keep every checked file's text and digest, not only a fixed one's (`fix --add-ignore` edits the others)."""
    memo: Memo = field(default_factory=Memo, compare=False, repr=False)
    """The run's derived facts and caches (see `Memo`)."""


@dataclass(frozen=True)
class Hit:
    """A finding with offsets into the text a handler was given (a notebook cell or a Markdown fence is a piece of a
    bigger file)."""

    start: int
    """Offset of the old name in the handler's text."""
    old: str
    new: str | None
    severity: Severity
    code: str
    message: str
    edits: tuple[Edit, ...] = ()
    applicability: Applicability = Applicability.NONE
    """For a `fix`: `SAFE` (applied by `fix --write`) or `UNSAFE` (applied only with `--unsafe-fixes`)."""

    row: Rename | None = None
    """The row the use belongs to (the adoption report looks up what it was measured to do)."""
    via: str | None = None
    """For a keyword, the function or class it is passed to; for an override of only the old method, the class; for
    a lookup by string, its form (see `Finding.via`)."""
    cell: Cell | None = None
    """In a notebook: the cell and the position in it (see `Finding.cell`)."""
    why: str | None = None
    """The short reason of a verdict that has its own (see `Finding.reason`); `None`: derived from the table or the
    registry."""
    defines: bool = False
    """The use defines the old method in a class (see `Finding.defines`)."""
    any_subclass: bool = False
    """A fix on a receiver of a model class or any subclass of it (see `Finding.any_subclass`)."""

    def __post_init__(self) -> None:
        # Every hit passes here: a code missing from the registry, or a severity it cannot have, fails on first use
        # (not as a ValueError, which the file layer would report as a file that does not parse).
        entry = codes.get(self.code)
        if self.severity != entry.severity and not (entry.gated and self.severity == Severity.INFO):
            raise codes.MisusedCode(f"`{self.code}` is a {entry.severity} code, not {self.severity}")


# The guide section that explains the both-versions pattern (`codes.SHARED`'s `both-KIND`), by what the name is.
_BOTH_VERSIONS: dict[RenameKind, str] = {
    RenameKind.METHOD: "script",
    RenameKind.PROPERTY: "library",
    RenameKind.ARGUMENT: "config",
    RenameKind.FIELD: "config",
    RenameKind.CLI_FLAG: "config",
    RenameKind.CONFIG_KEY: "config",
}


ESCAPED = codes.ESCAPED
"""The short reason of a `fix` code reported as `info` because the name is spelt with escapes (see `codes.ESCAPED`)."""


def gate_reason(row: Rename, options: Options) -> str | None:
    """Why `row.new` must not be written for this project, or `None` when every allowed release has it."""
    if not options.gate or row.since is None or not options.allowed.allows_before(row.since):
        return None
    kind = row.kind if row.kind in _BOTH_VERSIONS else RenameKind.METHOD
    pattern, section = codes.shared(f"both-{kind.value}", new=row.new, since=row.since), _BOTH_VERSIONS[kind]
    how = codes.shared("once" if options.allowed.found else "declare", since=row.since, places=PLACES)
    names = {"allowed": options.allowed.describe(), "since": row.since, "new": row.new}
    return f"{codes.shared('gated', pattern=pattern, how=how, **names)}. See {link(section)}"


def deprecation(row: Rename) -> str:
    """`old` is deprecated since ... (the warning the release emits)."""
    warns = codes.shared("warns", category=row.warning.category) if row.warning else ""
    removal = codes.shared("removal", removal=row.removal) if row.removal else ""
    return codes.shared("deprecated", since=row.since, warns=warns, removal=removal)


def rename(
    row: Rename,
    start: int,
    edits: tuple[Edit, ...],
    options: Options,
    *,
    code: str,
    what: str,
    section: str,
    unsafe: str | None = None,
) -> Hit:
    """The verdict for a use of the old name: a `fix` with `edits`, or an `info` when the gate forbids it (with the
    guide's both-versions pattern and the reason).

    `unsafe` says why the tool cannot tell the rename keeps behaviour (no evidence either way about the receiver):
    the fix is then `unsafe`, applied only with `--unsafe-fixes`, and the message says why.
    """
    reason = gate_reason(row, options)
    if reason is not None:
        why = codes.shared("gated-why", allowed=options.allowed.describe(), since=row.since)
        return Hit(start, row.old, row.new, Severity.INFO, code, f"{what}; {reason}", row=row, why=why)
    names = {"what": what, "deprecation": deprecation(row), "new": row.new}
    if unsafe is not None:
        message = f"{codes.shared('unsafe', fix=codes.shared('fix', **names), unsafe=unsafe)}. See {link(section)}"
        return Hit(start, row.old, row.new, Severity.FIX, code, message, edits, Applicability.UNSAFE, row=row)
    return Hit(
        start,
        row.old,
        row.new,
        Severity.FIX,
        code,
        f"{codes.shared('fix', **names)}. See {link(section)}",
        edits,
        Applicability.SAFE,
        row=row,
    )


def hazard(row: Rename, start: int, *, code: str, what: str, section: str) -> Hit:
    """A use whose rewrite could change behaviour: reported for a person, never rewritten."""
    return Hit(start, row.old, row.new, Severity.HAZARD, code, f"{what}. See {link(section)}", row=row)


def registered(row: Rename, start: int, *, code: str, form: str = "", section: str | None = None, **names: str) -> Hit:
    """A hazard or an info whose message is its code's template (`codes.Code.messages`) with `names` filled in: the
    same words whichever file kind it is found in. It links `section`, else the code's own; like `hazard` and
    `info`, only a hazard suggests the new name."""
    entry = codes.get(code)
    message = f"{entry.message(form, **names)}. See {link(section or entry.section)}"
    new = row.new if entry.severity == Severity.HAZARD else None
    return Hit(start, row.old, new, entry.severity, code, message, row=row, why=entry.reasons.get(form))


def info(
    row: Rename, start: int, *, code: str, what: str, section: str, new: str | None = None, why: str | None = None
) -> Hit:
    """A use to know about that needs no change now (or that the tool cannot place); `why`: its short reason, when
    the code's summary is not it."""
    return Hit(start, row.old, new, Severity.INFO, code, f"{what}. See {link(section)}", row=row, why=why)


def planned_hit(rows: tuple[Rename, ...], start: int, old: str) -> Hit:
    """A name the table lists as planned: not renamed in any release, so keep it."""
    return Hit(start, old, None, Severity.INFO, "not-renamed", _planned_message(rows, old))


@functools.lru_cache(maxsize=64)
def _planned_message(rows: tuple[Rename, ...], old: str) -> str:
    """The same for every use of a name (a library tree has thousands)."""
    owners = " / ".join(f"{r.library} {r.owner}" for r in rows)
    return f"{codes.message('not-renamed', old=old, owners=owners)}. See {link('model')}"
