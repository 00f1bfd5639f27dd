"""Lesson 07: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

from helpers.attention import scaled_dot_product_attention

CHECKERS = {
    "attention_params": "check_attention_params",
    "my_multi_head": "check_multi_head",
    "my_batched_attention": "check_batched_attention",
}


def attention_params(d_model, n_heads, d_k, n_layers):
    # W_Q, W_K, W_V (d_model x d_k each) and W_up (d_k x d_model)
    per_head = 4 * d_model * d_k
    per_layer = n_heads * per_head
    return per_head, per_layer, n_layers * per_layer


def my_multi_head(E, W_Q, W_K, W_V, W_O, mask=None):
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V  # (H, n, d_k), (H, n, d_k), (H, n, d_v)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    H, n, d_v = heads.shape
    merged = heads.transpose(1, 0, 2).reshape(n, H * d_v)
    return merged @ W_O, weights


def my_batched_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])   # (batch, heads, n, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    return weights @ V, weights
