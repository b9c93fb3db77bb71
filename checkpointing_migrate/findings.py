"""What the migration tool reports: findings (with the edit a `fix` finding applies), file errors, and their output.

A finding is one use of a renamed name. Its severity says what a person has to do: `fix` (the tool can rewrite it,
`safe` or `unsafe`), `hazard` (behaviour may differ: a person must look) or `info` (nothing to change now, or nothing
the tool can be sure of). A message ends with a link to its guide section; a text line shows the short `reason`.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkpointing_migrate.table import Rename

from checkpointing_migrate import NAME, codes
from checkpointing_migrate.codes import Applicability, Severity
from checkpointing_migrate.located import Cell, Located
from checkpointing_migrate.paths import GUIDE_SECTIONS_PATH, IN_CHECKOUT, PACKAGE

SEVERITIES = (Severity.HAZARD, Severity.FIX, Severity.INFO)
"""From most to least urgent (a hazard needs a person, a fix the tool can apply); `--min-severity fix` shows hazards
too. `scan` exits 1 when a `fix` or `hazard` finding is reported."""

GUIDE = "docs/generated/migration-guide.md"
"""The migration guide, relative to the repository root; messages link to its sections."""


def link(section: str | None) -> str:
    """The guide section `section` (a key of `codes.Code.section`; `None`: the page itself): a repository path in a
    checkout, else the hosted page.

    In a checkout the Markdown file itself opens in an editor or on the repository host and matches the code being
    run; an installed wheel links the hosted page at its `Documentation` URL (set once, in pyproject.toml). The
    anchors come from the guide's headings, through the file `python -m generator render` writes beside it."""
    return f"{_guide()}#{anchors()[section]}" if section else _guide()


@functools.cache
def anchors() -> dict[str, str]:
    """Section key → its anchor in the guide, as rendered (`generator.pages.guide_sections`)."""
    import json

    with open(GUIDE_SECTIONS_PATH, encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


@functools.cache
def _guide() -> str:
    if IN_CHECKOUT:
        return GUIDE
    page = GUIDE.removeprefix("docs/").removesuffix(".md")
    return f"{_documentation_url().rstrip('/')}/{page}/"


def _documentation_url() -> str:
    """`Project-URL: Documentation, …` of the installed wheel, read from its METADATA beside the package (as pip
    lays wheels out); `importlib.metadata` finds it too, at a seventh of a pre-commit `scan`'s start-up."""
    prefix = "Project-URL: Documentation, "
    for info in PACKAGE.parent.glob(f"{NAME.replace('-', '_')}-*.dist-info"):
        with open(info / "METADATA", encoding="utf-8") as lines:
            for line in lines:
                if line.startswith(prefix):
                    return line[len(prefix) :].strip()
    from importlib import metadata

    urls = dict(u.split(", ", 1) for u in metadata.metadata(NAME).get_all("Project-URL") or [])
    return urls["Documentation"]


@dataclass(frozen=True)
class Edit:
    """Replace `text[start:end]` (offsets into the decoded file text) with `new`."""

    start: int
    end: int
    new: str


@dataclass(frozen=True)
class Finding:
    """One use of a renamed (or not-yet-renamed) name."""

    path: str
    line: int
    """1-based line in the file."""
    column: int
    """1-based column, in characters."""
    severity: Severity
    """`fix`, `hazard` or `info`."""
    old: str
    new: str | None
    """The name to write instead; `None` when there is none to suggest."""
    code: str
    """Which rule matched, e.g. `call`, `keyword`, `write`: a key of `checkpointing_migrate.codes.CODES`; stable."""
    message: str
    """What was found, what to do, and a link to the guide section."""
    edits: tuple[Edit, ...] = field(default=(), compare=False, repr=False)
    """The text edits that apply the fix (only `fix` findings have them)."""
    row: Rename | None = field(default=None, compare=False, repr=False)
    """The table row the use belongs to; not part of the public output."""
    via: str | None = field(default=None, compare=False, repr=False)
    """For a keyword, the function or class it is passed to; for an override of only the old method, the class; for
    a lookup by string, its form (`getattr`, `getattr with a default`, `hasattr`, `setattr`); not part of the public
    output."""
    applicability: Applicability = Applicability.NONE
    """For a `fix`: `SAFE` (`fix --write` applies it) or `UNSAFE` (only with `--unsafe-fixes`: no evidence either way
    that the rename keeps behaviour); `NONE` for hazards and info (`null` in JSON)."""
    cell: Cell | None = None
    """In a notebook, where the name stands in its cell (`line`/`column` stay the notebook file's, for SARIF and
    editors); `None` in any other file."""
    why: str | None = field(default=None, compare=False, repr=False)
    """The short reason, when the verdict has one of its own (a use the version gate keeps); else `reason` derives it."""
    defines: bool = field(default=False, compare=False, repr=False)
    """The use defines the old method in a class of the project (a `def`, a mixin's, an assignment in the class
    body): a call on a receiver the tool knows only as some model class (`any_subclass`) may reach it
    (`run.across_files`); not part of the public output."""
    any_subclass: bool = field(default=False, compare=False, repr=False)
    """A fix whose receiver is known as an instance of a model class or of any subclass of it (a parameter's
    annotation, a method's `self`), not as built from one; not part of the public output."""

    def applies(self, unsafe_fixes: bool) -> bool:
        """Whether `fix --write` (with `--unsafe-fixes` when `unsafe_fixes`) applies this finding's edits."""
        return self.severity == Severity.FIX and (self.applicability is Applicability.SAFE or unsafe_fixes)

    def as_json(self) -> dict[str, object]:
        """The public fields, as `--format json` writes them."""
        data = asdict(self)
        del data["edits"], data["row"], data["via"], data["why"], data["defines"], data["any_subclass"]
        data["applicability"] = self.applicability.public
        return data

    @property
    def where(self) -> str:
        """`path:line:col`, or in a notebook `path:cell N:line:col` (ruff's form: N counts every cell from 1)."""
        if self.cell is not None:
            return f"{self.path}:cell {self.cell.number}:{self.cell.line}:{self.cell.column}"
        return f"{self.path}:{self.line}:{self.column}"

    @property
    def label(self) -> str:
        """The severity as a text line shows it: an unsafe fix says so."""
        return "fix (unsafe)" if self.applicability is Applicability.UNSAFE else self.severity

    @property
    def reason(self) -> str:
        """One short reason, from the table (a fix: since when the name is deprecated, when it goes) or the registry
        (the code's summary); the whole message stays in `message` (JSON, SARIF) and `explain CODE`."""
        if self.why is not None:
            return self.why
        if self.severity == Severity.FIX and self.row is not None and self.row.since is not None:
            removal = f", removed in {self.row.removal}" if self.row.removal else ""
            return f"deprecated since {self.row.since}{removal}"
        return codes.get(self.code).summary

    def text(self) -> str:
        """One linter-style line: `path:line:col: severity [code] old → new: short reason`."""
        names = f"{self.old} → {self.new}" if self.new else self.old
        return f"{self.where}: {self.label} [{self.code}] {names}: {self.reason}"


@dataclass(frozen=True)
class FileError(Located):
    """A file that could not be checked (not text, not decodable, does not parse): it is left untouched."""

    cell: Cell | None = None
    """In a notebook, where the problem is in its code cell (as a finding's `cell`); `None` in any other file."""

    def text(self) -> str:
        """`path:line:col: error: message`, or in a notebook `path:cell N:line:col: …` (as a finding's `where`)."""
        if self.cell is not None:
            return f"{self.path}:cell {self.cell.number}:{self.cell.line}:{self.cell.column}: error: {self.message}"
        return f"{self.path}:{self.line}:{self.column}: error: {self.message}"


def sort_key(finding: Finding) -> tuple[str, int, int, str]:
    return (finding.path, finding.line, finding.column, finding.old)


def summary(findings: list[Finding], files: int, unsafe_fixes: bool = False, errors: int = 0) -> str:
    """The closing line of the text output: the findings by severity, the files checked and the `errors` that could
    not be (how many fixes `fix --write` applies only with `--unsafe-fixes`, unless `unsafe_fixes` is on)."""
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    parts = ", ".join(f"{n} {s}" for s, n in counts.items())
    unsafe = sum(1 for f in findings if f.severity == Severity.FIX and not f.applies(unsafe_fixes))
    hidden = f"; {unsafe} of the fixes unsafe (applied only with --unsafe-fixes)" if unsafe else ""
    checked = files - errors
    failed = f", {errors} could not be checked" if errors else ""
    return f"{len(findings)} finding{'s' * (len(findings) != 1)} ({parts}) in {checked} file{'s' * (checked != 1)} checked{failed}{hidden}."
