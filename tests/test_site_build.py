"""The built site, checked for what a reader would notice.

The site is built through the MkDocs API (load_config, startup event, build, shutdown), but in
a child process and from a copy of the repository in a temporary directory:

- the hook (`generator/pages/hook.py`) reloads the generator modules, which in this process would
  replace the classes that other test modules already imported (`pytest.raises(TableError)`
  would then miss the reloaded `TableError`);
- the hook writes docs/generated/*.md when they are stale, which would repair the working tree
  before the freshness test looks at it.

One build serves the whole session, shared with the other site tests (`sitekit.shared_site`); one
more, with two kinds of broken link, checks that strict mode fails on each.
"""

from __future__ import annotations

import json
import re
from html import unescape as html_unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import pytest
from sitekit import Build, build_via_api, copy_repo, shared_site

from checkpointing_migrate.table import load
from generator.measure import data as measured_data
from generator.pages import errors

ROOT = Path(__file__).resolve().parent.parent
TABLE = load(ROOT / "aliases.yaml")

# The nav of the fixed interface: title -> built page (use_directory_urls).
NAV = {
    "Home": "index.html",
    "Try it": "try/index.html",
    "Migration guide": "generated/migration-guide/index.html",
    "Errors and warnings": "generated/errors/index.html",
    "Migrate automatically": "migrate-automatically/index.html",
    "Finding codes": "generated/finding-codes/index.html",
    "Naming comparison": "generated/naming-comparison/index.html",
    "Adoption report": "generated/adoption-report/index.html",
    "Deprecation timeline": "generated/timeline/index.html",
    "Generator internals": "reference/index.html",
}


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Build:
    result = shared_site(tmp_path_factory)
    assert result.returncode == 0, f"strict build failed:\n{result.log}"
    return result


def _html(built: Build, page: str) -> str:
    return (built.site / page).read_text(encoding="utf-8")


class _Resources(HTMLParser):
    """Collect the URLs that make a browser fetch something (not plain <a> links)."""

    ATTRS = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src"}

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "script":
            self.scripts.append(attr)
        if tag == "link" and attr.get("rel") in ("canonical", "prev", "next"):
            return  # navigation metadata, not fetched
        if (url := attr.get(self.ATTRS.get(tag, ""))) is not None:
            self.urls.append(url)


class _NavLinks(HTMLParser):
    """Text -> href of the links in Material's navigation sidebar."""

    def __init__(self) -> None:
        super().__init__()
        self.links: dict[str, str] = {}
        self._href: str | None = None
        self._text: list[str] = []

    @classmethod
    def of(cls, html: str) -> dict[str, str]:
        parser = cls()
        parser.feed(html)
        return parser.links

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "a" and "md-nav__link" in (attr.get("class") or "").split():
            self._href, self._text = attr.get("href") or "", []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.setdefault(" ".join("".join(self._text).split()), self._href)
            self._href = None


def _resources(html: str) -> _Resources:
    parser = _Resources()
    parser.feed(html)
    return parser


def test_nav_is_the_documented_one(built: Build) -> None:
    assert [next(iter(item)) for item in built.nav] == list(NAV)


@pytest.mark.parametrize(("title", "page"), NAV.items())
def test_every_nav_page_is_built(built: Build, title: str, page: str) -> None:
    assert (built.site / page).is_file(), f"{title}: no {page}"
    if page != "index.html":  # Material titles the home page with the site name alone
        assert f"<title>{title} - " in _html(built, page)
    sidebar = _NavLinks.of(_html(built, "index.html"))
    assert title in sidebar, f"home page sidebar: {sidebar}"
    assert urljoin("/", sidebar[title]) == "/" + page.removesuffix("index.html")


def test_migration_guide_has_content_tabs(built: Build) -> None:
    html = _html(built, NAV["Migration guide"])
    assert 'class="tabbed-set' in html
    assert '"content.tabs.link"' in html  # tab sets switch together


def test_timeline_is_one_inline_svg_with_selectable_text(built: Build) -> None:
    html = _html(built, NAV["Deprecation timeline"])
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="tl"') == 1
    start = html.index('class="tl"')
    drawing = html[start : html.index("</svg>", start)]
    texts = re.findall(r"<text [^>]*>([^<]*)</text>", drawing)
    # Every release of the table is labelled, with its upload date, and the planned removal is drawn as text.
    for release in TABLE.releases:
        display = TABLE.libraries[release.library].display
        assert f"{display} {release.version} · {release.date.isoformat()}" in texts, texts
    for row in TABLE.renames:
        if row.removal:
            assert any(t.startswith(f"{row.removal} removes ") for t in texts), texts
    # No client-side diagram library: nothing draws after load.
    assert "mermaid" not in html.lower()


def test_every_error_text_is_a_heading_search_finds(built: Build) -> None:
    """Pasting a warning or exception text into the search lands on its section: the heading is in the index."""
    index = json.loads((built.site / "search/search_index.json").read_text(encoding="utf-8"))
    sections = {
        re.sub(r"<[^>]+>", "", doc["title"]): doc
        for doc in index["docs"]
        if doc["location"].startswith("generated/errors/#")
    }
    expected = errors.error_texts(TABLE, measured_data.load_measured())
    assert expected, "no error texts generated"
    for error in expected:
        heading = error.heading.replace("`", "")
        assert heading in sections, f"no search section titled {heading!r}; have {sorted(sections)}"
        text = re.sub(r"<[^>]+>", "", sections[heading]["text"])
        for message in error.texts:  # each variant verbatim in the section's text
            assert f"{error.category}: {message}".replace("`", "") in html_unescape(text).replace("`", ""), message
    # What the issue names, by the measured data (never typed here): the table's warnings, the TypeErrors and
    # AttributeErrors of the new names on the release before them, and both HfArgumentParser refusals.
    categories = {e.category for e in expected}
    assert {"FutureWarning", "TypeError", "AttributeError", "ValueError"} <= categories
    assert any(s.function == "Trainer.create_accelerator_and_postprocess" for e in expected for s in e.sites)  # FSDP
    for row in TABLE.renames:
        if row.warning:
            assert row.warning.message.replace("`", "") in sections


def test_api_reference_documents_the_generator(built: Build) -> None:
    html = _html(built, NAV["Generator internals"])
    assert 'id="checkpointing_migrate.table"' in html
    assert len(re.findall(r'id="generator\.\w+\.\w+"', html)) >= 2  # members, not just headings


def test_search_index_has_every_page(built: Build) -> None:
    index = json.loads((built.site / "search/search_index.json").read_text(encoding="utf-8"))
    titles = {doc["title"] for doc in index["docs"] if "#" not in doc["location"]}
    assert set(NAV) - {"Home", "Generator internals"} <= titles


def test_generator_internals_are_not_in_the_reader_search(built: Build) -> None:
    """The contributors' page (mkdocstrings' member listings) stays out of the index readers search, page and
    sections alike: before, it came first for almost any pasted error text."""
    index = json.loads((built.site / "search/search_index.json").read_text(encoding="utf-8"))
    internals = NAV["Generator internals"].removesuffix("index.html")
    assert (built.site / NAV["Generator internals"]).is_file()  # still published, only not searched
    assert not [doc["location"] for doc in index["docs"] if doc["location"].startswith(internals)]


def test_no_page_loads_anything_from_another_host(built: Build) -> None:
    offenders = []
    for page in sorted(built.site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        external = [u for u in _resources(html).urls if re.match(r"(?i)(https?:)?//", u)]
        cdn = re.findall(r"(?i)https?://[^\s\"'<>]*(?:unpkg|cdn|googleapis|gstatic)[^\s\"'<>]*", html)
        if 'data-md-component="source"' in html:  # repo_url: browsers would call api.github.com
            cdn.append("repo_url widget")
        if external or cdn:
            offenders.append(f"{page.relative_to(built.site)}: {external + cdn}")
    assert not offenders, "\n".join(offenders)


def test_no_source_or_test_files_are_published(built: Build) -> None:
    published = [p.relative_to(built.site) for p in built.site.rglob("*") if p.suffix in (".py", ".pyc")]
    assert not published


_BROKEN_LINKS = {
    "nope.md#missing": "is not found",  # a missing page
    # a missing anchor: only `validation: links: anchors: warn` fails on it
    "reference.md#no-such-heading": "does not contain an anchor '#no-such-heading'",
}


def test_broken_links_fail_the_strict_build_each_with_its_warning(tmp_path: Path) -> None:
    """One build with both kinds of broken link (a site build is ~50 s of CPU): each gets its own warning line, and
    they are the only warnings."""
    repo = copy_repo(tmp_path / "repo")
    with (repo / "docs/index.md").open("a", encoding="utf-8") as page:  # hand-written: the hook leaves it alone
        page.write("".join(f"\n[x]({link})\n" for link in _BROKEN_LINKS))
    result = build_via_api(repo)
    assert result.returncode == 3, result.log
    warnings = [line for line in result.log.splitlines() if line.startswith("WARNING")]
    for link, says in _BROKEN_LINKS.items():
        assert [w for w in warnings if f"'{link}'" in w and says in w], f"{link}: no warning of its own\n{result.log}"
    assert f"Aborted with {len(_BROKEN_LINKS)} warnings in strict mode" in result.log, result.log  # nothing else


# --- What a reader sees first, and code as written (issue 20) ---------------------------------------------------------

_CODE = re.compile(r"<code[^>]*>(.*?)</code>", re.DOTALL)


def test_code_renders_as_written(built: Build) -> None:
    """Markdown never turns part of a name into emphasis: `__init__` stays `__init__`, not a bold "init"."""
    found = []
    for page in sorted(built.site.rglob("*.html")):
        for body in _CODE.findall(page.read_text(encoding="utf-8")):
            if re.search(r"<(strong|em|b|i)\b", body):
                found.append(f"{page.relative_to(built.site)}: {body[:80]}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(("title", "page"), NAV.items())
def test_every_page_has_its_own_description(built: Build, title: str, page: str) -> None:
    html = _html(built, page)
    match = re.search(r'<meta name="description" content="([^"]*)"', html)
    site = re.search(r"^site_description: (.*)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)
    assert match and site and match.group(1) != site.group(1), f"{title}: no description of its own"


def test_home_links_every_page(built: Build) -> None:
    html = _html(built, NAV["Home"])
    content = html[html.index('<article class="md-content__inner') : html.index("</article>")]
    hrefs = {urljoin("/", h) for h in re.findall(r'<a href="([^"#]*)(?:#[^"]*)?"', content)}
    missing = [t for t, p in NAV.items() if t != "Home" and "/" + p.removesuffix("index.html") not in hrefs]
    assert not missing, f"Home does not link: {missing}"


def test_one_rename_table_on_the_site(built: Build) -> None:
    """The table of renames with their versions appears once; other places name only their rows and link to it."""
    tables = {
        str(page.relative_to(built.site)): n
        for page in built.site.rglob("index.html")
        if (n := page.read_text(encoding="utf-8").count("<th>Since → removal</th>"))
    }
    assert tables == {NAV["Migration guide"]: 1}, tables


@pytest.mark.parametrize("title", ["Home", "Migration guide"])
def test_home_and_the_guide_open_with_the_answer(built: Build, title: str) -> None:
    from generator.pages.answer import answer

    facts = answer(TABLE)
    html = _html(built, NAV[title])
    content = html[html.index('<article class="md-content__inner') :]
    opening = content[: content.index("<h2")]  # before the first section
    text = html_unescape(re.sub(r"<[^>]+>", "", opening))
    assert facts.since in text and facts.removal in text
    assert f"{facts.old_names} old names" in text
    for line in facts.lines:
        for after in line.after:
            assert after in text, after
    assert f"pip install {facts.tool.package}" in text and f"{facts.tool.command} fix --write ." in text
    links = {urljoin("/" + NAV[title], h) for h in re.findall(r'<a href="([^"#]*)', opening)}
    assert "/" + NAV["Errors and warnings"].removesuffix("index.html") in links
    assert "/" + NAV["Migrate automatically"].removesuffix("index.html") in links
