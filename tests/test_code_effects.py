"""Every effect the finding-code registry states is the one the probes measured for that form of use.

`codes.Code.effect` (the example's form) and each of `Code.forms` are compared with the outcomes that
`generator.measure.code_effects.FORMS` names, in every measured transformers release with the new names
(`data/matrix.json`); a code whose effect no probe measures must say why in `code_effects.UNMEASURED`.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from packaging.version import Version

from checkpointing_migrate import codes
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
