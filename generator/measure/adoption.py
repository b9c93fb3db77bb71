"""The adoption report's data: run the scanner over released libraries and classify every call site.

Which release of each library is scanned is the `checked` version the alias table records for it; the wheels are
fetched with `pip download --no-deps` into `.cache/wheels/` (kept between runs) and unpacked there. Each finding of
the scanner (run without the version gate, with the planned names, and knowing which package it reads, so that
diffusers' own `is_gradient_checkpointing` is not taken for transformers') gets an effect on transformers ≥ 5.23:
it warns, overrides the old method, is a silent read, is a write that no longer takes effect, only runs on older
releases, or uses a name that is not deprecated. The result is committed as `data/adoption.json`; the page
`docs/generated/adoption-report.md` is rendered from it.

The same wheels give `data/training-arguments.json`: the subclasses of the training-arguments class (TRL's
configs) and the keys a training config may hold (the fields of the dataclasses TRL's scripts parse), which the
scanner needs and the table cannot say.

Refresh: `python -m generator.measure.adoption` (then `python -m generator render`).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from generator import paths
from generator.migrate import rules as rules_module
from generator.migrate.hits import Options
from generator.migrate.requirements import Allowed, Finder
from generator.migrate.run import check_all
from generator.table import Table, load

ROOT = paths.ROOT
CACHE = ROOT / ".cache" / "wheels"
"""Downloaded wheels and their unpacked trees (git-ignored)."""
DATA_PATH = ROOT / "data" / "adoption.json"
LIBRARIES = ("peft", "trl", "accelerate", "diffusers", "axolotl")
"""The libraries the report covers, by their key in the table."""
CLASS_SOURCES = ("transformers", "trl")
"""Libraries whose wheels define the training-arguments classes and the config keys."""
PYTHON_VERSION = "3.12"
"""`pip download --python-version`: Axolotl 0.21.0 requires Python ≥ 3.12; the wheels are pure Python."""

EFFECTS = {
    "warns": "emits the deprecation warning the alias table records for the name",
    "overrides": "overrides the old method: stays the entry point until the old name is removed, warns when it calls up",
    "silent": "silent: reads the mirrored old field, or refers to the old method without calling it",
    "lost-write": "write that no longer takes effect (the Trainer reads the new field)",
    "dead": "only runs on transformers releases older than the rename",
    "not-deprecated": "a name that is not deprecated (per-module flag, another library's own name, a planned rename)",
}
"""Effect → what it means, in the order the report lists them."""

_EFFECT_OF_CODE = {
    "call": "warns", "property": "warns", "keyword": "warns", "string-lookup": "warns", "subclass-default": "warns",
    "kwargs-unpacked": "warns", "flag": "warns", "config-key": "warns", "both-names": "warns",
    "override": "overrides", "instance-override": "overrides",
    "read": "silent", "reference": "silent",
    "write": "lost-write", "dead-write": "dead",
}


def effect(code: str) -> str:
    """The effect on transformers ≥ 5.23 of a finding with rule `code`."""
    return _EFFECT_OF_CODE.get(code, "not-deprecated")


@dataclass(frozen=True)
class Wheel:
    library: str
    pypi: str
    version: str
    path: Path

    @property
    def tree(self) -> Path:
        return self.path.with_suffix("")


def fetch(pypi: str, version: str, cache: Path = CACHE) -> Path:
    """The wheel of `pypi==version` in `cache`, downloaded if missing; raises `RuntimeError` if pip fails."""
    cache.mkdir(parents=True, exist_ok=True)
    prefix = pypi.replace("-", "_")
    found = sorted(cache.glob(f"{prefix}-{version}-*.whl"))
    if not found:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version",
                   PYTHON_VERSION, "-q", "-d", str(cache), f"{pypi}=={version}"]
        done = subprocess.run(command, capture_output=True, text=True)
        found = sorted(cache.glob(f"{prefix}-{version}-*.whl"))
        if done.returncode != 0 or not found:
            raise RuntimeError(f"`{' '.join(command)}` failed: {done.stderr.strip()[-500:]}")
    wheel = found[0]
    tree = wheel.with_suffix("")
    if not tree.is_dir():
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tree)
    return wheel


def wheels(table: Table, keys: tuple[str, ...], cache: Path = CACHE) -> list[Wheel]:
    """The wheels of the `checked` release of each library in `keys`."""
    out = []
    for key in keys:
        library = table.libraries[key]
        out.append(Wheel(key, library.pypi, library.checked, fetch(library.pypi, library.checked, cache)))
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
                bases = {n.id if isinstance(n, ast.Name) else n.attr for b in node.bases for n in ast.walk(b) if isinstance(n, (ast.Name, ast.Attribute))}
                fields = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                known = out.setdefault(node.name, (set(), []))
                known[0].update(bases)
                known[1].extend(f for f in fields if f not in known[1])
    return out


def _parsed_dataclasses(tree: Path, package: str) -> set[str]:
    """Names in the tuples of dataclasses that a package's scripts hand to their argument parser."""
    names: set[str] = set()
    for file in sorted((tree / package / "scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "dataclass_types" for t in node.targets):
                if isinstance(node.value, (ast.Tuple, ast.List)):
                    names |= {e.id for e in node.value.elts if isinstance(e, ast.Name)}
    return names


def training_classes(table: Table, sources: list[Wheel]) -> dict[str, object]:
    """The subclasses of the training-arguments class and the keys a training config may hold, from `sources`."""
    # Removed rows still name fields that code must migrate; owners that are descriptions (TRL's configs) are no root.
    fields = [r for r in table.renames if r.kind == "field" and r.status in ("shipped", "removed") and r.owner.isidentifier()]
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
    return {
        "sources": {w.library: w.version for w in sources},
        "subclasses": {name: owner_of.get(name, "") for name in sorted(family - roots)},
        "parsed_dataclasses": sorted(parsed & set(classes)),
        "config_keys": sorted(keys),
    }


# --- Scanning the libraries ---------------------------------------------------------------------------------------------


def scan(table: Table, targets: list[Wheel], classes: dict[str, object]) -> dict[str, object]:
    """Every call site of a renamed name in each wheel, with its effect; the data behind the report page."""
    rules = rules_module.from_table(table, classes)
    libraries = []
    for wheel in targets:
        package = wheel.pypi.replace("-", "_")
        options = Options(rules, Allowed(None, ""), planned=True, gate=False, package=package)
        results = check_all([wheel.tree / package], options, Finder())
        sites, quiet = [], {}
        errors = [f"{e.path}:{e.line}: {e.message}" for r in results if (e := r.error)]
        for result in results:
            for f in result.findings:
                file = Path(f.path).relative_to(wheel.tree).as_posix()
                kind = effect(f.code)
                if kind == "not-deprecated":
                    quiet[f.old] = quiet.get(f.old, 0) + 1
                    continue
                sites.append({"file": file, "line": f.line, "column": f.column, "old": f.old, "code": f.code, "effect": kind})
        sites.sort(key=lambda s: (s["file"], s["line"], s["column"]))
        libraries.append({
            "library": wheel.library, "pypi": wheel.pypi, "version": wheel.version, "wheel": wheel.path.name,
            "sha256": _sha256(wheel.path), "files": len(results), "errors": errors,
            "sites": sites, "not_deprecated": dict(sorted(quiet.items())),
        })
    return {"python_version": PYTHON_VERSION, "libraries": libraries}


def dump(data: object) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


def measure(table: Table, cache: Path = CACHE) -> tuple[dict[str, object], dict[str, object]]:
    """(training-arguments data, adoption data), measured from the wheels (downloaded when missing)."""
    classes = training_classes(table, wheels(table, CLASS_SOURCES, cache))
    return classes, scan(table, wheels(table, LIBRARIES, cache), classes)


class AdoptionDataError(ValueError):
    """The committed adoption data is missing or unreadable; the message starts with `PATH:1:1:`."""


def load_data(path: Path = DATA_PATH) -> dict[str, object]:
    """The committed adoption data; raises `AdoptionDataError`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except FileNotFoundError:
        raise AdoptionDataError(f"{path}:1:1: missing; run `python -m generator.measure.adoption` to measure it") from None
    except (OSError, ValueError) as exc:
        raise AdoptionDataError(f"{path}:1:1: cannot read: {exc}; run `python -m generator.measure.adoption`") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.measure.adoption", description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, default=ROOT / "aliases.yaml")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the committed data differ")
    args = parser.parse_args(argv)
    table = load(args.table)
    try:
        classes, data = measure(table)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    outputs = {rules_module.CLASSES_PATH: dump(classes), DATA_PATH: dump(data)}
    if args.check:
        stale = [p for p, text in outputs.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"{p}: differs from a new measurement", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        print(f"{'wrote' if write_if_changed(path, text) else 'unchanged'} {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# --- The page ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    """One use of an old name in a released library, for the page."""

    where: str
    """`file:line`."""
    old: str
    effect: str
    code: str


@dataclass(frozen=True)
class LibraryView:
    """One library's part of the report."""

    key: str
    display: str
    version: str
    wheel: str
    sha256: str
    files: int
    counts: dict[str, int]
    """Effect → number of sites (not-deprecated: number of occurrences)."""
    sites: tuple[Site, ...]
    """The sites that are not `not-deprecated`, in file order."""
    not_deprecated: dict[str, int]
    """Old name → occurrences that use a name which is not deprecated."""
    errors: tuple[str, ...]


def view(table: Table, data: dict[str, object]) -> dict[str, object]:
    """What templates/adoption-report.md.j2 shows, from the committed data (a pure function)."""
    libraries = []
    for entry in data["libraries"]:  # type: ignore[union-attr]
        order = list(EFFECTS)
        ordered = sorted(entry["sites"], key=lambda s: (order.index(s["effect"]), s["file"], s["line"], s["column"]))
        sites = tuple(Site(f"{s['file']}:{s['line']}", s["old"], s["effect"], s["code"]) for s in ordered)
        counts = {e: sum(1 for s in sites if s.effect == e) for e in EFFECTS}
        counts["not-deprecated"] = sum(entry["not_deprecated"].values())
        libraries.append(LibraryView(
            key=entry["library"], display=table.libraries[entry["library"]].display, version=entry["version"],
            wheel=entry["wheel"], sha256=entry["sha256"], files=entry["files"], counts=counts, sites=sites,
            not_deprecated=entry["not_deprecated"], errors=tuple(entry["errors"]),
        ))
    return {"libraries": libraries, "effects": EFFECTS, "python_version": data["python_version"]}
