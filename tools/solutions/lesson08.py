"""Lesson 08: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {"my_cross_attention": "check_cross_attention"}


def my_cross_attention(X_query, X_source, W_Q, W_K, W_V):
    Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
    S = Q @ K.T / np.sqrt(K.shape[-1])           # (n_q, n_s)
    S = S - S.max(axis=-1, keepdims=True)
    weights = np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)
    return weights @ V, weights
