"""Check helpers.models.gpt_training against torch: its gradients against
autograd through transformers' GPT-2, and a saved folder loaded in transformers.

1. Gradients. Parameters of lesson 13's shape (2 layers of 2 heads,
   ``d_model`` 64, vocabulary 128), started from the seeded initialisation
   and moved off it by random noise, are saved with
   ``gpt_training.save``-'s tensor layout and loaded with
   ``transformers.GPT2LMHeadModel`` in float64; for a batch of 8 Markov
   windows of 64 ids, the mean next-token loss and the gradient of every
   parameter from autograd are compared with ``gpt_training.loss_and_grads``
   (float64). Printed: the largest absolute and relative difference per
   parameter group.
2. With a folder (``FOLDER``, e.g. one that ``tools/train_induction.py
   --numpy`` wrote): ``from_pretrained`` must report no missing or unexpected
   tensor, and its float32 logits must equal ``helpers.models.gpt``'s numpy
   forward within 1e-4 on the bar's repeated sequences.

torch and transformers are never project dependencies: run it in the
throwaway environment that ``tools/train_gpt.py`` makes, from the repository
root::

    build/gpt/venv/bin/pip install transformers      # once
    build/gpt/venv/bin/python tools/check_gpt_training_torch.py [FOLDER]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import transformers

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.analysis import induction  # noqa: E402
from helpers.models import gpt, gpt_training as gt  # noqa: E402


def load_hf(folder, dtype=torch.float32):
    model, info = transformers.GPT2LMHeadModel.from_pretrained(
        str(folder), attn_implementation="eager", output_loading_info=True,
        dtype=dtype)
    bad = {k: v for k, v in info.items() if v and k != "mismatched_keys"}
    if bad:
        raise SystemExit(f"{folder} does not load cleanly: {bad}")
    return model.to(dtype).eval()


def gradients() -> float:
    rng = np.random.default_rng(0)
    params = gt.init_params(seed=5, dtype=np.float64)
    for k in params:  # away from the symmetric start: every gradient non-zero
        params[k] += rng.normal(0, 0.05, params[k].shape)
    ids = gt.markov_windows(rng, 8, 64)
    loss, grads = gt.loss_and_grads(params, ids)
    with tempfile.TemporaryDirectory() as tmp:
        from safetensors.numpy import save_file

        tensors = {k: v.astype(np.float64) for k, v in gt.gpt2_tensors(params).items()}
        for k in tensors:  # gpt2_tensors writes float32: write the float64 values
            name = k.removeprefix("transformer.")
            if name in params:
                tensors[k] = params[name]
        save_file(tensors, str(Path(tmp) / "model.safetensors"),
                  metadata={"format": "pt"})
        import json

        (Path(tmp) / "config.json").write_text(json.dumps(gt.hf_config()))
        model = load_hf(tmp, torch.float64)
    x = torch.tensor(ids)
    logits = model(x[:, :-1]).logits
    t_loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                               x[:, 1:].reshape(-1))
    t_loss.backward()
    named = dict(model.named_parameters())
    print(f"loss: numpy {loss:.12f}, torch {t_loss.item():.12f}")
    worst = 0.0
    for k, g in grads.items():
        tg = named[f"transformer.{k}"].grad.numpy()
        diff = float(np.abs(g - tg).max())
        rel = diff / max(1e-30, float(np.abs(tg).max()))
        worst = max(worst, diff)
        print(f"  {k:<26} max |numpy - torch| {diff:.2e}  relative {rel:.2e}")
    print(f"largest gradient difference: {worst:.2e}")
    return worst


def folder_check(folder) -> float:
    model = load_hf(folder)
    ours = gpt._load.__wrapped__(Path(folder).resolve())
    worst = 0.0
    for seed in range(515000, 515040):
        rng = np.random.default_rng(seed)
        L, prefix = int(rng.integers(8, 21)), int(rng.integers(0, 24))
        ids, _ = induction.repeated_ids(ours.vocab_size, L, prefix, seed)
        with torch.no_grad():
            theirs = model(torch.tensor(ids)[None]).logits[0].numpy()
        worst = max(worst, float(np.abs(ours.run(ids).logits - theirs).max()))
    print(f"{folder}: transformers loads it; largest |numpy - transformers| "
          f"logit difference {worst:.2e} (bar: 1e-4)")
    return worst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    ok = gradients() < 1e-9
    if args.folder:
        ok &= folder_check(args.folder) < 1e-4
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
