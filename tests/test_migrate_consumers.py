"""A rewrite only where the consumer is proven: receivers that look like transformers models but are not (only) that.

`PROJECT` is a small project whose every module prints what the old name does on the installed transformers (a tiny
Llama built from a config, nothing downloaded). A line marked `# renamed before` is one the tool used to rewrite as a
safe fix: renaming it changes what the project prints (shown here), and `fix --write` now leaves the output as it was.
`CASES` are scan verdicts in the markers of `test_migrate_evidence` for what cannot run here (adapters, remote code).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from migratekit import REQUIREMENT, run
from test_migrate_evidence import _expected, _scan

from checkpointing_migrate import dictreaders
from checkpointing_migrate.cli import main

TINY = """from transformers import LlamaConfig

cfg = LlamaConfig(
    vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2
)


class Tower:
    def gradient_checkpointing_enable(self):
        print("the tower's own method")
"""

PROJECT = {
    "mixins.py": """class MyMixin:
    def gradient_checkpointing_enable(self):
        print("the mixin's narrow method")

    @property
    def is_gradient_checkpointing(self):
        return "the mixin's property"
""",
    # 1. A mixin (in another module) before the transformers base.
    "c01_mixin.py": """from mixins import MyMixin
from tiny import cfg
from transformers import LlamaForCausalLM


class M(MyMixin, LlamaForCausalLM):
    pass


def run():
    m = M(cfg)
    m.gradient_checkpointing_enable()  # renamed before
    print(m.is_gradient_checkpointing)  # renamed before
""",
    # 2. A class swapped in after loading.
    "c02_swap.py": """from tiny import cfg
from transformers import LlamaForCausalLM


class Swapped(LlamaForCausalLM):
    def gradient_checkpointing_enable(self):
        print("the swapped-in class's method")


def run():
    model = LlamaForCausalLM(cfg)
    model.__class__ = Swapped
    model.gradient_checkpointing_enable()  # renamed before
""",
    # 4. An override assigned in the class body.
    "c04_assigned.py": """from tiny import cfg
from transformers import LlamaForCausalLM


def _enable(self):
    print("the assigned override")


class T(LlamaForCausalLM):
    gradient_checkpointing_enable = _enable


def run():
    T(cfg).gradient_checkpointing_enable()  # renamed before
""",
    # 5. A project class patched later.
    "c05_patched.py": """from tiny import cfg
from transformers import LlamaForCausalLM


class Tiny(LlamaForCausalLM):
    pass


def _enable(self):
    print("the patch")


Tiny.gradient_checkpointing_enable = _enable


def run():
    Tiny(cfg).gradient_checkpointing_enable()  # renamed before
""",
    # 6. `self` that is not the method's first parameter (a static method's).
    "c06_first_parameter.py": """from tiny import Tower
from transformers import LlamaForCausalLM


class M(LlamaForCausalLM):
    @staticmethod
    def enable(self):
        self.gradient_checkpointing_enable()  # renamed before


def run():
    M.enable(Tower())
""",
    # 7. A lambda parameter named like a module-level model.
    "c07_lambda.py": """from tiny import Tower, cfg
from transformers import LlamaForCausalLM

model = LlamaForCausalLM(cfg)
enable = lambda model: model.gradient_checkpointing_enable()  # renamed before


def run():
    enable(Tower())
""",
    # 8. An attribute bound to a project class.
    "c08_attribute.py": """from tiny import Tower, cfg
from transformers import LlamaForCausalLM


class M(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.vision = Tower()

    def enable_vision(self):
        self.vision.gradient_checkpointing_enable()


def run():
    M(cfg).enable_vision()
""",
    # 9. A name rebound by unpacking (an assignment, a loop target).
    "c09_unpacked.py": """from tiny import Tower, cfg
from transformers import LlamaForCausalLM


def build(model):
    return Tower(), None


def run():
    model = LlamaForCausalLM(cfg)
    model, optimizer = build(model)
    model.gradient_checkpointing_enable()
    for model, optimizer in [build(model)]:
        model.gradient_checkpointing_enable()  # renamed before
""",
    # 10. An explicit up-call by the base's name inside an override.
    "c10_up_call.py": """from tiny import cfg
from transformers import LlamaForCausalLM


class T(LlamaForCausalLM):
    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):
        print("the override")
        LlamaForCausalLM.gradient_checkpointing_enable(self, gradient_checkpointing_kwargs)  # renamed before


def run():
    model = T(cfg)
    model.gradient_checkpointing_enable()
    print(model.is_activation_checkpointing)
""",
    # The project's own classes: a TrainingArguments subclass reading the old field early, a `set_training` of its own.
    "c11_own_fields.py": """from dataclasses import dataclass

from transformers import TrainingArguments


@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        self.batch = 4 if self.gradient_checkpointing else 1
        super().__post_init__()


class Settings:
    def set_training(self, learning_rate=1e-3, gradient_checkpointing=False):
        print("own set_training:", gradient_checkpointing)
        return self


def run():
    args = Args(output_dir="out", report_to="none", gradient_checkpointing=True)  # renamed before
    print("batch", args.batch)
    Settings().set_training(gradient_checkpointing=True)  # renamed before
""",
    # Early reads not spelt `self.gradient_checkpointing`: `getattr`, the instance dict, a helper `__post_init__` calls
    # first (the class's own, which calls a base's), a module function it passes `self` to first; a read after
    # TrainingArguments' own sees the value either way.
    "c12_early_reads.py": """from dataclasses import dataclass

from transformers import TrainingArguments


@dataclass
class ByGetattr(TrainingArguments):
    def __post_init__(self):
        self.batch = 4 if getattr(self, "gradient_checkpointing", False) else 1
        super().__post_init__()


@dataclass
class ByDict(TrainingArguments):
    def __post_init__(self):
        self.batch = 4 if self.__dict__["gradient_checkpointing"] else 1
        super().__post_init__()


@dataclass
class ByVars(TrainingArguments):
    def __post_init__(self):
        self.batch = 4 if vars(self).get("gradient_checkpointing") else 1
        super().__post_init__()


@dataclass
class Checked(TrainingArguments):
    def _check(self):
        self.batch = 4 if self.gradient_checkpointing else 1


@dataclass
class ByHelper(Checked):
    def __post_init__(self):
        self._prepare()
        super().__post_init__()

    def _prepare(self):
        self._check()


@dataclass
class After(TrainingArguments):
    def __post_init__(self):
        super().__post_init__()
        self.batch = 4 if self.gradient_checkpointing else 1


def _batch(args):
    return 4 if args.gradient_checkpointing else 1


@dataclass
class ByFunction(TrainingArguments):
    def __post_init__(self):
        self.batch = _batch(self)
        super().__post_init__()


@dataclass
class FunctionAfter(TrainingArguments):
    def __post_init__(self):
        super().__post_init__()
        self.batch = _batch(self)


def run():
    print("getattr", ByGetattr(output_dir="out", report_to="none", gradient_checkpointing=True).batch)  # renamed before
    print("dict", ByDict(output_dir="out", report_to="none", gradient_checkpointing=True).batch)  # renamed before
    print("vars", ByVars(output_dir="out", report_to="none", gradient_checkpointing=True).batch)  # renamed before
    print("helper", ByHelper(output_dir="out", report_to="none", gradient_checkpointing=True).batch)  # renamed before
    print("after", After(output_dir="out", report_to="none", gradient_checkpointing=True).batch)
    print("function", ByFunction(output_dir="out", report_to="none", gradient_checkpointing=True).batch)  # renamed before
    print("function after", FunctionAfter(output_dir="out", report_to="none", gradient_checkpointing=True).batch)
""",
    # What decides the value besides a read: a class that declares the new field with a default (which wins over the
    # old keyword, itself or in a mixin), and a `__post_init__` that writes either field before TrainingArguments'
    # own (itself, or in a helper it calls first).
    "c13_declared_or_written.py": """from dataclasses import dataclass

from transformers import TrainingArguments


@dataclass
class NewDefault(TrainingArguments):
    activation_checkpointing: bool = True


@dataclass
class OnMixin:
    activation_checkpointing: bool = True


@dataclass
class MixinDefault(OnMixin, TrainingArguments):
    pass


@dataclass
class Written(TrainingArguments):
    big_model: bool = True

    def __post_init__(self):
        if self.big_model:
            self.gradient_checkpointing = True
        super().__post_init__()


@dataclass
class Reset(TrainingArguments):
    def _reset(self):
        setattr(self, "activation_checkpointing", None)

    def __post_init__(self):
        self._reset()
        super().__post_init__()


def run():
    print("new default", NewDefault(output_dir="out", report_to="none", gradient_checkpointing=False).activation_checkpointing)  # renamed before
    print("mixin default", MixinDefault(output_dir="out", report_to="none", gradient_checkpointing=False).activation_checkpointing)  # renamed before
    print("written", Written(output_dir="out", report_to="none", gradient_checkpointing=False).activation_checkpointing)  # renamed before
    print("reset", Reset(output_dir="out", report_to="none", gradient_checkpointing=True).activation_checkpointing)  # renamed before
""",
}

MAIN = """import warnings

warnings.simplefilter("ignore")
import {modules}

for module in [{modules}]:
    print("==", module.__name__)
    try:
        module.run()
    except Exception as exc:
        print(module.__name__, "raised", type(exc).__name__)
"""


def _write(project: Path) -> None:
    (project / "pyproject.toml").write_text(REQUIREMENT)
    (project / "tiny.py").write_text(TINY)
    for name, text in PROJECT.items():
        (project / name).write_text(text)
    modules = ", ".join(n[:-3] for n in PROJECT if n.startswith("c"))
    (project / "main.py").write_text(MAIN.format(modules=modules))


def _output(project: Path) -> dict[str, str]:
    """What each case module printed, by module name."""
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=project, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    sections = re.split(r"^== (\w+)\n", done.stdout, flags=re.MULTILINE)[1:]
    return dict(zip(sections[::2], sections[1::2], strict=True))


def _rename_marked(text: str) -> str:
    """What the tool used to write: the marked lines with the old names renamed."""
    out = []
    for line in text.splitlines(keepends=True):
        if "# renamed before" in line:
            line = re.sub(r"\b(is_)?gradient_checkpointing(_enable|=)", r"\1activation_checkpointing\2", line)
        out.append(line)
    return "".join(out)


def test_fix_write_keeps_what_the_project_prints(tmp_path: Path) -> None:
    before_dir, naive_dir = tmp_path / "before", tmp_path / "naive"
    before_dir.mkdir()
    _write(before_dir)
    before = _output(before_dir)
    # The cases matter: the rewrites the tool used to make change every marked case's output.
    naive_dir.mkdir()
    _write(naive_dir)
    for name in PROJECT:
        (naive_dir / name).write_text(_rename_marked(PROJECT[name]))
    naive = _output(naive_dir)
    marked = {n[:-3] for n, text in PROJECT.items() if "# renamed before" in text}
    assert {m for m in marked if naive[m] == before[m]} == set(), (before, naive)
    done = run("fix", "--write", ".", cwd=before_dir)
    assert "Traceback" not in done.stderr, done.stderr
    assert _output(before_dir) == before
    # Nothing marked was rewritten (the rest of the file may be: the up-call's caller is a proven model).
    for name, text in PROJECT.items():
        after = (before_dir / name).read_text().splitlines()
        for number, line in enumerate(text.splitlines()):
            if "# renamed before" in line:
                assert after[number] == line, (name, line)
    # `T` defines the old method itself: calls on it are unsafe fixes, left by `fix --write` (the tool cannot show
    # that the override passes the new keywords on).
    assert "model.gradient_checkpointing_enable()" in (before_dir / "c10_up_call.py").read_text()
    # A read after TrainingArguments' own `__post_init__` sees the value either way: that keyword is a safe fix.
    written = (before_dir / "c12_early_reads.py").read_text()
    for label, cls in (("after", "After"), ("function after", "FunctionAfter")):
        assert f'"{label}", {cls}(output_dir="out", report_to="none", activation_checkpointing=True)' in written


CASES = {
    "adapters_init": """
import adapters
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
adapters.init(model)
model.gradient_checkpointing_enable()  # unsafe call
""",
    # The other ways to swap a model's class, or to replace its old method on the instance.
    "adapters_init_keyword": """
import adapters
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
adapters.init(model=model)
model.gradient_checkpointing_enable()  # unsafe call
""",
    "setattr_class_swap": """
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
setattr(model, "__class__", Swapped)
model.gradient_checkpointing_enable()  # unsafe call
""",
    "instance_dict_replaced": """
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
model.__dict__["gradient_checkpointing_enable"] = lambda: None
model.gradient_checkpointing_enable()  # hazard replaced-method
other = AutoModelForCausalLM.from_pretrained("m")
vars(other)["gradient_checkpointing_enable"] = lambda: None
other.gradient_checkpointing_enable()  # hazard replaced-method
""",
    # Rebindings outside the name's own statements, like the unpacking of `prepared_actor`: the name's kind is unknown.
    "global_rebinding": """
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
kept = AutoModelForCausalLM.from_pretrained("m")

def wrap_it():
    global model, kept
    model = wrap(model)
    kept.gradient_checkpointing_enable()  # fix call

def outer():
    inner_model = AutoModelForCausalLM.from_pretrained("m")
    def rewrap():
        nonlocal inner_model
        inner_model = wrap(inner_model)
    rewrap()
    inner_model.gradient_checkpointing_enable()  # unsafe call

model.gradient_checkpointing_enable()  # unsafe call
kept.gradient_checkpointing_enable()  # fix call
""",
    "match_captures": """
from transformers import AutoModelForCausalLM

a = b = c = d = e = f = AutoModelForCausalLM.from_pretrained("m")
match command:
    case [b, *_]:
        pass
    case {"k": c, **d}:
        pass
    case Foo(e):
        pass
    case _ as f:
        pass
match command:
    case a:
        pass
a.gradient_checkpointing_enable()  # unsafe call
b.gradient_checkpointing_enable()  # unsafe call
c.gradient_checkpointing_enable()  # unsafe call
d.gradient_checkpointing_enable()  # unsafe call
e.gradient_checkpointing_enable()  # unsafe call
f.gradient_checkpointing_enable()  # unsafe call
""",
    "globals_key": """
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
globals()["model"] = wrap(model)
model.gradient_checkpointing_enable()  # unsafe call
""",
    "remote_code": """
from transformers import AutoModelForCausalLM, LlamaForCausalLM

model = AutoModelForCausalLM.from_pretrained("org/custom", trust_remote_code=True)
model.gradient_checkpointing_enable()  # unsafe call
local = AutoModelForCausalLM.from_pretrained("m", trust_remote_code=False)
local.gradient_checkpointing_enable()  # fix call
options = {"trust_remote_code": True}
maybe = AutoModelForCausalLM.from_pretrained("org/custom", **options)
maybe.gradient_checkpointing_enable()  # unsafe call
concrete = LlamaForCausalLM.from_pretrained("m", trust_remote_code=True)  # a concrete class runs its own code
concrete.gradient_checkpointing_enable()  # fix call
""",
    "setattr_patch": """
from transformers import AutoModelForCausalLM, PreTrainedModel

def hook(self, **kwargs):
    pass

setattr(PreTrainedModel, "gradient_checkpointing_enable", hook)  # hazard class-patch
model = AutoModelForCausalLM.from_pretrained("m")
model.gradient_checkpointing_enable()  # hazard patched-method
""",
    # openrlhf 0.11.2's `cli/train_sft.py`: its `Actor` (a torch module with the old method only) is later rebound
    # by unpacking; the call is on the real `Actor`, which has no new name (an AttributeError once renamed).
    "prepared_actor": """
from torch import nn

class Actor(nn.Module):
    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):  # hazard override
        pass

model = Actor()
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})  # info not-transformers
(model, optim), scheduler = strategy.prepare((model, optim), scheduler)
""",
    "base_from_elsewhere": """
from transformers import GenerationMixin, LlamaForCausalLM
from somewhere import Mixin

class Good(GenerationMixin, LlamaForCausalLM):
    pass

class Unsure(Mixin, LlamaForCausalLM):
    pass

Good(cfg).gradient_checkpointing_enable()  # fix call
Unsure(cfg).gradient_checkpointing_enable()  # unsafe call
""",
    # A wrapper that passes its keywords on: the key of a dict unpacked into it is the keyword it becomes.
    "wrapper": """
from transformers import TrainingArguments

def build(**kw):
    return TrainingArguments(**kw)

build(**{"output_dir": "o", "gradient_checkpointing": True})  # info unknown-callee
build(output_dir="o", gradient_checkpointing=True)  # info unknown-callee
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_scan_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    text = CASES[name].lstrip("\n")
    (tmp_path / "case.py").write_text(text)
    found = {
        (f["line"], "unsafe" if f.get("applicability") == "unsafe" else f["severity"], f["code"])
        for f in _scan(tmp_path, capsys)
    }
    assert found == _expected(text)


def test_the_reasons_are_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path)
    (tmp_path / "remote.py").write_text(CASES["remote_code"].lstrip("\n"))
    (tmp_path / "lookups.py").write_text(
        "has = hasattr(model, 'gradient_checkpointing_enable')\nflag = getattr(model, 'is_gradient_checkpointing', False)\n"
    )
    messages = {(Path(str(f["path"])).name, f["line"]): str(f["message"]) for f in _scan(tmp_path, capsys)}
    assert "`MyMixin`, line 2 in mixins.py" in messages[("c01_mixin.py", 12)]
    assert "TypeError" in messages[("c01_mixin.py", 12)]
    assert "line 12 swaps its class (`model.__class__ = ...`)" in messages[("c02_swap.py", 13)]
    assert "trust_remote_code=True" in messages[("remote.py", 4)]
    assert "`self.vision` is assigned in `M`: class `Tower` defines" in messages[("c08_attribute.py", 11)]
    assert "reads `self.gradient_checkpointing` in `__post_init__`" in messages[("c11_own_fields.py", 20)]
    assert (
        "reads `getattr(self, 'gradient_checkpointing', False)` in `__post_init__`"
        in messages[("c12_early_reads.py", 69)]
    )
    assert (
        "in `__post_init__` (through `self._prepare()`, then `self._check()`)" in messages[("c12_early_reads.py", 72)]
    )
    assert (
        "reads `args.gradient_checkpointing` in `__post_init__` (through `_batch(self)`) (line 51)"
        in messages[("c12_early_reads.py", 74)]
    )
    assert (
        "not training arguments (class `Settings` defines `set_training` itself" in messages[("c11_own_fields.py", 22)]
    )
    # Looking a method up does not warn (measured in test_method_lookups_do_not_warn); the property's does.
    assert "this does not warn, only a call does" in messages[("lookups.py", 1)]
    assert "warns like a direct use" in messages[("lookups.py", 2)]
    # A class outside transformers that only defines a narrow old method: the Trainer's fallback raises already.
    assert "a TypeError on transformers ≥" in messages[("mixins.py", 2)]
    assert main(["scan", str(tmp_path)]) == 1


def test_method_lookups_do_not_warn_and_the_trainer_fallback_passes_the_new_keywords(tmp_path: Path) -> None:
    import warnings

    import transformers

    exec(compile(TINY, "tiny.py", "exec"), namespace := {})  # noqa: S102 - the test's own text
    model = transformers.LlamaForCausalLM(namespace["cfg"])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert hasattr(model, "gradient_checkpointing_enable")
        assert getattr(model, "gradient_checkpointing_disable", None) is not None
        assert not seen
        getattr(model, "is_gradient_checkpointing", None)
        assert [type(w.message) for w in seen] == [FutureWarning]

    import torch

    class Narrow(torch.nn.Module):  # a model outside transformers that only defines the old method
        def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):
            pass

    args = transformers.TrainingArguments(output_dir=str(tmp_path), activation_checkpointing=True, report_to="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        trainer = transformers.Trainer(model=Narrow(), args=args)
        with pytest.raises(TypeError, match="unexpected keyword argument 'every_n_layers'"):
            trainer.train()


# Configs and dicts whose consumer is the project (`checkpointing_migrate.configreaders`, `dictflow`): each prints
# what the project sees; renaming the old key changes that, so `fix --write` must leave these alone.
READERS = {
    "loaded.yaml": "output_dir: out\ngradient_checkpointing: true\n",
    "settings.json": '{"output_dir": "out", "gradient_checkpointing": true}\n',
    "own.yaml": "gradient_checkpointing: true\n",
    # `lora_rank` is no TrainingArguments field: alone this is `foreign-config`; main.py's parser proves it.
    "parsed.yaml": "output_dir: out\nlora_rank: 4\ngradient_checkpointing: true\n",
    "main.py": """import json
import warnings
from dataclasses import dataclass

import yaml
from transformers import HfArgumentParser, TrainingArguments

warnings.simplefilter("ignore")


@dataclass
class ScriptArguments:
    gradient_checkpointing: bool = False


@dataclass
class LoraArguments:
    lora_rank: int = 8


with open("loaded.yaml") as stream:
    print("yaml", yaml.safe_load(stream).get("gradient_checkpointing"))
with open("settings.json") as stream:
    settings = json.load(stream)
try:
    print("json", settings["gradient_checkpointing"])
except KeyError as exc:
    print("json KeyError", exc)
try:
    print("dataclass", HfArgumentParser(ScriptArguments).parse_yaml_file("own.yaml"))
except ValueError as exc:
    print("dataclass ValueError", str(exc).split(":")[0])
if __name__ == "__train__":  # the consumers the tool sees; not run here (they would cost a torch import)
    lora, training = HfArgumentParser((LoraArguments, TrainingArguments)).parse_yaml_file("parsed.yaml")
cfg = {"output_dir": "out", "report_to": "none"}
cfg["gradient_checkpointing"] = True
print("dict", cfg.get("gradient_checkpointing"))
if __name__ == "__train__":
    TrainingArguments(**cfg)
""",
}


def _readers_output(project: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What `main.py` prints, run in this process (transformers is imported once, not per run)."""
    import contextlib
    import io
    import runpy
    import warnings

    out = io.StringIO()
    with monkeypatch.context() as here, warnings.catch_warnings(), contextlib.redirect_stdout(out):
        here.chdir(project)
        runpy.run_path("main.py", run_name="__main__")
    return out.getvalue()


def test_configs_and_dicts_the_project_reads_itself_keep_their_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    for name, text in READERS.items():
        (tmp_path / name).write_text(text)
    before = _readers_output(tmp_path, monkeypatch)
    # What a rename by spelling does: every reader sees something else (yaml None, KeyError, ValueError, dict None).
    naive = tmp_path / "naive"
    naive.mkdir()
    for name, text in READERS.items():
        (naive / name).write_text(text if name == "main.py" else text.replace("gradient_", "activation_"))
    (naive / "main.py").write_text(
        READERS["main.py"].replace('cfg["gradient_checkpointing"]', 'cfg["activation_checkpointing"]')
    )
    changed = dict(zip(before.splitlines(), _readers_output(naive, monkeypatch).splitlines(), strict=True))
    assert all(old != new for old, new in changed.items()), changed
    assert "dataclass ValueError Some keys are not used by the HfArgumentParser" in changed.values()
    shutil.rmtree(naive)
    scanned = _scan(tmp_path, capsys)
    found = {(Path(str(f["path"])).name, f["line"], f["severity"], f["code"]) for f in scanned}
    why = {Path(str(f["path"])).name: str(f["message"]) for f in scanned}
    assert "main.py:22 loads this file with `yaml.safe_load`" in why["loaded.yaml"]
    assert "main.py:24 loads this file with `json.load`" in why["settings.json"]
    assert "`ScriptArguments` declares `gradient_checkpointing` itself" in why["own.yaml"]
    assert "line 37 reads it back by the old key (`cfg.get('gradient_checkpointing')`)" in why["main.py"]
    assert (
        "(read by `HfArgumentParser((LoraArguments, TrainingArguments)).parse_yaml_file` (main.py:"
        in why["parsed.yaml"]
    )
    assert found == {
        ("loaded.yaml", 2, "hazard", "own-reader"),
        ("settings.json", 1, "hazard", "own-reader"),
        ("own.yaml", 1, "hazard", "own-reader"),
        ("main.py", 36, "hazard", "own-reader"),
        ("parsed.yaml", 3, "fix", "config-key"),
    }
    assert main(["fix", "--write", str(tmp_path)]) == 1
    fixed = dict(READERS, **{"parsed.yaml": READERS["parsed.yaml"].replace("gradient_", "activation_")})
    assert {n: (tmp_path / n).read_text() for n in READERS} == fixed
    assert _readers_output(tmp_path, monkeypatch) == before


def test_dicts_of_training_arguments_hold_both_keys(tmp_path: Path) -> None:
    """What the `read` message says of `to_dict()`, `vars()`, `asdict()` and `to_json_string()` on a release with the
    rename (the installed one)."""
    import dataclasses
    import json
    import warnings

    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = transformers.TrainingArguments(
            output_dir=str(tmp_path),
            report_to="none",
            activation_checkpointing=True,
            activation_checkpointing_kwargs={},
        )
        args.activation_checkpointing = False
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for mapping in (args.to_dict(), vars(args), dataclasses.asdict(args), json.loads(args.to_json_string())):
            # Both keys; the old one keeps the value given at construction, not the later write of the new one.
            assert (mapping["gradient_checkpointing"], mapping["activation_checkpointing"]) == (True, False)
            assert mapping["gradient_checkpointing_kwargs"] == mapping["activation_checkpointing_kwargs"] == {}
    assert not seen


READER_CASES = {
    "from omegaconf import OmegaConf\n\nconf = OmegaConf.load('conf.yaml')\n": ("own-reader", None),
    "import os\nimport yaml\n\nconf = yaml.safe_load(open(os.path.join('configs', 'conf.yaml')))\n": (
        "own-reader",
        None,
    ),
    "from transformers import HfArgumentParser, TrainingArguments\n\n"
    "parser = HfArgumentParser(TrainingArguments)\n(args,) = parser.parse_yaml_file(yaml_file='conf.yaml')\n": (
        "config-key",
        "safe",
    ),
    # A mention that reads nothing (a help text), or a parser of a class from elsewhere, proves no reader.
    "print('edit conf.yaml, then run')\n": ("config-key", "unsafe"),
    "from transformers import HfArgumentParser\nfrom elsewhere import Args\n\n"
    "(args,) = HfArgumentParser(Args).parse_yaml_file('conf.yaml')\n": ("config-key", "unsafe"),
}


@pytest.mark.parametrize("reader", list(READER_CASES), ids=range(len(READER_CASES)))
def test_a_configs_reader_is_the_call_that_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reader: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "conf.yaml").write_text("output_dir: out\ngradient_checkpointing: true\n")
    (tmp_path / "run.py").write_text(reader)
    (finding,) = [f for f in _scan(tmp_path, capsys) if str(f["path"]).endswith("conf.yaml")]
    assert (finding["code"], finding.get("applicability")) == READER_CASES[reader]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("conf.yaml", "training:\n  output_dir: out\n  gradient_checkpointing: true\n", 3),
        ("conf.json", '{"training": {"output_dir": "out", "gradient_checkpointing": true}}\n', 1),
    ],
    ids=["yaml", "json"],
)
def test_an_old_key_one_level_down_in_a_config_the_project_loads_itself_is_a_hazard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, line: int
) -> None:
    """`TrainingArguments(**cfg["training"])` of a file loaded with `yaml.safe_load` (or `json.load`) warns for the
    key under `training:`: reported where it is, never renamed (a nested key is often another tool's)."""
    loader = "yaml.safe_load" if name.endswith(".yaml") else "json.load"
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / name).write_text(text)
    (tmp_path / "main.py").write_text(
        f"import json\nimport yaml\nfrom transformers import TrainingArguments\n\ncfg = {loader}(open('{name}'))\n"
        "args = TrainingArguments(**cfg['training'])\n"
    )
    (finding,) = [f for f in _scan(tmp_path, capsys) if str(f["path"]).endswith(name)]
    assert (finding["code"], finding["severity"], finding["line"]) == ("own-reader", "hazard", line)
    assert finding["message"].startswith(f"{name[-4:].upper()} key `gradient_checkpointing` under `training`")
    assert f"main.py:5 loads this file with `{loader}`" in finding["message"]


IMPORTERS = {
    "from conf import DEFAULTS\n\nprint(DEFAULTS['gradient_checkpointing'])\n": "`user.py:3`",
    "import conf\n\nprint(conf.DEFAULTS.get('gradient_checkpointing'))\n": "`user.py:3`",
    "from pkg import conf as c\n\nif 'gradient_checkpointing' in c.DEFAULTS:\n    pass\n": "`user.py:3`",
    # A star import binds every public name (the dict), also relative (`from .conf import *`).
    "from conf import *\n\nprint(DEFAULTS['gradient_checkpointing'])\n": "`user.py:3`",
    "from .conf import *\n\nprint(DEFAULTS['gradient_checkpointing'])\n": "`user.py:3`",
    "from .pkg.conf import *\n\nprint(DEFAULTS.get('gradient_checkpointing'))\n": "`user.py:3`",
    # Another dict of the same name, or the module imported without reading the key: the rename stays safe.
    "from other import DEFAULTS\n\nprint(DEFAULTS['gradient_checkpointing'])\n": None,
    "from conf import DEFAULTS\n\nprint(DEFAULTS['output_dir'])\n": None,
}


@pytest.mark.parametrize("user", list(IMPORTERS), ids=range(len(IMPORTERS)))
def test_a_module_level_dict_read_by_another_module_keeps_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], user: str
) -> None:
    """A dict renamed because it reaches `TrainingArguments(**d)` was a safe fix though another module imports it and
    reads the old key: renamed, that read raises KeyError."""
    conf = 'from transformers import TrainingArguments\n\nDEFAULTS = {"output_dir": "o", "gradient_checkpointing": 1}\n'
    conf += "ARGS = TrainingArguments(**DEFAULTS)\n"
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    folder = tmp_path / "pkg" if "pkg" in user else tmp_path
    (folder / "conf.py").write_text(conf)
    (tmp_path / "other.py").write_text('DEFAULTS = {"gradient_checkpointing": 1}\n')
    (tmp_path / "user.py").write_text(user)
    (finding,) = [f for f in _scan(tmp_path, capsys) if str(f["path"]).endswith("conf.py")]
    where = IMPORTERS[user]
    if where is None:
        assert (finding["code"], finding.get("applicability")) == ("dict-key", "safe")
        return
    assert (finding["code"], finding["line"]) == ("own-reader", 3)
    assert f"{where}, which imports it, reads it back by the old key" in str(finding["message"])


def test_a_star_import_binds_only_what_all_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A module with a literal `__all__` that leaves the dict out: `from conf import *` does not bind it, so a read of
    another `DEFAULTS` there is not the dict's and the rename stays safe."""
    conf = '__all__ = ["ARGS"]\nfrom transformers import TrainingArguments\n\n'
    conf += 'DEFAULTS = {"output_dir": "o", "gradient_checkpointing": 1}\nARGS = TrainingArguments(**DEFAULTS)\n'
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "conf.py").write_text(conf)
    (tmp_path / "user.py").write_text(
        "from conf import *\n\nDEFAULTS = {}\nprint(DEFAULTS['gradient_checkpointing'])\n"
    )
    (finding,) = _scan(tmp_path, capsys)
    assert (finding["code"], finding.get("applicability")) == ("dict-key", "safe")


STAR_ALL = {
    # An `__all__` followed whole (augmented, appended, extended with literals) that lists the dict: the star import
    # binds it, so the read there is the dict's.
    '__all__ = ["ARGS"]\n__all__ += ["DEFAULTS"]\n': "own-reader",
    '__all__ = ["ARGS"]\n__all__.append("DEFAULTS")\n': "own-reader",
    '__all__ = ("ARGS",)\n__all__ += ("X",)\n__all__.extend(["DEFAULTS"])\n': "own-reader",
    # One the tool cannot follow may list it: built from another module's, in a loop, changed in a block, bound anew.
    'import base\n\n__all__ = base.__all__ + ["ARGS"]\n': "own-reader",
    '__all__ = []\nfor _name in ("ARGS", "DEFAULTS"):\n    __all__.append(_name)\n': "own-reader",
    '__all__ = ["ARGS"]\nif True:\n    __all__ += ["DEFAULTS"]\n': "own-reader",
    '__all__ = ["ARGS"]\n__all__ += NAMES\n': "own-reader",
    '__all__ = ["ARGS"]\n__all__.append(NAME)\n': "own-reader",
    # Followed whole, it leaves the dict out: the star import does not bind it.
    '__all__ = ["ARGS"]\n__all__ += ["X"]\n__all__.append("Y")\n__all__.extend(("Z",))\n': "dict-key",
}


@pytest.mark.parametrize("header", list(STAR_ALL), ids=range(len(STAR_ALL)))
def test_a_star_import_binds_what_all_lists_once_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str
) -> None:
    """`__all__ += ["DEFAULTS"]` (or `.append`, `.extend`) after a literal `__all__` that leaves the dict out made
    it not exported: its key was a safe fix, and the star import's read of it raised KeyError once renamed."""
    conf = header + "from transformers import TrainingArguments\n\n"
    conf += 'DEFAULTS = {"output_dir": "o", "gradient_checkpointing": True}\nARGS = TrainingArguments(**DEFAULTS)\n'
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "conf.py").write_text(conf)
    (tmp_path / "other.py").write_text("from conf import *\n\nprint(DEFAULTS['gradient_checkpointing'])\n")
    (finding,) = [f for f in _scan(tmp_path, capsys) if str(f["path"]).endswith("conf.py")]
    assert finding["code"] == STAR_ALL[header]


def test_the_files_that_import_a_dict_are_parsed_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file holding a dict's name was parsed again for each module that binds a dict of that name, and the dict's
    module for each star import of every such file, before the import was known to be of it."""
    conf = '__all__ = ["ARGS", "DEFAULTS"]\nfrom transformers import TrainingArguments\n\n'
    conf += 'DEFAULTS = {"output_dir": "o", "gradient_checkpointing": 1}\nARGS = TrainingArguments(**DEFAULTS)\n'
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "conf.py").write_text(conf)
    (tmp_path / "conf2.py").write_text(conf + "# another module\n")
    (tmp_path / "lonely.py").write_text(conf + "# imported by none\n")
    user = "from os import *\nfrom sys import *\nfrom conf import *\nfrom conf2 import *\n\nprint(DEFAULTS)\n"
    (tmp_path / "user.py").write_text(user)
    parsed: list[object] = []

    class Counting:
        """`ast` for `dictreaders`, counting what it parses."""

        def __getattr__(self, name: str) -> object:
            return getattr(ast, name)

        def parse(self, source: str | bytes) -> ast.Module:
            parsed.append(source)
            return ast.parse(source)

    monkeypatch.setattr(dictreaders, "ast", Counting())
    assert {f["code"] for f in _scan(tmp_path, capsys)} == {"dict-key"}
    lonely = conf + "# imported by none\n"
    assert (parsed.count(user.encode()), parsed.count(conf), parsed.count(lonely)) == (1, 1, 0)


CONSUMERS = {
    # The dict's only consumer, TrainingArguments, is in the module that imports it.
    "from transformers import TrainingArguments\nfrom conf import DEFAULTS\n\nTrainingArguments(**DEFAULTS)\n": (
        "dict-key",
        "safe",
        "which `user.py:4` passes to `TrainingArguments`",
    ),
    "from transformers import HfArgumentParser, TrainingArguments\nimport conf\n\n"
    "HfArgumentParser(TrainingArguments).parse_dict(conf.DEFAULTS)\n": ("dict-key", "safe", "which `user.py:4` passes"),
    # That module (or this one) also reads it back by the old key.
    "from transformers import TrainingArguments\nimport conf as d\n\nif d.DEFAULTS['gradient_checkpointing']:\n"
    "    pass\nTrainingArguments(**d.DEFAULTS)\n": ("own-reader", None, "`user.py:4`, which imports it, reads it back"),
    "from transformers import TrainingArguments\nfrom conf import *\n\nif DEFAULTS['gradient_checkpointing']:\n"
    "    pass\nTrainingArguments(**DEFAULTS)\n": ("own-reader", None, "`user.py:4`, which imports it, reads it back"),
    # The consumer is only maybe training arguments, or the dict is also used otherwise: as within one module.
    "from transformers import TrainingArguments\nfrom mixins import Mixin\nfrom conf import DEFAULTS\n\n\n"
    "class Args(Mixin, TrainingArguments):\n    pass\n\n\nArgs(**DEFAULTS)\n": ("dict-key", "unsafe", "`Mixin`"),
    "from transformers import TrainingArguments\nfrom conf import DEFAULTS\n\nTrainingArguments(**DEFAULTS)\n"
    "print(DEFAULTS)\n": ("dict-key", "unsafe", "also used at `user.py:5` (`print(DEFAULTS)`)"),
    "from conf import DEFAULTS\n\nlog(DEFAULTS)\n": ("unknown-callee", None, "passed to `log` at `user.py:3`"),
}


@pytest.mark.parametrize("user", list(CONSUMERS), ids=range(len(CONSUMERS)))
def test_a_module_level_dict_unpacked_in_another_module_is_judged_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], user: str
) -> None:
    """A module-level dict that another module imports and unpacks into `TrainingArguments(**DEFAULTS)` got no
    finding: its key is judged by that module's evidence, as if the uses were in one scope."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "conf.py").write_text('DEFAULTS = {"output_dir": "o", "gradient_checkpointing": 1}\n')
    (tmp_path / "user.py").write_text(user)
    (finding,) = _scan(tmp_path, capsys)
    code, applicability, said = CONSUMERS[user]
    assert (finding["path"], finding["line"]) == (str(tmp_path / "conf.py"), 1)
    assert (finding["code"], finding.get("applicability")) == (code, applicability)
    assert said in str(finding["message"])


def test_the_modules_that_import_a_dict_are_read_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each import of the dict's module read that module again, to compare it with the dict's text."""
    conf = 'from transformers import TrainingArguments\n\nDEFAULTS = {"output_dir": "o", "gradient_checkpointing": 1}\n'
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "conf.py").write_text(conf + "ARGS = TrainingArguments(**DEFAULTS)\n")
    (tmp_path / "user.py").write_text(
        "import conf\nimport conf as c\nfrom conf import DEFAULTS\nfrom conf import *\n\nprint(DEFAULTS['gradient_checkpointing'])\n"
    )
    reads: list[str] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or read_bytes(self))
    (finding,) = _scan(tmp_path, capsys)
    assert finding["code"] == "own-reader"
    assert reads.count("conf.py") == 1


def test_a_dataclass_imported_by_the_parser_declares_its_flags_and_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flag renamed for a parser whose dataclass, imported from another module, declares the field was a safe fix:
    renamed, the project's parser refuses it (measured below). A dataclass the tool cannot find makes the flag an
    unsafe fix, like a config key; a field named like an old method, read anywhere in the project, is that field."""
    import argparse
    import dataclasses
    import warnings

    import transformers

    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "myargs.py").write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass ModelArguments:\n"
        "    gradient_checkpointing_enable: bool = False\n    gradient_checkpointing: bool = False\n"
    )
    parser = "from transformers import HfArgumentParser, TrainingArguments\n\nfrom {} import ModelArguments\n\n"
    parser += 'parser = HfArgumentParser((ModelArguments, TrainingArguments))\nparser.parse_yaml_file("cfg.yaml")\n'
    (tmp_path / "train.py").write_text(parser.format("myargs"))
    (tmp_path / "other.py").write_text(parser.format("elsewhere"))
    (tmp_path / "cfg.yaml").write_text("gradient_checkpointing: true\n")
    (tmp_path / "report.py").write_text(
        "def report(model_args):\n    return model_args.gradient_checkpointing_enable\n"
    )
    (tmp_path / "run.sh").write_text(
        "python train.py --gradient_checkpointing_enable --gradient_checkpointing true\n"
        "python other.py --gradient_checkpointing true\n"
    )
    found = {
        (Path(str(f["path"])).name, f["line"], f["severity"], f.get("applicability"), f["code"]): str(f["message"])
        for f in _scan(tmp_path, capsys)
    }
    assert set(found) == {
        ("cfg.yaml", 1, "hazard", None, "own-reader"),
        ("run.sh", 1, "info", None, "own-flag"),
        ("run.sh", 2, "fix", "unsafe", "flag"),
        ("report.py", 2, "info", None, "own-flag"),
    }
    assert (
        "reads `model_args.gradient_checkpointing_enable`, a field of the project's own dataclass `ModelArguments` "
        "(`myargs.py:6`; HfArgumentParser's flag `--gradient_checkpointing_enable`)"
        in found["report.py", 2, "info", None, "own-flag"]
    )
    assert (
        "`train.py` parses its arguments into the project's own dataclass: `ModelArguments` declares "
        "`gradient_checkpointing` itself, so its HfArgumentParser reads `--gradient_checkpointing` into that dataclass"
        in found["run.sh", 1, "info", None, "own-flag"]
    )
    assert (
        "`other.py` parses it with an HfArgumentParser, but `ModelArguments` is not in this file"
        in found["run.sh", 2, "fix", "unsafe", "flag"]
    )
    assert (
        "`ModelArguments` declares `gradient_checkpointing` itself"
        in found["cfg.yaml", 1, "hazard", None, "own-reader"]
    )

    # Measured: renamed, the flag is no field of the project's dataclass, and its parser refuses it. (Given with
    # TrainingArguments too, this parser cannot even be built on a release with the rename: the deprecated alias
    # field `gradient_checkpointing` conflicts with the project's own.)
    own = dataclasses.make_dataclass("ModelArguments", [("gradient_checkpointing", bool, False)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = transformers.HfArgumentParser(own)
        (old,) = hf.parse_args_into_dataclasses(["--gradient_checkpointing", "true"])
        with pytest.raises(ValueError, match="Some specified arguments are not used"):
            hf.parse_args_into_dataclasses(["--activation_checkpointing", "true"])
        with pytest.raises(argparse.ArgumentError, match="conflicting option string"):
            transformers.HfArgumentParser((own, transformers.TrainingArguments))
    assert old.gradient_checkpointing


def test_a_project_is_walked_and_its_launch_files_read_once_per_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two configs of one name and one launch file naming both: the project is walked for the name once and the launch
    file read once in the run (`Options.memo`), not once per config checked (each file has its own `Options`)."""
    import os

    from checkpointing_migrate import launchreaders

    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    parse = "import sys\n\nfrom transformers import HfArgumentParser, TrainingArguments\n\n"
    (tmp_path / "train.py").write_text(parse + "HfArgumentParser(TrainingArguments).parse_yaml_file(sys.argv[1])\n")
    (tmp_path / "run.sh").write_text("python train.py a/config.yaml\npython train.py b/config.yaml\n")
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "config.yaml").write_text("output_dir: out\ngradient_checkpointing: true\n")
    walked: list[str] = []
    read: list[str] = []
    walk, launches = os.walk, launchreaders._launches
    monkeypatch.setattr(os, "walk", lambda top, *a, **k: walked.append(str(top)) or walk(top, *a, **k))
    monkeypatch.setattr(launchreaders, "_launches", lambda path, *a: read.append(path.name) or launches(path, *a))
    configs = [str(tmp_path / folder / "config.yaml") for folder in ("a", "b")]
    capsys.readouterr()
    main(["scan", "--format", "json", *configs])
    found = json.loads(capsys.readouterr().out)
    assert [(Path(f["path"]).parent.name, f["code"], f.get("applicability")) for f in found] == [
        ("a", "config-key", "safe"),
        ("b", "config-key", "safe"),
    ]
    assert walked.count(str(tmp_path)) == 1 and read == ["run.sh"]
