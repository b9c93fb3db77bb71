"""`.args` files: the flags `HfArgumentParser.parse_args_into_dataclasses` reads before the command line's.

By default (`look_for_args_file=True`) it reads `train.args` next to the script `train.py` it runs as; with
`args_filename="sweep.args"` that file. Its words (split on whitespace, no quoting) are flags of that script, judged
by the shell's rule (`shell.flag_hit`); an `.args` file no script of the project is shown to read gets no finding.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate import shell
from checkpointing_migrate.configreaders import sources
from checkpointing_migrate.hits import Hit, Options

_PARSE = "parse_args_into_dataclasses"
"""The `HfArgumentParser` method that reads an `.args` file (transformers 5.23 `hf_argparser.py:309-315`)."""


def analyse(text: str, options: Options, path: Path | None = None) -> list[Hit]:
    """Hits for the old flags among the words of the `.args` file at `path`, given to the script that reads it."""
    rules = options.rules
    if path is None or rules.stem not in text:
        return []
    script = _reader(path, options)
    if script is None:
        return []
    words = [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
    present = frozenset(shell.normal(w.split("=")[0]) for _, w in words if w.startswith("--"))
    program = shell.Program(shell.ProgramKind.SCRIPT, script, "", None, present)
    return [
        shell.flag_hit(rules.flags[flag], flag, start, True, program, options, path.parent)
        for start, word in words
        if (flag := word.split("=")[0]) in rules.flags
    ]


def _reader(path: Path, options: Options) -> str | None:
    """The name of the script next to `path` that reads it: `X.py` for `X.args` when it calls `parse_args_into_
    dataclasses` without `look_for_args_file=False`, else one that names the file in `args_filename=`."""
    own = path.with_suffix(".py")
    named = [s for s in sources(path.resolve().parent, path.name, options.memo) if s.suffix == ".py"]
    for script in [own, *named]:
        try:
            code = script.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if _PARSE not in code or script.parent.resolve() != path.resolve().parent:
            continue
        if re.search(rf"args_filename\s*=\s*[\"']{re.escape(path.name)}[\"']", code):
            return script.name
        if script == own and not re.search(r"look_for_args_file\s*=\s*False", code):
            return script.name
    return None
