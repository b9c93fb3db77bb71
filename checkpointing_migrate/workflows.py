"""GitHub Actions workflows (`.github/workflows/*.yml`): the shell of each `run:` step, and the YAML keys as YAML.

Each `run:` string is checked with the shell rules where it is written (a block scalar's lines in place, its
indentation left as blanks), one step at a time as the runner starts a shell per step, from the repository's folder
or the step's `working-directory`. A step with another `shell:` (pwsh, python) is not shell and is skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from checkpointing_migrate import codes, shell, yaml_json
from checkpointing_migrate.hits import Hit, Options
from checkpointing_migrate.located import ParseError

_SHELLS = ("bash", "sh")


def steps(root: yaml.Node) -> list[tuple[yaml.ScalarNode, str | None]]:
    """Every `run:` value that is shell, with its `working-directory` (`None`: one the tool cannot read)."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            keys = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
            run, shell_key, folder = keys.get("run"), keys.get("shell"), keys.get("working-directory")
            if isinstance(run, yaml.ScalarNode) and (
                not isinstance(shell_key, yaml.ScalarNode) or shell_key.value.split()[0] in _SHELLS
            ):
                cwd = "" if folder is None else folder.value if isinstance(folder, yaml.ScalarNode) else None
                found.append((run, None if cwd is None or "${{" in cwd else cwd))
            stack.extend(reversed([v for _, v in node.value]))
    return found


def _code(text: str, node: yaml.ScalarNode) -> str | None:
    """The file's text up to the end of `node` with everything but the command blanked; `None` when the string's
    characters are not its value (escapes in a double-quoted string)."""
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("|", ">"):
        start = text.index("\n", start) + 1 if "\n" in text[start:end] else end
    elif node.style in ("'", '"'):
        start, end = start + 1, end - 1
        if text[start:end] != node.value:
            return None
    body = text[start:end]
    if node.style == ">":  # folded: its lines make one line of shell, up to a blank line
        body = re.sub(r"\n(?![ \t]*(?:\r?\n|$))", " ", body)
    kept = "".join(c if c in "\r\n" else " " for c in text[:start])
    return kept + body


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a workflow: its top-level keys as a YAML config's, and its shell steps; raises `ParseError`."""
    if options.rules.stem not in text:
        return []
    hits = yaml_json.analyse_yaml(text, options)
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise ParseError(0, codes.message("file-error", "yaml", error=str(exc))) from None
    root = base.parent.parent if base is not None else None  # the repository, above `.github/workflows`
    for document in documents:
        for node, cwd in steps(document) if document is not None else ():
            code = _code(text, node) if options.rules.stem in node.value else None
            if code is not None:
                hits += shell.analyse(code, options, root, cwd=cwd)
    return hits
