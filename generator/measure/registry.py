"""The package registry's JSON API (the shape of `https://pypi.org/pypi/<project>/json`) and checked downloads.

`project()` reads a project's files, `pick()` chooses one, `fetch()` (`download()`: in parallel) puts it in
`.cache/registry/` checked against its sha256 (never half-written or unchecked under its final name), `unpack()`
extracts it once beside it. The one download path and cache: `refresh`, `audit`, `adoption`, `benchmarks/realcode.py`.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging import tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from generator.paths import CACHE_DIR
from generator.problems import GeneratorError

PYPI = "https://pypi.org/pypi"
"""The default `--index-url`: the JSON API's base, `<base>/<project>/json`."""
CACHE = CACHE_DIR / "registry"
"""Downloaded release files (checked) and their unpacked trees; git-ignored, kept between runs."""
TIMEOUT = 120
"""Seconds one request may stall before it is abandoned."""


class RegistryError(GeneratorError):
    """The registry cannot be read, a file cannot be downloaded, or a download does not match its sha256."""


@dataclass(frozen=True)
class File:
    """One file of a release, as the registry describes it."""

    filename: str
    url: str
    sha256: str
    packagetype: str
    """`bdist_wheel` or `sdist`."""
    size: int
    uploaded: datetime.date
    """The upload date (UTC)."""
    yanked: bool


@dataclass(frozen=True)
class Project:
    """A project's releases, by version text as the registry spells it."""

    name: str
    releases: dict[str, tuple[File, ...]]

    def newer_than(self, version: str) -> list[str]:
        """Final releases after `version` that have files and are not yanked, oldest first."""
        known = Version(version)
        out = []
        for text, files in self.releases.items():
            try:
                parsed = Version(text)
            except InvalidVersion:
                continue
            live = [f for f in files if not f.yanked]
            if parsed > known and not parsed.is_prerelease and not parsed.is_devrelease and live:
                out.append(text)
        return sorted(out, key=Version)

    def uploaded(self, version: str) -> datetime.date:
        """The release's upload date: the day its first file was uploaded."""
        return min(f.uploaded for f in self.releases[version])


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return response.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise RegistryError(f"cannot read {url}: {exc}") from None


def _file(entry: dict, where: str) -> File:
    """One file entry; its URL resolved against the JSON's own address (mirrors give relative ones)."""
    try:
        stamp = entry.get("upload_time_iso_8601") or entry["upload_time"]
        return File(
            filename=entry["filename"],
            url=urllib.parse.urljoin(where, entry["url"]),
            sha256=entry["digests"]["sha256"],
            packagetype=entry.get("packagetype", ""),
            size=int(entry.get("size", 0)),
            uploaded=datetime.datetime.fromisoformat(stamp).date(),
            yanked=bool(entry.get("yanked", False)),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RegistryError(f"{where}: a file entry lacks or mangles {exc}") from None


def project(index_url: str, name: str) -> Project:
    """The project's releases from `<index_url>/<name>/json`; `RegistryError` on any problem."""
    url = f"{index_url.rstrip('/')}/{name}/json"
    try:
        data = json.loads(_get(url))
        releases = {v: tuple(_file(e, url) for e in files) for v, files in data["releases"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RegistryError(f"{url}: not the registry's JSON shape ({exc})") from None
    return Project(name, releases)


def requires_dist(index_url: str, name: str) -> tuple[str, tuple[str, ...]]:
    """(the release the registry's project page describes, its `Requires-Dist`); `RegistryError` on any problem."""
    url = f"{index_url.rstrip('/')}/{name}/json"
    try:
        info = json.loads(_get(url))["info"]
        return str(info["version"]), tuple(info.get("requires_dist") or ())
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RegistryError(f"{url}: not the registry's JSON shape ({exc})") from None


def pick(files: tuple[File, ...], python: str | None = None) -> File:
    """The file to read a release's source in: a pure-Python wheel, else the sdist, else the smallest wheel.

    With `python` (`"3.12"`), the wheel `pip download --only-binary=:all: --python-version` would take on this machine
    instead: the one whose best tag comes first among those that CPython supports (a pure wheel when there is no build).
    """
    live = [f for f in files if not f.yanked]
    if not live:
        raise RegistryError("the release has no downloadable file")
    if python is not None:
        return _wheel_for(live, python)
    pure = [f for f in live if f.filename.endswith("-none-any.whl")]
    sdists = [f for f in live if f.packagetype == "sdist" or f.filename.endswith((".tar.gz", ".zip"))]
    return (pure or sdists or sorted(live, key=lambda f: f.size))[0]


def _wheel_for(files: list[File], python: str) -> File:
    version = tuple(int(part) for part in python.split("."))
    cpython = f"cp{python.replace('.', '')}"
    supported = dict.fromkeys([*tags.cpython_tags(version), *tags.compatible_tags(version, cpython)])
    order = {tag: index for index, tag in enumerate(supported)}  # pip's preference: the earlier, the better
    ranked: list[tuple[int, File]] = []
    for f in files:
        try:
            file_tags = parse_wheel_filename(f.filename)[3]
        except InvalidWheelFilename:
            continue  # an sdist, or a file no installer would take
        best = min((order[t] for t in file_tags if t in order), default=None)
        if best is not None:
            ranked.append((best, f))
    if not ranked:
        raise RegistryError(f"the release has no wheel for Python {python} on this machine")
    return min(ranked, key=lambda pair: pair[0])[1]


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, read in blocks (wheels and sdists run to hundreds of MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cached(path: Path, sha256: str) -> Path | None:
    """`path` if it is a file with this sha256 (re-checked on every call: a cache is not trusted), else `None`."""
    return path if path.is_file() and sha256_of(path) == sha256 else None


def fetch(file: File, cache: Path = CACHE) -> Path:
    """`file` in `cache`, downloaded and checked when missing; a cached copy is re-checked, not trusted."""
    target = cache / file.filename
    if cached(target, file.sha256):
        return target
    cache.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{file.filename}.", dir=cache)
    try:
        with os.fdopen(handle, "wb") as out:
            try:
                with urllib.request.urlopen(file.url, timeout=TIMEOUT) as response:
                    shutil.copyfileobj(response, out, 1 << 20)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                raise RegistryError(f"cannot download {file.url}: {exc}") from None
        got = sha256_of(Path(tmp))
        if got != file.sha256:
            raise RegistryError(f"{file.url}: sha256 {got} does not match the registry's {file.sha256}; nothing kept")
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


def download(files: list[File], cache: Path = CACHE, workers: int = 8) -> dict[File, Path]:
    """Every file, `workers` at a time; raises the first `RegistryError` after all downloads have ended."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {f: pool.submit(fetch, f, cache) for f in dict.fromkeys(files)}
        concurrent.futures.wait(futures.values())
    return {f: future.result() for f, future in futures.items()}


def settle(staging: Path, target: Path, keep: Callable[[Path], bool]) -> None:
    """Move the finished folder `staging` to `target`. If another process (a parallel test worker) put a folder there
    first and `keep` accepts its `.complete` file, theirs stays and may be in use, so it is never removed; the caller
    drops `staging`. Otherwise the leftover is replaced."""
    try:
        staging.rename(target)  # onto a missing or empty folder: atomic
        return
    except OSError:
        if keep(target / ".complete"):
            return
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)


def unpack(archive: Path) -> Path:
    """The archive's extracted tree (a folder beside it), extracted once; sdists lose their top folder."""
    name = archive.name
    tree = archive.with_name(name.removesuffix(".whl").removesuffix(".tar.gz").removesuffix(".zip") + ".tree")
    if (tree / ".complete").is_file():
        return tree
    staging = Path(tempfile.mkdtemp(prefix=f".{tree.name}.", dir=archive.parent))
    try:
        if name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(staging)
        else:
            with tarfile.open(archive) as tarred:
                tarred.extractall(staging, filter="data")
        tops = list(staging.iterdir())
        if not name.endswith(".whl") and len(tops) == 1 and tops[0].is_dir():
            for child in tops[0].iterdir():
                child.rename(staging / child.name)
            tops[0].rmdir()
        (staging / ".complete").write_text(archive.name + "\n", encoding="utf-8")
        settle(staging, tree, lambda done: done.is_file())
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise RegistryError(f"cannot unpack {archive}: {exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tree
