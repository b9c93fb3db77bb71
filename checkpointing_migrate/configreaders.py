"""Who reads a YAML or JSON config file: the project's Python files and launch commands that name it, and what they pass it to.

`consumer` follows each mention in the project's Python (through `open`, `Path`, `os.path.join`, a name, `with ... as
f`) to the call that reads it: `yaml.safe_load`, `json.load` or `OmegaConf.load` is the project reading the keys itself;
`parse_yaml_file`/`parse_json_file` asks the parser's dataclasses. A launch command's script is read the same way.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path

from checkpointing_migrate import codes
from checkpointing_migrate.dictflow import NONE, Verdict, VerdictKind, parser_of, parser_verdict
from checkpointing_migrate.hits import Memo
from checkpointing_migrate.project import MAX_FOLDERS, SKIP, root_of
from checkpointing_migrate.receivers import ModuleCache, Receivers
from checkpointing_migrate.rules import Rules

OWN_READERS = frozenset(
    {
        "yaml.safe_load",
        "yaml.load",
        "yaml.full_load",
        "yaml.unsafe_load",
        "yaml.safe_load_all",
        "yaml.load_all",
        "json.load",
        "json.loads",
        "omegaconf.OmegaConf.load",
        "omegaconf.OmegaConf.create",
    }
)
"""Loaders that give the project the file's keys as a plain mapping: whatever reads them is the project's code."""
_PARSE_FILE = frozenset({"parse_yaml_file", "parse_json_file"})
_ARGS_AND_CONFIG = "parse_args_and_config"
"""`TrlParser`'s method that reads the YAML file after a `--config` word (trl-1.16.0 `trl/scripts/utils.py:321-324`)."""
_PATH_WRAPPERS = frozenset(
    {
        "open",
        "io.open",
        "Path",
        "pathlib.Path",
        "os.path.join",
        "os.path.abspath",
        "os.path.expanduser",
        "str",
        "os.fspath",
    }
)
_PATH_METHODS = frozenset({"read_text", "read_bytes", "read", "open", "joinpath", "resolve", "absolute"})
_LAUNCH_SUFFIXES = (".sh", ".bash", ".md", ".markdown", ".mk", ".yml", ".yaml", ".slurm", ".sbatch", ".ipynb")
"""Files that may hold a launch command naming a config (`checkpointing_migrate.launchreaders` tells their kinds)."""
_DOT_FOLDERS = frozenset({".github", ".vscode"})
"""Hidden folders walked all the same: workflows and VS Code's `launch.json` start training runs."""


@dataclass(eq=False)
class Sources:
    """The Python and launch files of each project root that contain a config file's name, found the first time a
    file of the run asks (one per run: `Memo.once`; a later run in the same process sees the files written since)."""

    found: dict[tuple[Path, str], list[Path]] = field(default_factory=dict)

    def of(self, folder: Path, name: str) -> list[Path]:
        """The files of `folder`'s project (`root_of`) that contain the text `name`."""
        root, whole = root_of(folder)
        if (root, name) not in self.found:
            self.found[root, name] = _walk(root, whole, name)
        return self.found[root, name]


def _walk(root: Path, whole: bool, name: str) -> list[Path]:
    found: list[Path] = []
    needle = name.encode()
    for count, (here, dirs, files) in enumerate(os.walk(root)):
        dirs[:] = [d for d in dirs if whole and (d in _DOT_FOLDERS or not d.startswith(".")) and d not in SKIP]
        for file in files:
            path = Path(here, file)
            wanted = file.endswith((".py", *_LAUNCH_SUFFIXES)) or file in ("Makefile", "makefile", "GNUmakefile")
            wanted = wanted or file == "launch.json" and path.parent.name == ".vscode"
            try:
                if wanted and needle in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
        if count > MAX_FOLDERS:
            break
    return found


def sources(folder: Path, name: str, memo: Memo) -> list[Path]:
    """The project's Python files and possible launch files (`.github` included) that contain the text `name`, walked
    once per run (`memo`, the run's)."""
    return memo.once(Sources, Sources).of(folder, name)


def consumer(config: Path, old: str, rules: Rules, launched: list[Verdict], memo: Memo) -> Verdict:
    """What the project's Python and the `launched` verdicts (`checkpointing_migrate.launchreaders`) show reads the
    top-level key `old` of `config`: `own` (the project's code, `why` names where), `unsure`, `args` (an
    HfArgumentParser of training arguments, or a library's command known from the table) or `none` (nothing proven)."""
    verdicts = list(launched)
    for source in [s for s in sources(config.resolve().parent, config.name, memo) if s.name.endswith(".py")]:
        try:
            tree = ast.parse(source.read_bytes())
            verdicts += _Mentions(tree, rules, source, config.name, old).verdicts()
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue  # a file that cannot be read or parsed shows nothing; it is reported when it is checked itself
    for kind in (VerdictKind.OWN, VerdictKind.UNSURE, VerdictKind.ARGS):
        found = next((v for v in verdicts if v.kind == kind), None)
        if found is not None:
            return found
    return NONE


def flag_reader(script: Path, field: str, rules: Rules) -> Verdict:
    """What the parsers `script` builds fill from the flag of dataclass field `field` (`dictflow.parser_verdict`):
    `own` when one is given a dataclass of the project's that declares it (followed into the project's modules),
    else `unsure`, `args` or `none`, the first found in that order."""
    try:
        tree = ast.parse(script.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return NONE
    receivers = Receivers(tree, rules, ModuleCache(), script.parent)
    verdicts = [parser_verdict(n, receivers, field) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    return next(
        (v for kind in (VerdictKind.OWN, VerdictKind.UNSURE, VerdictKind.ARGS) for v in verdicts if v.kind == kind),
        NONE,
    )


def argument_reader(
    script: Path, dests: frozenset[str], old: str, rules: Rules, *, trl_config: bool = False
) -> list[Verdict]:
    """What `script` does with a file named on its command line: followed from `sys.argv[...]` (when `dests` holds
    `""`: the file is a positional argument), from `args.DEST` for each argparse destination in `dests`, and (with
    `trl_config`: the file follows a word `--config`) from `TrlParser.parse_args_and_config()`, which reads it."""
    try:
        tree = ast.parse(script.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return []
    mentions = _Mentions(tree, rules, script, script.name, old)
    if "" in dests:  # `parser.add_argument("config")`: a positional argument's destination is its name
        dests |= {
            node.args[0].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            if not node.args[0].value.startswith("-")
        }
    starts = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and "" in dests
        and mentions.receivers.qualified(node.value) == "sys.argv"
        or isinstance(node, ast.Attribute)
        and node.attr in dests
        and isinstance(node.ctx, ast.Load)
    ]
    found = [v for node in starts for v in mentions._follow(node, 0) if v.kind != VerdictKind.NONE]
    if trl_config:
        found += [
            v
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            if node.func.attr == _ARGS_AND_CONFIG
            for v in mentions.parsed_by(node)
        ]
    return found


class _Mentions:
    """The mentions of a config file's name in one module, followed to the calls that read the file."""

    def __init__(self, tree: ast.Module, rules: Rules, path: Path, name: str, old: str) -> None:
        self.tree, self.path, self.name, self.old = tree, path, name, old
        # Its own module cache: the dataclasses its parsers are given are followed into the project's modules.
        self.receivers = Receivers(tree, rules, ModuleCache(), path.parent)
        self.parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}

    def verdicts(self) -> list[Verdict]:
        found = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.replace("\\", "/")
                if text == self.name or text.endswith("/" + self.name):
                    found += [v for v in self._follow(node, 0) if v.kind != VerdictKind.NONE]
        return found

    def _follow(self, expr: ast.AST, depth: int) -> list[Verdict]:
        """Climb from `expr` (something holding the file's path, handle or text) to the call that reads it."""
        parent = self.parents.get(id(expr))
        if depth > 6 or parent is None:
            return []
        if isinstance(parent, (ast.BinOp, ast.JoinedStr, ast.FormattedValue)):
            return self._follow(parent, depth + 1)
        if isinstance(parent, ast.Attribute) and parent.attr in _PATH_METHODS:
            call = self.parents.get(id(parent))
            return self._follow(call, depth + 1) if isinstance(call, ast.Call) else []
        if isinstance(parent, ast.keyword):
            parent = self.parents.get(id(parent))
        if isinstance(parent, ast.Assign) and parent.value is expr and len(parent.targets) == 1:
            return self._uses(parent.targets[0], depth)
        if isinstance(parent, ast.withitem) and parent.context_expr is expr and parent.optional_vars is not None:
            return self._uses(parent.optional_vars, depth)
        if not isinstance(parent, ast.Call) or expr is parent.func:
            return []
        callee = self.receivers.qualified(parent.func) or ast.unparse(parent.func)
        where = f"{self.path.name}:{parent.lineno}"
        if callee in _PATH_WRAPPERS:
            return self._follow(parent, depth + 1)
        if callee in OWN_READERS:
            why = codes.message("own-reader", "loads", where=where, callee=callee, old=self.old)
            return [Verdict(VerdictKind.OWN, why, parent.lineno)]
        method = parent.func.attr if isinstance(parent.func, ast.Attribute) else None
        return self.parsed_by(parent) if method in _PARSE_FILE else []

    def parsed_by(self, call: ast.Call) -> list[Verdict]:
        """The verdict of the parser method `call` (`parser.parse_yaml_file(...)`) that reads the file."""
        where = f"{self.path.name}:{call.lineno}"
        scopes = [n for n in self._ancestors(call) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        verdict = parser_of(call, [*scopes, self.tree], self.receivers, self.old)
        parse = ast.unparse(call.func)
        if verdict.kind == VerdictKind.OWN:
            why = codes.message("own-reader", "dataclass", where=where, parse=parse, why=verdict.why)
            return [Verdict(VerdictKind.OWN, why, verdict.line)]
        if verdict.kind == VerdictKind.ARGS:
            return [
                Verdict(VerdictKind.ARGS, codes.message("config-key", "parser", parse=parse, where=where), call.lineno)
            ]
        if verdict.kind == VerdictKind.UNSURE:
            why = codes.message("config-key", "unsure-parser", where=where, parse=parse, why=verdict.why)
            return [Verdict(VerdictKind.UNSURE, why)]
        return []

    def _uses(self, target: ast.AST, depth: int) -> list[Verdict]:
        """Follow the loads of the name `target` binds, up to its next binding (`with ... as stream` twice in a
        module are two streams)."""
        if not isinstance(target, ast.Name):
            return []
        stores = sorted(
            n.lineno
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Name) and n.id == target.id and not isinstance(n.ctx, ast.Load)
        )
        until = next((line for line in stores if line > target.lineno), None)
        return [
            v
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Name) and n.id == target.id and isinstance(n.ctx, ast.Load)
            if n.lineno >= target.lineno and (until is None or n.lineno < until)
            for v in self._follow(n, depth + 1)
        ]

    def _ancestors(self, node: ast.AST) -> list[ast.AST]:
        found = []
        while (node := self.parents.get(id(node))) is not None:  # type: ignore[assignment]
            found.append(node)
        return found
