"""Lesson 07: the reference solution of each exercise (see tools/README.md)."""

from helpers.attention import scaled_dot_product_attention

CHECKERS = {"my_multi_head": "check_multi_head"}


def my_multi_head(E, W_Q, W_K, W_V, W_O, mask=None):
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V  # (H, n, d_k), (H, n, d_k), (H, n, d_v)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    H, n, d_v = heads.shape
    merged = heads.transpose(1, 0, 2).reshape(n, H * d_v)
    return merged @ W_O, weights
