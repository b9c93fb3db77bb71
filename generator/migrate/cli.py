"""`python -m generator scan PATH...` and `python -m generator fix PATH... [--write]`: the migration tool's CLI.

scan: one line per finding (`path:line:col: severity [code] old → new: message`) or `--format json`; exit 1 when
a `fix` or `hazard` finding (or a file that could not be checked) is reported, 0 when clean, 2 on usage errors.
fix: without `--write`, a unified diff of what would change (nothing is written); with it, the files are rewritten
in place. Only `safe` fixes are applied unless `--unsafe-fixes` is given (ruff's terms): an unsafe fix is a rename
the tool has no evidence for either way, and stays listed. Findings that were not rewritten (hazards, version-gated renames) are listed on stderr; exit 1 while
any hazard or unchecked file remains (or, without `--write`, while a fix is pending), else 0.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
import difflib
import sys
from pathlib import Path

from generator.migrate import rules as rules_module
from generator.migrate.files import Result, write_atomically
from generator.migrate.findings import SEVERITIES, Finding, summary, to_json
from generator.migrate.hits import Options
from generator.migrate.requirements import Allowed, Finder, parse_target
from generator.migrate.run import check_all
from generator.table import TableError, load


def add_arguments(scan: argparse.ArgumentParser, fix: argparse.ArgumentParser, table_default: Path) -> None:
    """The options of the two subcommands (the parser itself lives in `generator/__main__.py`)."""
    for sub in (scan, fix):
        sub.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders to check")
        sub.add_argument("--target", metavar="REQ", help="the transformers releases to support, e.g. 'transformers==5.20.0' (default: the project's requirement)")
        sub.add_argument("--include-planned", action="store_true", help="also report names not renamed in any release yet, as info")
        sub.add_argument("--table", type=Path, default=table_default, help="the alias table (default: %(default)s)")
        sub.add_argument("--unsafe-fixes", action="store_true", help="also apply (fix) or count as applicable (scan) the unsafe fixes: renames without evidence either way that the receiver is a transformers object")
    scan.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    scan.add_argument("--min-severity", choices=SEVERITIES[::-1], default="info", help="hide findings below this severity (default: info)")
    fix.add_argument("--write", action="store_true", help="rewrite the files in place (default: print a diff)")


def _setup(args: argparse.Namespace) -> tuple[Options, Finder] | int:
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
    options = Options(rules, target or Allowed(None, ""), planned=args.include_planned, unsafe_fixes=args.unsafe_fixes)
    return options, Finder(target)


def _errors(results: list[Result]) -> int:
    errors = [r.error for r in results if r.error is not None]
    for error in errors:
        print(error.text(), file=sys.stderr)
    return len(errors)


def _findings(results: list[Result]) -> list[Finding]:
    return sorted((f for r in results for f in r.findings), key=lambda f: (f.path, f.line, f.column, f.old))


def scan(args: argparse.Namespace) -> int:
    setup = _setup(args)
    if isinstance(setup, int):
        return setup
    options, finder = setup
    results = check_all(args.paths, replace(options, verify=False), finder)
    errors = _errors(results)
    findings = _findings(results)
    shown = [f for f in findings if SEVERITIES.index(f.severity) <= SEVERITIES.index(args.min_severity)]
    if args.format == "json":
        print(to_json(shown))
    else:
        for finding in shown:
            print(finding.text())
        print(summary(shown, len(results), args.unsafe_fixes))
    return 1 if errors or any(f.severity in ("fix", "hazard") for f in findings) else 0


def fix(args: argparse.Namespace) -> int:
    setup = _setup(args)
    if isinstance(setup, int):
        return setup
    results = check_all(args.paths, *setup)
    errors = _errors(results)
    changed = [r for r in results if r.fixed is not None and r.error is None]
    for result in changed:
        assert result.fixed is not None and result.original is not None
        if args.write:
            write_atomically(Path(result.path), result.fixed, result.encoding)
        else:
            name = str(result.path)
            sys.stdout.writelines(
                difflib.unified_diff(
                    result.original.splitlines(keepends=True), result.fixed.splitlines(keepends=True), *_diff_names(name)
                )
            )
    findings = _findings(results)
    written = {r.path for r in changed}
    left = [f for f in findings if not (f.applies(args.unsafe_fixes) and f.path in written)]
    for finding in left:
        print(finding.text(), file=sys.stderr)
    fixed = sum(1 for f in findings if f.severity == "fix") - sum(1 for f in left if f.severity == "fix")
    verb = "rewrote" if args.write else "would rewrite"
    print(f"{verb} {fixed} name{'s' * (fixed != 1)} in {len(changed)} file{'s' * (len(changed) != 1)}; {len(left)} finding{'s' * (len(left) != 1)} left for a person.", file=sys.stderr)
    pending = bool(changed) and not args.write
    return 1 if errors or pending or any(f.severity in ("fix", "hazard") for f in left) else 0


def _diff_names(name: str) -> tuple[str, str]:
    """`a/PATH` and `b/PATH` for a relative path (as `git apply -p1` expects), the path itself when absolute."""
    return (name, name) if Path(name).is_absolute() else (f"a/{name}", f"b/{name}")
