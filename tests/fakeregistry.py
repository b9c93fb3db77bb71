"""A fake package registry on 127.0.0.1, and simulated releases rewritten from real wheels, for the refresh tests.

`Registry` serves the JSON API's shape (`/pypi/<project>/json`) and the files it lists, with their sha256.
`rewrite_wheel` makes a new release out of a real wheel: new version in the dist-info, edited sources, a fresh
RECORD. `transformers_6` removes the deprecated aliases from transformers 5.24.0; `trl_activation` makes TRL declare
`activation_checkpointing` in its configs and keep the old name as a warning alias.
"""

from __future__ import annotations

import ast
import base64
import datetime
import hashlib
import http.server
import json
import re
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Self

from generator.measure import registry

REAL_CACHE = registry.CACHE
"""Where the real wheels are downloaded once (sha256-checked against PyPI), shared with `generator audit`."""


def real_wheel(project: str, version: str) -> Path:
    """The real wheel from PyPI, cached; raises `RegistryError` when offline and not cached."""
    cached = sorted(REAL_CACHE.glob(f"{project.replace('-', '_')}-{version}-py3-none-any.whl"))
    if cached:
        return cached[0]
    files = registry.project(registry.PYPI, project).releases[version]
    return registry.fetch(registry.pick(files), REAL_CACHE)


# --- Rewriting wheels -------------------------------------------------------------------------------------------------


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def rewrite_wheel(source: Path, dest: Path, version: str, edits: dict[str, Callable[[str], str]]) -> Path:
    """`source` as release `version` in `dest`: sources edited by `edits` (path in the wheel → edit), RECORD rebuilt."""
    name, old_version = source.name.split("-")[:2]
    members: dict[str, bytes] = {}
    with zipfile.ZipFile(source) as wheel:
        for info in wheel.infolist():
            data = wheel.read(info)
            path = info.filename.replace(f"{name}-{old_version}.dist-info/", f"{name}-{version}.dist-info/")
            if path in edits:
                data = edits[path](data.decode("utf-8")).encode("utf-8")
            if path.endswith(".dist-info/METADATA"):
                data = re.sub(rb"(?m)^Version: .*$", f"Version: {version}".encode(), data, count=1)
            members[path] = data
    missing = set(edits) - set(members)
    assert not missing, f"no such files in {source.name}: {missing}"
    record = next(p for p in members if p.endswith(".dist-info/RECORD"))
    members[record] = (
        "".join(f"{p},{_record_hash(d)},{len(d)}\n" for p, d in members.items() if p != record).encode()
        + f"{record},,\n".encode()
    )
    out = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in members.items():
            wheel.writestr(path, data)
    return out


def _drop(source: str, nodes: list[ast.AST]) -> str:
    """`source` without the lines of `nodes` (decorators included)."""
    lines = source.splitlines(keepends=True)
    spans = []
    for node in nodes:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        spans.append((first - 1, node.end_lineno))  # type: ignore[attr-defined]
    for start, end in sorted(spans, reverse=True):
        del lines[start:end]
    return "".join(lines)


def _members(source: str, cls: str, pick: Callable[[ast.stmt], bool]) -> list[ast.AST]:
    tree = ast.parse(source)
    klass = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls)
    return [n for n in klass.body if pick(n)]


def _named(*names: str) -> Callable[[ast.stmt], bool]:
    def pick(node: ast.stmt) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node.name in names
        return isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in names

    return pick


def _modeling_utils_v6(source: str) -> str:
    source = _drop(
        source,
        _members(
            source,
            "PreTrainedModel",
            _named("gradient_checkpointing_enable", "gradient_checkpointing_disable", "is_gradient_checkpointing"),
        ),
    )
    # The "subclasses of the old method stay the entry point" fallbacks go with the old methods.
    return re.sub(r'self\._is_overridden\("gradient_checkpointing_(?:enable|disable)"\)', "False", source)


def _training_args_v6(source: str) -> str:
    source = _drop(
        source, _members(source, "TrainingArguments", _named("gradient_checkpointing", "gradient_checkpointing_kwargs"))
    )
    tree = ast.parse(source)
    klass = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "TrainingArguments")
    post_init = next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == "__post_init__")
    set_training = next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == "set_training")
    doomed = [n for n in post_init.body if isinstance(n, ast.For) and "gradient_checkpointing" in ast.unparse(n.iter)]
    doomed += [
        n
        for n in set_training.body
        if isinstance(n, ast.If) and ast.unparse(n.test) == "gradient_checkpointing is not None"
    ]
    assert len(doomed) == 2, doomed
    source = _drop(source, doomed)
    source = re.sub(r"\n\s*gradient_checkpointing: bool \| None = None,", "", source, count=1)  # set_training's keyword
    source = source.replace('        "gradient_checkpointing_kwargs",\n', "", 1)
    return source.replace(
        "self.activation_checkpointing = self.gradient_checkpointing = ", "self.activation_checkpointing = "
    )


def _trainer_v6(source: str) -> str:
    # "Remove the fallback in v6": the Trainer calls the new method on every model, whether it defines it or not.
    test = 'if hasattr(self.model, "activation_checkpointing_enable"):'
    assert source.count(test) == 1, "the Trainer's fallback for models that only define the old method moved"
    return source.replace(test, "if True:  # v6: no fallback to gradient_checkpointing_enable", 1)


def transformers_6(source: Path, dest: Path) -> Path:
    """transformers 6.0.0 simulated from 5.24.0: the deprecated `gradient_checkpointing*` aliases removed, and the
    Trainer's fallback for models that only define the old method with them."""
    return rewrite_wheel(
        source,
        dest,
        "6.0.0",
        {
            "transformers/modeling_utils.py": _modeling_utils_v6,
            "transformers/training_args.py": _training_args_v6,
            "transformers/trainer.py": _trainer_v6,
            "transformers/__init__.py": lambda s: s.replace('__version__ = "5.24.0"', '__version__ = "6.0.0"'),
        },
    )


TRL_WARNING = "`gradient_checkpointing` is deprecated in TRL and will be removed in TRL 2.0. Use `activation_checkpointing` instead."
"""The warning alias the simulated TRL release emits."""


def _trl_base_config(source: str) -> str:
    old_field = _members(source, "_BaseConfig", _named("gradient_checkpointing"))[0]
    lines = source.splitlines(keepends=True)
    lines[old_field.lineno - 1 : old_field.end_lineno] = [  # type: ignore[attr-defined]
        "    activation_checkpointing: bool = field(\n",
        '        default=True, metadata={"help": "Enable activation checkpointing to trade compute for memory."}\n',
        "    )\n",
        "    gradient_checkpointing: bool | None = field(\n",
        '        default=None, metadata={"help": "Deprecated alias of `activation_checkpointing`."}\n',
        "    )\n",
    ]
    source = "".join(lines)
    source = source.replace(
        "from dataclasses import dataclass, field\n", "import warnings\nfrom dataclasses import dataclass, field\n", 1
    )
    return source.replace(
        "    def __post_init__(self):\n",
        "    def __post_init__(self):\n"
        "        if self.gradient_checkpointing is not None:\n"
        f"            warnings.warn({TRL_WARNING!r}, FutureWarning)\n"
        "            self.activation_checkpointing, self.gradient_checkpointing = self.gradient_checkpointing, None\n",
        1,
    )


def trl_activation(source: Path, dest: Path, version: str = "1.17.0") -> Path:
    """A TRL release whose configs declare `activation_checkpointing` and keep the old name as a warning alias."""
    return rewrite_wheel(source, dest, version, {"trl/trainer/base_config.py": _trl_base_config})


# --- Serving ----------------------------------------------------------------------------------------------------------


class Registry:
    """The JSON API on 127.0.0.1 for `releases`: project → version → (wheel path, upload date)."""

    def __init__(self, releases: dict[str, dict[str, tuple[Path, datetime.date]]]) -> None:
        self.releases = releases
        self.files = {path.name: path for versions in releases.values() for path, _ in versions.values()}
        self.requests: list[str] = []
        handler = self._handler()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/pypi"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def project_json(self, project: str) -> dict[str, object]:
        releases = {}
        for version, (path, date) in self.releases[project].items():
            data = path.read_bytes()
            releases[version] = [
                {
                    "filename": path.name,
                    "url": f"../../files/{path.name}",
                    "packagetype": "bdist_wheel",
                    "digests": {"sha256": hashlib.sha256(data).hexdigest()},
                    "size": len(data),
                    "upload_time_iso_8601": f"{date.isoformat()}T12:00:00.000000Z",
                    "yanked": False,
                }
            ]
        return {"info": {"name": project, "version": max(self.releases[project])}, "releases": releases}

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                parts = self.path.strip("/").split("/")
                if len(parts) == 3 and parts[0] == "pypi" and parts[2] == "json" and parts[1] in outer.releases:
                    body, kind = json.dumps(outer.project_json(parts[1])).encode(), "application/json"
                elif len(parts) == 2 and parts[0] == "files" and parts[1] in outer.files:
                    body, kind = outer.files[parts[1]].read_bytes(), "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
