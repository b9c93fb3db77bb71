/* What readers paste into the search box, turned into the query that finds its section.
 *
 * A whole log line (`…/modeling_utils.py:3204: FutureWarning: …`), a traceback's last line, a flag or a
 * command line. Material 9 has no query hook: its search box posts the typed text to the search worker
 * (lunr), so this wraps Worker.prototype.postMessage and rewrites the query message's text. The box keeps
 * what the reader typed. tests/test_browser.py pastes real texts and checks where they land.
 */
(function () {
  "use strict";

  // Material's message for a query: `{type: SearchMessageType.QUERY, data: text}` (QUERY is 2 in
  // integrations/search/worker/message of Material 9.x).
  var QUERY = 2;

  // `PATH:LINE:` (and `:COL:`) in front of a warning, as Python's warnings module prints it.
  var LOCATION = /^\s*\S*?:\d+:(?:\d+:)?\s+/;
  // A leading warning or exception class, qualified or not: `FutureWarning:`, `builtins.TypeError:`.
  var CATEGORY = /^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Warning|Error|Exception):\s*/;
  // Characters the index splits words at (mkdocs.yml, `separator`) that lunr's query syntax would read as
  // its own: a field (`:`), a phrase (`"`), and those around values. As spaces they split the same way.
  var SPLITS = /[:"`,=!()[\]\/]+/g;
  // Lunr's operators; dropped, since no searched text needs them.
  var OPERATORS = /[+~^*\\]+/g;

  /** The command line's flags (`torchrun train.py --x True` -> `--x`), or null if `text` is not one. */
  function flags(text) {
    var words = text.split(/\s+/);
    var found = words.filter(function (w) { return /^--?[A-Za-z]/.test(w); });
    return found.length ? found.map(function (w) { return w.replace(/=.*$/, ""); }) : null;
  }

  /** A word as a lunr term that survives both of Material's parses: a dash is part of the word, never
   * "must not contain" (leading) or a split (inside). Each parse removes one level of escaping. */
  function term(word) {
    return word.replace(/-/g, "\\\\\\-");
  }

  /** The query for `text`: finished words match exactly (a pasted `gradient_checkpointing` is that name,
   * not every name starting with it), the last one exactly and, with less weight, as a prefix (typing). */
  function clean(text) {
    var rest = text.replace(LOCATION, "");
    var category = CATEGORY.test(rest);
    rest = rest.replace(CATEGORY, "");
    var words = (!category && flags(rest)) || rest.replace(SPLITS, " ").replace(OPERATORS, " ").split(/\s+/);
    words = words.filter(function (w) { return /\w/.test(w); });
    if (!words.length) return "";
    var last = words.pop();
    return words.map(function (w) { return term(w) + "^1"; })
      .concat([term(last) + "^2", term(last)])
      .join(" ");
  }

  if (typeof module !== "undefined") module.exports = { clean: clean };
  if (typeof Worker === "undefined" || Worker.prototype.postMessage.__searchPaste) return;
  var post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    if (message && message.type === QUERY && typeof message.data === "string") {
      arguments[0] = { type: QUERY, data: clean(message.data) };
    }
    return post.apply(this, arguments);
  };
  Worker.prototype.postMessage.__searchPaste = true;
})();
