"""The build-time timeline drawing: one date axis for every library, labels that never overlap, text that is data."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

from checkpointing_migrate.table import load
from generator.pages.timeline_svg import CHARS, DAY, LINE, Event, timeline, timeline_svg
from generator.paths import ROOT

TABLE = load(ROOT / "aliases.yaml")
SVG = "{http://www.w3.org/2000/svg}"


def _draw(events: dict[str, list[Event]]) -> ET.Element:
    return ET.fromstring(timeline_svg(events, {k: k.upper() for k in events}, "title"))


def _texts(svg: ET.Element) -> list[tuple[float, str, str]]:
    return [(float(t.get("y", 0)), t.get("class", ""), t.text or "") for t in svg.iter(f"{SVG}text")]


def test_the_real_table_draws_every_release_on_one_axis() -> None:
    svg = ET.fromstring(timeline_svg(timeline(TABLE), {k: v.display for k, v in TABLE.libraries.items()}, "t"))
    heads = [text for _, cls, text in _texts(svg) if cls == "tl-head"]
    dated = sorted(TABLE.releases, key=lambda r: (r.date, TABLE.libraries[r.library].display))
    expected = [f"{TABLE.libraries[r.library].display} {r.version} · {r.date.isoformat()}" for r in dated]
    assert heads[: len(expected)] == expected  # in date order, every library on the same axis
    assert len(svg.findall(f"{SVG}circle")) == len(TABLE.releases)
    # What is planned comes after the last release, without a date.
    assert all(", planned: " in h for h in heads[len(expected) :]) and heads[len(expected) :]


def test_dots_sit_at_their_dates_and_labels_never_overlap() -> None:
    events = {
        "a": [Event("2026-01-01", "1.0", "first", "first"), Event("2026-01-02", "1.1", "next day " * 12, "x")],
        "b": [
            Event("2026-01-31", "2.0", "a month later", "m"),
            Event("planned", "3.0", "later", "removes 2 old names"),
        ],
    }
    svg = _draw(events)
    dots = sorted(float(c.get("cy", 0)) for c in svg.iter(f"{SVG}circle"))
    assert dots[1] - dots[0] == DAY and dots[2] - dots[0] == 30 * DAY  # one scale for every library
    lines = sorted(t for t in _texts(svg) if t[1] != "tl-tick")  # ticks sit left of the axis, beside labels
    assert all(b[0] - a[0] >= LINE for a, b in itertools.pairwise(lines))
    assert all(len(text) <= CHARS for _, cls, text in lines if cls == "tl-label")
    assert "removes 2 old names" in [text for _, _, text in lines]


def test_table_text_is_escaped() -> None:
    markup = timeline_svg({"a": [Event("2026-01-01", "1.0", "<script>alert(1)</script> & more", "x")]}, {"a": "A"}, "t")
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    ET.fromstring(markup)  # well-formed


def test_no_blank_line_inside_the_drawing() -> None:
    """A blank line would end the raw HTML block in Markdown and print the rest of the SVG as text."""
    markup = timeline_svg(timeline(TABLE), {k: v.display for k, v in TABLE.libraries.items()}, "t")
    assert not re.search(r"\n\s*\n", markup)
