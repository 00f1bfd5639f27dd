"""Lesson 04: the checker of scaled dot-product attention."""

from __future__ import annotations


import numpy as np

from helpers.attention import (
    causal_mask,
    scaled_dot_product_attention,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _close,
    _call,
    _unpack_pair,
    _require_shape,
    _checker,
    _nonfinite,
)
from helpers.checks._weights import _diagnose_weights


@_checker("scaled dot-product attention")
def check_attention(fn, name):
    """Check ``fn(Q, K, V, mask=None) -> (output, weights)``."""
    rng = np.random.default_rng(_SEED)
    n, d_k, d_v = 4, 4, 3
    Q, K, V = rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k)), None
    V = rng.standard_normal((n, d_v))
    Qn = rng.standard_normal((3, d_k))  # 3 queries
    Kn = rng.standard_normal((5, d_k))  # 5 keys
    Vn = rng.standard_normal((5, 2))
    dead = np.array(
        [[True, False, True, False], [False] * 4, [True] * 4, [False, True, True, True]]
    )
    cases = [
        ("4 tokens, no mask", Q, K, V, None),
        ("3 queries and 5 keys", Qn, Kn, Vn, None),
        ("large scores", Q * 60, K * 60, V, None),
        ("a causal mask", Q, K, V, causal_mask(n)),
        ("a mask with a fully masked row", Q, K, V, dead),
    ]
    for label, q, k, v, mask in cases:
        expected_out, expected_w = scaled_dot_product_attention(q, k, v, mask=mask)
        result, _ = _call(fn, name, "QKV", q, k, v, mask=mask)
        got_out, got_w = _unpack_pair(result, name, "output", "weights")
        if (
            got_out.shape == expected_w.shape
            and got_w.shape == expected_out.shape
            and _close(got_out, expected_w)
        ):
            raise _Fail(
                "You returned (weights, output); return them in the other order: "
                "`return output, weights`."
            )
        if got_w.shape != expected_w.shape:
            hint = "That is (n_queries, n_keys): one row per query, one column per key."
            if got_w.shape == expected_w.shape[::-1]:
                hint += " Yours is transposed: use Q @ K.T, not K @ Q.T."
            _require_shape(got_w, expected_w.shape, f"For {label}, weights", hint)
        if not _close(got_w, expected_w):
            _diagnose_weights(got_w, q, k, mask, expected_w, label)
        if got_out.shape != expected_out.shape:
            _require_shape(
                got_out,
                expected_out.shape,
                f"For {label}, output",
                "That is (n_queries, d_v): output = weights @ V.",
            )
        if not _close(got_out, expected_out):
            if _nonfinite(got_out):
                raise _Fail(
                    f"For {label} your weights are right but the output has NaN: "
                    "output = weights @ V."
                )
            if got_w.shape[0] == got_w.shape[1] and _close(got_out, expected_w.T @ v):
                raise _Fail(
                    "Your weights are right but the output uses them transposed: "
                    "output = weights @ V (row i mixes the values with query i's "
                    "weights)."
                )
            raise _Fail(
                f"For {label} your weights are right but the output is not "
                f"weights @ V: expected {_fmt(expected_out)}, got {_fmt(got_out)}."
            )
    return (
        f"{name} matches the reference on {len(cases)} cases (square and 3 x 5, "
        "large scores, a causal mask, a fully masked row)."
    )
