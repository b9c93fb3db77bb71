"""Makefiles: the recipe lines are shell, checked with the shell rules where they are written.

A recipe line (tab-indented below a rule, its own shell: a `cd` ends with it) loses its `@`/`-`/`+` and `$(VAR)` is
`${VAR}`, so offsets stay the file's; a top-level `ARGS = --flag` (`:=`, `?=`, `+=`) is a shell variable of the file's
words. A `define NAME … endef` is what it is used as: text for `$(eval …)`, recipe lines (`$(NAME)` alone), a variable.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate import shell
from checkpointing_migrate.hits import Hit, Options

_RULE = re.compile(r"[^\t#=\s][^=#]*?:(?![=])")
_SETTING = re.compile(
    r"(?:export[ \t]+|override[ \t]+)*(?P<name>[A-Za-z_][\w.-]*)[ \t]*(?P<op>::?=|:::=|\?=|\+=|!=|=)[ \t]*"
)
_MAKE_VARIABLE = re.compile(r"\$\((?P<name>\w+)\)")
"""`$(ARGS)`, and `$(1)` in a template for `$(call …)`."""
_DEFINE = re.compile(
    r"[ \t]*(?:(?:export|override)[ \t]+)*define[ \t]+(?P<name>[A-Za-z_][\w.-]*)[ \t]*(?:::?=|:::=|\?=|\+=|!=|=)?[ \t]*$"
)
_ENDEF = re.compile(r"[ \t]*endef\b")


def view(text: str, whole: str | None = None) -> tuple[str, dict[str, list[shell.Word]]]:
    """The recipes as shell text of the same length (everything else blanked), and the top-level variables; `whole`:
    the Makefile whose `define` block `text` is (its uses are looked for in the whole file)."""
    out: list[str] = []
    variables: dict[str, list[shell.Word]] = {}
    in_rule, continued, offset = False, False, 0
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        body = line.rstrip("\r\n")
        blank = " " * len(body) + line[len(body) :]
        recipe = in_rule and (line.startswith("\t") or continued)
        define = None if recipe or continued else _DEFINE.match(body)
        if define is not None:
            end = _endef(lines, i)
            shown, held = _define(define["name"], lines[i:end], offset + len(line), whole or text)
            for name, words in held.items():
                variables.setdefault(name, []).extend(words)
            closing = lines[end] if end < len(lines) else ""  # `endef`, blanked
            kept = closing.rstrip("\r\n")
            out += [blank, shown, " " * len(kept) + closing[len(kept) :]]
            offset += len(line) + len(shown) + len(closing)
            i, in_rule, continued = end + 1, False, False
            continue
        if recipe:
            out.append(_recipe(body, continued) + line[len(body) :])
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


def fixed(text: str) -> dict[str, list[shell.Word]]:
    """The top-level variables set once, with `=` or `:=`, whose value every recipe line sees (`CFG = x.yaml` then
    `--config $(CFG)`); one set twice, appended to (`+=`), defaulted (`?=`) or run (`!=`) may be another at a use."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        setting = None if line.startswith("\t") else _SETTING.match(line)
        if setting is not None:
            counts[setting["name"]] = counts.get(setting["name"], 0) + (1 if setting["op"] in ("=", ":=", "::=") else 2)
    return {name: words for name, words in view(text)[1].items() if counts.get(name) == 1}


def _recipe(body: str, continued: bool) -> str:
    """A recipe line as shell: its `@`/`-`/`+` prefix blanked (not on a continued line), `$(VAR)` as `${VAR}`."""
    stripped = len(body) - len(body.lstrip("\t @+-")) if not continued else 0
    shown = " " * stripped + body[stripped:]
    return _MAKE_VARIABLE.sub(lambda m: "${" + m["name"] + "}", shown)


def _endef(lines: list[str], i: int) -> int:
    """The index of the `endef` closing the block whose body starts at `lines[i]` (nested blocks counted); the
    number of lines when it is not closed."""
    depth = 0
    for j in range(i, len(lines)):
        body = lines[j].rstrip("\r\n")
        if _DEFINE.match(body):
            depth += 1
        elif _ENDEF.match(body):
            if depth == 0:
                return j
            depth -= 1
    return len(lines)


def _define(name: str, lines: list[str], offset: int, text: str) -> tuple[str, dict[str, list[shell.Word]]]:
    """The body `lines` (at file offset `offset`) of `define NAME` as shell text of the same length, and the variables
    it sets, by how `text` uses it: given to `$(eval …)` it is Makefile text; where a recipe line is just `$(NAME)`,
    each of its lines is a recipe line (make runs each in a shell of its own); otherwise it is the variable NAME, whose
    words are the body's."""
    body = "".join(lines)
    quoted = re.escape(name)
    if re.search(rf"\$[({{]eval\b[^\n]*\b{quoted}\b", text):
        shown, held = view(body, text)
        return shown, {k: [shell.Word(w.start + offset, w.end + offset, w.value) for w in v] for k, v in held.items()}
    if re.search(rf"^\t[ \t@+-]*\$[({{]{quoted}[)}}][ \t]*\r?$", text, re.MULTILINE):
        out, continued = [], False
        for line in lines:
            stripped = line.rstrip("\r\n")
            out.append(_recipe(stripped, continued) + line[len(stripped) :])
            continued = stripped.endswith("\\")
        return "".join(out), {}
    words = [shell.Word(offset + m.start(), offset + m.end(), m[0]) for m in re.finditer(r"\S+", body)]
    return body, {name: words}  # kept, as a setting's value is: the variable's words are found in the text


def analyse(text: str, options: Options, base: Path | None = None) -> list[Hit]:
    """Hits in a Makefile's recipes, with offsets into the file."""
    if options.rules.stem not in text:
        return []
    code, variables = view(text)
    used = {name: words for name, words in variables.items() if any(options.rules.stem in w.value for w in words)}
    return shell.analyse(code, options, base, defined=used, each_line=True)
