// Copy gives runnable code: the copy button of a ```pycon block copies its statements only, with the `>>> ` and
// `... ` prompts taken off and the output (printed values, warnings, tracebacks) dropped, so what is pasted into a
// script runs. Material 9.8.1 copies the `data-copy` attribute of the nearest ancestor of the code when there is one
// (`extract` in its clipboard integration); this sets it on each pycon block, again after every instant navigation.
// The doc tests run the blocks as written, prompts and output included (tests/pycon_doctests.py).
(() => {
  const PROMPTS = [">>> ", "... "];
  const statements = (text) =>
    text
      .split("\n")
      .filter((line) => PROMPTS.some((p) => line.startsWith(p)) || line === ">>>" || line === "...")
      .map((line) => line.slice(4))
      .join("\n");
  const mark = () => {
    for (const block of document.querySelectorAll(".language-pycon:not([data-copy])")) {
      const code = block.querySelector("pre > code");
      if (code) block.setAttribute("data-copy", statements(code.textContent));
    }
  };
  if (typeof document$ !== "undefined") document$.subscribe(mark);
  else document.addEventListener("DOMContentLoaded", mark);
})();
