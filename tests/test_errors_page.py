"""The errors-and-warnings page: one section per text, from the table's warnings and the measured data."""

from __future__ import annotations

import dataclasses

from checkpointing_migrate.table import EmittedWarning, load
from generator.measure import data as measured_data
from generator.pages import errors
from generator.paths import ROOT

TABLE = load(ROOT / "aliases.yaml")
DATA = measured_data.load_measured()


def test_every_recorded_warning_and_measured_exception_has_a_section() -> None:
    found = {(e.category, e.heading): e for e in errors.error_texts(TABLE, DATA)}
    for row in TABLE.renames:
        if row.warning:
            assert (row.warning.category, row.warning.message) in found
    for outcomes in DATA.outcomes.values():
        for o in outcomes:
            if o.error:
                e = found[(o.error.type, errors.heading_of(o.error.message))]
                assert o.error.message in e.texts


def test_variants_after_the_colon_share_a_section_with_every_text_verbatim() -> None:
    found = errors.error_texts(TABLE, DATA)
    grouped = [e for e in found if len(e.texts) > 1]
    assert grouped, "the HfArgumentParser refusals list different arguments and should share a heading"
    for e in grouped:
        assert all(t.startswith(e.heading + ": ") for t in e.texts)


def test_releases_come_from_the_measurements() -> None:
    key = ("transformers", "5.24.0")
    # A made-up exception in one scenario of one release: its section says exactly that release produced it.
    first, *rest = DATA.outcomes[key]
    made_up = dataclasses.replace(
        first, outcome="raises", error=measured_data.RaisedError("RuntimeError", "made up by a test")
    )
    changed = dataclasses.replace(DATA, outcomes={**DATA.outcomes, key: (made_up, *rest)})
    (e,) = [e for e in errors.error_texts(TABLE, changed) if e.category == "RuntimeError"]
    assert e.produced_in == {"transformers": ("5.24.0",)}
    assert e.not_in == {"transformers": tuple(r for r in DATA.releases["transformers"] if r != "5.24.0")}
    assert [c.releases for c in e.causes] == [("5.24.0",)] and not e.causes[0].too_old


def test_a_new_warning_in_the_table_appears_without_a_template_change() -> None:
    row = next(r for r in TABLE.renames if r.warning)
    new_warning = EmittedWarning("UserWarning", "`MyModel` only defines `old`, which a later release will not call")
    table = dataclasses.replace(TABLE, renames=(*TABLE.renames, dataclasses.replace(row, warning=new_warning)))
    (e,) = [e for e in errors.error_texts(table, DATA) if e.category == "UserWarning"]
    assert e.warning and e.heading == new_warning.message and e.produced_in == {}  # recorded, not measured


def test_exceptions_before_the_rename_advise_the_release() -> None:
    found = errors.error_texts(TABLE, DATA)
    since = {r.since for r in TABLE.renames if r.since}
    early = [e for e in found if not e.warning and e.causes and all(c.too_old for c in e.causes)]
    assert early
    for e in early:
        assert all(all(r not in since for r in c.releases) for c in e.causes)


def test_exceptions_no_probe_reaches_are_sections_read_from_the_source() -> None:
    """FSDP's ValueError needs a multi-GPU run: its section comes from the releases' source, with where and when."""
    found = errors.error_texts(TABLE, DATA)
    fsdp = [e for e in found if any(s.function == "Trainer.create_accelerator_and_postprocess" for s in e.sites)]
    assert len(fsdp) == 2, "the text changed in 5.23.0: one section per text"
    for e in fsdp:
        assert e.category == "ValueError" and not e.warning and not e.produced_in
        (site,) = e.sites
        assert site.path == "transformers/trainer.py" and "fsdp_plugin.activation_checkpointing" in site.condition
        released = set(e.in_source["transformers"]) | set(e.not_in_source["transformers"])
        assert released == set(DATA.releases["transformers"])
    renamed = next(r.since for r in TABLE.renames if r.since)
    assert {e.in_source["transformers"][0] for e in fsdp} == {DATA.releases["transformers"][0], renamed}


def test_a_raise_a_probe_produced_keeps_only_its_measured_section() -> None:
    key = ("transformers", "5.24.0")
    first, *rest = DATA.outcomes[key]
    made_up = dataclasses.replace(first, outcome="raises", error=measured_data.RaisedError("ValueError", "no x here"))
    site = measured_data.RaisedInSource("ValueError", "no {…} here", "transformers/x.py", 1, "f", "", probed=True)
    changed = dataclasses.replace(
        DATA,
        outcomes={**DATA.outcomes, key: (made_up, *rest)},
        raised_in_source={**DATA.raised_in_source, key: (site,)},
    )
    (e,) = [e for e in errors.error_texts(TABLE, changed) if "here" in e.heading]
    assert e.produced_in == {"transformers": ("5.24.0",)} and not e.sites
    unprobed = dataclasses.replace(site, probed=False)
    changed = dataclasses.replace(DATA, raised_in_source={**DATA.raised_in_source, key: (unprobed,)})
    (e,) = [e for e in errors.error_texts(TABLE, changed) if "here" in e.heading]
    assert e.in_source == {"transformers": ("5.24.0",)} and e.sites[0].lines == ((1, ("5.24.0",)),)


def test_a_colon_inside_backticks_is_code_not_the_variant_separator() -> None:
    assert (
        errors.heading_of("`kwargs={'selective': True}` requires `x=True`")
        == "`kwargs={'selective': True}` requires `x=True`"
    )
    assert errors.heading_of("Some keys are not used: ['a']") == "Some keys are not used"


def test_each_section_opens_with_the_table_names_old_then_new() -> None:
    """What a reader sees first under a heading: the code that produced the text, then the code to write instead,
    built from the rows (never typed): old names only before, new names only after (or the release to require)."""
    found = errors.error_texts(TABLE, DATA)
    for e in found:
        assert e.fixes or e.upgrades or e.sites, f"no fix for {e.heading!r}"
    for e in found:
        if e.warning:
            for row, fix in zip(e.rows, e.fixes, strict=False):
                assert row.old in fix.before and row.new in fix.after and row.new not in fix.before
        for u in e.upgrades:
            pypi = TABLE.libraries[u.library].pypi
            assert (u.fix.before, u.fix.after) == (f"{pypi}<{u.since}", f"{pypi}>={u.since}")
            assert all(r.since == u.since for r in u.rows)


def test_a_measured_instance_of_a_placeholder_shares_the_recorded_section() -> None:
    """The Trainer's warning names the model's class (`{model}` in the table): the probe's class does not get a
    section of its own, so a reader's own class name lands on the one section."""
    (row,) = [r for r in TABLE.renames if r.warning and "{model}" in r.warning.message]
    found = errors.error_texts(TABLE, DATA)
    (e,) = [e for e in found if row in e.rows]
    assert e.texts == (row.warning.message,) and e.seen and e.produced_in
    assert not [x.heading for x in found for seen in e.seen if seen in x.texts]


def test_fsdp_and_trl_checks_read_as_settings_to_change() -> None:
    """Where the source raises under a condition (FSDP's both-on check, TRL's selective checks), the section names
    the settings the condition tests, in the names of each release's text."""
    sites = [s for e in errors.error_texts(TABLE, DATA) for s in e.sites]
    fsdp = [s for s in sites if s.function == "Trainer.create_accelerator_and_postprocess"]
    assert len(fsdp) == 2
    for site in fsdp:
        assert len(site.settings) == 2 and all(s.true for s in site.settings)
        config, argument = site.settings
        assert config.key and config.key in site.condition and argument.name in site.condition
        keyword = f"{argument.name}=True"  # the training argument is turned off, FSDP's own key is kept
        assert site.fix and keyword in site.fix.before and keyword not in site.fix.after
        assert config.when_true in site.fix.after
        (row,) = site.renamed
        assert argument.name in (row.old, row.new)
    trl = [s for s in sites if s.library == "trl"]
    assert trl and all(s.settings and s.fix for s in trl)
    for site in trl:
        (tested,) = site.settings
        assert tested.name in site.condition and (tested.key or not tested.true)
