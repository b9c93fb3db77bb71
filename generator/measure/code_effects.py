"""What each finding code's form of use measurably does: the probes of `data/matrix.json` that make the same use.

`codes.py` states an effect per code (its example's form) and, in `Code.forms`, the forms that do something else; this
module names the recorded outcomes behind each statement and reads the effect off them, so a test and
`benchmarks/factcheck.py` can fail when a statement and the measurement disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from checkpointing_migrate.table import field_name
from generator.measure.data import Outcome
from generator.measure.probes import BOOL_VALUES, DICT_VALUES
from generator.measure.scenarios import Scenario


@dataclass(frozen=True)
class Probe:
    """The recorded outcomes that make one form of a code's use: every row of `kind` whose owner starts with `owner`."""

    kind: str
    owner: str
    scenario: str
    uses: str
    old: str = ""
    """Only the row with this old name (empty: every row of the kind and owner)."""

    def outcomes(self, recorded: Sequence[Outcome]) -> list[Outcome]:
        return [
            o
            for o in recorded
            if o.row.kind == self.kind
            and o.row.owner.startswith(self.owner)
            and o.scenario == self.scenario
            and o.uses == self.uses
            and (not self.old or o.row.old == self.old)
        ]


MODEL, ARGS, SET_TRAINING, ENABLE = (
    "PreTrainedModel",
    "TrainingArguments",
    "TrainingArguments.set_training",
    "PreTrainedModel.",
)
ENABLE_OLD = "gradient_checkpointing_enable"
"""Only to pick the probes of the method that takes the keyword; the probes themselves take every name from the table."""

FORMS: dict[tuple[str, str], tuple[Probe, ...]] = {
    ("call", ""): (Probe("method", MODEL, Scenario.CALL_ON_A_FRESH_MODEL, "old"),),
    ("asserts-warning", ""): (Probe("method", MODEL, Scenario.CALL_ON_A_FRESH_MODEL, "old"),),
    ("kwargs-unpacked", ""): (Probe("method", MODEL, Scenario.CALL_ON_A_FRESH_MODEL, "old"),),
    ("keyword", ""): (
        Probe("field", ARGS, Scenario.SET_IN_THE_CONSTRUCTOR, "old"),
        Probe("argument", ENABLE, f"with its own method ({ENABLE_OLD})", "old"),
        Probe("argument", SET_TRAINING, "call (set_training)", "old"),
    ),
    ("dict-key", ""): (Probe("field", ARGS, Scenario.SET_IN_THE_CONSTRUCTOR, "old"),),
    ("property", ""): (Probe("property", MODEL, Scenario.READ_ON_A_FRESH_MODEL, "old"),),
    ("flag", ""): (Probe("cli-flag", "HfArgumentParser(", Scenario.COMMAND_LINE, "old"),),
    ("config-key", ""): (
        Probe("config-key", "TrainingArguments YAML", Scenario.YAML_FILE, "old"),
        Probe("config-key", "TrainingArguments YAML", Scenario.PARSE_DICT, "old"),
    ),
    ("both-names", ""): (
        Probe("field", ARGS, Scenario.SET_BOTH_IN_THE_CONSTRUCTOR, "both"),
        Probe("cli-flag", "HfArgumentParser(", Scenario.COMMAND_LINE_WITH_BOTH, "both"),
        Probe("config-key", "TrainingArguments YAML", Scenario.YAML_FILE_WITH_BOTH, "both"),
    ),
    ("both-names", "set_training"): (Probe("argument", SET_TRAINING, "call with both (set_training)", "both"),),
    ("both-names", ENABLE_OLD): (Probe("argument", ENABLE, f"together, with the old method ({ENABLE_OLD})", "both"),),
    ("write", ""): (Probe("field", ARGS, Scenario.WRITTEN_AFTER_CONSTRUCTION, "old"),),
    ("read", ""): (Probe("field", ARGS, Scenario.READ_AFTER_SETTING_THE_OLD_NAME, "old"),),
    ("replace", ""): (Probe("field", ARGS, Scenario.SET_THROUGH_REPLACE, "old", "gradient_checkpointing"),),
    ("replace", "gradient_checkpointing_kwargs"): (
        Probe("field", ARGS, Scenario.SET_THROUGH_REPLACE, "old", "gradient_checkpointing_kwargs"),
    ),
    ("subclass-default", ""): (Probe("field", ARGS, Scenario.DECLARED_BY_A_SUBCLASS, "old"),),
    ("override", ""): (Probe("method", MODEL, Scenario.OVERRIDDEN_WITH_KWARGS, "old"),),
    ("narrow-override", ""): (Probe("method", MODEL, Scenario.OVERRIDDEN_WITHOUT_KWARGS, "old"),),
    ("reference", ""): (Probe("method", MODEL, Scenario.REFERENCE_WITHOUT_A_CALL, "old"),),
    ("string-lookup", ""): (Probe("property", MODEL, Scenario.GETATTR_WITH_A_DEFAULT, "old"),),
    ("string-lookup", "hasattr of the property"): (Probe("property", MODEL, Scenario.HASATTR, "old"),),
    ("string-lookup", "getattr or hasattr of a method"): (
        Probe("method", MODEL, Scenario.HASATTR, "old"),
        Probe("method", MODEL, Scenario.GETATTR_WITH_A_DEFAULT, "old"),
    ),
    ("string-lookup", "setattr of the property"): (Probe("property", MODEL, Scenario.SETATTR, "old"),),
}
"""(code, form) → the probes that make that use; form `""` is the code's own `effect` (its example's form), the others
are its `forms`."""

UNMEASURED = {
    "instance-override": "a function assigned on an instance: no probe assigns one",
    "replaced-method": "a replacement through MethodType(partial(...)): no probe makes one",
    "class-patch": "a patch of transformers' own class: no probe patches transformers",
    "patched-method": "a call of a method some file patches: no probe patches transformers",
    "mixin-field": "a mixin's own field read before TrainingArguments': no probe builds the mixin",
    "dead-write": "a branch for releases before the rename: nothing runs on the newer ones",
}
"""Codes with an effect that no probe measures, and why: their effect is the registry's reasoning, said as such."""


def effect_of(outcome: Outcome) -> str:
    """The adoption report's word for what one recorded use did: `raises`, `overrides` (a subclass's override ran and
    it warned), `lost-write` (the Trainer's field does not hold the value the old name was given), `warns`, `silent`,
    or `absent`."""
    if outcome.outcome == "absent":
        return "absent"
    if outcome.outcome == "raises":
        return "raises"
    effect = outcome.effect or {}
    if effect.get("override_ran") and outcome.outcome == "warns":
        return "overrides"
    new = field_name(outcome.row.new)
    if outcome.uses == "old" and new in effect:
        given = BOOL_VALUES[0] if isinstance(effect[new], bool) else DICT_VALUES[0]
        if effect[new] != given:
            return "lost-write"
    return "warns" if outcome.outcome == "warns" else "silent"


def winner(outcome: Outcome) -> str:
    """For a use of both names: which one's value the Trainer's (new) field holds afterwards, `old` or `new` (the
    probes give the old name the first value of `BOOL_VALUES`/`DICT_VALUES` and the new name the second)."""
    held = (outcome.effect or {})[field_name(outcome.row.new)]
    values = BOOL_VALUES if isinstance(held, bool) else DICT_VALUES
    return "old" if held == values[0] else "new"


def measured(code: str, form: str, recorded: Sequence[Outcome]) -> set[str]:
    """Every effect the probes of (code, form) recorded in one release; empty when none of them ran."""
    return {effect_of(o) for probe in FORMS[code, form] for o in probe.outcomes(recorded)}
