"""The attention math, in plain numpy: no plotting, no widgets.

Conventions used everywhere in this project (lessons 03 and 04 introduce them):

* row vectors: ``E`` has shape ``(n_tokens, d_model)`` and ``Q = E @ W_Q``
  with ``W_Q`` of shape ``(d_model, d_k)``;
* **rows are queries, columns are keys**: ``weights[i, j]`` is how much
  query token ``i`` attends to key token ``j``, and every row sums to 1;
* a boolean ``mask`` is ``True`` where a query *may* attend to a key (the
  meaning of PyTorch's boolean ``attn_mask``).

Every function accepts leading batch dimensions wherever numpy's ``@``
broadcasts them, keeps float32 as float32 and float64 as float64, and has no
Python loop over tokens or heads.
"""

from __future__ import annotations

import numpy as np

# lesson 14: attention with a fixed-size memory (its own module, re-exported);
# _as_float, the one input check both modules use, lives there too
from helpers.fixed_state import (
    _as_float,
    delta_rule,
    elu_plus_one,
    linear_attention,
    linear_attention_recurrent,
    state_bytes,
)

__all__ = [
    "attention_parameters",
    "causal_mask",
    "cross_attention",
    "delta_rule",
    "elu_plus_one",
    "grouped_query_attention",
    "kv_cache_bytes",
    "linear_attention",
    "linear_attention_recurrent",
    "local_attention",
    "multi_head_attention",
    "rope",
    "scaled_dot_product_attention",
    "sliding_window_mask",
    "softmax",
    "softmax_backward",
    "state_bytes",
    "tiled_attention",
]


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    ``softmax(x)[..., j] = exp(x_j - max x) / sum_k exp(x_k - max x)``.
    Subtracting the maximum changes nothing mathematically but keeps
    ``exp`` from overflowing, so scores of 1e4 or -1e4 are fine.

    * ``-inf`` entries get weight exactly 0 (this is how masking works);
    * a slice that is entirely ``-inf`` gives all zeros, not NaN, and no
      warning is emitted.

    Shape and dtype (float32 or float64) of ``x`` are kept.
    """
    z = np.array(_as_float(x, "x"), copy=True)
    if z.ndim == 0:
        raise ValueError("softmax needs an array with at least one axis, got a scalar")
    return _softmax_inplace(z, axis)


def _softmax_inplace(z: np.ndarray, axis: int) -> np.ndarray:
    """Softmax of the floating array ``z`` along ``axis``, overwriting ``z``."""
    if z.size == 0:
        return z
    m = np.max(z, axis=axis, keepdims=True)
    # A fully masked slice has max -inf; shift it by 0 instead so that
    # -inf - (-inf) = NaN never happens.
    m[~np.isfinite(m)] = 0
    z -= m
    # exp of a very negative score underflows to 0: that is the intended
    # weight, so the underflow is not reported even under errstate("raise").
    with np.errstate(under="ignore"):
        np.exp(z, out=z)
    total = np.sum(z, axis=axis, keepdims=True)
    # Multiply by 1/total (cheaper than dividing every entry). A slice that
    # was entirely -inf is all zeros and has total 0: it keeps factor 0.
    np.reciprocal(total, out=total, where=total > 0)
    z *= total
    return z


def causal_mask(n: int) -> np.ndarray:
    """Boolean ``(n, n)`` mask, ``True`` on and below the diagonal.

    Row ``i`` is query token ``i``; it may attend to keys ``j <= i`` (itself
    and the tokens before it), never to later tokens.
    """
    if int(n) != n or n < 0:
        raise ValueError(f"causal_mask needs a whole number n >= 0, got {n!r}")
    n = int(n)
    return np.tril(np.ones((n, n), dtype=bool))


def _check_mask(mask, scores_shape) -> np.ndarray:
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(
            f"mask must be boolean (True = may attend), got dtype {mask.dtype}"
        )
    try:
        np.broadcast_shapes(mask.shape, scores_shape)
    except ValueError:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the attention "
            f"weights of shape {tuple(scores_shape)} (rows = queries, "
            f"columns = keys)"
        ) from None
    return mask


def _check_qkv(Q, K, V):
    """Q, K, V as float arrays, or a ValueError naming what does not fit:
    at least 2 dimensions, the same d_k for Q and K, one V row per key."""
    Q = _as_float(Q, "Q")
    K = _as_float(K, "K")
    V = _as_float(V, "V")
    if Q.ndim < 2 or K.ndim < 2 or V.ndim < 2:
        raise ValueError(
            "Q, K and V need at least 2 dimensions (tokens, features); got "
            f"Q {Q.shape}, K {K.shape}, V {V.shape}"
        )
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"queries and keys must have the same size d_k: Q has shape "
            f"{Q.shape} (d_k={Q.shape[-1]}) but K has shape {K.shape} "
            f"(d_k={K.shape[-1]})"
        )
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"K and V need one row per key token: K has shape {K.shape} "
            f"({K.shape[-2]} keys) but V has shape {V.shape} "
            f"({V.shape[-2]} values)"
        )
    return Q, K, V


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None):
    """``softmax(Q K^T * scale) V``, the heart of attention.

    Parameters
    ----------
    Q : (..., n_query, d_k)   one query vector per row
    K : (..., n_key, d_k)     one key vector per row
    V : (..., n_key, d_v)     one value vector per row
    mask : bool, broadcastable to (..., n_query, n_key), optional
        ``True`` where a query may attend to a key. Disallowed scores are
        set to ``-inf`` *before* the softmax, so their weights are exactly 0
        and every row that keeps at least one key still sums to 1. A row
        with no allowed key gets all-zero weights (and a zero output).
    scale : float, optional
        Defaults to ``1 / sqrt(d_k)``.

    Returns
    -------
    output : (..., n_query, d_v)   ``weights @ V``
    weights : (..., n_query, n_key)   the attention pattern ``A``; rows are
        queries, columns are keys.
    """
    Q, K, V = _check_qkv(Q, K, V)
    try:
        batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError(
            f"leading (batch) dimensions do not broadcast: Q {Q.shape}, "
            f"K {K.shape}, V {V.shape}"
        ) from None
    d_k = Q.shape[-1]
    if scale is None:
        scale = 1.0 / np.sqrt(d_k) if d_k > 0 else 1.0
    scale = float(scale)  # a Python float keeps float32 as float32

    scores = Q @ np.swapaxes(K, -1, -2)
    scores *= scale
    if mask is not None:
        mask = _check_mask(mask, batch + (Q.shape[-2], K.shape[-2]))
        full = np.broadcast_shapes(mask.shape, scores.shape)
        if full != scores.shape:  # the mask adds batch dimensions
            scores = np.array(np.broadcast_to(scores, full))
        np.copyto(scores, -np.inf, where=~mask)  # in place: no extra n x n copy
    weights = _softmax_inplace(scores, axis=-1)
    output = weights @ V
    return output, weights


def multi_head_attention(E, W_Q, W_K, W_V, W_O, mask=None):
    """Several attention heads in parallel, then the output matrix.

    Parameters
    ----------
    E : (..., n, d_model)      token embeddings, one row per token
    W_Q, W_K : (h, d_model, d_k)  one query / key projection per head
    W_V : (h, d_model, d_v)    one value projection ("value-down") per head
    W_O : (h * d_v, d_out)     output matrix; rows ``[h*d_v:(h+1)*d_v]`` are
        head ``h``'s "value-up" block. Usually ``d_out = d_model``.
    mask : bool, broadcastable to (..., h, n, n), optional

    Returns
    -------
    dE : (..., n, d_out)   the update ``concat_h(A_h V_h) @ W_O``, which equals
        ``sum_h A_h V_h W_O[block h]``: each head proposes its own update and
        they are added.
    weights : (..., h, n, n)   every head's attention pattern.
    """
    E = _as_float(E, "E")
    W_Q = _as_float(W_Q, "W_Q")
    W_K = _as_float(W_K, "W_K")
    W_V = _as_float(W_V, "W_V")
    W_O = _as_float(W_O, "W_O")
    if E.ndim < 2:
        raise ValueError(f"E must have shape (..., n_tokens, d_model), got {E.shape}")
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W.ndim != 3:
            raise ValueError(
                f"{name} must have shape (h, d_model, d), one matrix per head; "
                f"got {W.shape}"
            )
    d_model = E.shape[-1]
    h = W_Q.shape[0]
    if W_Q.shape[1] != d_model or W_K.shape[1] != d_model or W_V.shape[1] != d_model:
        raise ValueError(
            f"E has d_model={d_model} (shape {E.shape}) but the projections "
            f"expect W_Q {W_Q.shape}, W_K {W_K.shape}, W_V {W_V.shape} "
            "(middle axis = d_model)"
        )
    if W_K.shape != W_Q.shape:
        raise ValueError(f"W_Q {W_Q.shape} and W_K {W_K.shape} must match")
    if W_V.shape[0] != h:
        raise ValueError(
            f"W_V {W_V.shape} must have one matrix per head (h={h} from W_Q)"
        )
    d_v = W_V.shape[2]
    if W_O.ndim != 2 or W_O.shape[0] != h * d_v:
        raise ValueError(
            f"W_O must have shape (h * d_v, d_out) = ({h * d_v}, d_out) for "
            f"h={h}, d_v={d_v}; got {W_O.shape}"
        )
    X = E[..., None, :, :]  # (..., 1, n, d_model) broadcasts against heads
    Q = X @ W_Q  # (..., h, n, d_k)
    K = X @ W_K
    V = X @ W_V  # (..., h, n, d_v)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    # merge heads: (..., h, n, d_v) -> (..., n, h, d_v) -> (..., n, h*d_v)
    merged = np.swapaxes(heads, -3, -2)
    merged = merged.reshape(merged.shape[:-2] + (h * d_v,))
    return merged @ W_O, weights


def cross_attention(X_query, X_source, W_Q, W_K, W_V, mask=None):
    """Attention between two sequences.

    Queries come from one sequence (for example the translation being
    written), keys and values from the other (the source sentence).

    Parameters
    ----------
    X_query : (..., n_query, d_query)
    X_source : (..., n_source, d_source)
    W_Q : (d_query, d_k);  W_K : (d_source, d_k);  W_V : (d_source, d_v)
    mask : bool, broadcastable to (..., n_query, n_source), optional
        Usually ``None``: the whole source is visible.

    Returns
    -------
    output : (..., n_query, d_v)   one update per *query* token
    weights : (..., n_query, n_source)   not square in general
    """
    X_query = _as_float(X_query, "X_query")
    X_source = _as_float(X_source, "X_source")
    W_Q = _as_float(W_Q, "W_Q")
    W_K = _as_float(W_K, "W_K")
    W_V = _as_float(W_V, "W_V")
    if X_query.ndim < 2 or X_source.ndim < 2:
        raise ValueError(
            "X_query and X_source need shape (..., n_tokens, d); got "
            f"{X_query.shape} and {X_source.shape}"
        )
    if W_Q.ndim != 2 or X_query.shape[-1] != W_Q.shape[0]:
        raise ValueError(
            f"X_query {X_query.shape} @ W_Q {W_Q.shape}: W_Q must have shape "
            f"({X_query.shape[-1]}, d_k)"
        )
    for name, W in (("W_K", W_K), ("W_V", W_V)):
        if W.ndim != 2 or X_source.shape[-1] != W.shape[0]:
            raise ValueError(
                f"X_source {X_source.shape} @ {name} {W.shape}: {name} must "
                f"have shape ({X_source.shape[-1]}, d)"
            )
    return scaled_dot_product_attention(
        X_query @ W_Q, X_source @ W_K, X_source @ W_V, mask=mask
    )


def attention_parameters(d_model, d_k, n_heads, n_layers) -> dict:
    """Parameter counts of the attention part of a transformer (lesson 07):
    one ``d_model x d_k`` matrix each for the query, key, value-down and
    value-up maps, per head, per block, and in all ``n_layers`` blocks."""
    d_model, d_k, n_heads, n_layers = (int(d_model), int(d_k), int(n_heads),
                                       int(n_layers))
    per_matrix = d_model * d_k
    per_head = 4 * per_matrix  # W_Q, W_K, value-down, value-up
    per_block = per_head * n_heads
    return {"query": per_matrix, "key": per_matrix, "value_down": per_matrix,
            "value_up": per_matrix, "square_value": d_model * d_model,
            "per_head": per_head, "per_block": per_block,
            "total": per_block * n_layers}


def softmax_backward(s, g):
    """Gradient through a row-wise softmax (lesson 09).

    ``s = softmax(x)`` along the last axis and ``g = dL/ds``; returns
    ``dL/dx = s * (g - sum_j g_j s_j)`` (the Jacobian ``diag(s) - s s^T``
    applied to ``g`` without building it). Masked entries (``s == 0``) get
    gradient 0.
    """
    return s * (g - np.sum(g * s, axis=-1, keepdims=True))


# ---------------------------------------------------------------------------
# Lesson 12: attention at scale
# ---------------------------------------------------------------------------


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
