"""Attention with a fixed-size memory (lesson 14), in plain numpy.

Re-exported by :mod:`helpers.attention` (import them from there); like
``core`` and ``scale``, it checks its inputs with ``helpers.attention.inputs``.

* :func:`linear_attention`: softmax's ``exp(q . k)`` replaced by
  ``phi(q) . phi(k)`` (Katharopoulos et al. 2020, "Transformers are RNNs"),
  with ``phi = elu + 1`` unless another feature map is given;
* :func:`linear_attention_recurrent`: the causal case one token at a time,
  through a state ``S`` of ``d_phi x d_v`` numbers whatever the length;
* :func:`delta_rule`: a state that reads what it holds for a key and writes
  only the difference (Schlag et al. 2021; DeltaNet), with an optional
  decay ``alpha`` (Gated DeltaNet, Yang, Kautz and Hatamizadeh 2025).

Same conventions as :mod:`helpers.attention`: row vectors, rows are
queries, leading batch/head dimensions broadcast (no loop over heads). The
two recurrent functions loop over **tokens**: that loop is the point, it is
what a model does when it generates one token at a time.
"""

from __future__ import annotations

import numpy as np

from helpers.attention.inputs import _as_float

__all__ = ["elu_plus_one", "linear_attention", "linear_attention_recurrent",
           "delta_rule", "state_bytes"]


def _qkv(Q, K, V):
    Q, K, V = _as_float(Q, "Q"), _as_float(K, "K"), _as_float(V, "V")
    if min(Q.ndim, K.ndim, V.ndim) < 2:
        raise ValueError(f"Q, K and V need shape (..., n, d): got {Q.shape}, "
                         f"{K.shape}, {V.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"queries and keys need the same width: Q {Q.shape}, "
                         f"K {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"one value per key: K {K.shape}, V {V.shape}")
    return Q, K, V


def elu_plus_one(x) -> np.ndarray:
    """The feature map of Katharopoulos et al.: ``elu(x) + 1``, that is
    ``x + 1`` for ``x > 0`` and ``exp(x)`` otherwise; every feature >= 0
    (> 0 in exact arithmetic; ``exp`` underflows to 0.0 below about -745)."""
    x = _as_float(x, "x")
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))


def _features(X, feature_map, name):
    phi = elu_plus_one if feature_map is None else feature_map
    return _as_float(phi(X), f"feature_map({name})")


def linear_attention(Q, K, V, causal: bool = False, feature_map=None,
                     normalize: bool = True) -> np.ndarray:
    """Kernelised attention: ``phi(Q) phi(K)^T``, entries above the
    diagonal zeroed when ``causal``, each row divided by its sum when
    ``normalize``, times ``V``. No score is exponentiated.

    Without the causal mask it uses associativity,
    ``(phi(Q) phi(K)^T) V = phi(Q) (phi(K)^T V)``: the ``(d_phi, d_v)``
    summary is made once and no ``(n, n)`` grid is built, so the cost grows
    like ``n d^2``. The causal form here is the parallel one, with the grid;
    :func:`linear_attention_recurrent` is the same output without it.

    Q : (..., n_q, d_k);  K : (..., n, d_k);  V : (..., n, d_v);
    ``feature_map``: any callable on arrays (``None`` = elu + 1);
    returns (..., n_q, d_v).
    """
    Q, K, V = _qkv(Q, K, V)
    fQ, fK = _features(Q, feature_map, "Q"), _features(K, feature_map, "K")
    if not causal:
        S = np.swapaxes(fK, -1, -2) @ V                    # (..., d_phi, d_v)
        out = fQ @ S
        if normalize:
            out = out / (fQ @ fK.sum(axis=-2)[..., None])  # (..., n_q, 1)
        return out
    n_q, n = Q.shape[-2], K.shape[-2]
    if n_q != n:
        raise ValueError(f"the causal mask needs as many queries as keys: "
                         f"Q {Q.shape}, K {K.shape}")
    A = fQ @ np.swapaxes(fK, -1, -2)                       # (..., n, n)
    A = np.where(np.tri(n, dtype=bool), A, 0.0).astype(A.dtype, copy=False)
    if normalize:
        A = A / A.sum(axis=-1, keepdims=True)
    return A @ V


def linear_attention_recurrent(Q, K, V, feature_map=None, normalize: bool = True):
    """Causal linear attention as an RNN: one token at a time,

    ``S_t = S_{t-1} + phi(k_t)^T v_t``, ``z_t = z_{t-1} + phi(k_t)``,
    ``o_t = phi(q_t) S_t / (phi(q_t) . z_t)`` (no division without
    ``normalize``).

    Returns ``(output, S)``: the same output as ``linear_attention(Q, K, V,
    causal=True, ...)``, and the final state ``S`` of shape
    ``(..., d_phi, d_v)``, whose size does not depend on n.
    """
    Q, K, V = _qkv(Q, K, V)
    if Q.shape[-2] != K.shape[-2]:
        raise ValueError(f"one query per key: Q {Q.shape}, K {K.shape}")
    fQ, fK = _features(Q, feature_map, "Q"), _features(K, feature_map, "K")
    batch = np.broadcast_shapes(fQ.shape[:-2], fK.shape[:-2], V.shape[:-2])
    dtype = np.result_type(fQ, fK, V)
    n, d_phi, d_v = V.shape[-2], fK.shape[-1], V.shape[-1]
    S = np.zeros(batch + (d_phi, d_v), dtype=dtype)
    z = np.zeros(batch + (d_phi,), dtype=dtype)
    out = np.zeros(batch + (n, d_v), dtype=dtype)
    for t in range(n):
        k, v, q = fK[..., t, :], V[..., t, :], fQ[..., t, :]
        S = S + k[..., :, None] * v[..., None, :]          # write first, then read
        z = z + k
        o = (q[..., None, :] @ S)[..., 0, :]
        if normalize:
            o = o / np.sum(q * z, axis=-1, keepdims=True)
        out[..., t, :] = o
    return out, S


def delta_rule(Q, K, V, beta, alpha=None):
    """The delta rule (DeltaNet), gated when ``alpha`` is given:

    ``S_0 = 0``, ``S_t = alpha_t (S_{t-1} - beta_t k_t^T (k_t S_{t-1}))
    + beta_t k_t^T v_t``, ``o_t = q_t S_t``.

    ``k_t S_{t-1}`` is what the state holds for key ``k_t``; the update
    removes (a share ``beta_t`` of) it and writes ``beta_t v_t`` instead.
    Keys are used as given (the lesson normalises them); no feature map, no
    normaliser. ``beta`` and ``alpha``: shape ``(n,)`` (or ``(..., n)``,
    broadcast with the heads); ``alpha=None`` means 1, plain DeltaNet.

    Returns ``(output, S)``: output (..., n, d_v) and the final state
    (..., d_k, d_v).
    """
    Q, K, V = _qkv(Q, K, V)
    n = K.shape[-2]
    if Q.shape[-2] != n:
        raise ValueError(f"one query per key: Q {Q.shape}, K {K.shape}")
    beta = _as_float(beta, "beta")
    gate = None if alpha is None else _as_float(alpha, "alpha")
    for name, g in (("beta", beta), ("alpha", gate)):
        if g is not None and (g.ndim == 0 or g.shape[-1] != n):
            raise ValueError(f"{name} needs one number per token, shape ({n},): "
                             f"got {g.shape}")
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2],
                                beta.shape[:-1],
                                () if gate is None else gate.shape[:-1])
    dtype = np.result_type(Q, K, V, beta, 1.0 if gate is None else gate)
    d_k, d_v = K.shape[-1], V.shape[-1]
    S = np.zeros(batch + (d_k, d_v), dtype=dtype)
    out = np.zeros(batch + (n, d_v), dtype=dtype)
    for t in range(n):
        k, v, q = K[..., t, :], V[..., t, :], Q[..., t, :]
        b = beta[..., t, None, None]
        old = (k[..., None, :] @ S)[..., 0, :]             # what S holds for k
        S = S - b * (k[..., :, None] * old[..., None, :])  # erase it ...
        if gate is not None:
            S = gate[..., t, None, None] * S               # ... forget a share ...
        S = S + b * (k[..., :, None] * v[..., None, :])    # ... and write the new value
        out[..., t, :] = (q[..., None, :] @ S)[..., 0, :]
    return out, S


def state_bytes(n_layers: int, n_heads: int, d_k: int, d_v: int,
                bytes_per_value: int = 2) -> int:
    """Bytes of the fixed state of ``n_layers`` layers of ``n_heads`` heads,
    each a ``d_k x d_v`` matrix; the same at every context length."""
    return int(n_layers) * int(n_heads) * int(d_k) * int(d_v) * int(bytes_per_value)
