"""Docker Compose services, `Procfile`s, `justfile`s and `tox.ini`: their commands are shell, checked where written.

Each file is read as shell text of its length (all but its commands blanked), a shell per command as each tool runs:
a service's `command:`/`entrypoint:` (a string or a list of words; inside its container, so fixes are unsafe), a
Procfile's `name: command`, a recipe's lines (`@`/`-` blanked; a `#!` recipe is one script), tox's `commands`.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from checkpointing_migrate import codes, shell, workflows, yaml_json
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.kinds import FileKind, shebang_kind
from checkpointing_migrate.located import ParseError

_PROCESS = re.compile(r"[ \t]*[\w.-]+[ \t]*:")
_RECIPE = re.compile(r"@?[A-Za-z_][\w-]*(?:[ \t][^:#\n]*)?:(?!=)")
"""A recipe's header (`train epochs="1": deps`), not a setting (`cfg := "x"`, `set shell := […]`)."""
_SECTION = re.compile(r"[ \t]*\[(?P<name>[^\]]*)\]")
_COMMANDS = re.compile(r"(?P<key>commands(?:_pre|_post)?)[ \t]*[=:][ \t]*")
_CHANGEDIR = re.compile(r"change_?dir[ \t]*[=:](?P<folder>.*)")
_SERVICE_KEYS = ("command", "entrypoint")


def _blank(text: str) -> str:
    """`text` with every character but its line ends a space."""
    return "".join(c if c in "\r\n" else " " for c in text)


def _lines(text: str) -> list[tuple[str, str]]:
    """Each line of `text` as (its body, its line end)."""
    return [(line.rstrip("\r\n"), line[len(line.rstrip("\r\n")) :]) for line in text.splitlines(keepends=True)]


def procfile_view(text: str) -> str:
    """A Procfile as shell: each `name: command` line's command, its `name:` blanked (comments and others blanked)."""
    out = []
    for body, end in _lines(text):
        process = None if body.lstrip().startswith("#") else _PROCESS.match(body)
        kept = 0 if process is None else process.end()
        out.append(" " * (kept if process else len(body)) + (body[kept:] if process else "") + end)
    return "".join(out)


def justfile_view(text: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A justfile as shell: the indented lines below each recipe's header, their `@`/`-` blanked; and the stretches
    that are one script (a recipe whose first line is `#!` of a shell; another interpreter's recipe is blanked)."""
    out: list[str] = []
    joined: list[tuple[int, int]] = []
    in_recipe, script, offset, continued = False, None, 0, False
    for body, end in _lines(text):
        stripped = body.lstrip()
        if in_recipe and body[:1] in (" ", "\t") and stripped:
            if script is None:  # the recipe's first line: a `#!` makes it one script
                script = shebang_kind(stripped.encode()) if stripped.startswith("#!") else "lines"
                if script == FileKind.SHELL:
                    joined.append((offset, offset))
            if script == FileKind.SHELL:
                out.append(body + end)
                joined[-1] = (joined[-1][0], offset + len(body))
            elif script == "lines":  # lines of their own, as make's recipe lines; one continued with `\` goes on
                prefix = 0 if continued else len(stripped) - len(stripped.lstrip("@-"))
                out.append(" " * (len(body) - len(stripped) + prefix) + stripped[prefix:] + end)
            else:
                out.append(" " * len(body) + end)
        else:
            if stripped and body[:1] not in (" ", "\t"):
                in_recipe, script = not body.startswith("#") and _RECIPE.match(body) is not None, None
            out.append(" " * len(body) + end)
        offset += len(body) + len(end)
        continued = body.endswith("\\")
    return "".join(out), tuple(joined)


def tox_view(text: str) -> tuple[str, tuple[tuple[int, int, str | None], ...]]:
    """A `tox.ini` as shell: each line of the `commands` of a `[testenv]`/`[testenv:NAME]` section (its first after
    `commands =`, then its indented continuation lines), a leading `-` or `!` blanked; and the folder each section's
    commands run in (`changedir`, its own or `[testenv]`'s)."""
    out: list[str] = []
    folders: list[tuple[int, int, str | None]] = []
    changedirs = _changedirs(text)
    testenv, in_commands, offset = False, False, 0
    for index, (body, end) in enumerate(lines := _lines(text)):
        continued = index > 0 and lines[index - 1][0].endswith("\\")
        section = _SECTION.match(body)
        if section is not None:
            name = section["name"].strip()
            testenv = name.split(":")[0] == "testenv"
            in_commands = False
            folder = changedirs.get(name, changedirs.get("testenv", ""))
            folders.append((offset, len(text), folder))
            if len(folders) > 1:
                folders[-2] = (folders[-2][0], offset, folders[-2][2])
            out.append(" " * len(body) + end)
        elif (key := _COMMANDS.match(body) if testenv else None) is not None:
            in_commands = True
            out.append(_command(body, key.end(), False) + end)
        elif in_commands and body[:1] in (" ", "\t") and body.strip():
            out.append(_command(body, 0, continued) + end)
        else:
            in_commands = in_commands and not body.strip()  # a blank line goes on, a key or a comment ends them
            out.append(" " * len(body) + end)
        offset += len(body) + len(end)
    return "".join(out), tuple(folders)


def _changedirs(text: str) -> dict[str, str | None]:
    """Each section's `changedir`, relative to the file's folder (`{toxinidir}/` dropped); `None`: one the tool
    cannot read (another substitution, an absolute folder)."""
    found: dict[str, str | None] = {}
    section = ""
    for body, _ in _lines(text):
        if (header := _SECTION.match(body)) is not None:
            section = header["name"].strip()
        elif (setting := _CHANGEDIR.match(body)) is not None:
            folder = setting["folder"].strip().removeprefix("{toxinidir}").lstrip("/") or "."
            found[section] = None if "{" in folder or folder.startswith(("/", "~")) else folder
    return found


def _command(body: str, start: int, continued: bool) -> str:
    """`body` blanked up to `start` and over the `-`/`!` tox reads before a command (not on a line continuing one,
    where `--flag` starts with a `-` of its own); a `#` comment line blanked."""
    rest = body[start:]
    stripped = rest.lstrip()
    if stripped.startswith("#") and not continued:
        return " " * len(body)
    lead = len(rest) - len(stripped)
    prefix = 1 if not continued and stripped[:1] in ("-", "!") and stripped[1:2] != "-" else 0
    return " " * (start + lead + prefix) + stripped[prefix:]


def compose_commands(text: str, root: yaml.Node) -> list[tuple[str, str]]:
    """(shell text, what the service runs in) of each service's `command:` and `entrypoint:` that the tool can read."""
    services = _value(root, "services")
    if not isinstance(services, yaml.MappingNode):
        return []
    found = []
    for name, service in services.value:
        if not isinstance(service, yaml.MappingNode):
            continue
        image = _value(service, "image")
        where = (
            codes.shared("container-image", image=image.value)
            if isinstance(image, yaml.ScalarNode)
            else codes.shared("container-service", service=name.value)
        )
        for key in _SERVICE_KEYS:
            node = _value(service, key)
            code = _words(text, node) if isinstance(node, yaml.SequenceNode) else None
            if isinstance(node, yaml.ScalarNode):
                code = workflows._code(text, node)
            if code is not None:
                found.append((code, where))
    return found


def _value(node: yaml.Node, key: str) -> yaml.Node | None:
    """The value of `key` in the mapping `node` (`None`: not a mapping, or no such key)."""
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def _words(text: str, node: yaml.SequenceNode) -> str | None:
    """A list of words as one shell line where it is written: each item's characters kept, everything between them
    (`- `, `, `, line ends) spaces; `None` when an item is not a string whose characters are its value."""
    items = [item for item in node.value if isinstance(item, yaml.ScalarNode)]
    if not items or len(items) != len(node.value):
        return None
    view = [" "] * items[-1].end_mark.index
    for item in items:
        start, end = item.start_mark.index, item.end_mark.index
        inner = text[start + 1 : end - 1] if item.style in ("'", '"') else text[start:end]
        if inner != item.value or "\n" in inner:
            return None
        view[start:end] = text[start:end]
    head = _blank(text[: items[0].start_mark.index])
    return head + "".join(view[items[0].start_mark.index :])


def analyse_compose(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a Docker Compose file: its keys as a YAML config's, and each service's commands; raises `ParseError`."""
    if options.rules.stem not in text:
        return []
    hits = yaml_json.analyse_yaml(text, options)
    try:
        documents = [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
    except yaml.YAMLError as exc:
        raise ParseError(0, codes.message("file-error", "yaml", error=str(exc))) from None
    for document in documents:
        for code, image in compose_commands(text, document):
            hits += shell.analyse(code, options, base, image=image) if options.rules.stem in code else []
    return hits


def analyse_procfile(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a Procfile's commands, each its own shell."""
    if options.rules.stem not in text:
        return []
    return shell.analyse(procfile_view(text), options, base, each_line=True)


def analyse_justfile(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a justfile's recipes: each line its own shell, a `#!` recipe one script."""
    if options.rules.stem not in text:
        return []
    code, joined = justfile_view(text)
    return shell.analyse(code, options, base, each_line=True, joined=joined)


def analyse_tox(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in the commands of a `tox.ini`'s test environments, each run on its own from the file's folder."""
    if options.rules.stem not in text:
        return []
    code, folders = tox_view(text)
    return shell.analyse(code, options, base, each_line=True, folders=folders)
