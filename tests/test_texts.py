"""Texts followed across releases and state saved under the old names: what the errors page and the guide say of them.

`generator.measure.wording` reads each release's texts about the feature and pairs a text with its rewording in the
next release; `generator.pages.texts` gives the page a regular expression for every wording; the pickled
`TrainingArguments` and the legacy config key (`generator.measure.saved`) are stated only as measured.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpointing_migrate.table import load
from generator.measure import wording
from generator.measure.data import load_saved, load_wording
from generator.pages import texts
from generator.paths import DOCS_DIR, TABLE_PATH

MODULE = """
import logging
logger = logging.getLogger(__name__)

def enable(self):
    if not self.supports:
        raise ValueError(f"{self.__class__.__name__} does not support {word} checkpointing.")

def forward(self, **kwargs):
    message = f"Caching is incompatible with gradient checkpointing in {self.name}. Setting"
    if kwargs.get("use_cache"):
        message += " `use_cache=False`,"
    message = message.rstrip(",") + "."
    logger.warning_once(message)
"""


def _release(tmp_path: Path, version: str, word: str) -> dict:
    package = tmp_path / version / "transformers"
    package.mkdir(parents=True)
    (package / "modeling_utils.py").write_text(MODULE.replace("{word}", word))
    return wording.texts_of(tmp_path / version)


def test_a_reworded_text_is_followed_and_one_pattern_matches_both_wordings(tmp_path: Path) -> None:
    followed = wording.follow(
        [("1.0", _release(tmp_path, "1.0", "gradient")), ("2.0", _release(tmp_path, "2.0", "activation"))]
    )
    reworded = [w for w in followed.texts if w.changed]
    assert [[s.text for s in w.versions] for w in reworded] == [
        ["{…} does not support gradient checkpointing.", "{…} does not support activation checkpointing."]
    ]
    pattern = texts.pattern(reworded[0])
    for message in ("Net does not support gradient checkpointing.", "Net does not support activation checkpointing."):
        assert re.fullmatch(pattern, message), pattern
    assert not re.fullmatch(pattern, "Net does not support checkpointing.")


def test_a_message_built_up_and_stripped_before_the_call_is_read(tmp_path: Path) -> None:
    """`message += …` on some branches and `message.rstrip(",") + "."` before the call: the text is still found (it
    was not, so "Caching is incompatible with gradient checkpointing in {layer}" was on no page)."""
    found = _release(tmp_path, "1.0", "gradient")
    assert ("", False, "Caching is incompatible with gradient checkpointing in {…}. Setting{…}.") in found


def test_the_errors_page_gives_the_valueerror_both_wordings_with_their_lines() -> None:
    table = load(TABLE_PATH)
    view = texts.texts(table, [])
    (changed,) = [t for t in view["reworded"] if t.wording.category == "ValueError" and "support" in t.heading]
    assert changed.before and changed.after and changed.before.text != changed.after.text
    page = (DOCS_DIR / "generated" / "errors.md").read_text(encoding="utf-8")
    for said in changed.wording.versions:
        assert f"{said.sites[0].path}:{said.sites[0].line}" in page
        assert re.fullmatch(changed.pattern, said.text.replace("{…}", "LlamaForCausalLM"))
    assert changed.pattern in page


def test_the_texts_that_kept_their_wording_are_the_ones_saying_it_in_words() -> None:
    view = texts.texts(load(TABLE_PATH), [])
    kept = [t.heading for t in view["kept_wording"]]
    assert any("use_cache=True` is incompatible with gradient checkpointing" in h for h in kept)
    assert any(h.startswith("Caching is incompatible with gradient checkpointing") for h in kept)
    assert all(len({s.text for s in t.wording.versions}) == 1 for t in view["kept_wording"])
    assert len(load_wording().releases) == len(load(TABLE_PATH).releases_of("transformers"))


def test_the_guide_says_what_the_pickled_arguments_and_the_legacy_key_measurably_do() -> None:
    saved = load_saved()
    guide = (DOCS_DIR / "generated" / "migration-guide.md").read_text(encoding="utf-8")
    off = [r for r in saved.releases if not r.loaded.checkpointing]
    assert ("turn checkpointing off" in guide) == bool(off)
    assert all(r.fresh.checkpointing for r in saved.releases)  # the measurement can tell on from off
    assert all(f"trainer.py:{r.decided_at}" in guide for r in off)
    assert all(c.checkpointing and not c.key_kept for c in saved.configs) == ("deletes the key" in guide)
