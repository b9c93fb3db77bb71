"""The scanner's fast paths give what the slow ones they replace give (`benchmarks/scan.py` measures the speed)."""

from __future__ import annotations

import ast
import bisect
import os
import re
from pathlib import Path

import pytest
from migratekit import PLANNED, whole_parse

from checkpointing_migrate import discover, files
from checkpointing_migrate.findings import FileError
from checkpointing_migrate.hits import MAX_FILE_SIZE
from checkpointing_migrate.pylex import Source, only_planned
from checkpointing_migrate.pysyntax import module_statements
from checkpointing_migrate.python import analyse, statements

TEXTS = [
    "",
    "x = 1",
    "x = 1\n",
    "\n\n",
    "a = 1\r\nb = 2\r\n",
    "a = 1\rb = 2",
    "s = 'é'\nt = '\u2028'\n\x0cu = 3\n",  # U+2028 and form feed start no line for Python
    "def f():\n    return 1\n\n\nclass A:\n    pass",
]


@pytest.mark.parametrize("text", TEXTS)
def test_line_starts_are_where_each_line_begins(text: str) -> None:
    expected = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]
    assert Source(text).starts == expected


@pytest.mark.parametrize("text", TEXTS)
def test_positions_counted_in_any_order_are_the_line_starts_ones(text: str) -> None:
    """`Source.position` counts newlines on from the last offset it was asked about (a file's hits come in order);
    asked out of order, or past the few counts, it still gives what the line starts give."""
    starts = Source(text).starts
    expected = {
        o: (bisect.bisect_right(starts, o), o - starts[bisect.bisect_right(starts, o) - 1] + 1)
        for o in range(len(text) + 1)
    }
    offsets = [*range(len(text) + 1), *reversed(range(len(text) + 1)), 0, len(text), len(text) // 2]
    source = Source(text)
    assert [source.position(o) for o in offsets] == [expected[o] for o in offsets]
    for o in offsets[:20]:
        fresh = Source(text)
        assert fresh.position(len(text) // 3) == expected[len(text) // 3] and fresh.position(o) == expected[o]


def _statements_by_queue(tree: ast.Module, *, nested: bool) -> list[ast.stmt]:
    """`module_statements` as it was before it used a stack (popping the front of a list was quadratic)."""
    found, pending = [], list(tree.body)
    while pending:
        node = pending.pop(0)
        found.append(node)
        if not nested and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inner = [
            n for name in ("body", "orelse", "finalbody") for n in getattr(node, name, []) if isinstance(n, ast.stmt)
        ]
        inner += [n for h in getattr(node, "handlers", []) for n in h.body]
        inner += [n for c in getattr(node, "cases", []) for n in c.body]
        pending[:0] = inner
    return found


def test_statements_come_in_the_same_order_as_before() -> None:
    tree = ast.parse(
        "import a\nif x:\n    def f():\n        y = 1\n    z = 2\nelse:\n    w = 3\ntry:\n    t = 1\n"
        "except E:\n    u = 1\nfinally:\n    v = 1\nclass C:\n    k = 1\nmatch m:\n    case 1:\n        r = 1\nq = 1\n"
    )
    for nested in (True, False):
        assert list(module_statements(tree, nested=nested)) == _statements_by_queue(tree, nested=nested)
    assert len(list(module_statements(tree, nested=True))) == 15


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 70_000])
def test_a_file_is_read_whole_up_to_the_limit(tmp_path: Path, size: int) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x" * size)
    assert files.read(str(path), None) == b"x" * size
    assert files.read(str(path), size) == b"x" * size
    too_big = files.read(str(path), size - 1) if size else b""
    assert isinstance(too_big, FileError) if size else too_big == b""


@pytest.mark.skipif(not os.path.isfile("/proc/self/status"), reason="no /proc")
def test_a_file_that_tells_no_size_is_read_whole() -> None:
    data = files.read("/proc/self/status", MAX_FILE_SIZE)
    assert isinstance(data, bytes) and data.startswith(b"Name:") and len(data) > 100


def _many_files(root: Path) -> None:
    """A project of more files than `run.PARALLEL_FROM`, of every outcome: fixes, hazards, planned names, a class
    patch that changes other files' fixes, files that do not parse or decode, a config, and files with nothing."""
    (root / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["transformers>=5.23"]\n')
    package = root / "pkg"
    package.mkdir()
    for i in range(90):  # of sizes that differ, so the processes take their batches at different paces
        (package / f"train_{i:03}.py").write_text(
            "from transformers import AutoModel, TrainingArguments\n"
            f"model = AutoModel.from_pretrained('m{i}')\n"
            "model.gradient_checkpointing_enable()\n"
            f"args = TrainingArguments('out', gradient_checkpointing={i % 2 == 0})\n" + "x = 1\n" * (i * 37)
        )
    for i in range(70):
        (package / f"layer_{i:03}.py").write_text(
            "from transformers import GradientCheckpointingLayer, PreTrainedModel\n"
            f"class Layer{i}(GradientCheckpointingLayer):\n    pass\n"
            f"class Model{i}(PreTrainedModel):\n    supports_gradient_checkpointing = True\n"
        )
    for i in range(80):
        (package / f"plain_{i:03}.py").write_text(f"VALUE = {i}\n")
    (package / "patch.py").write_text(
        "from transformers import PreTrainedModel\nPreTrainedModel.gradient_checkpointing_enable = lambda self: None\n"
    )
    (package / "broken.py").write_text("model.gradient_checkpointing_enable(\n")
    (package / "latin.py").write_bytes(b"# \xff\nmodel.gradient_checkpointing_enable()\n")
    (root / "config.yaml").write_text("gradient_checkpointing: true\n")
    (root / "train.sh").write_text("python -m pkg.train_001 config.yaml --gradient_checkpointing\n")


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from checkpointing_migrate.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_workers_give_the_output_one_process_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from checkpointing_migrate import run

    _many_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    commands = [
        ["scan", "."],
        ["scan", "--include-planned", "--format", "json", "."],
        ["scan", "--statistics", "--include-planned", "."],
        ["fix", "--unsafe-fixes", "."],
    ]
    monkeypatch.setattr(run, "PARALLEL_FROM", 10**9)
    alone = [_cli(argv, capsys) for argv in commands]
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    monkeypatch.setattr(os, "cpu_count", lambda: 3)  # two workers and this process, whatever the machine has
    monkeypatch.setattr(run, "PARALLEL_FROM", 200)
    shared = [_cli(argv, capsys) for argv in commands]
    assert len(forks) == 2 * len(commands)
    assert shared == alone
    assert [code for code, _, _ in alone] == [1, 1, 1, 1]
    assert "hazard [patched-method]" in alone[0][1] and "does not parse" in alone[0][2]
    assert '"not-renamed"' in alone[1][1] and "cannot be decoded" in alone[1][1]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_worker_that_fails_costs_time_not_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from checkpointing_migrate import run

    _many_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run, "PARALLEL_FROM", 10**9)
    alone = _cli(["scan", "--include-planned", "."], capsys)
    parent, check = os.getpid(), run._check

    def dies_in_a_worker(path: str, options: object, finder: object) -> object:
        if os.getpid() != parent:
            raise MemoryError  # what a worker may meet; it ends, sending nothing
        return check(path, options, finder)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "_check", dies_in_a_worker)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(run, "PARALLEL_FROM", 200)
    assert _cli(["scan", "--include-planned", "."], capsys) == alone


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_ctrl_c_just_after_the_fork_ends_the_worker_not_the_callers_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A SIGINT that reaches a worker before it is inside its `try` would run the caller's code in the child: the
    interrupt is held until it is, so the worker ends, and this process checks its batches."""
    import signal

    from checkpointing_migrate import run

    _many_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run, "PARALLEL_FROM", 10**9)
    alone = _cli(["scan", "--include-planned", "."], capsys)
    escaped, fork = tmp_path / "escaped", os.fork

    def interrupted_fork() -> int:
        pid = fork()
        if pid == 0:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                os.sched_yield()
            except KeyboardInterrupt:
                escaped.touch()  # the interrupt was not held: it would have unwound into the caller's code
                os._exit(3)
        return pid

    monkeypatch.setattr(os, "fork", interrupted_fork)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(run, "PARALLEL_FROM", 200)
    assert _cli(["scan", "--include-planned", "."], capsys) == alone
    assert not escaped.exists()


def test_stopping_a_worker_already_waited_for_is_quiet() -> None:
    """An interrupt between `results`' wait and its bookkeeping leaves a worker marked running whose process is
    gone: stopping it must not raise."""
    from checkpointing_migrate import run

    pid = os.fork() if hasattr(os, "fork") else pytest.skip("workers are forked")
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    read_end, write_end = os.pipe()
    os.close(write_end)
    run._Worker(pid, read_end).stop()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_path_no_batch_can_carry_is_checked_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The walk hands files to the workers in records of `select.PIPE_BUF` bytes, a newline between paths: a path
    with a newline in its name, or one longer than a record, is checked by this process, and the output is what
    one process gives."""
    import select

    from checkpointing_migrate import run

    _many_files(tmp_path)
    (tmp_path / "pkg" / "new\nline.py").write_text("model.gradient_checkpointing_enable()\n")
    deep = tmp_path / "pkg" / ("d" * 80)
    deep.mkdir()
    (deep / "train.py").write_text("model.gradient_checkpointing_enable()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run, "PARALLEL_FROM", 10**9)
    argv = ["scan", "--include-planned", "--format", "json", "."]
    alone = _cli(argv, capsys)
    parent, check, here = os.getpid(), run._check, []

    def noted(path: str, options: object, finder: object) -> object:
        if os.getpid() == parent:
            here.append(path)
        return check(path, options, finder)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "_check", noted)
    monkeypatch.setattr(select, "PIPE_BUF", 64)  # the paths of `_many_files` fit, the deep one does not
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(run, "PARALLEL_FROM", 200)
    assert _cli(argv, capsys) == alone
    assert "pkg/new\nline.py" in here and f"pkg/{deep.name}/train.py" in here
    assert '"path": "pkg/new\\nline.py"' in alone[1] and f'"path": "pkg/{deep.name}/train.py"' in alone[1]
    walked = [i for i in discover.walk([Path(".")]) if isinstance(i, str)]
    assert len(here) < len(walked)  # the worker took its part of the rest


PATTERNS = (
    "build\n*.pyc\n/dist\ndocs/*.md\n**/cache\nlogs/**\na?c\n[ab]x\n!keep.pyc\nfoo\\ \n\\#hash\nout/\n*.tar.gz\n**\n"
)
PATHS = [
    "build",
    "src/build",
    "src/build/x.py",
    "m.pyc",
    "deep/er/m.pyc",
    "dist",
    "src/dist",
    "docs/a.md",
    "x/docs/a.md",
    "cache",
    "a/b/cache",
    "logs/a/b",
    "abc",
    "q/abc",
    "a/c",
    "ax",
    "b/x",
    "keep.pyc",
    "foo ",
    "#hash",
    "out",
    "x.tar.gz",
    "",
]


@pytest.mark.parametrize("lines", [PATTERNS, "build\n", "*.py\n", "/top\n", "a/**/b\n", "\n"])
def test_ignore_levels_match_what_their_whole_pattern_matches(lines: str) -> None:
    from checkpointing_migrate import gitignore

    level = gitignore.Level("/p", gitignore.compile_lines(lines))
    for path in PATHS:
        assert level.may_match(path) == bool(level.any.match(path)), path


def test_the_statements_walk_finds_the_statements_ast_walk_finds_in_its_order() -> None:
    from checkpointing_migrate.python.syntax import statements_walk

    tree = ast.parse(
        "class C:\n    def f(self):\n        self.a = 1\n        if x:\n            self.a = 2\n"
        "        try:\n            pass\n        except E:\n            self.a = [lambda: 3 for _ in y]\n"
        "        match m:\n            case 1:\n                self.a = 4\n        def g():\n            self.a = 5\n"
        "        with o as p:\n            self.a = 6\n"
    )
    method = tree.body[0].body[0]
    holders = (ast.stmt, ast.excepthandler, ast.match_case)
    expected = [n for n in ast.walk(method) if isinstance(n, holders)]
    assert list(statements_walk(method)) == expected
    assert sum(isinstance(n, ast.Assign) for n in expected) == 6


LEXICAL = [  # read statement by statement: each gives what the whole parse gives
    "self.gradient_checkpointing = False\nif self.gradient_checkpointing and self.training:\n    pass\n",
    "class Layer(GradientCheckpointingLayer):\n    supports_gradient_checkpointing = True\n",
    "from transformers.modeling_layers import (\n    Other,\n    GradientCheckpointingLayer,\n)\n",
    "import transformers.GradientCheckpointingLayer\nfrom x import GradientCheckpointingLayer as Base\n",
    "from x import y as GradientCheckpointingLayer\nfrom .gradient_checkpointing import helper\n",
    "def _set_gradient_checkpointing(self, enable=True):\n    pass\nasync def gradient_checkpointing(): pass\n",
    "def forward(\n    self,\n    GradientCheckpointingLayer=False,\n):\n    return GradientCheckpointingLayer\n",
    "f = lambda GradientCheckpointingLayer: 1\nclass GradientCheckpointingLayer(metaclass=M, supports_gradient_checkpointing=1):\n    pass\n",
    "prepare(model, use_gradient_checkpointing=True)\nx = dict(\n    use_gradient_checkpointing=False,\n)\n",
    "@decorate.gradient_checkpointing\ndef f(): pass\n@GradientCheckpointingLayer.wrap\nclass C: pass\n",
    "if a:\n    pass\nelif self.gradient_checkpointing:\n    pass\nelse: x = self.gradient_checkpointing\n",
    "try:\n    pass\nexcept GradientCheckpointingLayer as e:\n    pass\nfinally: self.gradient_checkpointing = 0\n",
    "for GradientCheckpointingLayer in x: pass\nwith a as GradientCheckpointingLayer: pass\nglobal GradientCheckpointingLayer\n",
    '"""self.gradient_checkpointing in a docstring"""\n# self.gradient_checkpointing in a comment\n',
    "s = 'it\\'s self.gradient_checkpointing'\nt = \"a\\\\\"; x.gradient_checkpointing = 1\n",
    "x = 1 + \\\n    self.gradient_checkpointing\ny = [\n    {'k': (GradientCheckpointingLayer,\n)}]\n",
    'if"x" in y: z = self.gradient_checkpointing\nb = rb"\\"" ; c = self.gradient_checkpointing\n',
    "s = '''a \"\"\" b''' ; t = self.gradient_checkpointing\nu = \"\"\"x\n'''\n\"\"\"\nv = GradientCheckpointingLayer\n",
    'x = f"{a}" + self.gradient_checkpointing  # f-string before, not around\n',
    "nom = 'é'; self.gradient_checkpointing = True\n",
    "\tself.gradient_checkpointing = True\n" * 0 + "class A:\n\tdef f(self):\n\t\tself.gradient_checkpointing = 1\n",
    "x = (self\n     .gradient_checkpointing)\n",
    "if self.gradient_checkpointing:  # a comment after the last one (with a bracket\n    pass\n",
    "x = f(\n    a,  # one (\n    # two\n    GradientCheckpointingLayer)\n# three\n  # four\ny = GradientCheckpointingLayer\n",
]
WHOLE = [  # parsed whole, as before (`statements.hits` cannot tell them alone)
    'x = f"{self.gradient_checkpointing}"\n',
    "match x:\n    case GradientCheckpointingLayer():\n        pass\n",
    "try: self.gradient_checkpointing = 1\nexcept E: pass\n",
    "a = 1\r\nself.gradient_checkpointing = 2\r\n",
    "s = 'not closed\nself.gradient_checkpointing = 1\n",
]


@pytest.mark.parametrize("text", LEXICAL)
def test_a_file_of_planned_names_alone_is_read_statement_by_statement(text: str) -> None:
    planned = only_planned(text, PLANNED)
    assert planned is not None
    found = statements.hits(text, PLANNED, planned)
    assert found is not None
    assert [(h.start, h.old, h.message) for h in found] == sorted(
        (h.start, h.old, h.message) for h in whole_parse(text)
    )


@pytest.mark.parametrize("text", WHOLE)
def test_what_a_statement_alone_cannot_tell_is_parsed_whole(text: str) -> None:
    planned = only_planned(text, PLANNED)
    assert planned is not None and statements.hits(text, PLANNED, planned) is None
    try:
        expected = [(h.start, h.old) for h in whole_parse(text)]
    except SyntaxError:
        with pytest.raises(SyntaxError):
            analyse(text, PLANNED)
        return
    assert [(h.start, h.old) for h in analyse(text, PLANNED)] == expected


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_requirement_a_worker_cannot_read_is_reported_as_by_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The workers send back what each project allows (the closing line's lookups run in parallel); a requirement
    that cannot be read is the same usage error, exit 2, as when one process checks every file."""
    from checkpointing_migrate import run

    _many_files(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "o"\ndependencies = ["transformers>=>5"]\n')
    for i in range(40):
        (other / f"m{i}.py").write_text("model.gradient_checkpointing_enable()\n" + "x = 1\n" * i)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run, "PARALLEL_FROM", 10**9)
    alone = _cli(["scan", "."], capsys)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    monkeypatch.setattr(run, "PARALLEL_FROM", 200)
    assert _cli(["scan", "."], capsys) == alone
    assert alone[0] == 2 and "other/pyproject.toml:3:" in alone[2]


def test_a_syntax_error_away_from_the_planned_names_goes_unreported_as_the_page_says() -> None:
    """ "Migrate automatically" says a file whose only uses are planned names is read statement by statement, so a
    syntax error elsewhere in it can go unreported: its planned names are still found."""
    text = "x = = 1\nclass Layer(GradientCheckpointingLayer):\n    pass\n"
    with pytest.raises(SyntaxError):
        ast.parse(text)
    assert [(h.start, h.old) for h in analyse(text, PLANNED)] == [
        (text.index("Gradient"), "GradientCheckpointingLayer")
    ]
