"""Attention at scale (lesson 12), in plain numpy: the same results as
``helpers.attention.core`` with less memory or less work.

* :func:`tiled_attention`: softmax attention one block of keys at a time
  (the online softmax of FlashAttention), never building the ``(n, n)`` matrix;
* :func:`grouped_query_attention`: key and value heads shared by groups of
  query heads (GQA; one group per head is multi-head attention);
* :func:`rope`: rotary position embedding of queries or keys;
* :func:`sliding_window_mask` and :func:`local_attention`: a causal band of
  width ``w``, the second computing only the band;
* :func:`kv_cache_bytes`: what a decoder caches per token.

Same conventions as :mod:`helpers.attention.core`: row vectors, rows are
queries, leading batch dimensions broadcast.
"""

from __future__ import annotations

import numpy as np

from helpers.attention.core import scaled_dot_product_attention
from helpers.attention.inputs import _as_float, _check_qkv

__all__ = [
    "grouped_query_attention",
    "kv_cache_bytes",
    "local_attention",
    "rope",
    "sliding_window_mask",
    "tiled_attention",
]


def tiled_attention(Q, K, V, block: int = 64, causal: bool = False) -> np.ndarray:
    """Softmax attention computed one block of keys at a time (lesson 12).

    The idea behind FlashAttention: walk the keys in blocks of ``block``,
    keeping for every query a running maximum ``m`` of its scores, a running
    sum ``total`` of ``exp(score - m)`` and a running, not yet normalised output
    ``acc``. When a block raises the maximum, the old sum and output are
    rescaled by ``exp(m_old - m_new)``; the division by ``total`` comes once, at
    the end. The result equals ``scaled_dot_product_attention(Q, K, V,
    mask=causal_mask(n) if causal else None)[0]`` up to rounding, but no
    ``(n_query, n_key)`` matrix is ever built: the largest temporary is
    ``(n_query, block)``.

    Parameters
    ----------
    Q : (..., n_query, d_k);  K : (..., n_key, d_k);  V : (..., n_key, d_v)
    block : int >= 1, keys per block (the last block may be shorter)
    causal : bool, query ``i`` sees only keys ``j <= i``

    Returns
    -------
    output : (..., n_query, d_v). With no keys at all (``n_key == 0``) every
        row is zero, as in :func:`scaled_dot_product_attention`.
    """
    Q, K, V = _check_qkv(Q, K, V)
    if int(block) != block or block < 1:
        raise ValueError(f"block must be a whole number >= 1, got {block!r}")
    block = int(block)
    n_q, n_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    dtype = np.result_type(Q, K, V)
    scale = 1.0 / np.sqrt(d_k) if d_k > 0 else 1.0
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full(batch + (n_q, 1), -np.inf, dtype=dtype)  # running max
    total = np.zeros(batch + (n_q, 1), dtype=dtype)  # running sum of exp
    acc = np.zeros(batch + (n_q, V.shape[-1]), dtype=dtype)  # running output
    rows = np.arange(n_q)[:, None]
    Qs = Q * dtype.type(scale)
    for start in range(0, n_k, block):
        stop = min(start + block, n_k)
        if causal and start > n_q - 1:
            break  # every later key is in every query's future
        S = Qs @ np.swapaxes(K[..., start:stop, :], -1, -2)  # (..., n_q, b)
        if causal and stop - 1 > 0:
            future = np.arange(start, stop)[None, :] > rows  # key j > query i
            if future.any():
                np.copyto(S, -np.inf, where=np.broadcast_to(future, S.shape))
        m_new = np.maximum(m, S.max(axis=-1, keepdims=True))
        shift = np.where(np.isfinite(m_new), m_new, 0)  # a row with no key yet
        with np.errstate(under="ignore"):
            alpha = np.exp(m - shift)  # rescales the old sum and output
            S -= shift
            np.exp(S, out=S)  # this block's weights, not yet normalised
        total *= alpha
        total += S.sum(axis=-1, keepdims=True)
        acc *= alpha
        acc += S @ V[..., start:stop, :]
        m = m_new
    np.reciprocal(total, out=total, where=total > 0)  # divide once, at the end
    acc *= total
    return acc


def grouped_query_attention(E, W_Q, W_K, W_V, W_O, mask=None):
    """Multi-head attention whose key and value heads are shared (lesson 12).

    ``h`` query heads, but only ``g`` key/value heads: query head ``i`` uses
    key/value head ``i // (h // g)``, so each group of ``h // g`` consecutive
    query heads shares one K and one V. ``g == h`` is lesson 07's
    :func:`multi_head_attention`; ``g == 1`` is multi-query attention. The
    KV cache shrinks by the factor ``h / g``.

    Parameters
    ----------
    E : (..., n, d_model)
    W_Q : (h, d_model, d_k);  W_K : (g, d_model, d_k);  W_V : (g, d_model, d_v)
        with ``h % g == 0``
    W_O : (h * d_v, d_out)
    mask : bool, broadcastable to (..., h, n, n), optional

    Returns
    -------
    dE : (..., n, d_out) and weights : (..., h, n, n), as
    :func:`multi_head_attention`.
    """
    E = _as_float(E, "E")
    W_Q, W_K, W_V = (_as_float(W, name) for W, name in
                     ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V")))
    W_O = _as_float(W_O, "W_O")
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W.ndim != 3:
            raise ValueError(f"{name} must have shape (heads, d_model, d); "
                             f"got {W.shape}")
    h, g = W_Q.shape[0], W_K.shape[0]
    if W_V.shape[0] != g:
        raise ValueError(f"W_K {W_K.shape} and W_V {W_V.shape} need the same number "
                         "of key/value heads g")
    if g == 0 or h % g:
        raise ValueError(f"the {h} query heads must split evenly into the {g} "
                         "key/value groups (h % g == 0)")
    if W_Q.shape[2] != W_K.shape[2]:
        raise ValueError(f"W_Q {W_Q.shape} and W_K {W_K.shape} need the same d_k")
    d_model = E.shape[-1]
    if {W_Q.shape[1], W_K.shape[1], W_V.shape[1]} != {d_model}:
        raise ValueError(f"E has d_model={d_model} (shape {E.shape}) but the "
                         f"projections are W_Q {W_Q.shape}, W_K {W_K.shape}, "
                         f"W_V {W_V.shape} (middle axis = d_model)")
    d_v = W_V.shape[2]
    if W_O.ndim != 2 or W_O.shape[0] != h * d_v:
        raise ValueError(f"W_O must have shape ({h * d_v}, d_out) for h={h}, "
                         f"d_v={d_v}; got {W_O.shape}")
    X = E[..., None, :, :]
    Q = X @ W_Q  # (..., h, n, d_k)
    K = np.repeat(X @ W_K, h // g, axis=-3)  # (..., g, n, d_k) -> (..., h, n, d_k)
    V = np.repeat(X @ W_V, h // g, axis=-3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    merged = np.swapaxes(heads, -3, -2)
    merged = merged.reshape(merged.shape[:-2] + (h * d_v,))
    return merged @ W_O, weights


def rope(X, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding (RoPE, lesson 12) of queries or keys.

    Each pair of features ``(2i, 2i+1)`` of the row at position ``p`` is
    rotated by the angle ``p * base**(-2i/d)``: pair 0 turns by one radian
    per position, the last pairs very slowly. Because both a query at
    position ``m`` and a key at ``n`` are rotated, their dot product depends
    on the positions only through the offset ``m - n``. Lengths are kept
    (a rotation), and ``V`` is never rotated.

    Parameters
    ----------
    X : (..., n, d) with ``d`` even, one query or key per row
    positions : (n,) or broadcastable to (..., n), optional; default
        ``0, 1, ..., n-1``
    base : float, the largest wavelength is about ``2 pi base``

    Returns
    -------
    (..., n, d): ``X`` rotated, same dtype.
    """
    X = _as_float(X, "X")
    if X.ndim < 2 or X.shape[-1] % 2:
        raise ValueError("rope needs X of shape (..., n, d) with d even; got "
                         f"{X.shape}")
    n, d = X.shape[-2], X.shape[-1]
    pos = np.arange(n) if positions is None else np.asarray(positions, dtype=float)
    theta = float(base) ** (-np.arange(0, d, 2) / d)  # (d/2,): one speed per pair
    # angles, cos and sin in float64 whatever X is: at positions 100,000 to
    # 100,015 (d = 64) an angle computed in float32 is off by up to 0.009 rad
    # (0.0025 from rounding the product alone), and scores would then depend
    # on where a text sits (the result is cast back to X's dtype)
    angle = pos.astype(np.float64)[..., None] * theta  # (..., n, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    x, y = X[..., 0::2], X[..., 1::2]
    out = np.empty(np.broadcast_shapes(X.shape, angle.shape[:-1] + (d,)), dtype=X.dtype)
    out[..., 0::2] = x * cos - y * sin
    out[..., 1::2] = x * sin + y * cos
    return out


def sliding_window_mask(n: int, w: int) -> np.ndarray:
    """Boolean ``(n, n)`` causal band mask of width ``w`` (lesson 12).

    Query ``i`` may attend to key ``j`` when ``i - w < j <= i``: itself and
    the ``w - 1`` tokens before it. ``w >= n`` gives :func:`causal_mask`;
    ``w = 1`` lets each token see only itself.
    """
    if int(n) != n or n < 0:
        raise ValueError(f"sliding_window_mask needs a whole number n >= 0, got {n!r}")
    if int(w) != w or w < 1:
        raise ValueError(f"the window w must be a whole number >= 1, got {w!r}")
    offset = np.arange(int(n))[:, None] - np.arange(int(n))[None, :]  # i - j
    return (offset >= 0) & (offset < int(w))


def kv_cache_bytes(n_layers: int, n_kv_heads: int, d_head: int,
                   bytes_per_value: int = 2) -> int:
    """Bytes of keys and values a decoder caches per token (lesson 12).

    ``2 x n_layers x n_kv_heads x d_head x bytes_per_value``: one key and one
    value vector of ``d_head`` numbers per key/value head, in every layer.
    fp16/bf16 is 2 bytes per number, float32 4. GPT-3 175B (96 layers, 96
    heads, d_head 128) needs 4,718,592 bytes (about 4.7 MB) per token;
    Llama-3-8B (32 layers, 8 key/value heads, d_head 128) 131,072 (128 KiB).
    """
    values = (int(n_layers), int(n_kv_heads), int(d_head), int(bytes_per_value))
    if min(values) < 0:
        raise ValueError(f"kv_cache_bytes needs sizes >= 0, got {values}")
    L, g, d, b = values
    return 2 * L * g * d * b


def local_attention(Q, K, V, w: int, block: int = 64) -> np.ndarray:
    """Sliding-window attention that only computes the band (lesson 12).

    Equal to ``scaled_dot_product_attention(Q, K, V,
    mask=sliding_window_mask(n, w))[0]``, but each block of ``block``
    queries is scored only against the keys its window can reach (at most
    ``block + w - 1`` of them), so the work grows like ``n x w`` instead of
    ``n x n``.

    Q, K : (..., n, d_k);  V : (..., n, d_v);  returns (..., n, d_v).
    """
    Q = _as_float(Q, "Q")
    K = _as_float(K, "K")
    V = _as_float(V, "V")
    if Q.shape[-2] != K.shape[-2]:
        raise ValueError(f"local attention needs as many queries as keys: "
                         f"Q {Q.shape}, K {K.shape}")
    if int(block) != block or block < 1:
        raise ValueError(f"block must be a whole number >= 1, got {block!r}")
    if int(w) != w or w < 1:
        raise ValueError(f"the window w must be a whole number >= 1, got {w!r}")
    n, block, w = Q.shape[-2], int(block), int(w)
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    out = np.zeros(batch + (n, V.shape[-1]), dtype=np.result_type(Q, K, V))
    for start in range(0, n, block):
        stop = min(start + block, n)
        first = max(0, start - w + 1)  # the earliest key any of them sees
        offset = np.arange(start, stop)[:, None] - np.arange(first, stop)[None, :]
        out[..., start:stop, :] = scaled_dot_product_attention(
            Q[..., start:stop, :], K[..., first:stop, :], V[..., first:stop, :],
            mask=(offset >= 0) & (offset < w))[0]  # this block's part of the band
    return out
