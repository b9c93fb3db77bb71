"""The texts a match on a message meets across the rename, and what was saved before it, as the pages show them.

Pure functions from `data/wording.json` (each checkpointing text of each transformers release, followed across
releases) and `data/saved.json` to what the errors page's "changed wording" sections and the guide's pitfall
on saved `TrainingArguments` and the legacy config key render; nothing here measures.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from typing import Any

from markdown.extensions.toc import slugify
from packaging.version import Version

from checkpointing_migrate.table import Table
from generator.measure.data import Said, Wording, load_saved, load_wording
from generator.pages.errors import ErrorText, heading_of

PROSE = re.compile(r"(?:[Gg]radient|[Aa]ctivation) checkpointing")
"""The feature in words: a text that says it this way keeps saying "gradient" where the names moved."""
WHOLE_BELOW = 0.6
"""Two wordings less similar than this (difflib's ratio) are matched as two whole alternatives, not word by word."""


@dataclasses.dataclass(frozen=True)
class Text:
    """One warning or exception text across the releases, as a section of the errors page."""

    wording: Wording
    heading: str
    """The oldest wording's heading (`errors.heading_of`); a text already headed elsewhere on the page links there."""
    anchor: str
    elsewhere: tuple[str, ...]
    """Anchors of the page's other sections for one of its wordings (a measured or source-read exception)."""
    before: Said | None
    """The wording in the newest release before the rename; `None` when that release lacks the text."""
    after: Said | None
    """The wording in the first release with the new names."""

    @property
    def pattern(self) -> str:
        return pattern(self.wording)

    @property
    def after_heading(self) -> str:
        return heading_of(self.after.text) if self.after else ""

    @property
    def kind(self) -> str:
        return self.wording.category if self.wording.raised else "log message"


def pattern(wording: Wording) -> str:
    """A regular expression matching every wording (what a `match=` or a log filter can use meanwhile)."""
    first, *others = [_words(t) for t in dict.fromkeys(v.text for v in wording.versions)]
    if not others:
        return _escaped("".join(first))
    if len(others) > 1:  # three wordings: each whole, as alternatives
        return "(?:" + "|".join(_escaped("".join(w)) for w in (first, *others)) + ")"
    (other,) = others
    whole = "".join(first), "".join(other)
    if difflib.SequenceMatcher(a=whole[0], b=whole[1], autojunk=False).ratio() < WHOLE_BELOW:  # mostly new: both whole
        return f"(?:{_escaped(''.join(first))}|{_escaped(''.join(other))})"
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=first, b=other, autojunk=False).get_opcodes():
        a, b = _escaped("".join(first[i1:i2])), _escaped("".join(other[j1:j2]))
        out.append(a if op == "equal" else f"(?:{a}|{b})" if a and b else f"(?:{a or b})?")
    return "".join(out)


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"(\s+)", text) if w]


def _escaped(text: str) -> str:
    """`text` as a regular expression, a run-time part (`{…}`) matching anything."""
    return ".+?".join(re.escape(part) for part in text.split("{…}"))


def texts(table: Table, error_texts: list[ErrorText]) -> dict[str, Any]:
    """The changed texts (old wording → new), then those about the feature that kept their wording in every release."""
    data = load_wording()
    since = table.first_since("transformers")
    headed = {e.heading: e.anchor for e in error_texts}
    changed, kept = [], []
    for w in data.texts:
        before = next((s for s in reversed(w.versions) if Version(s.release) < since), None)
        after = next((s for s in w.versions if Version(s.release) >= since), None)
        heading = heading_of(w.versions[0].text)
        elsewhere = tuple(dict.fromkeys(headed[h] for s in w.versions if (h := heading_of(s.text)) in headed))
        item = Text(w, heading, slugify(heading.replace("`", ""), "-"), elsewhere, before, after)
        if w.changed and before and after:
            changed.append(item)
        elif not w.changed and before and after and PROSE.search(after.text) and not elsewhere:
            kept.append(item)
    return {"reworded": changed, "kept_wording": kept, "wording_since": str(since), "wording_releases": data.releases}


def context(table: Table, error_texts: list[ErrorText]) -> dict[str, Any]:
    """What the errors page and the guide add from these two data files."""
    return {**texts(table, error_texts), "saved": load_saved()}
