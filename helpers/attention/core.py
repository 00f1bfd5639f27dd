"""The core attention math (lessons 02-09), in plain numpy: no plotting, no widgets.

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

from helpers.attention.inputs import _as_float, _check_mask, _check_qkv

__all__ = [
    "attention_parameters",
    "causal_mask",
    "cross_attention",
    "multi_head_attention",
    "scaled_dot_product_attention",
    "softmax",
    "softmax_backward",
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
