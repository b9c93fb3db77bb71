"""Rule family: an old field as a dict key (`cfg["old"] = …`, `{"old": …}`, `dict(old=…)`, `parse_dict({...})`, reads of
`to_dict()`/`vars(args)`), judged by where the dict goes (`checkpointing_migrate.dictflow`).

It runs before the other families and claims such a node: the keyword and dict-literal rules then leave it alone.
"""

from __future__ import annotations

import ast

from checkpointing_migrate.hits import Hit
from checkpointing_migrate.python.context import At, File, register
from checkpointing_migrate.python.evidence import config_receiver, scopes


@register(ast.Subscript, ast.Dict, ast.keyword, claims=True)
def dict_use(file: File, node: ast.AST, at: At) -> list[Hit] | None:
    from checkpointing_migrate import dictflow  # here: a file with no such node on a candidate line never loads it

    if not dictflow.relevant(node, file.rules):
        return None
    parents = [n for n, _ in at.chain[:-1]]
    return file.dicts.check(node, parents, scopes(file, at), lambda expr: config_receiver(file, at, expr))
