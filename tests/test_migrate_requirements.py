"""The version gate's reading of a project: which transformers releases it may run, and the line that says so.

Each layout is a project as a user has it (PEP 621, Poetry, PEP 735 groups, requirements files and their includes,
setup.cfg, setup.py, conda); the expected result is the union over every way it may be installed, announced on
stderr with where it came from. Bad declarations are usage errors at `PATH:LINE:COL` (exit 2), nothing written.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from migratekit import SINCE, run

from checkpointing_migrate import NAME

CALL = 'model = AutoModelForCausalLM.from_pretrained("m")\nmodel.gradient_checkpointing_enable()\n'
FIXED = CALL.replace("gradient_checkpointing", "activation_checkpointing")
PEP621 = '[project]\nname = "p"\ndependencies = ["torch", "transformers>=5.23"]\n'
LOW = "transformers>=5.20"
WORKSPACE = (
    '[project]\nname = "root"\n[tool.uv.workspace]\nmembers = {members}\nexclude = {exclude}\n'
    '[tool.uv]\noverride-dependencies = ["transformers==5.22.2"]\n'
)


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # the search stops at the repository
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "train.py").write_text(CALL)
    return tmp_path


LAYOUTS = [
    # one per file kind: (files, rewritten, the announced requirement and its sources)
    ({"pyproject.toml": PEP621}, True, "transformers>=5.23 (pyproject.toml [project.dependencies])"),
    (
        {"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.10"\ntransformers = "^5.23"\n'},
        True,
        "transformers<6,>=5.23 (pyproject.toml [tool.poetry.dependencies])",
    ),
    (
        {"pyproject.toml": '[tool.poetry.dependencies]\ntransformers = "~5.22"\n'},
        False,
        "transformers<5.23,>=5.22 (pyproject.toml [tool.poetry.dependencies])",
    ),
    (
        {"pyproject.toml": '[tool.poetry.dependencies]\ntransformers = {version = "5.24.0", extras = ["torch"]}\n'},
        True,
        "transformers==5.24.0 (pyproject.toml [tool.poetry.dependencies])",
    ),
    (
        {"pyproject.toml": '[tool.poetry.dependencies]\ntransformers = "5.*"\n'},
        False,
        "transformers==5.* (pyproject.toml [tool.poetry.dependencies])",
    ),
    (
        {"pyproject.toml": '[tool.poetry.dependencies]\ntransformers = "*"\n'},
        False,
        "transformers (any version) (pyproject.toml [tool.poetry.dependencies])",
    ),
    (
        {"pyproject.toml": '[tool.poetry.group.train.dependencies]\ntransformers = ">=5.23,<6"\n'},
        True,
        "transformers<6,>=5.23 (pyproject.toml [tool.poetry.group.train.dependencies])",
    ),
    (
        {"pyproject.toml": '[dependency-groups]\nbase = ["transformers>=5.23"]\ntrain = [{include-group = "base"}]\n'},
        True,
        "transformers>=5.23 (pyproject.toml [dependency-groups] base)",
    ),
    (
        {"requirements.txt": "-r https://example.org/r.txt\ntorch\ntransformers==5.24.0  # pinned\n"},
        True,
        "transformers==5.24.0 (requirements.txt)",
    ),
    (
        {"requirements/train.txt": "-r ../requirements-base.txt\n", "requirements-base.txt": "transformers>=5.23\n"},
        True,
        "transformers>=5.23 (requirements-base.txt; requirements/train.txt via requirements-base.txt)",
    ),
    (
        {"requirements.txt": "transformers\n-c constraints.txt\n", "constraints.txt": "transformers==5.24.0\n"},
        True,
        "transformers==5.24.0 (requirements.txt; constraints.txt)",
    ),
    (
        {"setup.cfg": "[options]\ninstall_requires =\n    transformers>5.22.2,<6\n"},
        False,  # 5.22.3 would be allowed
        "transformers<6,>5.22.2 (setup.cfg [options] install_requires)",
    ),
    (
        {
            "setup.py": 'from setuptools import setup\nREQS = ["transformers>=5.23"]\nsetup(name="p", install_requires=REQS)\n'
        },
        True,
        "transformers>=5.23 (setup.py install_requires)",
    ),
    (
        {"environment.yml": "dependencies:\n  - python=3.12\n  - conda-forge::transformers=5.24\n"},
        True,
        "transformers==5.24.* (environment.yml dependencies)",
    ),
    (
        {"environment.yml": "dependencies:\n  - pip\n  - pip:\n      - transformers>=5.23\n"},
        True,
        "transformers>=5.23 (environment.yml dependencies pip)",
    ),
    (
        {
            "requirements.txt": "transformers>=5.23\n-c requirements-pins.txt\n",
            "requirements-pins.txt": "transformers<6\n",
        },
        True,  # a constraints file is not an installation of its own
        "transformers<6,>=5.23 (requirements.txt; requirements-pins.txt)",
    ),
    (
        {
            "setup.py": 'import setuptools\nsetuptools.setup(install_requires=["torch"], extras_require={"hf": ["transformers>=5.20"]})\n'
        },
        False,
        "transformers>=5.20 (setup.py extras_require hf)",
    ),
    # the union over everything the project may install with
    (
        {
            "pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.10"\ntransformers = {version = ">=5.20", optional = true}\n'
            '[tool.poetry.group.dev.dependencies]\ntransformers = "^5.23"\n'
        },
        False,  # an optional dependency (an extra) and a group: two ways to install
        "transformers>=5.20 (pyproject.toml [tool.poetry.dependencies]) or "
        "transformers<6,>=5.23 (pyproject.toml [tool.poetry.group.dev.dependencies])",
    ),
    (
        {"pyproject.toml": PEP621, "requirements/docs.txt": "transformers>=5.20\n"},
        False,  # the docs environment runs 5.20
        "transformers>=5.23 (pyproject.toml [project.dependencies]) or transformers>=5.20 (requirements/docs.txt)",
    ),
    (
        {
            "pyproject.toml": '[tool.poetry.dependencies]\ntransformers = "^5.0"\n',
            "requirements-docs.txt": "transformers>=5.23\n",
        },
        False,  # Poetry's range decides too, not only the docs file
        "transformers<6,>=5.0 (pyproject.toml [tool.poetry.dependencies]) or transformers>=5.23 (requirements-docs.txt)",
    ),
    (
        {"pyproject.toml": PEP621 + '[project.optional-dependencies]\ndev = ["transformers[testing]"]\n'},
        True,  # an extra comes with the core dependencies: it narrows them
        "transformers>=5.23 (pyproject.toml [project.dependencies])",
    ),
    (
        {
            "pyproject.toml": '[project]\nname = "p"\n[project.optional-dependencies]\nnew = ["transformers>=5.23"]\nold = ["transformers>=5.20"]\n'
        },
        False,  # without a core requirement each extra is a way to install
        "transformers>=5.23 (pyproject.toml [project.optional-dependencies] new) or "
        "transformers>=5.20 (pyproject.toml [project.optional-dependencies] old)",
    ),
    (
        {"setup.cfg": "[options.extras_require]\ntrain = transformers>=5.20\n"},
        False,
        "transformers>=5.20 (setup.cfg [options.extras_require] train)",
    ),
    # uv's [tool.uv]: an override replaces every requirement on transformers when uv resolves (pip ignores it), so
    # it is one more way to install; a constraint only narrows uv's resolution, so the pip way keeps the whole range
    (
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["transformers>=5.23.0"]\n'
            '[tool.uv]\noverride-dependencies = ["transformers==5.22.2"]\n'
        },
        False,  # `uv sync` installs 5.22.2, which has no new name
        "transformers>=5.23.0 (pyproject.toml [project.dependencies]) or "
        "transformers==5.22.2 (pyproject.toml [tool.uv] override-dependencies)",
    ),
    (
        {
            "pyproject.toml": '[project]\nname = "p"\n[project.optional-dependencies]\ntrain = ["transformers>=5.23"]\n'
            "[tool.uv]\noverride-dependencies = [\n  \"transformers>=5.24; sys_platform == 'linux'\",\n"
            "  \"transformers>=5.20; sys_platform != 'linux'\",\n]\n"
        },
        False,  # it replaces an extra's requirement too, and each marked override holds somewhere
        "transformers>=5.23 (pyproject.toml [project.optional-dependencies] train) or "
        "transformers>=5.24 (pyproject.toml [tool.uv] override-dependencies) or "
        "transformers>=5.20 (pyproject.toml [tool.uv] override-dependencies)",
    ),
    (
        {
            "pyproject.toml": PEP621 + '[tool.uv]\noverride-dependencies = ["transformers>=5.24", '
            '{package = {name = "peft"}, dependencies = ["transformers>=5.0"]}]\n'
        },
        True,  # a scoped override replaces only what peft requires: the project's own requirement still holds
        "transformers>=5.23 (pyproject.toml [project.dependencies]) or "
        "transformers>=5.24 (pyproject.toml [tool.uv] override-dependencies)",
    ),
    (
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["transformers>=5.20"]\n'
            '[tool.uv]\nconstraint-dependencies = ["transformers>=5.23"]\n'
        },
        False,  # `pip install .` ignores [tool.uv]: 5.20 stays allowed
        "transformers>=5.20 (pyproject.toml [project.dependencies])",
    ),
    # a uv workspace: `uv sync` reads overrides only at the root and applies them to every member
    (
        {
            "pyproject.toml": WORKSPACE.format(members='["sr*"]', exclude="[]"),
            "src/pyproject.toml": '[project]\nname = "m"\ndependencies = ["transformers>=5.23.0"]\n',
        },
        False,  # `uv sync` installs 5.22.2 for the member too
        "transformers>=5.23.0 (src/pyproject.toml [project.dependencies]) or "
        "transformers==5.22.2 (pyproject.toml [tool.uv] override-dependencies)",
    ),
    (
        {
            "pyproject.toml": WORKSPACE.format(members='["*"]', exclude='["src/"]'),
            "src/pyproject.toml": '[project]\nname = "m"\ndependencies = ["transformers>=5.23.0"]\n',
        },
        True,  # excluded: a project of its own, which the root's overrides do not reach
        "transformers>=5.23.0 (src/pyproject.toml [project.dependencies])",
    ),
    (
        {
            "pyproject.toml": PEP621,
            "uv.toml": 'override-dependencies = ["transformers==5.22.2"]\n',
        },
        False,  # `uv pip install .` applies uv.toml's overrides
        "transformers>=5.23 (pyproject.toml [project.dependencies]) or "
        "transformers==5.22.2 (uv.toml override-dependencies)",
    ),
    # markers: each holds in some environments
    (
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = [\n  "transformers>=5.23; python_version >= \'3.12\'",\n  "transformers>=5.20; python_version < \'3.12\'",\n]\n'
        },
        False,
        "transformers>=5.23 (pyproject.toml [project.dependencies]) or transformers>=5.20 (pyproject.toml [project.dependencies])",
    ),
    (
        {
            "pyproject.toml": '[tool.poetry.dependencies]\ntransformers = [{version = "^5.23", python = ">=3.12"}, {version = "^5.24", python = "<3.12"}]\n'
        },
        True,
        "transformers<6,>=5.23 (pyproject.toml [tool.poetry.dependencies]) or transformers<6,>=5.24 (pyproject.toml [tool.poetry.dependencies])",
    ),
]


@pytest.mark.parametrize(("files", "rewritten", "announced"), LAYOUTS)
def test_the_gate_reads_every_declaration_and_says_which(
    tmp_path: Path, files: dict[str, str], rewritten: bool, announced: str
) -> None:
    project = _project(tmp_path, files)
    result = run("fix", "--write", "src", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / "src" / "train.py").read_text() == (FIXED if rewritten else CALL)
    assert result.stderr.splitlines()[0] == f"{NAME}: {announced}"


@pytest.mark.parametrize("broken", [False, True])
def test_a_workspace_root_above_the_repository_is_no_part_of_it(tmp_path: Path, broken: bool) -> None:
    """The search for a uv workspace root stops at the repository's top, the folder that holds `.git`, also when the
    run starts there: a workspace above it (its overrides, or a file that does not parse) changes nothing."""
    above = WORKSPACE.format(members='["*"]', exclude="[]")
    (tmp_path / "pyproject.toml").write_text(above + ("[broken\n" if broken else ""))
    project = _project(tmp_path / "repo", {"pyproject.toml": PEP621})
    result = run("fix", "--write", "src", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / "src" / "train.py").read_text() == FIXED


def test_without_a_requirement_the_run_says_what_that_means(tmp_path: Path) -> None:
    project = _project(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["torch"]\n'})
    result = run("scan", "src", cwd=project)
    assert result.returncode == 0 and " info [call] " in result.stdout
    (line,) = [x for x in result.stderr.splitlines() if x.startswith(f"{NAME}: no transformers requirement found")]
    assert (
        f"every rename is reported as info; declare transformers>={SINCE} or pass --target 'transformers>={SINCE}'"
        in line
    )
    assert str(project) in line  # where the search stopped


def test_an_override_alone_requires_nothing(tmp_path: Path) -> None:
    """uv's override adds no requirement (it replaces those that exist): with nothing else naming transformers the
    project still declares none, so nothing is rewritten."""
    pyproject = (
        '[project]\nname = "p"\ndependencies = ["peft"]\n[tool.uv]\noverride-dependencies = ["transformers>=5.24"]\n'
    )
    project = _project(tmp_path, {"pyproject.toml": pyproject})
    result = run("fix", "--write", "src", cwd=project)
    assert (project / "src" / "train.py").read_text() == CALL
    assert result.stderr.startswith(f"{NAME}: no transformers requirement found")


def test_target_is_announced_and_machine_formats_stay_clean(tmp_path: Path) -> None:
    project = _project(tmp_path, {})
    assert run("scan", "--target", LOW, "src", cwd=project).stderr == f"{NAME}: {LOW} (--target)\n"
    machine = run("scan", "--format", "json", "--target", LOW, "src", cwd=project)
    assert machine.stderr == "" and json.loads(machine.stdout)[0]["severity"] == "info"


def test_a_clean_run_announces_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path, {"pyproject.toml": PEP621})
    (project / "src" / "train.py").write_text("x = 1\n")
    assert run("scan", "src", cwd=project).stderr == ""


BROKEN = [
    (
        {"requirements.txt": "transformers>=>5\n"},
        "requirements.txt:1:1: error: cannot read the requirement 'transformers>=>5'",
    ),
    (
        {"requirements.txt": "torch\n  -r missing.txt\n"},
        "requirements.txt:2:3: error: -r missing.txt: no such file (missing.txt); fix the path or remove the line",
    ),
    (
        {"requirements.txt": "-r a.txt\n", "a.txt": "transformers\n--requirement=requirements.txt\n"},
        "a.txt:2:1: error: --requirement requirements.txt comes back to itself (requirements.txt → a.txt → requirements.txt)",
    ),
    (
        {
            "pyproject.toml": '[dependency-groups]\na = [{include-group = "b"}]\nb = ["transformers", {include-group = "a"}]\n'
        },
        "pyproject.toml:3:23: error: include-group 'a' comes back to itself (a → b → a)",
    ),
    (
        {"pyproject.toml": '[dependency-groups]\na = [{include-group = "nope"}]\nb = ["transformers"]\n'},
        "pyproject.toml:2:7: error: include-group 'nope': no such group in [dependency-groups]; fix the name",
    ),
    (
        {"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.10"\ntransformers = "^5.x.y"\n'},
        "pyproject.toml:3:1: error: cannot read the Poetry constraint '^5.x.y'",
    ),
    (
        {"pyproject.toml": '[project]\ndependencies = ["transformers>=5.23"\n'},
        "pyproject.toml:2:1: error: does not parse as TOML: ",
    ),
    (
        {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["transformers>=5.23"]\nversion = \n'},
        "pyproject.toml:4:11: error: does not parse as TOML: Invalid value; fix the syntax, then run again",
    ),
    (
        {"pyproject.toml": "[project\n"},  # it names no transformers, but the tool cannot know what it says
        "pyproject.toml:1:9: error: does not parse as TOML: Expected ']' at the end of a table declaration; fix",
    ),
    (
        {"requirements.txt": "transformers>=5.23\n", "uv.toml": 'override-dependencies = ["transformers==5.22.2"\n'},
        "uv.toml:1:1: error: does not parse as TOML: Unclosed array; fix the syntax, then run again",
    ),
    (
        {"setup.cfg": "options]\ninstall_requires = transformers>=5.23\n"},
        "setup.cfg:1:1: error: does not parse as INI: File contains no section headers; fix the syntax, then run again",
    ),
    (
        {"setup.py": 'from setuptools import setup\nsetup(install_requires=["transformers>=5.23"]\n'},
        "setup.py:2:6: error: does not parse as Python: '(' was never closed; fix the syntax, then run again",
    ),
    (
        {"pyproject.toml": PEP621 + '[tool.uv]\noverride-dependencies = ["transformers>=>5"]\n'},
        "pyproject.toml:5:27: error: cannot read the requirement 'transformers>=>5'",
    ),
    (
        {"setup.py": 'from setuptools import setup\nsetup(install_requires=read("transformers.txt"))\n'},
        "setup.py:2:24: error: install_requires is computed when setup.py runs, and the tool never runs it",
    ),
    (
        {"environment.yml": "dependencies:\n  - transformers>=>5\n"},
        "environment.yml:2:5: error: cannot read the conda spec 'transformers>=>5'",
    ),
]


@pytest.mark.parametrize(("files", "message"), BROKEN)
def test_a_declaration_that_cannot_be_read_is_a_usage_error(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    project = _project(tmp_path, files)
    (project / "src" / "other.py").write_text(CALL)
    for command in (["scan"], ["fix", "--write"], ["scan", "--format", "sarif"]):
        result = run(*command, "src", cwd=project)
        assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
        first, last = result.stderr.splitlines()[0], result.stderr.splitlines()[-1]
        assert first.startswith(message), result.stderr
        assert result.stderr.count(first) == 1  # once for the project, not once per file
        where = first.split(":")[0]
        assert last.startswith(f"error: the transformers requirement cannot be read from {where} (above)")
    assert (project / "src" / "train.py").read_text() == CALL


def test_a_file_reached_through_a_link_belongs_to_the_project_it_is_in(tmp_path: Path) -> None:
    """A folder or a file linked into a project is the linked-to project's (as `Path.resolve` tells), however many
    files of the same folder are looked up (the lookups are kept per folder as the paths name it)."""
    from checkpointing_migrate.requirements import Finder

    low, high = tmp_path / "low", tmp_path / "high"
    for project, spec in ((low, "transformers>=5.20"), (high, "transformers>=5.23")):
        (project / "pkg").mkdir(parents=True)
        (project / ".git").mkdir()
        (project / "requirements.txt").write_text(spec + "\n")
        (project / "pkg" / "a.py").write_text("")
    (high / "linked").symlink_to(low / "pkg")  # a folder of `low`, seen from `high`
    (high / "pkg" / "b.py").symlink_to(low / "pkg" / "a.py")  # a file of `low`, next to `high`'s own
    finder = Finder()
    named = {
        str(p.relative_to(tmp_path)): finder.for_file(p).describe().split(" (")[0]
        for p in (high / "pkg" / "a.py", high / "linked" / "a.py", high / "linked" / "a.py", high / "pkg" / "b.py")
    }
    assert named == {
        "high/pkg/a.py": "the project allows transformers>=5.23",
        "high/linked/a.py": "the project allows transformers>=5.20",
        "high/pkg/b.py": "the project allows transformers>=5.20",
    }
