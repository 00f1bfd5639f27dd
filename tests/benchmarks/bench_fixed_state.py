"""Attention with a fixed-size memory (lesson 14): the figures of issue 45.

Run from the repository root:

    OPENBLAS_NUM_THREADS=1 .venv/bin/python tests/benchmarks/bench_fixed_state.py

It prints five tables (about half a minute):

1. softmax against linear attention (not causal, float32, d = 64): time
   (best of 5 after a warm-up, one BLAS thread) and peak memory
   (``tracemalloc``) for n = 64 ... 8,192, and the crossover n: the first n
   from which linear attention is faster at every larger n measured;
2. one decode step of one layer (8 heads of 64): softmax with a KV cache of
   n tokens against recurrent linear attention's state, n = 64 ... 4,096.
   Target: the state's step flat within 1.3x from 64 to 4,096, the cached
   step growing;
3. recall accuracy against N (16-dimensional unit keys, 200 contexts each):
   the N at which each memory first drops below 90%;
4. the memory of Qwen3-Next-80B-A3B (its config.json) for one sequence at
   32k, 256k and 1M tokens: all-softmax against the published hybrid;
5. the explorer's update latency (``memory_explorer``): median and p95 of
   30 updates of each input, each set to a new value. Target: median <= 40 ms;
6. the gate: delta-rule recall of the last 8 of 64 facts at constant alpha
   1, 0.95, 0.9, 0.8 (200 contexts), and two documents (32 facts, then 8)
   with alpha = 1 everywhere against alpha = 0 at the boundary.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from helpers.world import recall as R  # noqa: E402
from helpers.attention import (kv_cache_bytes, linear_attention,  # noqa: E402
                               scaled_dot_product_attention, softmax, state_bytes)
from helpers.runtime.timing import best_ms, one_blas_thread  # noqa: E402

#: Qwen3-Next-80B-A3B's config.json (Hugging Face, Qwen/Qwen3-Next-80B-A3B-Instruct)
QWEN3_NEXT = {"num_hidden_layers": 48, "full_attention_interval": 4,
              "num_key_value_heads": 2, "head_dim": 256,
              "linear_num_value_heads": 32, "linear_key_head_dim": 128,
              "linear_value_head_dim": 128}


def peak_mib(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def crossover(sizes, soft, lin):
    """The first n from which linear attention is faster at every larger n."""
    for i, n in enumerate(sizes):
        if all(lt < st for st, lt in zip(soft[i:], lin[i:])):
            return n
    return None


def forward_table(sizes):
    print("1. one forward pass, not causal, float32, d = 64 (ms, MiB)")
    print(f"{'n':>6} | {'softmax ms':>10} | {'linear ms':>9} | {'softmax MiB':>11} | "
          f"{'linear MiB':>10}")
    rng = np.random.default_rng(0)
    soft, lin = [], []
    for n in sizes:
        Q, K, V = rng.standard_normal((3, n, 64), dtype=np.float32)
        s = best_ms(lambda: scaled_dot_product_attention(Q, K, V), repeats=5)
        t = best_ms(lambda: linear_attention(Q, K, V), repeats=5)
        sm = peak_mib(lambda: scaled_dot_product_attention(Q, K, V))
        lm = peak_mib(lambda: linear_attention(Q, K, V))
        soft.append(s)
        lin.append(t)
        print(f"{n:>6,} | {s:>10.3f} | {t:>9.3f} | {sm:>11.2f} | {lm:>10.2f}")
    cross = crossover(sizes, soft, lin)
    print(f"crossover: linear attention is faster from n = {cross} on\n")


def decode_table(sizes, heads=8, d=64):
    print(f"2. one decode step, one layer of {heads} heads x {d} (ms, best of 50)")
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, heads, 1, d), dtype=np.float32)
    S = rng.standard_normal((heads, d, d), dtype=np.float32)
    cached, state = [], []
    for n in sizes:
        Kc, Vc = rng.standard_normal((2, heads, n, d), dtype=np.float32)

        def cache_step():
            w = softmax(q @ np.swapaxes(Kc, -1, -2) / np.float32(np.sqrt(d)))
            return w @ Vc

        def state_step():
            return q @ (S + np.swapaxes(k, -1, -2) * v)

        cached.append(best_ms(cache_step, repeats=50))
        state.append(best_ms(state_step, repeats=50))
        mib = Kc.nbytes * 2 / 2**20
        print(f"n = {n:>5,}: KV cache {cached[-1]:7.4f} ms ({mib:6.2f} "
              f"MiB) | state {state[-1]:7.4f} ms ({S.nbytes / 2**20:5.3f} MiB)")
    print(f"state step, largest / smallest over n: {max(state) / min(state):.2f}x "
          f"(target <= 1.3x); KV cache step x{cached[-1] / cached[0]:.1f} from "
          f"n = {sizes[0]} to {sizes[-1]}\n")


def recall_table(Ns):
    print("3. recall accuracy against N (d_k = 16, 200 contexts each)")
    for memory in R.MEMORIES:
        acc, err, _ = R.recall_curve(memory, Ns, trials=200)
        drop = next((N for N, a in zip(Ns, acc) if a < 0.9), None)
        print(f"{memory:<13} below 90% from N = {drop}; "
              + ", ".join(f"{N}: {a:.2f}" for N, a in zip(Ns, acc)))
    print()


def hybrid_table():
    c = QWEN3_NEXT
    L = c["num_hidden_layers"]
    full = L // c["full_attention_interval"]
    kv = kv_cache_bytes(1, c["num_key_value_heads"], c["head_dim"])  # one layer, bf16
    st = state_bytes(L - full, c["linear_num_value_heads"], c["linear_key_head_dim"],
                     c["linear_value_head_dim"])
    print("4. Qwen3-Next-80B-A3B, one sequence, bf16 (GiB)")
    print(f"KV cache per token and full layer: {kv:,} bytes; state of the "
          f"{L - full} Gated DeltaNet layers: {st:,} bytes ({st / 2**20:.0f} MiB)")
    for n in (1_024, 32_768, 262_144, 1_048_576):
        everything = L * kv * n
        hybrid = full * kv * n + st
        print(f"{n:>9,} tokens: all {L} layers softmax {everything / 2**30:7.2f} | "
              f"hybrid ({full} softmax + state) {hybrid / 2**30:6.2f} | "
              f"{everything / hybrid:.2f}x")
    print()


def widget_table(n=30):
    from helpers import widgets as W

    print(f"5. memory_explorer update latency, {n} updates per input (ms)")
    ex = W.memory_explorer()
    worst = 0.0
    cases = {"sentence": ["Ada=3, Ben=7, Ada=9", "Cleo=1; Dan=2; Eva=3; Cleo=4"],
             "sentence ": ["Ada=3, Ada=9", "\u540d\u524d=3, \u65e5\u672c=5"],
             "n": [12, 40], "memory": ["softmax", "delta"]}
    for attr, (a, b) in cases.items():
        box, times = getattr(ex, attr.strip()), []
        for i in range(n):
            t0 = time.perf_counter()
            box.value = b if i % 2 == 0 else a
            assert ex.picture.value
            times.append((time.perf_counter() - t0) * 1000)
        med = float(np.median(times))
        worst = max(worst, med)
        print(f"{attr:<9} median {med:6.1f}   p95 {np.percentile(times, 95):6.1f}")
    ex.close()
    print(f"worst median {worst:.1f} ms (target <= 40)")
    return worst


def gate_table():
    from helpers.world import recall

    print("6. the gate alpha, delta rule")
    for a in (1.0, 0.95, 0.9, 0.8):
        by_pos = recall.recall_curve("delta", [64], trials=200, alpha=a)[2][0]
        print(f"constant alpha = {a:<4g}: last 8 of 64 facts recalled "
              f"{by_pos[-8:].mean():.3f}")
    for reset in (False, True):
        gate = "0 at the boundary" if reset else "1"
        print(f"two documents (32 + 8), alpha = {gate:<17}: second recalled "
              f"{recall.two_documents(32, 8, reset):.3f}")
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widget-only", action="store_true")
    args = parser.parse_args(argv)
    if not args.widget_only:
        with one_blas_thread():
            forward_table([64, 128, 256, 512, 1024, 2048, 4096, 8192])
            decode_table([64, 256, 1024, 4096])
        recall_table([4, 8, 12, 16, 20, 24, 32, 48, 64])
        hybrid_table()
        gate_table()
    return 0 if widget_table() <= 40 else 1


if __name__ == "__main__":
    raise SystemExit(main())
