"""Attention at scale (lesson 12): time and peak memory of plain, tiled and
sliding-window attention for n = 256 ... 8,192.

Run from the repository root:

    OPENBLAS_NUM_THREADS=1 .venv/bin/python tests/benchmarks/bench_scale.py [--max 8192]

Every row: float32 Q, K, V of shape (n, 64) from a seeded generator, causal.
Time is the best of three runs (after a warm-up); peak memory is numpy's
peak allocation during one call, measured with ``tracemalloc`` (numpy
reports its buffers to it), inputs excluded. Plain attention builds the
(n, n) pattern (and the mask); ``tiled_attention`` walks the keys in blocks
of 128 and holds at most (n, 128) scores; ``local_attention`` (window 256)
scores only the band. Targets (issue 24), at n = 4,096: tiled peak memory
<= 1/8 of plain's, tiled time <= 2x plain's.

On a CPU the n^2 arithmetic is the same for plain and tiled attention, so
their times are close; the memory is what changes. On a GPU, FlashAttention's
speed-up comes from keeping the blocks in fast on-chip memory instead of
writing the (n, n) matrix to the GPU's main memory and reading it back,
which numpy cannot show.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from helpers.attention import (  # noqa: E402
    causal_mask,
    local_attention,
    scaled_dot_product_attention,
    tiled_attention,
)

D_K, BLOCK, WINDOW = 64, 128, 256


def _plain(Q, K, V):
    return scaled_dot_product_attention(Q, K, V, mask=causal_mask(len(Q)))[0]


def _tiled(Q, K, V):
    return tiled_attention(Q, K, V, block=BLOCK, causal=True)


def _local(Q, K, V):
    return local_attention(Q, K, V, WINDOW, block=BLOCK)


def measure(fn, Q, K, V, repeats=3):
    """(best seconds, peak bytes) of ``fn(Q, K, V)``."""
    fn(Q, K, V)
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(Q, K, V)
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    fn(Q, K, V)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=8192, help="largest n")
    args = parser.parse_args(argv)
    sizes = [n for n in (256, 512, 1024, 2048, 4096, 8192) if n <= args.max]
    rng = np.random.default_rng(0)
    print(f"causal attention, float32, d_k = {D_K}; tiled: block {BLOCK}; "
          f"local: window {WINDOW}. Time = best of 3 (ms), memory = peak MiB\n")
    head = (f"{'n':>6} | {'plain ms':>9} {'MiB':>7} | {'tiled ms':>9} {'MiB':>7} "
            f"{'mem':>6} {'time':>5} | {'local ms':>9} {'MiB':>7}")
    print(head)
    print("-" * len(head))
    verdict = None
    for n in sizes:
        Q, K, V = rng.standard_normal((3, n, D_K), dtype=np.float32)
        (tp, mp), (tt, mt), (tl, ml) = (measure(f, Q, K, V)
                                        for f in (_plain, _tiled, _local))
        err = float(np.abs(_tiled(Q, K, V) - _plain(Q, K, V)).max())
        assert err < 1e-4, f"tiled differs from plain by {err}"
        print(f"{n:>6} | {tp * 1e3:9.1f} {mp / 2**20:7.1f} | {tt * 1e3:9.1f} "
              f"{mt / 2**20:7.1f} {mp / mt:5.0f}x {tt / tp:4.2f}x | {tl * 1e3:9.1f} "
              f"{ml / 2**20:7.1f}")
        if n == 4096:
            verdict = (mt <= mp / 8, tt <= 2 * tp, mp / mt, tt / tp)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n'mem' = plain peak / tiled peak, 'time' = tiled time / plain time; "
          f"load average {load:.1f} on {os.cpu_count()} CPUs")
    if verdict is not None:
        ok_mem, ok_time, ratio, slow = verdict
        print(f"n = 4,096: tiled uses 1/{ratio:.0f} of plain's peak memory "
              f"({'MEETS' if ok_mem else 'MISSES'} <= 1/8) and {slow:.2f}x its "
              f"time ({'MEETS' if ok_time else 'MISSES'} <= 2x)")
        return 0 if ok_mem and ok_time else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
