"""Launch commands and the files that hold them (issue 18): shell variables and arrays, `bash -c`, `sbatch --wrap`,
`eval`, wrappers (`env -C DIR`, `nice -n 10`, `timeout 5m`), `docker run`, `cd DIR &&`, `pushd`/`popd`, notebook `%run`
and `%%writefile`, Makefiles (with `define` blocks), Dockerfiles (with heredocs), `.vscode/launch.json`, workflow
`run:` steps, batch scripts (`.slurm`), Docker Compose services, `Procfile`, `justfile` and `tox.ini` commands. Each `X.before.EXT` under tests/fixtures/migrate/launchers becomes `X.after.EXT` after `fix --write` (and
`X.unsafe.EXT`, where there is one, with `--unsafe-fixes`), byte for byte; a second run changes nothing.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from checkpointing_migrate.cli import main
from checkpointing_migrate.kinds import kind_of

TREE = Path(__file__).parent / "fixtures" / "migrate" / "launchers"
BEFORE = sorted(p.relative_to(TREE) for p in TREE.rglob("*.before*"))


def _plain(path: Path) -> Path:
    return path.with_name(path.name.replace(".before", ""))


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The fixture tree as a project, fixed once in safe mode and once with `--unsafe-fixes` (and each fixed again)."""
    out = {}
    for mode, extra in (("after", []), ("unsafe", ["--unsafe-fixes"])):
        project = tmp_path_factory.mktemp(mode)
        for path in TREE.rglob("*"):
            name = path.relative_to(TREE)
            if path.is_file() and ".after" not in path.name and ".unsafe" not in path.name:
                (project / _plain(name)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, project / _plain(name))
        assert main(["fix", "--write", *extra, str(project)]) in (0, 1)
        out[mode] = project
    return out


@pytest.mark.parametrize("before", BEFORE, ids=str)
def test_fix_turns_before_into_after(fixed: dict[str, Path], before: Path) -> None:
    after = TREE / before.with_name(before.name.replace(".before", ".after"))
    assert (fixed["after"] / _plain(before)).read_bytes() == after.read_bytes()
    unsafe = TREE / before.with_name(before.name.replace(".before", ".unsafe"))
    assert (fixed["unsafe"] / _plain(before)).read_bytes() == (unsafe if unsafe.exists() else after).read_bytes()


def test_the_pairs_cover_every_new_kind() -> None:
    assert {kind_of(str(TREE / _plain(p))) for p in BEFORE} == {
        "shell", "notebook", "makefile", "dockerfile", "launch", "workflow", "compose", "procfile", "justfile", "tox"
    }  # fmt: skip


def test_a_second_fix_changes_nothing(fixed: dict[str, Path]) -> None:
    for project in fixed.values():
        first = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
        main(
            ["fix", "--write", "--unsafe-fixes", str(project)]
            if project == fixed["unsafe"]
            else ["fix", "--write", str(project)]
        )
        assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == first


EXPECTED = {
    # (file, line, column): (code, severity, applicability) of every finding the scan reports besides the safe fixes
    # the pairs show; suppressed lines (Makefile 13, Dockerfile 8, workflow 19) report nothing.
    (".github/workflows/smoke.yml", 15, 30): ("own-flag", "info", None),  # working-directory: legacy
    (".vscode/launch.json", 18, 22): ("own-flag", "info", None),  # "cwd": "${workspaceFolder}/legacy"
    (".vscode/launch.json", 25, 23): ("unknown-program", "info", None),  # a module: cannot be checked
    ("Dockerfile", 4, 17): ("flag", "fix", "unsafe"),  # ENV, expanded nowhere
    ("Dockerfile", 7, 9): ("flag", "fix", "unsafe"),  # inside the image being built
    ("Dockerfile", 10, 7): ("flag", "fix", "unsafe"),
    ("Makefile", 2, 11): ("own-flag", "info", None),  # $(LEGACY) after `cd legacy &&`
    ("cells.ipynb", 10, 33): ("own-flag", "info", None),  # %run legacy/train_hf.py
    ("cells.ipynb", 30, 38): ("own-flag", "info", None),  # %%bash: cd legacy && …
    ("cells.ipynb", 41, 6): ("config-key", "fix", "unsafe"),  # `%%writefile cfg.yaml`: a config, no reader shown
    ("cells.ipynb", 51, 34): ("config-key", "fix", "unsafe"),  # `%%writefile cfg.json`
    ("legacy/train_hf.py", 5, 22): ("own-flag", "info", None),
    ("run.sh", 10, 15): ("flag", "fix", "unsafe"),  # exported, expanded nowhere here
    ("run.sh", 11, 7): ("both-names", "hazard", None),  # $BOTH holds both names
    ("run.sh", 17, 89): ("flag", "fix", "unsafe"),  # docker run IMAGE python train_hf.py
    ("run.sh", 18, 34): ("own-flag", "info", None),  # (cd legacy && python train_hf.py …)
    ("run.sh", 21, 20): ("own-flag", "info", None),  # after `cd legacy` on its own line
    ("Dockerfile", 13, 20): ("own-flag", "info", None),  # `RUN <<EOF`: after `cd legacy` in the same heredoc
    ("Dockerfile", 17, 3): ("flag", "fix", "unsafe"),  # `RUN <<-EOT bash`, continued
    ("Dockerfile", 23, 20): ("flag", "fix", "unsafe"),  # `COPY <<EOF /app/train.sh`
    ("Dockerfile", 25, 24): ("flag", "fix", "unsafe"),  # the next instruction: back in the build's folder
    ("Dockerfile", 27, 24): ("own-flag", "info", None),  # `WORKDIR legacy` in /app, where `COPY . .` put the project
    ("Dockerfile", 29, 24): ("unknown-program", "info", None),  # `WORKDIR /opt/other`: no project folder copied there
    ("Dockerfile", 33, 24): ("own-flag", "info", None),  # another stage: `COPY legacy /srv`, `WORKDIR /srv`
    ("Dockerfile", 36, 1): ("config-key", "fix", "unsafe"),  # `COPY <<EOF /app/cfg.yaml`: a config, no reader shown
    ("Dockerfile", 39, 3): ("config-key", "fix", "unsafe"),  # `COPY <<'EOF' cfg.json`
    ("env.Dockerfile", 4, 18): ("own-flag", "info", None),  # expanded only in `WORKDIR /app/legacy`
    ("env.Dockerfile", 5, 16): ("own-flag", "info", None),  # expanded in /app and in /app/legacy: the least sure
    ("env.Dockerfile", 6, 16): ("flag", "fix", "unsafe"),  # expanded only in /app
    ("dirs.sh", 4, 20): ("own-flag", "info", None),  # after `pushd legacy`
    ("dirs.sh", 7, 48): ("own-flag", "info", None),  # `pushd legacy > /dev/null && python …`
    ("dirs.sh", 10, 20): ("unknown-program", "info", None),  # a `popd` with no `pushd` left: the folder is not known
    ("moved.ipynb", 19, 26): ("own-flag", "info", None),  # `!python train_hf.py` after a cell's `%cd legacy`
    ("moved.ipynb", 42, 26): ("unknown-program", "info", None),  # after `os.chdir(...)`: the folder is not known
    ("abbrev.sh", 3, 18): ("own-flag", "info", None),  # the script's `--gradient_checkpointing_level` takes it
    ("abbrev.sh", 4, 18): ("own-flag", "info", None),  # `--flag=value` too
    ("abbrev.sh", 7, 22): ("own-flag", "info", None),  # renamed, its `--activation_checkpointing_policy` would take it
    # A program named by a shell expansion: reported at the flag, with why, instead of nothing.
    ("programs.sh", 4, 23): ("unknown-program", "info", None),  # `$CMD --flag`
    ("programs.sh", 5, 72): ("unknown-program", "info", None),  # `for s in …; do python $s --flag`
    ("programs.sh", 6, 38): ("unknown-program", "info", None),  # `run() { python "$@" --flag; }`
    ("programs.sh", 8, 16): ("unknown-program", "info", None),  # `srun -N 2 $CMD --flag`
    ("programs.sh", 9, 39): ("unknown-program", "info", None),  # `torchrun --nproc_per_node 2 "$SCRIPT" --flag`
    ("programs.sh", 12, 32): ("unknown-program", "info", None),  # `accelerate launch -m pkg.train`: a module
    ("programs.sh", 13, 56): ("unknown-program", "info", None),  # `accelerate launch … --module pkg.train`
    ("programs.sh", 14, 42): ("unknown-program", "info", None),  # `torchrun … -m pkg.train`
    ("programs.sh", 15, 30): ("unknown-program", "info", None),  # `deepspeed --module pkg.train`
    ("programs.sh", 16, 52): ("unknown-program", "info", None),  # `python -m torch.distributed.run --module …`
    # `eval`: from the first expansion of the command line it runs on, no program is known to get the flag.
    ("eval.sh", 8, 12): ("unknown-program", "info", None),  # `eval "$CMD --flag"`
    ("eval.sh", 9, 35): ("unknown-program", "info", None),  # `eval "python train_hf.py ${EXTRA} --flag"`
    ("eval.sh", 10, 40): ("unknown-program", "info", None),  # `eval "$(command -v python) train_hf.py --flag"`
    ("eval.sh", 11, 39): ("unknown-program", "info", None),  # the same in backticks
    # Wrappers: the command after their options is judged as written directly; after an option not followed, no
    # program is known.
    ("wrappers.sh", 27, 34): ("own-flag", "info", None),  # `env -C legacy python train_hf.py`
    ("wrappers.sh", 29, 34): ("unknown-program", "info", None),  # `env -C "$DIR"`: the folder is not known
    ("wrappers.sh", 31, 29): ("unknown-program", "info", None),  # `env -S '…'`
    ("wrappers.sh", 32, 32): ("unknown-program", "info", None),  # `nice --frob`
    ("wrappers.sh", 33, 16): ("unknown-program", "info", None),  # `timeout 5 $CMD`
    ("wrappers.sh", 35, 12): ("flag", "fix", "unsafe"),  # $NICE_ARGS also after `nice --frob`
    ("wrappers.sh", 38, 13): ("flag", "fix", "unsafe"),  # $SPLIT_ARGS also after `env -S`
    # Batch scripts without a `#!` line, and the files of other tools that start programs.
    ("job.slurm", 4, 33): ("own-flag", "info", None),  # `cd legacy && …`; the `#SBATCH` directive is a comment
    ("Procfile", 3, 41): ("own-flag", "info", None),  # `legacy: cd legacy && …`
    ("justfile", 9, 37): ("own-flag", "info", None),  # `cd legacy && …` in a recipe line
    ("justfile", 14, 24): ("own-flag", "info", None),  # a `#!/usr/bin/env bash` recipe: one script, after `cd legacy`
    ("tox.ini", 16, 49): ("own-flag", "info", None),  # `changedir = legacy`
    ("docker-compose.yml", 4, 50): ("flag", "fix", "unsafe"),  # `command:` string, in the image `trainer:latest`
    ("docker-compose.yml", 9, 44): ("flag", "fix", "unsafe"),  # `entrypoint: [...]`, in the service's container
    ("docker-compose.yml", 15, 9): ("flag", "fix", "unsafe"),  # `command:` as a block list
}


def test_every_use_is_found_at_its_line_and_column(capsys: pytest.CaptureFixture[str], fixed: dict[str, Path]) -> None:
    project = fixed["after"].parent / "scan"
    shutil.copytree(fixed["after"], project)
    for before in BEFORE:  # the unfixed files, so the safe fixes are reported too
        shutil.copy(TREE / before, project / _plain(before))
    capsys.readouterr()
    assert main(["scan", "--format", "json", "--strict-ignores", str(project)]) == 1
    found = {
        (str(Path(e["path"]).relative_to(project)), e["line"], e["column"]): (
            e["code"],
            e["severity"],
            e["applicability"],
        )
        for e in json.loads(capsys.readouterr().out)
    }
    assert {k: v for k, v in found.items() if v != ("flag", "fix", "safe")} == EXPECTED
    safe = {k for k, v in found.items() if v == ("flag", "fix", "safe")}
    changed = set()
    for before in BEFORE:
        old = (TREE / before).read_text().splitlines()
        new = (TREE / before.with_name(before.name.replace(".before", ".after"))).read_text().splitlines()
        changed |= {(str(_plain(before)), n) for n, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b}
    assert {(path, line) for path, line, _ in safe} == changed  # one safe fix on each changed line, none elsewhere


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Makefile", "makefile"),
        ("GNUmakefile", "makefile"),
        ("rules.mk", "makefile"),
        ("makefile.py", "python"),
        ("Dockerfile", "dockerfile"),
        ("gpu.Dockerfile", "dockerfile"),
        ("Dockerfile.gpu", "dockerfile"),
        ("Containerfile", "dockerfile"),
        (".vscode/launch.json", "launch"),
        (".vscode/settings.json", "json"),
        ("launch.json", "json"),
        (".github/workflows/ci.yaml", "workflow"),
        (".github/dependabot.yml", "yaml"),
        ("job.sbatch", "shell"),
        ("job.pbs", "shell"),
        ("train.job", "shell"),
        ("docker-compose.yml", "compose"),
        ("docker-compose.gpu.yml", "compose"),
        ("compose.yaml", "compose"),
        ("compose.gpu.yml", "yaml"),
        ("Procfile", "procfile"),
        ("Justfile", "justfile"),
        ("tox.ini", "tox"),
        ("setup.ini", None),
    ],
)
def test_files_are_known_by_name(name: str, kind: str) -> None:
    assert kind_of(name, sniff=False) == kind


def test_a_walk_checks_launch_json_unless_vscode_is_excluded_by_the_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the project's folder, which `--force-exclude` matches the patterns from
    (tmp_path / ".vscode").mkdir()
    shutil.copy(TREE / ".vscode" / "launch.before.json", tmp_path / ".vscode" / "launch.json")
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    shutil.copy(TREE / "train_hf.py", tmp_path)
    assert main(["scan", str(tmp_path)]) == 1  # ruff's default excludes leave `.vscode` out, but not launch.json
    assert "launch.json:10:46: fix [flag]" in capsys.readouterr().out
    assert main(["scan", "--extend-exclude", ".vscode", str(tmp_path)]) == 0
    assert "launch.json" not in capsys.readouterr().out
    # pre-commit names the file with --force-exclude: what a walk checks is checked then too
    assert main(["scan", "--force-exclude", ".vscode/launch.json"]) == 1
    assert main(["scan", "--force-exclude", "--extend-exclude", ".vscode", ".vscode/launch.json"]) == 0


@pytest.mark.parametrize("before", BEFORE, ids=str)
def test_fix_stdin_prints_the_fixed_text(
    before: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((TREE / before).read_bytes())))
    main(["fix", "--stdin-filename", str(TREE / _plain(before)), "-"])
    after = TREE / before.with_name(before.name.replace(".before", ".after"))
    assert capsysbinary.readouterr().out == after.read_bytes()


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("Dockerfile", "RUN <<EOF\npython train_hf.py --gradient_checkpointing\n", "Dockerfile:2:20"),  # not closed
        ("Dockerfile", "RUN <<A <<B\nB\nA\n  python train_hf.py --gradient_checkpointing\n", "Dockerfile:4:22"),
        ("Dockerfile", "COPY <<EOF\npython train_hf.py --gradient_checkpointing\nEOF\n", ""),  # no file: not read
        ("Dockerfile", "RUN <<\nRUN <<'EOF\n--gradient_checkpointing\n", ""),
        ("Makefile", "define A\n\t$(A)\npython train_hf.py --gradient_checkpointing\n", "Makefile:3:20"),
        ("Makefile", "endef\ndefine\n$(eval $(eval A\ndefine A\n--gradient_checkpointing\nendef endef\n", ""),
        ("run.sh", "popd\npopd +1\npushd\npushd -n a b\npython train_hf.py --gradient_checkpointing\n", "run.sh:5:20"),
    ],
)
def test_broken_heredocs_defines_and_folder_stacks_never_raise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, where: str
) -> None:
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    shutil.copy(TREE / "train_hf.py", tmp_path)
    (tmp_path / name).write_text(text)
    assert main(["scan", str(tmp_path)]) in (0, 1)
    out = capsys.readouterr().out
    assert (f"{where}: " in out) if where else "0 findings" in out


def test_a_fix_inside_a_string_quoted_with_escapes_is_an_info_in_json_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its quoting does not map one to one, so the fix becomes an info at the string; JSON once raised on it.
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    shutil.copy(TREE / "train_hf.py", tmp_path)
    (tmp_path / "run.sh").write_text('bash -c "python train_hf.py --gradient_checkpointing \\"x\\""\n')
    assert main(["scan", "--format", "json", str(tmp_path)]) == 0  # an info only
    [finding] = json.loads(capsys.readouterr().out)
    assert (finding["code"], finding["severity"], finding["applicability"]) == ("flag", "info", None)


def test_a_written_config_that_does_not_parse_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A `%%writefile cfg.yaml` (or `tpl.py`) cell or a `COPY <<EOF cfg.json` heredoc may be a template: no finding,
    no error."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    cell = {"cell_type": "code", "source": ["%%writefile cfg.yaml\n", "gradient_checkpointing: [{{ flag }\n"]}
    code = {"cell_type": "code", "source": ["%%writefile tpl.py\n", "model.gradient_checkpointing_enable({{ x }\n"]}
    (tmp_path / "cells.ipynb").write_text(json.dumps({"cells": [cell, code], "metadata": {}, "nbformat": 4}))
    (tmp_path / "Dockerfile").write_text('COPY <<EOF cfg.json\n{"gradient_checkpointing": {{ flag }}\nEOF\n')
    capsys.readouterr()
    assert main(["scan", "--format", "json", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_a_script_in_an_absolute_folder_is_read_only_inside_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cd /srv/app && python train.py` names a folder of the machine it runs on: a script found there on the machine
    that scans is no evidence, unless the path lies inside the project."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    shutil.copytree(TREE / "legacy", project / "legacy")
    for folder in (project, elsewhere):
        folder.mkdir(exist_ok=True)
        shutil.copy(TREE / "train_hf.py", folder)  # reads the flag with HfArgumentParser
    shutil.copy(TREE / "pyproject.toml", project)
    (project / ".git").mkdir()
    (project / "run.sh").write_text(
        f"cd {elsewhere} && python train_hf.py --gradient_checkpointing\n"
        f"python {elsewhere}/train_hf.py --gradient_checkpointing\n"
        f"cd {project}/legacy && python train_hf.py --gradient_checkpointing\n"
        f"python {project}/train_hf.py --gradient_checkpointing\n"
    )
    capsys.readouterr()
    main(["scan", "--format", "json", str(project / "run.sh")])
    found = [(e["line"], e["code"], e["severity"]) for e in json.loads(capsys.readouterr().out)]
    assert found == [(1, "unknown-program", "info"), (2, "unknown-program", "info"), (3, "own-flag", "info"),
                     (4, "flag", "fix")]  # fmt: skip


def test_a_flag_a_script_option_takes_by_prefix_matching_names_that_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse gives `--gradient_checkpointing` to the one option it abbreviates (`abbrev.py`), and stops on it when
    it abbreviates two, declared here on a parser a function is given (argparse's default: `allow_abbrev=True`)."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    shutil.copy(TREE / "abbrev.py", tmp_path)
    (tmp_path / "two.py").write_text(
        "import argparse\n\n\ndef add(parser):\n"
        "    parser.add_argument('--gradient_checkpointing_level')\n"
        "    parser.add_argument('--gradient_checkpointing_mode')\n"
    )
    (tmp_path / "run.sh").write_text(
        "python abbrev.py --gradient_checkpointing\npython two.py --gradient_checkpointing\n"
    )
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path / "run.sh")])
    one, two = json.loads(capsys.readouterr().out)
    assert (one["code"], two["code"]) == ("own-flag", "own-flag")
    assert one["message"].startswith(
        "`abbrev.py` defines `--gradient_checkpointing_level` with `add_argument`, which takes "
        "`--gradient_checkpointing` by argparse's prefix matching"
    )
    assert "`--gradient_checkpointing_level` and `--gradient_checkpointing_mode`" in two["message"]
    assert "ambiguous" in two["message"]


def test_a_flag_after_an_expansion_in_eval_says_the_expansion_is_read_as_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval "$CMD --flag"` runs what `$CMD` holds as shell code: the finding names the expansion, not a program."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "run.sh").write_text('CMD="python train_hf.py"\neval "$CMD --gradient_checkpointing"\n')
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path / "run.sh")])
    [finding] = json.loads(capsys.readouterr().out)
    assert (finding["line"], finding["column"], finding["code"]) == (2, 12, "unknown-program")
    assert finding["message"].startswith(
        "`--gradient_checkpointing` comes after `$CMD` in the command line `eval` runs"
    )


def test_a_flag_after_a_wrapper_option_not_followed_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`env -S '…' --flag`: the tool does not follow `-S`, so the finding names it and its wrapper, not a program."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "run.sh").write_text("env -S 'python train_hf.py' --gradient_checkpointing\n")
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path / "run.sh")])
    [finding] = json.loads(capsys.readouterr().out)
    assert (finding["line"], finding["column"], finding["code"]) == (1, 29, "unknown-program")
    assert finding["message"].startswith(
        "`--gradient_checkpointing` comes after `-S`, an option of `env` the tool does not follow"
    )


def test_a_script_that_looks_for_the_flag_in_its_words_itself_gets_an_unsafe_fix_naming_the_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`train.py` parses its arguments with HfArgumentParser but also picks its batch size by `"--gradient_checkpointing"
    in sys.argv`: renamed, that test no longer sees the flag, so the rename is not safe."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "train.py").write_text(
        "import sys\nfrom transformers import HfArgumentParser, TrainingArguments\n\n"
        "use_gc = '--gradient_checkpointing' in sys.argv\n"
        "(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n"
    )
    (tmp_path / "run.sh").write_text("python train.py --output_dir out --gradient_checkpointing\n")
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path / "run.sh")])
    (found,) = json.loads(capsys.readouterr().out)
    assert (found["code"], found["applicability"]) == ("flag", "unsafe")
    assert (
        "`train.py` parses it with an HfArgumentParser, but it also looks for `--gradient_checkpointing` among its "
        "words itself (`'--gradient_checkpointing' in sys.argv`, `train.py:4`)" in found["message"]
    )


@pytest.mark.parametrize(
    ("config", "code", "applicability", "says"),
    [
        ("activation_checkpointing: true\n", "both-names", None, "(the key of `sft.yaml`, its `--config`)"),
        (
            "gradient_checkpointing: true\n",
            "flag",
            "unsafe",
            "`sft.yaml`, its `--config`, sets `gradient_checkpointing`",
        ),
        (None, "flag", "unsafe", "it is also given `sft.yaml` (`--config`), which the tool cannot read"),
    ],
    ids=["new-key", "old-key", "unread"],
)
def test_a_flag_given_with_a_trl_config_that_sets_either_name_is_never_a_safe_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config: str | None,
    code: str,
    applicability: str | None,
    says: str,
) -> None:
    """`TrlParser` makes the `--config` file's keys its defaults: with `activation_checkpointing: true` there, the old
    flag's `false` loses to the file's new key, and renamed it wins (measured: `ckpt` goes from True to False)."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "sft.py").write_text(
        "from trl import SFTConfig, TrlParser\n\n(args,) = TrlParser((SFTConfig,)).parse_args_and_config()\n"
    )
    if config is not None:
        (tmp_path / "sft.yaml").write_text("output_dir: out\n" + config)
    (tmp_path / "run.sh").write_text("python sft.py --config sft.yaml --gradient_checkpointing false\n")
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path / "run.sh")])
    (found,) = json.loads(capsys.readouterr().out)
    assert (found["code"], found.get("applicability")) == (code, applicability)
    assert says in found["message"]


def test_an_args_file_holds_flags_of_the_script_that_reads_it(tmp_path: Path) -> None:
    """`parse_args_into_dataclasses()` reads `train.args` next to `train.py` (`look_for_args_file=True` by default),
    and the file `args_filename=` names: their flags warn as on the command line, and are fixed by the same rule; an
    `.args` file no script reads (`look_for_args_file=False`, or no script at all) is left alone."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    parse = (
        "from transformers import HfArgumentParser, TrainingArguments\n\nparser = HfArgumentParser(TrainingArguments)\n"
    )
    (tmp_path / "train.py").write_text(parse + "(args,) = parser.parse_args_into_dataclasses()\n")
    (tmp_path / "sweep.py").write_text(
        parse + "(args,) = parser.parse_args_into_dataclasses(args_filename='sweep.args')\n"
    )
    (tmp_path / "off.py").write_text(parse + "(args,) = parser.parse_args_into_dataclasses(look_for_args_file=False)\n")
    flags = "--output_dir out\n--gradient_checkpointing true\n"
    for name in ("train", "sweep", "off", "lonely"):
        (tmp_path / f"{name}.args").write_text(flags)
    assert main(["fix", "--write", str(tmp_path)]) in (0, 1)
    renamed = flags.replace("--gradient_checkpointing", "--activation_checkpointing")
    for name, wanted in (("train", renamed), ("sweep", renamed), ("off", flags), ("lonely", flags)):
        assert (tmp_path / f"{name}.args").read_text() == wanted, name


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("justfile", "train:\n    python train_hf.py --gradient_checkpointing \\\n      --bf16  # {ignore}\n"),
        (
            "tox.ini",
            "[testenv]\ncommands =\n    python train_hf.py --gradient_checkpointing \\\n      --bf16  # {ignore}\n",
        ),
    ],
    ids=["justfile", "tox"],
)
def test_an_ignore_comment_after_a_continued_command_covers_its_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    shutil.copy(TREE / "train_hf.py", tmp_path)
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / name).write_text(text.format(ignore="checkpointing-migrate: ignore[flag]"))
    assert main(["scan", "--strict-ignores", str(tmp_path / name)]) == 0, capsys.readouterr().out


def test_a_flag_of_the_scripts_own_dataclass_says_so_in_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The short reason of `own-flag` says `add_argument`; a flag a dataclass field of the script's makes says that."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass\n\nfrom transformers import HfArgumentParser\n\n\n@dataclass\nclass Mine:\n"
        "    gradient_checkpointing: bool = False\n\n\n(mine,) = HfArgumentParser(Mine).parse_args_into_dataclasses()\n"
    )
    (tmp_path / "run.sh").write_text("python train.py --gradient_checkpointing true\n")
    capsys.readouterr()
    main(["scan", str(tmp_path / "run.sh")])
    (line,) = [t for t in capsys.readouterr().out.splitlines() if "info [own-flag]" in t]
    assert "dataclass" in line and "add_argument" not in line


@pytest.mark.parametrize(
    ("run", "says"),
    [
        ("timeout -k 5 100 python train.py --activation_checkpointing false\n", "gives `--activation_checkpointing`"),
        ("python train.py --output_dir o --gradient-checkpointing false\n", "gives `--gradient-checkpointing`"),
        ("PY=${PYTHON:-python}\n$PY train.py --gradient_checkpointing false\n", "gives `--gradient_checkpointing`"),
        ('python train.py "$@"\n', "cannot all read"),
        ("$PY train.py\n", "cannot all read"),
        ("python train.py --output_dir elsewhere\n", ""),
    ],
)
def test_an_args_file_flag_a_command_line_of_its_script_gives_too_is_no_safe_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run: str, says: str
) -> None:
    """HfArgumentParser puts `train.args`' flags before the command line's: with `--gradient_checkpointing true` in
    the file and `--gradient_checkpointing false` on the command line the last wins (`False`), renamed in the file
    only the new name wins (`True`). So a command line of the script that gives the old or the new flag, or words the
    tool cannot read, makes the file's rename unsafe, naming that command line; one that gives neither leaves it safe."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "train.py").write_text(
        "from transformers import HfArgumentParser, TrainingArguments\n\n"
        "(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n"
    )
    (tmp_path / "train.args").write_text("--output_dir o\n--gradient_checkpointing true\n")
    (tmp_path / "run.sh").write_text(run)
    capsys.readouterr()
    main(["scan", "--format", "json", str(tmp_path / "train.args")])
    (found,) = json.loads(capsys.readouterr().out)
    assert (found["code"], found["applicability"]) == ("flag", "unsafe" if says else "safe")
    assert says in found["message"] and ("`run.sh:" in found["message"]) == bool(says)


def test_a_file_a_command_line_gives_after_the_scripts_args_file_flag_holds_its_flags(tmp_path: Path) -> None:
    """`parse_args_into_dataclasses(args_file_flag="--args_file")` reads the files named after `--args_file` on the
    command line (relative to the folder it runs in); a file no command line names so is left alone."""
    shutil.copy(TREE / "pyproject.toml", tmp_path)
    (tmp_path / "flagged.py").write_text(
        "from transformers import HfArgumentParser, TrainingArguments\n\n"
        "(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses(args_file_flag='--args_file')\n"
    )
    (tmp_path / "conf").mkdir()
    (tmp_path / "run.sh").write_text(
        "python flagged.py --args_file extra.args\ncd conf && python ../flagged.py --args_file=more.args\n"
    )
    flags = "--output_dir out\n--gradient_checkpointing true\n"
    for name in ("extra.args", "conf/more.args", "other.args"):
        (tmp_path / name).write_text(flags)
    assert main(["fix", "--write", str(tmp_path)]) in (0, 1)
    renamed = flags.replace("--gradient_checkpointing", "--activation_checkpointing")
    for name, wanted in (("extra.args", renamed), ("conf/more.args", renamed), ("other.args", flags)):
        assert (tmp_path / name).read_text() == wanted, name
