"""Attention sinks on lesson 11's small GPT (lesson 12).

Lesson 11's GPT always runs with the full causal mask (``GPT.run``). Here the
same forward pass runs with any mask, so that lesson 12 can ask what a
**sliding window** does to it: each query sees only its last ``w`` tokens, in
every layer, with or without a few of the text's **first** tokens kept as well
(the "attention sinks" of StreamingLLM, Xiao et al. 2023).

Notation of the series: rows are queries, columns are keys; ``ids`` is
``(n,)``, a mask ``(n, n)`` boolean with True = may attend.

The held-out passage, ``data/held_out_twelfth_night.txt``, is Act I, scene
III onwards of *Twelfth Night*, a play the GPT never saw in training
(data/README.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers.attention import (causal_mask, scaled_dot_product_attention,
                               sliding_window_mask)
from helpers.models.gpt import GPT

__all__ = ["held_out_windows", "keep_mask", "next_token_loss", "run_with_mask",
           "first_token_share", "kept_share", "keep_in"]

PASSAGE = Path(__file__).resolve().parents[2] / "data" / "held_out_twelfth_night.txt"


def held_out_windows(model: GPT, n_windows: int,
                     length: int | None = None) -> np.ndarray:
    """``(n_windows, length)`` token ids: consecutive, non-overlapping pieces
    of the held-out passage (``length`` defaults to the model's context). A
    piece starts wherever the last one ended, mid-line, as in training."""
    length = int(length or model.context)
    ids = model.encode(PASSAGE.read_text(encoding="utf-8"))
    if not 1 <= n_windows * length <= len(ids):
        raise ValueError(f"the passage has {len(ids):,} tokens: at most "
                         f"{len(ids) // length} windows of {length}")
    return ids[: n_windows * length].reshape(n_windows, length)


def keep_mask(n: int, w: int, keep=()) -> np.ndarray:
    """``(n, n)``: a sliding window of width ``w`` (query i sees keys
    ``i - w + 1 .. i``) plus the key columns in ``keep`` (still causal)."""
    mask = sliding_window_mask(n, w)
    cols = np.asarray(list(keep), dtype=int)
    mask[:, cols] |= causal_mask(n)[:, cols]
    return mask


def run_with_mask(model: GPT, ids, mask) -> tuple[np.ndarray, np.ndarray]:
    """The GPT's forward pass with ``mask`` in every layer instead of the
    causal mask: ``(logits (n, vocab), attention (n_layers, n_heads, n, n))``.
    With ``causal_mask(n)`` it is ``model.run(ids)``.

    ``mask`` is one ``(n, n)`` mask for every layer, or a list of masks, one
    per layer, each ``(n, n)`` or ``(n_heads, n, n)`` (one per head), so that
    a change can be tried in one layer or one head alone."""
    ids = np.asarray(ids, dtype=np.int64)
    n = len(ids)
    per_layer = isinstance(mask, (list, tuple))
    masks = list(mask) if per_layer else [mask] * len(model.blocks)
    if len(masks) != len(model.blocks):
        raise ValueError(f"one mask per layer: {len(model.blocks)} masks, "
                         f"got {len(masks)}")
    h = model.wte[ids] + model.wpe[:n]  # (n, d_model)
    attention = []
    for layer, mask in enumerate(masks):  # the model's own blocks, our masks
        q, k, v = model.qkv(layer, h)  # each (heads, n, d_head)
        out, A = scaled_dot_product_attention(q, k, v, mask=mask)  # (heads, n, d_head)
        attention.append(A)  # (heads, n, n)
        h = model.finish(layer, h, out)  # (n, d_model)
    return model.unembed(h), np.stack(attention)


def next_token_loss(logits, ids) -> np.ndarray:
    """``(n - 1,)``: the loss in nats of each next token, ``-log p(ids[t+1])``
    under ``softmax(logits[t])``."""
    z = np.asarray(logits, dtype=np.float64)[:-1]
    z = z - z.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    ids = np.asarray(ids)
    return -logp[np.arange(len(ids) - 1), ids[1:]]


def first_token_share(attention, rows) -> np.ndarray:
    """``(n_layers, n_heads)``: the mean weight the queries ``rows`` give the
    first key (column 0)."""
    A = np.asarray(attention)
    return A[..., np.asarray(rows), 0].mean(axis=-1)


def kept_share(attention, rows, keys) -> np.ndarray:
    """``(n_layers, n_heads)``: the mean total weight the queries ``rows``
    give the keys ``keys`` (for instance the four kept first tokens)."""
    A = np.asarray(attention)[..., np.asarray(rows), :]
    return A[..., np.asarray(list(keys))].sum(axis=-1).mean(axis=-1)


def keep_in(model: GPT, n: int, w: int, keep, where) -> list:
    """One mask per layer: a window of ``w`` everywhere, with the key columns
    ``keep`` kept in view only where ``where`` says: a set of layers
    (``{1}``) or of ``(layer, head)`` pairs (``{(1, 5)}``)."""
    window, kept = keep_mask(n, w), keep_mask(n, w, keep=keep)
    masks = []
    for layer in range(len(model.blocks)):
        heads = np.array([layer in where or (layer, head) in where
                          for head in range(model.n_heads)])
        masks.append(np.where(heads[:, None, None], kept, window))
    return masks
