"""Which command-line flags the project's own argparse parsers declare, found across its Python files (once per folder).

`args.model.gradient_checkpointing_enable` is the project's flag when a module of the project declares it with
`add_argument` (openrlhf declares in `cli/train_ppo_ray.py` what `trainer/ray/ppo_actor.py` reads), or a field of one
of its dataclasses (`gradient_checkpointing_enable: bool`, filled by an `HfArgumentParser`): not the transformers method.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from checkpointing_migrate.codes import shared
from checkpointing_migrate.project import project_folder, python_files


@dataclass(frozen=True)
class Declared:
    """One `add_argument` of a flag, or a dataclass field: its option string, and where it is."""

    flag: str
    """The option string as written (`--model.gradient_checkpointing_enable`)."""
    path: Path | None
    """The file, `None` for the text being checked itself."""
    line: int
    owner: str = ""
    """For a dataclass field (a flag `HfArgumentParser` makes of it): the class that declares it; `""` for an
    `add_argument`."""

    def where(self, folder: Path) -> str:
        """`line 168` in the checked text, else the file relative to `folder` (`cli/train_ppo_ray.py:328`)."""
        if self.path is None:
            return shared("line", line=self.line)
        try:
            shown = self.path.relative_to(folder).as_posix()
        except ValueError:
            shown = self.path.name
        return f"`{shown}:{self.line}`"


def dests(tree: ast.AST, names: Iterable[str], path: Path | None = None) -> dict[str, Declared]:
    """The dest (`model.gradient_checkpointing_enable`) of every `add_argument` in `tree` whose last dotted part is one
    of `names`, as argparse makes it: `dest=`, else the first long option without its dashes, `-` turned into `_`."""
    wanted = frozenset(names)
    found: dict[str, Declared] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
        ):
            continue
        options = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        given = next((k.value for k in node.keywords if k.arg == "dest"), None)
        long = next((o for o in options if o.startswith("--")), None)
        flag = long or next(iter(options), None)
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            dest = given.value
        elif flag is not None:
            dest = flag.lstrip("-").replace("-", "_")
        else:
            continue
        if flag is not None and dest.rpartition(".")[2] in wanted:
            found.setdefault(dest, Declared(flag, path, node.lineno))
    for node in ast.walk(tree):
        # A dataclass field: `HfArgumentParser` makes it the flag `--name`, parsed into the project's own object.
        if isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id in wanted:
                    name = item.target.id
                    found.setdefault(name, Declared(f"--{name}", path, item.lineno, node.name))
    return found


@dataclass(eq=False)
class Parsers:
    """The flags each project folder declares, read the first time a file of it asks (one per run: `Memo.once`)."""

    folders: dict[tuple[Path, frozenset[str]], dict[str, Declared]] = field(default_factory=dict)

    def declared(self, base: Path, names: frozenset[str]) -> tuple[Path, dict[str, Declared]]:
        """(the project folder of `base`, dest → declaration of the flags ending in one of `names` there)."""
        root, whole = project_folder(base)
        if (root, names) not in self.folders:
            self.folders[root, names] = _walk(root, whole, names)
        return root, self.folders[root, names]


def _walk(root: Path, whole: bool, names: frozenset[str]) -> dict[str, Declared]:
    found: dict[str, Declared] = {}
    needles = [n.encode() for n in names]
    # A field named like one (`name: type` indented in a class): only such a file is parsed for its dataclasses.
    fields = re.compile(rb"^[ \t]+(?:" + b"|".join(re.escape(n) for n in sorted(needles)) + rb")[ \t]*:", re.M)
    for path in python_files(root, whole):
        try:
            data = path.read_bytes()
            argparse = b"add_argument" in data and any(n in data for n in needles)
            if argparse or (b"dataclass" in data and fields.search(data) is not None):
                for dest, declared in dests(ast.parse(data), names, path).items():
                    found.setdefault(dest, declared)
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue  # a file that cannot be read or parsed declares nothing; it is reported when checked itself
    return found


_GROUPS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
"""Calls that make a group whose `add_argument` declares the option on the parser they are called on."""


def abbreviated(tree: ast.AST, flag: str) -> list[str]:
    """The long options declared with `add_argument` in `tree` of which `flag` is a proper prefix, on a parser that
    lets argparse take abbreviations (`allow_abbrev` not `False`): such a parser takes `--gradient_checkpointing` for
    its `--gradient_checkpointing_level` (two of them: it stops on the ambiguity), so the flag never gets past it to
    the HfArgumentParser given the rest (`parse_known_args`). A parser the file does not build here (a function's
    parameter) has argparse's default, `allow_abbrev=True`."""
    made = {
        node.targets[0].id: node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
    }
    found: list[str] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
        ):
            continue
        options = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        longer = [o for o in options if o.startswith("--") and o.startswith(flag) and o != flag]
        if longer and _abbreviates(node.func.value, made):
            found += [o for o in longer if o not in found]
    return found


def _abbreviates(receiver: ast.expr, made: dict[str, ast.Call]) -> bool:
    """Whether the parser `receiver` (`parser`, or a group of it) takes abbreviations: `False` only when the call that
    made it, or the parser a group of it was made from, is given `allow_abbrev=False`."""
    seen: set[str] = set()
    while isinstance(receiver, ast.Name) and receiver.id in made and receiver.id not in seen:
        seen.add(receiver.id)
        call = made[receiver.id]
        given = next((k.value for k in call.keywords if k.arg == "allow_abbrev"), None)
        if isinstance(given, ast.Constant) and given.value is False:
            return False
        if not (isinstance(call.func, ast.Attribute) and call.func.attr in _GROUPS):
            return True
        receiver = call.func.value
    return True


_SCANS = frozenset({"index", "count", "remove", "startswith", "endswith"})
"""Methods that look for an argument among the words (`sys.argv.index("--flag")`, `arg.startswith("--flag=")`)."""


def mentioned(tree: ast.AST, flag: str) -> ast.expr | None:
    """The first test in `tree` of the words of a command line for `flag` itself (`"--flag" in sys.argv`, `arg ==
    "--flag"`, `sys.argv.index("--flag")`), spelt as is or with `=`: the script reads the flag on its own as well as
    through its parser, so renamed, that test no longer sees it. An `add_argument` is `dests`' (a declaration)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SCANS:
            operands = list(node.args)
        else:
            continue
        if any(_names_flag(o, flag) for o in operands):
            return node
    return None


def _names_flag(node: ast.expr, flag: str) -> bool:
    """Whether `node` is the string `flag`, or `flag=` (the start of the flag given with its value)."""
    return isinstance(node, ast.Constant) and node.value in (flag, f"{flag}=")
