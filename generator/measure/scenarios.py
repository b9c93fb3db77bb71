"""The probe suite's vocabulary: each scenario a probe runs, defined once.

`data/matrix.json` records them as their strings (a `StrEnum` member is its string), the probes write them and the
adoption scan and the finding codes' effects look outcomes up by them. A scenario about one method or member of a
row is its prefix with the name in parentheses (`Scenario.CALL.of("set_training")` is `call (set_training)`).
"""

from __future__ import annotations

from enum import StrEnum


class Scenario(StrEnum):
    """What a probe does with a name (see `generator.measure.probes`)."""

    EXISTS = "exists"
    CALL_ON_A_FRESH_MODEL = "call on a fresh model"
    CALL_ON_A_CHECKPOINTING_MODEL = "call on a checkpointing model"
    OVERRIDDEN_WITH_KWARGS = "overridden with **kwargs, new method called"
    OVERRIDDEN_WITHOUT_KWARGS = "overridden without **kwargs, new method called"
    READ_ON_A_FRESH_MODEL = "read on a fresh model"
    READ_ON_A_CHECKPOINTING_MODEL = "read on a checkpointing model"
    REFERENCE_WITHOUT_A_CALL = "reference without a call"
    HASATTR = "hasattr"
    GETATTR_WITH_A_DEFAULT = "getattr with a default"
    SETATTR = "setattr"
    WITH_ITS_OWN_METHOD = "with its own method"
    WITH_THE_OTHER_METHOD = "with the other method"
    TOGETHER_WITH_THE_OLD_METHOD = "together, with the old method"
    TOGETHER_WITH_THE_NEW_METHOD = "together, with the new method"
    TRAIN_WITH_CHECKPOINTING = "Trainer.train() with checkpointing on"
    TRAIN_WITH_A_NARROW_OVERRIDE = "Trainer.train() with checkpointing on, override without **kwargs"
    SET_IN_THE_CONSTRUCTOR = "set in the constructor"
    SET_BOTH_IN_THE_CONSTRUCTOR = "set both in the constructor"
    READ_AFTER_SETTING_THE_OLD_NAME = "read after setting the old name"
    WRITTEN_AFTER_CONSTRUCTION = "written after construction"
    SET_THROUGH_REPLACE = "set through dataclasses.replace"
    DECLARED_BY_A_SUBCLASS = "declared with a default by a subclass"
    PARSE_DICT = "parse_dict(allow_extra_keys=True)"
    CALL = "call"
    CALL_WITH_BOTH = "call with both"
    COMMAND_LINE = "command line"
    COMMAND_LINE_WITH_BOTH = "command line with both"
    YAML_FILE = "YAML file"
    YAML_FILE_WITH_BOTH = "YAML file with both"

    def of(self, name: str) -> str:
        """This scenario about the method or member `name`: `with its own method (gradient_checkpointing_enable)`."""
        return f"{self} ({name})"
