"""Lesson 04: the checkers of softmax with a temperature, scaled dot-product
attention and dropout on the attention weights."""

from __future__ import annotations


import numpy as np

from helpers.attention import (
    causal_mask,
    softmax,
    scaled_dot_product_attention,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _close,
    _first_match,
    _call,
    _as_array,
    _overflow,
    _unpack_pair,
    _require_shape,
    _checker,
    _nonfinite,
)
from helpers.checks._weights import _diagnose_weights

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_attention", "check_softmax_temperature", "check_attention_dropout"]


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


@_checker("softmax with a temperature")
def check_softmax_temperature(fn, name):
    """Check ``fn(x, T) -> softmax(x / T)`` along the last axis."""
    rng = np.random.default_rng(_SEED)
    cases = [
        ("scores [1, 2, 3] at T = 2", np.array([1.0, 2.0, 3.0]), 2.0),
        ("scores [1, 2, 3] at T = 0.5", np.array([1.0, 2.0, 3.0]), 0.5),
        ("a 3 x 4 grid at T = 3", rng.standard_normal((3, 4)) * 2, 3.0),
        ("scores [1, 2, 3] at T = 0.001 (almost argmax)",
         np.array([1.0, 2.0, 3.0]), 0.001),
    ]
    for label, x, T in cases:
        expected = softmax(x / T)
        result, seen = _call(fn, name, ("x", "T"), x, T)
        got = _as_array(result, f"What {name} returns")
        _require_shape(got, x.shape, f"For {label}, the weights",
                       "One weight per score, as softmax.")
        if _close(got, expected):
            continue
        if _nonfinite(got) or _overflow(seen):
            raise _Fail(
                f"For {label} you got NaN or inf: x / T reaches 3000 and np.exp "
                "overflows. Use the stable softmax (it subtracts each row's max)."
            )
        with np.errstate(all="ignore"):
            candidates = {
                "times": softmax(x * T),
                "after": softmax(x) / T,
                "none": softmax(x),
                "sqrt": softmax(x / np.sqrt(T)),
            }
        found = _first_match(got, candidates)
        messages = {
            "times": "you multiplied the scores by T. A high temperature should "
            "flatten the weights, so divide: softmax(x / T).",
            "after": "you divided the weights by T after softmax, so they no "
            "longer sum to 1. Divide the scores before softmax: softmax(x / T).",
            "none": "your weights do not depend on T: divide the scores by T "
            "before softmax.",
            "sqrt": "you divided by sqrt(T); the temperature itself divides the "
            "scores: softmax(x / T) (dividing by sqrt(d_k) IS temperature sqrt(d_k)).",
        }
        if found:
            raise _Fail(f"For {label}: {messages[found]}")
        raise _Fail(f"For {label} expected {_fmt(expected)}, got {_fmt(got)}.")
    return (
        f"{name} matches softmax(x / T) on {len(cases)} cases (T from 0.001 to 3)."
    )


def _reference_weights(Q, K):
    return softmax(Q @ K.T / np.sqrt(Q.shape[-1]))


@_checker("dropout on the attention weights")
def check_attention_dropout(fn, name):
    """Check ``fn(Q, K, V, p, seed) -> (output, weights)``: inverted dropout
    applied to the softmaxed weights with a seeded generator."""
    rng = np.random.default_rng(_SEED)
    n, d_k, d_v = 40, 4, 3
    Q, K = rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k))
    V = rng.standard_normal((n, d_v))
    A = _reference_weights(Q, K)
    args = ("Q", "K", "V", "p", "seed")

    def run(p, seed):
        result, _ = _call(fn, name, args, Q, K, V, p, seed)
        out, w = _unpack_pair(result, name, "output", "weights")
        if w.shape != A.shape and out.shape == A.shape:
            raise _Fail("You returned (weights, output); return them in the "
                        "other order: `return output, weights`.")
        _require_shape(w, A.shape, "The weights", "One row per query (n x n).")
        _require_shape(out, (n, d_v), "The output", "output = weights @ V.")
        if _nonfinite(w):
            hint = (" Did you divide by p instead of 1 - p?" if p == 0 else "")
            raise _Fail(f"With p = {p} your weights contain NaN or inf.{hint}")
        return out, w

    # p = 0: nothing may change.
    out0, w0 = run(0.0, 7)
    if (w0 == 0).all():
        raise _Fail(
            "With p = 0 you dropped every weight: you keep an entry where the "
            "random number is < p, which keeps a fraction p. Keep where "
            "rng.random(A.shape) >= p."
        )
    if not _close(w0, A):
        raise _Fail(
            "With p = 0 nothing should be dropped, but your weights differ from "
            "softmax(Q K^T / sqrt(d_k)). Check that you keep an entry when the "
            "random number is >= p (rng.random(A.shape) >= p), and that the "
            "scaling is 1 / (1 - p)."
        )
    p = 0.25
    out, w = run(p, 7)
    dropped = w == 0
    kept = ~dropped
    if not dropped.any():
        raise _Fail(f"With p = {p} you dropped nothing: set a fraction p of the "
                    "weights to zero.")
    if _close(w.sum(axis=-1), np.ones(n)) and not _close(w[kept], A[kept] / (1 - p)):
        raise _Fail(
            "Your rows still sum to 1: you dropped scores BEFORE softmax (or "
            "renormalised afterwards), so softmax hands the dropped weight to the "
            "other keys. Dropout acts on the weights after softmax: "
            "A * keep / (1 - p)."
        )
    if _close(w[kept], A[kept]):
        raise _Fail(
            "The kept weights are unchanged: rescale them by 1 / (1 - p), so each "
            "weight keeps its expected value (rows sum to 1 on average)."
        )
    if _close(w[kept], A[kept] * (1 - p)):
        raise _Fail("You multiplied the kept weights by (1 - p); divide by it: "
                    "A * keep / (1 - p).")
    if not _close(w[kept], A[kept] / (1 - p)):
        raise _Fail(
            "Each kept weight should be its softmax weight / (1 - p), and each "
            "dropped one 0; yours are something else. Drop after softmax: "
            "weights = A * keep / (1 - p)."
        )
    share = float(dropped.mean())
    if abs(share - (1 - p)) < 0.08:
        raise _Fail(
            f"You dropped {share:.0%} of the weights with p = {p}: that keeps a "
            "fraction p instead of dropping it. Keep where rng.random(...) >= p."
        )
    if abs(share - p) > 0.08:
        raise _Fail(f"With p = {p} you dropped {share:.0%} of the weights; about "
                    f"{p:.0%} should be 0.")
    if not _close(out, w @ V):
        raise _Fail("Your weights are right but the output is not weights @ V "
                    "(use the weights after dropout).")
    _, w_again = run(p, 7)
    if not np.array_equal(w_again, w):
        raise _Fail(
            "Two calls with the same seed gave different weights: the dropout is "
            "not seeded. Make the generator from the seed argument: "
            "rng = np.random.default_rng(seed)."
        )
    _, w_other = run(p, 8)
    if np.array_equal(w_other == 0, dropped):
        raise _Fail(
            "Seeds 7 and 8 dropped the same weights: your generator ignores the "
            "seed argument. Use np.random.default_rng(seed)."
        )
    return (
        f"{name} keeps p = 0 exact, drops about {p:.0%} of the weights after "
        "softmax, rescales the rest by 1 / (1 - p), and repeats with the same seed."
    )
