"""Explorer latency as a learner sees it, in a real browser.

    .venv/bin/python tests/benchmarks/bench_browser.py [notebooks/04_*.ipynb ...]

For the first explorer with a sentence box in each notebook: JupyterLab in
headless Chromium (the browser test's server and settings), Run All, then
ROUNDS sentence changes; each is timed from the keystroke event in the page to
the new picture decoded in the page (kernel round trip + PNG + transfer +
decode). Prints median and p95 per notebook. Not a test: it prints figures.
"""

import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ROUNDS = 12
SENTENCES = (
    "a fluffy blue creature roamed the verdant forest near the river bank",
    "the small mole dug under the bank while the river flows past the town",
)

# Set the sentence in the page and wait there until the picture is replaced.
JS_ROUND = """async ([explorer, text]) => {
  const img = explorer.querySelector('.attn-picture img, img.attn-picture');
  const input = explorer.querySelector('.attn-sentence input, input.attn-sentence');
  const before = img.src;
  const t0 = performance.now();
  input.value = text;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  while (img.src === before) {
    if (performance.now() - t0 > 10000) return null;
    await new Promise((r) => setTimeout(r, 1));
  }
  await img.decode();
  return performance.now() - t0;
}"""


def load_browser_module(name):
    """Import tests/browser/<name>.py (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"browser_{name}", REPO / "tests" / "browser" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_notebook(server, lab, tb, path):
    name = path.name
    rel = f"notebooks/{name}"
    session = tb.create_session(server, rel)
    page = lab.get()
    try:
        page.evaluate(tb.JS_OPEN, rel)
        if not tb.wait_for(lambda: page.evaluate(tb.JS_READY, rel), 60):
            return name, "did not open"
        page.evaluate(
            "() => window.jupyterapp.commands.execute('notebook:run-all-cells')"
        )
        time.sleep(1)
        tb.wait_for(
            lambda: (lambda s: s["pending"] == 0 and s["status"] == "idle")(
                page.evaluate(tb.JS_STATE)
            ),
            300,
        )
        explorer = page.locator(
            ".attn-explorer:has(.attn-sentence):has(.attn-picture)"
        ).first
        if not explorer.count():
            return name, "no explorer with a sentence box"
        explorer.scroll_into_view_if_needed()
        times = []
        for i in range(ROUNDS + 2):
            ms = explorer.evaluate(
                "(el, text) => (" + JS_ROUND + ")([el, text])",
                SENTENCES[i % 2] + f" {i}" * (i % 3),
            )
            if ms is None:
                return name, "picture did not change"
            if i >= 2:  # the first two warm caches
                times.append(ms)
            time.sleep(0.2)
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        return name, f"median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms"
    finally:
        page.evaluate(tb.JS_CLOSE)
        server.request("DELETE", f"/api/sessions/{session['id']}")


def main(paths):
    from playwright.sync_api import sync_playwright

    cf = load_browser_module("conftest")
    tb = load_browser_module("test_browser")
    if not cf.CHROMIUM.exists():
        print(f"no Chromium at {cf.CHROMIUM}")
        return 1
    paths = [Path(p) for p in paths] or cf.notebook_paths()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        server = cf.LabServer(cf.make_repo_copy(tmp), tmp / "jupyterlab.log")
        server.start(cf.lab_env(tmp))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=str(cf.CHROMIUM), args=cf.CHROMIUM_ARGS
                )
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                lab = cf.LabPage(server, context)
                print(f"keystroke -> new picture decoded in the page, {ROUNDS} rounds")
                for path in paths:
                    name, result = bench_notebook(server, lab, tb, path)
                    print(f"{name:34s} {result}", flush=True)
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
