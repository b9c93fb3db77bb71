// The "Try it" page (docs/try.md): the migration tool's own wheel, run by Pyodide in the page. Loaded on that
// page only (by playground-loader.js); Python itself loads on the first Run. Every file comes from this site's
// assets/playground/ (published by generator/pages/playground.py): the interpreter, the tool's wheel, PyYAML and
// packaging, and manifest.json. The page calls the tool's command line, `fix --diff --format json --stdin-filename
// NAME --target REQ -` (a notebook cell adds `--stdin-cell 1`), and shows what it prints; there is no second
// implementation here, only the display.
(() => {
  const script = document.currentScript;
  const base = new URL("../playground/", script.src);
  const siteRoot = new URL("../../", script.src);
  const state = (window.checkpointingPlayground ??= {});

  // Standard input, output and error redirected around the tool's own entry point; SystemExit (argparse) is an
  // exit code like any other. Returns what a terminal would have shown, as text.
  const GLUE = `
import io, json, sys
from checkpointing_migrate.cli import main

def playground_run(argv, text):
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")), encoding="utf-8")
    sys.stdout, sys.stderr = (
        io.TextIOWrapper(b, encoding="utf-8", errors="backslashreplace", newline="\\n", write_through=True)
        for b in (out, err)
    )
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        # Read before the wrappers go: closing one (when it is collected) closes the buffer under it.
        shown = {"stdout": out.getvalue(), "stderr": err.getvalue()}
        sys.stdin, sys.stdout, sys.stderr = saved
    shown = {k: v.decode("utf-8", "backslashreplace") for k, v in shown.items()}
    return json.dumps({"code": code, **shown})
`;

  const steps = ["Loading Python…", "Starting Python…", "Loading the migration tool…", "Ready."];

  // One interpreter per page load, made on the first Run: later runs (and a return to the page) reuse it.
  const start = (progress) => {
    state.ready ??= (async () => {
      progress(0);
      const listed = await fetch(new URL("manifest.json", base));
      if (!listed.ok) throw new Error("this build has no Python runtime (its builder ran without `make setup`)");
      const manifest = await listed.json();
      const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", base).href);
      progress(1);
      const pyodide = await loadPyodide({ indexURL: new URL("pyodide/", base).href });
      progress(2);
      const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
      for (const archive of manifest.archives) {
        const data = await (await fetch(new URL(archive.file, base))).arrayBuffer();
        pyodide.unpackArchive(data, archive.format, { extractDir: site });
      }
      pyodide.runPython(GLUE);
      progress(3);
      const call = pyodide.globals.get("playground_run");
      return { manifest, run: (argv, text) => JSON.parse(call(pyodide.toPy(argv), text)) };
    })();
    state.ready.catch(() => (state.ready = undefined)); // a failed load can be retried
    return state.ready;
  };

  // The command line the page runs, for `name`, the requirement `requirement` (e.g. ">=5.23.0") and, when the text
  // is one code cell of the notebook `name`, its number `cell`.
  const argv = (name, requirement, cell) => [
    "fix", "--diff", "--format", "json", "--stdin-filename", name, "--target", `transformers${requirement}`,
    ...(cell ? ["--stdin-cell", String(cell)] : []), "-",
  ];

  // For tests and the benchmark: the tool's answer for one text, as the page gets it.
  state.run = async (name, text, requirement, cell) => {
    const tool = await start(() => {});
    return tool.run(argv(name, requirement ?? tool.manifest.requirement, cell), text);
  };
  state.explain = async (code) => (await start(() => {})).run(["explain", code], "");

  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    node.append(...children);
    return node;
  };

  const findingsTable = (findings, manifest) => {
    if (!findings.length) return el("p", {}, "None.");
    const head = el("tr", {}, ...["Line", "Column", "Severity", "Code", "Names", "Message"].map((h) => el("th", { scope: "col" }, h)));
    const rows = findings.map((f) => {
      const explain = el("details", { class: "cm-playground__explain" }, el("summary", {}, `explain ${f.code}`));
      explain.addEventListener("toggle", async () => {
        if (!explain.open || explain.dataset.loaded) return;
        explain.dataset.loaded = "1";
        const answer = await state.explain(f.code);
        explain.append(el("pre", { tabindex: "0" }, answer.stdout || answer.stderr));
      }, { passive: true });
      const guide = manifest.guide[f.code];
      const code = el("td", {}, el("code", {}, f.code), explain,
        ...(guide ? [el("a", { href: new URL(guide, siteRoot).href }, "guide section")] : []));
      const names = f.old ? `${f.old}${f.new ? ` → ${f.new}` : ""}` : "";
      return el("tr", {}, el("td", {}, String(f.line)), el("td", {}, String(f.column)), el("td", {}, f.severity),
        code, el("td", {}, names ? el("code", {}, names) : ""), el("td", {}, f.message));
    });
    const table = el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows));
    return el("div", { class: "md-typeset__scrollwrap", tabindex: "0" }, el("div", { class: "md-typeset__table" }, table));
  };

  const init = () => {
    const form = document.getElementById("playground");
    if (!form || form.dataset.ready) return;
    form.dataset.ready = "1";
    const $ = (id) => document.getElementById(`playground-${id}`);
    const status = $("status");
    const bar = $("progress");
    const progress = (step) => {
      bar.hidden = step >= steps.length - 1;
      bar.value = step;
      status.textContent = steps[step];
    };
    fetch(new URL("manifest.json", base))
      .then((r) => r.json())
      .then((m) => { if (!$("requirement").value) $("requirement").value = m.requirement; })
      .catch(() => {});
    const run = async () => {
      const button = $("run");
      button.disabled = true;
      try {
        const tool = await start(progress);
        status.textContent = "Running…";
        const name = $("name").value.trim() || $("kind").value;
        const requirement = $("requirement").value.trim() || tool.manifest.requirement;
        const cell = $("kind").selectedOptions[0]?.dataset.cell; // the kind "Notebook cell", whatever the name
        const began = performance.now();
        const answer = tool.run(argv(name, requirement, cell), $("text").value);
        let findings = null;
        try { findings = JSON.parse(answer.stderr || "[]"); } catch { findings = null; }
        $("diff").textContent = answer.stdout || "Nothing to rewrite.";
        if (findings === null) {
          // Not the JSON list: a usage error (a bad requirement, a bad file name), shown as the command line says it.
          $("findings").replaceChildren(el("pre", { class: "cm-playground__error", tabindex: "0" }, answer.stderr));
          $("unsafe").replaceChildren(el("p", {}, "None."));
        } else {
          $("findings").replaceChildren(findingsTable(findings.filter((f) => f.applicability !== "unsafe"), tool.manifest));
          $("unsafe").replaceChildren(findingsTable(findings.filter((f) => f.applicability === "unsafe"), tool.manifest));
        }
        $("result").hidden = false;
        status.textContent = `Done in ${Math.round(performance.now() - began)} ms (exit code ${answer.code}).`;
      } catch (error) {
        // Only the loading can fail here (the tool reports bad input itself): a network or a browser problem.
        status.textContent = `Python could not be loaded: ${error.message}. Reload the page to try again.`;
        bar.hidden = true;
      } finally {
        button.disabled = false;
      }
    };
    form.addEventListener("submit", (event) => { event.preventDefault(); run(); });
    $("text").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); run(); }
    });
  };
  state.init = init; // the loader (playground-loader.js) calls it again after an instant navigation
  init();
})();
