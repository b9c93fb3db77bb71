"""Every rewrite has evidence: the cases where renaming breaks working code, the uses that used to be missed, and
the behaviour of the installed transformers that the verdicts rest on (measured here, not assumed).

Each case is a small project (a `pyproject.toml` that requires the renamed release, and one or two Python files);
a line ending in `# <severity> <code>` (or `# unsafe <code>` for an unsafe fix) says what `scan` reports there,
and every other line with an old name must be reported as nothing, or `info` when marked so.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from migratekit import REQUIREMENT, SINCE, run

from checkpointing_migrate.cli import main

CASES = {
    # 1. An override of the old method whose signature the new method cannot call.
    "narrow_override": """
from transformers import LlamaForCausalLM

class TinyLlama(LlamaForCausalLM):
    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):  # hazard narrow-override
        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs)

model = TinyLlama(cfg)
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})  # hazard narrow-override
""",
    "compatible_override": """
from transformers import LlamaForCausalLM

class TinyLlama(LlamaForCausalLM):
    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):  # hazard override
        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs, **kwargs)

model = TinyLlama.from_config(cfg)
model.gradient_checkpointing_enable()  # unsafe call
""",
    "instance_override": """
from functools import partial
from types import MethodType
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("m")
model.gradient_checkpointing_enable = MethodType(partial(fn, flag=False), model)  # hazard instance-override
model.gradient_checkpointing_enable()  # hazard replaced-method
model.gradient_checkpointing_disable()  # fix call
""",
    # The old method set on a project's model class, or on an instance, where no `def` shows it.
    "decorator_sets_method": """
from transformers import LlamaForCausalLM

def narrow_ckpt(cls):
    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):
        self._activation_checkpointing_enable(gradient_checkpointing_kwargs)
    cls.gradient_checkpointing_enable = gradient_checkpointing_enable  # hazard instance-override
    return cls

@narrow_ckpt
class M(LlamaForCausalLM):
    pass

M(cfg).gradient_checkpointing_enable()  # unsafe call
""",
    "unknown_decorator": """
from dataclasses import dataclass
from registry import register
from transformers import LlamaForCausalLM

@register("tiny")
class M(LlamaForCausalLM):
    pass

@dataclass
class D(LlamaForCausalLM):
    pass

M(cfg).gradient_checkpointing_enable()  # unsafe call
D(cfg).gradient_checkpointing_enable()  # fix call
""",
    "init_subclass_sets_method": """
from transformers import LlamaForCausalLM

def narrow(self):
    self._activation_checkpointing_enable()

class Base(LlamaForCausalLM):
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.gradient_checkpointing_enable = narrow  # hazard instance-override

class M(Base):
    pass

M(cfg).gradient_checkpointing_enable()  # unsafe call
""",
    "metaclass_sets_method": """
from transformers import LlamaForCausalLM

class Meta(type(LlamaForCausalLM)):
    def __new__(mcls, name, bases, ns):
        ns["gradient_checkpointing_enable"] = narrow
        return super().__new__(mcls, name, bases, ns)

class M(LlamaForCausalLM, metaclass=Meta):
    pass

M(cfg).gradient_checkpointing_enable()  # unsafe call
""",
    "setattr_unnamed": """
from transformers import LlamaForCausalLM

class M(LlamaForCausalLM):
    pass

for name in ["gradient_checkpointing_enable"]:
    setattr(M, name, narrow)
M(cfg).gradient_checkpointing_enable()  # unsafe call
""",
    "object_setattr_instance": """
import types
from transformers import LlamaForCausalLM

m = LlamaForCausalLM(cfg)
object.__setattr__(m, "gradient_checkpointing_enable", types.MethodType(narrow, m))
m.gradient_checkpointing_enable()  # hazard replaced-method
""",
    "dict_update_instance": """
from transformers import LlamaForCausalLM

m = LlamaForCausalLM(cfg)
m.__dict__.update(gradient_checkpointing_enable=lambda: None)
m.gradient_checkpointing_enable()  # hazard replaced-method
n = LlamaForCausalLM(cfg)
vars(n).update({"gradient_checkpointing_enable": lambda: None})
n.gradient_checkpointing_enable()  # hazard replaced-method
""",
    "renamed_kwargs_parameter": """
from transformers import LlamaForCausalLM

class B(LlamaForCausalLM):
    def gradient_checkpointing_enable(self, ckpt_kwargs=None, every_n_layers=1, offload=False):  # hazard narrow-override
        self._activation_checkpointing_enable(ckpt_kwargs, every_n_layers, offload)

B(cfg).gradient_checkpointing_enable()  # hazard narrow-override
""",
    # A class name bound more than once: transformers' only if every binding is.
    "bound_by_try_and_class": """
try:
    from transformers import LlamaForCausalLM
except ImportError:
    class LlamaForCausalLM:
        pass

LlamaForCausalLM(cfg).gradient_checkpointing_enable()  # unsafe call
""",
    "bound_twice_by_transformers": """
try:
    from transformers import LlamaForCausalLM
except ImportError:
    from transformers.models.llama import LlamaForCausalLM

LlamaForCausalLM(cfg).gradient_checkpointing_enable()  # fix call
""",
    # 2. Methods of objects that are not transformers models.
    "own_module": """
import torch
from torch import nn

class Encoder(nn.Module):
    def gradient_checkpointing_enable(self, **kwargs):  # hazard override
        self.checkpointing = True

    @property
    def is_gradient_checkpointing(self):  # info not-transformers
        return self.checkpointing

class FakeModel:
    def gradient_checkpointing_enable(self):  # hazard override
        pass

encoder = Encoder()
encoder.gradient_checkpointing_enable()  # info not-transformers
print(encoder.is_gradient_checkpointing)  # info not-transformers
double = FakeModel()
double.gradient_checkpointing_enable()  # info not-transformers

class TestWrap:
    class _FakeModel:
        def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):  # hazard override
            self.seen = gradient_checkpointing_kwargs

    def test_it(self):
        model = self._FakeModel()
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={})  # info not-transformers
""",
    "other_libraries": """
from diffusers import UNet2DConditionModel
from sentence_transformers import SentenceTransformer

st = SentenceTransformer("m")
st.gradient_checkpointing_enable()  # info not-transformers
unet = UNet2DConditionModel.from_pretrained("m")
print(unet.is_gradient_checkpointing)  # info not-transformers
""",
    "no_evidence": """
def enable(model):
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})  # unsafe call
""",
    "annotated": """
from transformers import PreTrainedModel

def enable(model: "PreTrainedModel | None"):
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})  # fix call
""",
    # 4. A mixin dataclass that declares the old field, read before TrainingArguments' __post_init__.
    "mixin": """
from dataclasses import dataclass
from transformers import TrainingArguments

@dataclass
class MemoryMixin:
    gradient_checkpointing: bool = False

    def __post_init__(self):
        self.batch = 4 if self.gradient_checkpointing else 1
        super().__post_init__()

@dataclass
class Args(MemoryMixin, TrainingArguments):
    pass

args = Args(output_dir="o", gradient_checkpointing=True)  # hazard mixin-field
""",
    # A mixin that declares no field but reads it in the `__post_init__` the class runs, before calling up.
    "mixin_reads_early": """
from dataclasses import dataclass
from transformers import TrainingArguments

class CheckMixin:
    def __post_init__(self):
        self.on = getattr(self, "gradient_checkpointing", False)
        super().__post_init__()

@dataclass
class Args(CheckMixin, TrainingArguments):
    pass

args = Args(output_dir="o", gradient_checkpointing=True)  # hazard mixin-field
""",
    # `self` passed to a module function before the up-call: what the function reads of its parameter is an early read.
    "passed_to_function": """
from dataclasses import dataclass
from transformers import TrainingArguments

def check(args):
    return args.gradient_checkpointing  # info read

@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        self.on = check(self)
        super().__post_init__()

args = Args(output_dir="o", gradient_checkpointing=True)  # hazard mixin-field
""",
    # A class that declares the new field with a default: TrainingArguments takes the old keyword only while the new
    # field is `None`, so today the keyword is ignored and renamed it takes effect. So for a base in the project that
    # declares it (the subclass inherits it) and for a subclass that redeclares the old field.
    "declares_new_field": """
from dataclasses import dataclass
from transformers import TrainingArguments

@dataclass
class Args(TrainingArguments):
    activation_checkpointing: bool = True

@dataclass
class Sub(Args):
    pass

@dataclass
class Old(TrainingArguments):
    gradient_checkpointing: bool = True  # hazard subclass-default

args = Args(output_dir="o", gradient_checkpointing=False)  # hazard mixin-field
sub = Sub(output_dir="o", gradient_checkpointing=False)  # hazard mixin-field
old = Old(output_dir="o", gradient_checkpointing=False)  # hazard mixin-field
plain = TrainingArguments(output_dir="o", gradient_checkpointing=False)  # fix keyword
""",
    # A write of the old field or the new one before the up-call decides which value TrainingArguments keeps, like
    # an early read (in `__post_init__` or in a method it calls first); a write after it does not.
    "written_early": """
from dataclasses import dataclass
from transformers import TrainingArguments

@dataclass
class Direct(TrainingArguments):
    def __post_init__(self):
        self.gradient_checkpointing = True  # hazard write
        super().__post_init__()

@dataclass
class Augmented(TrainingArguments):
    def __post_init__(self):
        self.gradient_checkpointing |= True  # hazard write
        super().__post_init__()

@dataclass
class ByHelper(TrainingArguments):
    def _reset(self):
        setattr(self, "activation_checkpointing", None)

    def __post_init__(self):
        self._reset()
        super().__post_init__()

@dataclass
class ByDict(TrainingArguments):
    def __post_init__(self):
        self.__dict__["activation_checkpointing"] = None
        super().__post_init__()

@dataclass
class Frozen(TrainingArguments):
    def __post_init__(self):
        object.__setattr__(self, "activation_checkpointing", None)
        super().__post_init__()

@dataclass
class After(TrainingArguments):
    def __post_init__(self):
        super().__post_init__()
        self.activation_checkpointing = True

a = Direct("o", gradient_checkpointing=False)  # hazard mixin-field
b = Augmented("o", gradient_checkpointing=False)  # hazard mixin-field
c = ByHelper("o", gradient_checkpointing=True)  # hazard mixin-field
d = ByDict("o", gradient_checkpointing=True)  # hazard mixin-field
e = Frozen("o", gradient_checkpointing=True)  # hazard mixin-field
f = After("o", gradient_checkpointing=True)  # fix keyword
""",
    # A `__post_init__` defined under `if` and again under `else` may be either: the one that reads early counts.
    "post_init_in_branches": """
from dataclasses import dataclass
from transformers import TrainingArguments

QUIET = True

@dataclass
class Args(TrainingArguments):
    if QUIET:
        def __post_init__(self):
            super().__post_init__()
    else:
        def __post_init__(self):
            print(self.gradient_checkpointing)  # info read
            super().__post_init__()

args = Args("o", gradient_checkpointing=True)  # hazard mixin-field
""",
    # A function `self` is passed to calls a method of the class on it: that method runs as early.
    "passed_then_method_called": """
from dataclasses import dataclass
from transformers import TrainingArguments

def check(args):
    args.validate()

@dataclass
class Args(TrainingArguments):
    def validate(self):
        print(self.gradient_checkpointing)  # info read

    def __post_init__(self):
        check(self)
        super().__post_init__()

args = Args("o", gradient_checkpointing=True)  # hazard mixin-field
""",
    # A field read by a key the tool cannot name before the up-call may be the old one.
    "unnamed_field_read": """
from dataclasses import dataclass
from transformers import TrainingArguments

@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        for key in KEYS:
            print(getattr(self, key))
        super().__post_init__()

args = Args("o", gradient_checkpointing=True)  # unsafe keyword
""",
    "instance_dict_read": """
from dataclasses import dataclass
from transformers import TrainingArguments

def dump(args):
    return dict(vars(args))

@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        dump(self)
        super().__post_init__()

args = Args("o", gradient_checkpointing=True)  # unsafe keyword
""",
    # Fields read by name (none of them old) and writes to the instance dict read no old field.
    "instance_dict_named_keys": """
from dataclasses import dataclass
from transformers import TrainingArguments

@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        print(getattr(self, "seed"), self.__dict__["seed"], vars(self).get("seed"))
        self.__dict__.update(extra=1)
        self.__dict__[KEY] = 2
        super().__post_init__()

args = Args("o", gradient_checkpointing=True)  # fix keyword
""",
    # After the up-call the old field mirrors the new one; Python's own functions read no field by name.
    "passed_after_up_call": """
from dataclasses import dataclass
from transformers import TrainingArguments

def check(args):
    return args.gradient_checkpointing  # info read

@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        print(isinstance(self, TrainingArguments), type(self))
        super(Args, self).__post_init__()
        self.on = check(self)

args = Args(output_dir="o", gradient_checkpointing=True)  # fix keyword
""",
    # A function the tool cannot read, given `self` before the up-call, may read the old field.
    "passed_to_unknown_function": """
from dataclasses import dataclass
from transformers import TrainingArguments
from wandb import log_config

@dataclass
class Args(TrainingArguments):
    def __post_init__(self):
        log_config(config=self)
        super().__post_init__()

args = Args(output_dir="o", gradient_checkpointing=True)  # unsafe keyword
""",
    "base_elsewhere": """
from transformers import TrainingArguments
from .mixins import LoggingMixin

class Args(LoggingMixin, TrainingArguments):
    pass

args = Args(output_dir="o", gradient_checkpointing=True)  # unsafe keyword
""",
    # Missed uses.
    "aliased": """
from transformers import TrainingArguments as HfArgs

class Args(HfArgs):
    gradient_checkpointing: bool = True  # hazard subclass-default

a = HfArgs(output_dir="o", gradient_checkpointing=True)  # fix keyword
""",
    "dicts": """
from transformers import TrainingArguments

args = TrainingArguments(**{"output_dir": "o", "gradient_checkpointing": True})  # fix dict-key
again = TrainingArguments(**{**args.to_dict(), "gradient_checkpointing": False})  # hazard kwargs-unpacked
other = dict(gradient_checkpointing=True)  # info unknown-callee
""",
    "copies": """
import copy
import dataclasses
from dataclasses import replace
from transformers import TrainingArguments

args = TrainingArguments(output_dir="o", activation_checkpointing=True)
off = dataclasses.replace(args, gradient_checkpointing=False)  # hazard replace
off = replace(args, gradient_checkpointing=False)  # hazard replace
copied = copy.deepcopy(args)
copied.gradient_checkpointing = False  # hazard write
""",
    "project_class_name": """
from .config import TrainingArguments

args = TrainingArguments(output_dir="o", gradient_checkpointing=True)  # unsafe keyword
""",
    "own_arguments_class": """
from dataclasses import dataclass

@dataclass
class TrainingArguments:
    gradient_checkpointing: bool = False

args = TrainingArguments(gradient_checkpointing=True)  # info not-transformers
again = TrainingArguments(**{"gradient_checkpointing": True})  # info not-transformers
""",
    # 3. A script whose HfArgumentParser reads its own dataclass that declares the field.
    "own_dataclass_argv": """
from dataclasses import dataclass
from transformers import HfArgumentParser

@dataclass
class ScriptArguments:
    gradient_checkpointing: bool = False

(script_args,) = HfArgumentParser(ScriptArguments).parse_args_into_dataclasses(["--gradient_checkpointing"])  # info own-flag
""",
    # 5. The old names read or set where they are no model's method (openrlhf 0.11.2, issue 18).
    "own_namespace_flags": """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--model.gradient_checkpointing_enable", action="store_true")
parser.add_argument("--flag", dest="gradient_checkpointing_disable")
args = parser.parse_args()
if args.model.gradient_checkpointing_enable:  # info own-flag
    pass
if args.gradient_checkpointing_disable:  # info own-flag
    pass
trainer.args.model.gradient_checkpointing_enable = True  # info own-flag
hook = args.other.gradient_checkpointing_enable  # hazard reference

class Wrapper:
    def hook(self):
        return self.model.gradient_checkpointing_enable  # hazard reference
""",
    "doubles": """
import argparse
import types
from unittest.mock import MagicMock, create_autospec
from transformers import LlamaForCausalLM

args = MagicMock()
args.model.gradient_checkpointing_enable = False  # info not-transformers
double = create_autospec(LlamaForCausalLM)
double.gradient_checkpointing_enable()  # unsafe call
double.gradient_checkpointing_enable.assert_called_once()  # info not-transformers
ns = types.SimpleNamespace(flag=True)
ns.gradient_checkpointing_enable = print  # info not-transformers
parsed = argparse.ArgumentParser().parse_args()
parsed.is_gradient_checkpointing  # info not-transformers
holder = MagicMock()
holder.model = LlamaForCausalLM(cfg)
holder.model.gradient_checkpointing_enable = print  # hazard instance-override
""",
    # A mock put in place of the method takes whatever the new name passes: no `replaced-method` for the calls.
    "mock_in_place_of_the_method": """
from unittest.mock import MagicMock

def train(args, model):
    model.gradient_checkpointing_enable()  # unsafe call

def test_train():
    model = MagicMock()
    model.gradient_checkpointing_enable = MagicMock()  # info not-transformers
    train(MagicMock(), model)
""",
    # A field of the project's own dataclass named like an old method: HfArgumentParser's flag, the project's.
    "own_dataclass_field": """
from dataclasses import dataclass
from transformers import HfArgumentParser, TrainingArguments

@dataclass
class ModelArguments:
    gradient_checkpointing_enable: bool = False

model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()
if model_args.gradient_checkpointing_enable:  # info own-flag
    pass
""",
    # pytest-mock's `mocker` makes the same doubles as unittest.mock; a module-level `mocker` of the project's does not.
    "pytest_mock_doubles": """
def test_train(mocker):
    model = mocker.MagicMock()
    model.gradient_checkpointing_enable()  # unsafe call
    model.gradient_checkpointing_enable.assert_called_once()  # info not-transformers
    other = mocker.Mock()
    other.is_gradient_checkpointing  # info not-transformers
    holder = mocker.NonCallableMagicMock()
    holder.gradient_checkpointing_enable = mocker.MagicMock()  # info not-transformers
    holder.gradient_checkpointing_enable()  # unsafe call
""",
    # Code run in the module's own namespace may replace any name's methods: the calls after it are unproven.
    "exec_in_own_namespace": """
from transformers import LlamaForCausalLM

model = LlamaForCausalLM(cfg)
model.gradient_checkpointing_disable()  # fix call
exec(open("patch.py").read())
model.gradient_checkpointing_enable()  # unsafe call
exec(open("other.py").read(), {})
""",
    "exec_with_own_globals": """
from transformers import LlamaForCausalLM

model = LlamaForCausalLM(cfg)
exec(open("patch.py").read(), {"model": model})
model.gradient_checkpointing_enable()  # fix call

def train(src):
    model = LlamaForCausalLM(cfg)
    exec(src)
    model.gradient_checkpointing_enable()  # unsafe call
""",
}


def _expected(text: str) -> set[tuple[int, str, str]]:
    out = set()
    for number, line in enumerate(text.splitlines(), 1):
        if (m := re.search(r"#\s*(fix|hazard|info|unsafe) ([a-z-]+)\s*$", line)) is not None:
            out.add((number, m.group(1), m.group(2)))
    return out


def _scan(project: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> list[dict[str, object]]:
    capsys.readouterr()
    main(["scan", "--format", "json", *extra, str(project)])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_use_gets_the_verdict_its_evidence_supports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    text = CASES[name].lstrip("\n")
    (tmp_path / "case.py").write_text(text)
    found = {
        (f["line"], "unsafe" if f.get("applicability") == "unsafe" else f["severity"], f["code"])
        for f in _scan(tmp_path, capsys)
    }
    # A keyword renamed with its call is reported too, at its own column: the call's verdict stands for both.
    found -= {(line, severity, "keyword") for line, severity, code in found if code == "call"}
    assert found == _expected(text)


ANY_SUBCLASS = {"annotated"}
"""Cases whose receiver is known only as some model class (an annotation): alone a safe fix, but in a run where
another file's class defines the old method (`compatible_override`, `narrow_override`) that override may answer."""


def test_fix_write_applies_only_the_fixes_with_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    for name, text in CASES.items():
        (tmp_path / f"{name}.py").write_text(text.lstrip("\n"))
    reached = [f for f in _scan(tmp_path, capsys) if Path(str(f["path"])).stem in ANY_SUBCLASS and f["code"] == "call"]
    assert reached and all(f["applicability"] == "unsafe" for f in reached)
    assert all(
        "a class of this project defines `gradient_checkpointing_enable` (" in str(f["message"]) for f in reached
    )
    main(["fix", "--write", str(tmp_path)])
    for name, text in CASES.items():
        after = (tmp_path / f"{name}.py").read_text().splitlines()
        for number, line in enumerate(text.lstrip("\n").splitlines(), 1):
            rewritten = after[number - 1] != line
            marked = line.rstrip().endswith(("# fix call", "# fix keyword", "# fix dict-key"))
            assert rewritten == (marked and name not in ANY_SUBCLASS), (
                name,
                number,
                line,
            )
    main(["fix", "--write", "--unsafe-fixes", str(tmp_path)])
    assert (
        "model.activation_checkpointing_enable(activation_checkpointing_kwargs="
        in (tmp_path / "no_evidence.py").read_text()
    )
    assert "activation_checkpointing=True)  # unsafe keyword" in (tmp_path / "project_class_name.py").read_text()
    assert not [f for f in _scan(tmp_path, capsys) if f["severity"] == "fix"]


def test_a_class_in_another_module_of_the_project_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "modeling.py").write_text(
        "from transformers import LlamaForCausalLM\n\nclass Good(LlamaForCausalLM):\n    pass\n\n"
        "class Narrow(LlamaForCausalLM):\n    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):\n"
        "        super().gradient_checkpointing_enable(gradient_checkpointing_kwargs)\n"
    )
    (pkg / "train.py").write_text(
        "from .modeling import Good, Narrow\n\ngood = Good(cfg)\ngood.gradient_checkpointing_enable()\n"
        "narrow = Narrow(cfg)\nnarrow.gradient_checkpointing_enable()\n"
    )
    verdicts = {(f["line"], f["severity"], f["code"]) for f in _scan(pkg / "train.py", capsys)}
    assert verdicts == {(4, "fix", "call"), (6, "hazard", "narrow-override")}


def test_an_early_read_keeps_the_keyword_through_a_subclass_and_a_module_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A subclass of the class that reads the old field early runs that `__post_init__` too, and so does the class
    reached as an attribute of its imported module: neither keyword is a safe fix."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "args.py").write_text(
        "from dataclasses import dataclass\nfrom transformers import TrainingArguments\n\n@dataclass\n"
        "class MyArgs(TrainingArguments):\n    def __post_init__(self):\n"
        "        self.on = getattr(self, 'gradient_checkpointing')\n        super().__post_init__()\n\n"
        "@dataclass\nclass Fifth(MyArgs):\n    pass\n"
    )
    (pkg / "train.py").write_text(
        "import pkg.args as ca\nfrom transformers import TrainingArguments\nfrom .args import Fifth\n\n"
        'f = Fifth("o", gradient_checkpointing=True)\ng = ca.MyArgs("o", gradient_checkpointing=True)\n'
        'h = TrainingArguments("o", gradient_checkpointing=True)\n'
    )
    verdicts = {(f["line"], f["severity"], f["code"]) for f in _scan(pkg / "train.py", capsys)}
    assert verdicts == {(5, "hazard", "mixin-field"), (6, "hazard", "mixin-field"), (7, "fix", "keyword")}


def test_a_subclass_of_a_class_that_passes_self_to_an_unknown_function_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A subclass inherits its base's `__post_init__`, which passes `self` to a function the tool cannot read: the
    keyword is as unsafe on the subclass, for the base's reason (not "not imported")."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass\nfrom transformers import TrainingArguments\nfrom wandb import log_config\n\n"
        "@dataclass\nclass Base(TrainingArguments):\n    def __post_init__(self):\n        log_config(self)\n"
        "        super().__post_init__()\n\n@dataclass\nclass Mine(Base):\n    pass\n\n"
        'Base("o", gradient_checkpointing=True)\nMine("o", gradient_checkpointing=True)\n'
    )
    found = _scan(tmp_path / "train.py", capsys)
    assert [(f["line"], f["applicability"]) for f in found] == [(15, "unsafe"), (16, "unsafe")]
    for f in found:
        assert "class `Base` passes `self` to `log_config` in `__post_init__` (line 8)" in str(f["message"])


def test_an_early_read_in_a_function_of_another_module_keeps_the_keyword(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`self` passed before the up-call to a function imported from a module of the project, which passes it on to
    another function there: what that one reads of it is an early read, and the reason says where."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "checks.py").write_text(
        "def check(args):\n    return _flag(a=args)\n\n\ndef _flag(a):\n    return a.gradient_checkpointing\n"
    )
    (pkg / "train.py").write_text(
        "from dataclasses import dataclass\nfrom transformers import TrainingArguments\nfrom .checks import check\n\n"
        "@dataclass\nclass MyArgs(TrainingArguments):\n    def __post_init__(self):\n        check(self)\n"
        '        super().__post_init__()\n\nargs = MyArgs("o", gradient_checkpointing=True)\n'
    )
    found = _scan(pkg / "train.py", capsys)
    assert {(f["line"], f["severity"], f["code"]) for f in found} == {(11, "hazard", "mixin-field")}
    assert "(through `check(self)`, then `_flag(a=args)`) (line 6 in checks.py)" in str(found[0]["message"])


def test_import_cycles_and_a_module_importing_itself_end_as_no_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in optimum-habana 1.21.2: its `optimum/habana/transformers/models/whisper/modeling_whisper.py` imports
    from `transformers.models.whisper.modeling_whisper`, which resolves to itself; the scan ended in RecursionError."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    vendored = tmp_path / "transformers" / "models"
    vendored.mkdir(parents=True)
    (vendored / "modeling_x.py").write_text(
        "from transformers.models.modeling_x import XModel\n\nmodel = XModel(cfg)\nmodel.gradient_checkpointing_enable()\n"
    )
    (tmp_path / "a.py").write_text("from b import A\n\na = A()\na.gradient_checkpointing_enable()\n")
    (tmp_path / "b.py").write_text("from a import A\n")
    for path, line in ((vendored / "modeling_x.py", 4), (tmp_path / "a.py", 4)):
        findings = _scan(path, capsys)
        assert [(f["line"], f["code"]) for f in findings] == [(line, "call")], findings


def test_unsafe_fixes_are_marked_in_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "case.py").write_text(CASES["no_evidence"])
    main(["scan", str(tmp_path)])
    out = capsys.readouterr().out
    assert "fix (unsafe) [call]" in out and "2 of the fixes unsafe (applied only with --unsafe-fixes)" in out
    # Why it is unsafe is in the whole message (JSON, SARIF); the text line keeps one short reason.
    main(["scan", "--format", "json", str(tmp_path)])
    messages = [e["message"] for e in json.loads(capsys.readouterr().out) if e["applicability"] == "unsafe"]
    assert any("nothing in this file shows that `model` is a transformers model" in m for m in messages)


def test_a_flag_declared_in_another_module_of_an_unpacked_wheel_is_the_projects_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """openrlhf 0.11.2 (a wheel: no `pyproject.toml`, no `.git`): `trainer/ray/ppo_actor.py` reads
    `args.actor.gradient_checkpointing_enable`, the flag `cli/train_ppo_ray.py` declares; each was a `reference`
    hazard. The project is the outermost package; a flag declared nowhere stays a hazard that says where it looked."""
    package = tmp_path / "openrlhf"
    for folder in (package, package / "cli", package / "trainer" / "ray"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("")
    (package / "trainer" / "__init__.py").write_text("")
    (package / "cli" / "train_ppo_ray.py").write_text(
        'import argparse\n\nparser = argparse.ArgumentParser()\n\n\nparser.add_argument(\n    "--actor.gradient_checkpointing_enable", action="store_true"\n)\n'
    )
    reader = package / "trainer" / "ray" / "ppo_actor.py"
    reader.write_text(
        "def init(strategy):\n    args = strategy.args\n    if args.actor.gradient_checkpointing_enable:\n        pass\n"
        "    if args.critic.gradient_checkpointing_enable:\n        pass\n"
    )
    findings = _scan(reader, capsys, "--target", f"transformers>={SINCE}")
    by_line = {f["line"]: f for f in findings}
    assert {line: (f["severity"], f["code"]) for line, f in by_line.items()} == {
        3: ("info", "own-flag"),
        5: ("hazard", "reference"),
    }
    assert (
        "the project's own flag `--actor.gradient_checkpointing_enable` (`add_argument` at `cli/train_ppo_ray.py:6`)"
        in (by_line[3]["message"])
    )
    assert (
        "no `add_argument('--critic.gradient_checkpointing_enable')` declares it in `openrlhf/`"
        in by_line[5]["message"]
    )


def test_an_attribute_of_a_test_double_says_what_holds_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """openrlhf's `args = MagicMock()` then `args.model.gradient_checkpointing_enable = False` was an
    `instance-override` hazard, "a function assigned to the old method on an instance"."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "case.py").write_text(CASES["doubles"].lstrip("\n"))
    messages = {f["line"]: f["message"] for f in _scan(tmp_path, capsys)}
    assert messages[7].startswith(
        "sets `gradient_checkpointing_enable` on a test double (`args.model` is an attribute of `args`, which holds a "
        "`MagicMock` (from unittest.mock)): a mock's attribute, not the deprecated method nor an override of it"
    )
    assert "on a plain namespace (`ns` holds a `SimpleNamespace` (from types))" in messages[12]
    (tmp_path / "case.py").write_text(CASES["pytest_mock_doubles"].lstrip("\n"))
    messages = {f["line"]: f["message"] for f in _scan(tmp_path, capsys)}
    assert "on a test double (`model` holds a `MagicMock` (from pytest-mock's `mocker`))" in messages[4]


# --- what the verdicts rest on, measured on the installed transformers ------------------------------------------------


@pytest.fixture
def tiny_llama() -> tuple[type, object]:
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    return transformers.LlamaForCausalLM, config


def test_a_narrow_override_breaks_the_new_name_but_not_the_old(tiny_llama: tuple[type, object]) -> None:
    base, config = tiny_llama

    class TinyLlama(base):  # type: ignore[misc, valid-type]
        def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):  # type: ignore[no-untyped-def]
            super().gradient_checkpointing_enable(gradient_checkpointing_kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = TinyLlama(config)
        old.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        assert old.is_activation_checkpointing
        with pytest.raises(
            TypeError, match=r"gradient_checkpointing_enable\(\) got an unexpected keyword argument 'every_n_layers'"
        ):
            TinyLlama(config).activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})


def test_an_override_with_kwargs_keeps_working_under_the_new_name(tiny_llama: tuple[type, object]) -> None:
    base, config = tiny_llama
    calls = []

    class TinyLlama(base):  # type: ignore[misc, valid-type]
        def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(sorted(kwargs))
            super().gradient_checkpointing_enable(gradient_checkpointing_kwargs, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model = TinyLlama(config)
        model.activation_checkpointing_enable()
    assert calls == [["every_n_layers", "offload"]] and model.is_activation_checkpointing


def test_dataclasses_replace_with_the_old_field_is_silently_ignored() -> None:
    import dataclasses

    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        args = transformers.TrainingArguments(output_dir="o", activation_checkpointing=True, report_to="none")
        copy = dataclasses.replace(args, gradient_checkpointing=False)
        assert copy.activation_checkpointing is True  # the old keyword did not turn it off
        assert dataclasses.replace(args, activation_checkpointing=False).activation_checkpointing is False


def test_the_new_method_skips_a_patch_of_the_old_one_on_the_class(
    tiny_llama: tuple[type, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured (unsloth-zoo does this): replacing `PreTrainedModel.gradient_checkpointing_enable` itself changes
    the old name only; `activation_checkpointing_enable()` runs its own code, so a renamed call skips the patch."""
    import transformers

    base, config = tiny_llama
    original, calls = transformers.PreTrainedModel.gradient_checkpointing_enable, []

    def patched(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(sorted(kwargs))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(transformers.PreTrainedModel, "gradient_checkpointing_enable", patched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        base(config).gradient_checkpointing_enable()
        assert calls == [[]]
        base(config).activation_checkpointing_enable(every_n_layers=1, offload=False)
    assert calls == [[]], "the new method went through the patch of the old one"


def test_a_class_level_patch_keeps_its_calls_from_being_renamed_in_every_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "pkg").mkdir()
    patches = (
        "from transformers import PreTrainedModel\n\n_original = PreTrainedModel.gradient_checkpointing_enable\n\n\n"
        "def _patched(self, *args, **kwargs):\n    return _original(self, *args, **kwargs)\n\n\n"
        "PreTrainedModel.gradient_checkpointing_enable = _patched\n"
    )
    train = (
        "import pkg.patches\nfrom transformers import AutoModelForCausalLM\n\n"
        "model = AutoModelForCausalLM.from_pretrained('out')\n"
        "model.gradient_checkpointing_enable()\nmodel.gradient_checkpointing_disable()\n"
    )
    (tmp_path / "pkg" / "patches.py").write_text(patches)
    (tmp_path / "pkg" / "train.py").write_text(train)
    found = {(Path(str(f["path"])).name, f["line"], f["code"], f["severity"]) for f in _scan(tmp_path, capsys)}
    assert ("patches.py", 10, "class-patch", "hazard") in found
    assert ("train.py", 5, "patched-method", "hazard") in found and ("train.py", 6, "call", "fix") in found
    assert main(["fix", "--write", str(tmp_path)]) == 1  # the hazards are left for a person
    capsys.readouterr()
    assert (tmp_path / "pkg" / "train.py").read_text() == train.replace(
        "gradient_checkpointing_disable", "activation_checkpointing_disable"
    )
    assert (tmp_path / "pkg" / "patches.py").read_text() == patches


def test_a_followed_module_gives_the_same_verdict_whichever_file_reached_it_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The module readers were cached with the depth of the first file that followed them, so a chain too long to
    follow from `main.py` became evidence after another file had imported its middle directly."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "d.py").write_text(
        "from transformers import LlamaForCausalLM\n\nclass D(LlamaForCausalLM):\n    pass\n"
    )
    for name, base in (("c", "d"), ("b", "c"), ("a", "b")):
        (tmp_path / f"{name}.py").write_text(f"from {base} import D\n")
    call = "model = D(cfg)\nmodel.gradient_checkpointing_enable()\n"
    (tmp_path / "main.py").write_text("from a import D\n\n" + call)
    (tmp_path / "early.py").write_text("from c import D\n\n" + call)  # checked before main.py, in one process

    def verdict(*files: str) -> list[object]:
        found = json.loads(run("scan", "--format", "json", *files, cwd=tmp_path).stdout)
        return [(f["code"], f.get("applicability")) for f in found if f["path"].endswith("main.py")]

    assert verdict("main.py") == verdict("early.py", "main.py")


def test_an_override_message_depends_on_the_overridden_name_not_on_the_class_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "case.py").write_text(
        "from transformers import LlamaForCausalLM\n\nclass property_llama(LlamaForCausalLM):\n"
        "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):\n        pass\n\n"
        "model = property_llama(cfg)\nmodel.gradient_checkpointing_enable()\n"
    )
    (finding,) = [f for f in _scan(tmp_path / "case.py", capsys) if f["line"] == 8]
    assert finding["code"] == "narrow-override" and "TypeError" in finding["message"], finding


def test_a_class_that_defines_the_old_method_keeps_calls_on_any_subclass_from_being_safe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A receiver known only as some model class (an annotation, a base class's `self`) may be an instance of a
    class elsewhere in the run that overrides the old method narrowly: renamed, that call raises TypeError. A model
    built right there from a transformers class is not one of them."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "pkg").mkdir()
    models = (
        "from transformers import LlamaForCausalLM\n\n\nclass Narrow(LlamaForCausalLM):\n"
        "    def gradient_checkpointing_enable(self):\n        pass\n\n\nclass Base(LlamaForCausalLM):\n"
        "    def setup(self):\n        self.gradient_checkpointing_enable()\n"
    )
    train = (
        "from transformers import AutoModelForCausalLM, PreTrainedModel\n\n\n"
        "def enable(m: PreTrainedModel):\n    m.gradient_checkpointing_enable()\n\n\n"
        "plain = AutoModelForCausalLM.from_pretrained('out')\nplain.gradient_checkpointing_enable()\n"
    )
    (tmp_path / "pkg" / "models.py").write_text(models)
    (tmp_path / "pkg" / "train.py").write_text(train)
    found = {(Path(str(f["path"])).name, f["line"]): f for f in _scan(tmp_path, capsys)}
    assert found[("models.py", 5)]["code"] == "narrow-override"
    for where in (("models.py", 11), ("train.py", 5)):
        assert found[where]["applicability"] == "unsafe", where
        assert "defines `gradient_checkpointing_enable` (pkg/models.py:5)" in str(found[where]["message"]).replace(
            str(tmp_path) + "/", ""
        )
    assert found[("train.py", 9)]["applicability"] == "safe"
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "pyproject.toml").write_text(REQUIREMENT)
    (alone / "train.py").write_text(train)
    assert {f["line"]: f["applicability"] for f in _scan(alone, capsys)} == {5: "safe", 9: "safe"}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("gradient_checkpointing_enable = _enable", "narrow-override"),
        ("gradient_checkpointing_enable = lambda self, **kwargs: None", "override"),
        ("gradient_checkpointing_enable = LlamaForCausalLM.gradient_checkpointing_enable", "override"),
        ("gradient_checkpointing_enable = True", None),
        ("gradient_checkpointing_enable: bool = False", None),
    ],
)
def test_the_old_method_assigned_in_a_class_body_is_a_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, code: str | None
) -> None:
    """`old = fn` in a class body defines the method as a `def` would (narrow when the function takes none of the
    new keywords); a literal or an annotated field of that name is no method."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    text = (
        "from transformers import LlamaForCausalLM\n\n\ndef _enable(self):\n    pass\n\n\n"
        f"class Tiny(LlamaForCausalLM):\n    {body}\n"
    )
    (tmp_path / "models.py").write_text(text)
    at_definition = [f["code"] for f in _scan(tmp_path, capsys) if f["line"] == 9 and f["column"] == 5]
    assert at_definition == ([code] if code else [])


def test_an_up_call_in_a_helper_of_an_override_is_part_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The override calls a helper that calls up (`super()` or the base by name): renamed there, the new method
    would call the override again, a RecursionError, so it is left alone like an up-call in the override itself.
    `super()` in a method of a model subclass reaches its transformers base: a fix, unsafe only where a class of the
    run defines the old method (an instance of a subclass may be one)."""
    project, alone = tmp_path / "project", tmp_path / "alone"
    for folder in (project, alone):
        folder.mkdir()
        (folder / "pyproject.toml").write_text(REQUIREMENT)
    helpers = (
        "from transformers import LlamaForCausalLM\n\n\nclass T(LlamaForCausalLM):\n"
        "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):\n"
        "        self._do(gradient_checkpointing_kwargs)\n\n    def _do(self, gck):\n"
        "        LlamaForCausalLM.gradient_checkpointing_enable(self, gck)\n\n\nclass U(LlamaForCausalLM):\n"
        "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None, **kwargs):\n"
        "        self._do(gradient_checkpointing_kwargs)\n\n    def _do(self, gck):\n"
        "        super().gradient_checkpointing_enable(gck)\n"
    )
    plain = "from transformers import LlamaForCausalLM\n\n\nclass V(LlamaForCausalLM):\n    def setup(self):\n        super().gradient_checkpointing_enable()\n"
    (project / "helpers.py").write_text(helpers)
    assert [(f["line"], f["code"]) for f in _scan(project, capsys)] == [(5, "override"), (13, "override")]
    (alone / "plain.py").write_text(plain)
    [found] = _scan(alone, capsys)
    assert (found["line"], found["code"], found["applicability"]) == (6, "call", "safe")
    (project / "plain.py").write_text(plain)
    reached = [f for f in _scan(project, capsys) if Path(str(f["path"])).name == "plain.py"]
    assert [(f["line"], f["applicability"]) for f in reached] == [(6, "unsafe")]
    assert "defines `gradient_checkpointing_enable`" in str(reached[0]["message"])


def test_the_old_method_replaced_on_a_project_class_is_an_override_of_all_its_instances(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`Tiny.old = fn` on a project's model class was an `instance-override` that said "on an instance": it replaces
    the method for every instance of the class, and the new method calls it (measured in the line above)."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "models.py").write_text(
        "from transformers import LlamaForCausalLM\n\n\nclass Tiny(LlamaForCausalLM):\n    pass\n\n\n"
        "def fn(self, **kwargs):\n    pass\n\n\nTiny.gradient_checkpointing_enable = fn\n"
        'setattr(Tiny, "gradient_checkpointing_enable", fn)\n'
    )
    found = {f["line"]: f for f in _scan(tmp_path, capsys)}
    for line in (12, 13):
        assert found[line]["code"] == "instance-override", found[line]
        assert str(found[line]["message"]).startswith(
            "replaces `gradient_checkpointing_enable` on the class `Tiny` (all its instances): like an override, the "
            "function stays the entry point until 6.0.0 (`activation_checkpointing_enable` calls it with "
            "`every_n_layers=` and `offload=`); override `activation_checkpointing_enable` in `Tiny` instead"
        ), found[line]


def test_a_declared_new_field_and_an_early_write_say_what_decides_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The keyword on a class whose base declares the new field names that declaration and its line; a write of the
    old field in `__post_init__` before the up-call is not "after construction", which it was said to be."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass\nfrom transformers import TrainingArguments\n\n@dataclass\n"
        "class Base(TrainingArguments):\n    activation_checkpointing: bool = True\n\n@dataclass\nclass Sub(Base): ...\n\n"
        "@dataclass\nclass Written(TrainingArguments):\n    def __post_init__(self):\n"
        "        self.gradient_checkpointing = True\n        super().__post_init__()\n\n"
        'Written("o", gradient_checkpointing=False)\nSub("o", gradient_checkpointing=False)\n'
    )
    found = {f["line"]: str(f["message"]) for f in _scan(tmp_path, capsys)}
    assert "but class `Written` writes `self.gradient_checkpointing` in `__post_init__` (line 14) before" in found[17]
    assert "renaming it here may change the value" in found[17]
    declared = "but class `Base` declares the new field `activation_checkpointing` itself (line 6): its default wins"
    assert declared in found[18]
    assert "after construction" not in found[14]
    assert "writes `self.gradient_checkpointing` in `__post_init__` before TrainingArguments' own" in found[14]


@pytest.mark.parametrize(
    ("mixin", "declared"),
    [(False, "line 8 (in args.py)"), (True, "line 6 in args.py")],
    ids=["args-class-imported", "mixin-imported"],
)
def test_a_mixin_field_of_another_module_says_the_line_of_its_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mixin: bool, declared: str
) -> None:
    """A mixin in another module that declares the old field was shown at "line 0"; the subclass in the file that
    uses it was "not in this file" although the tool can read it."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    mixin_text = "@dataclass\nclass Mixin:\n    gradient_checkpointing: bool = False\n"
    subclass = "class MyArgs(Mixin, TrainingArguments): ...\n"
    if mixin:
        (tmp_path / "args.py").write_text(f"from dataclasses import dataclass\n\n\n{mixin_text}")
        train = f"from transformers import TrainingArguments\n\nfrom args import Mixin\n\n{subclass}"
    else:
        (tmp_path / "args.py").write_text(
            "from dataclasses import dataclass\n\nfrom transformers import TrainingArguments\n\n\n"
            f"{mixin_text}\n\n{subclass}"
        )
        train = "from args import MyArgs\n"
    (tmp_path / "train.py").write_text(train + '\nMyArgs("o", gradient_checkpointing=True)\n')
    (finding,) = [f for f in _scan(tmp_path / "train.py", capsys) if f["code"] != "declare"]
    assert finding["code"] == "mixin-field", finding
    assert (
        f"class `MyArgs` inherits the old field from its base `Mixin`, which declares it on {declared}: renaming"
        in str(finding["message"])
    ), finding
    assert "line 0" not in str(finding["message"])


@pytest.mark.parametrize(
    ("imports", "base"),
    [
        ("from pkg import mixins as mx", "mx.Narrow"),
        ("import pkg.mixins", "pkg.mixins.Narrow"),
        ("from pkg import mixins as mx\n\nAlias = mx.Narrow", "Alias"),
        ("from pkg.mixins import Narrow\n\nAlias = Narrow", "Alias"),
    ],
)
def test_a_base_named_through_a_module_or_an_alias_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], imports: str, base: str
) -> None:
    """`mx.Narrow`, `pkg.mixins.Narrow` and `Alias = mx.Narrow` were "not a class the tool can read in this project"
    (an unsafe fix) although the project defines it: a narrow override, like `Narrow` imported by name."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mixins.py").write_text(
        "class Narrow:\n    def gradient_checkpointing_enable(self):\n        super().gradient_checkpointing_enable()\n"
    )
    (tmp_path / "train.py").write_text(
        f"import transformers\n{imports}\n\n\nclass M(\n    {base}, transformers.LlamaForCausalLM\n):\n    pass\n\n\n"
        'model = M.from_pretrained("x")\nmodel.gradient_checkpointing_enable()\n'
    )
    (finding,) = [f for f in _scan(tmp_path / "train.py", capsys) if f["code"] != "declare"]
    assert finding["code"] == "narrow-override", finding
    assert str(finding["message"]).startswith(
        "calls `gradient_checkpointing_enable()`: not rewritten, class `M` overrides `gradient_checkpointing_enable` "
        "(`Narrow`, line 2 in mixins.py), which takes no `gradient_checkpointing_kwargs`, `every_n_layers`, `offload` (nor `**kwargs`)"
    ), finding


@pytest.mark.parametrize(
    ("signature", "code", "then"),
    [
        (
            "self",
            "narrow-override",
            ", and it takes no `gradient_checkpointing_kwargs`, `every_n_layers`, `offload` (nor `**kwargs`): since transformers 5.23.0, "
            "`activation_checkpointing_enable()` (which the Trainer calls) calls the override with",
        ),
        ("self, **kwargs", "override", ": it stays the entry point until 6.0.0"),
    ],
)
def test_a_mixin_listed_before_a_transformers_model_overrides_its_old_method(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], signature: str, code: str, then: str
) -> None:
    """A mixin with no transformers base that `class M(Narrow, LlamaForCausalLM)` puts first was described by the
    Trainer's fallback for a class that only defines the old method; for `M`, the new method calls it as an override."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "models.py").write_text(
        f"from transformers import LlamaForCausalLM\n\n\nclass Narrow:\n    def gradient_checkpointing_enable({signature}):\n"
        "        pass\n\n\nclass M(Narrow, LlamaForCausalLM):\n    pass\n"
    )
    (finding,) = [f for f in _scan(tmp_path, capsys) if f["line"] == 5]
    assert finding["code"] == code, finding
    assert str(finding["message"]).startswith(
        "class `Narrow` subclasses no transformers class, but comes before a transformers model among the bases of "
        f"`M` (line 9): its `gradient_checkpointing_enable` overrides theirs{then}"
    ), finding
    assert "Trainer warns" not in str(finding["message"])


def test_an_override_of_another_old_method_is_named_without_the_enable_keywords(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the new enable method passes an override `every_n_layers=` and `offload=`: the reason for a disable call
    made unsafe by a class that overrides `gradient_checkpointing_disable` does not say it does."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "models.py").write_text(
        "from transformers import LlamaForCausalLM, PreTrainedModel\n\n\nclass Dis(LlamaForCausalLM):\n"
        "    def gradient_checkpointing_disable(self):\n        pass\n\n\n"
        "def off(m: PreTrainedModel):\n    m.gradient_checkpointing_disable()\n"
    )
    [call] = [f for f in _scan(tmp_path, capsys) if f["line"] == 10]
    assert call["applicability"] == "unsafe"
    assert "defines `gradient_checkpointing_disable` (models.py:5)" in str(call["message"]).replace(
        str(tmp_path) + "/", ""
    )
    assert "every_n_layers" not in str(call["message"])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("def _impl(self):\n        pass\n\n    gradient_checkpointing_enable = _impl", "narrow-override"),
        ("gradient_checkpointing_enable = None", "override"),
    ],
)
def test_a_method_of_the_class_body_or_none_assigned_to_the_old_name_is_a_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, code: str
) -> None:
    """`old = _impl` with `_impl` defined in the class body is read like a module's function; `old = None` replaces
    the method too (calling it raises TypeError), unlike a literal flag."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    text = f"from transformers import LlamaForCausalLM\n\n\nclass Tiny(LlamaForCausalLM):\n    {body}\n"
    (tmp_path / "models.py").write_text(text)
    line = text.splitlines().index(f"    {body.splitlines()[-1].strip()}") + 1
    assert [f["code"] for f in _scan(tmp_path, capsys) if f["line"] == line] == [code]


_NARROW_DEF = "def gradient_checkpointing_enable(self):\n{i}    pass"
_WIDE_DEF = "def gradient_checkpointing_enable(self, **kwargs):\n{i}    pass"
_NARROW_ASSIGNED = "gradient_checkpointing_enable = _enable"


@pytest.mark.parametrize(
    ("block", "definition", "code", "call"),
    [
        ("if FLAG:\n        {d}\n    else:\n        pass", _NARROW_DEF, "narrow-override", "narrow-override"),
        ("if FLAG:\n        pass\n    else:\n        {d}", _NARROW_DEF, "narrow-override", "narrow-override"),
        (
            "try:\n        import foo\n    except ImportError:\n        {d}",
            _NARROW_DEF,
            "narrow-override",
            "narrow-override",
        ),
        ("try:\n        pass\n    finally:\n        {d}", _NARROW_DEF, "narrow-override", "narrow-override"),
        ("with open('x'):\n        {d}", _NARROW_DEF, "narrow-override", "narrow-override"),
        ("for _ in ():\n        {d}", _NARROW_DEF, "narrow-override", "narrow-override"),
        ("while FLAG:\n        {d}", _NARROW_DEF, "narrow-override", "narrow-override"),
        ("match FLAG:\n        case 1:\n            {d}", _NARROW_DEF, "narrow-override", "narrow-override"),
        ("if FLAG:\n        {d}", _WIDE_DEF, "override", "call"),
        ("if FLAG:\n        {d}", _NARROW_ASSIGNED, "narrow-override", "narrow-override"),
        (
            "try:\n        pass\n    except ImportError:\n        {d}",
            _NARROW_ASSIGNED,
            "narrow-override",
            "narrow-override",
        ),
    ],
)
def test_a_definition_in_a_compound_statement_of_a_class_body_is_a_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], block: str, definition: str, code: str, call: str
) -> None:
    """A `def` (or `old = fn`) under an `if`, `try`, `with`, loop or `match` of a class body defines the method as one
    at its top level does: it got no finding, and a call on an instance of the class was a safe fix (renamed, the new
    method calls the narrow override with the new keywords: a TypeError)."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    depth = block.split("{d}")[0].rsplit("\n", 1)[1]
    body = block.replace("{d}", definition.replace("{i}", depth))
    text = (
        "from transformers import LlamaForCausalLM\n\nFLAG = 1\n\n\ndef _enable(self):\n    pass\n\n\n"
        f"class Tiny(LlamaForCausalLM):\n    {body}\n\n\n"
        'model = Tiny.from_pretrained("x")\nmodel.gradient_checkpointing_enable()\n'
    )
    (tmp_path / "models.py").write_text(text)
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.strip().startswith(definition.split("(")[0].split(" =")[0]))
    found = {f["line"]: f for f in _scan(tmp_path, capsys)}
    assert found[line]["code"] == code, found
    last = found[len(lines)]
    assert last["code"] == call, last
    if call == "call":
        assert last["applicability"] == "unsafe", last
        assert "and defines `gradient_checkpointing_enable` itself" in str(last["message"]), last


@pytest.mark.parametrize(
    ("models", "applicability", "reason"),
    [
        (
            "class Wide(LlamaForCausalLM):\n    def gradient_checkpointing_enable(self, **kwargs):\n        pass\n",
            "unsafe",
            "a class of this project defines `gradient_checkpointing_enable`",
        ),
        ("", "safe", None),
    ],
    ids=["overridden", "proven"],
)
def test_a_call_through_the_class_of_a_receiver_is_judged_as_one_on_the_receiver(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], models: str, applicability: str, reason: str | None
) -> None:
    """`type(m).old(m)` runs what `m.old()` does: it got "nothing in this file shows that `type(m)` is a transformers
    model", never a safe fix, whatever the file showed of `m`."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "a.py").write_text(
        f"from transformers import LlamaForCausalLM, PreTrainedModel\n\n\n{models}\n\n"
        "def f(m: PreTrainedModel):\n    m.gradient_checkpointing_enable()\n"
        "    type(m).gradient_checkpointing_enable(m)\n\n\n"
        'built = LlamaForCausalLM.from_pretrained("x")\ntype(built).gradient_checkpointing_enable(built)\n'
        "type(built).gradient_checkpointing_enable(other)\n"
    )
    found = [f for f in _scan(tmp_path, capsys) if f["code"] == "call"]
    on_m, through_m, through_built, other = found
    assert through_m["applicability"] == on_m["applicability"] == applicability, found
    assert through_m["message"] == on_m["message"], found
    if reason:
        assert reason in str(through_m["message"]), through_m
    assert through_built["applicability"] == "safe", through_built
    assert other["applicability"] == "unsafe" and "`type(built)`" in str(other["message"]), other


@pytest.mark.parametrize(
    ("function", "code", "call"),
    [("self", "narrow-override", "narrow-override"), ("self, **kwargs", "override", "call")],
)
def test_a_class_made_by_type_with_the_old_method_in_its_namespace_is_a_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], function: str, code: str, call: str
) -> None:
    """`Dyn = type("Dyn", (LlamaForCausalLM,), {"old": fn})` defines the old method as `old = fn` in a class body:
    it got no finding at the key, and a class of the run defining the old method this way did not make the calls on
    a receiver of any subclass elsewhere unsafe."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "m.py").write_text(
        f"from transformers import LlamaForCausalLM\n\n\ndef _fn({function}):\n    pass\n\n\n"
        'Dyn = type("Dyn", (LlamaForCausalLM,), {"gradient_checkpointing_enable": _fn})\n'
        'm = Dyn.from_pretrained("x")\nm.gradient_checkpointing_enable()\n'
    )
    (tmp_path / "use.py").write_text(
        "from transformers import PreTrainedModel\n\n\ndef f(m: PreTrainedModel):\n"
        "    m.gradient_checkpointing_enable()\n"
    )
    found = {(Path(str(f["path"])).name, f["line"]): f for f in _scan(tmp_path, capsys)}
    key = found[("m.py", 8)]
    assert (key["code"], key["column"]) == (code, 42), key
    assert "`Dyn`" in str(key["message"]), key
    assert found[("m.py", 10)]["code"] == call
    elsewhere = found[("use.py", 5)]
    assert elsewhere["applicability"] == "unsafe", elsewhere
    assert "defines `gradient_checkpointing_enable` (" in str(elsewhere["message"]), elsewhere
    assert "m.py:8)" in str(elsewhere["message"]), elsewhere


@pytest.mark.parametrize("registers", [True, False])
def test_what_an_auto_class_loads_may_be_a_class_the_project_registers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], registers: bool
) -> None:
    """`AutoModelForCausalLM.register(MyConfig, Narrow)` makes the Auto class load the project's narrow override for
    its config: a call on what it loads is then an unsafe fix that names the override; without a registration the
    Auto class loads transformers' own classes, a safe fix."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    registration = "AutoModelForCausalLM.register(MyConfig, Narrow)\n" if registers else ""
    (tmp_path / "narrow.py").write_text(
        "from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM\n\n\n"
        "class MyConfig(LlamaConfig):\n    model_type = 'my'\n\n\nclass Narrow(LlamaForCausalLM):\n"
        "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):\n        pass\n\n\n"
        + registration
    )
    (tmp_path / "use.py").write_text(
        "from transformers import AutoModelForCausalLM\n\nmodel = AutoModelForCausalLM.from_pretrained('out')\n"
        "model.gradient_checkpointing_enable()\n"
    )
    [call] = [f for f in _scan(tmp_path, capsys) if Path(str(f["path"])).name == "use.py"]
    assert call["applicability"] == ("unsafe" if registers else "safe")
    if registers:
        assert "defines `gradient_checkpointing_enable` (" in str(call["message"])


def test_a_class_bound_by_a_project_import_and_a_transformers_one_is_unsure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`try: from fast_llama import X` / `except ImportError: from transformers import X`: the project's `X`, whose
    narrow override the new name breaks, may be the one that runs; the call is no safe fix, and says why."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "fast_llama.py").write_text(
        "from transformers import LlamaForCausalLM as _HF\n\n\nclass LlamaForCausalLM(_HF):\n"
        "    def gradient_checkpointing_enable(self):\n        pass\n"
    )
    (tmp_path / "main.py").write_text(
        "try:\n    from fast_llama import LlamaForCausalLM\nexcept ImportError:\n"
        "    from transformers import LlamaForCausalLM\n\nLlamaForCausalLM(cfg).gradient_checkpointing_enable()\n"
    )
    [call] = [f for f in _scan(tmp_path, capsys) if Path(str(f["path"])).name == "main.py"]
    assert call["applicability"] == "unsafe", call
    assert (
        "`LlamaForCausalLM` is bound more than once (`fast_llama.LlamaForCausalLM` on line 2, "
        "`transformers.LlamaForCausalLM` on line 4)" in str(call["message"])
    ), call


def test_a_class_imported_under_try_with_a_none_fallback_is_still_transformers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """unsloth's `_utils.py`: `from transformers import PreTrainedModel` in several functions, `PreTrainedModel = None`
    in one's `except`. No binding is another class, so the patch in another function is still a patch of
    transformers (a hazard here, and on the calls elsewhere in the run), not an assignment on an instance."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "patches.py").write_text(
        "def supports():\n    try:\n        from transformers import PreTrainedModel\n    except Exception:\n"
        "        PreTrainedModel = None\n    return PreTrainedModel is not None\n\n\n"
        "def patch():\n    from transformers import PreTrainedModel\n\n"
        "    def gradient_checkpointing_enable(self, **kwargs):\n        pass\n\n"
        "    PreTrainedModel.gradient_checkpointing_enable = gradient_checkpointing_enable\n"
    )
    (tmp_path / "use.py").write_text("def enable(model):\n    model.gradient_checkpointing_enable()\n")
    found = {(Path(str(f["path"])).name, f["line"], f["severity"], f["code"]) for f in _scan(tmp_path, capsys)}
    assert ("patches.py", 15, "hazard", "class-patch") in found, found
    assert ("use.py", 2, "hazard", "patched-method") in found, found


def test_the_old_method_patched_on_a_project_class_through_its_module_is_an_override(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`models.M.old = narrow` in another module than `M`'s: the calls there are narrow-override hazards, and a call
    elsewhere in the run on some model class may reach it (`Finding.defines`)."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "models.py").write_text(
        "from transformers import LlamaForCausalLM\n\n\nclass M(LlamaForCausalLM):\n    pass\n"
    )
    (tmp_path / "main.py").write_text(
        "import models\n\n\ndef narrow(self):\n    pass\n\n\nmodels.M.gradient_checkpointing_enable = narrow\n"
        "models.M(cfg).gradient_checkpointing_enable()\n"
    )
    (tmp_path / "train.py").write_text(
        "from transformers import PreTrainedModel\n\n\ndef enable(m: PreTrainedModel):\n"
        "    m.gradient_checkpointing_enable()\n"
    )
    found = {(Path(str(f["path"])).name, f["line"]): f for f in _scan(tmp_path, capsys)}
    assert str(found[("main.py", 8)]["message"]).startswith(
        "replaces `gradient_checkpointing_enable` on the class `M` (all its instances)"
    )
    assert found[("main.py", 9)]["code"] == "narrow-override"
    assert found[("train.py", 5)]["applicability"] == "unsafe"
    assert "defines `gradient_checkpointing_enable` (" in str(found[("train.py", 5)]["message"])


@pytest.mark.parametrize(
    ("name", "line", "holds"),
    [
        ("decorator_sets_method", 6, "on `cls`, the class the decorator `narrow_ckpt` is given (all its instances)"),
        ("init_subclass_sets_method", 9, "on `cls`, each subclass of `Base`, in its `__init_subclass__` (all its"),
    ],
)
def test_the_old_method_set_on_a_class_a_function_is_given_says_it_is_on_the_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, line: int, holds: str
) -> None:
    """`cls.old = fn` in a class decorator or in `__init_subclass__` replaces the method of a class, not of one
    instance: the message said "on an instance"."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "case.py").write_text(CASES[name].lstrip("\n"))
    [found] = [f for f in _scan(tmp_path, capsys) if f["line"] == line]
    assert str(found["message"]).startswith(f"replaces `gradient_checkpointing_enable` {holds}"), found


def test_an_override_of_the_old_property_says_the_new_one_does_not_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """transformers' `is_activation_checkpointing` reads nothing of `is_gradient_checkpointing` (the old property reads
    the new one): the override message said the new name calls it."""
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "case.py").write_text(
        "from transformers import LlamaForCausalLM\n\n\nclass M(LlamaForCausalLM):\n    @property\n"
        "    def is_gradient_checkpointing(self):\n        return True\n"
    )
    [found] = _scan(tmp_path, capsys)
    assert found["code"] == "override"
    assert str(found["message"]).startswith(
        "class `M` overrides the property `is_gradient_checkpointing`, which `is_activation_checkpointing` does not "
        "read: a read renamed to `is_activation_checkpointing` skips the override"
    ), found
    assert "calls it" not in str(found["message"])
