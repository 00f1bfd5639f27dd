"""Speed of lesson 11's numpy GPT against transformers' GPT2LMHeadModel (torch).

Run from the repository root, in the throwaway torch environment (it needs
torch and transformers; they are never project dependencies):

    build/gpt/venv/bin/pip install transformers          # once
    build/gpt/venv/bin/python tests/benchmarks/bench_gpt.py
        [--threads 1] [--repeats 300] [--gen-repeats 15] [--folder data/gpt]

In one process, interleaved and with the same thread count (BLAS and
torch.set_num_threads), on the same weights (data/gpt/, loaded by each side's
own loader):

1. one forward pass of 64 tokens: ``model.run(ids)`` (logits, every head's
   attention, every hidden state) against ``GPT2LMHeadModel`` (eager,
   float32, no_grad) asked for the same (``output_attentions``,
   ``output_hidden_states``), and plain (logits only); medians and ratios.
   Goal: numpy / torch <= 1.25 (aim 1.0).
2. greedy generation of 100 tokens with the KV cache:
   ``model.generate(prompt, 100, temperature=0)`` against
   ``generate(use_cache=True, do_sample=False, max_new_tokens=100)``;
   tokens per second, the ratio, and whether both wrote the same tokens.
   Goal: numpy / torch >= 1.0.

A benchmark, not a test: pytest does not collect it; it prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT = ("KING.\nNow is the winter of our discontent made glorious summer, and "
        "all the clouds that lour'd upon our house in the deep bosom of the ocean "
        "buried. Now are our brows bound with victorious wreaths, our bruised arms "
        "hung up for monuments.")
PROMPT = "ROMEO.\nBut soft, what light"
N_FORWARD, N_NEW = 64, 100


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=300,
                        help="forward passes per side")
    parser.add_argument("--gen-repeats", type=int, default=15,
                        help="generations per side")
    parser.add_argument("--folder", default=str(ROOT / "data" / "gpt"))
    return parser.parse_args()


def interleaved(fns: dict, repeats: int, warmup: int) -> dict:
    """Seconds of each call, alternating the order every round: ``{name: [s, ...]}``."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    names = list(fns)
    for r in range(repeats):
        for name in (names if r % 2 == 0 else names[::-1]):
            start = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - start)
    return times


def main():
    args = parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before numpy (and torch) load BLAS
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import torch
    import transformers
    from transformers import GPT2LMHeadModel

    from helpers.models import gpt

    torch.set_num_threads(args.threads)
    folder = Path(args.folder)
    model = gpt.load(folder)
    hf = GPT2LMHeadModel.from_pretrained(str(folder), attn_implementation="eager",
                                         dtype=torch.float32).eval()
    print(f"{model}\n{args.threads} thread(s); numpy {np.__version__}; "
          f"torch {torch.__version__} (threads {torch.get_num_threads()}); "
          f"transformers {transformers.__version__}")

    ids = model.run(TEXT, max_tokens=N_FORWARD).ids
    assert len(ids) == N_FORWARD, len(ids)
    x = torch.from_numpy(ids[None].astype(np.int64))

    def torch_forward(**kw):
        with torch.no_grad():
            return hf(x, use_cache=False, **kw)

    fns = {"numpy model.run (all outputs)": lambda: model.run(ids),
           "torch, attentions + hidden": lambda: torch_forward(output_attentions=True,
                                                                output_hidden_states=True),
           "torch, logits only": lambda: torch_forward()}
    diff = np.abs(model.run(ids).logits - torch_forward().logits[0].numpy()).max()
    times = interleaved(fns, args.repeats, warmup=20)
    med = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    print(f"\nforward pass of {N_FORWARD} tokens, median of {args.repeats} "
          f"(logits differ by {diff:.1e}):")
    for name, ms in med.items():
        print(f"  {name:32s} {ms:7.3f} ms  (min {min(times[name]) * 1e3:.3f})")
    a, b, c = med.values()
    print(f"  ratio numpy / torch: {a / b:.2f} like for like, {a / c:.2f} against "
          "logits only (goal <= 1.25)")

    prompt_ids = [gpt.BOS] + model.encode(PROMPT).tolist()
    p = torch.tensor([prompt_ids])
    out = {}

    def numpy_generate():
        out["numpy"] = model.generate(PROMPT, N_NEW, temperature=0).new_ids

    def torch_generate():
        with torch.no_grad():
            seq = hf.generate(p, attention_mask=torch.ones_like(p),
                              max_new_tokens=N_NEW, do_sample=False, use_cache=True,
                              eos_token_id=None, pad_token_id=gpt.BOS)
        out["torch"] = seq[0, len(prompt_ids):].numpy()

    times = interleaved({"numpy model.generate": numpy_generate,
                         "torch generate": torch_generate}, args.gen_repeats, warmup=2)
    rate = {name: N_NEW / statistics.median(t) for name, t in times.items()}
    same = np.array_equal(out["numpy"], out["torch"])
    print(f"\ngreedy generation of {N_NEW} tokens after a {len(prompt_ids)}-token "
          f"prompt, KV cache, median of {args.gen_repeats} "
          f"(same tokens: {'yes' if same else 'NO'}):")
    for name, r in rate.items():
        print(f"  {name:32s} {r:7.0f} tokens/s  ({N_NEW / r * 1e3:.1f} ms)")
    a, b = rate.values()
    print(f"  ratio numpy / torch tokens/s: {a / b:.2f} (goal >= 1.0)")


if __name__ == "__main__":
    main()
