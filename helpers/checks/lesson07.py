"""Lesson 07: the checker of multi-head attention."""

from __future__ import annotations


import numpy as np

from helpers.attention import (
    causal_mask,
    scaled_dot_product_attention,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _close_nan_as_zero,
    _first_match,
    _call,
    _unpack_pair,
    _require_shape,
    _checker,
    _nonfinite,
)
from helpers.checks._weights import _diagnose_weights


def _mh_data(seed, n=5, d_model=6, h=2, d_k=3, d_v=2):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, d_model))
    W_Q = rng.standard_normal((h, d_model, d_k))
    W_K = rng.standard_normal((h, d_model, d_k))
    W_V = rng.standard_normal((h, d_model, d_v))
    W_O = rng.standard_normal((h * d_v, d_model))
    return E, W_Q, W_K, W_V, W_O


def _mh_reference(
    E, W_Q, W_K, W_V, W_O, mask=None, split_wrong=False, merge_wrong=False
):
    """Per-head reference, optionally with the classic reshape mistakes."""
    h, d_model, d_k = W_Q.shape
    d_v = W_V.shape[2]
    n = E.shape[0]
    if split_wrong:
        # fused projection (n, h*d) split by reshape without the transpose
        def split(W, d):
            fused = E @ W.transpose(1, 0, 2).reshape(d_model, h * d)
            return fused.reshape(h, n, d)

        Q, K, V = split(W_Q, d_k), split(W_K, d_k), split(W_V, d_v)
    else:
        Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    if merge_wrong:
        merged = heads.reshape(n, h * d_v)
    else:
        merged = heads.transpose(1, 0, 2).reshape(n, h * d_v)
    return merged @ W_O, weights, heads


@_checker("multi-head attention")
def check_multi_head(fn, name):
    """Check ``fn(E, W_Q, W_K, W_V, W_O, mask=None) -> (dE, weights (h, n, n))``."""
    cases = [
        ("5 tokens, 2 heads", _mh_data(_SEED), None),
        (
            "4 tokens, 3 heads, causal mask",
            _mh_data(_SEED + 1, n=4, h=3),
            causal_mask(4),
        ),
    ]
    for label, arrays, mask in cases:
        E, W_Q, W_K, W_V, W_O = arrays
        h, n, d_v, d_model = W_Q.shape[0], E.shape[0], W_V.shape[2], W_O.shape[1]
        dE, weights, heads = _mh_reference(*arrays, mask=mask)
        result, _ = _call(fn, name, ("E", "W_Q", "W_K", "W_V", "W_O"), *arrays,
                          mask=mask)
        got_dE, got_w = _unpack_pair(result, name, "dE", "weights")
        if got_w.shape != weights.shape:
            hint = "That is (h, n, n): one n x n pattern per head."
            if got_w.shape == (n, n):
                hint += " You returned a single pattern; keep every head's."
            _require_shape(got_w, weights.shape, f"For {label}, weights", hint)
        split_dE, split_w, _ = _mh_reference(*arrays, mask=mask, split_wrong=True)
        if not _close(got_w, weights):
            if _close_nan_as_zero(got_w, split_w):
                raise _Fail(
                    "Your heads got mixed up: it looks like you split a fused "
                    "(n, h*d_k) projection with .reshape(h, n, d_k). Reshape to "
                    "(n, h, d_k) first, then .transpose(1, 0, 2) to (h, n, d_k)."
                )
            if got_w.shape[0] == h and _close(got_w[::-1], weights) and h > 1:
                raise _Fail(
                    "Your heads are in the wrong order: weights[i] should be "
                    "head i's pattern (W_Q[i], W_K[i])."
                )
            _diagnose_weights(got_w, E @ W_Q, E @ W_K, mask, weights, label)
        if got_dE.shape != dE.shape:
            hint = "That is (n, d_model): the heads' outputs concatenated, times W_O."
            if got_dE.shape == (n, h * d_v):
                hint += (
                    " Yours looks like the concatenation without W_O: multiply by W_O."
                )
            elif got_dE.shape == (h, n, d_v):
                hint += (
                    " Yours is the per-head outputs: merge them with "
                    ".transpose(1, 0, 2).reshape(n, h * d_v), then @ W_O."
                )
            elif got_dE.shape == (h, n, d_model):
                hint += " Yours keeps one update per head: add them up over the heads."
            _require_shape(got_dE, dE.shape, f"For {label}, dE", hint)
        if _close(got_dE, dE):
            continue
        merged_wrong = heads.reshape(n, h * d_v) @ W_O
        blocks = [W_O[i * d_v : (i + 1) * d_v] for i in range(h)]
        found = _first_match(
            got_dE,
            {
                "merge": merged_wrong,
                "mean": dE / h,
                "concat_order": np.concatenate(list(heads[::-1]), axis=1) @ W_O,
                "plus_e": dE + E,
                "one_head": heads[0] @ blocks[0],
                "last_head": heads[-1] @ blocks[-1],
            },
        )
        messages = {
            "merge": "Your patterns are right, but the heads were merged with "
            ".reshape(n, h * d_v) straight from (h, n, d_v): that scrambles "
            "tokens and heads. Transpose first: heads.transpose(1, 0, 2)"
            ".reshape(n, h * d_v).",
            "mean": "You averaged the heads' updates; they are added: "
            "dE = sum over heads (the concatenation times W_O does that).",
            "concat_order": "The heads are concatenated in the wrong order: "
            "head 0 first, matching W_O's first block of rows.",
            "plus_e": "You returned E + dE; this function returns only the update dE.",
            "one_head": "Only head 0 contributes to your dE; add every head's update.",
            "last_head": "Only the last head contributes to your dE (a loop that "
            "overwrites instead of adding?); add every head's update.",
        }
        if found:
            raise _Fail(messages[found])
        if _nonfinite(got_dE):
            raise _Fail(f"For {label} your dE contains NaN or inf.")
        raise _Fail(
            f"For {label} your weights are right but dE differs from "
            f"concat(heads) @ W_O (largest difference "
            f"{np.max(np.abs(got_dE - dE)):.3g})."
        )
    return (
        f"{name} matches the per-head reference on {len(cases)} cases "
        "(patterns, merge order, W_O, a causal mask)."
    )
