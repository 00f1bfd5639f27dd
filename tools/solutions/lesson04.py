"""Lesson 04: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

from helpers.attention import softmax

CHECKERS = {"attention": "check_attention"}


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
