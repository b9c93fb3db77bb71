// A scroll cue for wide tables: while a table's scrolling box hides columns on the right, the box gets
// `data-ck-more`, and tables.css fades its right edge out. On a wide screen no table scrolls, so nothing fades.
(() => {
  const cue = (wrap) =>
    wrap.toggleAttribute("data-ck-more", wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
  const wraps = () => document.querySelectorAll(".md-typeset__scrollwrap");
  const mark = () => {
    for (const wrap of wraps()) {
      if (!wrap.dataset.ckCue) {
        wrap.dataset.ckCue = "";
        wrap.addEventListener("scroll", () => cue(wrap), { passive: true });
      }
      cue(wrap);
    }
  };
  addEventListener("resize", () => wraps().forEach(cue));
  if (typeof document$ !== "undefined") document$.subscribe(mark);
  else document.addEventListener("DOMContentLoaded", mark);
})();
