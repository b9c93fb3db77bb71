"""The registry of finding codes: every code is produced by its own example, handlers use no code outside it, and
the adoption report, the site's list and the CLI's `rules`/`explain` all read it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from migratekit import REQUIREMENT

from checkpointing_migrate import codes, findings
from checkpointing_migrate.cli import main
from checkpointing_migrate.hits import Hit
from generator import paths
from generator.measure.adoption_data import EFFECTS

MIGRATE = paths.ROOT / "checkpointing_migrate"


def _scan_json(
    tmp_path: Path, code: codes.Code, *extra: str, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, object]]:
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    name, text = code.example
    (tmp_path / name).write_text(text)
    capsys.readouterr()
    main(["scan", "--format", "json", *code.args, *extra, str(tmp_path / name)])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("code", codes.CODES.values(), ids=lambda c: c.code)
def test_every_code_is_produced_by_its_example(
    tmp_path: Path, code: codes.Code, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _scan_json(tmp_path, code, capsys=capsys)
    assert {"code": code.code, "severity": code.severity} in [
        {"code": f["code"], "severity": f["severity"]} for f in found
    ]


@pytest.mark.parametrize("code", [c for c in codes.CODES.values() if c.gated], ids=lambda c: c.code)
def test_a_fix_code_is_info_when_the_gate_forbids_the_new_name(
    tmp_path: Path, code: codes.Code, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _scan_json(tmp_path, code, "--target", "transformers>=5.20", capsys=capsys)
    assert [f["severity"] for f in found if f["code"] == code.code] and all(
        f["severity"] == "info" for f in found if f["code"] == code.code
    )


def test_every_code_a_handler_names_is_in_the_registry() -> None:
    # The examples prove each code is reachable; this catches a misspelt code on a path no example takes. Read from
    # the syntax tree: `code="..."` keywords of the verdict helpers, and the code argument of `Hit(...)`.
    named: set[str] = set()
    for source in sorted(set(MIGRATE.rglob("*.py")) - {MIGRATE / "codes.py"}):
        for call in (n for n in ast.walk(ast.parse(source.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)):
            values = [k.value for k in call.keywords if k.arg == "code"]
            if isinstance(call.func, ast.Name) and call.func.id == "Hit" and len(call.args) > 4:
                values.append(call.args[4])
            named |= {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    assert named, "the pattern no longer finds the handlers' codes"
    assert named <= set(codes.CODES)
    assert set(codes.CODES) - named == {codes.FILE_ERROR}  # every finding code is used by some handler


def test_a_misspelt_code_or_a_wrong_severity_fails_at_first_use() -> None:
    with pytest.raises(codes.UnknownCode, match="did you mean `call`"):
        Hit(0, "x", None, "fix", "cal", "message")
    with pytest.raises(codes.MisusedCode, match="`write` is a hazard code"):
        Hit(0, "x", None, "fix", "write", "message")
    assert Hit(0, "x", None, "info", "call", "message").severity == "info"  # a gated rename


def test_the_registry_is_consistent_with_the_guide_and_the_report() -> None:
    for code in codes.CODES.values():
        assert code.severity in (*findings.SEVERITIES, "error"), code
        assert code.section is None or code.section in findings.anchors(), code
        assert code.effect is None or code.effect in EFFECTS, code
        assert "\n" not in code.summary and code.summary and code.explanation
    # The report measures each site's effect (a use can raise where its code usually only warns): the registry's
    # effect is the typical one, one of the report's.
    assert {c.effect for c in codes.CODES.values()} - {None} <= set(EFFECTS)


def _forms(code: codes.Code) -> str:
    """The forms that do something else, as the page writes them after the effect (Markdown-escaped)."""
    shown = "; ".join(f"{form.replace('_', chr(92) + '_')}: {effect}" for form, effect in code.forms)
    return f" ({shown})" if shown else ""


def test_the_site_lists_every_code() -> None:
    page = (paths.DOCS_DIR / "generated" / "finding-codes.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| <code>([^<]+)</code> \| (\w+)[^|]*\| ([^|]+) \|", page, re.MULTILINE)
    assert [(c, s, e.strip()) for c, s, e in rows] == [
        (c.code, c.severity, (c.effect or "—") + _forms(c)) for c in codes.CODES.values()
    ]
    for anchor in re.findall(r"\]\(migration-guide\.md#([^)]+)\)", page):
        assert anchor in findings.anchors().values()  # anchors themselves are checked by the link tests


def test_rules_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(codes.CODES)
    assert lines[0].split()[1] == "fix/info" and "hazard" in next(line for line in lines if line.startswith("write "))
    assert main(["rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["code"], d["severity"], d["effect"], d["summary"]) for d in data] == [
        (c.code, c.severity, c.effect, c.summary) for c in codes.CODES.values()
    ]
    assert data[0]["guide"] == findings.link("script")


def test_explain_shows_the_meaning_and_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "write"]) == 0
    out = capsys.readouterr().out
    code = codes.get("write")
    assert out.startswith(f"write: {code.summary}\n") and "severity: hazard" in out and "lost-write" in out
    assert findings.link("pitfalls") in out
    assert all(f"    {line}" in out for line in code.example[1].splitlines())


def test_explain_an_unknown_code_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "overide"]) == 2
    assert "unknown finding code `overide`; did you mean `override`" in capsys.readouterr().err


def test_a_keyword_next_to_unpacking_is_reported_under_the_unpacking_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It used to be a `keyword` hazard, while `keyword` is otherwise a rewrite: one code, one severity (and effect).
    (tmp_path / "pyproject.toml").write_text(REQUIREMENT)
    (tmp_path / "train.py").write_text(
        "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={}, **extra)\n"
    )
    main(["scan", "--format", "json", str(tmp_path / "train.py")])
    found = json.loads(capsys.readouterr().out)
    assert [(f["column"], f["code"], f["severity"]) for f in found] == [
        (7, "kwargs-unpacked", "hazard"),
        (37, "kwargs-unpacked", "hazard"),
    ]


def _fixed_runs(template: str) -> list[str]:
    """The literal runs of a message template between its `{names}`, long enough to be a sentence of its own."""
    return [run.strip(" :;,") for run in re.split(r"\{\w+\}", template) if len(run.strip(" :;,")) >= 30]


def test_each_templated_sentence_is_written_once() -> None:
    """A sentence a code's `messages` holds is in no other template and written inline in no handler: moving it to
    the registry is what lets one edit change it everywhere."""
    owner: dict[str, tuple[str, str]] = {}
    for code in codes.CODES.values():
        for form, template in code.messages.items():
            for run in _fixed_runs(template):
                assert run not in owner or owner[run][0] == code.code, (run, owner.get(run), code.code)
                owner.setdefault(run, (code.code, form))
    for form, template in codes.SHARED.items():  # the sentences every fix code says
        for run in _fixed_runs(template):
            assert run not in owner, (run, owner[run], form)
            owner[run] = ("(shared)", form)
    for form, template in codes.PROBLEMS.items():  # the problems that are no finding (usage, writing, settings)
        for run in _fixed_runs(template):
            assert run not in owner, (run, owner[run], form)
            owner[run] = ("(problems)", form)
    assert owner, "no code has message templates"
    for path in sorted(MIGRATE.rglob("*.py")):
        if path.name == "codes.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        strings = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
        ]
        inline = [run for run in owner if any(run in s for s in strings)]
        assert not inline, f"{path.relative_to(paths.ROOT)} writes {inline[0]!r} inline; use codes.message"


_CONVERTED = (
    "shell.py",
    "hits.py",
    "configreaders.py",
    "python/definitions.py",
    "python/members.py",
    "python/keywords.py",
    "python/evidence.py",
    "python/lookups.py",
    "python/dict_keys.py",
    "dictflow.py",
    "yaml_json.py",
    "launchreaders.py",
    "python/fields.py",
    "notebook.py",
    "markdown.py",
    "vscode.py",
    "declarations.py",
    "records.py",
    "plan.py",
    "verify.py",
    "files.py",
    "discover.py",
    "annotate.py",
    "receivers.py",
    "argsclasses.py",
    "suppress.py",
)
"""Files whose finding sentences all live in the registry: a new one written inline there fails below."""


def test_the_converted_handlers_write_no_sentence_inline() -> None:
    """In these files every literal run of 40 characters or more (outside docstrings) is a pattern or a path, not
    a sentence: a message built inline there, even one no template holds yet, belongs in `codes`. An f-string counts
    as its literal pieces joined (`{}` for each value): a sentence with names filled in is one run."""
    for name in _CONVERTED:
        tree = ast.parse((MIGRATE / name).read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}  # and attributes'
        runs = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
        ]
        runs += [
            "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in n.values)
            for n in ast.walk(tree)
            if isinstance(n, ast.JoinedStr) and id(n) not in docstrings
        ]
        sentences = [r for r in runs if len(r) >= 40 and re.search(r"[a-z]{2,} [a-z]{2,} [a-z]{2,} [a-z]{2,}", r)]
        assert not sentences, f"{name} writes {sentences[0]!r} inline; add it to codes"


def test_the_commands_write_no_sentence_inline_but_their_options_help() -> None:
    """`commands.py` says its usage errors, what `fix --write` did and `explain`'s notes through `codes`: only the
    options' help (argparse's `help=` and a group's description) is written where the option is declared."""
    tree = ast.parse((MIGRATE / "commands.py").read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    helps = set()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            given = [k.value for k in call.keywords if k.arg == "help"]
            given += call.args[1:2] if call.func.attr == "add_argument_group" else []
            helps |= {id(n) for value in given for n in ast.walk(value)}
    runs = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings | helps
    ]
    sentences = [r for r in runs if len(r) >= 40 and re.search(r"[a-z]{2,} [a-z]{2,} [a-z]{2,} [a-z]{2,}", r)]
    assert not sentences, f"commands.py writes {sentences[0]!r} inline; add it to codes.PROBLEMS"
