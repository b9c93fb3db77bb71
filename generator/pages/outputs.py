"""Machine-readable outputs published with the site: the table as JSON, its JSON Schema, llms.txt, llms-full.txt.

Linters, IDEs and assistants read the same facts as human readers, so everything here is derived from the validated
[`Table`][checkpointing_migrate.table.Table] and from the pages' Markdown, never typed again. All functions are pure except
[`write_outputs`][generator.pages.outputs.write_outputs], called by the MkDocs hook: outputs live only in the site.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime
import enum
import functools
import html
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from checkpointing_migrate import table as table_module
from checkpointing_migrate import writing
from checkpointing_migrate.table import EmittedWarning, Library, Release, Rename, Status, Table

JSON_NAME = "aliases.json"
"""The alias table as JSON, at the root of the built site."""

SCHEMA_NAME = "aliases.schema.json"
"""The JSON Schema of `aliases.json`, next to it; `aliases.json` names it in its `$schema` key."""

LLMS_NAME = "llms.txt"
LLMS_FULL_NAME = "llms-full.txt"

OPTIONAL_PAGES = ("reference.md",)
"""Pages listed under llms.txt's `## Optional` section (which a reader may skip): the API reference documents
this site's generator, not the rename, and its Markdown source is only mkdocstrings directives."""

_DRAFT = "https://json-schema.org/draft/2020-12/schema"


@dataclasses.dataclass(frozen=True)
class SourcePage:
    """A page of the site and its Markdown source."""

    title: str
    """The title in the site's navigation."""
    path: str
    """Its path under `docs/` (POSIX), which is also where its Markdown is published in the built site."""
    markdown: str
    """The Markdown as MkDocs read it."""


# --- aliases.json ---------------------------------------------------------------------------------------------------


def _data_fields(cls: type) -> list[dataclasses.Field[Any]]:
    # `compare=False` marks bookkeeping (the YAML position of a row), not a fact of the table.
    return [f for f in dataclasses.fields(cls) if f.compare]


def _plain(value: object) -> object:
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in _data_fields(type(value))}
    return value


def table_json(table: Table) -> dict[str, Any]:
    """The whole table as JSON data: every library, release and rename, with every field (defaults included).

    Args:
        table: The validated alias table.

    Returns:
        A mapping with `$schema` (the schema's file name, relative to `aliases.json`), `libraries` (by key),
        `releases` and `renames` (in table order).
    """
    return {
        "$schema": SCHEMA_NAME,
        "libraries": {key: _plain(library) for key, library in table.libraries.items()},
        "releases": [_plain(release) for release in table.releases],
        "renames": [_plain(rename) for rename in table.renames],
    }


# --- aliases.schema.json --------------------------------------------------------------------------------------------


@functools.cache
def _class_nodes(module: str) -> dict[str, ast.ClassDef]:
    # One parse per module: inspect.getsource(cls) would parse the whole module again for every class. The cache
    # lives as long as this module, which the hook reloads on every build.
    tree = ast.parse(inspect.getsource(sys.modules[module]))
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _attribute_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (a string right under a field), as griffe and mkdocstrings read them."""
    body = _class_nodes(cls.__module__)[cls.__name__]
    docs: dict[str, str] = {}
    for field_node, doc_node in zip(body.body, body.body[1:]):
        if (
            isinstance(field_node, ast.AnnAssign)
            and isinstance(field_node.target, ast.Name)
            and isinstance(doc_node, ast.Expr)
            and isinstance(doc_node.value, ast.Constant)
            and isinstance(doc_node.value.value, str)
        ):
            docs[field_node.target.id] = " ".join(doc_node.value.value.split())
    return docs


def _type_schema(hint: object) -> dict[str, Any]:
    """JSON Schema of a field's Python type, for the types the table uses."""
    if hint is str:
        return {"type": "string"}
    if isinstance(hint, type) and issubclass(hint, enum.StrEnum):
        return {"type": "string", "enum": [member.value for member in hint]}
    if hint is datetime.date:
        return {"type": "string", "format": "date"}
    if dataclasses.is_dataclass(hint):
        return {"$ref": f"#/$defs/{hint.__name__}"}  # type: ignore[union-attr]
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and args[1:] == (Ellipsis,):
        return {"type": "array", "items": _type_schema(args[0])}
    if isinstance(hint, types.UnionType) and type(None) in args:
        (inner,) = (a for a in args if a is not type(None))
        schema = _type_schema(inner)
        if schema.get("type") == "string":
            return {**schema, "type": ["string", "null"]}
        return {"anyOf": [schema, {"type": "null"}]}
    raise TypeError(f"no JSON Schema for the field type {hint!r}; extend generator.pages.outputs._type_schema")


def _record_schema(cls: type, refine: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """An object schema with one required property per data field of `cls`, described by its docstring."""
    hints = typing.get_type_hints(cls)
    docs = _attribute_docs(cls)
    properties: dict[str, Any] = {}
    for f in _data_fields(cls):
        prop = _type_schema(hints[f.name])
        prop = {**prop, **(refine or {}).get(f.name, {})}
        if f.name in docs:
            prop = {"description": docs[f.name], **prop}
        properties[f.name] = prop
    return {
        "type": "object",
        "description": " ".join((cls.__doc__ or "").split()),
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _rename_rules() -> list[dict[str, Any]]:
    """What `status` implies for the other fields, as checkpointing_migrate.table enforces it when it loads the table."""
    shipped = {"since": {"type": "string"}, "warning": {"$ref": "#/$defs/EmittedWarning"}}
    return [
        {"if": {"properties": {"status": {"const": Status.SHIPPED}}}, "then": {"properties": shipped}},
        {
            "if": {"properties": {"status": {"const": Status.PLANNED}}},
            "then": {"properties": {"since": {"type": "null"}}},
        },
        {
            "if": {"properties": {"status": {"const": Status.REMOVED}}},
            "then": {"properties": {"since": {"type": "string"}}},
        },
    ]


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) that `aliases.json` validates against, built from the table's own definitions,
    so a field added to the table shows up in the schema without a second edit.

    Returns:
        The schema as data. Enumerations come from `KINDS` and the `Status` and `Audience` enums in
        [`checkpointing_migrate.table`][], fields and descriptions from its dataclasses.
    """
    library = _record_schema(Library)
    rename = _record_schema(
        Rename,
        {
            "kind": {"enum": list(table_module.KINDS)},
            "audience": {"minItems": 1},
        },
    )
    rename["allOf"] = _rename_rules()
    warning = _record_schema(
        EmittedWarning,
        {"category": {"pattern": "^[A-Za-z]*Warning$"}},  # a builtin Warning subclass
    )
    return {
        "$schema": _DRAFT,
        "title": "Alias table of the gradient_checkpointing* → activation_checkpointing* rename",
        "description": " ".join((Table.__doc__ or "").split()) + " Published as aliases.json with the site.",
        "type": "object",
        "properties": {
            "$schema": {"type": "string", "description": "Where this schema is, relative to aliases.json."},
            "libraries": {
                "type": "object",
                "description": "Libraries of the training stack, by the key rows refer to them by.",
                "additionalProperties": {"$ref": "#/$defs/Library"},
            },
            "releases": {"type": "array", "items": {"$ref": "#/$defs/Release"}},
            "renames": {"type": "array", "items": {"$ref": "#/$defs/Rename"}},
        },
        "required": ["libraries", "releases", "renames"],
        "additionalProperties": False,
        "$defs": {
            "Library": library,
            "Release": _record_schema(Release),
            "Rename": rename,
            "EmittedWarning": warning,
        },
    }


# --- llms.txt and llms-full.txt -------------------------------------------------------------------------------------

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_TAG = re.compile(r"<(/?)code>|<[^>]+>")


def summary(markdown: str) -> str:
    """The first paragraph of a page's prose (after its title), as one line of plain Markdown.

    Args:
        markdown: A page's Markdown source.

    Returns:
        The front matter's `description` when there is one; else the paragraph with HTML comments dropped and `<code>` turned back into backticks; empty if the page
        has no paragraph.
    """
    front = _FRONT_MATTER.match(markdown)
    meta = yaml.safe_load(front.group(1)) if front else None
    if isinstance(meta, dict) and isinstance(meta.get("description"), str):
        return " ".join(meta["description"].split())  # the page's own summary (its <meta name="description">)
    text = _COMMENT.sub("", markdown[front.end() :] if front else markdown)
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if not block or block.startswith(("#", "```", "|", "!!!", "???", "===", ":::", "<", "-", "*", ">", "--8<--")):
            continue
        plain = _TAG.sub(lambda m: "`" if m.group(0) in ("<code>", "</code>") else "", block)
        return " ".join(html.unescape(plain).split())
    return ""


def _facts(table: Table) -> str:
    """One paragraph of what the table holds, for llms.txt's details section."""
    by_release: dict[tuple[str, str], int] = {}
    for row in table.renames:
        if row.status == Status.SHIPPED and row.since:
            by_release[(row.library, row.since)] = by_release.get((row.library, row.since), 0) + 1
    shipped = "; ".join(
        f"{count} in {table.libraries[lib].display} {since}" for (lib, since), count in by_release.items()
    )
    planned = len(table.planned)
    return (
        f"The alias table lists {len(table.renames)} renames across {len(table.libraries)} libraries "
        f"({', '.join(lib.display for lib in table.libraries.values())}). Shipped: {shipped or 'none'}. "
        f"Not renamed yet: {planned}."
    )


def llms_txt(site_name: str, description: str, pages: Iterable[SourcePage], table: Table) -> str:
    """llms.txt in the llmstxt.org format: title, summary, details, then lists of links to Markdown sources.

    Links are relative to llms.txt, so they stay inside whichever published version serves it.

    Args:
        site_name: The site's name (the H1).
        description: The site's one-line description (the blockquote).
        pages: The pages, in navigation order.
        table: The validated alias table.

    Returns:
        The text of llms.txt.
    """
    main, optional = [], []
    for page in pages:
        line = f"- [{page.title}]({page.path})" + (f": {text}" if (text := summary(page.markdown)) else "")
        (optional if page.path in OPTIONAL_PAGES else main).append(line)
    sections = [
        f"# {site_name}",
        f"> {description}",
        (
            _facts(table)
            + f" Each page below links to its Markdown source; [{LLMS_FULL_NAME}]({LLMS_FULL_NAME}) holds all of"
            " them in one file. Every name, version and warning message comes from the alias table, published as"
            f" [{JSON_NAME}]({JSON_NAME})."
        ),
        "## Pages\n\n" + "\n".join(main),
        (
            "## Data\n\n"
            f"- [{JSON_NAME}]({JSON_NAME}): every library, release and rename of the alias table, with the exact"
            " warning each old name emits\n"
            f"- [{SCHEMA_NAME}]({SCHEMA_NAME}): the JSON Schema (draft 2020-12) that {JSON_NAME} validates against"
        ),
    ]
    if optional:
        sections.append("## Optional\n\n" + "\n".join(optional))
    return "\n\n".join(sections) + "\n"


def llms_full_txt(site_name: str, description: str, pages: Iterable[SourcePage]) -> str:
    """Every page's Markdown in one file, in navigation order, each introduced by a comment naming its source.

    Args:
        site_name: The site's name (the H1).
        description: The site's one-line description (the blockquote).
        pages: The pages, in navigation order.

    Returns:
        The text of llms-full.txt.
    """
    parts = [f"# {site_name}\n\n> {description}\n"]
    for page in pages:
        parts.append(f"<!-- source: {page.path} -->\n{page.markdown.strip()}\n")
    return "\n".join(parts)


# --- Putting it together --------------------------------------------------------------------------------------------


def nav_pages(nav: object) -> list[tuple[str, str]]:
    """(title, path under docs/) of each page in an MkDocs `nav` setting, sections flattened, in order.

    Args:
        nav: The `nav` value of mkdocs.yml: a list of `{title: path}` or `{section: [...]}` items.

    Returns:
        The pages; external links (with `://`) are left out.
    """
    pages: list[tuple[str, str]] = []
    for item in nav if isinstance(nav, list) else []:
        for title, value in item.items() if isinstance(item, dict) else []:
            if isinstance(value, str) and "://" not in value:
                pages.append((title, value))
            else:
                pages.extend(nav_pages(value))
    return pages


def read_pages(docs_dir: Path, nav: object) -> list[SourcePage]:
    """The Markdown of every page in `nav`, read from `docs_dir`.

    Args:
        docs_dir: The docs folder.
        nav: The `nav` value of mkdocs.yml.

    Returns:
        One `SourcePage` per page, in navigation order.
    """
    return [SourcePage(title, path, (docs_dir / path).read_text(encoding="utf-8")) for title, path in nav_pages(nav)]


def site_outputs(table: Table, pages: list[SourcePage], site_name: str, description: str) -> dict[str, str]:
    """Every output file's text, keyed by its path in the built site.

    Args:
        table: The validated alias table.
        pages: The site's pages, in navigation order.
        site_name: The site's name.
        description: The site's one-line description.

    Returns:
        `aliases.json`, `aliases.schema.json`, `llms.txt`, `llms-full.txt`, and each page's Markdown source
        at its path under `docs/` (e.g. `generated/migration-guide.md`, next to `generated/migration-guide/`).
    """
    outputs = {page.path: page.markdown for page in pages}
    outputs[JSON_NAME] = json.dumps(table_json(table), indent=2, ensure_ascii=False) + "\n"
    outputs[SCHEMA_NAME] = json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
    outputs[LLMS_NAME] = llms_txt(site_name, description, pages, table)
    outputs[LLMS_FULL_NAME] = llms_full_txt(site_name, description, pages)
    return outputs


def write_outputs(outputs: Mapping[str, str], site_dir: Path) -> list[Path]:
    """Write each output under `site_dir` (UTF-8) and return the paths written.

    `generator/pages/hook.py` calls this at the end of every MkDocs build (`on_post_build`), so the outputs exist only
    in the built site and are never committed.

    Args:
        outputs: Path in the site → text, as [`site_outputs`][generator.pages.outputs.site_outputs] returns them.
        site_dir: The built site's folder.

    Returns:
        The files written (each atomically; a file that already holds its text is left alone).
    """
    return writing.write_if_changed({site_dir / name: text for name, text in outputs.items()})
