"""Lesson 11: the reference solution of each exercise (see tools/README.md).

``attention`` is the learner's function of lesson 04 (the notebook defines
it in the cell before the exercise); here it is lesson 04's solution.
"""

import numpy as np

from helpers.attention import softmax
from tools.solutions.lesson04 import attention

CHECKERS = {
    "next_token_loss": "check_next_token_loss",
    "decode_step": "check_decode_step",
    "top_k_sample": "check_top_k_sample",
}


def next_token_loss(logits, ids):
    z = logits[:-1]                         # logits[t] predicts ids[t + 1]
    z = z - z.max(axis=-1, keepdims=True)   # log-sum-exp: exp never overflows
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    targets = ids[1:]
    return -log_p[np.arange(len(targets)), targets].mean()


def decode_step(model, token, pos, cache):
    h = model.wte[[token]] + model.wpe[[pos]]  # (1, 192): the token at its position
    new_cache = []
    for layer, (K, V) in enumerate(cache):
        q, k, v = model.qkv(layer, h)           # each (6, 1, 32): one new row
        K = np.concatenate([K, k], axis=1)      # (6, pos + 1, 32)
        V = np.concatenate([V, v], axis=1)
        new_cache.append((K, V))
        out, _ = attention(q, K, V)             # one query, after every key: no mask
        h = model.finish(layer, h, out)         # W_O, the residual, the MLP
    return model.unembed(h[0]), new_cache


def top_k_sample(logits, k, temperature, rng):
    z = logits / temperature
    kth = np.sort(z)[-k]                     # the k-th largest
    z = np.where(z >= kth, z, -np.inf)       # the others can never be drawn
    p = softmax(z)
    return int(rng.choice(len(p), p=p))      # exactly one draw
