"""The layer pieces the models share, numpy only: LayerNorm, once, for
lesson 10's encoder (``pretrained``), lesson 11's GPT (``gpt``, and lesson 12's
``helpers.analysis.sinks``) and lesson 13's trainer (``gpt_training``, which
also needs the cached forward and the backward pass)."""

from __future__ import annotations

import numpy as np

__all__ = ["layer_norm", "layer_norm_backward", "layer_norm_cached"]


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray,
               eps: float = 1e-5) -> np.ndarray:
    """LayerNorm over the last axis, ``(..., d_model)`` in and out:
    ``(x - mean) / sqrt(var + eps) * gamma + beta``. ``eps`` is GPT-2's
    unless given (BERT-style encoders use 1e-12)."""
    mu = x.mean(axis=-1, keepdims=True)                        # (..., 1)
    var = np.square(x - mu).mean(axis=-1, keepdims=True)       # (..., 1)
    return (x - mu) / np.sqrt(var + np.float32(eps)) * gamma + beta  # (..., d_model)


def layer_norm_cached(x, g, b, eps: float = 1e-5):
    """:func:`layer_norm` for training: returns the output ``(..., d_model)``
    and the cache ``(xn, rstd)`` that :func:`layer_norm_backward` needs."""
    xc = x - x.mean(axis=-1, keepdims=True)                    # (..., d_model)
    rstd = 1.0 / np.sqrt(np.square(xc).mean(axis=-1, keepdims=True) + eps)  # (..., 1)
    xn = xc * rstd                                             # (..., d_model)
    return xn * g + b, (xn, rstd)


def layer_norm_backward(da, g, cache):
    """The gradients of :func:`layer_norm_cached` for the output gradient
    ``da`` ``(batch, n, d_model)``: ``(d input, d gain, d bias)``."""
    xn, rstd = cache
    dxn = da * g                                               # (batch, n, d_model)
    dx = rstd * (dxn - dxn.mean(axis=-1, keepdims=True)
                 - xn * (dxn * xn).mean(axis=-1, keepdims=True))  # (batch, n, d_model)
    return dx, (da * xn).sum(axis=(0, 1)), da.sum(axis=(0, 1))
