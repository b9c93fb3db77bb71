"""A use's v6 verdict from the code around it: what the adoption report says happens to it on the removal release.

`adoption.effect` gives what the use does by itself (measured); this module corrects it with its context: a version
branch that cannot run, a guard that answers instead of raising, the package's own error first, an override the
Trainer no longer calls, a default that no longer reaches transformers (a silent behaviour change).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from checkpointing_migrate.findings import Finding
from checkpointing_migrate.table import Rename, RenameKind
from generator.measure import context
from generator.measure.adoption_data import ScannedSite
from generator.measure.data import Outcome, row_key

TRAINER_SCENARIO = "Trainer.train() with checkpointing on"
NARROW_TRAINER_SCENARIO = "Trainer.train() with checkpointing on, override without **kwargs"
"""The override row's probes: a model that defines only the method, with `**kwargs` and without."""


def _declared_default(path: Path, line: int, name: str) -> str | None:
    """The default an annotated field `name` declares at `line`, as source (`True`), or `None`."""
    tree = context.tree_of(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.AnnAssign)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and isinstance(node.target, ast.Name)
            and node.target.id == name
            and node.value is not None
        ):
            value = node.value
            if isinstance(value, ast.Call) and context.name_of(value.func) == "field":
                value = next((k.value for k in value.keywords if k.arg == "default"), value)
            return ast.unparse(value)
    return None


def _lookup_default(path: Path, line: int, name: str) -> str | None:
    """The default of the `getattr(x, "name", DEFAULT)` at `line`, as source."""
    tree = context.tree_of(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and context.name_of(node.func) == "getattr"
            and len(node.args) == 3
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value == name
        ):
            return ast.unparse(node.args[2])
    return None


def judge(
    site: ScannedSite,
    finding: Finding,
    source: Path,
    releases: tuple[str, str],
    switch: Rename,
    trainer: tuple[Outcome | None, Outcome | None, Outcome | None],
) -> ScannedSite:
    """`site` with its effect, `v6` and `changes` decided by the code around it. `releases`: (newest measured,
    removal); `switch`: the table's boolean TrainingArguments field row (what turns checkpointing on); `trainer`: the
    override row's outcomes (newest release, narrow override; release before the rename, a model with only the new
    name: what the v6 Trainer does with a model that only has the old one)."""
    row = finding.row
    if row is None:
        return site
    newest, removal = releases
    here = context.around(source, finding.line, finding.column, finding.old, newest)
    then = context.around(source, finding.line, finding.column, finding.old, removal)
    if not here.runs:
        return replace(site, effect="dead", warnings=(), v6="", changes="")
    if not then.runs:
        return replace(site, v6="", changes="")
    if site.code == "override" and finding.via:
        # A model that is not a PreTrainedModel: the Trainer calls it with every_n_layers= and offload= today, and
        # only the new name in v6 (what a model with only the other name met in the release before the rename).
        now, narrow, v6 = trainer
        found = context.definition_at(source, finding.line, finding.old)
        if found is not None and not found.keywords and narrow is not None and narrow.error:
            site = replace(site, effect="raises", warnings=())  # today: the Trainer's every_n_layers= is refused
        if v6 is not None and v6.error:
            site = replace(site, v6=v6.error.type)
        return site
    if site.code == "subclass-default" and row.kind == RenameKind.FIELD and field_is(row, switch):
        default = _declared_default(source, finding.line, finding.old)
        if default not in (None, "False", "None"):
            return replace(
                site,
                changes=f"declares `{row.old}` = {default}, which transformers {removal} no longer reads (it reads "
                f"`{row.new}`, default off): checkpointing is off for every user who relied on this default, so "
                "training needs more activation memory",
            )
    if site.code == "string-lookup" and finding.via == "getattr with a default":
        default = _lookup_default(source, finding.line, finding.old) or "its default"
        return replace(
            site,
            v6="",
            changes=f"`getattr(…, '{row.old}', {default})` returns {default} whatever the model does",
        )
    if site.code == "string-lookup" and finding.via == "hasattr":
        return replace(site, v6="", changes=f"`hasattr(…, '{row.old}')` is False: the code it guards no longer runs")
    if not site.v6:
        return site
    if then.own_error:
        return replace(site, v6=then.own_error, changes="")
    if then.instead:
        return replace(site, v6="", changes=f"{then.instead}: the use no longer runs, silently")
    return site


def field_is(row: Rename, switch: Rename) -> bool:
    """Whether a field row (TrainingArguments' or a library's redeclaration) is the checkpointing switch."""
    return row.old == switch.old and row.new == switch.new


def trainer_outcomes(
    newest: Sequence[Outcome], before: Sequence[Outcome], caller: Rename | None
) -> tuple[Outcome | None, Outcome | None, Outcome | None]:
    """The override row's outcomes `judge` reads, or `None` where the matrix has none."""
    if caller is None:
        return None, None, None
    key = row_key(caller)

    def pick(outcomes: Sequence[Outcome], scenario: str, uses: str) -> Outcome | None:
        return next((o for o in outcomes if o.row == key and o.scenario == scenario and o.uses == uses), None)

    return (
        pick(newest, TRAINER_SCENARIO, "old"),
        pick(newest, NARROW_TRAINER_SCENARIO, "old"),
        pick(before, TRAINER_SCENARIO, "new"),
    )


def training_arguments_call(source: Path, line: int, name: str, fields: frozenset[str]) -> bool:
    """Whether the call passing `name=` at `line` passes only training-arguments fields (at least five of them): the
    callee is a training-arguments class held in a variable (oumi's `config_class(...)`), which the scanner cannot
    name."""
    tree = context.tree_of(source)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno):
            named = [k.arg for k in node.keywords if k.arg]
            if name in named and len(named) >= 5 and set(named) <= fields:
                return True
    return False
