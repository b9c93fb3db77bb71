"""`fix --add-ignore`: end each line that keeps a `fix` or `hazard` finding with a suppression comment (ruff's
`--add-noqa`), written with the fixes, all files or none (`plan`). The comment goes on the line that carries the
finding's line (`suppress.carriers`), merged into one already there; a second run adds nothing. `info` findings are
left alone: they ask nothing now, and a silenced one would hide the rename later.
"""

from __future__ import annotations

from dataclasses import replace

from checkpointing_migrate import kinds, suppress
from checkpointing_migrate.codes import Severity, message
from checkpointing_migrate.files import Result, apply, reparse
from checkpointing_migrate.findings import Edit, FileError, Finding

SILENCED = (Severity.FIX, Severity.HAZARD)
"""The severities a comment is added for."""


def annotate_all(results: list[Result], unsafe_fixes: bool) -> tuple[list[Result], set[int], list[FileError]]:
    """Every result with its comments added to its fixed text, the `id`s of the findings they silence, and a note
    for each finding no comment can be added for."""
    out, silenced, notes = [], set(), []
    for result in results:
        annotated, ids, problems = annotate(result, unsafe_fixes)
        out.append(annotated)
        silenced |= ids
        notes += problems
    return out, silenced, notes


def annotate(result: Result, unsafe_fixes: bool) -> tuple[Result, set[int], list[FileError]]:
    """`result` with comments for its findings left after fixing (see the module)."""
    left = [f for f in result.findings if f.severity in SILENCED and not f.applies(unsafe_fixes)]
    if not left or result.error is not None or result.original is None:
        return result, set(), []
    text, kind = result.original, kinds.kind_of(result.path) or kinds.FileKind.PYTHON
    if kind not in kinds.WRITABLE:
        return result, set(), [_note(f, message("file-error", "no-ignore-kind", kind=kind)) for f in left]
    carried = suppress.carriers(text, kind)
    existing = suppress.directives(text, kind)
    wanted: dict[int, list[str]] = {}
    owners: dict[int, list[Finding]] = {}
    notes = []
    for finding in left:
        line = carried.get(finding.line, finding.line)
        if line is None:
            notes.append(_note(finding, message("file-error", "no-ignore-block")))
            continue
        wanted.setdefault(line, []).append(finding.code)
        owners.setdefault(line, []).append(finding)
    starts = suppress.line_starts(text)
    edits = [e for f in result.findings if f.applies(unsafe_fixes) for e in f.edits]
    for line, names in wanted.items():
        edits.append(_comment(text, starts, line, names, existing.get(line)))
    fixed = apply(text, edits)
    try:
        reparse(fixed, kind)
    except (SyntaxError, ValueError) as exc:  # a carrier rule missed a case: write nothing there
        problem = FileError(result.path, 1, 1, message("file-error", "ignore-breaks", error=exc))
        return result, set(), [problem]
    ids = {id(f) for found in owners.values() for f in found}
    return replace(result, fixed=fixed), ids, notes


def _comment(text: str, starts: list[int], line: int, names: list[str], old: suppress.Directive | None) -> Edit:
    if old is not None:  # merge: the codes already named first, in their order, then the new ones
        merged = None if old.codes is None else tuple(dict.fromkeys([*old.codes, *sorted(names)]))
        return Edit(old.start, old.end, suppress.render(merged))
    end = starts[line] if line < len(starts) else len(text)
    content = text[starts[line - 1] : end].rstrip("\r\n")
    stripped = content.rstrip()
    at = starts[line - 1] + len(stripped)
    return Edit(at, starts[line - 1] + len(content), "  " + suppress.render(tuple(sorted(set(names)))))


def _note(finding: Finding, why: str) -> FileError:
    return FileError(
        finding.path, finding.line, finding.column, message("file-error", "no-ignore", silenced=finding.code, why=why)
    )
