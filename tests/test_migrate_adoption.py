"""The adoption report: the committed data is what the scanner finds in the released wheels today, it contains
the call sites the naming research found by reading the sources, and the page shows them as file:line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify
from packaging.requirements import Requirement
from packaging.version import Version
from sitekit import IN_CI

from checkpointing_migrate import findings, rules
from checkpointing_migrate.hits import Options
from checkpointing_migrate.records import dump, from_value
from checkpointing_migrate.requirements import Allowed, Finder
from checkpointing_migrate.run import check_all
from checkpointing_migrate.table import load
from generator import paths
from generator.measure import adoption
from generator.measure.adoption_data import Adoption, load_adoption
from generator.measure.data import load_matrix
from generator.pages import adoption as adoption_view
from generator.pages import guide_sections, render

TABLE = load(paths.TABLE_PATH)
MATRIX = load_matrix()
CALLERS = rules.from_table(TABLE).callers
PAGE = paths.DOCS_DIR / render.GENERATED_DIR / "adoption-report.md"

# Found by reading the released sources (research notes, naming.md §3), with the effect on transformers ≥ 5.23.
KNOWN_SITES = {
    ("peft", "peft/peft_model.py", 184, "is_gradient_checkpointing", "warns"),
    ("peft", "peft/mixed_model.py", 39, "is_gradient_checkpointing", "warns"),
    ("peft", "peft/utils/other.py", 258, "gradient_checkpointing_enable", "warns"),
    ("peft", "peft/utils/other.py", 243, "gradient_checkpointing_enable", "silent"),
    ("trl", "trl/models/utils.py", 136, "is_gradient_checkpointing", "warns"),
    ("trl", "trl/models/utils.py", 138, "gradient_checkpointing_disable", "warns"),
    ("trl", "trl/models/utils.py", 154, "gradient_checkpointing_enable", "warns"),
    ("trl", "trl/models/utils.py", 407, "is_gradient_checkpointing", "warns"),
    ("trl", "trl/models/utils.py", 409, "gradient_checkpointing_disable", "warns"),
    ("trl", "trl/models/utils.py", 414, "gradient_checkpointing_enable", "warns"),
    ("trl", "trl/trainer/base_config.py", 62, "gradient_checkpointing", "warns"),
    ("trl", "trl/models/selective_activation_checkpointing.py", 95, "gradient_checkpointing_enable", "overrides"),
    ("trl", "trl/experimental/utils.py", 895, "gradient_checkpointing", "lost-write"),
    ("trl", "trl/trainer/sft_trainer.py", 887, "gradient_checkpointing_kwargs", "lost-write"),
    ("trl", "trl/trainer/dpo_trainer.py", 705, "gradient_checkpointing_kwargs", "lost-write"),
    ("trl", "trl/trainer/grpo_trainer.py", 517, "gradient_checkpointing_kwargs", "lost-write"),
    ("trl", "trl/trainer/sft_trainer.py", 1080, "gradient_checkpointing_kwargs", "dead"),
    ("trl", "trl/experimental/online_dpo/online_dpo_trainer.py", 624, "gradient_checkpointing_enable", "warns"),
    ("axolotl", "axolotl/loaders/model.py", 638, "gradient_checkpointing_enable", "warns"),
    ("axolotl", "axolotl/utils/callbacks/__init__.py", 971, "gradient_checkpointing_disable", "warns"),
}


def _sites(data: Adoption) -> set[tuple[str, str, int, str, str]]:
    return {(lib.library, s.file, s.line, s.old, s.effect) for lib in data.libraries for s in lib.sites}


def test_committed_data_has_the_known_call_sites() -> None:
    assert KNOWN_SITES <= _sites(load_adoption())


def test_libraries_without_deprecated_uses_have_none() -> None:
    data = {lib.library: lib for lib in load_adoption().libraries}
    assert data["accelerate"].sites == () and data["diffusers"].sites == ()
    assert data["diffusers"].not_deprecated["is_gradient_checkpointing"] >= 1  # diffusers' own property


def test_the_page_lists_peft_and_trl_warning_sites() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for library, file, line, old, effect in KNOWN_SITES:
        if library in ("peft", "trl") and effect == "warns":
            assert f"| {render.code_wrap(f'{file}:{line}')} | <code>{old}</code> | warns:" in page


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[rules.TrainingClasses, Adoption]:
    """A new measurement of every package from the wheels (cached in .cache/registry, 73 MB; downloaded from PyPI when
    missing; about 20 s): a subset once let stale unsloth data through after a scanner change."""
    try:
        return adoption.measure(TABLE)
    except RuntimeError as exc:
        # Offline at home is a skip; in CI, which reaches PyPI, it would hide a stale report, so it fails.
        if IN_CI:
            pytest.fail(f"the wheels could not be downloaded: {exc}", pytrace=False)
        pytest.skip(f"the wheels are not cached and cannot be downloaded: {exc}")


def test_committed_adoption_data_is_what_the_wheels_give(measured: tuple[rules.TrainingClasses, Adoption]) -> None:
    classes, data = measured
    committed = load_adoption()
    by_library = {lib.library: lib for lib in committed.libraries}
    new = from_value(json.loads(dump(data)), Adoption, "the new measurement")
    assert (committed.python_version, committed.measured_with) == (new.python_version, new.measured_with)
    assert [lib.library for lib in committed.libraries] == [lib.library for lib in new.libraries]
    for lib in new.libraries:
        assert by_library.get(lib.library) == lib, f"{lib.library}: run `python -m generator adoption`"
    assert rules.load_classes() == classes, "run `python -m generator adoption`"


def test_measured_classes_include_trl_configs(measured: tuple[rules.TrainingClasses, Adoption]) -> None:
    classes, _ = measured
    assert {"SFTConfig", "DPOConfig", "Seq2SeqTrainingArguments"} <= set(classes.subclasses)
    assert {"model_name_or_path", "dataset_name", "output_dir", "activation_checkpointing"} <= set(classes.config_keys)
    assert "base_model" not in classes.config_keys  # Axolotl's key: its configs must not look like TRL's
    # A user's `TrlParser((ScriptArguments, SFTConfig, ModelConfig))` reads the renamed flags into SFTConfig only
    # because TRL's other dataclasses do not declare them (`dictflow.parser_verdict`).
    assert {"ModelConfig", "ScriptArguments"} <= set(classes.library_dataclasses)
    assert set(classes.library_dataclasses) <= set(classes.parsed_dataclasses) - set(classes.subclasses)
    assert not set(rules.from_table(TABLE).fields) & set(classes.library_dataclasses["ModelConfig"].fields)


def test_every_guide_link_of_the_tool_exists() -> None:
    guide = (paths.DOCS_DIR / render.GENERATED_DIR / "migration-guide.md").read_text(encoding="utf-8")
    anchors = {
        slugify(line.lstrip("#").strip().replace("`", ""), "-") for line in guide.splitlines() if line.startswith("#")
    }
    assert set(findings.anchors().values()) <= anchors
    assert (paths.ROOT / findings.GUIDE).is_file()


def test_no_template_types_a_guide_sections_anchor() -> None:
    """A link to a guide section is written from `guide_anchors`, never typed: a typed slug (`#pitfalls-of-the-5230-
    implementation`) bakes in a heading, and a release, that the table may change."""
    slugs = set(guide_sections.anchors(TABLE).values())
    link = re.compile(r"\]\((?:migration-guide\.md)?#([^)\s]+)\)")
    typed = [
        f"{path.name}: #{slug}"
        for path in sorted(paths.TEMPLATES_DIR.rglob("*.j2"))
        for slug in link.findall(path.read_text(encoding="utf-8"))
        if slug in slugs
    ]
    assert typed == []


def test_a_renamed_heading_moves_the_tools_link_with_it(tmp_path: Path) -> None:
    """The anchors the tool links are derived from the headings the guide writes, not typed a second time: a heading
    renamed in one place renders a guide and an anchors file that still agree."""
    table = load(paths.TABLE_PATH)
    titles = dict(guide_sections.TITLES, script="Your training scripts")
    pages = render.render_pages(table)
    assert json.loads(pages[guide_sections.FILE_NAME]) == findings.anchors()  # the committed file is current
    original = guide_sections.TITLES
    try:
        guide_sections.TITLES = titles
        renamed = render.render_pages(table)
    finally:
        guide_sections.TITLES = original
    headings = {
        slugify(line.lstrip("#").strip(), "-")
        for line in renamed["migration-guide.md"].splitlines()
        if line.startswith("## ")
    }
    moved = json.loads(renamed[guide_sections.FILE_NAME])
    assert moved["script"] == "your-training-scripts" and set(moved.values()) <= headings


def _findings(tmp_path: Path, source: str) -> list:
    path = tmp_path / "lib.py"
    path.write_text(source, encoding="utf-8")
    options = Options(rules.from_table(TABLE), Allowed(None, ""), planned=True, gate=False, package="lib")
    return [f for r in check_all([path], options, Finder()) for f in r.findings]


def test_a_keyword_passed_to_the_old_method_prints_only_the_methods_warning(tmp_path: Path) -> None:
    """The wrong claim the fact-check found: `gradient_checkpointing_kwargs=` to `gradient_checkpointing_enable()`
    was said to print the TrainingArguments warning of the same name. The probes measured only the method's."""
    newest, before = adoption._reference_releases(TABLE, MATRIX)
    method = next(r for r in TABLE.renames if r.kind == "method" and r.old == "gradient_checkpointing_enable")
    field = next(r for r in TABLE.renames if r.kind == "field" and r.old == "gradient_checkpointing_kwargs")
    findings = _findings(
        tmp_path,
        "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={})\n"
        "TrainingArguments(output_dir='o', gradient_checkpointing_kwargs={})\n",
    )
    (in_call,) = [f for f in findings if f.code == "keyword" and f.line == 1]
    (in_args,) = [f for f in findings if f.code == "keyword" and f.line == 2]
    found = adoption.effect(in_call, newest.outcomes, before.outcomes, CALLERS)
    assert found.warnings == (f"{method.warning.category}: {method.warning.message}",)
    assert found.effect == "warns" and found.v6 == "AttributeError"
    found = adoption.effect(in_args, newest.outcomes, before.outcomes, CALLERS)
    assert found.warnings == (f"{field.warning.category}: {field.warning.message}",) and found.v6 == "TypeError"


def test_the_page_shows_the_measured_warning_of_each_site() -> None:
    page = PAGE.read_text(encoding="utf-8")
    (line,) = [x for x in page.splitlines() if x.startswith(f"| {render.code_wrap('peft/utils/other.py:258')} |")]
    assert "gradient_checkpointing_kwargs</code> is deprecated" not in line
    for lib in load_adoption().libraries:
        for s in lib.sites:
            assert s.effect != "warns" or s.warnings, f"{lib.library} {s.file}:{s.line}: warns, but nothing measured"


@pytest.mark.parametrize(
    ("source", "code", "effect", "v6"),
    [
        ("x = model.is_gradient_checkpointing\n", "property", "warns", "AttributeError"),
        ("args = TrainingArguments(output_dir='o')\nargs.gradient_checkpointing = True\n", "write", "lost-write", ""),
        (
            "args = TrainingArguments(output_dir='o')\nx = args.gradient_checkpointing\n",
            "read",
            "silent",
            "AttributeError",
        ),
        ("f = model.gradient_checkpointing_enable\n", "reference", "silent", "AttributeError"),
        ("class M(Base):\n    def gradient_checkpointing_enable(self):\n        pass\n", "override", "overrides", ""),
        # Lookups by string: without the name, `getattr` raises, but a default or `hasattr` answers (PEFT's
        # `getattr(model, "is_gradient_checkpointing", True)` was once counted as breaking in 6.0.0).
        ("x = getattr(model, 'is_gradient_checkpointing')\n", "string-lookup", "warns", "AttributeError"),
        ("x = getattr(model, 'is_gradient_checkpointing', True)\n", "string-lookup", "warns", ""),
        ("x = hasattr(model, 'is_gradient_checkpointing')\n", "string-lookup", "warns", ""),
        # The old methods looked up without a call warn nothing (they were once counted as not deprecated at all);
        # `setattr` of the property raises today: it has no setter.
        ("x = hasattr(model, 'gradient_checkpointing_enable')\n", "string-lookup", "silent", ""),
        ("x = getattr(model, 'gradient_checkpointing_enable', None)\n", "string-lookup", "silent", ""),
        ("x = getattr(model, 'gradient_checkpointing_enable')\n", "string-lookup", "silent", "AttributeError"),
        ("setattr(model, 'is_gradient_checkpointing', True)\n", "string-lookup", "raises", ""),
        # An override of a transformers model's method that cannot take every_n_layers= (once counted as not
        # deprecated at all): the new method passes it, so it raises today.
        (
            "from transformers import LlamaForCausalLM\n\n\nclass M(LlamaForCausalLM):\n"
            "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):\n        pass\n",
            "narrow-override",
            "raises",
            "AttributeError",
        ),
    ],
)
def test_effects_come_from_the_probe_of_the_same_use(
    tmp_path: Path, source: str, code: str, effect: str, v6: str
) -> None:
    newest, before = adoption._reference_releases(TABLE, MATRIX)
    (finding,) = [f for f in _findings(tmp_path, source) if f.code == code]
    found = adoption.effect(finding, newest.outcomes, before.outcomes, CALLERS)
    assert (found.effect, found.v6) == (effect, v6)


def test_an_override_of_only_the_old_method_carries_the_trainers_measured_warning(tmp_path: Path) -> None:
    newest, before = adoption._reference_releases(TABLE, MATRIX)
    (caller,) = [r for r in TABLE.renames if r.kind == "override"]
    source = "class Encoder(torch.nn.Module):\n    def gradient_checkpointing_enable(self, **kw):\n        pass\n"
    (finding,) = [f for f in _findings(tmp_path, source) if f.code == "override"]
    found = adoption.effect(finding, newest.outcomes, before.outcomes, CALLERS)
    assert (found.effect, found.warnings, found.v6) == (
        "overrides",
        (f"{caller.warning.category}: {caller.warning.text_for('Encoder')}",),
        "",
    )


def test_every_package_has_its_requirement_and_the_downstream_pins_are_read() -> None:
    data = {lib.pypi: lib for lib in load_adoption().libraries}
    assert len(data) >= 25
    assert sum(1 for lib in data.values() if "transformers" in lib.requires and lib.sites) >= 25
    # What the issue read in the metadata by hand: the scan must read the same.
    assert data["axolotl"].requires["trl"] == "==1.14.1" and data["axolotl"].requires_transformers == "==5.20.1"
    assert "<=1.15.0" in data["unsloth"].requires["trl"]


def test_the_page_leads_with_what_breaks_in_v6() -> None:
    view = adoption_view.view(TABLE, load_adoption())
    page = PAGE.read_text(encoding="utf-8")
    first = page.index("## ")
    assert page[first:].startswith(f"## What breaks in {view['removal']}")
    assert f"**{len(view['breaking'])}** would fail" in page
    axolotl = next(lib for lib in view["libraries"] if lib.key == "axolotl")
    assert axolotl.allows_since is False and axolotl.allows_removal is False
    peft = next(lib for lib in view["libraries"] if lib.key == "peft")
    assert peft.allows_removal is True and peft.breaking


def test_every_library_of_the_naming_comparison_is_scanned_or_says_why_not() -> None:
    """Scanned: those whose declared requirements admit a release with the new names (megatron-core, NeMo, torchtitan
    and DeepSpeed behind an extra); each other one names its requirement, which admits none, or has none."""
    table, data = load(paths.TABLE_PATH), load_adoption()
    scanned = {lib.library for lib in data.libraries} & set(table.libraries)
    skipped = {n.library for n in data.not_scanned}
    ecosystem = {pypi for pypi, _, _ in adoption.ECOSYSTEM}
    assert scanned == set(adoption.LIBRARIES) | (ecosystem & set(table.libraries)) and not scanned & skipped
    assert scanned | skipped == set(table.libraries) - {"transformers"}
    since = min(Version(r.since) for r in table.renames if r.library == "transformers" and r.since)
    with_new = [r.version for r in table.releases_of("transformers") if Version(r.version) >= since]
    for n in data.not_scanned:
        admitted = [v for r in n.requires_transformers for v in with_new if Requirement(r).specifier.contains(v)]
        assert not admitted, f"{n.library} {n.release} admits {admitted}: scan it"
    megatron = next(lib for lib in data.libraries if lib.library == "megatron-core")
    assert any(s.file.endswith("models/huggingface/fastconformer_model.py") for s in megatron.sites)


@pytest.mark.parametrize(
    ("source", "declared"),
    [
        ("class A:\n    gradient_checkpointing: bool = False\n", {"gradient_checkpointing"}),
        ("class A:\n    (gradient_checkpointing  # why\n    ): bool = False\n", {"gradient_checkpointing"}),
        ("class A:\n    gradient_checkpointing \\\n        : bool\n", {"gradient_checkpointing"}),
        ("class A:\n    gradient_checkpointing_kwargs: dict | None = None\n", {"gradient_checkpointing_kwargs"}),
        # Set, passed, a key, an attribute's annotation, a walrus: no class declares the field.
        (
            "def f(self, gradient_checkpointing=True):\n    self.gradient_checkpointing: bool = True\n"
            "    args = {'gradient_checkpointing': True}\n    (gradient_checkpointing := 1)\n",
            set(),
        ),
    ],
)
def test_declared_fields_are_the_annotated_class_attributes(tmp_path: Path, source: str, declared: set[str]) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "configs.py").write_text(source, encoding="utf-8")
    assert adoption.declared_fields([package], rules.from_table(TABLE).fields) == declared
