"""Config files and launch commands in their own language: YAML and shell, before and after, from the table's rows.

The guide shows each example as Before/After tabs; tests/test_config_examples.py runs the migration tool on every
Before (it must give the After) and parses both with `HfArgumentParser` on the installed transformers. The keys the
guide says must not be renamed come from the libraries' `config` lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from checkpointing_migrate.table import Rename, RenameKind, Table, field_name


@dataclass(frozen=True)
class ConfigExample:
    """One file a reader has, written with the old names and with the new ones."""

    title: str
    language: str
    """The fence's language: `yaml` or `sh`."""
    filename: str
    """The file it is in, also the name the tests write it under."""
    before: str
    after: str
    by_tool: bool = True
    """Whether `checkpointing-migrate fix` makes the After from the Before (else the guide says to edit by hand)."""
    launch: str = ""
    """The project's command that hands a config file to the training script: what shows the tool (and the reader)
    that `HfArgumentParser` reads it, so the rename is a safe fix."""


@dataclass(frozen=True)
class KeepKey:
    """A key that looks like the renamed one and must not be renamed: it belongs to another tool."""

    key: str
    owner: str
    why: str


def _fields(table: Table) -> tuple[Rename, Rename]:
    """The transformers field rows a release shipped: the switch and its kwargs (the field named after it)."""
    shipped, switch = table.select(RenameKind.FIELD, library="transformers", shipped=True), table.switch_field
    return switch, next(r for r in shipped if r.old.startswith(f"{switch.old}_"))


def _spelling(table: Table, kind: RenameKind, field: Rename, *, dashes: bool = False) -> Rename:
    """The shipped `kind` row (config key or flag) that stands for `field`, spelt with dashes or underscores."""
    return next(
        r
        for r in table.select(kind, library=field.library, shipped=True)
        if field_name(r.old) == field.old and ("-" in r.old.lstrip("-")) == dashes
    )


def _planned(table: Table, library: str, kind: RenameKind) -> Rename:
    return table.select(kind, library=library, shipped=False)[0]


def examples(table: Table) -> list[ConfigExample]:
    """A YAML file, the three launchers and a TRL command line, before and after."""
    switch, kwargs = _fields(table)
    key, kwargs_key = _spelling(table, RenameKind.CONFIG_KEY, switch), _spelling(table, RenameKind.CONFIG_KEY, kwargs)
    flag, dash = (
        _spelling(table, RenameKind.CLI_FLAG, switch),
        _spelling(table, RenameKind.CLI_FLAG, switch, dashes=True),
    )
    kwargs_flag = _spelling(table, RenameKind.CLI_FLAG, kwargs)
    no_flag = _planned(table, "trl", RenameKind.CLI_FLAG)

    def yaml(k: str, kw: str) -> str:
        return f"output_dir: out\nreport_to: none\n{k}: true\n{kw}:\n  use_reentrant: false\n"

    def launch(f: str, d: str, kw: str) -> str:
        args = "--output_dir out --report_to none"
        return (
            f"accelerate launch train.py {args} \\\n  {f} {kw} '{{\"use_reentrant\": false}}'\n"
            f"torchrun --nproc_per_node 2 train.py {args} {d}\n"
            f"deepspeed train.py --deepspeed ds_config.json {args} {f}\n"
        )

    return [
        ConfigExample(
            "A YAML config",
            "yaml",
            "train.yaml",
            yaml(key.old, kwargs_key.old),
            yaml(key.new, kwargs_key.new),
            launch="accelerate launch train.py train.yaml",
        ),
        ConfigExample(
            "Launchers",
            "sh",
            "launch.sh",
            launch(flag.old, dash.old, kwargs_flag.old),
            launch(flag.new, dash.new, kwargs_flag.new),
        ),
        ConfigExample(
            "TRL: turning checkpointing off",
            "sh",
            "trl.sh",
            f"trl sft --output_dir out --report_to none {no_flag.old}\n",
            f"trl sft --output_dir out --report_to none {flag.new} false\n",
            by_tool=False,
        ),
    ]


def keep_keys(table: Table) -> list[KeepKey]:
    """The keys that share a name with a renamed one but belong to another tool, from the libraries' `config` lists."""
    key = _spelling(table, RenameKind.CONFIG_KEY, _fields(table)[0])
    libraries = table.libraries
    found: list[KeepKey] = []
    if key.old in libraries["axolotl"].config:
        found.append(
            KeepKey(
                key.old,
                libraries["axolotl"].display,
                "Axolotl's own key (it takes values such as `offload` too); Axolotl reads it, not `HfArgumentParser`.",
            )
        )
    sections = sorted({c.split(".", 1)[0] for c in libraries["deepspeed"].config if "." in c})
    found += [
        KeepKey(s, libraries["deepspeed"].display, "a section of the DeepSpeed JSON config, read by DeepSpeed.")
        for s in sections
    ]
    fsdp = [c for c in libraries["transformers"].config if c.startswith("fsdp_config.")]
    found += [
        KeepKey(c, "FSDP", f"FSDP's own checkpoint wrapper, not the training argument `{key.new}`.") for c in fsdp
    ]
    flag_row = next(r for r in table.planned if r.owner.startswith("GradientCheckpointingLayer"))
    found.append(
        KeepKey(
            flag_row.old,
            "a model's config.json",
            "the model config's key and the per-layer flag of modeling code are not renamed yet.",
        )
    )
    return found
