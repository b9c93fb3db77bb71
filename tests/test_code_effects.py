"""Every effect the finding-code registry states is the one the probes measured for that form of use.

`codes.Code.effect` (the example's form) and each of `Code.forms` are compared with the outcomes that
`generator.measure.code_effects.FORMS` names, in every measured transformers release with the new names
(`data/matrix.json`); a code whose effect no probe measures must say why in `code_effects.UNMEASURED`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from packaging.version import Version

from checkpointing_migrate import codes
from checkpointing_migrate.cli import main
from checkpointing_migrate.table import load
from generator.measure import code_effects
from generator.measure.data import load_matrix
from generator.paths import TABLE_PATH

TABLE = load(TABLE_PATH)
SINCE = min(Version(r.since) for r in TABLE.renames if r.library == "transformers" and r.since)
RENAMED = [e for e in load_matrix().releases if e.library == "transformers" and Version(e.release) >= SINCE]
STATED = [(c.code, "", c.effect) for c in codes.CODES.values()] + [
    (c.code, form, effect) for c in codes.CODES.values() for form, effect in c.forms
]
ABOUT_TRANSFORMERS = {"warns", "raises", "overrides", "silent", "lost-write"}
"""The effects that say what transformers does with the use (the others: not deprecated, dead, no claim)."""


def test_the_releases_with_the_new_names_are_measured() -> None:
    assert [e.release for e in RENAMED] == [
        r.version for r in TABLE.releases_of("transformers") if Version(r.version) >= SINCE
    ]


@pytest.mark.parametrize(("code", "form", "stated"), STATED, ids=[f"{c}:{f or 'effect'}" for c, f, _ in STATED])
def test_each_stated_effect_is_the_measured_one(code: str, form: str, stated: str | None) -> None:
    if stated not in ABOUT_TRANSFORMERS and code not in code_effects.UNMEASURED:
        assert (code, form) not in code_effects.FORMS, f"{code} claims no transformers effect, yet probes measure it"
        return
    if (code, form) not in code_effects.FORMS:
        assert not form and code in code_effects.UNMEASURED, (
            f"`{code}` states `{stated}`{f' for {form}' if form else ''} and no probe measures it: name the probes in "
            "code_effects.FORMS, or say why none can in UNMEASURED"
        )
        return
    for entry in RENAMED:
        found = code_effects.measured(code, form, entry.outcomes)
        assert found, f"no outcome of transformers {entry.release} matches the probes of {code} {form!r}"
        assert found == {stated}, f"`{code}` {form or 'effect'}: stated {stated}, measured {found} on {entry.release}"


def test_both_names_keep_the_value_the_explanation_says() -> None:
    explanation = codes.get("both-names").explanation
    for entry in RENAMED:
        for probe in code_effects.FORMS["both-names", ""]:
            assert {code_effects.winner(o) for o in probe.outcomes(entry.outcomes)} == {"new"}
        (set_training,) = code_effects.FORMS["both-names", "set_training"]
        assert {code_effects.winner(o) for o in set_training.outcomes(entry.outcomes)} == {"old"}
    assert "keeps the new value" in explanation and "keeps the old value" in explanation


def test_a_wrong_statement_fails() -> None:
    """What the test above catches: `both-names` said `warns` before it was measured (it is silent)."""
    entry = RENAMED[-1]
    assert code_effects.measured("both-names", "", entry.outcomes) != {"warns"}
    assert code_effects.measured("string-lookup", "getattr or hasattr of a method", entry.outcomes) == {"silent"}
    wrong = replace(codes.get("both-names"), effect="warns")
    assert code_effects.measured(wrong.code, "", entry.outcomes) != {wrong.effect}


SAID = {"new": "the new one wins", "old": "keeps the old value", "raises": "raises TypeError"}
"""How a both-names message says which value is kept, or that the call raises."""
BOTH = {
    "": "args = TrainingArguments(output_dir='o', gradient_checkpointing=True, activation_checkpointing=False)\n",
    "set_training": "args.set_training(gradient_checkpointing=True, activation_checkpointing=False)\n",
    code_effects.ENABLE_OLD: "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={}, activation_checkpointing_kwargs={})\n",
}
"""A use of both names per measured form of `both-names` (its example's form first)."""
LOOKUPS = {
    "": "getattr(model, 'is_gradient_checkpointing', False)\n",
    "hasattr of the property": "hasattr(model, 'is_gradient_checkpointing')\n",
    "getattr or hasattr of a method": "hasattr(model, 'gradient_checkpointing_enable')\n",
    "setattr of the property": "setattr(model, 'is_gradient_checkpointing', True)\n",
}
"""A string lookup per measured form of `string-lookup`."""
HEADER = "from transformers import AutoModelForCausalLM, TrainingArguments\n\nmodel = AutoModelForCausalLM.from_pretrained('m')\nargs = TrainingArguments(output_dir='o')\n"


def _messages(tmp_path: Path, source: str, code: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    script = tmp_path / "train.py"
    script.write_text(HEADER + source)
    main(["scan", "--format", "json", "--target", f"transformers>={SINCE}", str(script)])
    return [f["message"] for f in json.loads(capsys.readouterr().out) if f["code"] == code]


@pytest.mark.parametrize("form", list(BOTH))
def test_each_both_names_message_says_what_the_probes_measured(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The constructor, a command line and YAML keep the new value; `set_training` keeps the old one; the old method
    raises: a message saying "the new one wins" for all of them (as it did) fails here."""
    (message,) = _messages(tmp_path, BOTH[form], "both-names", capsys)
    for entry in RENAMED:
        outcomes = [o for probe in code_effects.FORMS["both-names", form] for o in probe.outcomes(entry.outcomes)]
        raised = {code_effects.effect_of(o) for o in outcomes} == {"raises"} or all(o.effect is None for o in outcomes)
        said = {"raises"} if raised else {code_effects.winner(o) for o in outcomes}
        assert [SAID[s] for s in said] == [s for s in SAID.values() if s in message], (form, entry.release, message)


@pytest.mark.parametrize("form", list(LOOKUPS))
def test_each_string_lookup_message_says_what_the_probes_measured(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`setattr` of the property raises (it has no setter), a method lookup is silent, a property lookup warns."""
    (message,) = _messages(tmp_path, LOOKUPS[form], "string-lookup", capsys)
    said = {"warns": "warns like a direct use", "silent": "does not warn", "raises": "raises AttributeError"}
    for entry in RENAMED:
        (measured,) = code_effects.measured("string-lookup", form, entry.outcomes)
        assert said[measured] in message, (form, entry.release, message)
        assert [s for s in said.values() if s in message] == [said[measured]], message
