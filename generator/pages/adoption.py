"""The adoption report's view: where released libraries use the old names, and what breaks in v6.

A pure function from `data/adoption.json` (read by `generator.measure.adoption_data.load_adoption`) to what the
template shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from checkpointing_migrate.table import Table
from generator.measure.adoption_data import EFFECTS, Adoption


@dataclass(frozen=True)
class Site:
    """One use of an old name in a released library, for the page."""

    where: str
    """`file:line`."""
    old: str
    effect: str
    code: str
    warnings: tuple[str, ...]
    """`Category: message` of each warning the same use emitted on the newest measured release."""
    v6: str
    """The exception the use raises once the old name is removed; empty when it keeps running."""
    changes: str = ""
    """What silently behaves differently once the old name is removed; empty when nothing does."""


@dataclass(frozen=True)
class LibraryView:
    """One library's part of the report."""

    key: str
    display: str
    category: str
    version: str
    wheel: str
    sha256: str
    files: int
    requires_transformers: str
    """The specifier of its transformers requirement (with the extra's marker when only an extra requires it)."""
    requires: Mapping[str, str]
    """Name → specifier, for transformers, TRL, PEFT and Accelerate when the wheel requires them."""
    pins: tuple[str, ...]
    """The requirements other than transformers', written as in the metadata (`trl==1.14.1`)."""
    allows_since: bool | None
    """Whether the requirement admits a measured transformers release with the new names; `None`: no requirement."""
    allows_removal: bool | None
    """Whether it admits the release that removes the old names."""
    counts: dict[str, int]
    """Effect → number of sites (not-deprecated: number of occurrences)."""
    sites: tuple[Site, ...]
    """The sites that are not `not-deprecated`, in file order."""
    breaking: tuple[Site, ...]
    """The sites that raise once the old names are removed."""
    changing: tuple[Site, ...]
    """The sites that keep running but silently behave differently once the old names are removed."""
    not_deprecated: Mapping[str, int]
    """Old name → occurrences that use a name which is not deprecated."""
    errors: tuple[str, ...]


def written(name: str, specifier: str) -> str:
    """A requirement as a requirements file writes it: `trl==1.14.1`, `peft; extra == "dev"`."""
    return f"{name}{specifier}"


def admits(requirement: str, versions: list[str]) -> bool:
    """Whether a requirement's specifier (its marker aside; empty: any version) admits any of `versions`."""
    specifier = SpecifierSet(requirement.split(";")[0].strip())
    return any(specifier.contains(v) for v in versions)


def view(table: Table, data: Adoption) -> dict[str, object]:
    """What templates/adoption-report.md.j2 shows, from the committed data (a pure function)."""
    rows = list(table.select(library="transformers", shipped=True))
    since = min((r.since for r in rows), key=Version)  # type: ignore[arg-type]
    removal = min((r.removal for r in rows if r.removal), key=Version)  # type: ignore[arg-type]
    with_new = [r.version for r in table.releases_of("transformers") if Version(r.version) >= Version(since)]
    libraries = []
    for entry in data.libraries:
        order = list(EFFECTS)
        ordered = sorted(entry.sites, key=lambda s: (order.index(s.effect), s.file, s.line, s.column))
        sites = tuple(Site(f"{s.file}:{s.line}", s.old, s.effect, s.code, s.warnings, s.v6, s.changes) for s in ordered)
        counts = {e: sum(1 for s in sites if s.effect == e) for e in EFFECTS}
        counts["not-deprecated"] = sum(entry.not_deprecated.values())
        required = "transformers" in entry.requires
        display = table.libraries[entry.library].display if entry.library in table.libraries else entry.pypi
        libraries.append(
            LibraryView(
                key=entry.library,
                display=display,
                category=entry.category or "listed in the alias table",
                version=entry.version,
                wheel=entry.wheel,
                sha256=entry.sha256,
                files=entry.files,
                requires_transformers=entry.requires_transformers,
                requires=entry.requires,
                pins=tuple(written(n, spec) for n, spec in entry.requires.items() if n != "transformers"),
                allows_since=admits(entry.requires_transformers, with_new) if required else None,
                allows_removal=admits(entry.requires_transformers, [removal]) if required else None,
                counts=counts,
                sites=sites,
                breaking=tuple(s for s in sites if s.v6),
                changing=tuple(s for s in sites if s.changes and not s.v6),
                not_deprecated=entry.not_deprecated,
                errors=entry.errors,
            )
        )
    breaking = [lib for lib in libraries if lib.breaking]
    changing = [lib for lib in libraries if lib.changing]
    return {
        "libraries": libraries,
        "effects": EFFECTS,
        "python_version": data.python_version,
        "measured_with": data.measured_with,
        "since": since,
        "removal": removal,
        "with_new": with_new,
        "breaking": breaking,
        "breaking_sites": sum(len(lib.breaking) for lib in breaking),
        "changing": changing,
        "changing_sites": sum(len(lib.changing) for lib in changing),
        "dependents": [lib for lib in libraries if lib.allows_since is not None and lib.sites],
        "compared": [lib for lib in libraries if lib.key in table.libraries],
        "compared_all": len([k for k in table.libraries if k != "transformers"]),
        "not_scanned": [(table.libraries[n.library].display or n.library, n) for n in data.not_scanned],
    }
