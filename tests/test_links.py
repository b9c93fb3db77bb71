"""Every internal link and #anchor of the built site resolves; external links are listed, never fetched.

The check reads the built HTML, not the Markdown, so it also covers what MkDocs' own validation cannot see:
links written as raw HTML, the theme's links (navigation, assets, canonical URLs, code line anchors), the
404 page (absolute URLs), redirect pages (meta refresh) and the generated pages. It is plain stdlib HTML
parsing of the output folder, so it works for any builder that writes HTML.

External links go to a report, `.cache/linkcheck/external-links.md` (grouped by URL, with the pages that use
them), for a person or a networked job to look at: the tests run offline.

Run it on any built site: `python tests/test_links.py SITE_DIR [SITE_URL]`.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from sitekit import Build, build, copy_repo, shared_site

ROOT = Path(__file__).resolve().parent.parent
SITE_URL = "https://docs.example.invalid/"
"""site_url for the builds this module makes itself: links that start with it (canonical links, code line anchors) are
internal. The shared build has the site_url of `mkdocs.yml`."""
REPORT = ROOT / ".cache/linkcheck/external-links.md"


# --- The checker --------------------------------------------------------------------------------------------------


@dataclass
class Page:
    """What one HTML file links to and which anchors it has."""

    links: list[str] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)


class _Parser(HTMLParser):
    # Attributes that make a browser follow or fetch a URL.
    URL_ATTRS = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value for name, value in attrs if value is not None}
        for name in ("id", "name") if tag == "a" else ("id",):
            if name in attr:
                self.page.anchors.add(attr[name])
        if (url := attr.get(self.URL_ATTRS.get(tag, ""))) is not None:
            self.page.links.append(url)
        if tag == "meta" and attr.get("http-equiv", "").lower() == "refresh":  # redirect pages
            if match := re.search(r"url=(.+)", attr.get("content", ""), re.IGNORECASE):
                self.page.links.append(match[1].strip("'\" "))


def parse(path: Path) -> Page:
    """The links and anchors of one HTML file."""
    parser = _Parser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.page


@dataclass
class Report:
    """The outcome of a check."""

    broken: list[str]
    """`page: link (why)` for each internal link that does not resolve."""
    external: dict[str, list[str]]
    """External URL -> the pages that link to it."""
    checked: int
    """How many internal links were followed."""


def _target(site: Path, page: Path, url: str, site_url: str) -> tuple[str, str] | None:
    """(path under the site, anchor) of an internal link; `None` for an external one."""
    if url.startswith(site_url):
        url = "/" + url[len(site_url) :]
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    if parts.path.startswith("/"):  # absolute: 404.html and anything built from site_url's path
        base = urlsplit(site_url).path or "/"
        path = parts.path[len(base) :] if parts.path.startswith(base) else "\0outside"
    else:
        path = urljoin("/" + page.relative_to(site).as_posix(), parts.path)[1:]
    return unquote(path), unquote(parts.fragment)


def check(site: Path, site_url: str = SITE_URL) -> Report:
    """Check every link in every HTML file under `site`.

    Args:
        site: The built site's folder.
        site_url: The `site_url` it was built with; links that start with it are internal.

    Returns:
        The broken internal links, the external links, and a count of the internal links checked.
    """
    pages = {path: parse(path) for path in sorted(site.rglob("*.html"))}
    broken: list[str] = []
    external: dict[str, list[str]] = defaultdict(list)
    checked = 0
    for page, parsed in pages.items():
        where = page.relative_to(site).as_posix()
        for url in parsed.links:
            if url.startswith(("mailto:", "javascript:", "data:", "tel:")):
                continue
            resolved = _target(site, page, url, site_url)
            if resolved is None:
                if where not in external[url]:
                    external[url].append(where)
                continue
            checked += 1
            path, anchor = resolved
            file = site / path
            if path.startswith(("..", "\0")) or not file.resolve().is_relative_to(site.resolve()):
                broken.append(f"{where}: {url} (outside the site)")
                continue
            if file.is_dir() or path in ("", ".") or path.endswith("/"):
                file = file / "index.html"
            if not file.is_file():
                broken.append(f"{where}: {url} (no {file.relative_to(site).as_posix()})")
            elif anchor and file.suffix == ".html":
                anchors = pages[file].anchors if file in pages else parse(file).anchors
                if anchor not in anchors:
                    broken.append(f"{where}: {url} (no #{anchor} in {file.relative_to(site).as_posix()})")
    return Report(broken, dict(external), checked)


def markdown_report(report: Report) -> str:
    """The external links as a Markdown list, each with the pages that link to it."""
    lines = [
        "# External links of the built site",
        "",
        "Listed by tests/test_links.py, not fetched (the tests run offline). Check them from a networked machine.",
        "",
    ]
    for url in sorted(report.external):
        lines.append(f"- <{url}>: " + ", ".join(sorted(report.external[url])))
    return "\n".join(lines) + "\n"


# --- Building ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The session's build of the pristine site (`sitekit.shared_site`), with the site_url of `mkdocs.yml`."""
    built = shared_site(tmp_path_factory)
    assert built.returncode == 0, built.log
    return built


# --- Tests ---------------------------------------------------------------------------------------------------------


def test_every_internal_link_and_anchor_resolves(site: Build) -> None:
    report = check(site.site, site.site_url)
    assert not report.broken, "\n".join(report.broken)
    # The theme alone links each page to its assets and every other page: a handful would mean a parse failure.
    assert report.checked > 50 * len(list(site.site.rglob("*.html")))
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(markdown_report(report), encoding="utf-8")


def test_external_links_are_listed_with_their_pages(site: Build) -> None:
    report = check(site.site, site.site_url)
    # The naming comparison links each library's documentation, taken from aliases.yaml.
    assert report.external, "no external links found at all"
    hf = [url for url in report.external if url.startswith("https://huggingface.co/docs/transformers")]
    assert hf and "generated/naming-comparison/index.html" in report.external[hf[0]]
    assert f"<{hf[0]}>" in markdown_report(report)


def test_the_404_page_links_resolve(site: Build) -> None:
    links = parse(site.site / "404.html").links
    assert any(link.startswith("/generated/") for link in links), links  # absolute, from site_url's path
    assert not [b for b in check(site.site, site.site_url).broken if b.startswith("404.html")]


def test_a_broken_raw_html_link_is_caught_and_a_moved_page_keeps_its_old_address(tmp_path: Path) -> None:
    """Raw HTML passes `mkdocs build --strict`; the checker is what catches it. The redirects plugin turns an entry of
    `redirect_maps` into a page that forwards to the new address. One build for both (a site build is ~40 s of CPU):
    the broken links found are exactly the two raw ones, so the forwarding page adds none."""
    repo = copy_repo(tmp_path / "repo")
    with (repo / "docs/index.md").open("a", encoding="utf-8") as page:
        page.write('\n<a href="generated/timeline/#no-such-anchor">x</a> <a href="nowhere/">y</a>\n')
    config = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    assert "redirect_maps: {}" in config
    moved = config.replace("redirect_maps: {}", 'redirect_maps: {"migration.md": "generated/migration-guide.md"}')
    (repo / "mkdocs.yml").write_text(moved, encoding="utf-8")
    assert build(repo, tmp_path / "site", SITE_URL=SITE_URL).returncode == 0
    redirect = parse(tmp_path / "site/migration/index.html")
    assert "../generated/migration-guide/" in redirect.links
    assert check(tmp_path / "site").broken == [
        "index.html: generated/timeline/#no-such-anchor (no #no-such-anchor in generated/timeline/index.html)",
        "index.html: nowhere/ (no nowhere/index.html)",
    ]


def test_a_redirect_to_a_missing_page_fails_the_build(tmp_path: Path) -> None:
    repo = copy_repo(tmp_path / "repo")
    config = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    (repo / "mkdocs.yml").write_text(config.replace("redirect_maps: {}", 'redirect_maps: {"a.md": "gone.md"}'))
    result = build(repo, tmp_path / "site", SITE_URL=SITE_URL)
    assert result.returncode != 0 and "gone.md" in result.stderr, result.stderr


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python tests/test_links.py SITE_DIR [SITE_URL]")
    result = check(Path(sys.argv[1]), *sys.argv[2:3])
    print(markdown_report(result))
    print("\n".join(result.broken) or f"{result.checked} internal links checked: none broken.")
    sys.exit(1 if result.broken else 0)
