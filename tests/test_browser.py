"""The site as readers get it, in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

What is tested is the deployed site, not a plain build: the "Deploy" step of .github/workflows/docs.yml runs
(without pushing) in a throwaway git clone, its gh-pages tree is served on 127.0.0.1 the way GitHub Pages serves
it (a missing address gets the branch root's 404.html), and the pages are read under `/latest/`. So the version
selector (which fetches `versions.json`), the `latest` alias and the root 404 page are all exercised. The build
inside it uses `site_url` with the served port: Material's instant navigation silently falls back to full page
loads when the port differs.

Every request that leaves loopback is aborted and recorded, console errors and page errors are recorded, and a
test fails on either. axe-core (pinned in the Makefile, from the npm registry) is injected from a file.

No Chromium: skipped with a message, except under CI (CI=true), where that is a failure.
"""

from __future__ import annotations

import http.server
import io
import os
import re
import subprocess
import sys
import tarfile
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from sitekit import IN_CI, copy_repo, git_snapshot

from generator.pages.outputs import nav_pages

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
WORKFLOW = ROOT / ".github/workflows/docs.yml"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
TIMEOUT_MS = 20_000

# Flags that keep Chromium from calling Google's services on start (the network here is closed, and a
# test must not depend on it); root (CI) needs --no-sandbox.
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    *(["--no-sandbox"] if os.geteuid() == 0 else []),
]


def _missing(what: str) -> None:
    """Skip locally, fail under CI: CI must run every browser test."""
    if IN_CI:
        pytest.fail(f"{what} (CI=true: the browser tests must run)", pytrace=False)
    pytest.skip(what)


def _axe_path() -> Path:
    version = re.search(r"^AXE_CORE_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert version, "the Makefile lost its `AXE_CORE_VERSION := X.Y.Z` line"
    return ROOT / f".cache/axe-core-{version[1]}/axe.min.js"


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its `!ENV` and `!!python/name:` tags read as null: only `nav` is needed here."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)

NAV = nav_pages(yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)["nav"])
PAGES = {title: "" if path == "index.md" else path.removesuffix(".md") + "/" for title, path in NAV}
"""Nav title -> address under the version folder (use_directory_urls)."""


# --- The deployed site --------------------------------------------------------------------------------------------


class _Pages(http.server.SimpleHTTPRequestHandler):
    """Serves a gh-pages tree like GitHub Pages: a missing address gets /404.html with status 404."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest's output readable


def _deploy_script() -> str:
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["docs"]["steps"]
    (step,) = [s for s in steps if s.get("name") == "Deploy"]
    return str(step["run"])


def _git(repo: Path, *args: str, env: dict[str, str]) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True).stdout


@dataclass
class Deployed:
    origin: str
    """`http://127.0.0.1:PORT/`: the served gh-pages root."""
    base: str
    """The `latest` alias, where readers land."""
    tree: Path
    """The served gh-pages tree."""


@pytest.fixture(scope="session")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    work = tmp_path_factory.mktemp("deploy")
    repo, tree = work / "repo", work / "gh-pages"
    copy_repo(repo)
    env = git_snapshot(repo, work)

    # Bind first, so the build can use the real port as site_url.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: _Pages(*a, directory=str(tree)))
    origin = f"http://127.0.0.1:{server.server_port}/"
    deploy_env = {
        **env,
        "REF": f"refs/tags/v{VERSION}",  # a release: version folder, `latest` alias, root 404.html
        "PUSH": "",  # the workflow sets --push; here the branch stays local
        "SITE_URL": origin,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    result = subprocess.run(
        ["bash", "-c", _deploy_script()], cwd=repo, env=deploy_env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"the workflow's Deploy step failed:\n{result.stdout}\n{result.stderr}"
    with tarfile.open(fileobj=io.BytesIO(_git(repo, "archive", "--format=tar", "gh-pages", env=env))) as archive:
        archive.extractall(tree, filter="data")

    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Deployed(origin, f"{origin}latest/", tree)
    finally:
        server.shutdown()
        server.server_close()


# --- The browser --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} not found: install Debian's chromium (`apt-get install chromium`, as .ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@dataclass
class Tab:
    """A page in a fresh browser context, with what went wrong in it recorded."""

    page: Any
    deployed: Deployed
    errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    allowed_errors: list[str] = field(default_factory=list)
    """Console messages a test expects (e.g. the 404 of a page it opens on purpose)."""

    def open(self, address: str) -> Any:
        """Go to `address` (relative to the `latest` alias) and wait until the network is quiet."""
        response = self.page.goto(self.deployed.base + address)
        self.page.wait_for_load_state("networkidle")
        return response

    def problems(self) -> list[str]:
        unexpected = [e for e in self.errors if not any(a in e for a in self.allowed_errors)]
        return [f"console: {e}" for e in unexpected] + [f"request left loopback: {u}" for u in self.external]


@pytest.fixture
def tab(browser: Any, deployed: Deployed) -> Iterator[Tab]:
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    tab = Tab(page, deployed)

    def route(route: Any) -> None:
        url = route.request.url
        if url.startswith((deployed.origin, "data:", "blob:")):
            route.continue_()
        else:
            tab.external.append(url)
            route.abort()

    context.route("**/*", route)
    page.on("console", lambda message: tab.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
    # The console names no URL for a failed load; this does.
    page.on("response", lambda r: tab.errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    yield tab
    context.close()
    assert not tab.problems(), "\n".join(tab.problems())


def _expect() -> Any:
    from playwright.sync_api import expect

    return expect


# --- Every page ---------------------------------------------------------------------------------------------------

# Accessibility findings of these impacts fail the test; minor/moderate ones are printed, not failed.
FAILING_IMPACTS = ("serious", "critical")


@pytest.mark.parametrize("title", [*PAGES, "404"])
def test_page_is_offline_clean_and_accessible(tab: Tab, title: str) -> None:
    """No request leaves loopback, the console stays clean, and axe finds nothing serious or critical."""
    address = PAGES.get(title, "404.html")
    response = tab.open(address)
    assert response is not None and response.status == 200, f"{address}: HTTP {response and response.status}"
    axe = _axe_path()
    if not axe.is_file():
        _missing(f"{axe} not found: run `make setup` (it fetches the pinned axe-core from the npm registry)")
    tab.page.add_script_tag(path=str(axe))
    violations = tab.page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + " :: " + n.failureSummary)}))"""
    )
    failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
    report = [f"{v['impact']} {v['id']}: {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in failing]
    assert not failing, "\n".join(report)


def test_dark_scheme_is_accessible(tab: Tab) -> None:
    """The same axe check in the dark scheme (what a reader whose system prefers dark gets first)."""
    tab.page.emulate_media(color_scheme="dark")
    axe = _axe_path()
    if not axe.is_file():
        _missing(f"{axe} not found: run `make setup` (it fetches the pinned axe-core from the npm registry)")
    report = []
    for title, address in PAGES.items():
        tab.open(address)
        assert tab.page.evaluate("document.body.dataset.mdColorScheme") == "slate"
        tab.page.add_script_tag(path=str(axe))
        failing = tab.page.evaluate(
            """async (impacts) => (await axe.run(document, {resultTypes: ["violations"]})).violations
                .filter(v => impacts.includes(v.impact))
                .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ") + " :: " + n.failureSummary).join("; "))""",
            list(FAILING_IMPACTS),
        )
        report += [f"{title}: {f}" for f in failing]
    assert not report, "\n".join(report)


# --- Every page fits its screen --------------------------------------------------------------------------------

SCREENS = ((1440, 900), (390, 844))
"""A laptop and a phone (CSS pixels)."""
SCREENSHOTS = ROOT / ".cache/screenshots"
"""Where every page is saved at both sizes for a reviewer to look at (ignored by git, like all of .cache/)."""


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}px" for w, _ in SCREENS])
@pytest.mark.parametrize("title", PAGES)
def test_page_fits_the_screen(tab: Tab, title: str, width: int, height: int) -> None:
    """Nothing scrolls the page sideways; on the wide screen no table hides a column behind a scroll bar.

    On the phone a wide table scrolls inside its own box, its first column kept in view. Every page is
    saved as a screenshot (whole page) under .cache/screenshots/WIDTHxHEIGHT/.
    """
    tab.page.set_viewport_size({"width": width, "height": height})
    tab.open(PAGES[title])
    shot = SCREENSHOTS / f"{width}x{height}" / f"{re.sub(r'[^a-z0-9]+', '-', title.lower())}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(shot), full_page=True)
    page_width = tab.page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert page_width[0] <= page_width[1], f"{title} scrolls sideways at {width} px: {page_width}"
    tables = tab.page.eval_on_selector_all(
        ".md-content table",
        """ts => ts.map(t => {
            const box = t.closest(".md-typeset__scrollwrap") || t.parentElement;
            return {head: [...t.rows[0].cells].map(c => c.textContent.trim()).join(" | "),
                    scroll: box.scrollWidth, client: box.clientWidth};
        })""",
    )
    if width >= 1440:
        hidden = [t for t in tables if t["scroll"] > t["client"]]
        assert not hidden, f"{title} at {width} px: tables with columns out of view: {hidden}"
        return
    wide = tab.page.locator(".md-typeset__scrollwrap").filter(has=tab.page.locator("table"))
    for i in range(wide.count()):
        box = wide.nth(i)
        if box.evaluate("b => b.scrollWidth <= b.clientWidth"):
            continue
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
        kept = box.evaluate(
            """b => { const cell = b.querySelector("tr:last-child > :first-child").getBoundingClientRect();
                      return cell.left >= b.getBoundingClientRect().left - 1 && cell.width > 0; }"""
        )
        assert kept, f"{title} at {width} px: the first column of a scrolled table went out of view"
        break  # one scrolled table per page is enough: the rule is the same CSS for all


# --- Features readers rely on --------------------------------------------------------------------------------------


def test_before_after_tabs_switch_together(tab: Tab) -> None:
    tab.open(PAGES["Migration guide"])
    sets = tab.page.locator(".tabbed-set")
    assert sets.count() >= 2, "the guide should have several Before/After tab sets"
    first, last = sets.first, sets.last
    _expect()(first.locator(".tabbed-block").first).to_be_visible()  # "Before" shows first
    first.locator(".tabbed-labels > label", has_text="After").click()
    _expect()(first.locator(".tabbed-block").nth(1)).to_be_visible()
    _expect()(first.locator(".tabbed-block").first).to_be_hidden()
    assert "activation_checkpointing" in first.locator(".tabbed-block").nth(1).inner_text()
    # content.tabs.link: every other set on the page switched as well, the last one included.
    _expect()(last.locator(".tabbed-block").nth(1)).to_be_visible()
    _expect()(last.locator(".tabbed-block").first).to_be_hidden()


def test_search_for_an_old_name_lands_on_its_row(tab: Tab) -> None:
    old, new = "gradient_checkpointing_enable", "activation_checkpointing_enable"
    tab.open("")
    tab.page.keyboard.press("/")  # Material's search shortcut
    field = tab.page.locator("input.md-search__input")
    _expect()(field).to_be_focused()
    field.press_sequentially(old)  # fill() sends no key events, and Material searches on keyup
    # The migration guide is among the results (where exactly depends on what the other pages say), and among its
    # sections is the table of all renames, with the name highlighted.
    result = tab.page.locator(".md-search-result__item").filter(
        has=tab.page.locator("h1", has_text=re.compile("^Migration guide$"))
    )
    _expect()(result).to_have_count(1)
    more = result.locator(".md-search-result__more summary")
    if more.count():
        more.click()  # Material folds all but the best sections under "N more on this page"
    section = result.locator("a.md-search-result__link").filter(
        has=tab.page.locator("h2", has_text="All renames at a glance")
    )
    _expect()(section.locator("mark").first).to_have_text(old)
    section.click()
    tab.page.wait_for_url(re.compile(re.escape(tab.deployed.base + PAGES["Migration guide"]) + r"\?h=.*#.+"))
    # The reader lands on the table row of the rename, in view, with the name highlighted (search.highlight).
    tab.page.wait_for_function(
        """([old, renamed]) => [...document.querySelectorAll(".md-content tr")].some(row => {
            const [first, second] = row.cells, box = row.getBoundingClientRect();
            return first?.querySelector("mark")?.textContent === old && first.textContent.trim() === old
                && second?.textContent.trim() === renamed && box.top >= 0 && box.bottom <= innerHeight;
        })""",
        arg=[old, new],
    )


def test_timeline_is_drawn_at_build_time_and_readable_on_both_screens(tab: Tab) -> None:
    for width, height in SCREENS:
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.open(PAGES["Deprecation timeline"])
        drawing = tab.page.locator(".md-content svg.tl")
        _expect()(drawing).to_have_count(1)
        _expect()(drawing).to_be_visible()
        box = drawing.bounding_box()
        assert box is not None and box["height"] > 200, f"{width} px: the timeline is not drawn: {box}"
        # Text keeps a reading size: at least 11 CSS px tall on the phone and on the wide screen alike.
        sizes = tab.page.eval_on_selector_all(
            ".md-content svg.tl text", "ts => ts.map(t => t.getBoundingClientRect().height)"
        )
        assert sizes and min(sizes) >= 11, f"{width} px: timeline text {min(sizes):.1f} px tall"
        # Selectable: a reader can copy a label.
        label = tab.page.locator(".md-content svg.tl text.tl-head").first
        label.dblclick()
        assert tab.page.evaluate("getSelection().toString().trim()"), "timeline text is not selectable"
    # Readable in the dark scheme too: the labels follow the page's text colour.
    colours = []
    for _ in range(2):
        colours.append(tab.page.eval_on_selector(".md-content svg.tl text", "t => getComputedStyle(t).fill"))
        tab.page.locator("label.md-header__button[for^='__palette']:visible").click()
    scheme = tab.page.evaluate("document.body.dataset.mdColorScheme")
    assert colours[0] != colours[1], f"the timeline text kept {colours[0]} across schemes ({scheme})"


def test_pasting_an_error_text_finds_its_section(tab: Tab) -> None:
    """For every warning and exception text, pasting `Category: text` lists its section among the errors page's hits.

    Texts that share a heading (the list after the colon differs) are pasted as their heading, which is what every
    variant starts with. Where in the list the section ranks is lunr's business; it must be there, and following
    it must land on the heading.
    """
    from generator.measure import data as measured_data
    from generator.pages import errors
    from generator.table import load

    found = errors.error_texts(load(ROOT / "aliases.yaml"), measured_data.load_measured())
    assert found
    tab.open(PAGES["Errors and warnings"])
    field = tab.page.locator("input.md-search__input")
    page_hit = tab.page.locator(".md-search-result__item").filter(
        has=tab.page.locator("h1", has_text=re.compile("^Errors and warnings$"))
    )
    missing = []
    for error in found:
        pasted = f"{error.category}: {error.texts[0] if len(error.texts) == 1 else error.heading}"
        tab.page.keyboard.press("/")
        field.fill("x")  # clear the previous results first, so the ones read below are this text's
        field.press("End")  # Material searches on keyup
        _expect()(page_hit).to_have_count(0)
        field.fill(pasted)
        field.press("End")
        _expect()(page_hit).to_have_count(1)
        headings = [" ".join(t.split()) for t in page_hit.locator("a.md-search-result__link h2").all_text_contents()]
        if error.heading.replace("`", "") not in headings:
            missing.append(pasted)
        tab.page.keyboard.press("Escape")
    assert not missing, f"pasted texts whose section the search does not list: {missing}"
    # And following the best hit lands on that heading.
    tab.open("")  # afresh, from the home page
    tab.page.keyboard.press("/")
    _expect()(field).to_be_focused()
    field.fill(f"{found[-1].category}: {found[-1].texts[0]}")
    field.press("End")
    best = page_hit.locator("a.md-search-result__link:visible", has=tab.page.locator("h2")).first  # sections: h2
    _expect()(best).to_be_visible()
    title = " ".join(best.locator("h2").first.text_content().split())
    best.click()
    _expect()(tab.page.locator(".md-content :is(h2, h3)", has_text=title).first).to_be_in_viewport()


def test_instant_navigation_keeps_state_between_pages(tab: Tab) -> None:
    tab.open(PAGES["Migration guide"])
    tab.page.locator(".tabbed-set").first.locator(".tabbed-labels > label", has_text="After").click()
    tab.page.evaluate("window.__still_here = true")
    tab.page.locator(".md-nav__link", has_text="Deprecation timeline").first.click()
    tab.page.wait_for_url(tab.deployed.base + PAGES["Deprecation timeline"])
    _expect()(tab.page.locator("h1")).to_contain_text("Deprecation timeline")
    tab.page.locator(".md-nav__link", has_text="Migration guide").first.click()
    tab.page.wait_for_url(tab.deployed.base + PAGES["Migration guide"])
    assert tab.page.evaluate("window.__still_here") is True, "a full page load happened: instant navigation is off"
    # The tab choice is kept too: the guide comes back showing "After".
    _expect()(tab.page.locator(".tabbed-set").first.locator(".tabbed-block").nth(1)).to_be_visible()


def test_code_blocks_have_a_copy_button(tab: Tab) -> None:
    tab.open(PAGES["Migration guide"])
    blocks = tab.page.locator(".md-content pre:has(> code)")
    buttons = tab.page.locator('.md-content pre button[data-md-type="copy"]')
    assert blocks.count() > 0 and buttons.count() == blocks.count(), (blocks.count(), buttons.count())
    blocks.first.hover()
    _expect()(buttons.first).to_be_visible()
    _expect()(buttons.first).to_have_attribute("title", "Copy to clipboard")


def test_version_selector_lists_the_release_and_latest(tab: Tab) -> None:
    tab.open("")
    _expect()(tab.page.locator(".md-version__current")).to_have_text(VERSION)
    _expect()(tab.page.locator(".md-version__list .md-version__link").first).to_contain_text(VERSION)


def test_a_missing_address_gets_the_404_page_with_working_links(tab: Tab) -> None:
    missing_pages = (tab.deployed.base + "no-such-page/", tab.deployed.origin + "no-such-page/")
    # The missing pages themselves answer 404 (that is the point); nothing they load may.
    tab.allowed_errors += ["the server responded with a status of 404", *(f"HTTP 404: {m}" for m in missing_pages)]
    for missing in missing_pages:
        response = tab.page.goto(missing)
        assert response is not None and response.status == 404
        _expect()(tab.page.locator("h1#page-not-found")).to_be_visible()
        link = tab.page.locator(".md-content a", has_text="Migration guide")
        link.click()
        tab.page.wait_for_url(tab.deployed.base + PAGES["Migration guide"])
    assert [e for e in tab.errors if e.startswith("HTTP")] == [f"HTTP 404: {m}" for m in missing_pages]


def test_the_root_redirects_to_latest(tab: Tab) -> None:
    tab.page.goto(tab.deployed.origin)
    tab.page.wait_for_url(tab.deployed.base)
    _expect()(tab.page.locator("h1").first).to_contain_text("activation_checkpointing")


# --- The first screen, copy and reading (issue 20) -----------------------------------------------------------------


def _in_view(tab: Tab, locator: Any) -> bool:
    box = locator.bounding_box()
    size = tab.page.viewport_size
    return bool(box) and box["width"] > 0 and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("title", ["Home", "Migration guide"])
def test_the_answer_is_on_the_first_screen(tab: Tab, title: str, scheme: str) -> None:
    """At 1440×900, without scrolling: the versions, the common lines after the rename, the errors page, the tool."""
    from generator.pages.answer import answer
    from generator.table import load

    facts = answer(load(ROOT / "aliases.yaml"))
    tab.page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    tab.page.set_viewport_size({"width": 1440, "height": 900})
    tab.open(PAGES[title])
    content = tab.page.locator(".md-content")
    lead = content.locator("p", has_text=f"{facts.library} {facts.since} renamed").first
    _expect()(lead).to_contain_text(facts.removal)
    assert _in_view(tab, lead), f"{title}: the versions are below the first screen"
    for line in facts.lines:
        for after in line.after:
            cell = content.locator("td code.ck-new", has_text=after).first
            assert _in_view(tab, cell), f"{title}: {after!r} is not on the first screen"
    for name in ("Errors and warnings", "Migrate automatically"):
        target = PAGES[name].rstrip("/")
        link = content.locator(f"a[href*='{target.rsplit('/', 1)[-1]}']").first
        assert _in_view(tab, link), f"{title}: no link to {name} on the first screen"
    install = content.locator("pre code", has_text=f"pip install {facts.tool.package}").first
    assert _in_view(tab, install), f"{title}: the install line is below the first screen"


def test_copy_gives_runnable_code(tab: Tab) -> None:
    """The copy button of a pycon block copies its statements only: no prompts, no output, and the code compiles."""
    tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab.open(PAGES["Migration guide"])
    blocks = tab.page.locator(".md-content .language-pycon")
    assert blocks.count() > 10
    copies = blocks.evaluate_all("bs => bs.map(b => b.getAttribute('data-copy'))")
    assert all(c is not None for c in copies), "a pycon block has no data-copy"
    for text in copies:
        assert ">>>" not in text and "Warning: " not in text, text
        compile(text, "<copied>", "exec")  # a SyntaxError fails the test
    # And the button really copies it: the first "After" tab's block.
    after = tab.page.locator(".tabbed-set").first.locator(".tabbed-labels > label", has_text="After")
    after.click()
    block = tab.page.locator(".tabbed-set").first.locator(".tabbed-block").nth(1).locator(".language-pycon")
    block.hover()
    block.locator('button[data-md-type="copy"]').click()
    copied = tab.page.evaluate("navigator.clipboard.readText()")
    assert copied == block.get_attribute("data-copy") and "activation_checkpointing" in copied, copied


def test_doctest_output_wraps_on_the_wide_screen(tab: Tab) -> None:
    """A warning printed in a Before tab is read to its end ("Use … instead") without scrolling the block."""
    tab.page.set_viewport_size({"width": 1440, "height": 900})
    tab.open(PAGES["Migration guide"])
    hidden = tab.page.eval_on_selector_all(
        ".md-content .language-pycon .go",
        """spans => spans.filter(s => s.getClientRects().length).filter(s => {
            const pre = s.closest("pre").getBoundingClientRect();
            return [...s.getClientRects()].some(r => r.right > pre.right + 1);
        }).map(s => s.textContent.slice(0, 60))""",
    )
    assert not hidden, f"output lines run past their block: {hidden}"


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}px" for w, _ in SCREENS])
def test_table_text_is_at_least_12px(tab: Tab, width: int, height: int) -> None:
    tab.page.set_viewport_size({"width": width, "height": height})
    small = []
    for title in ("Home", "Migration guide"):
        tab.open(PAGES[title])
        small += tab.page.eval_on_selector_all(
            ".md-content table :is(td, th, td *, th *)",
            """els => els.filter(e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
                .map(e => [e.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(e).fontSize)])
                .filter(([, size]) => size < 12)""",
        )
    assert not small, f"table text under 12 px at {width} px: {small[:5]}"


def test_expected_names_are_not_shown_as_available(tab: Tab) -> None:
    """A name no release has is labelled "expected" and is not in the colour of names that work today."""
    tab.open(PAGES["Migration guide"])
    section = tab.page.locator(".md-content table", has=tab.page.locator("th", has_text="Expected name"))
    _expect()(section).to_have_count(1)
    _expect()(section.locator("code.ck-new")).to_have_count(0)
    future = tab.page.eval_on_selector(".md-content code.ck-future", "c => getComputedStyle(c).color")
    new = tab.page.eval_on_selector(".md-content code.ck-new", "c => getComputedStyle(c).color")
    assert future != new


def test_a_wide_table_shows_a_scroll_cue_on_the_phone(tab: Tab) -> None:
    tab.page.set_viewport_size({"width": 390, "height": 844})
    tab.open(PAGES["Migration guide"])
    boxes = tab.page.locator(".md-typeset__scrollwrap").filter(has=tab.page.locator("table"))
    scrolling = [i for i in range(boxes.count()) if boxes.nth(i).evaluate("b => b.scrollWidth > b.clientWidth")]
    assert scrolling, "every table fits the phone: nothing to cue"
    wide = boxes.nth(scrolling[0])
    assert wide.evaluate("b => getComputedStyle(b).maskImage") != "none", "no fade at the hidden edge"
    wide.evaluate("b => { b.scrollLeft = b.scrollWidth; b.dispatchEvent(new Event('scroll')); }")
    _expect()(wide).not_to_have_attribute("data-ck-more", "")
