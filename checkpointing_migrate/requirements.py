"""The version gate: which transformers releases a project allows, read from its requirement or from `--target`.

A rename may only be written where every allowed release has the new name. The range comes from the nearest folder
above a file that declares a transformers requirement, or `--target transformers==X`; without either it is unknown
and nothing is rewritten: the findings say how to declare it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

PACKAGE = "transformers"
"""The package whose releases the shipped renames belong to."""


class RequirementError(ValueError):
    """A requirement that cannot be read; the message starts with `PATH:LINE:COL:`."""


@dataclass(frozen=True)
class Allowed:
    """The transformers releases a project may run on."""

    specifier: SpecifierSet | None
    """`None` when no requirement was found (any release)."""
    source: str
    """Where it came from, for messages: a file path or `--target`."""

    def lower_bound(self) -> tuple[Version, bool] | None:
        """(version, inclusive) below which nothing is allowed; `None` if unbounded below."""
        bound: tuple[Version, bool] | None = None
        for spec in self.specifier or ():
            version = spec.version.removesuffix(".*")
            try:
                v = Version(version)
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

    def allows_before(self, since: str) -> bool:
        """Whether some allowed release is older than `since`: yes unless a lower bound (`>=`, `>`, `==`, `~=`, `===`)
        is at or above `since`, which is exact for every specifier PEP 440 defines, without listing releases."""
        if self.specifier is None:
            return True
        bound = self.lower_bound()
        return bound is None or bound[0] < Version(since)

    def describe(self) -> str:
        if self.specifier is None:
            return "no transformers requirement was found"
        return f"{self.source} allows transformers{self.specifier or ' (any version)'}"


def parse_target(text: str) -> Allowed:
    """`--target transformers==5.20.0` (a PEP 508 requirement on transformers); raises `ValueError`."""
    try:
        specifier = _transformers_specifier(text)
    except ValueError as exc:
        raise ValueError(f"--target {text!r} is not a requirement such as 'transformers==5.23.0': {exc}") from None
    if specifier is None:
        name = _NAME.match(text)
        named = repr(name.group(0).strip()) if name and name.group(0).strip() else "no package"
        raise ValueError(f"--target names {named}; the renames belong to {PACKAGE}, e.g. '{PACKAGE}==5.23.0'")
    if not satisfiable(specifier):
        raise ValueError(
            f"--target {text!r} allows no release at all (its conditions contradict each other); "
            f"give a range some release meets, e.g. '{PACKAGE}>=5.23.0'"
        )
    return Allowed(specifier, "--target")


_NAME = re.compile(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*")
_TRANSFORMERS = rf"\s*{PACKAGE}(?![A-Za-z0-9._-])\s*(?:\[[^\]]*\]\s*)?(?P<spec>[^;@]*)(?P<url>@[^;]*)?(?:;.*)?$"
"""A requirement on transformers, matched case-insensitively; compiled (by `re`'s cache) only when a requirement is read."""


def _transformers_specifier(text: str) -> SpecifierSet | None:
    """The version specifier of a PEP 508 requirement on transformers (markers and extras aside; a URL requirement
    allows any version); `None` when `text` requires another package. `packaging.requirements` would parse the
    same, at the cost of a tenth of a pre-commit `scan`'s start-up; `ValueError` when the versions are bad."""
    from packaging.specifiers import SpecifierSet  # here, not at the top: most scans read no requirement

    name = _NAME.match(text)
    if name is None or name.group(0).strip().lower().replace("_", "-").replace(".", "-") != PACKAGE:
        return None
    found = re.match(_TRANSFORMERS, text, re.IGNORECASE)
    if found is None:
        raise ValueError(f"cannot read {text.strip()!r}")
    spec = found.group("spec").strip()
    spec = spec[1:-1].strip() if spec.startswith("(") and spec.endswith(")") else spec
    return SpecifierSet("" if found.group("url") else spec)


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


def _requirement(text: str, where: str) -> SpecifierSet | None:
    """The specifier of `text` if it is a transformers requirement; `None` for other packages."""
    try:
        return _transformers_specifier(text)
    except ValueError as exc:
        raise RequirementError(
            f"{where}: cannot read the requirement {text.strip()!r}: {exc}; write it as PEP 508, e.g. '{PACKAGE}>=5.23.0'"
        ) from None


def _from_requirements_txt(path: Path) -> list[SpecifierSet]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if not line or line.startswith("-"):
            continue
        if (spec := _requirement(line, f"{path}:{number}:1")) is not None:
            found.append(spec)
    return found


def _line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def _from_pyproject(path: Path) -> list[SpecifierSet]:
    import tomllib

    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RequirementError(f"{path}:1:1: cannot read pyproject.toml: {exc}; fix the TOML syntax") from None
    project = data.get("project", {})
    lists = [project.get("dependencies", []), *project.get("optional-dependencies", {}).values()]
    found = []
    for items in lists:
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str) and (spec := _requirement(item, f"{path}:{_line_of(text, item)}:1")) is not None:
                found.append(spec)
    return found


def _from_setup_cfg(path: Path) -> list[SpecifierSet]:
    import configparser

    text = path.read_text(encoding="utf-8")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, str(path))
    except configparser.Error as exc:
        raise RequirementError(f"{path}:1:1: cannot read setup.cfg: {exc}; fix the INI syntax") from None
    values = [parser.get("options", "install_requires", fallback="")]
    if parser.has_section("options.extras_require"):
        values += [v for _, v in parser.items("options.extras_require")]
    found = []
    for value in values:
        for line in value.splitlines():
            line = line.split("#")[0].strip()
            if line and (spec := _requirement(line, f"{path}:{_line_of(text, line)}:1")) is not None:
                found.append(spec)
    return found


def declared_in(folder: Path) -> Allowed | None:
    """The requirement declared by the project files in `folder`, if any declares transformers: `pyproject.toml`
    (`[project] dependencies` and `optional-dependencies`), `requirements*.txt`, `setup.cfg` (`install_requires`,
    `extras_require`); all declarations found there must hold at once."""
    specs: list[SpecifierSet] = []
    sources: list[str] = []
    candidates = [folder / "pyproject.toml", *sorted(folder.glob("requirements*.txt")), folder / "setup.cfg"]
    readers = {"pyproject.toml": _from_pyproject, "setup.cfg": _from_setup_cfg}
    for path in candidates:
        if not path.is_file():
            continue
        try:
            found = readers.get(path.name, _from_requirements_txt)(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise RequirementError(f"{path}:1:1: cannot read: {exc}") from None
        if found:
            specs += found
            sources.append(str(path))
    if not specs:
        return None
    combined = specs[0]
    for spec in specs[1:]:
        combined &= spec
    return Allowed(combined, " and ".join(sources))


class Deferred:
    """The allowed range of one file's project, looked up only when a verdict needs it (most files need none)."""

    def __init__(self, finder: Finder, path: Path) -> None:
        self._finder, self._path = finder, path
        self._found: Allowed | None = None

    def resolve(self) -> Allowed:
        """The range; raises `RequirementError` when a requirement file cannot be read."""
        if self._found is None:
            self._found = self._finder.for_file(self._path)
        return self._found

    @property
    def specifier(self) -> SpecifierSet | None:
        return self.resolve().specifier

    def allows_before(self, since: str) -> bool:
        return self.resolve().allows_before(since)

    def describe(self) -> str:
        return self.resolve().describe()


@dataclass
class Finder:
    """Finds and caches the allowed range for each folder; `target` overrides everything."""

    target: Allowed | None = None
    cache: dict[Path, Allowed] = field(default_factory=dict)

    def for_file(self, path: Path) -> Allowed:
        """The allowed range for the project that `path` belongs to (the nearest folder above it, up to a `.git`
        folder, that declares one); raises `RequirementError`."""
        if self.target is not None:
            return self.target
        folder = path.resolve().parent
        seen = []
        result = Allowed(None, "")
        while True:
            if folder in self.cache:
                result = self.cache[folder]
                break
            seen.append(folder)
            found = declared_in(folder)
            if found is not None:
                result = found
                break
            if (folder / ".git").exists() or folder.parent == folder:
                break
            folder = folder.parent
        for f in seen:
            self.cache[f] = result
        return result
