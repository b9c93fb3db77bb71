"""The machine-readable outputs of `scan` (and of `fix`'s remaining findings): JSON, GitHub annotations, SARIF 2.1.0.

Each takes the findings and the files that could not be checked, and returns the whole text; a file error is an
entry of the output like a finding (code `file-error`, severity `error`), so no format loses it. Rule metadata comes
from `checkpointing_migrate.codes`. A notebook finding keeps the file's line (see `_text` for the cell).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import PurePath
from urllib.parse import quote

from checkpointing_migrate import NAME, codes, paths
from checkpointing_migrate.codes import Severity
from checkpointing_migrate.findings import FileError, Finding, link

FORMATS = ("text", "json", "github", "sarif")
"""The values of `--format`."""

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
"""`$schema` of the SARIF log: the address GitHub code scanning and the SARIF SDK write."""

_SARIF_LEVEL = {Severity.FIX: "warning", Severity.HAZARD: "error", Severity.INFO: "note", Severity.ERROR: "error"}
"""Severity → SARIF `level`: a hazard needs a person, like an error; a fix is a warning the tool can clear."""

_GITHUB_COMMAND = {Severity.FIX: "warning", Severity.HAZARD: "error", Severity.INFO: "notice", Severity.ERROR: "error"}
"""Severity → GitHub workflow command, with the same reasoning as the SARIF levels."""


def error_entry(error: FileError) -> dict[str, object]:
    """A file error as a JSON entry with the same keys as a finding."""
    return {
        "path": error.path,
        "line": error.line,
        "column": error.column,
        "severity": Severity.ERROR,
        "old": None,
        "new": None,
        "code": codes.FILE_ERROR,
        "message": error.message,
        "applicability": None,
        "cell": None if error.cell is None else asdict(error.cell),
    }


def to_json(findings: list[Finding], errors: list[FileError]) -> str:
    """A JSON list: one object per finding (`Finding.as_json`), then one per file error (`error_entry`)."""
    entries = [f.as_json() for f in findings] + [error_entry(e) for e in errors]
    return json.dumps(entries, indent=2, ensure_ascii=False)


def _escape_data(text: str) -> str:
    # GitHub's workflow-command escaping (toolkit's `escapeData`): `%` first, so the escapes are not escaped again.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, path: str, line: int, column: int, title: str, message: str) -> str:
    props = ",".join(
        f"{k}={_escape_property(str(v))}"
        for k, v in (("file", path), ("line", line), ("col", column), ("title", title))
    )
    return f"::{kind} {props}::{_escape_data(message)}"


def _text(f: Finding) -> str:
    """`old → new: message`, after the place in the notebook cell when there is one.

    GitHub and SARIF locate a finding by the notebook file's line (where the name stands in its JSON, so a viewer lands
    on it), which says nothing about the cell: the message starts with `cell N:LINE:COL`, JSON has `cell` as a field."""
    names = f"{f.old} → {f.new}" if f.new else f.old
    cell = f"cell {f.cell.number}:{f.cell.line}:{f.cell.column}: " if f.cell is not None else ""
    return f"{cell}{names}: {f.message}"


def to_github(findings: list[Finding], errors: list[FileError]) -> str:
    """One GitHub Actions annotation per line: `::warning file=F,line=L,col=C,title=CODE::old → new: message`."""
    lines = []
    for f in findings:
        lines.append(_command(_GITHUB_COMMAND[f.severity], f.path, f.line, f.column, f.code, _text(f)))
    for e in errors:
        lines.append(_command(_GITHUB_COMMAND["error"], e.path, e.line, e.column, codes.FILE_ERROR, e.message))
    return "\n".join(lines)


def _uri(path: str) -> str:
    """A file path as a SARIF URI: relative paths stay relative (to the folder the tool ran in), absolute ones are `file:`."""
    pure = PurePath(path)
    return pure.as_uri() if pure.is_absolute() else quote(pure.as_posix())


def _absolute(address: str) -> str:
    """A guide link as the absolute URI SARIF requires: a URL as it is, a repository path as a `file:` URI."""
    if "://" in address:
        return address
    path, _, anchor = address.partition("#")
    return (paths.PACKAGE.parent / path).as_uri() + (f"#{anchor}" if anchor else "")


def _help_uri(code: codes.Code) -> str:
    return _absolute(link(code.section))


def _rule(code: codes.Code) -> dict[str, object]:
    example_name, example = code.example
    return {
        "id": code.code,
        "shortDescription": {"text": code.summary},
        "fullDescription": {"text": code.explanation},
        "help": {"text": f"{code.explanation}\n\nExample ({example_name}):\n{example}"},
        "helpUri": _help_uri(code),
        "defaultConfiguration": {"level": _SARIF_LEVEL[code.severity]},
        "properties": {"severity": code.severity, **({"effect": code.effect} if code.effect else {})},
    }


def _driver() -> dict[str, object]:
    from importlib import metadata  # only for SARIF: it costs a pre-commit `scan` a seventh of its start-up

    driver: dict[str, object] = {"name": NAME, "informationUri": _absolute(link(None))}
    try:
        driver["version"] = metadata.version(NAME)
    except metadata.PackageNotFoundError:
        pass  # run from a checkout that is not installed: SARIF's `version` is optional, and no number is invented
    driver["rules"] = [_rule(c) for c in codes.CODES.values()]
    return driver


def _result(
    index: dict[str, int], code: str, level: str, text: str, path: str, line: int, column: int
) -> dict[str, object]:
    location = {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(path)},
            "region": {"startLine": line, "startColumn": column},
        }
    }
    return {
        "ruleId": code,
        "ruleIndex": index[code],
        "level": level,
        "message": {"text": text},
        "locations": [location],
    }


def to_sarif(findings: list[Finding], errors: list[FileError]) -> str:
    """A SARIF 2.1.0 log with one run: the registry as `tool.driver.rules`, a result per finding and file error."""
    index = {c: i for i, c in enumerate(codes.CODES)}
    results = [
        _result(
            index,
            f.code,
            _SARIF_LEVEL[f.severity],
            _text(f),
            f.path,
            f.line,
            f.column,
        )
        for f in findings
    ]
    results += [_result(index, codes.FILE_ERROR, "error", e.message, e.path, e.line, e.column) for e in errors]
    run = {"tool": {"driver": _driver()}, "columnKind": "unicodeCodePoints", "results": results}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)
