"""Lesson 12: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

from helpers.attention import scaled_dot_product_attention

CHECKERS = {
    "kv_bytes_per_token": "check_kv_bytes_per_token",
    "mla_bytes_per_token": "check_mla_bytes_per_token",
    "online_softmax_step": "check_online_softmax_step",
    "rope_attention": "check_rope_attention",
}


def kv_bytes_per_token(n_layers, n_heads, n_kv_heads, d_head, bytes_per_value=2):
    # one key and one value (2) of d_head numbers per key/value head, per layer;
    # the query heads (n_heads) are not cached
    return 2 * n_layers * n_kv_heads * d_head * bytes_per_value


def mla_bytes_per_token(n_layers, n_heads, d_latent, d_rope, bytes_per_value=2):
    # one latent and one RoPE key per token and layer, shared by all the heads
    # (n_heads is not in it); no factor 2: K and V are both made from the latent
    return n_layers * (d_latent + d_rope) * bytes_per_value


def online_softmax_step(m, total, acc, scores, V_block):
    m_new = np.maximum(m, scores.max(axis=-1))   # (n,): the running max so far
    alpha = np.exp(m - m_new)                    # (n,): rescales the old terms, <= 1
    P = np.exp(scores - m_new[:, None])          # (n, b): this block, same reference
    total_new = alpha * total + P.sum(axis=-1)
    acc_new = alpha[:, None] * acc + P @ V_block # still unnormalised: no division here
    return m_new, total_new, acc_new


def rope_attention(Q, K, V, base=10000.0):
    n, d = Q.shape
    pos = np.arange(n)[:, None]                  # (n, 1): each token's position
    theta = base ** (-np.arange(0, d, 2) / d)    # (d/2,): one speed per pair
    angle = pos * theta                          # (n, d/2)
    cos, sin = np.cos(angle), np.sin(angle)

    def rotate(X):
        x, y = X[:, 0::2], X[:, 1::2]            # the pairs (0, 1), (2, 3), ...
        out = np.empty_like(X)
        out[:, 0::2] = x * cos - y * sin
        out[:, 1::2] = x * sin + y * cos
        return out

    return scaled_dot_product_attention(rotate(Q), rotate(K), V)  # V is not rotated
