"""The one registry of finding codes: what each code means, how severe it is, what it does on the renamed releases.

Handlers name a code; `Hit` looks it up here, so a misspelt code fails on first use (and a test scans every
code's example). The CLI's `--select`/`--ignore`, `rules` and `explain`, the SARIF rules, the site's list of codes
and the adoption report (for uses no probe runs; the others' effects are measured) read it. A leaf module.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    """One kind of finding."""

    code: str
    """The stable name shown in brackets (`[call]`), in JSON and SARIF, and given to `--select`."""
    severity: str
    """`fix`, `hazard`, `info`, or `error` (only `file-error`, which is not a finding). A `fix` code is reported as `info` where the tool will not rewrite that use: the
    version gate forbids the new name (see `gated`), or a config key is spelt with escapes."""
    effect: str | None
    """What the example's form of the use does on transformers ≥ the rename's release, in the adoption report's
    vocabulary (its `EFFECTS`; the report measures each use where a probe can); `None` when the tool cannot tell what
    the name refers to, so no effect is claimed. Forms that do something else are in `forms`."""
    section: str | None
    """Key of `findings.SECTIONS`: the guide section that explains it (SARIF's help link, the site's list); `None`
    when no section is about it. A message may link a closer section for its context: a call inside a class
    links the custom-models section."""
    summary: str
    """One line, for `rules` and the site."""
    explanation: str
    """What `explain CODE` prints above the example: why it is reported and what to do."""
    example: tuple[str, str]
    """A file that produces this code: (file name, text). `explain` shows it and a test scans it, in a project
    that requires the release with the new names."""
    args: tuple[str, ...] = ()
    """Extra `scan` options the example needs (`--include-planned`)."""
    forms: tuple[tuple[str, str], ...] = ()
    """(form, effect) for the forms of this use that measurably do something other than `effect` (which is what the
    example's form does); `explanation` says each of them in words. `generator.measure.code_effects` names the probes
    behind every statement, and a test compares them with `data/matrix.json`."""

    @property
    def gated(self) -> bool:
        """Whether a finding may be `info` instead of its severity (every `fix` code may: see `severity`)."""
        return self.severity == "fix"


_CODES = (
    Code(
        "call",
        "fix",
        "warns",
        "script",
        "a call of a renamed model method",
        "The method was renamed; the old one still works but warns on every call, and goes with the aliases. "
        "`fix` rewrites the call, together with the renamed keywords it passes (so `--ignore keyword` does not "
        "keep those).",
        ("train.py", "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': False})\n"),
    ),
    Code(
        "keyword",
        "fix",
        "warns",
        "config",
        "a renamed keyword argument of TrainingArguments, a known subclass or a renamed method",
        "The keyword was renamed with its class or method; the old one still works but warns. `fix` rewrites the "
        "keyword (a keyword of a renamed method call is rewritten with the call).",
        (
            "train.py",
            "from transformers import TrainingArguments\n\nargs = TrainingArguments(output_dir='out', gradient_checkpointing=True)\n",
        ),
    ),
    Code(
        "property",
        "fix",
        "warns",
        "script",
        "a read of a renamed model property",
        "The property was renamed; the old one still works but warns on every read. `fix` rewrites the read.",
        ("train.py", "print(model.is_gradient_checkpointing)\n"),
    ),
    Code(
        "flag",
        "fix",
        "warns",
        "config",
        "a renamed command-line flag given to a training script or command",
        "The flag was renamed; the old spelling still parses but warns. `fix` rewrites the flag only after a "
        "program known to parse it with HfArgumentParser (a script that does, or a command such as `trl sft`).",
        ("run.sh", "trl sft --model_name_or_path Qwen/Qwen2-0.5B --gradient_checkpointing true\n"),
    ),
    Code(
        "config-key",
        "fix",
        "warns",
        "config",
        "a renamed top-level key of a YAML or JSON training config",
        "The key was renamed; a config with the old key still loads but warns. `fix` rewrites the key only in files "
        "whose every top-level key is a training-arguments field (otherwise `foreign-config`); a key spelt with "
        "escapes is reported as `info` for a person to rename.",
        ("sft.yaml", "output_dir: out\ngradient_checkpointing: true\n"),
    ),
    Code(
        "both-names",
        "hazard",
        "silent",
        "pitfalls",
        "the old and the new name set together: one value is dropped",
        "Given both names, TrainingArguments (its constructor, a command line, a config file) keeps the new value and "
        "drops the old one without a word; `set_training` warns and keeps the old value; `gradient_checkpointing_enable` "
        "raises TypeError, since it takes only the old keyword. Remove one of them; which one is for a person to "
        "decide.",
        (
            "train.py",
            (
                "from transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out', gradient_checkpointing=True, activation_checkpointing=False)\n"
            ),
        ),
        forms=(("set_training", "warns"), ("gradient_checkpointing_enable", "raises")),
    ),
    Code(
        "write",
        "hazard",
        "lost-write",
        "pitfalls",
        "a write to the old training-arguments field after construction, which the Trainer no longer reads",
        "Since the rename the Trainer reads the new field, and a write to the old one after construction is not "
        "mirrored: it is ignored. Write the new field (releases with the rename).",
        (
            "train.py",
            (
                "from transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out')\nargs.gradient_checkpointing = False\n"
            ),
        ),
    ),
    Code(
        "read",
        "info",
        "silent",
        "pitfalls",
        "a read of the old training-arguments field (a silent mirror of the new one)",
        "The old field mirrors the new one when it is read, without a warning, until the aliases are removed. "
        "Nothing breaks now; read the new field once every supported release has it.",
        (
            "train.py",
            (
                "from transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out')\nprint(args.gradient_checkpointing)\n"
            ),
        ),
    ),
    Code(
        "dead-write",
        "info",
        "dead",
        "pitfalls",
        "a write to the old field in a branch that only runs on releases before the rename",
        "The branch runs only on releases where the old field is the real one, so the write is right there. "
        "Nothing to change until the branch is removed.",
        (
            "train.py",
            (
                "import transformers\nfrom packaging.version import Version\n\n\ndef setup(args):\n"
                "    if Version(transformers.__version__) < Version('5.23.0'):\n"
                "        args.gradient_checkpointing = True\n"
            ),
        ),
    ),
    Code(
        "subclass-default",
        "hazard",
        "warns",
        "pitfalls",
        "a TrainingArguments subclass that declares the old field",
        "Declaring the old field gives it a default, so every instance warns, even when nobody sets it. Declare "
        "the new field instead.",
        (
            "args.py",
            (
                "from transformers import TrainingArguments\n\n\nclass MyArguments(TrainingArguments):\n"
                "    gradient_checkpointing: bool = True\n"
            ),
        ),
    ),
    Code(
        "override",
        "hazard",
        "overrides",
        "model",
        "a model class that overrides the old method",
        "An override of the old method stays the entry point until the old name is removed (the new method calls "
        "it, and it warns when it calls up). A class outside transformers that only defines the old method is "
        "called by the Trainer's fallback with `every_n_layers=` and `offload=`: without them (or `**kwargs`) that is "
        "a TypeError already, not a warning until v6. Override the new method instead.",
        (
            "modeling.py",
            (
                "from transformers import PreTrainedModel\n\n\nclass MyModel(PreTrainedModel):\n"
                "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):\n"
                "        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs, **kwargs)\n"
            ),
        ),
    ),
    Code(
        "instance-override",
        "hazard",
        "overrides",
        "model",
        "a function assigned to the old method on an instance",
        "A function assigned to the old name replaces the deprecated method and stays the entry point until the "
        "old name is removed (it runs, and warns, when the new method is called). Wrap the new method instead.",
        ("patch.py", "model.gradient_checkpointing_enable = lambda **kwargs: None\n"),
    ),
    Code(
        "reference",
        "hazard",
        "silent",
        "library",
        "a reference to the old method without a call",
        "Referring to the old method is silent now and an AttributeError once it is removed; the new method has a "
        "different signature, so check what the reference is used for.",
        ("inspect_it.py", "import inspect\n\nsignature = inspect.signature(model.gradient_checkpointing_enable)\n"),
    ),
    Code(
        "string-lookup",
        "hazard",
        "warns",
        "library",
        "the old method or property looked up by string (`getattr`, `hasattr`, `setattr`)",
        "Looking up the old property by string (`getattr`, `hasattr`) reads it, so it warns like a read; looking "
        "up the old methods is silent (nothing is called); `setattr` of the property raises AttributeError (it has "
        "no setter). The string cannot be rewritten safely. Test `hasattr(type(model), NEW)` and use the new name.",
        ("probe.py", "if getattr(model, 'is_gradient_checkpointing', False):\n    pass\n"),
        forms=(
            ("hasattr of the property", "warns"),
            ("getattr or hasattr of a method", "silent"),
            ("setattr of the property", "raises"),
        ),
    ),
    Code(
        "kwargs-unpacked",
        "hazard",
        "warns",
        "library",
        "an old name next to `**` unpacking, which may pass the other spelling too",
        "With `**kwargs` in the call, the tool cannot see every keyword: the unpacked ones may hold the old or the "
        "new name, so a rewrite could drop a value or raise a duplicate-keyword error. Check what is unpacked.",
        (
            "train.py",
            (
                "kwargs = {'gradient_checkpointing_kwargs': {'use_reentrant': False}}\n"
                "model.gradient_checkpointing_enable(**kwargs)\n"
            ),
        ),
    ),
    Code(
        "shared-name",
        "hazard",
        "not-deprecated",
        "library",
        "an old method name that another imported library also uses for its own (not deprecated) API",
        "The file imports a library whose own API has a member of this name (diffusers, for instance). Rename it "
        "only where the object is a transformers model.",
        ("pipeline.py", "import diffusers\n\nprint(unet.is_gradient_checkpointing)\n"),
    ),
    Code(
        "unknown-callee",
        "info",
        None,
        "config",
        "an old keyword passed to a call the tool does not know",
        "The callee is not TrainingArguments, a known subclass or a renamed method, so the keyword may belong to "
        "another API. Rename it by hand if the callee forwards it to transformers.",
        ("train.py", "config = build_config(gradient_checkpointing=True)\n"),
    ),
    Code(
        "own-flag",
        "info",
        "not-deprecated",
        "config",
        "a flag the script defines itself with `add_argument`",
        "The script declares this flag with argparse, so it is the script's own option, not the TrainingArguments "
        "flag: it is not rewritten.",
        (
            "cli.py",
            "import argparse\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--gradient_checkpointing', action='store_true')\n",
        ),
    ),
    Code(
        "unknown-program",
        "info",
        None,
        "config",
        "an old flag given to a program the tool cannot check",
        "The program was not found from here, or does not parse its arguments with HfArgumentParser, so the tool "
        "cannot tell whether the flag is the TrainingArguments one. Rename it by hand if it is.",
        ("run.sh", "python missing_script.py --gradient_checkpointing true\n"),
    ),
    Code(
        "string",
        "info",
        None,
        "config",
        "an old flag inside a string that is not an argument list the tool can place",
        "The flag is part of a string (a command line being built, a help text): rename it by hand if a "
        "TrainingArguments parser reads it.",
        ("launch.py", "command = 'python train.py --gradient_checkpointing true'\n"),
    ),
    Code(
        "foreign-config",
        "info",
        "not-deprecated",
        "config",
        "an old key in a config that belongs to another tool",
        "Some top-level key is not a training-arguments field, so the file may be another tool's config (Axolotl's "
        "has its own `gradient_checkpointing` key): it is not rewritten.",
        ("axolotl.yaml", "base_model: Qwen/Qwen2-0.5B\ngradient_checkpointing: true\n"),
    ),
    Code(
        "not-renamed",
        "info",
        "not-deprecated",
        "model",
        "a name the table lists as planned: not renamed in any release yet (with `--include-planned`)",
        "The alias table lists this name as a planned rename that no release has shipped: keep it.",
        ("modeling.py", "class MyModel(PreTrainedModel):\n    supports_gradient_checkpointing = True\n"),
        ("--include-planned",),
    ),
    Code(
        "dict-key",
        "fix",
        "warns",
        "config",
        "the old field as a key of a dict literal unpacked into TrainingArguments or a known subclass",
        "`TrainingArguments(**{'gradient_checkpointing': True})` sets the old field like a keyword does. `fix` "
        "rewrites the key; a key spelt with escapes or prefixes is reported as `info` for a person to rename.",
        (
            "train.py",
            'from transformers import TrainingArguments\n\nargs = TrainingArguments(output_dir="out", **{"gradient_checkpointing": True})\n',
        ),
    ),
    Code(
        "narrow-override",
        "hazard",
        "raises",
        "model",
        "an override of the old method whose signature cannot take what the new method passes it",
        "Since the rename, `activation_checkpointing_enable()` and the Trainer call an override of the old method "
        "with `every_n_layers=` and `offload=`: an override without them (or `**kwargs`) raises TypeError. Rename "
        "the override and widen its signature; calls on such a model are not rewritten.",
        (
            "modeling.py",
            (
                "from transformers import LlamaForCausalLM\n\n\nclass TinyLlama(LlamaForCausalLM):\n"
                "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):\n"
                "        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs=gradient_checkpointing_kwargs)\n"
            ),
        ),
    ),
    Code(
        "replaced-method",
        "hazard",
        "overrides",
        "model",
        "a call of the old method on an object whose old method was replaced on the instance",
        "The instance's old method was replaced (an assignment such as `MethodType(partial(...))`): the new method "
        "would call the replacement with arguments it may not take, so the call is not rewritten.",
        (
            "train.py",
            (
                "from functools import partial\nfrom types import MethodType\n\n"
                "from transformers import AutoModelForCausalLM\n\n\ndef enable(model, flag):\n    model.flag = flag\n\n\n"
                "model = AutoModelForCausalLM.from_pretrained('out')\n"
                "model.gradient_checkpointing_enable = MethodType(partial(enable, flag=False), model)\n"
                "model.gradient_checkpointing_enable()\n"
            ),
        ),
    ),
    Code(
        "mixin-field",
        "hazard",
        "warns",
        "pitfalls",
        "the old field passed to a training-arguments class whose mixin declares the old field itself",
        "A mixin of the class declares the old name as its own field and may read it before TrainingArguments does: "
        "renaming the keyword would change what the mixin sees. Rename the mixin's field and its reads together.",
        (
            "args.py",
            (
                "from dataclasses import dataclass\n\nfrom transformers import TrainingArguments\n\n\n@dataclass\n"
                "class Mixin:\n    gradient_checkpointing: bool = False\n\n\n@dataclass\nclass Args(Mixin, TrainingArguments):\n"
                "    pass\n\n\nargs = Args(output_dir='out', gradient_checkpointing=True)\n"
            ),
        ),
    ),
    Code(
        "replace",
        "hazard",
        "lost-write",
        "pitfalls",
        "the old field set through `dataclasses.replace` on training arguments",
        "`dataclasses.replace(args, gradient_checkpointing=True)` is silently ignored since the rename: the copy "
        "keeps the new field's value (measured). With `gradient_checkpointing_kwargs` the copy takes the value and "
        "warns. Pass the new field.",
        (
            "train.py",
            (
                "import dataclasses\n\nfrom transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out')\nargs = dataclasses.replace(args, gradient_checkpointing=True)\n"
            ),
        ),
        forms=(("gradient_checkpointing_kwargs", "warns"),),
    ),
    Code(
        "not-transformers",
        "info",
        "not-deprecated",
        "library",
        "an old name on an object that is not transformers' (a project's own class, another library's model)",
        "The object defines the name itself or comes from another library (sentence-transformers, diffusers, a "
        "`torch.nn.Module`): renaming the call would raise AttributeError, so it is left alone.",
        (
            "encoder.py",
            (
                "import torch\n\n\nclass Encoder(torch.nn.Module):\n    def gradient_checkpointing_enable(self):\n"
                "        self.checkpointing = True\n\n\nencoder = Encoder()\nencoder.gradient_checkpointing_enable()\n"
            ),
        ),
    ),
    Code(
        "class-patch",
        "hazard",
        "overrides",
        "model",
        "the old method replaced on a transformers class (a monkey-patch of transformers itself)",
        "Replacing `PreTrainedModel.gradient_checkpointing_enable` on the class changes what the old name does, but "
        "`activation_checkpointing_enable` does not go through the replacement: renaming a call would skip the patch. "
        "Patch the new method too; until then calls of the old one, in every file checked in the same run, are not "
        "rewritten (`patched-method`).",
        (
            "patches.py",
            "from transformers import PreTrainedModel\n\noriginal = PreTrainedModel.gradient_checkpointing_enable\n\n\n"
            "def patched(self, *args, **kwargs):\n    return original(self, *args, **kwargs)\n\n\n"
            "PreTrainedModel.gradient_checkpointing_enable = patched\n",
        ),
    ),
    Code(
        "patched-method",
        "hazard",
        "warns",
        "model",
        "a call of an old method that a file of the same run replaces on a transformers class",
        "Another file (or this one) replaces the old method on a transformers class (`class-patch`): the renamed call "
        "would skip that replacement, so it is not rewritten. Patch the new method too, then rename the calls.",
        (
            "train.py",
            "from transformers import AutoModelForCausalLM, PreTrainedModel\n\n\n"
            "def enable(self, *args, **kwargs):\n    self.patched = True\n\n\n"
            "PreTrainedModel.gradient_checkpointing_enable = enable\n"
            "model = AutoModelForCausalLM.from_pretrained('out')\nmodel.gradient_checkpointing_enable()\n",
        ),
    ),
    Code(
        "unparsed-fence",
        "info",
        None,
        None,
        "an old name in a Markdown code block that does not parse",
        "The fenced block does not parse as its language, so it was not checked and is never rewritten: rename by "
        "hand where needed.",
        ("README.md", "```python\nmodel.gradient_checkpointing_enable(\n```\n"),
    ),
    Code(
        "unused-ignore",
        "hazard",
        None,
        None,
        "a suppression comment that silences nothing on its line (reported with --strict-ignores)",
        "A `# checkpointing-migrate: ignore[CODE]` comment whose codes match no finding on its line: the use it "
        "was written for was fixed or moved, or a code is misspelt. It hides nothing today but would hide a new "
        "finding there; remove the comment (or its unused codes). Reported only with `--strict-ignores`.",
        ("train.py", "model.train()  # checkpointing-migrate: ignore[call]\n"),
        ("--strict-ignores",),
    ),
    Code(
        "own-reader",
        "hazard",
        None,
        "config",
        "an old key whose consumer is the project's own code (a dict it reads back, a config it loads itself)",
        "The key is set for TrainingArguments, but the project's own code reads it too: a dict read back by the old "
        "key (`cfg['gradient_checkpointing']`), a YAML or JSON file loaded with `yaml.safe_load`, `json.load` or "
        "`OmegaConf.load`, or parsed into a dataclass of the project's that declares the field. Renamed, that read "
        "raises KeyError, or `.get` gives None and checkpointing is silently off. Rename the key and its readers "
        "together.",
        (
            "train.py",
            (
                "from transformers import TrainingArguments\n\ncfg = {'output_dir': 'out'}\n"
                "cfg['gradient_checkpointing'] = True\nif cfg['gradient_checkpointing']:\n    print('on')\n"
                "args = TrainingArguments(**cfg)\n"
            ),
        ),
    ),
    Code(
        "file-error",
        "error",
        None,
        None,
        "a file that could not be checked: not text, not decodable, does not parse (it is left untouched)",
        "The file is reported with the line and column of the problem and what to do, and nothing in it is "
        "checked or rewritten. It is always reported: `--select` and `--ignore` do not take it.",
        ("train.py", "model.gradient_checkpointing_enable(\n"),
    ),
)

CODES: dict[str, Code] = {c.code: c for c in _CODES}
"""Every code, in the order `rules` lists them (the renames first, then hazards, then infos, then file errors)."""

FILE_ERROR = "file-error"
"""The code of a file that could not be checked (`findings.FileError`) in JSON, GitHub and SARIF output."""


class RegistryError(Exception):
    """A hit that the registry does not allow (a programming error): never taken for a problem of the file."""


class UnknownCode(RegistryError, KeyError):
    """A code that is not in the registry; the message suggests the nearest ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def get(code: str) -> Code:
    """The registry entry of `code`; raises `UnknownCode` (with "did you mean") for anything else."""
    try:
        return CODES[code]
    except KeyError:
        raise UnknownCode(f"unknown finding code `{code}`{suggest(code)}") from None


def suggest(code: str) -> str:
    """`; did you mean `x`?` for the nearest known codes, or a pointer to the list."""
    import difflib  # only on the way to an error message

    near = difflib.get_close_matches(code, CODES, n=2, cutoff=0.6)
    if near:
        return "; did you mean " + " or ".join(f"`{n}`" for n in near) + "?"
    return "; `rules` lists every code"


def parse_list(text: str) -> frozenset[str]:
    """The codes of a comma-separated `--select`/`--ignore` value; raises `UnknownCode` for the first unknown one."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise UnknownCode("expected one or more codes separated by commas; `rules` lists every code")
    for name in names:
        if get(name).code == FILE_ERROR:
            raise UnknownCode(
                f"`{FILE_ERROR}` cannot be selected or ignored: a file that could not be checked is always reported"
            )
    return frozenset(names)
