"""`checkpointing-migrate scan|fix PATH...`, `rules` and `explain CODE`: the migration tool's subcommands.

Exit codes: 0 clean; 1 a `fix` or `hazard` finding, a file not checked or written, or (`fix --diff`) a rewrite
pending; 2 usage error (bad option, code or path, a `--target` no release meets, an unreadable transformers
requirement, an `--output-file` that cannot be written). Only `safe` fixes apply unless `--unsafe-fixes`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from packaging.version import Version

from checkpointing_migrate import codes, formats, paths, report, stdin
from checkpointing_migrate import config as config_module
from checkpointing_migrate import rules as rules_module
from checkpointing_migrate.config import Config
from checkpointing_migrate.discover import DEFAULT_EXCLUDE, Selection
from checkpointing_migrate.files import GATE_UNREADABLE, Result, describe_size, parse_size
from checkpointing_migrate.findings import SEVERITIES, FileError, Finding, link, sort_key, summary
from checkpointing_migrate.hits import MAX_FILE_SIZE, Options
from checkpointing_migrate.kinds import FileKind, kind_of, known_kinds
from checkpointing_migrate.records import DocumentError
from checkpointing_migrate.requirements import PLACES, Allowed, Finder, announce, parse_target
from checkpointing_migrate.run import check_all
from checkpointing_migrate.table import load_table_or_report


def add_arguments(sub: argparse.ArgumentParser, command: str, table_default: Path) -> None:
    """The options of `scan` or `fix` (`command`); the parser itself lives in `checkpointing_migrate/cli.py`."""
    _add_input_arguments(sub, command)
    _add_rule_arguments(sub, table_default)
    _add_file_arguments(sub)
    if command == "scan":
        _add_scan_output_arguments(sub)
    else:
        _add_fixing_arguments(sub)


def _add_input_arguments(sub: argparse.ArgumentParser, command: str) -> None:
    """What is read: the PATHs, or standard input named by `--stdin-filename` (one notebook cell: `--stdin-cell`)."""
    sub.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help=f"files or folders to check (files known by their {known_kinds()}); `-` reads standard input",
    )
    sub.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name of the text read from `-`: its suffix picks the file kind and its folder the project whose "
        "transformers requirement applies (default: a Python file in the working folder)"
        + (
            "; `fix -` prints the fixed text, `fix --diff -` a unified diff, and --write is refused"
            if command == "fix"
            else ""
        ),
    )
    sub.add_argument(
        "--stdin-cell",
        type=_cell_number,
        metavar="N",
        help="the text read from `-` is code cell N of the notebook --stdin-filename names (IPython's `!`, `%%` and "
        "`?` lines allowed; only this cell is read): findings say `NAME:cell N:LINE:COL`"
        + ("; `fix -` prints the fixed cell" if command == "fix" else ""),
    )


def _add_rule_arguments(sub: argparse.ArgumentParser, table_default: Path) -> None:
    """What is reported: the releases to support, the table, the codes, the biggest file, the unsafe fixes."""
    sub.add_argument(
        "--target",
        metavar="REQ",
        help="the transformers releases to support, e.g. 'transformers==5.20.0' (default: every release the project "
        f"may install, read from {PLACES}; text output names it on stderr)",
    )
    sub.add_argument(
        "--include-planned", action="store_true", help="also report names not renamed in any release yet, as info"
    )
    # Installed, the default is a file inside site-packages, no help to a reader: say what it is instead.
    shown = "%(default)s" if paths.IN_CHECKOUT else "the table the tool carries"
    sub.add_argument("--table", type=Path, default=table_default, help=f"the alias table (default: {shown})")
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
        action=argparse.BooleanOptionalAction,
        help="also apply (fix) or count as applicable (scan) the unsafe fixes: renames without evidence either way that the receiver is a transformers object",
    )


def _add_file_arguments(sub: argparse.ArgumentParser) -> None:
    """Which files a walk checks, and how ignore comments are held to account (`[tool.checkpointing-migrate]` keys)."""
    files = sub.add_argument_group(
        "files and configuration",
        "Defaults come from [tool.checkpointing-migrate] in the closest pyproject.toml; a flag wins over its key. "
        "Patterns are .gitignore lines relative to that file's folder: `wandb` anywhere, `/out` only at the top.",
    )
    files.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERNS",
        help="leave out files and folders matching these patterns, comma-separated, repeatable; replaces the "
        "default list (.git, .venv, build, dist, node_modules, …; not .github). A PATH named is always checked",
    )
    files.add_argument(
        "--extend-exclude",
        action="append",
        metavar="PATTERNS",
        help="like --exclude, but added to the default list",
    )
    files.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        help="leave out what .gitignore files and .git/info/exclude ignore (default: on)",
    )
    files.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        help="apply the excludes and .gitignore to the PATHs named too (for pre-commit, which names every file)",
    )
    files.add_argument(
        "--strict-ignores",
        action=argparse.BooleanOptionalAction,
        help="report `# checkpointing-migrate: ignore[...]` comments that silence nothing [unused-ignore]",
    )


def _add_scan_output_arguments(sub: argparse.ArgumentParser) -> None:
    """`scan`'s report: its format, the lowest severity shown, the shared output options."""
    sub.add_argument("--format", choices=formats.FORMATS, default="text", help="output format (default: text)")
    sub.add_argument(
        "--min-severity",
        choices=SEVERITIES[::-1],
        default="info",
        help="hide findings below this severity: hazard > fix > info (default: info)",
    )
    report.add_arguments(sub, "scan")


def _add_fixing_arguments(sub: argparse.ArgumentParser) -> None:
    """`fix`'s report and writing: the findings left, `--add-ignore`, `--diff` or `--write`, `--verify`."""
    sub.add_argument(
        "--format",
        choices=formats.FORMATS,
        default="text",
        help="format of the findings left for a person, on stderr (default: text)",
    )
    sub.add_argument(
        "--add-ignore",
        action="store_true",
        help="end each line with a fix or hazard left after fixing with a `# checkpointing-migrate: ignore[CODE]` "
        "comment (merged into one already there), so the next run passes; shown as a diff, or written with --write",
    )
    mode = sub.add_mutually_exclusive_group()
    mode.add_argument(
        "--diff", action="store_true", help="print a unified diff of the rewrites and write nothing (the default)"
    )
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    report.add_arguments(sub, "fix")
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


def _cell_number(text: str) -> int:
    from checkpointing_migrate.notebook_cell import MAX_NUMBER

    if not text.isdigit() or not 1 <= int(text) <= MAX_NUMBER:
        raise argparse.ArgumentTypeError(codes.problem("cell-number", text=repr(text), most=MAX_NUMBER))
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(codes.problem("seconds", text=repr(text)))
    return value


def add_scan_arguments(sub: argparse.ArgumentParser) -> None:
    """`scan PATH...`: its options."""
    add_arguments(sub, "scan", paths.TABLE_PATH)


def add_fix_arguments(sub: argparse.ArgumentParser) -> None:
    """`fix PATH...`: its options."""
    add_arguments(sub, "fix", paths.TABLE_PATH)


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """`rules`: list every finding code."""
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_explain_arguments(parser: argparse.ArgumentParser) -> None:
    """`explain CODE`: what a code means, with an example."""
    parser.add_argument("code", metavar="CODE", help="a finding code, as shown in brackets (`rules` lists them)")


def _selection(args: argparse.Namespace, cfg: Config) -> tuple[frozenset[str] | None, frozenset[str]] | int:
    try:
        select = codes.parse_list(args.select) if args.select is not None else cfg.select
        ignore = codes.parse_list(args.ignore) if args.ignore is not None else cfg.ignore or frozenset()
    except codes.UnknownCode as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return select, ignore


_SWITCHES = {"unsafe_fixes": False, "strict_ignores": False, "respect_gitignore": True, "force_exclude": False}
"""The on/off options (`--x`/`--no-x`, the file's `x = true`) and their defaults."""


def _patterns(given: list[str] | None) -> tuple[str, ...] | None:
    """The patterns of repeated, comma-separated `--exclude` values; `None` when the flag was not given."""
    return None if given is None else tuple(p.strip() for value in given for p in value.split(",") if p.strip())


def _configure(args: argparse.Namespace) -> tuple[Config, Selection] | int:
    """The project's configuration, with every flag given on the command line put over its key (`args` is updated
    in place, so the commands read one resolved value)."""
    try:
        cfg = config_module.load(args.paths)
    except config_module.ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    for name, default in _SWITCHES.items():
        if getattr(args, name) is None:  # not given on the command line: the file's key, else the default
            configured = getattr(cfg, name)
            setattr(args, name, default if configured is None else configured)
    if args.target is None:
        args.target = cfg.target
    exclude = _patterns(args.exclude)
    extend = _patterns(args.extend_exclude)
    selection = Selection(
        (
            *(exclude if exclude is not None else cfg.exclude if cfg.exclude is not None else DEFAULT_EXCLUDE),
            *(extend if extend is not None else cfg.extend_exclude),
        ),
        args.respect_gitignore,
        str(cfg.root),
        args.force_exclude,
    )
    return cfg, selection


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _stdin_problem(args: argparse.Namespace) -> str | None:
    """Why the command line's use of standard input (`-`, `--stdin-filename`, `--stdin-cell`) is a usage error."""
    alone = args.paths == [Path(stdin.MARK)]
    if (Path(stdin.MARK) in args.paths) != alone:
        return codes.problem("stdin-mixed", mark=stdin.MARK)
    if args.stdin_filename is not None and not alone:
        return codes.problem("stdin-filename", mark=stdin.MARK)
    if args.stdin_cell is not None and not alone:
        return codes.problem("stdin-cell", mark=stdin.MARK)
    notebook = args.stdin_filename and kind_of(args.stdin_filename, sniff=False) == FileKind.NOTEBOOK
    if args.stdin_cell is not None and args.stdin_filename and not notebook:
        return codes.problem("stdin-cell-kind", name=args.stdin_filename)
    if getattr(args, "write", False) and alone:
        return codes.problem("stdin-write", mark=stdin.MARK)
    return None


def _setup(args: argparse.Namespace) -> tuple[Options, Finder, Selection] | int:
    usage = _stdin_problem(args)
    if usage is not None:
        print(f"error: {usage}", file=sys.stderr)
        return 2
    missing = [p for p in args.paths if not p.exists() and p != Path(stdin.MARK)]
    if missing:
        for p in missing:
            print(f"{p}: no such file or folder", file=sys.stderr)
        return 2
    configured = _configure(args)
    if isinstance(configured, int):
        return configured
    cfg, walk = configured
    selection = _selection(args, cfg)
    if isinstance(selection, int):
        return selection
    target: Allowed | None = None
    if args.target is not None:
        try:
            target = parse_target(args.target)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    table = load_table_or_report(args.table)
    if isinstance(table, int):
        return table
    try:
        rules = rules_module.from_table(table)
    except DocumentError as exc:
        print(exc, file=sys.stderr)
        return 2
    options = Options(
        rules,
        target or Allowed(None, ""),
        planned=args.include_planned,
        select=selection[0],
        ignore=selection[1],
        max_size=args.max_file_size,
        unsafe_fixes=args.unsafe_fixes,
        per_file_ignores=tuple((str(cfg.root), pattern, names) for pattern, names in cfg.per_file_ignores),
        strict_ignores=args.strict_ignores,
        keep_text=getattr(args, "add_ignore", False),
    )
    return options, Finder(target), walk


def _gate(results: list[Result], options: Options, finder: Finder, text: bool) -> list[Result] | int:
    """Say which requirement the run used and where it came from, on stderr (text output only: the machine
    formats stay as they are); a requirement that cannot be read is a usage error (exit 2), like a bad `--target`,
    reported once for its project, before anything is shown or written."""
    if not options.gate:
        return results
    unreadable = {r.path for r in results if r.error is not None and r.error.message.startswith(GATE_UNREADABLE)}
    used, problems = finder.consulted([r.path for r in results if r.findings or r.path in unreadable])
    if problems:
        for problem in problems:
            where, _, what = str(problem).partition(": ")
            print(f"{where}: error: {what}", file=sys.stderr)
        paths = ", ".join(dict.fromkeys(p.problem.path for p in problems))
        print(f"error: {codes.problem('gate', paths=paths)}", file=sys.stderr)
        return 2
    if text:
        renames = (*options.rules.members.values(), *options.rules.fields.values(), *options.rules.flags.values())
        since = max((r.since for r in (*renames, *options.rules.keys.values()) if r.since), key=Version, default="")
        for line in announce(used, since):
            print(line, file=sys.stderr)
    return results


def _errors(results: list[Result]) -> list[FileError]:
    return [r.error for r in results if r.error is not None]


def _findings(results: list[Result]) -> list[Finding]:
    return sorted((f for r in results for f in r.findings), key=sort_key)


def _report(fmt: str, findings: list[Finding], errors: list[FileError], out: report.Output) -> None:
    """The findings and file errors in a machine-readable format (text output is written by each command)."""
    render = {"json": formats.to_json, "github": formats.to_github, "sarif": formats.to_sarif}[fmt]
    text = render(findings, errors)
    if text:
        out.print(text)


def _text(args: argparse.Namespace, shown: list[Finding], errors: list[FileError], out: report.Output) -> None:
    """The findings as text lines (or `--statistics`) on `out`; the file errors always on stderr, as diagnostics."""
    colour = report.use_colour(sys.stderr)
    for error in errors:
        print(report.error_line(error, colour), file=sys.stderr)
    for text in report.statistics(shown) if args.statistics else [report.line(f, out.colour) for f in shown]:
        out.print(text)


def _close(out: report.Output) -> int:
    """Write `--output-file`; 2 (with the reason on stderr) when it cannot be written, else 0."""
    problem = out.close()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    return 0


def scan(args: argparse.Namespace) -> int:
    """One line per finding (`path:line:col: severity [code] old → new: short reason`, `checkpointing_migrate.report`),
    or `--format json|github|sarif` (`checkpointing_migrate.formats`)."""
    setup = _setup(args)
    if isinstance(setup, int):
        return setup
    options, finder, walk = setup
    results, _ = _results(args, replace(options, verify=False), finder, walk)
    if isinstance(results, int):
        return results
    errors = _errors(results)
    findings = _findings(results)
    shown = [f for f in findings if SEVERITIES.index(f.severity) <= SEVERITIES.index(args.min_severity)]
    out = report.Output(sys.stdout, args.output_file)
    if args.format == "text":
        _text(args, shown, errors, out)
        if args.show_fixes:
            heading = "fixes available (`fix --write` applies them)"
            for text in report.fixes(shown, lambda f: f.applies(args.unsafe_fixes), heading):
                out.print(text)
        if not args.quiet:
            for text in report.closing(shown, summary(shown, len(results), args.unsafe_fixes, len(errors))):
                out.print(text)
    else:
        _report(args.format, shown, errors, out)
    return _close(out) or (
        1 if errors or any(f.severity in (codes.Severity.FIX, codes.Severity.HAZARD) for f in findings) else 0
    )


def fix(args: argparse.Namespace) -> int:
    """`--diff` (the default) prints a unified diff and writes nothing; `--write` rewrites in place, all files or none
    (`checkpointing_migrate.plan`: one `PATH:1:1: error:` line per file that cannot be written safely, and nothing
    written). The remaining findings (an unsafe fix not applied stays listed) go to stderr."""
    setup = _setup(args)
    if isinstance(setup, int):
        return setup
    if (args.verify is not None or args.verify_timeout is not None) and not args.write:
        print(f"error: {codes.problem('verify-write')}", file=sys.stderr)
        return 2
    options, finder, walk = setup
    results, sent = _results(args, options, finder, walk)
    if isinstance(results, int):
        return results
    errors = _errors(results)
    results, silenced = _add_ignore(args, results) if args.add_ignore else (results, set())
    changed = [r for r in results if r.fixed is not None and r.error is None]
    # `fix -` applies the rewrites to what it prints (an editor replaces its buffer with it); `fix --diff -` shows them.
    applied = args.write or (sent is not None and not args.diff)
    if sent is not None and not args.diff:
        _print_bytes(changed[0].fixed.encode(changed[0].encoding) if changed and changed[0].fixed else sent)
    verified = None
    if args.write and changed and args.verify is not None:
        from checkpointing_migrate.verify import verify_write

        verified = verify_write(changed, args.verify, args.verify_timeout)
        if verified.code not in (0, 1):
            return verified.code
        changed = [r for r in changed if r.path in verified.kept]
    elif args.write and changed and not _write(changed):
        return 1
    if not applied:
        _print_diffs(changed)
    findings = _findings(results)
    written = {r.path for r in changed}
    left = [f for f in findings if not (f.applies(args.unsafe_fixes) and f.path in written) and id(f) not in silenced]
    out = report.Output(sys.stderr, args.output_file)
    if args.format == "text":
        done = [f for f in findings if f.applies(args.unsafe_fixes) and f.path in written]
        _fix_text(args, left, done, errors, len(silenced), applied, out)
    else:
        _report(args.format, left, errors, out)
    pending = bool(changed) and not applied
    failed = errors or pending or (verified is not None and verified.code)
    return _close(out) or (
        1 if failed or any(f.severity in (codes.Severity.FIX, codes.Severity.HAZARD) for f in left) else 0
    )


def _add_ignore(args: argparse.Namespace, results: list[Result]) -> tuple[list[Result], set[int]]:
    """`fix --add-ignore`: the results with ignore comments added, and the ids of the findings they silence."""
    from checkpointing_migrate import annotate  # only `fix --add-ignore` writes comments

    results, silenced, notes = annotate.annotate_all(results, args.unsafe_fixes)
    for note in notes:  # not errors: the run goes on, the finding stays listed
        print(f"{note.path}:{note.line}:{note.column}: {note.message}", file=sys.stderr)
    return results, silenced


def _write(changed: list[Result]) -> bool:
    """`fix --write` without `--verify`: every changed file written, or (the reasons on stderr) `False`."""
    from checkpointing_migrate.plan import write_all  # only `fix --write` writes: scan never loads it

    outcome = write_all(changed)
    for problem in outcome.problems:
        print(problem.text(), file=sys.stderr)
    if outcome.not_written:  # a write failed after every check passed (a full disk): say exactly where it stopped
        written, unwritten = ", ".join(outcome.written) or "nothing", ", ".join(outcome.not_written)
        print(codes.problem("unwritten", written=written, unwritten=unwritten), file=sys.stderr)
        return False
    if outcome.problems:
        unsafe = codes.problem("unsafe-writes", problems=len(outcome.problems), files=len(changed))
        print(codes.problem("then-again", problem=unsafe), file=sys.stderr)
        return False
    return True


def _print_diffs(changed: list[Result]) -> None:
    """A unified diff of each changed file on stdout (`fix --diff`)."""
    import difflib  # only `fix` shows a diff

    for result in changed:
        assert result.fixed is not None and result.original is not None
        sys.stdout.writelines(
            difflib.unified_diff(
                result.original.splitlines(keepends=True),
                result.fixed.splitlines(keepends=True),
                *_diff_names(result.path),
            )
        )


def _fix_text(
    args: argparse.Namespace,
    left: list[Finding],
    done: list[Finding],
    errors: list[FileError],
    silenced: int,
    applied: bool,
    out: report.Output,
) -> None:
    """`fix --format text`: the findings left, the fixes applied (`--show-fixes`) and the closing summary."""
    _text(args, left, errors, out)
    verb = "rewrote" if applied else "would rewrite"
    if args.show_fixes:
        for text in report.fixes(done, lambda f: True, "fixes applied" if args.write else "fixes to apply (`--write`)"):
            out.print(text)
    if not args.quiet:
        fixed, files = len(done), len({f.path for f in done})
        line = (
            f"{verb} {fixed} name{'s' * (fixed != 1)} in {files} file{'s' * (files != 1)}; "
            f"{len(left)} finding{'s' * (len(left) != 1)} left for a person"
            + (f"; {len(errors)} file{'s' * (len(errors) != 1)} could not be checked." if errors else ".")
        )
        for text in report.closing(left, line):
            out.print(text)
        if args.add_ignore:
            verb = "silenced" if args.write else "would silence"
            out.print(f"{verb} {silenced} finding{'s' * (silenced != 1)} with ignore comments.")


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
    severity = f"{c.severity} ({codes.GATED_NOTE})" if c.gated else c.severity
    name, example = c.example
    print(
        codes.EXPLAIN.format(
            code=c.code,
            summary=c.summary,
            severity=severity,
            effect=c.effect or codes.NO_EFFECT,
            guide=link(c.section),
            explanation=c.explanation,
            name=name,
            scanned=", scanned with " + " ".join(c.args) if c.args else "",
            example="\n".join(f"    {line}" for line in example.splitlines()),
        )
    )
    return 0


def _results(
    args: argparse.Namespace, options: Options, finder: Finder, walk: Selection
) -> tuple[list[Result] | int, bytes | None]:
    """The result of every file `args.paths` names (or 2 when the project's requirement cannot be read: `_gate`),
    and the bytes read when the one PATH is `-` (standard input)."""
    sent = None
    if args.paths == [Path(stdin.MARK)]:
        result, sent = stdin.check(args.stdin_filename or stdin.DEFAULT_NAME, options, finder, args.stdin_cell)
        results = [result]
    else:
        results = check_all(args.paths, options, finder, selection=walk)
    return _gate(results, options, finder, args.format == "text"), sent


def _print_bytes(data: bytes) -> None:
    """`data` on standard output as they are: the text's own encoding and line endings (CRLF stays CRLF). A stream
    without bytes underneath (a `StringIO` put in place by a caller) gets them decoded, undecodable ones escaped."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8", "backslashreplace"))
        return
    buffer.write(data)
    buffer.flush()


def _diff_names(name: str) -> tuple[str, str]:
    """`a/PATH` and `b/PATH` for a relative path (as `git apply -p1` expects), the path itself when absolute."""
    return (name, name) if Path(name).is_absolute() else (f"a/{name}", f"b/{name}")
