"""The "Try it" page's runtime: Pyodide, the tool's own wheel and its two dependencies, published into the built site.

`fetch` (`make setup`) downloads the pinned files of `playground.pins` into `.cache/playground/`; `publish` (the hook)
checks each sha256, builds the tool's wheel with hatchling (cached by content hash) and places everything, with a
manifest for the page's script, under `assets/playground/` of site_dir only. Nothing is fetched from elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from checkpointing_migrate import codes
from checkpointing_migrate.table import Table
from generator.pages import guide_sections
from generator.paths import CACHE_DIR, ROOT
from generator.problems import GeneratorError

PINS_PATH = Path(__file__).with_name("playground.pins")
"""The pinned downloads: how each is fetched, name, version, file, sha256."""

CACHE = CACHE_DIR / "playground"
"""Downloads and the built archives, each under a name that says its content (version or content hash)."""

SITE_FOLDER = "assets/playground"
"""Where the runtime goes in the built site (the page `try/` loads it from `../assets/playground/`)."""

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
"""What `loadPyodide` fetches for the bare interpreter (no package of the full distribution is used)."""

WHEEL_INPUTS = ("checkpointing_migrate", "aliases.yaml", "data/training-arguments.json", "pyproject.toml", "README.md")
"""What the tool's wheel is built from: its content hash names the cached wheel."""

GUIDE_PAGE = "generated/migration-guide/"
"""The guide's address in the built site, relative to the site root (findings link their section on it)."""


class PlaygroundError(GeneratorError):
    """A download is missing or does not match its pinned sha256: says which, and what to run."""


@dataclass(frozen=True)
class Pin:
    """One pinned download."""

    how: str
    """`npm` (npm pack), `sdist` or `wheel` (pip download --no-deps)."""
    name: str
    version: str
    file: str
    sha256: str

    @property
    def path(self) -> Path:
        return CACHE / self.file


def pins(path: Path = PINS_PATH) -> dict[str, Pin]:
    """The pins by name; raises `PlaygroundError` at `PATH:LINE:1` for a line that is not five fields."""
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 5 or fields[0] not in ("npm", "sdist", "wheel"):
            raise PlaygroundError(f"{path}:{number}:1: expected `npm|sdist|wheel NAME VERSION FILE SHA256`")
        pin = Pin(*fields)
        found[pin.name] = pin
    return found


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _checked(pin: Pin) -> Path:
    if not pin.path.is_file():
        raise PlaygroundError(
            f"{pin.path}: missing (the playground's {pin.name} {pin.version}); run `make setup` to download it"
        )
    digest = _sha256(pin.path)
    if digest != pin.sha256:
        raise PlaygroundError(
            f"{pin.path}: sha256 {digest}, but {PINS_PATH.name} pins {pin.sha256}; delete it and run `make setup`"
        )
    return pin.path


def fetch(pin: Pin) -> None:
    """Download `pin` into the cache through its registry's own client, unless it is there; checked, then moved into
    place (an interrupted download leaves nothing under the final name)."""
    if pin.path.is_file() and _sha256(pin.path) == pin.sha256:
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        if pin.how == "npm":
            command = ["npm", "pack", "--silent", f"{pin.name}@{pin.version}"]
        else:
            binary = (
                ["--no-binary", ":all:", "--no-build-isolation"] if pin.how == "sdist" else ["--only-binary", ":all:"]
            )
            command = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "-q",
                *binary,
                "-d",
                ".",
                f"{pin.name}=={pin.version}",
            ]
        subprocess.run(command, cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        got = Path(tmp) / pin.file
        if not got.is_file():
            raise PlaygroundError(f"{' '.join(command)}: did not give {pin.file}")
        digest = _sha256(got)
        if digest != pin.sha256:
            raise PlaygroundError(f"{pin.name} {pin.version}: sha256 {digest}, but {PINS_PATH.name} pins {pin.sha256}")
        os.replace(got, pin.path)


def _inputs_hash() -> str:
    digest = hashlib.sha256()
    for name in WHEEL_INPUTS:
        top = ROOT / name
        files = (
            sorted(p for p in top.rglob("*") if p.is_file() and "__pycache__" not in p.parts) if top.is_dir() else [top]
        )
        for file in files:
            digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _last_used(folder: Path) -> float:
    try:
        return folder.stat().st_mtime
    except OSError:  # removed meanwhile by another process
        return 0.0


KEPT_WHEELS = 4
"""How many wheels of different sources the cache keeps (the most recently used)."""


def tool_wheel() -> Path:
    """The tool's wheel, built from this checkout by hatchling (the build backend pyproject.toml names), once per
    content: a page edit rebuilds nothing."""
    folder = CACHE / f"wheel-{_inputs_hash()}"
    built = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    if built:
        os.utime(folder)  # used now: the last to be evicted
        return built[0]
    from hatchling.builders.wheel import WheelBuilder

    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        (wheel,) = WheelBuilder(str(ROOT)).build(directory=tmp, versions=["standard"])
        folder.mkdir(parents=True, exist_ok=True)
        os.replace(wheel, folder / Path(wheel).name)
    # The wheels of earlier sources: one per edit would pile up. The most recently used few stay, so checkouts and
    # test workers that share this cache (each building its own source) do not delete each other's wheel mid-build.
    earlier = sorted(CACHE.glob("wheel-*"), key=_last_used, reverse=True)
    for old in earlier[KEPT_WHEELS:]:
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)
    return folder / Path(wheel).name


def _pyyaml_zip(pin: Pin) -> Path:
    """PyYAML's pure-Python `lib/yaml` from its checked sdist, as a zip of `yaml/` (its C extension is optional)."""
    target = CACHE / f"pyyaml-{pin.version}-{pin.sha256[:12]}.zip"
    if target.is_file():
        return target
    sdist = _checked(pin)
    prefix = f"pyyaml-{pin.version}/lib/yaml/"
    with tempfile.NamedTemporaryFile(dir=CACHE, delete=False) as tmp, zipfile.ZipFile(tmp, "w") as out:
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.startswith(prefix) and member.name.endswith(".py"):
                    data = tar.extractfile(member)
                    assert data is not None
                    out.writestr("yaml/" + member.name.removeprefix(prefix), data.read())
    os.chmod(tmp.name, 0o644)  # served files are world-readable; a temporary file is not
    os.replace(tmp.name, target)
    return target


def _pyodide_folder(pin: Pin) -> Path:
    """The interpreter's files, unpacked once from the checked npm tarball."""
    folder = CACHE / f"pyodide-{pin.version}-{pin.sha256[:12]}"
    if folder.is_dir():
        return folder
    tarball = _checked(pin)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        with tarfile.open(tarball) as tar:
            for name in PYODIDE_FILES:
                tar.extract(f"package/{name}", tmp, filter="data")
        os.replace(Path(tmp) / "package", folder)
    return folder


def _place(source: Path, target: Path) -> None:
    """A hard link where it can (a rebuild under `mkdocs serve` copies nothing), else a copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(source.resolve(), target)  # the file, not a symlink to it (a linked cache)
    except OSError:
        shutil.copyfile(source, target)


def manifest(table: Table, archives: list[tuple[Path, str]]) -> dict[str, object]:
    """What the page's script reads: the archives to unpack (file, format, sha256), the default requirement (the
    release that shipped the renames, from the table) and each finding code's guide section on this site."""
    since = table.shipped[0].since
    anchors = guide_sections.anchors(table)
    return {
        "requirement": f">={since}",
        "archives": [{"file": p.name, "format": fmt, "sha256": _sha256(p)} for p, fmt in archives],
        "guide": {c.code: GUIDE_PAGE + (f"#{anchors[c.section]}" if c.section else "") for c in codes.CODES.values()}
        | {codes.FILE_ERROR: GUIDE_PAGE},
    }


def missing() -> list[Pin]:
    """The pinned downloads not in the cache: a build without `make setup` (or in a copy of the sources) publishes
    no runtime, and the page says so; a download that is there but differs is an error (`publish`)."""
    return [p for p in pins().values() if not p.path.is_file()]


def publish(site_dir: Path, table: Table) -> None:
    """The runtime and its manifest under `SITE_FOLDER` of `site_dir`; raises `PlaygroundError`."""
    pinned = pins()
    folder = site_dir / SITE_FOLDER
    pyodide = _pyodide_folder(pinned["pyodide"])
    for name in PYODIDE_FILES:
        _place(pyodide / name, folder / "pyodide" / name)
    archives = [
        (tool_wheel(), "wheel"),
        (_checked(pinned["packaging"]), "wheel"),
        (_pyyaml_zip(pinned["pyyaml"]), "zip"),
    ]
    for path, _ in archives:
        _place(path, folder / path.name)
    (folder / "manifest.json").write_text(json.dumps(manifest(table, archives), indent=1) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    """`python -m generator.pages.playground fetch`: download every pinned file (what `make setup` runs)."""
    if argv != ["fetch"]:
        print("usage: python -m generator.pages.playground fetch", file=sys.stderr)
        return 2
    try:
        for pin in pins().values():
            fetch(pin)
    except (PlaygroundError, subprocess.CalledProcessError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
