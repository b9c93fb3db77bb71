"""The machine-readable outputs in the built site: aliases.json and its schema, llms.txt, llms-full.txt, .md sources.

aliases.json is compared with aliases.yaml read by plain `yaml.safe_load`, not through checkpointing_migrate.table, so a
row that the generator dropped or changed would show here. The site is built once, from a copy of the
repository (the hook rewrites docs/generated/ when stale, which must not touch the working tree).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from sitekit import build, copy_repo, shared_site

from checkpointing_migrate import table
from generator.pages import outputs

ROOT = Path(__file__).resolve().parent.parent
SITE_NAME = "gradient_checkpointing → activation_checkpointing"


def _build(repo: Path, site: Path) -> None:
    result = build(repo, site)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = shared_site(tmp_path_factory)
    assert built.returncode == 0, built.log
    return built.site


def _json(site: Path, name: str) -> Any:
    return json.loads((site / name).read_text(encoding="utf-8"))


def _raw_table() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "aliases.yaml").read_text(encoding="utf-8"))


def _plain(value: Any) -> Any:
    """YAML values as JSON has them (dates as ISO strings)."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _TaglessLoader(yaml.SafeLoader):
    """mkdocs.yml with its `!ENV` and `!!python/name:` tags read as null: only `nav` is needed."""


_TaglessLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
_TaglessLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


# --- aliases.json and its schema ----------------------------------------------------------------------------------


def test_aliases_json_validates_against_the_published_schema(site: Path) -> None:
    schema = _json(site, outputs.SCHEMA_NAME)
    jsonschema.Draft202012Validator.check_schema(schema)
    data = _json(site, outputs.JSON_NAME)
    assert data["$schema"] == outputs.SCHEMA_NAME and (site / data["$schema"]).is_file()  # resolvable from the file
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in _validator(schema).iter_errors(data)]
    assert not errors, "\n".join(errors)


def test_aliases_json_holds_every_row_of_aliases_yaml(site: Path) -> None:
    raw, data = _raw_table(), _json(site, outputs.JSON_NAME)
    assert len(data["renames"]) == len(raw["renames"])
    for index, (row, published) in enumerate(zip(raw["renames"], data["renames"])):
        assert {k: published[k] for k in row} == _plain(row), f"rename {index} ({row['old']})"
    assert [{k: r[k] for k in release} for release, r in zip(raw["releases"], data["releases"])] == _plain(
        raw["releases"]
    )
    assert list(data["libraries"]) == list(raw["libraries"])
    for key, library in raw["libraries"].items():
        assert {k: data["libraries"][key][k] for k in library} == _plain(library), key


def test_aliases_json_spells_out_defaults(site: Path) -> None:
    """Fields a row leaves out are present with the value the site uses, so consumers need no rules of their own."""
    raw, data = _raw_table(), _json(site, outputs.JSON_NAME)
    without_audience = [(r, p) for r, p in zip(raw["renames"], data["renames"]) if "audience" not in r]
    assert without_audience, "aliases.yaml has no row relying on the default audience any more"
    for row, published in without_audience:
        assert published["audience"] == list(table.DEFAULT_AUDIENCE[row["kind"]])
    planned = [p for p in data["renames"] if p["status"] == "planned"]
    assert planned and all(p["since"] is None and p["warning"] is None for p in planned)


@pytest.mark.parametrize(
    ("path", "value", "complaint"),
    [
        (("renames", 0, "kind"), "methd", "is not one of"),
        (("renames", 0, "audience"), ["scripts"], "is not one of"),
        (("renames", 0, "since"), None, "is not of type 'string'"),  # shipped without `since`
        (("renames", 0, "warning", "category"), "Deprecated", "does not match"),
        (("releases", 0, "date"), "13/11/2026", "is not a 'date'"),
        (("renames", 0, "colour"), "blue", "Additional properties"),
    ],
)
def test_schema_rejects_what_the_table_rejects(site: Path, path: tuple[Any, ...], value: Any, complaint: str) -> None:
    data = copy.deepcopy(_json(site, outputs.JSON_NAME))
    assert data["renames"][0]["status"] == "shipped"
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    messages = [e.message for e in _validator(_json(site, outputs.SCHEMA_NAME)).iter_errors(data)]
    assert any(complaint in m for m in messages), messages


def test_schema_is_derived_from_the_table_definitions() -> None:
    schema = outputs.json_schema()
    rename = schema["$defs"]["Rename"]["properties"]
    assert rename["kind"]["enum"] == list(table.KINDS)
    assert rename["status"]["enum"] == list(table.STATUSES)
    assert rename["audience"]["items"]["enum"] == list(table.AUDIENCES)
    for name, cls in (("Rename", table.Rename), ("Library", table.Library), ("Release", table.Release)):
        fields = [f.name for f in dataclasses.fields(cls) if f.compare]
        assert schema["$defs"][name]["required"] == fields
    assert "position" not in rename  # bookkeeping, not a fact
    assert rename["since"]["description"].startswith("First release with the new name")  # the attribute docstring


def test_an_edit_of_the_table_reaches_aliases_json_on_the_next_build(tmp_path: Path) -> None:
    repo = copy_repo(tmp_path / "repo")
    text = (repo / "aliases.yaml").read_text(encoding="utf-8")
    note = "note: Adds the activation_checkpointing names;"
    edited = text.replace(note, note.replace("note: ", "note: Edited. "), 1)
    assert edited != text
    (repo / "aliases.yaml").write_text(edited, encoding="utf-8")
    _build(repo, tmp_path / "site")
    notes = [r["note"] for r in _json(tmp_path / "site", outputs.JSON_NAME)["releases"]]
    assert any(n.startswith("Edited. Adds the activation_checkpointing names") for n in notes)


# --- llms.txt, llms-full.txt and the Markdown sources ------------------------------------------------------------


def _md_links(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^- \[([^\]]+)\]\(([^)]+)\)", text, re.MULTILINE)


def test_llms_txt_follows_the_llmstxt_format(site: Path) -> None:
    text = (site / outputs.LLMS_NAME).read_text(encoding="utf-8")
    blocks = text.split("\n\n")
    assert blocks[0] == f"# {SITE_NAME}"
    assert blocks[1].startswith("> Migration guide for the Hugging Face rename")
    assert not blocks[2].startswith(("#", "-", ">"))  # the details paragraph
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings == ["Pages", "Data", "Optional"]
    assert re.search(r"^## Optional\n\n- \[Generator internals\]\(reference\.md\)", text, re.MULTILINE)


def test_llms_txt_links_resolve_to_the_published_markdown(site: Path) -> None:
    links = _md_links((site / outputs.LLMS_NAME).read_text(encoding="utf-8"))
    nav = outputs.nav_pages(yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_TaglessLoader)["nav"])
    assert len(nav) >= 5
    main = [page for page in nav if page[1] not in outputs.OPTIONAL_PAGES]
    optional = [page for page in nav if page[1] in outputs.OPTIONAL_PAGES]
    data = [(outputs.JSON_NAME, outputs.JSON_NAME), (outputs.SCHEMA_NAME, outputs.SCHEMA_NAME)]
    assert links == main + data + optional  # every page, in navigation order
    for title, target in links:
        assert (site / target).is_file(), f"{title}: {target} is not in the built site"
        source = ROOT / "docs" / target
        if target.endswith(".md"):
            assert (site / target).read_text(encoding="utf-8") == source.read_text(encoding="utf-8"), target


def test_each_page_has_its_markdown_next_to_its_html(site: Path) -> None:
    for page in ("index.md", "generated/migration-guide.md", "generated/timeline.md", "reference.md"):
        html = site / (page.removesuffix(".md").removesuffix("index") + "/index.html").lstrip("/")
        assert html.is_file() and (site / page).is_file(), page


def test_llms_full_txt_holds_every_page(site: Path) -> None:
    full = (site / outputs.LLMS_FULL_NAME).read_text(encoding="utf-8")
    assert full.startswith(f"# {SITE_NAME}\n")
    for _, target in _md_links((site / outputs.LLMS_NAME).read_text(encoding="utf-8")):
        if target.endswith(".md"):
            assert f"<!-- source: {target} -->\n" in full
            assert (ROOT / "docs" / target).read_text(encoding="utf-8").strip() in full, target


def test_outputs_are_only_in_the_site_never_in_docs(site: Path) -> None:
    names = (outputs.JSON_NAME, outputs.SCHEMA_NAME, outputs.LLMS_NAME, outputs.LLMS_FULL_NAME)
    assert all((site / name).is_file() for name in names)
    assert not [name for name in names if (ROOT / "docs" / name).exists()]


# --- The pure functions -------------------------------------------------------------------------------------------


def test_summary_is_the_first_paragraph_as_plain_markdown() -> None:
    markdown = (
        "<!-- banner -->\n# Title\n\n```pycon\n>>> 1\n```\n\n"
        "Use <code>new_name</code> &amp; stop\nusing `old`.\n\nSecond paragraph.\n"
    )
    assert outputs.summary(markdown) == "Use `new_name` & stop using `old`."
    assert outputs.summary("# Only a title\n") == ""


def test_nav_pages_flattens_sections_and_skips_external_links() -> None:
    nav = [{"Home": "index.md"}, {"Guide": [{"A": "a.md"}, {"B": [{"C": "b/c.md"}]}]}, {"Ext": "https://x.org/"}]
    assert outputs.nav_pages(nav) == [("Home", "index.md"), ("A", "a.md"), ("C", "b/c.md")]
