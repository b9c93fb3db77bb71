"""Rule family: command-line flags inside Python strings (`["--gradient_checkpointing", "true"]`).

Rewritten only as elements of a list literal passed to a `parse_args*` method in a file that uses the renamed flags'
parser, never in a file that defines the flag itself (`add_argument`) or declares its dataclass field; elsewhere
`info`. Docstrings and bare strings are prose and are not looked at.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from checkpointing_migrate.codes import message
from checkpointing_migrate.hits import Hit, info, planned_hit, registered, rename
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.syntax import callee
from checkpointing_migrate.python.verdicts import edit
from checkpointing_migrate.table import field_name


@register(ast.Constant)
def flags(file: File, node: ast.Constant, at: At) -> Iterator[Hit]:
    parent, _ = at.parent()
    if not (isinstance(node.value, str) and "--" in node.value) or isinstance(parent, ast.Expr):
        return
    rules = file.rules
    matches = list(file.run.flag_pattern.finditer(node.value))
    if not matches:
        return
    raw_start = file.at(node.lineno, node.col_offset)
    raw = file.text[raw_start : file.at(node.end_lineno or node.lineno, node.end_col_offset or 0)]
    call, _ = at.parent(2)
    exact = node.value.split("=")[0]
    in_argv = (
        isinstance(parent, (ast.List, ast.Tuple))
        and isinstance(call, ast.Call)
        and (callee(call) or "").startswith("parse_args")
        and file.uses_parser
    )
    for match in matches:
        flag = match.group(0)
        offset = raw.find(flag)
        start = raw_start + max(offset, 0)
        if flag in rules.planned and flag not in rules.flags:
            if file.options.planned:
                yield planned_hit(rules.planned[flag], start, flag)
            continue
        row = rules.flags[flag]
        if flag in file.own_flags:
            yield registered(row, start, code="own-flag", form="add_argument", who="this file", flag=flag)
        elif flag in file.own_fields:
            yield registered(row, start, code="own-flag", form="field", field=field_name(flag), flag=flag)
        elif in_argv and exact == flag and offset >= 0:
            assert isinstance(parent, (ast.List, ast.Tuple))
            siblings = [e.value for e in parent.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            spellings = (row.new, row.new.replace("_", "-"), row.new.replace("-", "_"))
            if any(str(s).split("=")[0] in spellings for s in siblings):
                yield registered(row, start, code="both-names", who="passes", old=flag, new=row.new, to="")
            else:
                edits = (edit(start, flag, row.new),)
                what = f"passes the flag `{flag}`"
                yield rename(row, start, edits, file.options, code="flag", what=what, section="config")
        else:
            what = message("string", flag=flag)
            yield info(row, start, code="string", what=what, section="config", new=row.new)
