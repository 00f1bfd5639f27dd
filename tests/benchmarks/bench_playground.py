"""The playground in a classroom: how fast the first page shows, and whether
closed pages give their kernels back.

    .venv/bin/python tests/benchmarks/bench_playground.py [--loads 15] [--cull-idle 120]

Serves the playground as ``make playground`` does (``tools/playground.py``),
opens it ``--loads`` times in headless Chromium, one page load after another,
each until its first picture is shown, then closes it. Prints the seconds to
the first picture (median and slowest; the goal is 10 s on a quiet machine),
then Voila's kernels and their memory (RSS of the kernel processes, Linux)
right after the last page closed and again once the culling had time to end
them (``--cull-idle`` seconds plus one culling interval). Not a test: it
prints figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from tools import playground  # noqa: E402

FIRST_PAGE_GOAL_S = 10.0


def browser_module(name):
    spec = importlib.util.spec_from_file_location(
        f"browser_{name}", REPO / "tests" / "browser" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO / "tests" / "browser"))
    spec.loader.exec_module(module)
    return module


def kernels(voila_pid: int) -> tuple[int, float]:
    """(number of kernel processes under Voila, their resident MiB)."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,rss,args"], capture_output=True,
                         text=True).stdout.splitlines()[1:]
    rows = [line.split(None, 3) for line in out]
    found = [r for r in rows if len(r) == 4 and r[1] == str(voila_pid)
             and "ipykernel" in r[3]]
    return len(found), sum(int(r[2]) for r in found) / 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=15)
    ap.add_argument("--cull-idle", type=int, default=playground.CULL_IDLE_S)
    ap.add_argument("--cull-interval", type=int, default=playground.CULL_INTERVAL_S)
    args = ap.parse_args(argv)
    cf = browser_module("conftest")
    from playwright.sync_api import sync_playwright

    port = playground.free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = playground.voila_env(cf.lab_env(Path(tmp)))
        cmd = [sys.executable, "-m", "voila",
               *playground.voila_args(port, cull_idle_s=args.cull_idle,
                                      cull_interval_s=args.cull_interval)]
        log = open(Path(tmp) / "voila.log", "wb")
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/"
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(url + "voila/static/voila.js", timeout=5)
                    break
                except urllib.error.HTTPError:
                    break
                except OSError:
                    time.sleep(0.3)
            seconds = []
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(cf.CHROMIUM),
                                             args=cf.CHROMIUM_ARGS, headless=True)
                for i in range(args.loads):
                    context = browser.new_context(viewport={"width": 1280,
                                                            "height": 720})
                    page = context.new_page()
                    t0 = time.monotonic()
                    page.goto(url, timeout=180_000)
                    page.locator(".attn-playground img.attn-picture, "
                                 ".attn-playground .attn-picture img").first.wait_for(
                        timeout=180_000)
                    seconds.append(time.monotonic() - t0)
                    context.close()
                    print(f"load {i + 1}: first picture after {seconds[-1]:.1f} s",
                          flush=True)
                browser.close()
            n, mib = kernels(proc.pid)
            print(f"first page: median {statistics.median(seconds):.1f} s, slowest "
                  f"{max(seconds):.1f} s (goal {FIRST_PAGE_GOAL_S:.0f} s on a quiet "
                  "machine)")
            print(f"after {args.loads} page loads, all closed: {n} kernels, "
                  f"{mib:,.0f} MiB")
            wait = args.cull_idle + 2 * args.cull_interval + 5
            print(f"waiting {wait} s for the culling ...", flush=True)
            time.sleep(wait)
            n, mib = kernels(proc.pid)
            print(f"{wait} s later: {n} kernels, {mib:,.0f} MiB")
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
