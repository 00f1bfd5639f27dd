"""Lesson 14 (optional): attention-logit growth at a high learning rate, and
QK-norm, measured on a one-head model small enough to train in numpy.

The task: each example is ``n`` random tokens of ``d`` numbers; the last
token asks for one earlier token, the one a hidden teacher matrix ``A``
scores highest (``x_last A x_j``). The model answers with one softmax head,
``out = softmax(q K^T / sqrt(d)) X``, ``q = x_last W_Q``, ``K = X W_K`` (the
values are the tokens themselves), and is trained with Adam on the squared
error. With ``qk_norm`` the queries and keys pass an RMSNorm with learnable
gains first (as in OLMo 2 and Qwen3; Dehghani et al. 2023), so a logit is at
most ``|g_q| |g_k| / sqrt(d)`` times ``d``, whatever ``W_Q`` and ``W_K`` do.

Everything is seeded; :func:`loss_and_grads` is the forward and backward
pass (tested against finite differences), :func:`train` the loop.
"""

from __future__ import annotations

import numpy as np

from helpers.attention import softmax, softmax_backward

__all__ = ["init", "batch", "loss_and_grads", "train"]

EPS = 1e-6


def init(d: int = 8, seed: int = 0):
    """The parameters [W_Q, W_K, g_q, g_k] and the teacher A."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    W = rng.standard_normal((2, d, d)) / np.sqrt(d)
    return [W[0], W[1], np.ones(d), np.ones(d)], A


def batch(rng, A, size: int = 64, n: int = 8):
    """Tokens X (size, n, d) and the token each last one asks for (size, d)."""
    X = rng.standard_normal((size, n, A.shape[0]))
    pick = np.einsum("bd,de,bne->bn", X[:, -1], A, X).argmax(axis=1)
    return X, X[np.arange(size), pick]


def _rms(x):
    r = np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + EPS)
    return x / r, r


def _rms_back(dy, xh, r, g):
    gy = dy * g
    return (gy - xh * (gy * xh).mean(axis=-1, keepdims=True)) / r


def loss_and_grads(params, X, target, qk_norm: bool):
    """(loss, grads, logits, weights) of one batch; grads like ``params``."""
    W_Q, W_K, g_q, g_k = params
    d = X.shape[-1]
    x_last = X[:, -1]
    q, K = x_last @ W_Q, X @ W_K                           # (batch, d), (batch, n, d)
    if qk_norm:
        qh, rq = _rms(q)
        Kh, rk = _rms(K)
        qn, Kn = qh * g_q, Kh * g_k
    else:
        qn, Kn = q, K
    s = np.einsum("bd,bnd->bn", qn, Kn) / np.sqrt(d)      # (batch, n) logits
    p = softmax(s, axis=1)                                 # (batch, n) weights
    out = np.einsum("bn,bnd->bd", p, X)                    # (batch, d)
    B = len(X)
    loss = float(((out - target) ** 2).sum(axis=1).mean())
    dout = 2 * (out - target) / B
    dp = np.einsum("bd,bnd->bn", dout, X)
    ds = softmax_backward(p, dp) / np.sqrt(d)
    dqn = np.einsum("bn,bnd->bd", ds, Kn)
    dKn = ds[:, :, None] * qn[:, None, :]
    if qk_norm:
        dg_q, dg_k = (dqn * qh).sum(axis=0), (dKn * Kh).sum(axis=(0, 1))
        dq, dK = _rms_back(dqn, qh, rq, g_q), _rms_back(dKn, Kh, rk, g_k)
    else:
        dq, dK, dg_q, dg_k = dqn, dKn, np.zeros(d), np.zeros(d)
    grads = [x_last.T @ dq, np.einsum("bnd,bne->de", X, dK), dg_q, dg_k]
    return loss, grads, s, p


def train(lr: float, qk_norm: bool, steps: int = 300, d: int = 8, n: int = 8,
          seed: int = 0):
    """Adam on the task; per step the loss, the largest |logit| and the mean
    attention entropy (nats): a dict of three (steps,) arrays."""
    params, A = init(d, seed)
    rng = np.random.default_rng(seed + 1)
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    hist = {"loss": [], "max_logit": [], "entropy": []}
    for t in range(1, steps + 1):
        X, target = batch(rng, A, n=n)
        loss, grads, s, p = loss_and_grads(params, X, target, qk_norm)
        hist["loss"].append(loss)
        hist["max_logit"].append(float(np.abs(s).max()))
        hist["entropy"].append(float(-(p * np.log(p + 1e-30)).sum(axis=1).mean()))
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            params[i] = params[i] - lr * (m[i] / (1 - 0.9 ** t)) / (
                np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    return {k: np.array(x) for k, x in hist.items()}
