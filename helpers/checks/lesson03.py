"""Lesson 03: the checker of the score grid."""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _close,
    _first_match,
    _call,
    _as_array,
    _require_shape,
    _checker,
    _nonfinite,
)


def _qk_data(seed, n=4, d_model=5, d_k=3):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, d_model))
    W_Q = rng.standard_normal((d_model, d_k))
    W_K = rng.standard_normal((d_model, d_k))
    return E, W_Q, W_K


@_checker("the score grid Q K^T")
def check_scores(fn, name):
    """Check ``fn(E, W_Q, W_K) -> Q K^T`` (raw scores, rows = queries)."""
    cases = [_qk_data(_SEED), _qk_data(_SEED + 1, n=6, d_model=4, d_k=2)]
    for E, W_Q, W_K in cases:
        d_k = W_Q.shape[1]
        Q, K = E @ W_Q, E @ W_K
        expected = Q @ K.T
        result, _ = _call(fn, name, ("E", "W_Q", "W_K"), E, W_Q, W_K)
        got = _as_array(result, f"What {name} returns")
        if got.shape != expected.shape:
            hint = "One score per (query, key) pair: n_tokens x n_tokens."
            if got.shape == (d_k, d_k):
                hint += " It looks like you computed Q^T K; use Q @ K.T."
            elif got.shape == Q.shape:
                hint += (
                    " It looks like you multiplied element by element (Q * K); "
                    "use the matrix product Q @ K.T."
                )
            _require_shape(got, expected.shape, "The score grid", hint)
        if _close(got, expected):
            continue
        if _nonfinite(got):
            raise _Fail(f"Your scores contain NaN or inf: {_fmt(got)}.")
        found = _first_match(
            got,
            {
                "transposed": expected.T,
                "scaled": expected / math.sqrt(d_k),
                "softmax": softmax(expected),
                "softmax_scaled": softmax(expected / math.sqrt(d_k)),
                "no_weights": E @ E.T,
                "only_q": Q @ Q.T,
                "only_k": K @ K.T,
            },
        )
        messages = {
            "transposed": "Your grid is the transpose of the expected one: you "
            "computed K Q^T (or swapped W_Q and W_K). Rows are queries: "
            "S = (E @ W_Q) @ (E @ W_K).T.",
            "scaled": "You divided by sqrt(d_k). This exercise wants the raw "
            "scores Q K^T; the scaling comes in lesson 04.",
            "softmax": "You applied softmax: this exercise wants the raw scores "
            "Q K^T, before any softmax.",
            "softmax_scaled": "You returned the attention pattern (scaled and "
            "softmaxed). This exercise wants the raw scores Q K^T.",
            "no_weights": "You computed E E^T: the projections are missing. Make "
            "Q = E @ W_Q and K = E @ W_K first.",
            "only_q": "You used Q for both sides; the keys are K = E @ W_K.",
            "only_k": "You used K for both sides; the queries are Q = E @ W_Q.",
        }
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"Your scores differ from Q K^T (largest difference "
            f"{np.max(np.abs(got - expected)):.3g}). Expected {_fmt(expected)}, "
            f"got {_fmt(got)}."
        )
    return f"{name} computes Q K^T with rows = queries on {len(cases)} cases."
