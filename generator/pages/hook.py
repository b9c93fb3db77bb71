"""MkDocs hook: re-render the generated pages before every build (live table edits), publish the outputs after.

`on_pre_build` renders docs/generated/*.md (written only when changed, so the server does not rebuild in a loop);
`on_config` gives `site_url` back its trailing slash; `on_post_build` publishes the machine-readable outputs
(`generator.pages.outputs`) into site_dir only, never into docs/, so they need no committing and trigger no rebuild.
"""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

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

_rebuild = False
"""Whether a build already ran in this process. Before the first one the generator modules were just imported,
so reloading them would only cost time (it is part of every `mkdocs build`; see benchmarks/build.py)."""
_table: checkpointing_migrate.table.Table | None = None
"""The table the current build rendered, which `on_post_build` publishes without reading the file again."""


def _reimport_generator() -> None:
    """Import the generator package afresh, every module of it, so no edit is served stale.

    Dropping the modules and importing again, rather than `importlib.reload` one by one, needs no list of modules
    in dependency order that would go stale as the package grows.
    """
    global generator
    for name in [n for n in sys.modules if n == "generator" or n.startswith("generator.")]:
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
    generator = sys.modules["generator"]


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
    the generator modules are imported afresh on each rebuild; otherwise an edit to `generator/` (watched, see
    `watch:` in mkdocs.yml) would be served stale. Pages are written only when their content changed."""
    global _rebuild, _table
    if _rebuild:
        _reimport_generator()
    _rebuild, _table = True, None
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
