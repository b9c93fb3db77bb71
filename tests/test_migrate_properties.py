"""Properties of `fix` on generated programs and configs: it is idempotent, its output parses, and on programs
written with the old names only, the doc examples' new→old rewrite (`generator.oldnames`) turns the fixed program
back into the original, byte for byte; so the fixer changes names and nothing else.
"""

from __future__ import annotations

import ast

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet

from checkpointing_migrate import python, rules, yaml_json
from checkpointing_migrate.files import apply
from checkpointing_migrate.hits import Options
from checkpointing_migrate.requirements import Allowed
from checkpointing_migrate.table import load
from generator import paths
from generator.oldnames import OldNames

TABLE = load(paths.TABLE_PATH)
OPTIONS = Options(rules.from_table(TABLE), Allowed.of(SpecifierSet(">=5.23.0"), "test"))
REVERSE = OldNames.from_table(TABLE)

space = st.sampled_from(["", " ", "  "])
receiver = st.sampled_from(["model", "self.model", "trainer.model", "models[0]", "get_model()"])
value = st.sampled_from(["True", "False", "None", '{"use_reentrant": False}', "flag"])
comment = st.sampled_from(["", "  # gradient_checkpointing_enable stays in comments", "  # keep"])


@st.composite
def statement(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 6))
    sp, r, v = draw(space), draw(receiver), draw(value)
    if kind == 0:
        arg = draw(st.sampled_from(["", f"gradient_checkpointing_kwargs{sp}={sp}{v}", v]))
        return f"{r}.gradient_checkpointing_enable({arg})"
    if kind == 1:
        return f"{r}.gradient_checkpointing_disable()"
    if kind == 2:
        return f"x{sp}={sp}{r}.is_gradient_checkpointing"
    if kind == 3:
        cls = draw(st.sampled_from(["TrainingArguments", "SFTConfig", "transformers.TrainingArguments"]))
        sep = draw(st.sampled_from([", ", ",\n    ", ","]))
        return f'args = {cls}(output_dir="o"{sep}gradient_checkpointing={v}{sep}gradient_checkpointing_kwargs={v})'
    if kind == 4:
        return f"args = args.set_training(gradient_checkpointing{sp}={sp}{v})"
    if kind == 5:
        return 'print("gradient_checkpointing is a word in a string")'
    return "pass"


@st.composite
def program(draw: st.DrawFn) -> str:
    lines = []
    for stmt in draw(st.lists(statement(), min_size=1, max_size=8)):
        indent = draw(st.sampled_from(["", "    "]))
        body = stmt.replace("\n", "\n" + indent)
        lines.append(("if True:\n" if indent else "") + indent + body + draw(comment))
    text = "\n".join(lines) + "\n"
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


def fix(text: str) -> str:
    return apply(text, [e for h in python.analyse(text, OPTIONS) if h.severity == "fix" for e in h.edits])


@settings(max_examples=80, deadline=None)
@given(program())
def test_fix_is_idempotent_parses_and_leaves_no_old_name_in_code(source: str) -> None:
    fixed = fix(source)
    tree = ast.parse(fixed)
    assert fix(fixed) == fixed
    olds = set(OPTIONS.rules.members) | set(OPTIONS.rules.fields)
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | {
        k.arg for n in ast.walk(tree) if isinstance(n, ast.keyword) for k in [n]
    }
    assert not used & olds


@settings(max_examples=80, deadline=None)
@given(program())
def test_reverse_of_fix_is_the_original(source: str) -> None:
    assert REVERSE.rewrite(fix(source)) == source


key = st.sampled_from(
    ["output_dir", "learning_rate", "gradient_checkpointing", "gradient_checkpointing_kwargs", "seed"]
)
quoted = st.sampled_from(["{}", '"{}"', "'{}'"])


@st.composite
def config(draw: st.DrawFn) -> str:
    keys = draw(st.lists(key, min_size=1, max_size=5, unique=True))
    lines = [draw(st.sampled_from(["", "# a comment"]))]
    for k in keys:
        lines.append(f"{draw(quoted).format(k)}:{draw(space)} {draw(value).lower()}{draw(comment)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=80, deadline=None)
@given(config())
def test_yaml_fix_renames_keys_and_keeps_values(text: str) -> None:
    hits = yaml_json.analyse_yaml(text, OPTIONS)
    fixed = apply(text, [e for h in hits if h.severity == "fix" for e in h.edits])
    names = {r.old: r.new for r in OPTIONS.rules.keys.values()}
    before, after = yaml.safe_load(text) or {}, yaml.safe_load(fixed) or {}
    assert after == {names.get(k, k): v for k, v in before.items()}
    assert list(after) == [names.get(k, k) for k in before]  # key order kept
    assert len(fixed.splitlines()) == len(text.splitlines())
    assert (
        apply(fixed, [e for h in yaml_json.analyse_yaml(fixed, OPTIONS) if h.severity == "fix" for e in h.edits])
        == fixed
    )
