"""`python -m generator refresh`: find releases newer than the table knows, measure them, and (with --write) record them.

The registry is asked for every library's releases after `checked`; the newest one's and the checked one's files are
downloaded (sha256-checked) and compared name by name, a library with rows is probed in the new release (the matrix's
probes, `evidence`) and downstream warnings are measured again. Statuses change only on that evidence.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from checkpointing_migrate import records
from checkpointing_migrate.table import Rename, Status, Table, TableError, load, load_table_or_report, parse
from generator import paths
from generator.measure import registry
from generator.measure.data import (
    MATRIX_FILE,
    Downstream,
    Outcome,
    RecordedWarning,
    load_downstream,
    load_matrix,
    load_measured,
    row_key,
)
from generator.measure.evidence import Evidence, EvidenceOutput
from generator.paths import DATA_DIR, TABLE_PATH
from generator.problems import GeneratorError

if TYPE_CHECKING:
    from generator.measure import matrix

_SOURCE_SUFFIXES = (".py", ".pyi")


class RefreshError(GeneratorError):
    """The refresh cannot go on (registry, download, install, probe, table edit); nothing was written."""


@dataclass
class Change:
    """A status change of one row, proposed only on measured evidence."""

    row: Rename
    status: Status
    """The new status."""
    evidence: str
    """What was measured, for the report."""
    since: str | None = None
    warning: RecordedWarning | None = None
    """The warning the release's own code emits, when the row becomes shipped."""


@dataclass
class Finding:
    """What the registry and the measurements say about one library."""

    key: str
    pypi: str
    checked: str
    newer: list[str] = field(default_factory=list)
    uploaded: datetime.date | None = None
    """Upload date of the newest release."""
    gone: list[str] = field(default_factory=list)
    """API names and config keys found in the checked release's source and not in the new one."""
    unseen: list[str] = field(default_factory=list)
    """Names found in neither release's source (they live in another package, or are spelled for users)."""
    kept: int = 0
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Measured facts the report shows that change no status (e.g. a new name that has no evidence probe)."""
    files: dict[str, Path] = field(default_factory=dict)
    """Version → downloaded file."""
    sha256: dict[str, str] = field(default_factory=dict)

    @property
    def latest(self) -> str | None:
        return self.newer[-1] if self.newer else None


# --- Names of the comparison ------------------------------------------------------------------------------------------


def word_of(name: str) -> str:
    """The identifier a table name is looked up by: `--activation-checkpoint.memory-budget` → `memory_budget`."""
    last = re.split(r"[.:]", name.removesuffix("()"))[-1]
    return last.lstrip("-").replace("-", "_")


def words_in(archive: Path, words: set[str]) -> set[str]:
    """Which of `words` occur as whole words in the archive's Python sources, read in memory (nothing unpacked)."""
    if not words:
        return set()
    pattern = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words))) + r")\b")
    found: set[str] = set()

    def texts() -> Iterator[bytes]:
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zipped:
                for info in zipped.infolist():
                    if info.filename.endswith(_SOURCE_SUFFIXES):
                        yield zipped.read(info)
        else:
            with tarfile.open(archive) as tarred:
                for member in tarred:
                    if (
                        member.isfile()
                        and member.name.endswith(_SOURCE_SUFFIXES)
                        and (handle := tarred.extractfile(member))
                    ):
                        yield handle.read()

    try:
        for data in texts():
            found.update(pattern.findall(data.decode("utf-8", errors="replace")))
            if found == words:
                break
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise RefreshError(f"cannot read {archive}: {exc}") from None
    return found


def compare_names(finding: Finding, names: tuple[str, ...], before: set[str], after: set[str]) -> None:
    for name in names:
        word = word_of(name)
        if word in after:
            finding.kept += 1
        elif word in before:
            finding.gone.append(name)
        else:
            finding.unseen.append(name)


# --- Measuring a new release -------------------------------------------------------------------------------------------


def install_env(job: matrix.Job, archive: Path, sha256: str) -> Path:
    """The matrix environment of the job's release, installed from the checked file (never from an index)."""
    from generator.measure import matrix

    stamp = f"{job.pypi}=={job.version} sha256={sha256}\n"
    try:
        return matrix.install_env(job.env, str(archive), stamp, "--no-index")
    except matrix.MatrixError as exc:
        raise RefreshError(str(exc)) from None


def _declares(tree: Path, package: str, name: str) -> bool:
    """Whether the package's own source defines `name`: a class field, an assignment, a function or a parameter."""
    import ast

    pattern = re.compile(rf"\b{re.escape(name)}\b")
    for path in (tree / package).rglob("*.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if name not in text or not pattern.search(text):  # the substring test first: most files lack the name
            continue
        try:
            parsed = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(parsed):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                return True
            if isinstance(node, ast.arg) and node.arg == name:
                return True
    return False


def removal_changes(
    table: Table, key: str, outcomes: Sequence[Outcome], before: Sequence[Outcome] = ()
) -> list[Change]:
    """Shipped rows whose old name is gone in the release: every use of it raises or is absent, the new one works
    (a use of the new name that raised on the last recorded release too, `before`, is that form's nature: a property
    without a setter, an override that takes no new keyword; it says nothing about the old name)."""
    raised_before = {(o.row, o.scenario) for o in before if o.uses == "new" and o.outcome == "raises"}
    changes = []
    for row in table.renames:
        if row.library != key or row.status != Status.SHIPPED:
            continue
        mine = [o for o in outcomes if o.row == row_key(row)]
        old = [o for o in mine if o.uses == "old"]
        new = [o for o in mine if o.uses == "new"]
        # The new name must work wherever it can be used (a use that needs the old name first is absent).
        new_ok = any(o.outcome in ("works", "warns") for o in new) and not any(
            o.outcome == "raises" and (o.row, o.scenario) not in raised_before for o in new
        )
        if old and all(o.outcome in ("raises", "absent") for o in old) and new_ok:
            first = next((o for o in old if o.error), old[0])
            seen = f"{first.error.type}: {first.error.message}" if first.error else "absent"
            changes.append(
                Change(
                    row,
                    Status.REMOVED,
                    f"{len(old)} use{'s' * (len(old) != 1)} of `{row.old}` fail ({first.scenario}: {seen}); "
                    f"`{row.new}` works",
                )
            )
    return changes


def shipped_changes(
    table: Table, finding: Finding, version: str, trees: dict[str, Path], evidence: Sequence[Evidence]
) -> list[Change]:
    """Planned rows the release ships: it declares the new name itself, and setting the old one warns from its code."""
    package = finding.key.replace("-", "_")
    changes = []
    for row in table.renames:
        if row.library != finding.key or row.status != Status.PLANNED:
            continue
        new_name = row.new.lstrip("-").replace("-", "_")
        if not _declares(trees[version], package, new_name) or _declares(trees[finding.checked], package, new_name):
            continue
        measured = next((e for e in evidence if e.row == row_key(row)), None)
        own = {w for w in (measured.warnings if measured else ()) if row.old in w.message}
        if measured is None:
            finding.notes.append(
                f"{version} declares `{row.new}` ({row.kind} of {row.owner}); no probe measures the old "
                f"name of a {row.kind}, so the row stays planned: review it by hand"
            )
        elif len(own) == 1:
            warning = own.pop()
            changes.append(
                Change(
                    row,
                    Status.SHIPPED,
                    f"{version} declares `{row.new}`, and setting `{row.old}` emits its own {warning.category}",
                    since=version,
                    warning=warning,
                )
            )
        else:
            finding.notes.append(
                f"{version} declares `{row.new}`, but setting `{row.old}` emits "
                f"{len(own) or 'no'} warnings of its own naming it; the row stays planned"
            )
    return changes


# --- The registry side ---------------------------------------------------------------------------------------------------


def discover(
    table: Table, index_url: str, only: set[str] | None, workers: int, cache: Path = registry.CACHE
) -> list[Finding]:
    """Every library's newer releases, the registry asked and the files downloaded `workers` at a time."""
    keys = [k for k in table.libraries if only is None or k in only]

    def ask(key: str) -> tuple[Finding, registry.Project]:
        library = table.libraries[key]
        project = registry.project(index_url, library.pypi)
        finding = Finding(key, library.pypi, library.checked, project.newer_than(library.checked))
        if finding.latest:
            finding.uploaded = project.uploaded(finding.latest)
        return finding, project

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        answers = list(pool.map(ask, keys))
    wanted: dict[tuple[str, str], registry.File] = {}
    for finding, project in answers:
        for version in (finding.checked, finding.latest) if finding.latest else ():
            if version not in project.releases:
                raise registry.RegistryError(f"{index_url}: {finding.pypi} lists no release {version}")
            wanted[(finding.key, version)] = registry.pick(project.releases[version])
    paths = registry.download(list(wanted.values()), cache, workers)
    findings = [finding for finding, _ in answers]
    for (key, version), file in wanted.items():
        finding = next(f for f in findings if f.key == key)
        finding.files[version], finding.sha256[version] = paths[file], file.sha256
    return findings


def measure(table: Table, table_path: Path, findings: list[Finding], *, probe: bool = True, workers: int = 8) -> None:
    """Fill in each finding with a newer release: the names kept and gone, and (a library with rows) the status
    changes that probing the new release and its evidence show.

    `probe=False` stops after the names (the benchmark times the registry side alone).
    """
    from generator.measure import matrix

    ruled = table.libraries_with_rows()

    def names_of(key: str) -> tuple[str, ...]:
        return table.libraries[key].api + table.libraries[key].config

    # Reading the archives is most of a refresh of many libraries: both releases of each, `workers` at a time.
    jobs = [(f.key, v, f.files[v]) for f in findings if f.latest for v in (f.checked, f.latest)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        found = dict(
            zip(
                ((k, v) for k, v, _ in jobs),
                pool.map(lambda job: words_in(job[2], {word_of(n) for n in names_of(job[0])}), jobs),
            )
        )
    for finding in findings:
        if not finding.latest:
            continue
        compare_names(
            finding, names_of(finding.key), found[(finding.key, finding.checked)], found[(finding.key, finding.latest)]
        )
        if finding.key not in ruled or not probe:
            continue
        trees = {v: registry.unpack(p) for v, p in finding.files.items()}
        job = matrix.Job(finding.key, finding.pypi, finding.latest)
        env = install_env(job, finding.files[finding.latest], finding.sha256[finding.latest])
        try:
            outcomes = matrix.probe_job(job, table_path).outcomes
            evidence = matrix._run_module(
                "generator.measure.evidence", ["--table", str(table_path.resolve()), "--library", finding.key], [env]
            )
            results = records.loads(evidence, EvidenceOutput, "the output of generator.measure.evidence").results
        except (matrix.MatrixError, records.DocumentError) as exc:
            raise RefreshError(str(exc)) from None
        recorded = load_measured().outcomes.get((finding.key, finding.checked), ())
        finding.changes += removal_changes(table, finding.key, outcomes, recorded)
        finding.changes += shipped_changes(table, finding, finding.latest, trees, results)


def downstream_changes(findings: list[Finding]) -> list[str]:
    """PEFT's and TRL's downstream warnings measured with their new releases first, against the recorded ones."""
    from generator.measure import matrix

    envs = [matrix.Job(f.key, f.pypi, f.latest).env for f in findings if f.latest and f.key in ("peft", "trl")]
    if not envs:
        return []
    try:
        now = records.loads(
            matrix._run_module("generator.measure.downstream", [], envs),
            Downstream,
            "the output of generator.measure.downstream",
        )
        recorded = load_downstream()
    except (matrix.MatrixError, records.DocumentError) as exc:
        raise RefreshError(str(exc)) from None
    before = {e.id: e for e in recorded.entries}
    lines = []
    for entry in now.entries:
        old = before.get(entry.id)
        count_now, count_before = len(entry.warnings), len(old.warnings) if old else 0
        if old is None or count_now != count_before:
            lines.append(
                f"`{entry.id}`: {count_before} → {count_now} warnings ({', '.join(f'{k} {v}' for k, v in now.versions.items())})"
            )
    return lines


# --- The report ----------------------------------------------------------------------------------------------------------


def report(findings: list[Finding], index_url: str, downstream: list[str]) -> str:
    """The Markdown report: one table of every library, then a section per library with a newer release."""
    lines = [
        "# Refresh report",
        "",
        f"Registry: {index_url}",
        "",
        "| Library | In the table | Newest | Newer releases |",
        "| --- | --- | --- | --- |",
    ]
    for f in findings:
        lines.append(f"| {f.key} | {f.checked} | {f.latest or f.checked} | {', '.join(f.newer) or 'none'} |")
    for f in findings:
        if not f.latest:
            continue
        lines += ["", f"## {f.key} {f.latest} (uploaded {f.uploaded})", ""]
        lines.append(
            f"- Names of the comparison: {f.kept} still in the source"
            + (f"; gone since {f.checked}: {', '.join(f'`{n}`' for n in f.gone)}" if f.gone else "")
            + (
                f"; not in either release's source (not checkable statically): {', '.join(f'`{n}`' for n in f.unseen)}"
                if f.unseen
                else ""
            )
        )
        for change in f.changes:
            lines.append(
                f"- {change.row.position}: `{change.row.old}` → `{change.row.new}` ({change.row.owner}): "
                f"{change.row.status} → **{change.status}**; measured: {change.evidence}"
            )
        lines += [f"- {note}" for note in f.notes]
    if downstream:
        lines += ["", "## Downstream warnings (new PEFT/TRL releases first on the path)", ""] + [
            f"- {d}" for d in downstream
        ]
    newer = [f for f in findings if f.latest]
    lines += [
        "",
        f"{len(newer)} of {len(findings)} libraries have a newer release." if newer else "The table is current.",
    ]
    return "\n".join(lines) + "\n"


# --- Writing the table ---------------------------------------------------------------------------------------------------


def _block(lines: list[str], start: int, inner: int) -> int:
    """The index after the block that starts at `start` and whose lines are indented by `inner` or more.

    Blank lines inside are kept; trailing blank lines are not part of the block.
    """
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip(" ")) >= inner):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _top(lines: list[str], key: str) -> int:
    for index, line in enumerate(lines):
        if line.rstrip() == f"{key}:":
            return index
    raise RefreshError(f"the table has no top-level '{key}:' line")


def edit_table(text: str, table: Table, findings: list[Finding]) -> str:
    """The table text with each newer release recorded and each measured status change applied; comments kept."""
    lines = text.splitlines(keepends=True)
    # Rows first, bottom up, so that earlier line numbers stay valid.
    changes = sorted((c for f in findings for c in f.changes), key=lambda c: -c.row.position.line)
    for change in changes:
        start = change.row.position.line - 1
        end = _block(lines, start, change.row.position.column - 1)
        status = next((i for i in range(start, end) if re.match(r"\s*status:", lines[i])), None)
        if status is None:
            raise RefreshError(f"{change.row.position}: cannot find the row's status line")
        pad = " " * (change.row.position.column - 1)
        new = [f"{pad}status: {change.status}\n"]
        if change.since:
            new.append(f'{pad}since: "{change.since}"\n')
        if change.warning:
            new += [
                f"{pad}warning:\n",
                f"{pad}  category: {change.warning.category}\n",
                f"{pad}  message: {json.dumps(change.warning.message, ensure_ascii=False)}\n",
            ]
        lines[status : status + 1] = new
    listed = {r.library for r in table.releases}
    for finding in findings:
        if not finding.latest:
            continue
        libraries = _top(lines, "libraries")
        head = next((i for i in range(libraries + 1, len(lines)) if lines[i].rstrip() == f"  {finding.key}:"), None)
        if head is None:
            raise RefreshError(f"the table has no library block '  {finding.key}:'")
        end = _block(lines, head, 4)
        checked = next((i for i in range(head, end) if re.match(r"    checked:", lines[i])), None)
        if checked is None:
            raise RefreshError(f"library '{finding.key}' has no checked line")
        lines[checked] = f'    checked: "{finding.latest}"\n'
        if finding.key not in listed:
            continue  # the release timeline lists only the libraries it already follows
        releases = _top(lines, "releases")
        items = [
            i
            for i in range(releases + 1, _block(lines, releases, 2))
            if lines[i].rstrip() == f"  - library: {finding.key}"
        ]
        after = _block(lines, items[-1], 4)
        note = _release_note(finding)
        entry = [
            "\n",
            f"  - library: {finding.key}\n",
            f'    version: "{finding.latest}"\n',
            f"    date: {finding.uploaded}\n",
        ]
        if note:
            entry.append(f"    note: {json.dumps(note, ensure_ascii=False)}\n")
        lines[after:after] = entry
    return "".join(lines)


def _release_note(finding: Finding) -> str:
    removed = sorted({c.row.old for c in finding.changes if c.status == Status.REMOVED})
    shipped = sorted({c.row.new for c in finding.changes if c.status == Status.SHIPPED})
    parts = []
    if shipped:
        parts.append("Adds " + ", ".join(shipped))
    if removed:
        parts.append("Removes " + ", ".join(removed))
    return "; ".join(parts)


# --- Applying ------------------------------------------------------------------------------------------------------------


def plan(table_path: Path, findings: list[Finding]) -> dict[Path, str]:
    """The files that recording `findings` changes: the edited table and the data files re-measured with it (the
    matrix: only the releases new since `data/matrix.json` was written, when no status changed). Writes none of them
    (the command line does, then renders the pages: `generator.cli`); while the matrix is measured, the edited table
    is staged beside `table_path` for the probe processes to read, and removed."""
    from generator.measure import adoption, matrix

    old_text = table_path.read_text(encoding="utf-8")
    new_text = edit_table(old_text, load(table_path), findings)
    try:
        new_table = parse(new_text, str(table_path))
    except TableError as exc:
        raise RefreshError(f"the edited table does not validate:\n{exc}") from None
    try:
        ruled = new_table.libraries_with_rows()
        outputs: dict[Path, str] = {table_path: new_text}
        if any(f.latest and f.key in ruled for f in findings):
            # Only the new releases are probed, unless a status changed: a row's status decides what the probes try
            # (also for other rows: a keyword's method pair), so then every release is measured again. Downstream
            # warnings are measured in the project's own environment, which a new release does not change.
            unchanged = not any(f.changes for f in findings)
            kept = load_matrix(DATA_DIR) if unchanged else None
            staged = table_path.with_name(f".{table_path.name}.refresh")
            staged.write_text(new_text, encoding="utf-8")
            try:
                measured = matrix.measure(new_table, staged, kept=kept)
            finally:
                staged.unlink(missing_ok=True)
            outputs[DATA_DIR / MATRIX_FILE] = records.dump(measured)
        if any(f.latest and f.key in adoption.LIBRARIES + adoption.CLASS_SOURCES for f in findings):
            # The new releases are in the registry's cache, checked: adoption takes those wheels by name and sha256.
            downloads = {
                (f.pypi, f.latest): adoption.Pin(f.files[f.latest].name, f.sha256[f.latest])
                for f in findings
                if f.latest and f.files[f.latest].suffix == ".whl"
            }
            classes, scanned = adoption.measure(new_table, pins=downloads)
            outputs.update(
                {
                    paths.TRAINING_ARGUMENTS_PATH: records.dump(classes),
                    adoption.DATA_PATH: records.dump(asdict(scanned)),
                }
            )
    except (matrix.MatrixError, RuntimeError) as exc:
        raise RefreshError(f"measuring with the edited table failed; nothing was written:\n{exc}") from None
    return outputs


# --- Command line --------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", type=Path, default=TABLE_PATH, help="the alias table (default: %(default)s)")
    parser.add_argument(
        "--index-url", default=registry.PYPI, help="the registry's JSON API base (default: %(default)s)"
    )
    parser.add_argument("--only", default=None, help="comma-separated library keys to refresh (default: all)")
    parser.add_argument("--write", action="store_true", help="record what was found: table, data files, pages")
    parser.add_argument("--workers", type=int, default=8, help="parallel requests and downloads (default: %(default)s)")
    parser.add_argument("--report", type=Path, default=None, help="also write the Markdown report to this file")


def run(args: argparse.Namespace) -> tuple[int, dict[Path, str]]:
    """Print a Markdown report; return the exit code (0 when the table is current, 1 when a newer release was found,
    2 on error) and, with --write, the files that record what was found (`plan`), for the command line to write."""
    table = load_table_or_report(args.table)
    if isinstance(table, int):
        return table, {}
    only = {k.strip() for k in args.only.split(",") if k.strip()} if args.only else None
    unknown = sorted((only or set()) - set(table.libraries))
    if unknown:
        print(
            f"error: --only names unknown libraries: {', '.join(unknown)} (known: {', '.join(table.libraries)})",
            file=sys.stderr,
        )
        return 2, {}
    outputs: dict[Path, str] = {}
    try:
        findings = discover(table, args.index_url, only, args.workers)
        measure(table, args.table, findings, workers=args.workers)
        downstream = downstream_changes(findings)
        text = report(findings, args.index_url, downstream)
        print(text, end="")
        if args.report:
            args.report.write_text(text, encoding="utf-8")
        if args.write and any(f.latest for f in findings):
            outputs = plan(args.table, findings)
    except (registry.RegistryError, RefreshError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("nothing was written.", file=sys.stderr)
        return 2, {}
    return (1 if any(f.latest for f in findings) else 0), outputs
