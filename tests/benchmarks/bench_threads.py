"""Lesson 13's live training with OpenBLAS's default threads against one
thread, on a quiet machine and with the other cores busy (issues 53 and 54).

Run from the repository root, WITHOUT ``OPENBLAS_NUM_THREADS`` set (so that
the default is OpenBLAS's own, one thread per core):

    .venv/bin/python tests/benchmarks/bench_threads.py [--steps 300] [--busy]

For each thread count it trains the live recipe (``gpt_training.RECIPE``)
for ``--steps`` steps, probes included every 250 steps as in the panel, and
prints the wall and CPU milliseconds a step, and the whole run's steps
(10,750) at that pace. ``--busy`` first starts one ``nice -n 5`` busy loop
per other core (a classroom hub's neighbours) and stops it, by its pid,
afterwards. Timings on a shared machine are noisy: run it twice.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from helpers.models import gpt_training  # noqa: E402
from helpers.runtime.timing import blas_threads  # noqa: E402

FULL_RUN = 10_750  # the live recipe's steps, its phase change at 6,250


def pace(threads, steps):
    """(wall ms, CPU ms) a step of ``steps`` training steps on ``threads``
    BLAS threads (None: OpenBLAS's default)."""
    train = gpt_training.train.__wrapped__  # without its one-thread decorator
    limit = blas_threads(threads) if threads else blas_threads(os.cpu_count())
    with limit:
        wall, cpu = time.perf_counter(), time.process_time()
        train(steps=steps, every=250)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return 1000 * wall / steps, 1000 * cpu / steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--busy", action="store_true")
    args = ap.parse_args(argv)
    loops = []
    if args.busy:
        loops = [subprocess.Popen(["nice", "-n", "5", sys.executable, "-c",
                                   "while True: pass"])
                 for _ in range(max(1, (os.cpu_count() or 2) - 1))]
    try:
        print(f"{'busy' if args.busy else 'quiet'} machine, {os.cpu_count()} cores, "
              f"{args.steps} steps each")
        for threads in (None, 1):
            wall, cpu = pace(threads, args.steps)
            name = f"{os.cpu_count()} (default)" if threads is None else str(threads)
            print(f"BLAS threads {name:>11}: {wall:6.1f} ms a step wall, {cpu:6.1f} "
                  f"ms CPU; the full run ({FULL_RUN:,} steps) "
                  f"{wall * FULL_RUN / 60000:5.1f} min")
    finally:
        for p in loops:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
