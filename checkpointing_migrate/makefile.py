"""Makefiles: the recipe lines are shell, checked with the shell rules where they are written.

A recipe line (a tab-indented line below a rule, run by a shell of its own, so a `cd` ends with it) loses its `@`/`-`/`+` prefix and make's `$(VAR)` becomes `${VAR}`,
character for character, so every offset stays the file's; a variable set at the top level (`ARGS = --flag`, `:=`,
`?=`, `+=`) is a shell variable whose value's words are the file's own.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate import shell
from checkpointing_migrate.hits import Hit, Options

_RULE = re.compile(r"[^\t#=\s][^=#]*?:(?![=])")
_SETTING = re.compile(
    r"(?:export[ \t]+|override[ \t]+)*(?P<name>[A-Za-z_][\w.-]*)[ \t]*(?:::?=|:::=|\?=|\+=|!=|=)[ \t]*"
)
_MAKE_VARIABLE = re.compile(r"\$\((?P<name>[A-Za-z_][\w]*)\)")


def view(text: str) -> tuple[str, dict[str, list[shell.Word]]]:
    """The recipes as shell text of the same length (everything else blanked), and the top-level variables."""
    out: list[str] = []
    variables: dict[str, list[shell.Word]] = {}
    in_rule, continued, offset = False, False, 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        blank = " " * len(body) + line[len(body) :]
        recipe = in_rule and (line.startswith("\t") or continued)
        if recipe:
            stripped = len(body) - len(body.lstrip("\t @+-")) if not continued else 0
            shown = " " * stripped + body[stripped:]
            shown = _MAKE_VARIABLE.sub(lambda m: "${" + m["name"] + "}", shown)
            out.append(shown + line[len(body) :])
        else:
            setting = _SETTING.match(body)
            # A setting keeps its value (where its words are found), not its `NAME =`, so the shell sees no command.
            out.append(blank if setting is None else " " * setting.end() + body[setting.end() :] + line[len(body) :])
            if setting is not None and not body.startswith("\t"):
                held = variables.setdefault(setting["name"], [])
                for token in re.finditer(r"\S+", body[setting.end() :]):
                    start = offset + setting.end() + token.start()
                    held.append(shell.Word(start, start + len(token[0]), token[0]))
            elif _RULE.match(body) is not None:
                in_rule = True
            elif body.strip() and not body.startswith("#"):
                in_rule = in_rule and body.startswith(("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"))
        continued = body.endswith("\\")
        offset += len(line)
    return "".join(out), variables


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a Makefile's recipes, with offsets into the file."""
    if options.rules.stem not in text:
        return []
    code, variables = view(text)
    used = {name: words for name, words in variables.items() if any(options.rules.stem in w.value for w in words)}
    return shell.analyse(code, options, base, defined=used, each_line=True)
