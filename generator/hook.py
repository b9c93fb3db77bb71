"""MkDocs hook: re-render the generated pages at the start of every build, so `mkdocs serve` shows table edits.

Events used: `on_pre_build` only. `mkdocs serve` imports a hook once and caches it together with every module it
imports, so the generator modules are reloaded here on each build; otherwise an edit to `generator/` or a
template-facing helper would be watched (see `watch:` in mkdocs.yml) but served stale. Pages are written only
when their content changed, which keeps the server from rebuilding in a loop.
"""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

# MkDocs puts only this file's folder on sys.path while importing a hook; the package lives one level up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import generator.oldnames  # noqa: E402
import generator.render  # noqa: E402
import generator.table  # noqa: E402
import generator.views  # noqa: E402

log = logging.getLogger("mkdocs.hooks.generator")


def on_pre_build(config: MkDocsConfig) -> None:
    for module in (generator.table, generator.oldnames, generator.views, generator.render):
        importlib.reload(module)
    render, table = generator.render, generator.table
    try:
        pages = render.render_pages(table.load(render.TABLE_PATH))
    except table.TableError as exc:
        raise PluginError(f"aliases.yaml has problems; the generated pages were left as they were:\n{exc}") from None
    except render.RenderError as exc:
        raise PluginError(f"a template failed; the generated pages were left as they were:\n{exc}") from None
    for path in render.write_pages(pages):
        log.info("generator: wrote %s", path.relative_to(render.ROOT))
