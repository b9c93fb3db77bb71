"""YAML and JSON config files: rename top-level keys of training-arguments configs, at their exact positions.

Only the key's own characters change; quoting, comments, indentation, key order and everything else keep their
bytes. PyYAML's composed nodes give each key's span; JSON goes through `checkpointing_migrate.jsonpos`. Nested keys are
never renamed (DeepSpeed's `activation_checkpointing` section is another thing), only reported one level down.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from checkpointing_migrate import jsonpos
from checkpointing_migrate.codes import message
from checkpointing_migrate.dictflow import NONE, Verdict, VerdictKind
from checkpointing_migrate.findings import Edit
from checkpointing_migrate.hits import ESCAPED, Hit, Options, info, registered, rename
from checkpointing_migrate.located import ParseError

UNPROVEN = message("config-key", "unproven")
"""Why a key of a config nothing is shown to read is an unsafe fix: the file may be any tool's."""


def _keys_hits(
    keys: list[tuple[str, int, str]], options: Options, fmt: str, path: Path | None, readers: Readers | None
) -> list[Hit]:
    """Hits for one mapping's top-level keys: (key, offset of the key's raw text, raw text).

    A file counts as a training-arguments config only when every top-level key is a field of `TrainingArguments`, of
    a known subclass or of a TRL dataclass (measured; what `HfArgumentParser` and `TrlParser` accept). Any other key
    means the file may belong to another tool with its own `gradient_checkpointing` key (Axolotl has one), so it is
    reported and left alone, unless the project's Python shows who reads the file (`checkpointing_migrate.configreaders`):
    the project's own loader or dataclass makes the key a hazard, a parser of training arguments proves it."""
    rules = options.rules
    names = [k for k, _, _ in keys]
    olds = [(k, start, raw) for k, start, raw in keys if k in rules.keys]
    hits = []
    unknown = [k for k in names if k not in rules.config_keys]
    for key, start, raw in olds:
        row = rules.keys[key]
        at = start + max(raw.find(key), 0)
        if raw.find(key) < 0:
            what = message("config-key", "escaped", old=row.old)
            hits.append(info(row, at, code="config-key", what=what, section="config", new=row.new, why=ESCAPED))
        elif (
            found := NONE if path is None or readers is None else readers(path, key, options)
        ).kind == VerdictKind.OWN:
            key_at = message("config-key", fmt=fmt, old=row.old)
            hits.append(registered(row, at, code="own-reader", subject=key_at, why=found.why))
        elif unknown and found.kind != VerdictKind.ARGS:
            hits.append(registered(row, at, code="foreign-config", key=unknown[0], fmt=fmt, old=row.old))
        elif row.new in names:
            hits.append(registered(row, at, code="both-names", who="sets", old=row.old, new=row.new, to=""))
        else:
            proven = found.kind == VerdictKind.ARGS
            what = message("config-key", "read-by" if proven else "", fmt=fmt, old=row.old, why=found.why)
            unsafe = None if proven else found.why if found.kind == VerdictKind.UNSURE else UNPROVEN
            edit = (Edit(at, at + len(key), row.new),)
            hits.append(rename(row, at, edit, options, code="config-key", what=what, section="config", unsafe=unsafe))
    return hits


def _nested_hits(
    sections: list[tuple[str, list[tuple[str, int, str]]]],
    options: Options,
    fmt: str,
    path: Path | None,
    readers: Readers | None,
) -> list[Hit]:
    """Hazards for old keys one level down (section name, its keys as for `_keys_hits`), in a file the project loads
    itself: its code may hand the section on (`TrainingArguments(**cfg["training"])`), where the old key warns, but
    may read it back too. Never renamed (a nested key is often another tool's: DeepSpeed's, accelerate's), but not
    silent either where the project's own loader is shown reading the file."""
    hits = []
    for section, keys in sections:
        for key, start, raw in keys:
            if key not in options.rules.keys or raw.find(key) < 0 or path is None or readers is None:
                continue
            found = readers(path, key, options)
            if found.kind == VerdictKind.OWN:
                row = options.rules.keys[key]
                subject = message("config-key", "nested", fmt=fmt, old=row.old, section=section)
                hits.append(registered(row, start + raw.find(key), code="own-reader", subject=subject, why=found.why))
    return hits


Readers = Callable[[Path, str, Options], Verdict]
"""Who the project shows reads a key of the config file at a path (`checkpointing_migrate.configreaders.consumer`)."""


def analyse_yaml(text: str, options: Options, path: Path | None = None, readers: Readers | None = None) -> list[Hit]:
    """Hits in a YAML file (every document) at `path`, whose keys' `readers` are asked (without: none is proven, as
    for a Markdown fence); raises `ParseError`."""
    if not any(k in text for k in options.rules.keys):
        return []
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = message("file-error", "yaml", error=str(exc.problem or exc.context))
        raise ParseError(mark.index if mark else 0, problem) from None
    except yaml.YAMLError as exc:
        raise ParseError(0, message("file-error", "yaml", error=str(exc))) from None
    except RecursionError:  # PyYAML composes nodes recursively
        too_deep = message("file-error", "nesting", levels=str(jsonpos.MAX_NESTING))
        raise ParseError(_too_deep(text), too_deep) from None
    hits = []
    for root in documents:
        if isinstance(root, yaml.MappingNode):
            keys = [
                (k.value, k.start_mark.index, text[k.start_mark.index : k.end_mark.index])
                for k, _ in root.value
                if isinstance(k, yaml.ScalarNode)
            ]
            hits += _keys_hits(keys, options, "YAML", path, readers)
            sections = [
                (
                    k.value,
                    [(n.value, n.start_mark.index, text[n.start_mark.index : n.end_mark.index]) for n, _ in v.value],
                )
                for k, v in root.value
                if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.MappingNode)
            ]
            hits += _nested_hits(sections, options, "YAML", path, readers)
    return hits


def _too_deep(text: str) -> int:
    """Offset where the YAML in `text` first nests deeper than `jsonpos.MAX_NESTING` (the events come iteratively)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > jsonpos.MAX_NESTING:
                return event.start_mark.index
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return 0


def analyse_json(text: str, options: Options, path: Path | None = None, readers: Readers | None = None) -> list[Hit]:
    """Hits in a JSON file at `path` (`readers` as for `analyse_yaml`); raises `ParseError`."""
    if not any(k in text for k in options.rules.keys):
        return []
    try:
        root = jsonpos.parse(text)
    except ParseError as exc:
        raise ParseError(exc.offset, message("file-error", "json", error=str(exc))) from None
    if not isinstance(root, jsonpos.JObject):
        return []
    keys = [(k.value, k.start, text[k.start : k.end]) for k, _ in root.items]
    sections = [
        (k.value, [(n.value, n.start, text[n.start : n.end]) for n, _ in v.items])
        for k, v in root.items
        if isinstance(v, jsonpos.JObject)
    ]
    return _keys_hits(keys, options, "JSON", path, readers) + _nested_hits(sections, options, "JSON", path, readers)
