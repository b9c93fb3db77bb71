"""How long the Try it page takes to answer: the first Run (cold: Python and the tool load) and a second one.

The runtime is published as the site build publishes it (`generator.pages.playground.publish`) into a private folder,
with the page's own script, and served on 127.0.0.1 by `http.server` (which serves `.wasm` as `application/wasm`).
Each run launches a fresh Chromium (empty HTTP and code caches), opens the page and times, in the page,
`checkpointingPlayground.run()` on a training script: once cold, then again warm. Targets: the first result within
30 s, the second under 1 s.

Usage: `.venv/bin/python benchmarks/playground.py [--runs N]`. Exit code 1 when a median misses its target.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checkpointing_migrate.table import load
from generator.pages import playground

COLD_TARGET_S = 30.0
WARM_TARGET_S = 1.0
SCRIPT = ROOT / "tests/fixtures/migrate/pairs/training_args.before.py"
PAGE = '<!doctype html><html lang="en"><title>bench</title><script src="../assets/javascripts/playground.js"></script>'


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _site(folder: Path) -> None:
    table = load(ROOT / "aliases.yaml")
    playground.publish(folder, table)
    (folder / "assets/javascripts").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "docs/assets/javascripts/playground.js", folder / "assets/javascripts/playground.js")
    (folder / "try").mkdir()
    (folder / "try/index.html").write_text(PAGE, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    from playwright.sync_api import sync_playwright

    text = SCRIPT.read_text(encoding="utf-8")
    cold, warm = [], []
    with tempfile.TemporaryDirectory() as tmp:
        _site(Path(tmp))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=tmp))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{server.server_port}/"
        args = ["--disable-gpu", "--no-first-run", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
        with sync_playwright() as p:
            for _ in range(runs):
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
                page = browser.new_page()
                page.goto(origin + "try/")
                times = page.evaluate(
                    """async (text) => {
                        const run = () => window.checkpointingPlayground.run("train.py", text);
                        let t = performance.now(); await run(); const first = performance.now() - t;
                        t = performance.now(); await run(); return [first, performance.now() - t];
                    }""",
                    text,
                )
                browser.close()
                cold.append(times[0] / 1000)
                warm.append(times[1] / 1000)
        server.shutdown()
    load_avg = os.getloadavg()[0]
    print(
        f"first result (cold), median of {runs}: {statistics.median(cold):.1f} s  (runs: {', '.join(f'{c:.1f}' for c in cold)})"
    )
    print(
        f"second run, median of {runs}: {statistics.median(warm) * 1000:.0f} ms  (runs: {', '.join(f'{w * 1000:.0f}' for w in warm)})"
    )
    print(f"load average: {load_avg:.1f}")
    return 0 if statistics.median(cold) <= COLD_TARGET_S and statistics.median(warm) < WARM_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
