"""The one registry of finding codes (and of the tool's other sentences: `SHARED`, `PROBLEMS`): what each code means.

Handlers name a code and fill in its message templates (`Code.messages`: each sentence is written once); `Hit` looks
it up, so a misspelt code fails on first use (a test scans every code's example). `--select`/`--ignore`, `rules`,
`explain`, SARIF, the site's list of codes and the adoption report (for uses no probe runs) read it. A leaf module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from checkpointing_migrate.located import ToolError


class Severity(StrEnum):
    """How urgent a finding is, most urgent first (the order `--min-severity` uses); the values are the output's."""

    HAZARD = "hazard"
    """Behaviour may differ: a person must look; never rewritten."""
    FIX = "fix"
    """The tool can rewrite it (`Applicability` says when)."""
    INFO = "info"
    """Nothing to change now, or nothing the tool can be sure of."""
    ERROR = "error"
    """Only `file-error`: a file that could not be checked, not a finding."""


class Applicability(StrEnum):
    """Whether a finding's edits are applied (ruff's applicability): JSON writes `NONE` as `null`."""

    SAFE = "safe"
    """`fix --write` applies it: the file shows the receiver is the renamed transformers object."""
    UNSAFE = "unsafe"
    """Applied only with `--unsafe-fixes`: no evidence either way that the rename keeps behaviour."""
    NONE = "none"
    """Not a fix: a hazard or an info, with no edit to apply."""

    @property
    def public(self) -> str | None:
        """The value `--format json` (and the Try it page) shows."""
        return None if self is Applicability.NONE else self.value


@dataclass(frozen=True, kw_only=True)
class Code:
    """One kind of finding."""

    code: str
    """The stable name shown in brackets (`[call]`), in JSON and SARIF, and given to `--select`."""
    severity: Severity
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

    messages: Mapping[str, str] = field(default_factory=dict)
    """A finding's message templates, by form (`""` for the only one): each sentence of a code's messages is written
    here once, and `message` fills in the names. Codes without one build their messages where the evidence is."""

    reasons: Mapping[str, str] = field(default_factory=dict)
    """The short reason of the forms whose summary is not it, by form (a finding's text line shows it)."""

    def message(self, form: str = "", **names: str) -> str:
        """The message of `form` with `names` filled in (`{old}`, `{new}`, ... as the template names them)."""
        return self.messages[form].format(**names)

    @property
    def gated(self) -> bool:
        """Whether a finding may be `info` instead of its severity (every `fix` code may: see `severity`)."""
        return self.severity == Severity.FIX


EXPLAIN = (
    "{code}: {summary}\n\nseverity: {severity}\neffect on transformers releases with the rename: {effect}\n"
    "guide: {guide}\n\n{explanation}\n\nExample ({name}{scanned}):\n\n{example}"
)
"""What `explain CODE` prints: a code's entry, its example indented (`GATED_NOTE` and `NO_EFFECT` fill it in)."""

GATED_NOTE = "info when this use is not rewritten, e.g. an allowed release predates the rename"
"""What `explain` says after the severity of a code that may be reported as `info` (`Code.gated`)."""

NO_EFFECT = "not determined (the tool cannot tell what the name refers to)"
"""What `explain` says of a code whose `effect` is `None`."""

EARLY_WRITE = (
    "a write to the old training-arguments field in `__post_init__` before TrainingArguments' own, which keeps it "
    "only while the new field is unset"
)
"""The short reason of `write`'s `post-init` form (its summary says "after construction", which this write is not)."""

ESCAPED = "written with escapes: rename it by hand"
"""The short reason of a `fix` code reported as `info` because the name is spelt with escapes (a JSON or YAML string);
`unknown-program`'s escaped form ends with it."""

_WHICH_PROGRAM = (
    "cannot tell which program gets `{flag}`: rename it by hand if that program reads it with HfArgumentParser"
)
"""Why an old flag after a word the shell or a wrapper reads before the program is known is `unknown-program`'s: the
closing clause of its `evaluated` and `wrapper-option` forms."""

_ARGS_FIRST = (
    "HfArgumentParser puts this file's flags before the command line's, so renaming only the file's changes which "
    "value wins (the last of the old names now, the new name once renamed)"
)
"""Why an `.args` file's flag is no safe fix when a command line of its script gives the flag too: the closing clause
of `flag`'s `args-file-clash` and `args-file-unknown`."""

_NEW_WINS = "the new one wins and the old value is dropped without a word; remove one"
"""What both names given together do where the new one is kept: `both-names`' clause, in each form that says it."""

_MIXIN_TOGETHER = "rename the mixin's field and its reads together"
"""What to do about an old field a mixin declares: `mixin-field`'s closing clause, in each form."""

_BEFORE_OWN = "before TrainingArguments' own, which is what sets the new field from the old one"
"""When a `__post_init__` reads the old field too early: the closing clause of `early-read`, `early-pass` and
`early-unnamed`."""

_NOT_THE_METHOD = "not the deprecated method nor an override of it, so nothing is rewritten"
"""What an old name on a test double or a plain namespace is not: `not-transformers`' clause, in both forms."""

_NOT_IMPORTED = "`{callee}` is not imported from transformers or trl in this file"
"""Why a class only named like a config class is not proven training arguments: `keyword`'s and `dict-key`'s reason."""

_FIX_SYNTAX = "fix the syntax, then run again"
"""What to do about a file that does not parse: a Python file's, a `pyproject.toml`, a `setup.cfg`."""

_CODES = (
    Code(
        code="call",
        severity=Severity.FIX,
        effect="warns",
        section="script",
        summary="a call of a renamed model method",
        explanation="The method was renamed; the old one still works but warns on every call, and goes with the aliases. "
        "`fix` rewrites the call, together with the renamed keywords it passes (so `--ignore keyword` does not "
        "keep those).",
        example=(
            "train.py",
            "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': False})\n",
        ),
        messages={"": "calls `{old}()`"},  # the subject `hits.rename` extends
    ),
    Code(
        code="keyword",
        severity=Severity.FIX,
        effect="warns",
        section="config",
        summary="a renamed keyword argument of TrainingArguments, a known subclass or a renamed method",
        explanation="The keyword was renamed with its class or method; the old one still works but warns. `fix` rewrites the "
        "keyword (a keyword of a renamed method call is rewritten with the call).",
        example=(
            "train.py",
            "from transformers import TrainingArguments\n\nargs = TrainingArguments(output_dir='out', gradient_checkpointing=True)\n",
        ),
        # The subjects `hits.rename` extends: to a class or function, a method's own keyword, one renamed with its call.
        messages={
            "": "passes `{old}=` to `{callee}`",
            "method": "passes `{old}=` to `{callee}()`",
            "new-only": "passes `{old}=` to `{callee}()`, which takes only the new keyword",
            "with-call": "passes `{old}=` to `{callee}()` (renamed with it)",
            # The unsafe reason of a keyword (or a dict key) passed to a class only named like a config class.
            "not-imported": _NOT_IMPORTED + " (it may be another class of that name)",
        },
    ),
    Code(
        code="property",
        severity=Severity.FIX,
        effect="warns",
        section="script",
        summary="a read of a renamed model property",
        explanation="The property was renamed; the old one still works but warns on every read. `fix` rewrites the read.",
        example=("train.py", "print(model.is_gradient_checkpointing)\n"),
        messages={"": "reads `{old}`"},  # the subject `hits.rename` extends
    ),
    Code(
        code="flag",
        severity=Severity.FIX,
        effect="warns",
        section="config",
        summary="a renamed command-line flag given to a training script or command",
        explanation="The flag was renamed; the old spelling still parses but warns. `fix` rewrites the flag only after a "
        "program known to parse it with HfArgumentParser (a script that does, or a command such as `trl sft`); it is an unsafe "
        "fix when the script also looks for the flag among its words itself, or the command is given a `--config` file "
        "that sets the old name or cannot be read.",
        example=("run.sh", "trl sft --model_name_or_path Qwen/Qwen2-0.5B --gradient_checkpointing true\n"),
        messages={
            "gets": "`{name}` gets the flag `{flag}`{via}",
            "variable": "the shell variable `{variable}` holds the flag `{flag}`",
            "unsafe-image": "`{name}` runs inside {image}, whose files the tool cannot tell are this project's",
            "unsafe-parser": "`{name}` parses it with an HfArgumentParser, but {why}",
            # The program is also given a config file (`--config FILE`) that sets the new name (`both-names`' `to`),
            # the old one, or cannot be read: the file's key and the flag meet in one parser.
            "in-config": " (the key of `{config}`, its `--config`)",
            "unsafe-config": "`{config}`, its `--config`, sets `{old}` too: renamed, the command line and the file give "
            "TrainingArguments both names, and the new one wins; rename the key with the flag and check the value",
            "unsafe-unread": "it is also given `{config}` (`--config`), which the tool cannot read: if the file sets "
            "`{new}`, that value wins over the flag now, and loses to it once the flag is renamed",
            # The `why` of `unsafe-parser` when the script tests its words for the flag itself (`argflags.mentioned`).
            "mentioned": "it also looks for `{flag}` among its words itself (`{test}`, `{where}`): renamed, that test "
            "no longer sees it",
            # An `.args` file's flag (`argsfile`) a command line that gives the script the file gives too, or may.
            "args-file-clash": "`{where}` runs `{run}`, which gives {given} too: " + _ARGS_FIRST,
            "args-file-unknown": "`{where}` runs `{run}`, whose words the tool cannot all read (they may give `{flag}` "
            "or `{new}`): " + _ARGS_FIRST,
            "unsafe-variable": "`${variable}` is {where}, so what parses `{flag}` is not known",
            "unexpanded": "not expanded by any command in this file",
            "also-expanded": "also expanded by a command the tool cannot tell reads training flags",
            "by-hand": "quoted with escapes inside the string: rename it by hand",  # the short reason, not a message
        },
    ),
    Code(
        code="config-key",
        severity=Severity.FIX,
        effect="warns",
        section="config",
        summary="a renamed top-level key of a YAML or JSON training config",
        explanation="The key was renamed; a config with the old key still loads but warns. `fix` rewrites the key (a safe fix) "
        "only where the project shows an `HfArgumentParser` of `TrainingArguments` reading the file: a Python file that "
        "names it, or the script a launch command hands it to (`python train.py cfg.yaml` in a shell script, Makefile, "
        "workflow or README), `trl CMD --config`, or `python sft.py --config cfg.yaml` where the script's `TrlParser` reads "
        "it with `parse_args_and_config()`. With no reader proven it is an unsafe fix (`--unsafe-fixes`); a "
        "file with a key that is not a training-arguments field is `foreign-config`; a key spelt with escapes is "
        "reported as `info` for a person to rename.",
        example=("sft.yaml", "output_dir: out\ngradient_checkpointing: true\n"),
        messages={
            "": "top-level {fmt} key `{old}`",
            "read-by": "top-level {fmt} key `{old}` (read by {why})",
            # An unsafe fix's reason when nothing is shown to read the file (it may be any tool's config).
            "unproven": "no launch command or Python file of the project was found reading this file with "
            "HfArgumentParser (rename by hand if it is a TrainingArguments config)",
            # Who a launch command shows reads the file (`launchreaders`): the `why` of `read-by`, an unsafe fix or
            # `own-reader`; `at` is where the command is, with `through` the shell variables it is named by.
            "trl-config": "`{run}` ({at}), TRL's own config",
            "parser": "`{parse}` ({where})",  # a reader: the parser of training arguments that reads the file
            "run-as": "{why}, run as `{run}` ({at})",
            "runs": "{where} runs `{run}`{aside}, and {why}",
            "at-through": "{where}, through {through}",
            "aside-through": " (through {through})",
            "escaped": "the key `{old}` is " + ESCAPED,
            # `own-reader`'s subject for an old key one level down, in a file the project loads itself.
            "nested": "{fmt} key `{old}` under `{section}`",
            "unsure-parser": "{where} parses it with `{parse}`, but {why}",  # an unsafe fix's reason
        },
    ),
    Code(
        code="both-names",
        severity=Severity.HAZARD,
        effect="silent",
        section="pitfalls",
        summary="the old and the new name set together: one value is dropped",
        explanation="Given both names, TrainingArguments (its constructor, a command line, a config file) keeps the new value and "
        "drops the old one without a word; `set_training` warns and keeps the old value; `gradient_checkpointing_enable` "
        "raises TypeError, since it takes only the old keyword. Remove one of them; which one is for a person to "
        "decide.",
        example=(
            "train.py",
            (
                "from transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out', gradient_checkpointing=True, activation_checkpointing=False)\n"
            ),
        ),
        forms=(("set_training", "warns"), ("gradient_checkpointing_enable", "raises")),
        # Measured (`generator.measure.code_effects`): the constructor, a command line and a config keep the new
        # value; `set_training` the old one; an old method given both gets the keyword twice.
        messages={
            "": "{who} both `{old}` and `{new}`{to}: " + _NEW_WINS,
            "set-too": "{subject} with `{new}` set too: " + _NEW_WINS,
            "set_training": "{who} both `{old}` and `{new}`{to}: it keeps the old value (and warns) and drops the new "
            "one; remove one",
            "raises": "{who} both `{old}` and `{new}`{to}: it raises TypeError (the old one is passed on under the new "
            "name, which is then given twice); remove one",
            "new-only": "{who} both `{old}` and `{new}`{to}, which takes only the new one: it raises TypeError; remove "
            "`{old}`",
        },
    ),
    Code(
        code="write",
        severity=Severity.HAZARD,
        effect="lost-write",
        section="pitfalls",
        summary="a write to the old training-arguments field after construction, which the Trainer no longer reads",
        explanation="Since the rename the Trainer reads the new field, and a write to the old one after construction is not "
        "mirrored: it is ignored. Write the new field (releases with the rename).",
        example=(
            "train.py",
            (
                "from transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out')\nargs.gradient_checkpointing = False\n"
            ),
        ),
        messages={
            "": "writes {used} after construction{maybe}: since transformers {since} the Trainer reads `{new}` and this "
            "write is ignored; write {instead} (releases ≥ {since})",
            "post-init": "writes {used} in `__post_init__` before TrainingArguments' own{maybe}: since transformers "
            "{since} that copies it to `{new}` (with a FutureWarning) only while `{new}` is `None`, so a caller that "
            "passes `{new}=` has this write ignored; write {instead} (releases ≥ {since})",
        },
    ),
    Code(
        code="read",
        severity=Severity.INFO,
        effect="silent",
        section="pitfalls",
        summary="a read of the old training-arguments field (a silent mirror of the new one)",
        explanation="The old field mirrors the new one when it is read, without a warning, until the aliases are removed. "
        "Nothing breaks now; read the new field once every supported release has it.",
        example=(
            "train.py",
            (
                "from transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out')\nprint(args.gradient_checkpointing)\n"
            ),
        ),
        messages={
            "": "reads {used}{maybe}: a silent mirror of `{new}` since transformers {since} (a write to the old field is "
            "not mirrored), removed in {removal}",
            "dict": "reads the key `{old}` of `{source}`{maybe}: since transformers {since} the dict holds both `{old}` "
            "and `{new}` (measured), the old one with the value given at construction (a later write of `{new}` is not "
            "in it); a KeyError once the old field goes in {removal}; read `{new}`",
        },
    ),
    Code(
        code="dead-write",
        severity=Severity.INFO,
        effect="dead",
        section="pitfalls",
        summary="a write to the old field in a branch that only runs on releases before the rename",
        explanation="The branch runs only on releases where the old field is the real one, so the write is right there. "
        "Nothing to change until the branch is removed.",
        example=(
            "train.py",
            (
                "import transformers\nfrom packaging.version import Version\n\n\ndef setup(args):\n"
                "    if Version(transformers.__version__) < Version('5.23.0'):\n"
                "        args.gradient_checkpointing = True\n"
            ),
        ),
        messages={
            "": "writes `{receiver}.{old}` only on transformers older than {dead}, where the old field is the real one: "
            "nothing to change until that branch goes",
        },
    ),
    Code(
        code="subclass-default",
        severity=Severity.HAZARD,
        effect="warns",
        section="pitfalls",
        summary="a TrainingArguments subclass that declares the old field",
        explanation="Declaring the old field gives it a default, so every instance warns, even when nobody sets it. Declare "
        "the new field instead.",
        example=(
            "args.py",
            (
                "from transformers import TrainingArguments\n\n\nclass MyArguments(TrainingArguments):\n"
                "    gradient_checkpointing: bool = True\n"
            ),
        ),
        messages={
            "": "class `{cls}` declares the deprecated field `{old}`: every instance warns on transformers ≥ {since}, "
            "even when nobody sets it; declare `{new}` instead",
        },
    ),
    Code(
        code="override",
        severity=Severity.HAZARD,
        effect="overrides",
        section="model",
        summary="a model class that overrides the old method",
        explanation="An override of the old method stays the entry point until the old name is removed (the new method calls "
        "it, and it warns when it calls up). A class outside transformers that only defines the old method is "
        "called by the Trainer's fallback with `every_n_layers=` and `offload=`: without them (or `**kwargs`) that is "
        "a TypeError already, not a warning until v6. Override the new method instead.",
        example=(
            "modeling.py",
            (
                "from transformers import PreTrainedModel\n\n\nclass MyModel(PreTrainedModel):\n"
                "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):\n"
                "        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs, **kwargs)\n"
            ),
        ),
        # The subject (a class of transformers', or another library's), then what the Trainer's fallback does with a
        # class that defines only the old method: `warns` opens it, `inherits` only for a transformers class.
        messages={
            "": "class `{cls}` overrides `{old}`: it stays the entry point until {removal} (`{new}` calls it, and it "
            "warns when it calls up); override `{new}` instead",
            "foreign": "{why} (not a transformers model), and has no `{new}`",
            "inherits": "if `{cls}` does not inherit `{new}` (it is not a `{owner}`), ",
            "warns": "; {inherits}the {who} warns `{category}: {text}` and ",
            "refuses": "{warns}calls it with {keywords}, but it {refuses}: a TypeError on transformers ≥ {since}, not "
            "something that keeps working until {removal}; define `{new}`, or add `**kwargs`",
            "fallback": "{warns}calls it (with {keywords}) until {removal}; define `{new}` as well",
            # A class with no transformers base that this module lists before a transformers model among a class's
            # bases (`class M(Narrow, LlamaForCausalLM)`): `subject` is `SHARED["base-of-models"]`.
            "base": "{subject}: it stays the entry point until {removal} (`{new}` calls it, and it warns when it calls "
            "up); override `{new}` instead",
            # An override of the old property: the new property is transformers' own, it reads nothing of the old one.
            "property": "class `{cls}` overrides the property `{old}`, which `{new}` does not read: a read renamed to "
            "`{new}` skips the override (transformers' `{old}` reads `{new}`, not the other way round); override "
            "`{new}` instead",
            "assigned": "class `{cls}` assigns `{old}` in its body: the function stays the entry point until {removal} "
            "(`{new}` calls it with {keywords}, so it must take them); define `{new}` instead",
        },
    ),
    Code(
        code="instance-override",
        severity=Severity.HAZARD,
        effect="overrides",
        section="model",
        summary="a function assigned to the old method on an instance or a class",
        explanation="A function assigned to the old name replaces the deprecated method and stays the entry point until the "
        "old name is removed (it runs, and warns, when the new method is called). Wrap the new method instead.",
        example=("patch.py", "model.gradient_checkpointing_enable = lambda **kwargs: None\n"),
        messages={
            "": "assigns to `{old}` on an instance: the function replaces the deprecated method and stays the entry point "
            "until {removal} (it runs, and warns, when `{new}` is called{keywords}, so it must accept them); wrap "
            "`{new}` instead",
            # On a project's model class (`Tiny.old = fn`, `setattr(Tiny, "old", fn)`): every instance's method.
            "class": "replaces `{old}` on the class `{cls}` (all its instances): like an override, the function stays "
            "the entry point until {removal} (`{new}` calls it{keywords}); override `{new}` in `{cls}` instead",
            # On the class a class decorator or `__init_subclass__` is given (`cls.old = fn`): `holds` says which.
            "class-param": "replaces `{old}` on `{receiver}`, {holds} (all its instances): like an override, the "
            "function stays the entry point until {removal} (`{new}` calls it{keywords}); override `{new}` instead",
            "decorated": "the class the decorator `{func}` is given",
            "init-subclass": "each subclass of `{cls}`, in its `__init_subclass__`",
        },
    ),
    Code(
        code="reference",
        severity=Severity.HAZARD,
        effect="silent",
        section="library",
        summary="a reference to the old method without a call",
        explanation="Referring to the old method is silent now and an AttributeError once it is removed; the new method has a "
        "different signature, so check what the reference is used for.",
        example=(
            "inspect_it.py",
            "import inspect\n\nsignature = inspect.signature(model.gradient_checkpointing_enable)\n",
        ),
        messages={
            "": "refers to `{old}` without calling it (silent now, an AttributeError in {removal}); `{new}` has a "
            "different signature{takes}, so check what the reference is used for{note}",
            # `note`: where the project's own flag was looked for, on a name that may hold a parsed command line.
            "flag-note": "; if `{receiver}` is a parsed command line, no `add_argument('--{dest}')` declares it in "
            "{where}",
        },
    ),
    Code(
        code="string-lookup",
        severity=Severity.HAZARD,
        effect="warns",
        section="library",
        summary="the old method or property looked up by string (`getattr`, `hasattr`, `setattr`)",
        explanation="Looking up the old property by string (`getattr`, `hasattr`) reads it, so it warns like a read; looking "
        "up the old methods is silent (nothing is called); `setattr` of the property raises AttributeError (it has "
        "no setter). The string cannot be rewritten safely. Test `hasattr(type(model), NEW)` and use the new name.",
        example=("probe.py", "if getattr(model, 'is_gradient_checkpointing', False):\n    pass\n"),
        forms=(
            ("hasattr of the property", "warns"),
            ("getattr or hasattr of a method", "silent"),
            ("setattr of the property", "raises"),
        ),
        messages={
            "": "looks up `{old}` by string with `{function}` ({effect}); test `hasattr(type(model), '{new}')` and use "
            "the new name",
            # The `effect` of the lookup, by what it looks up (measured: see `forms`).
            "setattr-property": "on a transformers model this raises AttributeError: the property has no setter",
            "setattr-method": "this assigns a method under the old name, an instance override: `explain "
            "instance-override`",
            "property": "on a transformers model this warns like a direct use",
            "method": "this does not warn, only a call does; it fails once `{old}` is removed in {removal}",
        },
    ),
    Code(
        code="kwargs-unpacked",
        severity=Severity.HAZARD,
        effect="warns",
        section="library",
        summary="an old name next to `**` unpacking, which may pass the other spelling too",
        explanation="With `**kwargs` in the call, the tool cannot see every keyword: the unpacked ones may hold the old or the "
        "new name, so a rewrite could drop a value or raise a duplicate-keyword error. Check what is unpacked.",
        example=(
            "train.py",
            (
                "kwargs = {'gradient_checkpointing_kwargs': {'use_reentrant': False}}\n"
                "model.gradient_checkpointing_enable(**kwargs)\n"
            ),
        ),
        messages={
            "dict": "passes `{old}` to `{callee}` in a dict that also unpacks {unpacked}, which may hold `{new}` "
            "(`to_dict()` does): then the new one wins and this value is dropped without a word; set `{new}` instead",
            "keyword": "passes `{old}=` to `{callee}` next to `**` unpacking, which may set `{new}` too (then the new one "
            "wins, or the rename makes it a duplicate keyword)",
            "call": "calls `{old}` with `**` unpacking, which may pass `{kwarg}`: `{new}` accepts only `{takes}`",
        },
    ),
    Code(
        code="shared-name",
        severity=Severity.HAZARD,
        effect="not-deprecated",
        section="library",
        summary="an old method name that another imported library also uses for its own (not deprecated) API",
        explanation="The file imports a library whose own API has a member of this name (diffusers, for instance). Rename it "
        "only where the object is a transformers model.",
        example=("pipeline.py", "import diffusers\n\nprint(unet.is_gradient_checkpointing)\n"),
        messages={
            "": "`{old}` is also the (not deprecated) name in {libs}, which this file imports: rename it only where the "
            "object is a transformers model",
            "defines": "class `{cls}` defines `{old}`, also the (not deprecated) name in {libs}: check which API this "
            "class implements",
        },
    ),
    Code(
        code="unknown-callee",
        severity=Severity.INFO,
        effect=None,
        section="config",
        summary="an old keyword passed to a call the tool does not know",
        explanation="The callee is not TrainingArguments, a known subclass or a renamed method, so the keyword may belong to "
        "another API. Rename it by hand if the callee forwards it to transformers.",
        example=("train.py", "config = build_config(gradient_checkpointing=True)\n"),
        messages={
            "": "keyword `{old}=` of `{callee}(...)`, which is not TrainingArguments, a known subclass or a model method: "
            "not rewritten",
            "escape": "sets `{old}` in {place}, and {why}, which the tool does not follow: rename it by hand if it "
            "reaches TrainingArguments (with `**`) and nothing else reads the old key",
            # The `why` of `escape` (`dictflow`): where the dict leaves its scope.
            "returned": "`{name}` is returned at {at}",
            "passed": "`{name}` is passed to `{callee}` at {at}",
        },
    ),
    Code(
        code="own-flag",
        severity=Severity.INFO,
        effect="not-deprecated",
        section="config",
        summary="a flag the script defines itself with `add_argument`",
        explanation="The script declares this flag with argparse, so it is the script's own option, not the TrainingArguments "
        "flag: it is not rewritten. Read back off the parsed namespace under its dest (`args.model."
        "gradient_checkpointing_enable` for `--model.gradient_checkpointing_enable`, declared in any Python file of "
        "the project), it is that option, not the transformers method; so is a field of a dataclass of the project's "
        "(`model_args.gradient_checkpointing_enable` for `gradient_checkpointing_enable: bool` in the dataclass an "
        "HfArgumentParser fills).",
        example=(
            "cli.py",
            "import argparse\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--gradient_checkpointing', action='store_true')\n",
        ),
        messages={
            "field": "this file declares a dataclass field `{field}`, which HfArgumentParser turns into `{flag}`: it may "
            "be the file's own flag, not TrainingArguments', so it is not rewritten",
            "add_argument": "{who} defines its own `{flag}` with `add_argument`: not the TrainingArguments flag, not rewritten",
            "abbreviated": "{who} defines `{option}` with `add_argument`, which takes `{flag}` by argparse's prefix "
            "matching (`allow_abbrev`), so `{flag}` never reaches TrainingArguments: the script's own flag, not rewritten",
            "ambiguous": "{who} defines {options} with `add_argument`, each of which `{flag}` abbreviates, so argparse's "
            "prefix matching (`allow_abbrev`) stops on it as ambiguous and it never reaches TrainingArguments: not "
            "rewritten",
            "takes-new": "{who} defines {options} with `add_argument`, which `{new}` abbreviates: renamed, the flag "
            "would be taken by that option (argparse's prefix matching, `allow_abbrev`) and never reach "
            "TrainingArguments, so it is not rewritten; rename or drop the script's option first",
            "dataclass": "{who} declares its own dataclass field `{field}`: its HfArgumentParser may read `{flag}` into "
            "that dataclass, not TrainingArguments (renaming it would be refused as an unused argument), so it is not "
            "rewritten",
            "parsed": "{who} parses its arguments into the project's own dataclass: {why}, so its HfArgumentParser "
            "reads `{flag}` into that dataclass, not TrainingArguments (renaming it would be refused as an unused "
            "argument); it is not rewritten",
            "namespace": "{who} `{use}`, the project's own flag `{flag}` (`add_argument` at {where}), "
            "not the transformers method, so it is not rewritten",
            "field-namespace": "{who} `{use}`, a field of the project's own dataclass `{cls}` ({where}; "
            "HfArgumentParser's flag `{flag}`), not the transformers method, so it is not rewritten",
        },
        reasons=dict.fromkeys(
            ("field", "dataclass", "parsed", "field-namespace"),
            "a field of the project's own dataclass, not TrainingArguments'",
        ),
    ),
    Code(
        code="unknown-program",
        severity=Severity.INFO,
        effect=None,
        section="config",
        summary="an old flag given to a program the tool cannot check",
        explanation="The program was not found from here, or does not parse its arguments with HfArgumentParser, so the tool "
        "cannot tell whether the flag is the TrainingArguments one. Rename it by hand if it is.",
        example=("run.sh", "python missing_script.py --gradient_checkpointing true\n"),
        messages={
            "": "cannot tell whether `{name}` reads `{flag}` with HfArgumentParser (it was not found from here, or does "
            "not use it): rename it by hand if it does",
            "escaped": "{subject}, " + ESCAPED,
            "variable": "`{flag}` is given to `{name}`, a program the shell knows only when it runs (a variable, a "
            "loop's variable, a function's arguments), so the tool cannot tell whether it reads `{flag}` with "
            "HfArgumentParser: rename it by hand if it does",
            "evaluated": "`{flag}` comes after `{name}` in the command line `eval` runs, which the shell reads only once "
            "`{name}` is expanded (its value may name the program, start another command or a comment), so the tool "
            + _WHICH_PROGRAM,
            "wrapper-option": "`{flag}` comes after `{option}`, an option of `{wrapper}` the tool does not follow (it "
            "may take a value or change what runs), so the tool " + _WHICH_PROGRAM,
        },
    ),
    Code(
        code="string",
        severity=Severity.INFO,
        effect=None,
        section="config",
        summary="an old flag inside a string that is not an argument list the tool can place",
        explanation="The flag is part of a string (a command line being built, a help text): rename it by hand if a "
        "TrainingArguments parser reads it.",
        example=("launch.py", "command = 'python train.py --gradient_checkpointing true'\n"),
        messages={
            "": "the flag `{flag}` inside a string: rename it by hand if a TrainingArguments parser reads it",
        },
    ),
    Code(
        code="foreign-config",
        severity=Severity.INFO,
        effect="not-deprecated",
        section="config",
        summary="an old key in a config that belongs to another tool",
        explanation="Some top-level key is not a training-arguments field, so the file may be another tool's config (Axolotl's "
        "has its own `gradient_checkpointing` key): it is not rewritten.",
        example=("axolotl.yaml", "base_model: Qwen/Qwen2-0.5B\ngradient_checkpointing: true\n"),
        messages={
            "": "not rewritten: `{key}` is not a field of TrainingArguments or a TRL config, so this {fmt} file may "
            "belong to another tool with its own `{old}` key",
        },
    ),
    Code(
        code="asserts-warning",
        severity=Severity.INFO,
        effect="warns",
        section="script",
        summary="an old name inside a test that expects its deprecation warning (`pytest.warns`, `assertWarns`)",
        explanation="The use is inside `with pytest.warns(...)`, `pytest.deprecated_call()`, "
        "`warnings.catch_warnings(record=True)` or `self.assertWarns(...)` (or passed to the call form of one of "
        'them): the test exists to check that the old name warns, and renamed it would fail ("DID NOT WARN"). It '
        "is not rewritten; remove the test when the old name is removed.",
        example=(
            "test_alias.py",
            (
                "import pytest\nfrom transformers import AutoModelForCausalLM\n\n\ndef test_alias():\n"
                "    model = AutoModelForCausalLM.from_pretrained('out')\n"
                "    with pytest.deprecated_call():\n        model.gradient_checkpointing_enable()\n"
            ),
        ),
        messages={
            "": "`{old}` inside `{helper}`, which expects the warning the old name gives: a test of the deprecation, "
            "so it is not rewritten (renamed, it would not warn); remove the test when `{old}` is removed",
        },
    ),
    Code(
        code="not-renamed",
        severity=Severity.INFO,
        effect="not-deprecated",
        section="model",
        summary="a name the table lists as planned: not renamed in any release yet (with `--include-planned`)",
        explanation="The alias table lists this name as a planned rename that no release has shipped: keep it.",
        example=("modeling.py", "class MyModel(PreTrainedModel):\n    supports_gradient_checkpointing = True\n"),
        args=("--include-planned",),
        messages={"": "`{old}` ({owners}) is not renamed in any release yet: keep it"},
    ),
    Code(
        code="dict-key",
        severity=Severity.FIX,
        effect="warns",
        section="config",
        summary="the old field as a key of a dict literal unpacked into TrainingArguments or a known subclass",
        explanation="`TrainingArguments(**{'gradient_checkpointing': True})` sets the old field like a keyword does. `fix` "
        "rewrites the key; a key spelt with escapes or prefixes is reported as `info` for a person to rename.",
        example=(
            "train.py",
            'from transformers import TrainingArguments\n\nargs = TrainingArguments(output_dir="out", **{"gradient_checkpointing": True})\n',
        ),
        messages={
            "literal-escaped": "passes `{old}` to `{callee}` as a dict key spelled with escapes or prefixes: rename it "
            "by hand",
            "passed": "sets `{old}` in {place}, which {at} passes to `{consumer}`",
            "escaped": "{subject}, as a key spelled with escapes or prefixes: rename it by hand",
            "unpacked": "passes `{old}` to `{callee}` through `**{{...}}`",
            "parse-dict": "passes `{old}` to `{callee}`",
            # An unsafe fix's reasons (`dictflow`): the dict's consumer is only maybe training arguments.
            "not-parser": "`{callee}` is not shown to be an HfArgumentParser built from TrainingArguments",
            "not-in-file": "`{cls}` is not in this file: it may declare `{old}` itself",
            "library-declares": "`{cls}` declares `{old}` itself (measured in {library} {release})",
            "not-imported": _NOT_IMPORTED,
            "also-unpacked": "`{name}` is also unpacked into `{callee}` ({at}), which is not TrainingArguments",
            "also-used": "`{name}` is also used at {at} (`{use}`), which may read the old key",
            # `passed`'s and `unknown-callee`'s escape form's `place`: the construct that sets the key (`dictflow`).
            "place-literal": "`{name} = {{...}}`",
            "place-call": "`{name} = dict(...)`",
            "place-store": "`{name}[...] = ...`",
        },
    ),
    Code(
        code="narrow-override",
        severity=Severity.HAZARD,
        effect="raises",
        section="model",
        summary="an override of the old method whose signature cannot take what the new method passes it",
        explanation="Since the rename, `activation_checkpointing_enable()` and the Trainer call an override of the old method "
        "with `every_n_layers=` and `offload=`: an override without them (or `**kwargs`) raises TypeError. Rename "
        "the override and widen its signature; calls on such a model are not rewritten.",
        example=(
            "modeling.py",
            (
                "from transformers import LlamaForCausalLM\n\n\nclass TinyLlama(LlamaForCausalLM):\n"
                "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):\n"
                "        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs=gradient_checkpointing_kwargs)\n"
            ),
        ),
        messages={
            "call": "{subject}: not rewritten, {why}: since transformers {since}, `{enable}()` (which the Trainer calls) "
            "calls such an override with {keywords} and raises TypeError (measured), so renaming calls on it breaks "
            "them; give the override `**kwargs`, or override the new name",
            "read": "{subject}: not rewritten, {why}: reading `{new}` would skip the override; override the new name "
            "first",
            "": "class `{cls}` overrides `{old}`, which {narrow}: since transformers {since}, `{new}()` (which the "
            "Trainer calls) calls the override with {keywords}, which raises TypeError (measured); add `**kwargs` "
            "(passing them up), or override `{new}` instead",
            "base": "{subject}, and it {narrow}: since transformers {since}, `{new}()` (which the Trainer calls) calls "
            "the override with {keywords}, which raises TypeError (measured); add `**kwargs` (passing them up), or "
            "override `{new}` instead",
        },
    ),
    Code(
        code="replaced-method",
        severity=Severity.HAZARD,
        effect="overrides",
        section="model",
        summary="a call of the old method on an object whose old method was replaced on the instance",
        explanation="The instance's old method was replaced (an assignment such as `MethodType(partial(...))`): the new method "
        "would call the replacement with arguments it may not take, so the call is not rewritten.",
        example=(
            "train.py",
            (
                "from functools import partial\nfrom types import MethodType\n\n"
                "from transformers import AutoModelForCausalLM\n\n\ndef enable(model, flag):\n    model.flag = flag\n\n\n"
                "model = AutoModelForCausalLM.from_pretrained('out')\n"
                "model.gradient_checkpointing_enable = MethodType(partial(enable, flag=False), model)\n"
                "model.gradient_checkpointing_enable()\n"
            ),
        ),
        messages={
            "": "{subject}: not rewritten, `{receiver}.{old}` is replaced on the instance in this file: since transformers "
            "{since} the new name calls that function{keywords}, a TypeError unless it accepts them (measured); keep the "
            "old name until the replacement wraps `{new}` instead",
        },
    ),
    Code(
        code="mixin-field",
        severity=Severity.HAZARD,
        effect="warns",
        section="pitfalls",
        summary="the old field passed to a training-arguments class that declares either field itself, or uses one "
        "before TrainingArguments' `__post_init__`",
        explanation="A mixin of the class declares the old name as its own field and may read it before TrainingArguments does: "
        "renaming the keyword would change what the mixin sees. Rename the mixin's field and its reads together. "
        "TrainingArguments takes the old value only while the new field is `None`: a class that declares the new "
        "field with a default ignores the old keyword, and a `__post_init__` that writes either field before "
        "TrainingArguments' own decides which one is kept, so there too renaming the keyword changes the value.",
        example=(
            "args.py",
            (
                "from dataclasses import dataclass\n\nfrom transformers import TrainingArguments\n\n\n@dataclass\n"
                "class Mixin:\n    gradient_checkpointing: bool = False\n\n\n@dataclass\nclass Args(Mixin, TrainingArguments):\n"
                "    pass\n\n\nargs = Args(output_dir='out', gradient_checkpointing=True)\n"
            ),
        ),
        messages={
            "dict": "passes `{old}` to `{callee}`, but {why}: " + _MIXIN_TOGETHER,
            "new-field": "passes `{old}` to `{callee}`, but {why}: its default wins over the old keyword, which "
            "TrainingArguments takes only while the new field is `None`, so renaming it here makes a value the class "
            "ignores now take effect; drop it, or rename it knowing that",
            "written": "passes `{old}` to `{callee}`, but {why}: which value TrainingArguments keeps then depends on "
            "the keyword's name, so renaming it here may change the value; rename that write and the keyword together",
            "": "passes `{old}=` to `{callee}`, but {why}: renaming it here leaves that field at its "
            "default, so code that reads it (e.g. before TrainingArguments' `__post_init__`) sees another value; "
            + _MIXIN_TOGETHER,
        },
    ),
    Code(
        code="replace",
        severity=Severity.HAZARD,
        effect="lost-write",
        section="pitfalls",
        summary="the old field set through `dataclasses.replace` on training arguments",
        explanation="`dataclasses.replace(args, gradient_checkpointing=True)` is silently ignored since the rename: the copy "
        "keeps the new field's value (measured). With `gradient_checkpointing_kwargs` the copy takes the value and "
        "warns. Pass the new field.",
        example=(
            "train.py",
            (
                "import dataclasses\n\nfrom transformers import TrainingArguments\n\n"
                "args = TrainingArguments(output_dir='out')\nargs = dataclasses.replace(args, gradient_checkpointing=True)\n"
            ),
        ),
        forms=(("gradient_checkpointing_kwargs", "warns"),),
        messages={
            "": "`{callee}({copied}, {old}=...)` is silently ignored on transformers ≥ {since} (measured): the copy keeps "
            "`{new}` from `{copied}`; pass `{new}=` (or both names while releases before {since} are supported)",
        },
    ),
    Code(
        code="not-transformers",
        severity=Severity.INFO,
        effect="not-deprecated",
        section="library",
        summary="an old name on an object that is not transformers' (a project's own class, another library's model)",
        explanation="The object defines the name itself or comes from another library (sentence-transformers, diffusers, a "
        "`torch.nn.Module`): renaming the call would raise AttributeError, so it is left alone. An attribute read or "
        "set on a test double (`MagicMock()`, and every attribute of one) or a plain namespace (`SimpleNamespace`) is "
        "not the method either, and setting it is no override.",
        example=(
            "encoder.py",
            (
                "import torch\n\n\nclass Encoder(torch.nn.Module):\n    def gradient_checkpointing_enable(self):\n"
                "        self.checkpointing = True\n\n\nencoder = Encoder()\nencoder.gradient_checkpointing_enable()\n"
            ),
        ),
        messages={
            "call": "{subject} on `{receiver}`, which is not a transformers model ({why}): its `{old}` is not the "
            "deprecated one, so it is not rewritten",
            "args": "passes `{old}` to `{callee}`, which is not training arguments ({why}): not rewritten",
            "object": "passes `{old}` to `{callee}()` of an object that is not training arguments ({why}): not rewritten",
            "defines": "{why}, not a transformers model: its own `{old}` is not the deprecated method, so nothing is "
            "renamed",
            "mock": "{who} `{old}` on a test double ({holds}): a mock's attribute, " + _NOT_THE_METHOD + "; where the "
            "double stands in for a model, rename it together with the code it tests",
            "namespace": "{who} `{old}` on a plain namespace ({holds}): an attribute the code puts there, "
            + _NOT_THE_METHOD,
        },
    ),
    Code(
        code="class-patch",
        severity=Severity.HAZARD,
        effect="overrides",
        section="model",
        summary="the old method replaced on a transformers class (a monkey-patch of transformers itself)",
        explanation="Replacing `PreTrainedModel.gradient_checkpointing_enable` on the class changes what the old name does, but "
        "`activation_checkpointing_enable` does not go through the replacement: renaming a call would skip the patch. "
        "Patch the new method too; until then calls of the old one, in every file checked in the same run, are not "
        "rewritten (`patched-method`).",
        example=(
            "patches.py",
            "from transformers import PreTrainedModel\n\noriginal = PreTrainedModel.gradient_checkpointing_enable\n\n\n"
            "def patched(self, *args, **kwargs):\n    return original(self, *args, **kwargs)\n\n\n"
            "PreTrainedModel.gradient_checkpointing_enable = patched\n",
        ),
        messages={
            "": "replaces `{patched}` on the class: `{new}` does not go through the replacement, so a call renamed to "
            "`{new}`, in any file, would skip it; patch `{new}` too, then rename the calls (until then the calls of "
            "`{old}` in the files checked with this one are not rewritten)",
        },
    ),
    Code(
        code="patched-method",
        severity=Severity.HAZARD,
        effect="warns",
        section="model",
        summary="a call of an old method that a file of the same run replaces on a transformers class",
        explanation="Another file (or this one) replaces the old method on a transformers class (`class-patch`): the renamed call "
        "would skip that replacement, so it is not rewritten. Patch the new method too, then rename the calls.",
        example=(
            "train.py",
            "from transformers import AutoModelForCausalLM, PreTrainedModel\n\n\n"
            "def enable(self, *args, **kwargs):\n    self.patched = True\n\n\n"
            "PreTrainedModel.gradient_checkpointing_enable = enable\n"
            "model = AutoModelForCausalLM.from_pretrained('out')\nmodel.gradient_checkpointing_enable()\n",
        ),
        messages={
            "": "`{old}` is replaced on a transformers class at {where}, and `{new}` does not go through that "
            "replacement: not rewritten; patch `{new}` too, then rename. See {link}",
        },
    ),
    Code(
        code="unparsed-fence",
        severity=Severity.INFO,
        effect=None,
        section=None,
        summary="an old name in a Markdown code block that does not parse",
        explanation="The fenced block does not parse as its language, so it was not checked and is never rewritten: rename by "
        "hand where needed.",
        example=("README.md", "```python\nmodel.gradient_checkpointing_enable(\n```\n"),
        messages={
            "": "this ```{language} block does not parse ({error}), so it was not checked: rename by hand where needed"
        },
    ),
    Code(
        code="unused-ignore",
        severity=Severity.HAZARD,
        effect=None,
        section=None,
        summary="a suppression comment that silences nothing on its line (reported with --strict-ignores)",
        explanation="A `# checkpointing-migrate: ignore[CODE]` comment whose codes match no finding on its line: the use it "
        "was written for was fixed or moved, or a code is misspelt. It hides nothing today but would hide a new "
        "finding there; remove the comment (or its unused codes). Reported only with `--strict-ignores`.",
        example=("train.py", "model.train()  # checkpointing-migrate: ignore[call]\n"),
        args=("--strict-ignores",),
        # `line`, or `codes` with `all` or `some` as `which`, is the finding's `why`; `unknown` adds the registry's
        # word on a misspelt code (`suppress.Suppressions.unused`).
        messages={
            "": "{why} (--strict-ignores)",
            "line": "silences nothing on this line; remove it",
            "codes": "{named} silence{s} nothing on this line; remove {which}",
            "all": "the comment",
            "some": "them from the comment",
            "unknown": "{why} ({unknown})",
        },
    ),
    Code(
        code="own-reader",
        severity=Severity.HAZARD,
        effect=None,
        section="config",
        summary="an old key whose consumer is the project's own code (a dict it reads back, a config it loads itself)",
        explanation="The key is set for TrainingArguments, but the project's own code reads it too: a dict read back by the old "
        "key (`cfg['gradient_checkpointing']`), a YAML or JSON file loaded with `yaml.safe_load`, `json.load` or "
        "`OmegaConf.load`, or parsed into a dataclass of the project's that declares the field. Renamed, that read "
        "raises KeyError, or `.get` gives None and checkpointing is silently off. Rename the key and its readers "
        "together.",
        example=(
            "train.py",
            (
                "from transformers import TrainingArguments\n\ncfg = {'output_dir': 'out'}\n"
                "cfg['gradient_checkpointing'] = True\nif cfg['gradient_checkpointing']:\n    print('on')\n"
                "args = TrainingArguments(**cfg)\n"
            ),
        ),
        # `loads` and `dataclass`: the `why` of a config file the project reads itself (`configreaders`); `read-back`
        # of a dict read back by the old key, `declares` of one parsed into the project's dataclass (`dictflow`).
        messages={
            "": "{subject}: not rewritten, {why}",
            "loads": "{where} loads this file with `{callee}` and the project's code reads its keys itself: renamed, "
            "a read of `{old}` raises KeyError (or `.get` gives None: checkpointing silently off); rename the key and "
            "its reads together",
            "dataclass": "{where} parses this file with `{parse}` into the project's own dataclass: {why}, so the key "
            "is its field, not TrainingArguments'; renamed, the parser raises ValueError (`Some keys are not used by "
            "the HfArgumentParser`, measured)",
            "declares": "`{cls}` declares `{old}` itself",
            "read-back": "{where} reads it back by the old key (`{read}`): renamed here, that read raises KeyError "
            "(`.get` gives None: checkpointing silently off); rename the reads with it",
            # The `where` of `read-back` in another module that imports the dict (`at`: `SHARED["file-line"]`).
            "file": "{at}, which imports it,",
        },
    ),
    Code(
        code="file-error",
        severity=Severity.ERROR,
        effect=None,
        section=None,
        summary="a file that could not be checked: not text, not decodable, does not parse (it is left untouched)",
        explanation="The file is reported with the line and column of the problem and what to do, and nothing in it is "
        "checked or rewritten. It is always reported: `--select` and `--ignore` do not take it.",
        example=("train.py", "model.gradient_checkpointing_enable(\n"),
        messages={
            # What is wrong with a file that does not parse (a `ParseError`'s message), before where it is.
            "yaml": "not valid YAML: {error}",
            "json": "not valid JSON: {error}",
            "nesting": "nested deeper than {levels} levels",
            "python": "does not parse as Python: {error}; " + _FIX_SYNTAX,
            "toml": "does not parse as TOML: {error}; " + _FIX_SYNTAX,  # a pyproject.toml or uv.toml
            "ini": "does not parse as INI: {error}; " + _FIX_SYNTAX,  # a setup.cfg
            "notebook-json": "not a valid notebook (JSON): {error}",
            "notebook": 'not a notebook: no "cells" list at the top level',
            "cell": "code cell {cell} does not parse as Python: {error}",
            "launch-json": "not a valid launch.json (JSON with comments): {error}",
            "special": "not a regular file{what}; skipped: only regular files are read",  # what: ` (a FIFO)` or none
            # A file that could not be read or decoded, or whose rewrite was refused (`files.read`, `files.check_data`).
            # A folder the walk cannot enter (`discover`): its files are not checked.
            "unlistable": "cannot list this folder: {error}; its files were not checked",
            "too-nested": "folder nested more than {levels} levels below {top}; not checked: pass it (or a folder above "
            "it) as its own PATH",
            "dangling-link": "a symbolic link to `{target}`, which does not exist: fix or remove the link",
            "unreadable": "cannot read: {error}; check its permissions, or leave it out",
            "too-big": "{size}, over the {limit} limit; skipped: pass --max-file-size {megabytes}MB (or more) to check it",
            "undecodable": "cannot be decoded ({error}); save it as UTF-8 (or declare its encoding)",
            "not-code": "{error}; pass only code, config, script and Markdown files",
            "rewrite-breaks": "the rewrite would not parse ({error}); nothing was written. Please report this file",
            "too-deep": "nested too deeply to check (beyond Python's recursion limit); nothing was changed: simplify it "
            "or leave it out",
            "unknown-kind": "cannot tell what kind of file this is, so it was not checked: known are {known}; add a `#!` "
            "line or rename it with a suffix, or leave it out of the PATHs",
            # `fix --add-ignore` (`annotate`): where it adds no comment, and why.
            "no-ignore": "no ignore comment added for [{silenced}]: {why}; use `per-file-ignores` or edit it by hand",
            "no-ignore-kind": "a comment cannot be added to a {kind} file's line",
            "no-ignore-block": "the line is the content of a block scalar or a heredoc",
            "ignore-breaks": "adding the comments would break the file ({error}); none added",
        },
    ),
)

SHARED: Mapping[str, str] = {
    # Where a thing is, inside other sentences: a line of this file, of another, a class at its line.
    "line": "line {line}",
    "cell-line": "line {line} of cell {cell}",
    "in-file": "{where} in {file}",
    # A line of another module of the project as an editor opens it (`dictflow`: where a module-level dict is used).
    "file-line": "`{file}:{line}`",
    "class-at": "`{cls}`, line {line}",
    "listed-class": "`{cls}` (line {line})",
    "with-keywords": " with {keywords}",
    # Where a command runs, when not on the machine that runs the file (the reason a fix there is unsafe).
    "container-image": "the container image `{image}`",
    "container-service": "the container of the service `{service}`",  # what the new enable method passes an override, only that one
    "fix": "{what}, {deprecation}: use `{new}`",
    "unsafe": "{fix}; unsafe fix: {unsafe}, so it is applied only with --unsafe-fixes",  # `fix`: the line above
    "defines-too": "{why}, and defines `{old}` itself: the new name calls that override with {keywords}, and the "
    "tool cannot show that it passes them on",  # an unsafe fix's reason
    "overridden": "a class of this project defines `{old}` ({where}), and a call the tool cannot tie to another class "
    "may reach it: since transformers {since} the new name calls such an override{keywords}",
    "deprecated": "deprecated since transformers {since}{warns}{removal}",
    "warns": " and emits a {category}",
    "removal": ", removal planned in {removal}",
    "no-evidence": "nothing in this file shows that `{receiver}` is a transformers model (another library's "
    "`{old}` has no `{new}`)",  # an unsafe fix's reason
    "gated": "not rewritten: {allowed}, and releases before {since} have no `{new}`. To support both, {pattern}; {how}",
    # A `write`'s and a `read`'s `maybe`: the receiver is only conventionally named like training arguments.
    "maybe": " (if `{receiver}` is TrainingArguments)",
    "gated-why": "not rewritten: {allowed}, and releases before {since} lack the new name",
    # How a rename in a notebook cell, a Markdown fence or a doctest starts when its edit cannot be placed in the file (`Piece.back`),
    # and its short reason: a name spelt with JSON escapes, an edit across an indented fence's lines.
    "json-escapes": "the name is written with JSON escapes, rename it by hand",
    "across-indent": "the rewrite spans the fence's indentation, rename it by hand",
    "indented-fence": "spans an indented fence's lines: rename it by hand",
    "across-prompts": "the rewrite spans a doctest's prompts, rename it by hand",
    "doctest-lines": "spans a doctest's lines: rename it by hand",
    "declare": "declare transformers>={since} ({places}) or pass --target transformers=={since}",
    "once": "once the requirement is transformers>={since} this becomes a fix",
    # What to write when releases before `since` must keep working (`gated`'s `pattern`), by the rename's kind.
    "both-method": "look the new method up on the class: `if hasattr(type(model), '{new}')` call it, else the old one",
    "both-property": "read `model.{new}` only when `hasattr(type(model), '{new}')`, else the old property",
    "both-argument": "pass the keyword the installed release has (test for it on the class first)",
    "both-field": "pick the field name the installed release has from `dataclasses.fields(TrainingArguments)`",
    "both-cli-flag": "keep the old flag until every environment that runs it has transformers {since} or newer",
    "both-config-key": "keep the old key until every environment that reads the file has transformers {since} or newer",
    # Why a receiver or a class is what the tool takes it for (`receivers.Kind.why`): the `{why}` of the messages that
    # judge a use on it, whichever code they are.
    "without-import": "`{name}` is the transformers class of that name (used without an import)",
    "unreadable-class": "`{text}` is not a class the tool can read in this project",
    "overrides-property": "class `{cls}` overrides the property `{name}` ({where}), which the new name does not read",
    "no-kwargs": "takes no `**kwargs`",
    "gets-from": "class `{cls}` gets `{name}` from `{value}` ({where}), which the tool cannot read",
    "overrides": "class `{cls}` overrides `{name}` ({where}), which {why}",
    "subclasses": "class `{cls}` subclasses {why}",
    "defines-itself": "class `{cls}` defines `{what}` itself and subclasses no transformers class",
    "base-of-models": "class `{cls}` subclasses no transformers class, but comes before a transformers model among "
    "the bases of {users}: its `{old}` overrides theirs",
    "base-may-define": "class `{cls}` has a base before its transformers one that may define the old names: {unsure}",
    "subclasses-model": "class `{cls}` subclasses a transformers model",
    "super-of": "`super()` in class `{cls}` reaches `{base}`, a transformers model",
    "early-read": "class `{cls}` {verb} `{read}` in `__post_init__`{through} (line {line}) " + _BEFORE_OWN,
    "early-read-through": " (through {calls})",  # the `self.<method>()` and `check(self)` calls that reach the read
    "early-pass": "class `{cls}` passes `{passed}` to `{func}` in `__post_init__`{through} (line {line}) "
    + _BEFORE_OWN
    + ", and the tool cannot see what `{func}` reads of it",
    "early-unnamed": "class `{cls}` reads `{read}` in `__post_init__`{through} (line {line}) "
    + _BEFORE_OWN
    + ", and the tool cannot tell which field that is: maybe the old one",
    "inherits-field": "class `{cls}` inherits {field} from its base `{base}`, which declares it on {where}",
    "declares-field": "class `{cls}` declares {field} itself (line {line})",
    "old-field": "the old field",
    "new-field": "the new field `{new}`",
    "other-base": "class `{cls}` also subclasses `{base}`, which is not in this file and may declare the old field "
    "itself",
    "subclasses-args": "class `{cls}` subclasses training arguments",
    "remote-code": "line {line} loads it with `{passed}`: the model's class may be the repository's own code, which "
    "defines its own methods, so a transformers class name is no evidence",
    "swapped": "`{receiver}` is not only what it was built as: {how}",
    # A class name bound by more than one import (or an import and a class or assignment): each binding, listed.
    "bound-twice": "`{name}` is bound more than once ({bindings}): which class it names depends on which binding "
    "ran, and not every one is transformers' model",
    "bound-as": "`{target}` on line {line}",
    # What may set the old method on a model class when it is made, where the tool cannot read it.
    "decorated": "class `{cls}` is decorated with `{decorator}` (line {line}), which may set its methods",
    "metaclass": "class `{cls}` is made by the metaclass `{meta}` (line {line}), which may set its methods",
    "init-subclass": "class `{cls}` subclasses `{base}`, whose `__init_subclass__` (line {line}) may set its methods",
    "unnamed-setattr": "line {line} sets an attribute of class `{cls}` by a name the tool cannot read (`setattr`): "
    "maybe the old method",
    "swaps-class": "line {line} swaps its class (`{how}`)",
    # Code run in the receiver's own namespace (`exec(src)`, `%run -i FILE`): the tool cannot read what it patches.
    "runs-here": "{place} runs other code in its namespace (`{how}`), which may rebind it or replace its methods",
}
"""The sentences every `fix` code says (`hits.rename`, `hits.gate_reason`): its subject, the deprecation and the new
name, an unsafe fix's reason, and why the version gate keeps the old name; and why a receiver is what the tool takes
it for, which many codes' messages give. `shared` fills them in."""


def shared(form: str, **names: object) -> str:
    """The `SHARED` sentence `form` with `names` filled in."""
    return SHARED[form].format(**names)


PROBLEMS: Mapping[str, str] = {
    # Usage errors of `scan` and `fix` (exit 2), after `error: `.
    "stdin-mixed": "`{mark}` (standard input) cannot be mixed with other paths; check them in two runs",
    "stdin-filename": "--stdin-filename names standard input: pass `{mark}` as the only PATH",
    "stdin-cell": "--stdin-cell reads standard input: pass `{mark}` as the only PATH",
    "stdin-cell-kind": "--stdin-cell reads a cell of a notebook, but {name} is not one: give --stdin-filename a name "
    "ending in .ipynb",
    "stdin-write": "--write cannot rewrite standard input: `fix {mark}` prints the fixed text (redirect it to a file), "
    "or pass the file's path instead",
    "verify-write": "--verify and --verify-timeout need --write (they check the files written)",
    "gate": "the transformers requirement cannot be read from {paths} (above): nothing was reported or written; "
    "fix it, or pass --target",
    # An option's value of the wrong form (argparse's usage error).
    "cell-number": "{text} is not a cell number: count the notebook's cells (Markdown too) from 1, up to {most}",
    "seconds": "{text} is not a number of seconds greater than 0, e.g. 300",
    # What `fix --write` did when it could not write every file.
    "unwritten": "wrote {written}; not written: {unwritten}. Run again to finish: the written files are complete and "
    "are not rewritten twice.",
    "unsafe-writes": "nothing was written: {problems} of {files} files cannot be written safely",
    "then-again": "{problem}; fix the problems above and run again.",  # `fix --write`'s, not `--verify`'s
    # A file `fix --write` found it could not replace safely (`plan.write_all`): then it writes none.
    "write-cannot": "cannot be written: {error}; run again",
    "write-not-regular": "is no longer a regular file; nothing was written: run again",
    "write-read-only": "is read-only (mode {mode}); nothing was written: make it writable (chmod u+w) or leave it out "
    "of the PATHs, then run again",
    "write-not-yours": "is not writable by you; nothing was written: fix its permissions or leave it out",
    "write-hard-links": "has {links} hard links, which a rewrite would split; nothing was written: leave it out of the "
    "PATHs or rewrite it by hand",
    "write-unreadable": "cannot be read again: {error}; nothing was written",
    "write-changed": "changed since it was read; nothing was written: run again",
    "write-same-file": "is the same file as {other} but the two rewrites differ (their projects allow different "
    "releases); nothing was written: pass only one of the two paths",
    "write-in-place": "cannot be written in place ({error}: the folder must take a temporary file, and the owner and "
    "group must be kept); nothing was written: fix the permissions or leave it out",
    "write-changed-meanwhile": "changed while the rewrite was prepared; nothing was written: run again",
    # What `fix --write --verify CMD` did (`verify.verify_write`), after `verify: `.
    "verify-stopped": "{signal}: stopped; still rewritten: {files} (each file is whole)",
    "verify-stopped-clean": "{signal}: stopped; every file is as it was before the fix",
    "verify-fails-before": "`{command}` fails before any rewrite ({how}); nothing was written: make it pass first, or "
    "run without --verify. Its last output lines:\n{tail}",
    "verify-passes": "`{command}` passes with every rewrite ({runs} runs)",
    "verify-kept": "`{command}` passes before the rewrites and fails after them ({how}); kept the rewrites of "
    "{count} file{plural}: {files}",
    "verify-backed-out": "backed out {path}: the check fails with its rewrite ({how}); the check's last output "
    "lines:\n{tail}",
    "verify-ran": "`{command}` ran {runs} times; rewrite the backed-out files by hand, or leave them",
    "verify-switched": "a file changed while the check ran",
    # `[tool.checkpointing-migrate]` that cannot be read (`config.ConfigError`, at PATH:LINE:COL).
    "config-table": "`{table}` must be a table; write it as a [{table}] section",
    "config-key": "unknown key `{key}` in [{table}]; {hint}",
    # A transformers requirement that cannot be read (`declarations.RequirementError`, at PATH:LINE:COL).
    "pep508": "cannot read the requirement {text}: {error}; write it as PEP 508, e.g. '{package}>=5.23.0'",
    "not-utf8": "cannot read: {error}; save it as UTF-8 text",
    "include-loop": "{include} comes back to itself ({loop}); remove one of the includes",
    "include-missing": "{include}: no such file ({path}); fix the path or remove the line",
    "no-group": "include-group {group}: no such group in [dependency-groups]; fix the name",
    "poetry-entry": '{key} = {value} is neither a version nor a table; write e.g. {key} = "^5.23"',
    "poetry": 'cannot read the Poetry constraint {constraint}: {error}; write e.g. "^5.23" or ">=5.23,<6"',
    "computed": "{keyword} is computed when setup.py runs, and the tool never runs it; list the requirements "
    "literally, declare transformers in pyproject.toml or setup.cfg, or pass --target",
    "environment-yml": "{problem}; fix the YAML syntax",
    "conda": "cannot read the conda spec {entry}: {error}; write e.g. 'transformers>=5.23'",
    # A data file whose value is not what its record's field holds (`records.DocumentError`).
    "record": "expected {what}, found {found}",
}
"""The sentences of problems that are no finding: the command line's usage errors, what `fix --write` did, a
configuration or data file the tool cannot read; `problem` fills them in."""


def problem(form: str, **names: object) -> str:
    """The `PROBLEMS` sentence `form` with `names` filled in."""
    return PROBLEMS[form].format(**names)


CODES: dict[str, Code] = {c.code: c for c in _CODES}
"""Every code, in the order `rules` lists them (the renames first, then hazards, then infos, then file errors)."""

FILE_ERROR = "file-error"
"""The code of a file that could not be checked (`findings.FileError`) in JSON, GitHub and SARIF output."""


class MisusedCode(Exception):
    """A hit that the registry does not allow (a programming error, so no `ToolError`): never taken for a problem of
    the file."""


class UnknownCode(ToolError, KeyError):
    """A code that is not in the registry (a user's `--select`, `ignore[...]`, `explain`); the message suggests the
    nearest ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def get(code: str) -> Code:
    """The registry entry of `code`; raises `UnknownCode` (with "did you mean") for anything else."""
    try:
        return CODES[code]
    except KeyError:
        raise UnknownCode(f"unknown finding code `{code}`{suggest(code)}") from None


def message(code: str, form: str = "", **names: str) -> str:
    """The message template of `code`'s `form` with `names` filled in: where a rule needs the sentence itself (as
    the subject of another code's message, or for a helper that adds the deprecation and the fix)."""
    return get(code).message(form, **names)


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
