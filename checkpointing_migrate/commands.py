"""`python -m generator scan|fix PATH...`, `rules` and `explain CODE`: the migration tool's CLI.

Exit codes: 0 clean; 1 a `fix` or `hazard` finding is reported, a file could not be checked or written, or (`fix
--diff`) a rewrite is pending; 2 usage error (bad option, unknown code or path, a `--target` no release meets).
Only `safe` fixes are applied unless `--unsafe-fixes` is given (ruff's terms); `--select`/`--ignore` keep or drop codes.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from checkpointing_migrate import codes, formats
from checkpointing_migrate import rules as rules_module
from checkpointing_migrate.files import Result, describe_size, parse_size
from checkpointing_migrate.findings import SEVERITIES, FileError, Finding, link, sort_key, summary
from checkpointing_migrate.hits import MAX_FILE_SIZE, Options
from checkpointing_migrate.requirements import Allowed, Finder, parse_target
from checkpointing_migrate.run import check_all
from checkpointing_migrate.table import TableError, load


def add_arguments(sub: argparse.ArgumentParser, command: str, table_default: Path) -> None:
    """The options of `scan` or `fix` (`command`); the parser itself lives in `generator/cli.py`."""
    sub.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders to check")
    sub.add_argument(
        "--target",
        metavar="REQ",
        help="the transformers releases to support, e.g. 'transformers==5.20.0' (default: the project's requirement)",
    )
    sub.add_argument(
        "--include-planned", action="store_true", help="also report names not renamed in any release yet, as info"
    )
    sub.add_argument("--table", type=Path, default=table_default, help="the alias table (default: %(default)s)")
    sub.add_argument(
        "--select", metavar="CODES", help="report (and fix) only these codes, comma-separated (`rules` lists them)"
    )
    sub.add_argument("--ignore", metavar="CODES", help="neither report nor fix these codes, comma-separated")
    sub.add_argument(
        "--max-file-size",
        type=_size,
        default=MAX_FILE_SIZE,
        metavar="SIZE",
        help=f"report bigger files and skip them, e.g. 50MB (default: {describe_size(MAX_FILE_SIZE)})",
    )
    sub.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply (fix) or count as applicable (scan) the unsafe fixes: renames without evidence either way that the receiver is a transformers object",
    )
    if command == "scan":
        sub.add_argument("--format", choices=formats.FORMATS, default="text", help="output format (default: text)")
        sub.add_argument(
            "--min-severity",
            choices=SEVERITIES[::-1],
            default="info",
            help="hide findings below this severity (default: info)",
        )
        return
    sub.add_argument(
        "--format",
        choices=formats.FORMATS,
        default="text",
        help="format of the findings left for a person, on stderr (default: text)",
    )
    mode = sub.add_mutually_exclusive_group()
    mode.add_argument(
        "--diff", action="store_true", help="print a unified diff of the rewrites and write nothing (the default)"
    )
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    _add_verify_arguments(sub)


def _add_verify_arguments(sub: argparse.ArgumentParser) -> None:
    """`fix --write --verify CMD` (`checkpointing_migrate.verify`)."""
    sub.add_argument(
        "--verify",
        metavar="CMD",
        help="with --write: run this shell command line (e.g. 'pytest -q') before and after the rewrites; it must pass "
        "before, and the files whose rewrite makes it fail are found by bisection and put back (exit 1)",
    )
    sub.add_argument(
        "--verify-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="kill a --verify run that takes longer; it counts as failing (default: no limit)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds greater than 0, e.g. 300")
    return value


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """`rules`: list every finding code."""
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_explain_arguments(parser: argparse.ArgumentParser) -> None:
    """`explain CODE`: what a code means, with an example."""
    parser.add_argument("code", metavar="CODE", help="a finding code, as shown in brackets (`rules` lists them)")


def _selection(args: argparse.Namespace) -> tuple[frozenset[str] | None, frozenset[str]] | int:
    try:
        select = codes.parse_list(args.select) if args.select is not None else None
        ignore = codes.parse_list(args.ignore) if args.ignore is not None else frozenset()
    except codes.UnknownCode as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return select, ignore


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _setup(args: argparse.Namespace) -> tuple[Options, Finder] | int:
    selection = _selection(args)
    if isinstance(selection, int):
        return selection
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        for p in missing:
            print(f"{p}: no such file or folder", file=sys.stderr)
        return 2
    target: Allowed | None = None
    if args.target is not None:
        try:
            target = parse_target(args.target)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    try:
        table = load(args.table)
    except TableError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        rules = rules_module.from_table(table)
    except (OSError, ValueError) as exc:
        print(f"{rules_module.CLASSES_PATH}: cannot read the measured class data: {exc}", file=sys.stderr)
        return 2
    options = Options(
        rules,
        target or Allowed(None, ""),
        planned=args.include_planned,
        select=selection[0],
        ignore=selection[1],
        max_size=args.max_file_size,
        unsafe_fixes=args.unsafe_fixes,
    )
    return options, Finder(target)


def _errors(results: list[Result]) -> list[FileError]:
    return [r.error for r in results if r.error is not None]


def _findings(results: list[Result]) -> list[Finding]:
    return sorted((f for r in results for f in r.findings), key=sort_key)


def _report(fmt: str, findings: list[Finding], errors: list[FileError], out: TextIO) -> None:
    """The findings and file errors in a machine-readable format (text output is written by each command)."""
    render = {"json": formats.to_json, "github": formats.to_github, "sarif": formats.to_sarif}[fmt]
    text = render(findings, errors)
    if text:
        print(text, file=out)


def scan(args: argparse.Namespace) -> int:
    """One line per finding (`path:line:col: severity [code] old → new: message`), or `--format json|github|sarif`
    (`checkpointing_migrate.formats`)."""
    setup = _setup(args)
    if isinstance(setup, int):
        return setup
    options, finder = setup
    results = check_all(args.paths, replace(options, verify=False), finder)
    errors = _errors(results)
    findings = _findings(results)
    shown = [f for f in findings if SEVERITIES.index(f.severity) <= SEVERITIES.index(args.min_severity)]
    if args.format == "text":
        for error in errors:
            print(error.text(), file=sys.stderr)
        for finding in shown:
            print(finding.text())
        print(summary(shown, len(results), args.unsafe_fixes))
    else:
        _report(args.format, shown, errors, sys.stdout)
    return 1 if errors or any(f.severity in ("fix", "hazard") for f in findings) else 0


def fix(args: argparse.Namespace) -> int:
    """`--diff` (the default) prints a unified diff and writes nothing; `--write` rewrites in place, all files or none
    (`checkpointing_migrate.plan`: one `PATH:1:1: error:` line per file that cannot be written safely, and nothing
    written). The remaining findings (an unsafe fix not applied stays listed) go to stderr."""
    setup = _setup(args)
    if isinstance(setup, int):
        return setup
    if (args.verify is not None or args.verify_timeout is not None) and not args.write:
        print("error: --verify and --verify-timeout need --write (they check the files written)", file=sys.stderr)
        return 2
    results = check_all(args.paths, *setup)
    errors = _errors(results)
    changed = [r for r in results if r.fixed is not None and r.error is None]
    verified = None
    if args.write and changed and args.verify is not None:
        from checkpointing_migrate.verify import verify_write

        verified = verify_write(changed, args.verify, args.verify_timeout)
        if verified.code not in (0, 1):
            return verified.code
        changed = [r for r in changed if r.path in verified.kept]
    elif args.write and changed:
        from checkpointing_migrate.plan import write_all  # only `fix --write` writes: scan never loads it

        outcome = write_all(changed)
        for problem in outcome.problems:
            print(problem.text(), file=sys.stderr)
        if outcome.not_written:  # a write failed after every check passed (a full disk): say exactly where it stopped
            print(
                f"wrote {', '.join(outcome.written) or 'nothing'}; not written: {', '.join(outcome.not_written)}. "
                "Run again to finish: the written files are complete and are not rewritten twice.",
                file=sys.stderr,
            )
            return 1
        if outcome.problems:
            print(
                f"nothing was written: {len(outcome.problems)} of {len(changed)} files cannot be written safely; "
                "fix the problems above and run again.",
                file=sys.stderr,
            )
            return 1
    import difflib  # only `fix` shows a diff

    for result in changed if not args.write else ():
        assert result.fixed is not None and result.original is not None
        sys.stdout.writelines(
            difflib.unified_diff(
                result.original.splitlines(keepends=True),
                result.fixed.splitlines(keepends=True),
                *_diff_names(result.path),
            )
        )
    findings = _findings(results)
    written = {r.path for r in changed}
    left = [f for f in findings if not (f.applies(args.unsafe_fixes) and f.path in written)]
    if args.format == "text":
        for error in errors:
            print(error.text(), file=sys.stderr)
        for finding in left:
            print(finding.text(), file=sys.stderr)
        fixed = sum(1 for f in findings if f.severity == "fix") - sum(1 for f in left if f.severity == "fix")
        verb = "rewrote" if args.write else "would rewrite"
        print(
            f"{verb} {fixed} name{'s' * (fixed != 1)} in {len(changed)} file{'s' * (len(changed) != 1)}; {len(left)} finding{'s' * (len(left) != 1)} left for a person.",
            file=sys.stderr,
        )
    else:
        _report(args.format, left, errors, sys.stderr)
    pending = bool(changed) and not args.write
    return (
        1
        if errors
        or pending
        or (verified is not None and verified.code)
        or any(f.severity in ("fix", "hazard") for f in left)
        else 0
    )


def rules(args: argparse.Namespace) -> int:
    """List every code: code, severity, effect, summary (or `--format json`: the registry's public fields)."""
    entries = list(codes.CODES.values())
    if args.format == "json":
        data = [
            {
                "code": c.code,
                "severity": c.severity,
                "gated": c.gated,
                "effect": c.effect,
                "guide": link(c.section),
                "summary": c.summary,
            }
            for c in entries
        ]
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    width = max(len(c.code) for c in entries)
    for c in entries:
        severity = f"{c.severity}/info" if c.gated else c.severity
        print(f"{c.code:<{width}}  {severity:<8}  {c.effect or '-':<14}  {c.summary}")
    return 0


def explain(args: argparse.Namespace) -> int:
    """What `args.code` means, when it is `info` instead, its effect, the guide section, and an example."""
    try:
        c = codes.get(args.code)
    except codes.UnknownCode as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    severity = (
        f"{c.severity} (info when this use is not rewritten, e.g. an allowed release predates the rename)"
        if c.gated
        else c.severity
    )
    name, example = c.example
    lines = [
        f"{c.code}: {c.summary}",
        "",
        f"severity: {severity}",
        f"effect on transformers releases with the rename: {c.effect or 'not determined (the tool cannot tell what the name refers to)'}",
        f"guide: {link(c.section)}",
        "",
        c.explanation,
        "",
        f"Example ({name}{', scanned with ' + ' '.join(c.args) if c.args else ''}):",
        "",
        *(f"    {line}" for line in example.splitlines()),
    ]
    print("\n".join(lines))
    return 0


def _diff_names(name: str) -> tuple[str, str]:
    """`a/PATH` and `b/PATH` for a relative path (as `git apply -p1` expects), the path itself when absolute."""
    return (name, name) if Path(name).is_absolute() else (f"a/{name}", f"b/{name}")
