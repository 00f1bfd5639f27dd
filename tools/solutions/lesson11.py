"""Lesson 11: the reference solution of each exercise (see tools/README.md).

``attention`` is the learner's function of lesson 04 (the notebook defines
it in the cell before the exercise); here it is lesson 04's solution.
"""

import numpy as np

from helpers.attention import softmax
from tools.solutions.lesson04 import attention

CHECKERS = {
    "next_token_loss": "check_next_token_loss",
    "gpt_head_pattern": "check_gpt_head_pattern",
    "top_k_sample": "check_top_k_sample",
}


def next_token_loss(logits, ids):
    z = logits[:-1]                         # logits[t] predicts ids[t + 1]
    z = z - z.max(axis=-1, keepdims=True)   # log-sum-exp: exp never overflows
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    targets = ids[1:]
    return -log_p[np.arange(len(targets)), targets].mean()


def gpt_head_pattern(x, W_Q, b_Q, W_K, b_K):
    Q = x @ W_Q + b_Q
    K = x @ W_K + b_K
    n = x.shape[0]
    mask = np.tril(np.ones((n, n), dtype=bool))  # key j <= query i
    _, weights = attention(Q, K, K, mask=mask)
    return weights


def top_k_sample(logits, k, temperature, rng):
    z = logits / temperature
    kth = np.sort(z)[-k]                     # the k-th largest
    z = np.where(z >= kth, z, -np.inf)       # the others can never be drawn
    p = softmax(z)
    return int(rng.choice(len(p), p=p))      # exactly one draw
