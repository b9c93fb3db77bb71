"""The adoption report's data: run the scanner over released packages and give every call site its measured effect.

Writes `data/adoption.json` (the page `docs/generated/adoption-report.md` is rendered from it) and
`data/training-arguments.json` (what the scanner needs and the table cannot say). Refresh: `python -m
generator.measure.adoption`, then `python -m generator render`; `--check` re-measures every package, writes nothing.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import io
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from checkpointing_migrate import codes, writing
from checkpointing_migrate import rules as rules_module
from checkpointing_migrate.discover import Selection
from checkpointing_migrate.findings import Finding
from checkpointing_migrate.hits import Options
from checkpointing_migrate.records import dump
from checkpointing_migrate.requirements import Allowed, Finder
from checkpointing_migrate.run import check_all
from checkpointing_migrate.table import Rename, RenameKind, Status, Table, load_table_or_report
from generator import paths
from generator.measure import adoption_data, registry, verdict
from generator.measure.adoption_data import Adoption, MeasuredWith, NotScanned, ScannedLibrary, ScannedSite
from generator.measure.data import MatrixData, MatrixError, Outcome, ReleaseEntry, load_matrix, row_key
from generator.measure.scenarios import Scenario

DATA_PATH = adoption_data.ADOPTION_PATH

INSTALLED = Selection(exclude=(".*", "__pycache__", "node_modules", "site-packages"), respect_gitignore=False)
"""What a wheel's scan leaves out: hidden folders and caches only. A project's excludes (`build`, `dist`: a wheel
installs those as package data) and the checkout's `.gitignore` (the wheels are unpacked below `.cache/`) do not
apply to what a library ships."""
LIBRARIES = ("peft", "trl", "accelerate", "diffusers", "axolotl", "megatron-core", "nemo", "torchtitan", "deepspeed")
"""The libraries of the naming comparison the report covers, by their key in the table: those whose declared
requirements admit a transformers release with the new names (behind an extra, for the last four); `not_scanned`
says why each other one is left out, and a test checks that the two agree."""
CLASS_SOURCES = ("transformers", "trl")
"""Libraries whose wheels define the training-arguments classes and the config keys."""
PYTHON_VERSION = "3.12"
"""The Python the wheels are picked for (`registry.pick`): Axolotl 0.21.0 requires Python ≥ 3.12."""


ECOSYSTEM = (
    # Fine-tuning frameworks: they build the Trainer, its arguments and the model for the user.
    ("unsloth", "2026.10.9", "fine-tuning framework"),
    ("unsloth-zoo", "2026.10.9", "fine-tuning framework"),
    ("llamafactory", "0.9.5", "fine-tuning framework"),
    ("ms-swift", "4.6.0", "fine-tuning framework"),
    ("xtuner", "0.2.0", "fine-tuning framework"),
    ("autotrain-advanced", "0.8.36", "fine-tuning framework"),
    ("oumi", "0.9", "fine-tuning framework"),
    ("ludwig", "0.17.10", "fine-tuning framework"),
    ("simpletransformers", "0.70.8", "fine-tuning framework"),
    ("instructlab-training", "0.16.2", "fine-tuning framework"),
    ("arctic-training", "0.8.0", "fine-tuning framework"),
    # RL trainers built on transformers models.
    ("openrlhf", "0.11.2", "RL trainer"),
    ("verl", "0.9.1", "RL trainer"),
    ("skyrl-train", "0.3.1", "RL trainer"),
    ("areal", "1.0.4", "RL trainer"),
    # Adapters and interventions that wrap transformers models.
    ("adapters", "1.3.0", "adapters"),
    ("pyvene", "0.1.8", "adapters"),
    # Embedding libraries: they train encoders, often models that are not a PreTrainedModel.
    ("sentence-transformers", "6.2.0", "embeddings"),
    ("flagembedding", "1.4.2", "embeddings"),
    ("llm2vec", "0.2.2", "embeddings"),
    ("angle-emb", "0.6.1", "embeddings"),
    # Hardware backends and compression: they re-implement or patch the training path.
    ("optimum-habana", "1.21.2", "hardware backend"),
    ("optimum-neuron", "0.4.3", "hardware backend"),
    ("llmcompressor", "0.14.0.1", "compression"),
    # AutoML, multimodal training and evaluation harnesses that fine-tune or load transformers models.
    ("lmms-engine", "0.1.4", "multimodal trainer"),
    ("autogluon-multimodal", "1.6.3", "AutoML"),
    ("evalscope", "1.14.1", "evaluation harness"),
)
"""Released packages beyond the table's libraries (PyPI name, release scanned, what it is): each requires transformers
and its wheel uses a `gradient_checkpointing*` name. Chosen by downloading the wheels of about sixty candidates
(trainers, adapters, embedding, serving and evaluation libraries) and keeping those whose sources use the names;
serving libraries (vLLM, SGLang, lmdeploy), harnesses such as lm-eval and lighteval, and setfit, gliner, mteb,
liger-kernel, mergekit, torchtune, optimum, flair and modelscope's framework had no use, or required transformers
only behind an extra."""

PINNED = ("transformers", "trl", "peft", "accelerate")
"""Requirements read from each wheel's metadata: they decide which releases a user of the package really gets."""

_STRUCTURAL = {c: codes.get(c).effect for c in ("override", "instance-override", "reference", "dead-write")}
"""Uses no probe can run in isolation (a definition, a reference, a branch for old releases): the registry's effect."""
_ANSWERING_LOOKUPS = (Scenario.HASATTR, Scenario.GETATTR_WITH_A_DEFAULT)
"""Lookups by string that answer rather than raise when the name is missing."""
_KEEPS_WORKING = {"override", "instance-override", "subclass-default", "write", "dead-write"}
"""Uses that do not need transformers to have the old name: a definition, a declared field, an attribute write."""


def probe_of(finding: Finding) -> tuple[str, str] | None:
    """(scenario, uses) of the probe in `data/matrix.json` that does what `finding` does, or `None` if none does."""
    row, code = finding.row, finding.code
    if row is None:
        return None
    if row.kind == RenameKind.METHOD and code in ("call", "kwargs-unpacked"):
        return Scenario.CALL_ON_A_FRESH_MODEL, "old"
    if row.kind == RenameKind.METHOD and code == "narrow-override":
        return Scenario.OVERRIDDEN_WITHOUT_KWARGS, "old"
    if row.kind == RenameKind.METHOD and code == "reference":
        return Scenario.CALL_ON_A_FRESH_MODEL, "old"  # only for what removal does: the attribute lookup is the same
    if code == "string-lookup" and row.kind in (RenameKind.METHOD, RenameKind.PROPERTY):
        # The lookup as it is written: `hasattr`, `getattr` with a default, `setattr`; a bare `getattr` is a read.
        bare = Scenario.REFERENCE_WITHOUT_A_CALL if row.kind == RenameKind.METHOD else Scenario.READ_ON_A_FRESH_MODEL
        via = finding.via or "getattr"
        return (Scenario(via) if via in (*_ANSWERING_LOOKUPS, Scenario.SETATTR) else bare), "old"
    if row.kind == RenameKind.PROPERTY and code == "property":
        return Scenario.READ_ON_A_FRESH_MODEL, "old"
    if (
        row.kind == RenameKind.ARGUMENT
        and row.owned.head == "PreTrainedModel"
        and row.owned.member
        and code in ("keyword", "kwargs-unpacked")
    ):
        own = row.owned.member
        return (
            Scenario.WITH_ITS_OWN_METHOD.of(own)
            if finding.via == own
            else Scenario.WITH_THE_OTHER_METHOD.of(str(finding.via))
        ), "old"
    if (
        row.kind == RenameKind.ARGUMENT
        and row.owned.head == "TrainingArguments"
        and row.owned.member
        and code == "keyword"
    ):
        return Scenario.CALL.of(row.owned.member), "old"
    if row.kind == RenameKind.FIELD:
        return {
            "keyword": (Scenario.SET_IN_THE_CONSTRUCTOR, "old"),
            "kwargs-unpacked": (Scenario.SET_IN_THE_CONSTRUCTOR, "old"),
            "subclass-default": (Scenario.SET_IN_THE_CONSTRUCTOR, "old"),
            "both-names": (Scenario.SET_BOTH_IN_THE_CONSTRUCTOR, "both"),
            "read": (Scenario.READ_AFTER_SETTING_THE_OLD_NAME, "old"),
            "write": (Scenario.WRITTEN_AFTER_CONSTRUCTION, "old"),
        }.get(code)
    if row.kind == RenameKind.CLI_FLAG and code == "flag":
        return Scenario.COMMAND_LINE, "old"
    if row.kind == RenameKind.CONFIG_KEY and code in ("config-key", "both-names"):
        return (Scenario.YAML_FILE, "old") if code == "config-key" else (Scenario.YAML_FILE_WITH_BOTH, "both")
    return None


def _outcome(outcomes: Sequence[Outcome], row: Rename, scenario: str, uses: str) -> Outcome | None:
    key = row_key(row)
    return next((o for o in outcomes if o.row == key and o.scenario == scenario and o.uses == uses), None)


def _mirror(outcomes: Sequence[Outcome], row: Rename, scenario: str, uses: str) -> Outcome | None:
    """The same use made with the new name (`with its own method (old)` → `with its own method (new)`)."""
    if uses != "old":
        return _outcome(outcomes, row, scenario, uses)
    key, prefix = row_key(row), scenario.split(" (")[0]
    return next((o for o in outcomes if o.row == key and o.scenario.split(" (")[0] == prefix and o.uses == "new"), None)


def effect(
    finding: Finding,
    newest: Sequence[Outcome],
    before: Sequence[Outcome],
    callers: Mapping[str, Rename],
    declared: frozenset[str] = frozenset(),
) -> ScannedSite:
    """A use as a site (its `file` is the finding's path), with what it does by what the probes measured (a pure
    function): `effect` (a key of `EFFECTS`), the `warnings` the same use emitted in the newest release (`newest`: its
    outcomes in `data/matrix.json`), and `v6`, the exception it raises once the old name is gone: what the same use of
    a name the release lacked raised in the release before the rename (`before`), empty when the use does not need the
    name. `callers`: the table's override rows by old name (`Rules.callers`), whose warning names the overriding
    class; `declared`: old field names the package declares on its own config classes, which outlive transformers'
    alias."""
    row, code = finding.row, finding.code

    def site(kind: str, warnings: Sequence[str], v6: str) -> ScannedSite:
        return ScannedSite(finding.path, finding.line, finding.column, finding.old, code, kind, tuple(warnings), v6)

    if row is None or row.status != Status.SHIPPED or code in ("not-renamed", "shared-name", "unknown-callee"):
        return site("not-deprecated", (), "")
    probe = probe_of(finding)
    measured = _outcome(newest, row, *probe) if probe and code != "reference" else None
    warnings = [f"{w.category}: {w.message}" for w in measured.warnings] if measured else []
    if code == "override" and finding.via:
        # A class that defines only the old method: what the Trainer emitted for such a model, named for this class.
        caller = callers[row.old]
        trainer = next((o for o in newest if o.row == row_key(caller) and o.uses == "old"), None)
        named = caller.warning.text_for(finding.via)
        warnings = [
            f"{w.category}: {named if caller.warning.matches(w.message) else w.message}"
            for w in (trainer.warnings if trainer else ())
        ]
    if code in _STRUCTURAL or measured is None:
        kind = _STRUCTURAL.get(code, "not-deprecated")
    elif measured.outcome == "raises":
        kind = "raises"
    elif (
        code == "write" and measured.effect is not None and measured.effect.get(row.new) != measured.effect.get(row.old)
    ):
        kind = "lost-write"
    else:
        kind = "warns" if warnings else "silent"
    v6 = ""
    if probe and code not in _KEEPS_WORKING and not (row.kind == RenameKind.FIELD and row.old in declared):
        # The old name's use, with the name missing: the new name's use in the release that did not have it yet.
        absent = _mirror(before, row, *probe)
        if absent is not None and absent.error:
            v6 = absent.error.type
    if code == "reference" and row.kind == RenameKind.METHOD:
        v6 = v6 or "AttributeError"
    if code == "string-lookup" and finding.via in _ANSWERING_LOOKUPS:
        v6 = ""  # the lookup returns False or its default instead: the code runs on, down the other branch
    return site(kind, warnings, v6)


@dataclass(frozen=True)
class Pin:
    """A wheel known before the registry is asked: recorded in the committed data, or downloaded and checked by
    `refresh`. A copy in the cache with this sha256 is used without asking (offline too)."""

    filename: str
    sha256: str


@dataclass(frozen=True)
class Wheel:
    library: str
    """The table's key for a table library, the PyPI name for the others."""
    pypi: str
    version: str
    path: Path
    sha256: str
    """Checked against the registry's (and the pin's) when the wheel was fetched."""
    tree: Path
    """The unpacked wheel (`registry.unpack`)."""
    category: str = ""
    """What the package is (`ECOSYSTEM`); empty for the table's libraries."""

    @property
    def packages(self) -> list[Path]:
        """The top-level import packages the wheel installs (including those under `*.data/purelib|platlib`)."""
        roots = [self.tree, *(d for d in sorted(self.tree.glob("*.data/*")) if d.name in ("purelib", "platlib"))]
        return [p for root in roots for p in sorted(root.iterdir()) if p.is_dir() and p.name.isidentifier()]


def fetch(pypi: str, version: str, pin: Pin | None = None, cache: Path = registry.CACHE) -> tuple[Path, str]:
    """The wheel of `pypi==version` for `PYTHON_VERSION` in `cache`, and its sha256: the pinned file if the cache
    holds it, else the registry's pick, which must have the pin's sha256; raises `RuntimeError` if neither works."""
    if pin is not None and (path := registry.cached(cache / pin.filename, pin.sha256)):
        return path, pin.sha256
    try:
        releases = registry.project(registry.PYPI, pypi).releases
        if version not in releases:
            raise registry.RegistryError(f"{registry.PYPI}: {pypi} has no release {version}")
        try:
            file = registry.pick(releases[version], PYTHON_VERSION)
        except registry.RegistryError:  # no wheel (DeepSpeed publishes only an sdist): read the sdist
            file = registry.pick(releases[version])
        if pin is not None and file.sha256 != pin.sha256:
            raise registry.RegistryError(
                f"{file.filename}: sha256 {file.sha256} differs from the recorded {pin.sha256}"
            )
        return registry.fetch(file, cache), file.sha256
    except registry.RegistryError as exc:
        raise RuntimeError(str(exc)) from None


def _recorded() -> dict[tuple[str, str], Pin]:
    try:
        data = adoption_data.load_adoption(DATA_PATH)
    except adoption_data.AdoptionDataError:
        return {}
    return {(e.pypi, e.version): Pin(e.wheel, e.sha256) for e in data.libraries}


def wheels(
    table: Table,
    keys: tuple[str, ...],
    pins: Mapping[tuple[str, str], Pin],
    cache: Path = registry.CACHE,
    ecosystem: tuple[tuple[str, str, str], ...] = (),
) -> list[Wheel]:
    """The unpacked wheels of the `checked` release of each table library in `keys`, then of each `ecosystem`
    package, fetched in parallel; `pins`: (PyPI name, version) → the wheel it must be."""
    wanted = [(key, table.libraries[key].pypi, table.libraries[key].checked, "") for key in keys]
    wanted += [(pypi, pypi, version, category) for pypi, version, category in ecosystem]

    def get(key: str, pypi: str, version: str, category: str) -> Wheel:
        path, sha256 = fetch(pypi, version, pins.get((pypi, version)), cache)
        try:
            tree = registry.unpack(path)
        except registry.RegistryError as exc:
            raise RuntimeError(str(exc)) from None
        return Wheel(key, pypi, version, path, sha256, tree, category)

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(lambda w: get(*w), wanted))


def requirements(wheel: Path) -> dict[str, str]:
    """Name → the specifier the wheel's METADATA requires of it, for the names in `PINNED` it requires at all.

    An unconditional requirement wins; otherwise the first one behind an extra, written with its marker."""
    if wheel.name.endswith(".tar.gz"):  # an sdist: its PKG-INFO holds the same fields
        with tarfile.open(wheel) as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith("/PKG-INFO") and m.name.count("/") == 1)
            text = (archive.extractfile(member) or io.BytesIO()).read().decode("utf-8")
    else:
        with zipfile.ZipFile(wheel) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
            text = archive.read(name).decode("utf-8")
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req = Requirement(line.partition(":")[2].strip())
        key = req.name.lower()
        if key not in PINNED:
            continue
        if req.marker is None and (key not in found or ";" in found[key]):
            found[key] = str(req.specifier)
        elif key not in found:
            found[key] = f"{req.specifier}; {req.marker}"
    return dict(sorted(found.items()))


# --- Training-arguments classes and config keys -----------------------------------------------------------------------


def _classes(tree: Path, package: str, must_contain: str | None = None) -> dict[str, tuple[set[str], list[str]]]:
    """Class name → (base names, annotated field names) for the classes in a package's sources."""
    out: dict[str, tuple[set[str], list[str]]] = {}
    for file in sorted((tree / package).rglob("*.py")):
        text = file.read_text(encoding="utf-8")
        if must_contain and must_contain not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                bases = {
                    n.id if isinstance(n, ast.Name) else n.attr
                    for b in node.bases
                    for n in ast.walk(b)
                    if isinstance(n, (ast.Name, ast.Attribute))
                }
                fields = [
                    s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                ]
                known = out.setdefault(node.name, (set(), []))
                known[0].update(bases)
                known[1].extend(f for f in fields if f not in known[1])
    return out


def _parsed_dataclasses(tree: Path, package: str) -> set[str]:
    """Names in the tuples of dataclasses that a package's scripts hand to their argument parser."""
    names: set[str] = set()
    for file in sorted((tree / package / "scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "dataclass_types" for t in node.targets
            ):
                if isinstance(node.value, (ast.Tuple, ast.List)):
                    names |= {e.id for e in node.value.elts if isinstance(e, ast.Name)}
    return names


def training_classes(table: Table, sources: list[Wheel]) -> rules_module.TrainingClasses:
    """The subclasses of the training-arguments class (TRL's configs) and the keys a training config may hold (the
    fields of the dataclasses TRL's scripts parse), from `sources`."""
    # Removed rows still name fields that code must migrate; owners that are descriptions (TRL's configs) are no root.
    fields = [r for r in table.select(RenameKind.FIELD, shipped=True) if r.owned.is_name]
    roots = {r.owner for r in fields}
    root_libraries = {r.library for r in fields}
    classes: dict[str, tuple[set[str], list[str]]] = {}
    owner_of: dict[str, str] = {}
    parsed: set[str] = set()
    for wheel in sources:
        package = wheel.pypi.replace("-", "_")
        # The root's own package only matters where it names the root; a library may subclass through its own bases.
        found = _classes(wheel.tree, package, must_contain=min(roots) if wheel.library in root_libraries else "class ")
        for name, value in found.items():
            classes.setdefault(name, (set(), []))[0].update(value[0])
            classes[name][1].extend(f for f in value[1] if f not in classes[name][1])
            owner_of.setdefault(name, wheel.library)
        parsed |= _parsed_dataclasses(wheel.tree, package) if (wheel.tree / package / "scripts").is_dir() else set()
    family = set(roots)
    changed = True
    while changed:
        changed = False
        for name, (bases, _) in classes.items():
            if name not in family and bases & family:
                family.add(name)
                changed = True

    def fields_of(name: str, seen: set[str]) -> set[str]:
        if name in seen or name not in classes:
            return set()
        seen.add(name)
        bases, fields = classes[name]
        return set(fields).union(*(fields_of(b, seen) for b in bases))

    keys: set[str] = set()
    for name in family | parsed:
        keys |= fields_of(name, set())
    # The scripts' other dataclasses (TRL's `ModelConfig`): a user's parser given one is proven only by their fields.
    others = sorted((parsed & set(classes)) - family)
    return rules_module.TrainingClasses(
        sources={w.library: w.version for w in sources},
        subclasses={name: owner_of.get(name, "") for name in sorted(family - roots)},
        parsed_dataclasses=tuple(sorted(parsed & set(classes))),
        config_keys=tuple(sorted(keys)),
        library_dataclasses={
            name: rules_module.LibraryDataclass(owner_of[name], tuple(sorted(fields_of(name, set()))))
            for name in others
        },
    )


# --- Scanning the libraries ---------------------------------------------------------------------------------------------


def _in_wheel(path: str, packages: list[Path]) -> str:
    """`path` inside the wheel (`optimum/habana/x.py`): the data never names where this machine unpacked it."""
    found = Path(path)
    return next(found.relative_to(p.parent) for p in packages if found.is_relative_to(p)).as_posix()


def scan(table: Table, targets: list[Wheel], classes: rules_module.TrainingClasses, measured: MatrixData) -> Adoption:
    """Every call site of a renamed name in each wheel, with its measured effect; the data behind the report page.

    `measured` is `data/matrix.json`: the effects come from its newest transformers release and from the last
    release before the rename (what a missing name does)."""
    rules = rules_module.from_table(table, classes)
    newest, before = _reference_releases(table, measured)
    removal = min((r.removal for r in table.select(library="transformers") if r.removal), key=Version)
    switch = next(r for r in table.select(RenameKind.FIELD, library="transformers") if r.owner == "TrainingArguments")
    libraries = []
    own_fields: dict[str, frozenset[str]] = {}
    keys = frozenset(classes.config_keys)
    for wheel in targets:
        packages = wheel.packages
        # No version gate and the planned names too: the report lists every use, knowing which package it reads.
        options = Options(
            rules, Allowed(None, ""), planned=True, gate=False, package=packages[0].name if packages else None
        )
        results = check_all(packages, options, Finder(), selection=INSTALLED)
        sites: list[ScannedSite] = []
        quiet: dict[str, int] = {}
        errors = tuple(f"{_in_wheel(e.path, packages)}:{e.line}: {e.message}" for r in results if (e := r.error))
        # A package that declares the old field on its own configs (a subclass's, or a dataclass of its own, as oumi's
        # TrainingParams) keeps it when transformers drops the alias; so does a package whose configs are TRL's.
        own_fields[wheel.library] = declared_fields(packages, rules.fields)
        declared = own_fields[wheel.library].union(
            *(own_fields.get(dep, frozenset()) for dep in wheel_requires(wheel) if dep != wheel.library)
        )
        for result in results:
            for f in result.findings:
                found = replace(f, path=_in_wheel(f.path, packages))
                if f.code == "unknown-callee" and verdict.training_arguments_call(Path(f.path), f.line, f.old, keys):
                    # Every keyword of the call is a training-arguments field: judged as the keyword it is, passed to
                    # transformers' class (the package's own fields of that name are not what the call sets).
                    site = replace(
                        effect(replace(found, code="keyword"), newest.outcomes, before.outcomes, rules.callers),
                        code=f.code,
                    )
                else:
                    site = effect(found, newest.outcomes, before.outcomes, rules.callers, declared)
                caller = rules.callers.get(f.old) if f.code == "override" else None
                site = verdict.judge(
                    site,
                    f,
                    Path(f.path),
                    (newest.release, removal),
                    switch,
                    verdict.trainer_outcomes(newest.outcomes, before.outcomes, caller),
                )
                if site.effect == "not-deprecated":
                    quiet[f.old] = quiet.get(f.old, 0) + 1
                    continue
                sites.append(site)
        sites.sort(key=lambda s: (s.file, s.line, s.column))
        pins = requirements(wheel.path)
        libraries.append(
            ScannedLibrary(
                library=wheel.library,
                pypi=wheel.pypi,
                version=wheel.version,
                category=wheel.category,
                wheel=wheel.path.name,
                sha256=wheel.sha256,
                requires_transformers=pins.get("transformers", ""),
                requires=pins,
                files=len(results),
                errors=errors,
                sites=tuple(sites),
                not_deprecated=dict(sorted(quiet.items())),
            )
        )
    return Adoption(
        PYTHON_VERSION, MeasuredWith(newest.release, before.release), tuple(libraries), not_scanned(table, measured)
    )


def not_scanned(table: Table, measured: MatrixData) -> tuple[NotScanned, ...]:
    """Each library of the naming comparison scanned neither as one of `LIBRARIES` nor in `ECOSYSTEM`, with its declared transformers requirements (the
    registry's metadata) and why it is left out: it requires no transformers, or none that admits a measured release
    with the new names. `RuntimeError` for one that does: it belongs in `LIBRARIES`."""
    measured_releases = sorted({e.release for e in measured.releases if e.library == "transformers"}, key=Version)
    since = table.first_since("transformers")
    with_new = [r for r in measured_releases if Version(r) >= since]
    scanned = {*LIBRARIES, "transformers", *(pypi for pypi, _, _ in ECOSYSTEM)}
    out = []
    for key, library in table.libraries.items():
        if key in scanned or library.pypi in scanned:
            continue
        try:
            release, declared = registry.requires_dist(registry.PYPI, library.pypi)
        except registry.RegistryError as exc:
            raise RuntimeError(str(exc)) from None
        wanted = tuple(r for r in declared if Requirement(r).name.lower() == "transformers")
        if not wanted:
            reason = "requires no transformers"
        elif not any(Requirement(r).specifier.contains(v) for r in wanted for v in with_new):
            reason = f"its requirement admits no release with the new names ({', '.join(with_new)})"
        else:
            raise RuntimeError(f"{key} {release} requires {'; '.join(wanted)}: add it to adoption.LIBRARIES")
        out.append(NotScanned(key, release, wanted, reason))
    return tuple(out)


def declared_fields(packages: list[Path], fields: Mapping[str, Rename]) -> frozenset[str]:
    """The old field names that some class of the package declares itself (an annotated class attribute)."""
    found: set[str] = set()
    # Only a file where some name is followed by a colon (across spaces, brackets, line continuations and comments, as
    # `(name  # why\n): bool` can be) can annotate it; most files that mention a field name only set or pass it.
    annotated = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(fields))) + r")\b(?:[\s)\\]|#[^\n]*)*:(?!=)")
    for package in packages:
        for file in sorted(package.rglob("*.py")):
            text = file.read_text(encoding="utf-8", errors="replace")
            if not _annotates(text, fields, annotated):
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            for node in _class_statements(tree):
                found |= {
                    s.target.id
                    for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id in fields
                }
    return frozenset(found)


def _class_statements(tree: ast.Module) -> Iterator[ast.ClassDef]:
    """Every class of the module, nested ones too, found by a walk of its statements alone: no expression holds a
    class statement, and `ast.walk` of whole modules was most of the measurement's time."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ClassDef):
            yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            pending += getattr(node, block, ())


def _annotates(text: str, fields: Iterable[str], annotated: re.Pattern[str]) -> bool:
    """Whether `annotated` matches where a field name occurs: `str.find` jumps to the few places worth trying, six
    times faster on the 30,000 files of the cached wheels than a search of the whole text with the pattern."""
    for name in fields:
        at = text.find(name)
        while at >= 0:
            if annotated.match(text, at):
                return True
            at = text.find(name, at + 1)
    return False


def wheel_requires(wheel: Wheel) -> list[str]:
    """The table libraries among the wheel's requirements (`PINNED`), by their requirement name."""
    return list(requirements(wheel.path))


def _reference_releases(table: Table, measured: MatrixData) -> tuple[ReleaseEntry, ReleaseEntry]:
    """The matrix entries of the newest measured transformers release and of the newest one before the rename."""
    since = table.first_since("transformers")
    entries = sorted((e for e in measured.releases if e.library == "transformers"), key=lambda e: Version(e.release))
    older = [e for e in entries if Version(e.release) < since]
    if not entries or not older:
        raise RuntimeError(
            "data/matrix.json measures no transformers release before and after the rename; run `python -m generator matrix`"
        )
    return entries[-1], older[-1]


def measure(
    table: Table,
    cache: Path = registry.CACHE,
    ecosystem: tuple[tuple[str, str, str], ...] = ECOSYSTEM,
    pins: Mapping[tuple[str, str], Pin] | None = None,
) -> tuple[dict[str, object], Adoption]:
    """(training-arguments data, adoption data), measured from the wheels (downloaded when missing) and the
    committed behaviour matrix; `pins` add to (and win over) the wheels the committed data records."""
    known = {**_recorded(), **(pins or {})}
    classes = training_classes(table, wheels(table, CLASS_SOURCES, known, cache))
    return classes, scan(table, wheels(table, LIBRARIES, known, cache, ecosystem), classes, load_matrix())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `adoption` subcommand's options."""
    parser.add_argument("--table", type=Path, default=paths.TABLE_PATH, help="the alias table (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the committed data differ")


def run(args: argparse.Namespace) -> int:
    """`python -m generator adoption [--check]`: measure the adoption data and write it (or compare it)."""
    table = load_table_or_report(args.table)
    if isinstance(table, int):
        return table
    try:
        classes, data = measure(table)
    except (RuntimeError, MatrixError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    outputs = {paths.TRAINING_ARGUMENTS_PATH: dump(classes), DATA_PATH: dump(asdict(data))}
    if args.check:
        stale = writing.stale(outputs)
        for p in stale:
            print(f"{p}: differs from a new measurement", file=sys.stderr)
        return 1 if stale else 0
    written = writing.write_if_changed(outputs)
    for path in outputs:
        print(f"{'wrote' if path in written else 'unchanged'} {path.relative_to(paths.ROOT)}")
    return 0
