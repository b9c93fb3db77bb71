"""Texts about checkpointing in each transformers release's source, followed from release to release: which changed
wording with the rename and which still say "gradient checkpointing", with every file:line that emits them.

`python -m generator matrix` reads each listed release's installed source (its matrix environment) and commits
`data/wording.json`; the errors page shows the changes (a `pytest.raises(match=...)` or a log alert on the old text).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.measure import source
from generator.measure.data import Said, Site, Wording, WordingData

PROSE = re.compile(r"(?:[Gg]radient|[Aa]ctivation)[ _]checkpointing")
"""A text about the feature: its names (`gradient_checkpointing`) or its prose ("gradient checkpointing")."""
QUOTED_PROSE = re.compile(r"""["'][^"'\n]*""" + PROSE.pattern)
"""Such a text inside a string literal on one line: only files with one are parsed."""
SIMILAR = 0.6
"""Two texts of consecutive releases are one text reworded when they are at least this similar (difflib's ratio)..."""
SIMILAR_IN_PLACE = 0.3
"""... or this similar and emitted by the same function of the same file."""


def texts_of(tree: Path, package: str = "transformers") -> dict[tuple[str, bool, str], list[Site]]:
    """(category, raised, text) → where `tree/package` emits it, for every text about the feature."""
    found: dict[tuple[str, bool, str], list[Site]] = {}
    for path in sorted((tree / package).rglob("*.py")):
        raw = path.read_bytes()
        if b"heckpointing" not in raw:
            continue  # reading is cheap, parsing is not: most files never mention the feature
        text = raw.decode("utf-8", errors="replace")
        if not QUOTED_PROSE.search(text):
            continue
        try:
            parsed = ast.parse(text, filename=str(path))
        except SyntaxError:
            continue
        for t in source.texts_in(parsed, path.relative_to(tree).as_posix()):
            if PROSE.search(t.text):
                found.setdefault((t.category, t.raised, t.shown), []).append(Site(t.path, t.line, t.function))
    return found


def follow(releases: Sequence[tuple[str, dict[tuple[str, bool, str], list[Site]]]]) -> WordingData:
    """Chains each text through the releases in order: kept verbatim, or reworded (the most similar text of the same
    kind that the previous release lacked), or gone."""
    chains: list[list[tuple[str, tuple[str, bool, str]]]] = []
    open_: dict[tuple[str, bool, str], list[tuple[str, tuple[str, bool, str]]]] = {}
    previous: dict[tuple[str, bool, str], list[Site]] = {}

    def places(sites: list[Site]) -> set[tuple[str, str]]:
        return {(s.path, s.function) for s in sites}

    for release, texts in releases:
        nxt: dict[tuple[str, bool, str], list[tuple[str, tuple[str, bool, str]]]] = {}
        new = [k for k in texts if k not in open_]
        for key, chain in open_.items():
            if key in texts:
                chain.append((release, key))
                nxt[key] = chain
                continue
            scored = [
                (difflib.SequenceMatcher(a=key[2], b=k[2], autojunk=False).ratio(), k)
                for k in new
                if k[:2] == key[:2] and k not in nxt
            ]
            scored = [
                (ratio, k)
                for ratio, k in scored
                if ratio >= SIMILAR or (ratio >= SIMILAR_IN_PLACE and places(previous[key]) & places(texts[k]))
            ]
            best = max(scored, default=(0.0, None))
            if best[1] is not None:
                chain.append((release, best[1]))
                nxt[best[1]] = chain
        for key in new:
            if key not in nxt:
                chains.append([(release, key)])
                nxt[key] = chains[-1]
        open_, previous = nxt, texts
    by_release = dict(releases)
    texts = tuple(
        Wording(
            chain[0][1][0],
            chain[0][1][1],
            tuple(Said(r, key[2], tuple(by_release[r][key])) for r, key in chain),
        )
        for chain in chains
    )
    return WordingData(tuple(r for r, _ in releases), texts)


def measure(releases: list[tuple[str, Path]]) -> dict[str, Any]:
    """The wording data of the listed transformers releases, given as (version, its matrix environment) in order."""
    data = follow([(version, texts_of(env)) for version, env in releases])
    return {
        "about": "Read by `python -m generator matrix` (generator/measure/wording.py); never edit by hand.",
        **dataclasses.asdict(data),
    }
