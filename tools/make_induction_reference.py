"""Make tests/data/induction_reference.npz with the reference implementation,
and time both forwards (numpy and torch) at 64 tokens.

Loads ``data/induction/`` *as it is* with
``transformers.GPT2LMHeadModel.from_pretrained`` (eager attention, float32,
CPU; no missing or unexpected tensor may be reported) and stores, for the
sequences of ``SEQUENCES`` (seeded random repeats: BOS, a random prefix,
a repeat written twice; 64 tokens at most):

* ``model_sha256`` of ``model.safetensors`` (the test skips, saying so, when
  the weights changed and this file was not remade);
* ``ids_K`` ``(n,)`` and ``logits_K`` float32 ``(n, vocab)``;
* ``ablated_K`` float32 ``(n, vocab)``: the logits with the induction head of
  ``report.json`` ablated, by a forward pre-hook on ``attn.c_proj`` that
  zeroes that head's slice of its input (transformers 5 ignores
  ``head_mask``).

Then it prints the largest difference from ``helpers.models.gpt``'s numpy forward,
and the median time of one forward at 64 tokens in numpy and in torch (1
thread each). torch and transformers are never project dependencies: run it
in the throwaway environment, from the repository root::

    build/gpt/venv/bin/pip install transformers      # once
    build/gpt/venv/bin/python tools/make_induction_reference.py
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import transformers

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FOLDER = ROOT / "data" / "induction"
OUT = ROOT / "tests" / "data" / "induction_reference.npz"
#: (repeat length, prefix, seed): none of these seeds is the lesson's or the bar's
SEQUENCES = ((20, 23, 91001), (12, 0, 91002), (8, 10, 91003))


def sequence(vocab, length, prefix, seed):
    rng = np.random.default_rng(seed)
    p = rng.integers(1, vocab, size=prefix)
    r = rng.integers(1, vocab, size=length)
    return np.concatenate([[0], p, r, r]).astype(np.int64)


def main():
    torch.set_num_threads(1)
    model, info = transformers.GPT2LMHeadModel.from_pretrained(
        str(FOLDER), attn_implementation="eager", output_loading_info=True
    )
    bad = {k: v for k, v in info.items() if v and k != "mismatched_keys"}
    if bad:
        raise SystemExit(f"the folder does not load cleanly: {bad}")
    model.eval()
    report = json.loads((FOLDER / "report.json").read_text())
    layer, head = report["induction_head"]
    d_head = model.config.n_embd // model.config.n_head
    out = {
        "model_sha256": hashlib.sha256(
            (FOLDER / "model.safetensors").read_bytes()
        ).hexdigest()
    }

    def zero_head(module, args):
        x = args[0].clone()
        x[..., head * d_head : (head + 1) * d_head] = 0
        return (x,)

    for k, (L, P, seed) in enumerate(SEQUENCES):
        ids = sequence(model.config.vocab_size, L, P, seed)
        x = torch.tensor(ids)[None]
        with torch.no_grad():
            out[f"ids_{k}"] = ids
            out[f"logits_{k}"] = model(x).logits[0].numpy().astype(np.float32)
            hook = model.transformer.h[layer].attn.c_proj.register_forward_pre_hook(
                zero_head
            )
            out[f"ablated_{k}"] = model(x).logits[0].numpy().astype(np.float32)
            hook.remove()
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT.relative_to(ROOT)}")

    from helpers.analysis import induction

    ours = induction.load(FOLDER)
    worst = max(
        max(
            np.abs(ours.run(out[f"ids_{k}"]).logits - out[f"logits_{k}"]).max(),
            np.abs(
                ours.run(out[f"ids_{k}"], ablate={(layer, head)}).logits
                - out[f"ablated_{k}"]
            ).max(),
        )
        for k in range(len(SEQUENCES))
    )
    print(f"largest |numpy - transformers| logit difference: {worst:.2e}")

    ids = sequence(model.config.vocab_size, 20, 23, 91001)[:64]
    x = torch.tensor(ids)[None]

    def timed(fn, repeats=200):
        for _ in range(10):
            fn()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return 1000 * float(np.median(times))

    with torch.no_grad():
        t_torch = timed(lambda: model(x))
    t_numpy = timed(lambda: ours.run(ids))
    print(
        f"forward of {len(ids)} tokens, median of 200 (1 thread): numpy "
        f"{t_numpy:.3f} ms, transformers {t_torch:.3f} ms, ratio "
        f"{t_numpy / t_torch:.2f}"
    )


if __name__ == "__main__":
    main()
