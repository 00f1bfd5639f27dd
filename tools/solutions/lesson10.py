"""Lesson 10: the reference solution of each exercise (see tools/README.md).

``attention`` is the learner's function of lesson 04 (the notebook defines
it in the cell before the exercise); here it is lesson 04's solution.
"""

import numpy as np

from tools.solutions.lesson04 import attention

CHECKERS = {
    "n_attention_weights": "check_n_attention_weights",
    "real_head_pattern": "check_real_head",
    "causal_head_pattern": "check_causal_head_pattern",
}


def n_attention_weights(n_pieces, n_layers=6, n_heads=12):
    return n_layers * n_heads * n_pieces**2


def real_head_pattern(x, W_Q, b_Q, W_K, b_K):
    Q = x @ W_Q + b_Q
    K = x @ W_K + b_K
    _, weights = attention(Q, K, K)
    return weights


def causal_head_pattern(x, W_Q, b_Q, W_K, b_K):
    Q = x @ W_Q + b_Q
    K = x @ W_K + b_K
    n = x.shape[0]
    mask = np.tril(np.ones((n, n), dtype=bool))  # key j <= query i
    _, weights = attention(Q, K, K, mask=mask)
    return weights
