"""MkDocs hook: re-render the generated pages before every build (live table edits), publish the outputs after.

`on_pre_build` renders docs/generated/*.md (written only when changed: no rebuild loop); `on_config` mends
`site_url`; `on_post_build` publishes the outputs (`generator.pages.outputs`) into site_dir only, never into docs/.
Under `mkdocs serve`, a page of mkdocstrings blocks whose sources did not change is reused from the previous build.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

# MkDocs puts only this file's folder on sys.path while importing a hook, and restores sys.path afterwards; the
# package lives one level up, so the path is added here and again whenever the package is imported afresh.
_ROOT = str(Path(__file__).resolve().parents[2])
sys.path.insert(0, _ROOT)

import checkpointing_migrate.table
import generator.pages.outputs
import generator.pages.playground
import generator.pages.render
import generator.paths

log = logging.getLogger("mkdocs.hooks.generator")

_imported: str | None = None
"""`_packages_key()` when the generator modules were last imported, `None` before the first build. Before it they
were just imported, and while no package source changed (a table or page edit) they are still current, so
importing them afresh would only cost time (it is part of every build; see benchmarks/)."""
_table: checkpointing_migrate.table.Table | None = None
"""The table the current build rendered, which `on_post_build` publishes without reading the file again."""


@dataclass
class _Rendered:
    """A page of mkdocstrings blocks as the previous build rendered it, and what autorefs learnt from it."""

    key: str
    html: str
    toc: Any
    anchors: set[str]
    refs: list[tuple[str, str, str | None, bool]]
    """(identifier, anchor, title, primary) of every object the page documents, as mkdocstrings registered them
    with autorefs: what its own cross-references (and other pages') resolve to."""


_rendered: dict[str, _Rendered] = {}
"""Page source path -> its last rendering, reused while `_sources_key` stays the same. Only rebuilds use it:
the API reference takes half of a build (mkdocstrings, griffe, Pygments), and a table edit changes none of it."""
_keys: dict[str, str] = {}
"""Page source path -> `_sources_key` in the current build, for the pages of mkdocstrings blocks."""
_reusing: set[str] = set()
"""Pages of the current build whose rendering is reused."""
_MKDOCSTRINGS_BLOCK = "\n::: "


def _reimport_generator() -> None:
    """Import the generator and the tool's package afresh (the table lives there), every module, so no edit is
    served stale.

    Dropping the modules and importing again, rather than `importlib.reload` one by one, needs no list of modules
    in dependency order that would go stale as the package grows.
    """
    global generator, checkpointing_migrate
    for name in [n for n in sys.modules if n.split(".")[0] in ("generator", "checkpointing_migrate")]:
        del sys.modules[name]
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    for name in (
        "checkpointing_migrate.table",
        "generator.pages.render",
        "generator.pages.outputs",
        "generator.pages.playground",
    ):
        importlib.import_module(name)
    generator, checkpointing_migrate = sys.modules["generator"], sys.modules["checkpointing_migrate"]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Give `site_url` back its trailing slash: mike appends the deployed version without one (`…/latest`), and MkDocs
    then hands 404.html and Material a base path without it, so the 404 page fetched /sitemap.xml and /search/ from
    the site root instead of the version's (found by tests/test_browser.py). Hooks run after plugins: this sees
    mike's value."""
    if config.site_url and not config.site_url.endswith("/"):
        config.site_url += "/"
    return config


def on_pre_build(config: MkDocsConfig) -> None:
    """Render docs/generated/*.md. `mkdocs serve` imports a hook once and caches it with every module it imports, so
    the generator modules are imported afresh on a rebuild after a package source changed; otherwise an edit to
    `generator/` (watched, see `watch:` in mkdocs.yml) would be served stale. Pages are written only when their
    content changed."""
    global _imported, _table
    packages = _packages_key()
    if _imported is not None and _imported != packages:
        _reimport_generator()
    _imported, _table = packages, None
    render, table = generator.pages.render, checkpointing_migrate.table
    try:
        loaded = table.load(generator.paths.TABLE_PATH)
        pages = render.render_pages(loaded)
    except table.TableError as exc:
        raise PluginError(f"aliases.yaml has problems; the generated pages were left as they were:\n{exc}") from None
    except render.RenderError as exc:
        raise PluginError(f"a template failed; the generated pages were left as they were:\n{exc}") from None
    for path in render.write_pages(pages):
        log.info("generator: wrote %s", path.relative_to(generator.paths.ROOT))
    _table = loaded


def _packages_key(*also: Path) -> str:
    """Every Python source of the repository's packages (and `also`), by name, size and modification time."""
    digest = hashlib.sha256()
    packages = sorted(p for p in Path(_ROOT).iterdir() if (p / "__init__.py").is_file())
    for source in [*also, *(s for p in packages for s in sorted(p.rglob("*.py")))]:
        stat = source.stat()
        digest.update(f"{source}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def _sources_key(markdown: str, config: MkDocsConfig) -> str:
    """What a page of mkdocstrings blocks depends on: its Markdown, mkdocs.yml (the handler's options) and the
    Python packages of the repository (the `paths: [.]` griffe reads)."""
    markdown_hash = hashlib.sha256(markdown.encode()).hexdigest()
    return markdown_hash + _packages_key(Path(config.config_file_path))


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """On a rebuild, skip converting a page of mkdocstrings blocks whose sources did not change."""
    if _MKDOCSTRINGS_BLOCK not in "\n" + markdown:
        return markdown
    key = _keys[page.file.src_uri] = _sources_key(markdown, config)
    previous = _rendered.get(page.file.src_uri)
    if previous is not None and previous.key == key:
        _reusing.add(page.file.src_uri)
        return ""  # converted in no time; on_page_content puts the previous rendering back
    _reusing.discard(page.file.src_uri)
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Keep a fresh rendering of a page of mkdocstrings blocks, or restore the kept one (with its table of
    contents, its anchors for MkDocs' link validation and its objects for autorefs' cross-references)."""
    key = _keys.get(page.file.src_uri)
    if key is None:
        return html
    autorefs: Any = config.plugins.get("autorefs")
    if page.file.src_uri in _reusing:
        kept = _rendered[page.file.src_uri]
        page.toc, page.present_anchor_ids = kept.toc, set(kept.anchors)
        if autorefs is not None:
            for identifier, anchor, title, primary in kept.refs:
                autorefs.register_anchor(page, identifier, anchor, title=title, primary=primary)
        return kept.html
    refs = []
    if autorefs is not None:  # what mkdocstrings registered while converting this page (autorefs has no getter)
        here = page.url + "#"
        for primary, url_map in ((True, autorefs._primary_url_map), (False, autorefs._secondary_url_map)):
            for identifier, urls in url_map.items():
                refs += [
                    (identifier, url.removeprefix(here), autorefs._title_map.get(url), primary)
                    for url in urls
                    if url.startswith(here)
                ]
    anchors = set(page.present_anchor_ids or ())
    _rendered[page.file.src_uri] = _Rendered(key, html, page.toc, anchors, refs)
    return html


def on_post_build(config: MkDocsConfig) -> None:
    """Publish aliases.json and its JSON Schema, llms.txt, llms-full.txt and each page's Markdown source into
    site_dir (see `generator.pages.outputs`), and the Try it page's runtime (`generator.pages.playground`)."""
    outputs = generator.pages.outputs
    pages = outputs.read_pages(Path(config.docs_dir), config.nav)
    assert _table is not None, "on_pre_build failed, so MkDocs should not have built"
    files = outputs.site_outputs(_table, pages, config.site_name, config.site_description or "")
    outputs.write_outputs(files, Path(config.site_dir))
    playground = generator.pages.playground
    if absent := playground.missing():
        log.info("generator: the Try it page has no runtime: %s not downloaded; run `make setup`", absent[0].file)
        return
    try:
        playground.publish(Path(config.site_dir), _table)
    except playground.PlaygroundError as exc:
        raise PluginError(f"the Try it page's runtime cannot be published: {exc}") from None
