"""Rewrite example code from the new names to the old ones, token by token, for the shipped and removed rows.

The migration guide's "Before" tabs and the doc tests' old-name pass both come from this one function, so an
example is written once, with the new names. Only whole Python name tokens are renamed, and inside string literals
only whole CLI flags (`cli-flag` rows) and whole config keys (`config-key` rows).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from checkpointing_migrate.table import KINDS, Rename, RenameKind, Status, Table
from generator.problems import GeneratorError

_IDENTIFIER_KINDS = tuple(k for k in KINDS if k not in (RenameKind.CLI_FLAG, RenameKind.CONFIG_KEY))
"""Kinds whose names are Python identifiers (the others are whole flags and keys inside strings)."""


class SubstitutionError(GeneratorError, ValueError):
    """The table maps one new name to two old names, so an example cannot be rewritten unambiguously."""


@dataclass(frozen=True)
class OldNames:
    """The new→old maps of a table, split by where a name may stand in code."""

    identifiers: dict[str, str]
    """Python names: methods, properties, fields, arguments, functions, classes, attributes."""
    flags: dict[str, str]
    """Whole CLI flags inside string literals."""
    keys: dict[str, str]
    """Whole config keys inside string literals (a string that is the key, or a YAML/JSON key in a string)."""

    @classmethod
    def from_table(cls, table: Table) -> OldNames:
        """The maps for the table's shipped and removed rows (only they have both names in some release)."""
        maps: dict[str, dict[str, str]] = {"identifiers": {}, "flags": {}, "keys": {}}
        for row in table.renames:
            if row.status not in (Status.SHIPPED, Status.REMOVED):
                continue
            target = maps[_map_for(row)]
            if target.setdefault(row.new, row.old) != row.old:
                raise SubstitutionError(
                    f"{row.position}: new name '{row.new}' stands for both '{target[row.new]}' and '{row.old}'"
                )
        return cls(**maps)

    def rewrite_string(self, literal: str) -> str:
        """A string literal token with flags and config keys renamed; prefix and quotes are kept."""
        for new, old in self.flags.items():
            literal = re.sub(rf"(?<![\w-]){re.escape(new)}(?![\w-])", old, literal)
        for new, old in self.keys.items():
            # `"key"` on its own, `"key": ...` in JSON, and `key:` at the start of a YAML line.
            literal = re.sub(rf"(?<=[\"']){re.escape(new)}(?=[\"'])", old, literal)
            start_of_line = r"(?:^[rRbBuU]*(?:\"\"\"|'''|\"|')|^|\\n)[ \t-]*"
            literal = re.sub(rf"(?m)({start_of_line}){re.escape(new)}(?=[ \t]*:)", rf"\g<1>{old}", literal)
        return literal

    def rewrite(self, source: str) -> str:
        """Python source with every new name replaced by its old one; raises `SyntaxError` if it does not tokenize.

        Token by token, not a raw text replace, which would also rewrite names that were not renamed (`fsdp_config`'s
        own `activation_checkpointing` key inside a longer string, `supports_gradient_checkpointing`)."""
        lines = source.splitlines(keepends=True)
        edits: list[tuple[tuple[int, int], tuple[int, int], str]] = []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(source).readline):
                if tok.type == tokenize.NAME and tok.string in self.identifiers:
                    edits.append((tok.start, tok.end, self.identifiers[tok.string]))
                elif tok.type == tokenize.STRING and (rewritten := self.rewrite_string(tok.string)) != tok.string:
                    edits.append((tok.start, tok.end, rewritten))
        except tokenize.TokenError as exc:
            raise SyntaxError(f"cannot tokenize example: {exc.args[0]}") from None
        for (srow, scol), (erow, ecol), text in reversed(edits):
            head, tail = lines[srow - 1][:scol], lines[erow - 1][ecol:]
            lines[srow - 1 : erow] = [head + text + tail]
        return "".join(lines)


def _map_for(row: Rename) -> str:
    if row.kind == RenameKind.CLI_FLAG:
        return "flags"
    if row.kind == RenameKind.CONFIG_KEY:
        return "keys"
    assert row.kind in _IDENTIFIER_KINDS, row.kind
    return "identifiers"


def rewrite_pycon(text: str, names: OldNames) -> str:
    """A `>>>` session with each statement's source rewritten to the old names; expected output is kept as is.

    Output stays the same because an alias returns the very same objects as the name it stands for.
    """
    out: list[str] = []
    statement: list[str] = []

    def flush() -> None:
        if statement:
            prefixes = [line[:4] for line in statement]
            code = "".join(line[4:] for line in statement)
            rewritten = names.rewrite(code).splitlines(keepends=True)
            out.extend(p + line for p, line in zip(prefixes, rewritten, strict=True))
            statement.clear()

    for line in text.splitlines(keepends=True):
        if line.startswith(">>> ") or line.rstrip("\n") == ">>>":
            flush()
            statement.append(line if line.startswith(">>> ") else ">>> \n")
        elif statement and (line.startswith("... ") or line.rstrip("\n") == "..."):
            statement.append(line if line.startswith("... ") else "... \n")
        else:
            flush()
            out.append(line)
    flush()
    return "".join(out)
