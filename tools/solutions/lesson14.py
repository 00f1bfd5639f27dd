"""Lesson 14: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {
    "hybrid_bytes": "check_hybrid_bytes",
    "linear_step": "check_linear_step",
    "delta_step": "check_delta_step",
}


def hybrid_bytes(n_tokens, n_layers, interval, n_kv_heads, d_head,
                 n_state_heads, d_k, d_v, bytes_per_value=2):
    full = n_layers // interval                    # one layer in `interval` is softmax
    cache = 2 * full * n_kv_heads * d_head * bytes_per_value * n_tokens  # K and V
    state = (n_layers - full) * n_state_heads * d_k * d_v * bytes_per_value  # fixed
    return cache + state


def linear_step(S, z, q, k, v):
    S_new = S + np.outer(k, v)      # write this token first: k^T v, (d, d_v)
    z_new = z + k                   # and its share of the normaliser
    o = q @ S_new / (q @ z_new)     # then read: the same as the causal parallel form
    return o, S_new, z_new


def delta_step(S, k, v, beta, alpha=1.0):
    old = k @ S                     # what the state holds for this key, (d_v,)
    return alpha * (S - beta * np.outer(k, old)) + beta * np.outer(k, v)
