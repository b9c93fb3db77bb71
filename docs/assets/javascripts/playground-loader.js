// On every page, a few lines: when the page shown is "Try it" (it has the #playground form), load its script,
// playground.js, once. Material's instant navigation swaps the page's content without running the scripts in it,
// so a script tag in docs/try.md alone would do nothing after a click on "Try it"; `document$` (Material's)
// emits on the first load and after each navigation. Python itself loads only on the first Run (playground.js).
(() => {
  const src = new URL("playground.js", document.currentScript.src).href;
  const show = () => {
    if (!document.getElementById("playground")) return;
    const loaded = window.checkpointingPlayground?.init;
    if (loaded) return loaded();
    if (document.querySelector(`script[src="${src}"]`)) return;
    const script = document.createElement("script");
    script.src = src;
    document.head.append(script);
  };
  if (window.document$) window.document$.subscribe(show);
  else show();
})();
