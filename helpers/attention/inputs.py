"""The input checks every function of ``helpers.attention`` shares, in one
place: arrays become floats (or a ``ValueError`` that names the argument),
masks are boolean and fit the weights, ``Q``, ``K`` and ``V`` fit each other.
Internal to the package (``core``, ``scale`` and ``fixed_state`` use them)."""

from __future__ import annotations

import numpy as np


def _as_float(x, name: str) -> np.ndarray:
    """Return ``x`` as a floating array (integers become float64); a clear
    ``ValueError`` naming ``name`` for booleans, strings, objects or complex
    numbers. Every function of the package checks its inputs with it."""
    arr = np.asarray(x)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"{name} must be real, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    return arr


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
