"""The deprecation timeline: each library's events derived from the table, drawn on one date axis as inline SVG.

The axis runs down the page, so labels keep their size on a 390 px phone and a wide screen alike; dots sit at their
dates and labels stack when dates are close. What has no date (the planned removal) sits past the axis' end,
labelled from the table. CSS classes colour it (`currentColor`) in both schemes; labels are selectable `<text>`.
"""

from __future__ import annotations

import datetime
import html
import textwrap
from dataclasses import dataclass

from packaging.version import Version

from checkpointing_migrate.table import Status, Table

WIDTH = 380
"""viewBox width: close to a phone's CSS width, so text keeps its size there."""
AXIS_X = 92
LABEL_X = 112
TOP = 28
DAY = 3.0
"""Vertical units per day between dated events."""
LINE = 17
"""Height of one text line."""
GAP = 10
"""Space between one label's last line and the next label."""
CHARS = 44
"""Characters per label line: what fits between LABEL_X and WIDTH at the CSS font size."""


@dataclass(frozen=True)
class Event:
    """A point on a library's deprecation timeline."""

    when: str
    """A date (YYYY-MM-DD), or `planned` for what has no release yet."""
    version: str
    what: str
    """The full story, for the table and the drawing's dated marks."""
    label: str
    """A few words: what the timeline drawing says of a planned change."""


def timeline(table: Table) -> dict[str, list[Event]]:
    """Per library with releases or renames: its listed releases, what each brought, and what is planned."""
    events: dict[str, list[Event]] = {}
    for library in table.libraries:
        rows = list(table.select(library=library))
        releases = table.releases_of(library)
        if not rows and not releases:
            continue
        items = []
        for release in releases:
            added = [r for r in rows if r.since and Version(r.since) == Version(release.version)]
            what, label = release.note or "listed release", release.version
            if added:
                # Names, not rows: a name renamed in two places (a field and its YAML key) counts once.
                new_names, warned = len({r.new for r in added}), len({r.old for r in added if r.warning})
                what += f" ({new_names} new names; {warned} old names now warn)"
                label += f" adds {new_names} new names"
            items.append(Event(release.date.isoformat(), release.version, what, label))
        for removal in sorted({Version(r.removal) for r in rows if r.removal}):
            gone = [r for r in rows if r.removal and Version(r.removal) == removal]
            names = len({r.old for r in gone})
            what = f"planned removal of {names} old names"
            items.append(Event("planned", str(removal), what, f"{removal} removes {names} old names"))
        planned = {r.old for r in rows if r.status == Status.PLANNED}
        if planned:
            what = f"{len(planned)} names not renamed yet"
            items.append(Event("planned", "no release yet", what, what))
        events[library] = items
    return events


@dataclass(frozen=True)
class Mark:
    """One labelled point: a release, or something planned."""

    library: str
    """The library's display name."""
    event: Event
    date: datetime.date | None
    """None for what is planned."""


def _marks(timeline: dict[str, list[Event]], displays: dict[str, str]) -> tuple[list[Mark], list[Mark]]:
    dated, planned = [], []
    for library, events in timeline.items():
        for event in events:
            if event.when == "planned":
                planned.append(Mark(displays[library], event, None))
            else:
                dated.append(Mark(displays[library], event, datetime.date.fromisoformat(event.when)))
    dated.sort(key=lambda m: (m.date, m.library))
    return dated, planned


def _lines(mark: Mark) -> list[str]:
    """The label's lines: what happened, wrapped; the first line names the library, release and date."""
    if mark.date is None:
        return [f"{mark.library}, planned: {mark.event.version}", *textwrap.wrap(mark.event.label, CHARS)]
    return [f"{mark.library} {mark.event.version} · {mark.event.when}", *textwrap.wrap(mark.event.what, CHARS)]


def _text(x: float, y: float, text: str, cls: str, anchor: str = "start") -> str:
    return f'<text x="{x:.0f}" y="{y:.0f}" class="{cls}" text-anchor="{anchor}">{html.escape(text)}</text>'


def _months(first: datetime.date, last: datetime.date) -> list[datetime.date]:
    """The first day of every month after `first` up to `last`: the axis ticks."""
    out, month = [], datetime.date(first.year, first.month, 1)
    while True:
        month = datetime.date(month.year + month.month // 12, month.month % 12 + 1, 1)
        if month > last:
            return out
        out.append(month)


def timeline_svg(timeline: dict[str, list[Event]], displays: dict[str, str], title: str) -> str:
    """The SVG (one line per element, no blank line: safe as a raw HTML block in Markdown)."""
    dated, planned = _marks(timeline, displays)
    if not dated and not planned:
        return ""
    # Without dated events the axis is empty and only the planned part is drawn.
    first = dated[0].date if dated else datetime.date.min
    last = dated[-1].date if dated else first

    def y_of(date: datetime.date) -> float:
        return TOP + (date - first).days * DAY

    parts: list[str] = []
    label_y = TOP - 2 * LINE  # where the previous label's last line was; the first label starts at its dot

    def label(y: float, lines: list[str]) -> float:
        parts.append(_text(LABEL_X, y, lines[0], "tl-head"))
        parts.extend(_text(LABEL_X, y + LINE * i, line, "tl-label") for i, line in enumerate(lines[1:], 1))
        return y + LINE * (len(lines) - 1)

    for month in _months(first, last) if dated else []:
        y = y_of(month)
        parts.append(f'<line x1="{AXIS_X - 6}" y1="{y:.0f}" x2="{AXIS_X}" y2="{y:.0f}" class="tl-axis"/>')
        parts.append(_text(AXIS_X - 10, y + 4, month.strftime("%Y-%m"), "tl-tick", "end"))
    for mark in dated:
        assert mark.date is not None
        dot = y_of(mark.date)
        top = max(dot, label_y + LINE + GAP)
        parts.append(f'<circle cx="{AXIS_X}" cy="{dot:.0f}" r="5" class="tl-dot"/>')
        parts.append(f'<path d="M{AXIS_X + 6} {dot:.0f} L{LABEL_X - 4} {top - 4:.0f}" class="tl-leader"/>')
        label_y = label(top, _lines(mark))
    axis_end = max(y_of(last), label_y) + LINE if dated else TOP
    parts.insert(0, f'<line x1="{AXIS_X}" y1="{TOP - 8}" x2="{AXIS_X}" y2="{axis_end:.0f}" class="tl-axis"/>')
    if planned:
        # Past the last release: no date is known, so the axis continues dashed, without ticks.
        start = axis_end
        parts.append(
            f'<line x1="{AXIS_X}" y1="{start:.0f}" x2="{AXIS_X}" y2="{start + 24:.0f}" class="tl-axis tl-future"/>'
        )
        parts.append(_text(AXIS_X - 10, start + 24 + 4, "no date", "tl-tick", "end"))
        top = start + 24
        for mark in planned:
            parts.append(f'<rect x="{AXIS_X - 5}" y="{top - 9:.0f}" width="10" height="10" class="tl-planned"/>')
            top = label(top, _lines(mark)) + LINE + GAP
        axis_end = top - LINE - GAP
    height = axis_end + 2 * LINE
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tl" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-labelledby="tl-title"><title id="tl-title">{html.escape(title)}</title>'
    )
    return "\n".join([head, *parts, "</svg>"])
