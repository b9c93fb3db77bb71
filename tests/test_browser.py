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
import json
import os
import re
import subprocess
import sys
import tarfile
import threading
import tomllib
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from sitekit import IN_CI, copy_repo, git_snapshot

from checkpointing_migrate.table import load
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
    context, tab = _open_tab(browser, deployed)
    yield tab
    context.close()
    assert not tab.problems(), "\n".join(tab.problems())


def _open_tab(browser: Any, deployed: Deployed) -> tuple[Any, Tab]:
    """A page in a fresh browser context (and the context, to close), recording what goes wrong in it."""
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
    return context, tab


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


DARK_SCHEME_RULES = ("color-contrast", "link-in-text-block")
"""The axe rules whose outcome depends on colours: the only ones a colour scheme can change (structure, names and
roles are the light run's)."""


def test_dark_scheme_is_accessible(tab: Tab) -> None:
    """The colour checks of axe in the dark scheme (what a reader whose system prefers dark gets first)."""
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
            """async ([impacts, rules]) => (await axe.run(document, {resultTypes: ["violations"],
                    runOnly: {type: "rule", values: rules}})).violations
                .filter(v => impacts.includes(v.impact))
                .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ") + " :: " + n.failureSummary).join("; "))""",
            [list(FAILING_IMPACTS), list(DARK_SCHEME_RULES)],
        )
        report += [f"{title}: {f}" for f in failing]
    assert not report, "\n".join(report)


# --- Every page fits its screen --------------------------------------------------------------------------------

SCREENS = ((1440, 900), (390, 844))
"""A laptop and a phone (CSS pixels)."""
SCREENSHOTS = ROOT / ".cache/screenshots"
"""Where every page is saved at both sizes for a reviewer to look at (ignored by git, like all of .cache/)."""
SCREENSHOT_MAX_HEIGHT = 40_000
"""A screenshot stops at this many CSS pixels: enough for every guide page whole on the phone (38 128 px at most), while the
API reference (150 000 px at 1440 px wide) took Chromium over 20 s to encode on a busy 2-core CI machine (a timeout)."""
SCREENSHOT_TIMEOUT_MS = 60_000


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}px" for w, _ in SCREENS])
@pytest.mark.parametrize("title", PAGES)
def test_page_fits_the_screen(tab: Tab, title: str, width: int, height: int) -> None:
    """Nothing scrolls the page sideways; on the wide screen no table hides a column behind a scroll bar.

    On the phone a wide table scrolls inside its own box, its first column kept in view. Every page is
    saved as a screenshot (the whole page, up to SCREENSHOT_MAX_HEIGHT) under
    .cache/screenshots/WIDTHxHEIGHT/.
    """
    tab.page.set_viewport_size({"width": width, "height": height})
    tab.open(PAGES[title])
    shot = SCREENSHOTS / f"{width}x{height}" / f"{re.sub(r'[^a-z0-9]+', '-', title.lower())}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    tall = tab.page.evaluate("document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": width, "height": min(tall, SCREENSHOT_MAX_HEIGHT)}
    tab.page.screenshot(path=str(shot), full_page=True, clip=clip, timeout=SCREENSHOT_TIMEOUT_MS)
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
    from checkpointing_migrate.table import load
    from generator.measure import data as measured_data
    from generator.pages import errors

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


def _page_url(tab: Tab, title: str) -> re.Pattern[str]:
    """The page's address, with or without the anchor of the section in view: Material's `navigation.tracking`
    writes it into the address bar as the page settles, so an exact match fails or passes by timing."""
    return re.compile(re.escape(tab.deployed.base + PAGES[title]) + r"(#.*)?$")


def test_instant_navigation_keeps_state_between_pages(tab: Tab) -> None:
    tab.open(PAGES["Migration guide"])
    tab.page.locator(".tabbed-set").first.locator(".tabbed-labels > label", has_text="After").click()
    tab.page.evaluate("window.__still_here = true")
    tab.page.locator(".md-nav__link", has_text="Deprecation timeline").first.click()
    tab.page.wait_for_url(_page_url(tab, "Deprecation timeline"))
    _expect()(tab.page.locator("h1")).to_contain_text("Deprecation timeline")
    tab.page.locator(".md-nav__link", has_text="Migration guide").first.click()
    tab.page.wait_for_url(_page_url(tab, "Migration guide"))
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
        tab.page.wait_for_url(_page_url(tab, "Migration guide"))
    assert [e for e in tab.errors if e.startswith("HTTP")] == [f"HTTP 404: {m}" for m in missing_pages]


def test_the_root_redirects_to_latest(tab: Tab) -> None:
    tab.page.goto(tab.deployed.origin)
    tab.page.wait_for_url(tab.deployed.base)
    _expect()(tab.page.locator("h1").first).to_contain_text("activation_checkpointing")


# --- What readers paste into the search --------------------------------------------------------------------------

SITE_PACKAGES = "/home/me/.venv/lib/python3.12/site-packages/transformers/modeling_utils.py:3204"
"""A warning's location as Python's warnings module prints it in front of the category (made up, as readers' are)."""
OTHER_MODEL = "Qwen2ForCausalLM"
"""A model class other than the probes' tiny Llama: a reader's message names their own."""


def _pasted_texts() -> list[tuple[str, str, str]]:
    """(how it is entered, what, the anchor of its own section): every section's text as readers meet it, each
    warning as a whole log line, each exception as a traceback's last line, each flag typed and in a command line."""
    from markdown.extensions.toc import slugify

    from checkpointing_migrate.table import load
    from generator.measure import data as measured_data
    from generator.pages import errors

    table = load(ROOT / "aliases.yaml")
    found = errors.error_texts(table, measured_data.load_measured())
    measured_class = re.compile(r"^'(\w+)' object has no attribute")
    cases = []
    for e in found:
        for text in (*e.texts, *e.seen):
            text = text.replace("{model}", OTHER_MODEL).replace("{…}", OTHER_MODEL)
            line = f"{SITE_PACKAGES}: {e.category}: {text}" if e.warning else f"{e.category}: {text}"
            cases.append(("paste", line, e.anchor))
            if named := measured_class.match(text):
                cases.append(("paste", f"{e.category}: {text.replace(named[1], OTHER_MODEL, 1)}", e.anchor))
    for flag in errors.flags(table, found):
        anchor = slugify(flag.row.old, "-")
        cases.append(("type", flag.row.old, anchor))
        cases.append(("paste", f"torchrun --nproc_per_node 8 train.py {flag.row.old} True", anchor))
    return cases


def _search(tab: Tab, how: str, text: str) -> Any:
    """Enter `text` into the search box the way a reader does; returns the first section of the first result."""
    field = tab.page.locator("input.md-search__input")
    tab.page.keyboard.press("/")
    field.fill("")
    field.press("End")  # Material searches on keyup; an empty query shows no results
    _expect()(tab.page.locator(".md-search-result__item")).to_have_count(0)
    if how == "type":
        field.press_sequentially(text)
    else:
        field.fill(text)  # what a paste does to the box, then the key Material listens to
        field.press("End")
    # Material lists the page (h1), then its sections (h2), the best first; a fold holds the others.
    return tab.page.locator(".md-search-result__item").first.locator("a.md-search-result__link:has(h2)").first


def test_pasted_log_lines_flags_and_exceptions_land_on_their_own_section(tab: Tab) -> None:
    """The first section of the first result is the pasted text's own: a whole log line (path, line, category),
    a traceback's last line, another model's class name, a flag typed with its dashes, a whole command line."""
    cases = _pasted_texts()
    assert len(cases) > 20
    tab.open("")
    wrong = []
    for how, text, anchor in cases:
        first = _search(tab, how, text)
        try:
            _expect()(first).to_have_attribute("href", re.compile(re.escape(f"#{anchor}") + "$"), timeout=5_000)
        except AssertionError:
            got = first.get_attribute("href") if first.count() else "no result"
            wrong.append(f"{how} {text!r}\n    wants #{anchor}\n    got   {got}")
        tab.page.keyboard.press("Escape")
    assert not wrong, "\n".join(wrong)


def test_a_pasted_warning_opens_on_its_fix(tab: Tab) -> None:
    """Following the best hit for a pasted log line shows the heading and, right under it, the fix and the snippet,
    with the measurements folded away; on the phone too."""
    how, text, anchor = next(c for c in _pasted_texts() if c[1].startswith(SITE_PACKAGES))
    for width, height in SCREENS:
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.open("")
        first = _search(tab, how, text)
        _expect()(first).to_have_attribute("href", re.compile(re.escape(f"#{anchor}") + "$"))
        first.click()
        heading = tab.page.locator(f"[id='{anchor}']")
        _expect()(heading).to_be_in_viewport()
        fix = heading.locator("xpath=following-sibling::p[1]")
        _expect()(fix).to_contain_text("Fix:")
        _expect()(fix).to_be_in_viewport()
        _expect()(heading.locator("xpath=following-sibling::div[contains(@class, 'highlight')][1]")).to_be_in_viewport()
        folded = heading.locator("xpath=following-sibling::details[1]")
        assert folded.get_attribute("open") is None, "the measurements should start folded"


# --- The Try it page -----------------------------------------------------------------------------------------------

PAIRS = ROOT / "tests/fixtures/migrate/pairs"
NOTEBOOKS = sorted((ROOT / "tests/fixtures").rglob("*.ipynb"))
"""Where the notebook cells the page is compared on come from."""
REQUIREMENT = f">={next(r.since for r in load(ROOT / 'aliases.yaml').renames if r.since)}"
"""The playground's default: the release that shipped the renames, from the table."""
COLD_MS = 90_000
"""A first Run loads Python (about 14 MB) and the tool; `benchmarks/playground.py` measures it (target: 30 s)."""


@dataclass
class TryIt:
    """The Try it page of one browser context, reached from Home and run once, for every playground test: a cold
    load of Python takes 20-40 s here, so the tests share one, and what the reader saw during it is kept."""

    tab: Tab
    fetched_before_run: list[str]
    """Every address the page fetched before the first Run (opening Home, then Try it by its navigation link)."""
    requirement_before_run: str
    """The requirement box as the page's script filled it, before Python loaded."""
    progress_before_run: bool
    """Whether the progress bar showed before the first Run."""
    loading: str | None
    """The status shown while the progress bar showed during the first Run (`None`: the bar never showed)."""


@pytest.fixture(scope="module")
def try_it_page(browser: Any, deployed: Deployed) -> Iterator[TryIt]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context, tab = _open_tab(browser, deployed)
    page = tab.page
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url))
    tab.open(PAGES["Home"])
    page.locator(".md-nav__link", has_text="Try it").first.click()
    page.wait_for_url(deployed.base + PAGES["Try it"])
    page.wait_for_load_state("networkidle")
    # Instant navigation changes the address before it swaps the page in: the field may not exist yet.
    page.wait_for_function("!!document.getElementById('playground-requirement')?.value")
    seen = TryIt(
        tab, list(fetched), page.input_value("#playground-requirement"), page.is_visible("#playground-progress"), None
    )
    page.click("#playground-run")  # by mouse, on the text the page opens with
    try:
        page.wait_for_selector("#playground-progress", state="visible")
        seen.loading = page.text_content("#playground-status")
    except PlaywrightTimeout:
        pass
    page.wait_for_function("/^Done/.test(document.getElementById('playground-status').textContent)", timeout=COLD_MS)
    yield seen
    context.close()


@pytest.fixture
def try_it(try_it_page: TryIt) -> Iterator[TryIt]:
    """The shared Try it page; each test fails on what went wrong in it during that test."""
    tab = try_it_page.tab
    tab.errors.clear()
    tab.external.clear()
    yield try_it_page
    assert not tab.problems(), "\n".join(tab.problems())


@pytest.fixture(scope="session")
def wheel_tool(deployed: Deployed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel the deployed page runs, unpacked where `python -m checkpointing_migrate` finds it first."""
    (wheel,) = (deployed.tree / "latest" / "assets" / "playground").glob("checkpointing_migrate-*.whl")
    folder = tmp_path_factory.mktemp("wheel")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder)
    return folder


def _cli(
    tool: Path, name: str, text: str, requirement: str = REQUIREMENT, cell: int | None = None
) -> dict[str, object]:
    """What `fix --diff --format json --stdin-filename NAME --target REQ [--stdin-cell N] -` of that wheel prints."""
    done = subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", "fix", "--diff", "--format", "json", "--stdin-filename", name]
        + ["--target", f"transformers{requirement}", *(["--stdin-cell", str(cell)] if cell else []), "-"],
        input=text.encode("utf-8"),
        cwd=tool,
        env={**os.environ, "PYTHONPATH": str(tool)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    return {"code": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()}


def _cells() -> list[tuple[str, int, str]]:
    """(notebook name, cell number, text) of every code cell of the notebook fixtures."""
    found = []
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        name = path.name.replace(".before.", ".")
        found += [(name, n, "".join(c["source"])) for n, c in enumerate(cells, 1) if c["cell_type"] == "code"]
    return found


def test_python_loads_only_when_the_reader_starts_it(try_it: TryIt) -> None:
    """Opening the page (or any other) fetches none of the interpreter; the first Run shows its progress while Python
    loads; a 1 MB paste still answers."""
    assert not [u for u in try_it.fetched_before_run if "/pyodide/" in u or u.endswith(".whl")], (
        try_it.fetched_before_run
    )
    assert try_it.requirement_before_run == REQUIREMENT  # its script ran
    assert not try_it.progress_before_run
    assert try_it.loading is not None, "the progress bar did not show while Python loaded"
    assert re.match("^(Loading|Starting)", try_it.loading), try_it.loading
    page = try_it.tab.page
    _expect()(page.locator("#playground-progress")).to_be_hidden()
    _expect()(page.locator("#playground-status")).to_have_text(re.compile(r"^Done in \d+ ms \(exit code 1\)\.$"))
    big = "args = TrainingArguments(output_dir='out', gradient_checkpointing=True)\n" * 14_000
    assert len(big) > 1_000_000
    answer = page.evaluate(
        "([t, r]) => window.checkpointingPlayground.run('train.py', t, r)",
        [f"from transformers import TrainingArguments\n{big}", REQUIREMENT],
    )
    assert answer["code"] == 1 and answer["stdout"].count("+args = TrainingArguments(") == 14_000


def test_the_playground_answers_what_the_command_line_answers(try_it: TryIt, wheel_tool: Path) -> None:
    """On every fixture of the pairs folder, and on every code cell of the notebook fixtures sent as one cell, byte
    for byte: the diff, the findings (JSON) and the exit code."""
    fixtures = sorted(p for p in PAIRS.iterdir() if ".after." not in p.name)
    assert len(fixtures) > 10
    cases = [(p.name.replace(".before.", "."), p.read_bytes().decode("utf-8"), None) for p in fixtures]
    cells = [(name, text, number) for name, number, text in _cells()]
    assert len(cells) > 5
    # The command line answers in other processes meanwhile: the page's runs take one core, they can take the other.
    with ThreadPoolExecutor(max_workers=2) as pool:
        wanted = [pool.submit(_cli, wheel_tool, name, text, cell=cell) for name, text, cell in cases + cells]
        for (name, text, cell), want in zip(cases + cells, wanted, strict=True):
            got = try_it.tab.page.evaluate(
                "([n, t, r, c]) => window.checkpointingPlayground.run(n, t, r, c)", [name, text, REQUIREMENT, cell]
            )
            assert got == want.result(), (name, cell)


def _run_and_wait(page: Any, expected_diff: str) -> None:
    diff = expected_diff or "Nothing to rewrite."
    page.wait_for_function(
        "d => document.getElementById('playground-diff').textContent === d"
        " && /^Done/.test(document.getElementById('playground-status').textContent)",
        arg=diff,
        timeout=COLD_MS,
    )


def _codes(page: Any, where: str) -> list[str]:
    return page.locator(f"#playground-{where} tbody tr td:nth-child(4) > code").all_text_contents()


NOTEBOOK_CELL = (
    "%%time\n"
    "!pip install -q transformers\n"
    "files = !ls\n"
    "AutoModelForCausalLM?\n"
    'model = AutoModelForCausalLM.from_pretrained("gpt2")\n'
    "model.gradient_checkpointing_enable()\n"
    "other.is_gradient_checkpointing\n"
)
"""A notebook cell as a reader pastes it: IPython's escapes, a safe fix and an unsafe one."""


def test_try_it_with_a_script_a_config_and_a_launch_command(try_it: TryIt, wheel_tool: Path) -> None:
    """Pasted text, a file kind, Run (by mouse, then by keyboard): the diff and the findings the command line gives,
    each finding's `explain` text and guide link; a notebook cell's findings at its own line and column; bad input is
    a positioned finding; nothing leaves the origin (the `try_it` fixture fails on any request that does), and the
    page with its results passes axe in both schemes and fits a phone."""
    page = try_it.tab.page
    _expect()(page.locator("#playground-requirement")).to_have_value(REQUIREMENT)
    _expect()(page.locator("#playground-progress")).to_be_hidden()
    cases = [
        ("train.py", (PAIRS / "training_args.before.py").read_text(encoding="utf-8")),
        ("config.yaml", (PAIRS / "trl_config.before.yaml").read_text(encoding="utf-8")),
        ("launch.sh", "trl sft --config sft.yaml --gradient_checkpointing\n"),
        ("cell.ipynb", NOTEBOOK_CELL),
        ("train.py", (PAIRS / "hazards.py").read_text(encoding="utf-8")),
        ("train.py", "def f(:\n    model.gradient_checkpointing_enable()\n"),
    ]
    cells = [page.locator(f'#playground-kind option[value="{kind}"]').get_attribute("data-cell") for kind, _ in cases]
    with ThreadPoolExecutor(max_workers=2) as pool:  # the command line's answers, while the page gives its own
        wanted = [
            pool.submit(_cli, wheel_tool, kind, text, cell=int(cell) if cell else None)
            for (kind, text), cell in zip(cases, cells, strict=True)
        ]
        for number, ((kind, text), cell, answer) in enumerate(zip(cases, cells, wanted, strict=True)):
            page.select_option("#playground-kind", kind)
            page.fill("#playground-text", text)
            want = answer.result()
            if number == 0:
                page.click("#playground-run")
            else:
                page.focus("#playground-text")
                page.keyboard.press("Control+Enter")
            _run_and_wait(page, str(want["stdout"]))
            left = json.loads(str(want["stderr"]))
            assert _codes(page, "findings") == [f["code"] for f in left if f["applicability"] != "unsafe"], kind
            assert _codes(page, "unsafe") == [f["code"] for f in left if f["applicability"] == "unsafe"], kind
            if kind == "cell.ipynb":  # where the name stands in the cell pasted, not in a notebook's JSON
                assert cell == "1" and str(want["stdout"]).startswith("--- a/cell.ipynb\n"), want
                _expect()(page.locator("#playground-unsafe tbody tr td").nth(0)).to_have_text("7")
                _expect()(page.locator("#playground-unsafe tbody tr td").nth(1)).to_have_text("7")
    # The last case: the syntax error is a finding with its position, not a stack trace.
    _expect()(page.locator("#playground-findings tbody tr")).to_have_count(1)
    _expect()(page.locator("#playground-findings tbody tr td").nth(0)).to_have_text("1")
    _expect()(page.locator("#playground-findings tbody tr td").nth(1)).to_have_text("7")
    assert "Traceback" not in page.locator("#playground-result").inner_text()
    # The explain text is the command line's; the guide link stays on this site.
    page.fill("#playground-text", (PAIRS / "hazards.py").read_text(encoding="utf-8"))
    page.keyboard.press("Control+Enter")
    _run_and_wait(page, "")
    first = page.locator("#playground-findings tbody tr").first
    code = first.locator("td:nth-child(4) > code").text_content()
    first.locator("summary").focus()
    page.keyboard.press("Enter")
    explain = subprocess.run(
        [sys.executable, "-m", "checkpointing_migrate", "explain", code],
        cwd=wheel_tool,
        env={**os.environ, "PYTHONPATH": str(wheel_tool)},
        capture_output=True,
        text=True,
        check=True,
    )
    _expect()(first.locator("details pre")).to_have_text(explain.stdout)
    guide = first.locator("a", has_text="guide section").get_attribute("href")
    assert guide.startswith(try_it.tab.deployed.base + "generated/migration-guide/#"), guide
    # Accessible with its results, light and dark; no sideways scroll on a phone.
    axe = _axe_path()
    if not axe.is_file():
        _missing(f"{axe} not found: run `make setup` (it fetches the pinned axe-core from the npm registry)")
    page.add_script_tag(path=str(axe))
    for scheme in ("default", "slate"):
        if scheme == "slate":  # the header's toggle, as a reader switches: the results stay on the page
            page.locator('label[title="Switch to dark mode"]').click()
        _expect()(page.locator("body")).to_have_attribute("data-md-color-scheme", scheme)
        failing = page.evaluate(
            """async ([impacts, rules]) => (await axe.run(document, {resultTypes: ["violations"],
                    runOnly: {type: "rule", values: rules}})).violations
                .filter(v => impacts.includes(v.impact))
                .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ") + " :: " + n.failureSummary).join("; "))""",
            [list(FAILING_IMPACTS), list(DARK_SCHEME_RULES)],
        )
        assert not failing, f"{scheme}: " + "\n".join(failing)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SCREENSHOTS / "390x844" / "try-it-with-results.png"), full_page=True)
    width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], f"the Try it page with results scrolls sideways on a phone: {width}"


# --- The first screen, copy and reading (issue 20) -----------------------------------------------------------------


def _in_view(tab: Tab, locator: Any) -> bool:
    box = locator.bounding_box()
    size = tab.page.viewport_size
    return bool(box) and box["width"] > 0 and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("title", ["Home", "Migration guide"])
def test_the_answer_is_on_the_first_screen(tab: Tab, title: str, scheme: str) -> None:
    """At 1440×900, without scrolling: the versions, the common lines after the rename, the errors page, the tool."""
    from checkpointing_migrate.table import load
    from generator.pages.answer import answer

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
