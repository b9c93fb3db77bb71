"""The version gate: which transformers releases a project may run, read from its declarations or from `--target`.

A rename is written only where every allowed release has the new name. The allowed set is the union over every way
the project may be installed (`union`: each extra, group, marker and requirements file, read by `declarations` in
the nearest folder above a file that declares transformers); the run names it (`announce`), or says none was found.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from packaging.version import InvalidVersion, Version

from checkpointing_migrate import NAME
from checkpointing_migrate.declarations import (
    DECLARING,
    PACKAGE,
    PLACES,
    READERS,
    DependencyList,
    RequirementError,
    named,
    pep508,
)

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

__all__ = ["PACKAGE", "PLACES", "Allowed", "Deferred", "Finder", "RequirementError", "announce", "parse_target"]


class Alternative(NamedTuple):
    """One way the project may be installed: the releases it allows and the declarations that say so (a named tuple:
    the class is made at every start, a frozen dataclass costs several times as much to make)."""

    specifier: SpecifierSet
    sources: tuple[str, ...]

    def lower_bound(self) -> tuple[Version, bool] | None:
        """(version, inclusive) below which nothing is allowed; `None` if unbounded below."""
        bound: tuple[Version, bool] | None = None
        for spec in self.specifier:
            try:
                v = Version(spec.version.removesuffix(".*"))
            except InvalidVersion:
                continue
            if spec.operator in (">=", "==", "~=", "==="):
                candidate = (v, True)
            elif spec.operator == ">":
                candidate = (v, False)
            else:
                continue
            if bound is None or candidate[0] > bound[0] or (candidate[0] == bound[0] and not candidate[1]):
                bound = candidate
        return bound

    def text(self) -> str:
        return f"{PACKAGE}{self.specifier or ' (any version)'} ({'; '.join(self.sources)})"


class Allowed(NamedTuple):
    """The transformers releases a project may run on: the union of `alternatives` (a named tuple, as `Alternative`)."""

    alternatives: tuple[Alternative, ...] | None
    """`None` when no requirement was found (any release)."""
    source: str
    """`--target`, or (nothing found) the last folder searched; the alternatives name their own sources."""

    @classmethod
    def of(cls, specifier: SpecifierSet, source: str) -> Allowed:
        """One way to install: `specifier`, declared by `source`."""
        return cls((Alternative(specifier, (source,)),), source)

    @property
    def found(self) -> bool:
        return self.alternatives is not None

    def allows_before(self, since: str) -> bool:
        """Whether some allowed release is older than `since`: yes unless every alternative has a lower bound (`>=`,
        `>`, `==`, `~=`, `===`) at or above `since`, which is exact for every specifier PEP 440 defines."""
        if self.alternatives is None:
            return True
        bounds = [a.lower_bound() for a in self.alternatives]
        return any(b is None or b[0] < Version(since) for b in bounds)

    def describe(self) -> str:
        """For a finding's message: `--target allows transformers>=5.20`, `the project allows ... (where)`."""
        if self.alternatives is None:
            return "no transformers requirement was found"
        if self.source == "--target":
            return f"--target allows {PACKAGE}{self.alternatives[0].specifier}"
        return f"the project allows {' or '.join(a.text() for a in self.alternatives)}"


def parse_target(text: str) -> Allowed:
    """`--target transformers==5.20.0` (a PEP 508 requirement on transformers); raises `ValueError`."""
    try:
        parsed = pep508(text)
    except ValueError as exc:
        raise ValueError(f"--target {text!r} is not a requirement such as 'transformers==5.23.0': {exc}") from None
    if parsed is None:
        package = named(text)
        raise ValueError(
            f"--target names {repr(package) if package else 'no package'}; the renames belong to {PACKAGE}, e.g. '{PACKAGE}==5.23.0'"
        )
    if not satisfiable(parsed[0]):
        raise ValueError(
            f"--target {text!r} allows no release at all (its conditions contradict each other); "
            f"give a range some release meets, e.g. '{PACKAGE}>=5.23.0'"
        )
    return Allowed.of(parsed[0], "--target")


def satisfiable(specifier: SpecifierSet) -> bool:
    """Whether some version (pre-releases included) meets every condition of `specifier`.

    The versions a specifier set allows form intervals between the versions it names (less single points and
    `.*` prefixes), so one probe per interval decides: every named version, one just above each (`V.0.0.0.1` sorts
    right after `V` and its pre-releases), and `0`. A `===` (arbitrary string) condition is taken as satisfiable.
    """
    probes = {Version("0")}
    for spec in specifier:
        if spec.operator == "===":
            return True
        try:
            named = Version(spec.version.removesuffix(".*"))
        except InvalidVersion:
            continue
        release = f"{named.epoch}!" + ".".join(map(str, named.release))
        pre = "".join(map(str, named.pre)) if named.pre else ""
        probes |= {named, Version(f"{release}{pre}.post{(named.post or 0) + 1}"), Version(f"{release}.0.0.0.1")}
        if named.dev is None and named.local is None:
            probes.add(Version(f"{named}.dev0"))
    return any(specifier.contains(v, prereleases=True) for v in probes)


def _alternatives(found: DependencyList) -> list[Alternative]:
    """One installation's alternatives: its unmarked requirements all hold at once (one alternative, which the
    marked ones only narrow); without any, each marked one holds in some environment (one alternative each)."""
    unmarked = [d for d in found.requirements if not d.marked]
    if not unmarked:
        return [Alternative(d.specifier, (d.where,)) for d in found.requirements]
    combined = unmarked[0].specifier
    for d in unmarked[1:]:
        combined &= d.specifier
    return [Alternative(combined, tuple(dict.fromkeys(d.where for d in unmarked)))]


def union(lists: list[DependencyList]) -> tuple[Alternative, ...]:
    """Every way the project may be installed. Extras and groups come with the core dependencies, so when those
    name transformers the extras only narrow them; otherwise each extra or group is a way of its own. Each
    requirements file and conda environment is an installation of its own. A uv override is one more way (`uv sync`
    installs it, pip ignores it), but it adds no requirement: only where something requires transformers. Equal
    ranges are merged, their sources listed together."""
    core = _alternatives(DependencyList("core", tuple(d for x in lists if x.role == "core" for d in x.requirements)))
    ways = core or [a for x in lists if x.role == "extra" for a in _alternatives(x)]
    ways += [a for x in lists if x.role == "alone" for a in _alternatives(x)]
    if ways:
        ways += [a for x in lists if x.role == "override" for a in _alternatives(x)]
    merged: dict[SpecifierSet, list[str]] = {}  # `>=5.23` and `>=5.23.0` are equal specifier sets
    for way in ways:
        sources = merged.setdefault(way.specifier, [])
        sources += [s for s in way.sources if s not in sources]
    return tuple(Alternative(spec, tuple(sources)) for spec, sources in merged.items())


def declared_in(folder: str | Path) -> Allowed | None:
    """What the project files in `folder` allow, if any of them declares transformers (`declarations.READERS`)."""
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    if not any(n.lower().startswith(DECLARING) for n in names):
        return None  # one listing instead of each reader's look: most folders of a tree declare nothing
    lists = [found for reader in READERS for found in reader(Path(folder))]
    ways = union(lists)
    return Allowed(ways, "") if ways else None


def announce(allowed: list[Allowed], since: str) -> list[str]:
    """The lines that say which requirement a run used and where it came from (once per distinct one), for stderr:
    `checkpointing-migrate: transformers>=5.23 (pyproject.toml [project.dependencies])`; when none was found, what
    that means and how to declare one."""
    lines = []
    for a in allowed:
        if a.alternatives is None:
            line = (
                f"{NAME}: no {PACKAGE} requirement found ({PLACES}, in the folders from each file up to {a.source}): "
                f"nothing is rewritten, every rename is reported as info; declare {PACKAGE}>={since} or pass "
                f"--target '{PACKAGE}>={since}'"
            )
        else:
            line = f"{NAME}: {' or '.join(x.text() for x in a.alternatives)}"
        if line not in lines:
            lines.append(line)
    return lines


class Deferred:
    """The allowed range of one file's project, looked up only when a verdict needs it (most files need none)."""

    def __init__(self, finder: Finder, path: str | Path) -> None:
        self._finder, self._path = finder, path
        self._found: Allowed | None = None

    def resolve(self) -> Allowed:
        """The range; raises `RequirementError` when a requirement file cannot be read."""
        if self._found is None:
            self._found = self._finder.for_file(self._path)
        return self._found

    @property
    def found(self) -> bool:
        return self.resolve().found

    def allows_before(self, since: str) -> bool:
        return self.resolve().allows_before(since)

    def describe(self) -> str:
        return self.resolve().describe()


class Finder:
    """Finds and caches the allowed range for each folder; `target` overrides everything (a plain class: making a
    dataclass costs every start-up). Folders are strings: `pathlib` was most of the lookups' time."""

    def __init__(self, target: Allowed | None = None) -> None:
        self.target = target
        self.cache: dict[str, Allowed | RequirementError] = {}
        """Resolved folder → what its project allows."""
        self.given: dict[str, Allowed | RequirementError] = {}
        """Folder as a path names it → the same."""
        self.real: dict[str, str] = {}
        """Folder as a path names it → the folder it is (`os.path.realpath`)."""

    def _resolved(self, folder: str) -> str:
        """`os.path.realpath(folder)`, made from its parent's when that is known: one look at the folder (is it a
        link?), not one at each folder above it, as resolving every path would cost."""
        known = self.real.get(folder)
        if known is None:
            absolute = folder if os.path.isabs(folder) else os.path.join(os.getcwd(), folder)
            parent = os.path.dirname(absolute)
            if ".." in absolute.split(os.sep) or parent == absolute or os.path.islink(absolute):
                known = os.path.realpath(absolute)
            elif os.path.basename(absolute) in ("", "."):  # `a/`, `a/.`: the folder `a`
                known = self._resolved(parent)
            else:
                known = os.path.join(self._resolved(parent), os.path.basename(absolute))
            self.real[folder] = known
        return known

    def for_file(self, path: str | Path) -> Allowed:
        """The allowed range for the project that `path` belongs to (the nearest folder above it, up to a `.git`
        folder, that declares one); raises `RequirementError` (once read, for every file of that project)."""
        if self.target is not None:
            return self.target
        path = os.fspath(path)
        linked = os.path.islink(path)  # a linked file is the project's it is in
        given = os.path.dirname(path)
        result = self.given.get(given) if not linked else None
        if result is None:
            result = self._look_up(os.path.dirname(os.path.realpath(path)) if linked else self._resolved(given))
            if not linked:
                self.given[given] = result
        if isinstance(result, RequirementError):
            raise result
        return result

    def _look_up(self, folder: str) -> Allowed | RequirementError:
        """What the project of resolved `folder` allows (cached for it and every folder walked on the way up)."""
        result: Allowed | RequirementError
        seen = []
        while True:
            if folder in self.cache:
                result = self.cache[folder]
                break
            seen.append(folder)
            try:
                found = declared_in(folder)
            except RequirementError as exc:
                result = exc
                break
            if found is not None:
                result = found
                break
            parent = os.path.dirname(folder)
            if os.path.exists(os.path.join(folder, ".git")) or parent == folder:
                result = Allowed(None, folder)
                break
            folder = parent
        for f in seen:
            self.cache[f] = result
        return result

    def consulted(self, paths: list[str]) -> tuple[list[Allowed], list[RequirementError]]:
        """The distinct ranges the projects of `paths` allow, and the distinct problems reading them."""
        used: list[Allowed] = []
        problems: list[RequirementError] = []
        for path in paths:
            try:
                allowed = self.for_file(path)
            except RequirementError as exc:
                if all(str(p) != str(exc) for p in problems):
                    problems.append(exc)
            else:
                if allowed not in used:
                    used.append(allowed)
        return used, problems
