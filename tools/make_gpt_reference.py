"""Make tests/data/gpt_reference.npz with the reference implementation.

Loads the shipped folder ``data/gpt/`` *as it is* with
``transformers.GPT2LMHeadModel.from_pretrained`` (eager attention, float32,
CPU; the folder must load unchanged, with no missing or unexpected tensor)
and stores what ``tests/test_gpt.py`` compares ``helpers.models.gpt`` with:

* ``model_sha256``: of ``model.safetensors``; the test skips, saying so, when
  the weights changed and this file was not remade;
* for each text K of ``TEXTS`` (Shakespeare, odd characters and emoji, ~100
  tokens): ``ids_K`` (BOS id 0 first, as ``gpt.run`` adds; the rest from
  transformers' own tokenizer built from ``tokenizer.json``);
  ``rows_K``, the positions whose logits and hidden states are stored (all of
  them for text 0, every 3rd / 8th and the last for texts 1 / 2, to keep the
  file small); ``logits_K`` float32 ``(len(rows), vocab)``;
  ``nll_K`` float32 ``(n - 1,)``, ``-log p(ids[t+1])`` at *every* position, and
  ``argmax_K`` ``(n,)``; ``attention_K`` float32 ``(layers, heads, n (n + 1) / 2)``,
  every head of every layer, the lower triangle in ``np.tril_indices(n)``
  order (the rest is exactly 0, which the test checks separately);
  ``hidden_K`` float32 ``(layers + 1, len(rows), d_model)``: HF's
  ``hidden_states[0 .. layers - 1]`` (embeddings, then after each block but the
  last) and, last, the output of the last block *before* ``ln_f`` (caught by a
  forward pre-hook on ``transformer.ln_f``; HF's own last ``hidden_states``
  entry is after ``ln_f``). That is exactly ``gpt.Run.hidden``;
* ``ablate_heads`` ``(2, 2)`` (layer, head) pairs and ``ablate_logits``
  ``(n_0, vocab)``: text 0 with those heads' outputs zeroed, by a forward
  pre-hook on ``attn.c_proj`` that zeroes their slices of its input
  (transformers 5 silently ignores ``head_mask``);
* ``greedy_prompt``, ``greedy_ids`` ``(30,)``: ``generate(use_cache=True,
  do_sample=False)`` from BOS + the prompt (end-of-text does not stop it: the
  numpy model never stops early), and ``greedy_margin``: the smallest
  top-1 minus top-2 logit along the way (a tiny one would make the
  comparison fragile).

torch and transformers are never project dependencies: run this in the
throwaway environment, from the repository root, after every retraining::

    build/gpt/venv/bin/pip install transformers      # once
    build/gpt/venv/bin/python tools/make_gpt_reference.py [FOLDER] [--out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import GPT2LMHeadModel, PreTrainedTokenizerFast

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "data" / "gpt"
OUT = ROOT / "tests" / "data" / "gpt_reference.npz"
BOS = 0
TEXTS = [
    "ROMEO.\nBut soft, what light through yonder window breaks?\n",
    "Caf\u00e9 \U0001F642 \u00bd\u2211 <b>&amp;</b>\t\r\n\u00a0ok",
    "HAMLET.\nTo be, or not to be, that is the question:\nWhether 'tis nobler in "
    "the mind to suffer\nThe slings and arrows of outrageous fortune,\nOr to take "
    "arms against a sea of troubles,\nAnd by opposing end them? To die, to sleep,\n"
    "No more; and by a sleep to say we end\nThe heart-ache",
]
ROW_EVERY = [1, 3, 8]  # text K keeps logits / hidden of every ROW_EVERY[K]th row + last
ABLATE = [(1, 2), (2, 4)]
GREEDY_PROMPT, GREEDY_TOKENS = "JULIET.\nO Romeo, Romeo! wherefore art thou", 30


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load(folder: Path):
    """The folder as shipped, by transformers' own loader; complaints are fatal."""
    model, info = GPT2LMHeadModel.from_pretrained(
        str(folder), attn_implementation="eager", dtype=torch.float32,
        output_loading_info=True)
    problems = {k: v for k, v in info.items() if v}
    if problems:
        raise SystemExit(f"{folder} does not load cleanly into GPT2LMHeadModel: "
                         f"{problems}")
    assert model.lm_head.weight.data_ptr() == model.transformer.wte.weight.data_ptr(), \
        "lm_head is not tied to wte"
    model.eval()
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    return model, tokenizer


def forward(model, ids: list[int]):
    """logits (n, vocab), attention (L, H, n, n), hidden (L + 1, n, d) like gpt.Run."""
    caught = {}
    hook = model.transformer.ln_f.register_forward_pre_hook(
        lambda module, args: caught.setdefault("pre_ln_f", args[0].detach().clone()))
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True,
                        output_hidden_states=True, use_cache=False)
    finally:
        hook.remove()
    hs = out.hidden_states
    after_ln_f = model.transformer.ln_f(caught["pre_ln_f"])
    assert torch.equal(after_ln_f, hs[-1]), "pre-hook did not catch ln_f's input"
    hidden = torch.cat([torch.stack(hs[:-1])[:, 0], caught["pre_ln_f"]], 0)
    return (out.logits[0].numpy(), torch.stack(out.attentions)[:, 0].numpy(),
            hidden.numpy())


def ablated_logits(model, ids: list[int], heads) -> np.ndarray:
    """Logits with ``heads`` = [(layer, head)] zeroed before their attn.c_proj."""
    d_head = model.config.n_embd // model.config.n_head
    hooks = []
    for layer in sorted({la for la, _ in heads}):
        cols = [h for la, h in heads if la == layer]

        def zero(module, args, cols=cols):
            x = args[0].clone()
            for h in cols:
                x[..., h * d_head:(h + 1) * d_head] = 0.0
            return (x,)
        hooks.append(model.transformer.h[layer].attn.c_proj.register_forward_pre_hook(zero))
    try:
        with torch.no_grad():
            return model(torch.tensor([ids]), use_cache=False).logits[0].numpy()
    finally:
        for hook in hooks:
            hook.remove()


def greedy(model, ids: list[int], n_tokens: int):
    """``n_tokens`` greedy ids with the KV cache, and the smallest top-1 / top-2 gap."""
    with torch.no_grad():
        out = model.generate(
            torch.tensor([ids]),
            attention_mask=torch.ones(1, len(ids), dtype=torch.long),
            max_new_tokens=n_tokens, min_new_tokens=0, do_sample=False, use_cache=True,
            eos_token_id=None, pad_token_id=BOS, output_scores=True,
            return_dict_in_generate=True)
    new = out.sequences[0, len(ids):].numpy()
    assert len(new) == n_tokens, f"generate stopped after {len(new)} tokens"
    top2 = torch.stack(out.scores)[:, 0].topk(2, dim=-1).values
    return new.astype(np.int32), float((top2[:, 0] - top2[:, 1]).min())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(FOLDER))
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    folder, out_path = Path(args.folder), Path(args.out)
    torch.manual_seed(0)
    model, tokenizer = load(folder)
    arrays = {"model_sha256": np.array(sha256(folder / "model.safetensors")),
              "texts": np.array(TEXTS)}
    for k, text in enumerate(TEXTS):
        ids = [BOS] + tokenizer(text, add_special_tokens=False)["input_ids"]
        logits, attention, hidden = forward(model, ids)
        n = len(ids)
        rows = np.unique(np.r_[np.arange(0, n, ROW_EVERY[k]), n - 1])
        logp = torch.log_softmax(torch.from_numpy(logits).double(), -1).numpy()
        tril = np.tril_indices(n)
        arrays |= {f"ids_{k}": np.array(ids, dtype=np.int32),
                   f"rows_{k}": rows.astype(np.int32),
                   f"logits_{k}": logits[rows].astype(np.float32),
                   f"nll_{k}": (-logp[np.arange(n - 1), ids[1:]]).astype(np.float32),
                   f"argmax_{k}": logits.argmax(-1).astype(np.int32),
                   f"attention_{k}": attention[..., tril[0], tril[1]].astype(
                       np.float32),
                   f"hidden_{k}": hidden[:, rows].astype(np.float32)}
        print(k, n, "tokens:", tokenizer.convert_ids_to_tokens(ids)[:12], "...")
    ids0 = arrays["ids_0"].tolist()
    arrays["ablate_heads"] = np.array(ABLATE, dtype=np.int32)
    arrays["ablate_logits"] = ablated_logits(model, ids0, ABLATE).astype(np.float32)
    change = np.abs(arrays["ablate_logits"] - forward(model, ids0)[0]).max()
    print(f"ablating {ABLATE} moves text 0's logits by up to {change:.3f}")
    prompt_ids = [BOS] + tokenizer(GREEDY_PROMPT, add_special_tokens=False)["input_ids"]
    new, margin = greedy(model, prompt_ids, GREEDY_TOKENS)
    arrays |= {"greedy_prompt": np.array(GREEDY_PROMPT), "greedy_ids": new,
               "greedy_margin": np.array(margin, dtype=np.float32)}
    print(f"greedy: {tokenizer.decode(new.tolist())!r} "
          f"(smallest top-2 gap {margin:.4f})")
    if margin < 1e-3:
        print("WARNING: a near tie on the greedy path; choose another GREEDY_PROMPT")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out_path, **arrays)
    print(f"wrote {out_path} ({out_path.stat().st_size:,} bytes) from {folder} "
          f"(sha256 {arrays['model_sha256']}) with torch {torch.__version__}, "
          f"transformers {transformers.__version__}")


if __name__ == "__main__":
    main()
