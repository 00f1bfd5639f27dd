"""Speed of ``multi_head_attention`` against the bare arithmetic it must do.

Run:  .venv/bin/python tests/benchmarks/bench_attention.py [--repeats 15]

At n = 1024 tokens, d_k = 64, 8 heads (d_model = 512), in float32 and float64,
it prints the median wall time of ``helpers.attention.multi_head_attention``
and of the "bare" computation on the same arrays: the projections, the score
matmul, one ``exp`` over the scores, the value matmul and the output matmul
(no max subtraction, no normalisation, no checks). The ratio is the overhead
of doing it properly; the goal is at most 2x. A second line per dtype times
the same call with a causal mask (for information; the goal is about the
unmasked call).

A benchmark, not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from helpers.attention import causal_mask, multi_head_attention

N, D_K, HEADS = 1024, 64, 8
D_MODEL = D_K * HEADS


def make_arrays(dtype, seed: int = 0):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((N, D_MODEL)).astype(dtype)
    s = 1 / np.sqrt(D_MODEL)
    W_Q = (rng.standard_normal((HEADS, D_MODEL, D_K)) * s).astype(dtype)
    W_K = (rng.standard_normal((HEADS, D_MODEL, D_K)) * s).astype(dtype)
    W_V = (rng.standard_normal((HEADS, D_MODEL, D_K)) * s).astype(dtype)
    W_O = (rng.standard_normal((HEADS * D_K, D_MODEL)) * s).astype(dtype)
    return E, W_Q, W_K, W_V, W_O


def bare(E, W_Q, W_K, W_V, W_O):
    """The unavoidable work: matmuls and one exp, nothing else."""
    X = E[None]
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    S = Q @ K.transpose(0, 2, 1)
    np.exp(S, out=S)
    heads = S @ V
    return heads.transpose(1, 0, 2).reshape(N, -1) @ W_O


def median_times(fns, args, repeats: int) -> list[float]:
    """Median wall time of each function, measured interleaved.

    The functions take turns within every repeat, so a busy machine slows
    them alike and the ratios stay meaningful.
    """
    for fn in fns:
        fn(*args)  # warm up
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, bucket in zip(fns, times):
            t0 = time.perf_counter()
            fn(*args)
            bucket.append(time.perf_counter() - t0)
    return [statistics.median(bucket) for bucket in times]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    print(
        f"multi_head_attention, n={N}, d_k={D_K}, heads={HEADS}, "
        f"d_model={D_MODEL}, median of {args.repeats} runs"
    )
    print(f"{'dtype':8} {'mask':7} {'attention':>12} {'bare':>12} {'ratio':>7}")
    worst = 0.0
    mask = causal_mask(N)
    for dtype in (np.float32, np.float64):
        arrays = make_arrays(dtype)
        out, _ = multi_head_attention(*arrays)
        assert out.dtype == dtype, out.dtype

        def causal(*a):
            return multi_head_attention(*a, mask=mask)

        t_bare, t_mha, t_causal = median_times(
            [bare, multi_head_attention, causal], arrays, args.repeats
        )
        ratio = t_mha / t_bare
        worst = max(worst, ratio)
        name = np.dtype(dtype).name
        for label, t in (("none", t_mha), ("causal", t_causal)):
            print(
                f"{name:8} {label:7} {t * 1e3:9.1f} ms {t_bare * 1e3:9.1f} ms "
                f"{t / t_bare:6.2f}x"
            )
    verdict = "meets" if worst <= 2 else "MISSES"
    print(f"worst unmasked ratio {worst:.2f}x: {verdict} the goal of <= 2x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
