"""Lesson 08: the checker of cross-attention."""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import (
    scaled_dot_product_attention,
    softmax,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _call,
    _unpack_pair,
    _require_shape,
    _checker,
)
from helpers.checks._weights import _diagnose_weights


def _cross_data(seed, n_q, n_s, d_q, d_s, d_k=2, d_v=3):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n_q, d_q)),
        rng.standard_normal((n_s, d_s)),
        rng.standard_normal((d_q, d_k)),
        rng.standard_normal((d_s, d_k)),
        rng.standard_normal((d_s, d_v)),
    )


@_checker("cross-attention")
def check_cross_attention(fn, name):
    """Check ``fn(X_query, X_source, W_Q, W_K, W_V) -> (output, weights)``."""
    cases = [
        ("4 query and 4 source tokens", _cross_data(_SEED, 4, 4, 4, 4)),
        ("3 query and 5 source tokens", _cross_data(_SEED + 1, 3, 5, 4, 4)),
        (
            "3 query tokens (d=4), 5 source tokens (d=6)",
            _cross_data(_SEED + 2, 3, 5, 4, 6),
        ),
    ]
    for label, arrays in cases:
        Xq, Xs, W_Q, W_K, W_V = arrays
        n_q, n_s = Xq.shape[0], Xs.shape[0]
        Q, K, V = Xq @ W_Q, Xs @ W_K, Xs @ W_V
        expected_out, expected_w = scaled_dot_product_attention(Q, K, V)
        result, _ = _call(fn, name, ("X_query", "X_source", "W_Q", "W_K", "W_V"),
                          *arrays)
        got_out, got_w = _unpack_pair(result, name, "output", "weights")
        if got_w.shape != expected_w.shape:
            hint = "That is (n_query, n_source): one row per query token."
            if got_w.shape == (n_s, n_q):
                hint += (
                    " Yours is (n_source, n_query): the roles are swapped (or you "
                    "computed K Q^T). Queries come from X_query @ W_Q; keys and "
                    "values from X_source."
                )
            elif got_w.shape in ((n_q, n_q), (n_s, n_s)):
                hint += (
                    " Yours is square: queries and keys come from the same "
                    "sequence. Keys come from X_source @ W_K."
                )
            _require_shape(got_w, expected_w.shape, f"For {label}, weights", hint)
        if not _close(got_w, expected_w):
            extra = {}
            if n_q == n_s and Xq.shape[1] == Xs.shape[1]:
                extra["swapped"] = scaled_dot_product_attention(
                    Xs @ W_Q, Xq @ W_K, Xq @ W_V
                )[1]
                extra["swapped_message"] = (
                    "The roles are swapped: your queries come from X_source and "
                    "your keys from X_query. Queries: X_query @ W_Q; keys and "
                    "values: X_source @ W_K, X_source @ W_V."
                )
            if Xq.shape[1] == Xs.shape[1]:
                self_w = softmax((Xq @ W_Q) @ (Xq @ W_K).T / math.sqrt(W_Q.shape[1]))
                if self_w.shape == expected_w.shape:
                    extra["self"] = self_w
                    extra["self_message"] = (
                        "Your keys come from X_query: that is self-attention. "
                        "Keys and values come from the other sequence, X_source."
                    )
            if n_q <= n_s:
                extra["masked"] = scaled_dot_product_attention(
                    Q, K, V, mask=np.tril(np.ones((n_q, n_s), dtype=bool))
                )[1]
                extra["masked_message"] = (
                    "You applied a causal mask. Cross-attention usually has no "
                    "mask: every query may look at the whole source."
                )
            _diagnose_weights(got_w, Q, K, None, expected_w, label, extra)
        if got_out.shape != expected_out.shape:
            _require_shape(
                got_out,
                expected_out.shape,
                f"For {label}, output",
                "That is (n_query, d_v): one update per query token.",
            )
        if not _close(got_out, expected_out):
            if (
                Xq.shape == Xs.shape
                and W_V.shape[0] == Xq.shape[1]
                and _close(got_out, expected_w @ (Xq @ W_V))
            ):
                raise _Fail(
                    "Your weights are right, but the values come from X_query. "
                    "Values come from the source: V = X_source @ W_V."
                )
            raise _Fail(
                f"For {label} your weights are right but the output is not "
                "weights @ (X_source @ W_V)."
            )
    return (
        f"{name} matches the reference on {len(cases)} cases, including "
        "sequences of different lengths and widths."
    )
