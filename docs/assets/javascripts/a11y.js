// Accessibility fixes for Material for MkDocs 9.8.1 that no setting or template override can make: the
// elements are created by Material's JavaScript bundle or by a partial that cannot be extended, only copied.
// Each was reported by axe-core in tests/test_browser.py; the rule id is in brackets. A MutationObserver
// applies them again whenever Material redraws (instant navigation, the version selector arriving later).
(() => {
  const fix = () => {
    // [aria-dialog-name] The search overlay has role="dialog" and no name: give it the search box's label.
    const dialog = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
    const input = document.querySelector(".md-search__input");
    if (dialog && input) dialog.setAttribute("aria-label", input.getAttribute("aria-label") || "Search");

    // [scrollable-region-focusable] A wide table scrolls sideways inside a wrapper that the keyboard cannot
    // reach. Material makes code blocks focusable for the same reason; do the same for tables.
    for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])")) wrap.tabIndex = 0;

    // [label-content-name-mismatch] The version button shows the version but is named "Select version" only,
    // so a voice-control user saying what they see ("0.1.0") cannot press it.
    const button = document.querySelector(".md-version__current");
    const label = button?.getAttribute("aria-label") ?? "";
    const shown = button?.textContent.trim() ?? "";
    if (button && shown && !label.includes(shown)) button.setAttribute("aria-label", `${label}: ${shown}`);
  };
  fix();
  new MutationObserver(fix).observe(document.body, { childList: true, subtree: true });
})();
