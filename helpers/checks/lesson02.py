"""Lesson 02: the checkers of the weighted sum, softmax and the context vectors."""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _close,
    _call,
    _as_array,
    _require_shape,
    _checker,
    _nonfinite,
    _overflow,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_softmax", "check_mix", "check_context_vectors"]


@_checker("softmax")
def check_softmax(fn, name):
    """Check ``fn(x)``: softmax over the last axis, stable for large scores."""
    rng = np.random.default_rng(_SEED)
    cases = [
        ("a row of scores [1, 2, 3]", np.array([1.0, 2.0, 3.0])),
        ("a 3 x 4 grid", rng.standard_normal((3, 4)) * 2),
        ("a batch of shape (2, 3, 4)", rng.standard_normal((2, 3, 4))),
        ("scores with -inf", np.array([[0.0, -np.inf, math.log(3)], [1.0, 1.0, 1.0]])),
        ("large scores", np.array([[1e4, 0.0, -1e4], [1000.0, 1001.0, 1002.0]])),
    ]
    for label, x in cases:
        expected = softmax(x)
        result, seen = _call(fn, name, ("x",), x)
        got = _as_array(result, f"What {name} returns")
        if got.shape != x.shape:
            hint = "softmax returns one weight per score: the same shape as its input."
            if got.shape == x.shape[:-1] or got.ndim == 0:
                hint += " It looks like you returned the sums; divide by them instead."
            raise _Fail(
                f"For {label} (shape {x.shape}) you returned shape {got.shape}. {hint}"
            )
        if _nonfinite(got) or (_overflow(seen) and not _close(got, expected)):
            if label == "large scores":
                if (
                    x.ndim == 2
                    and np.isfinite(got[0]).all()
                    and not np.isfinite(got[1]).all()
                ):
                    raise _Fail(
                        "On large scores the second row became NaN: you subtracted "
                        "the maximum of the whole array. Subtract each row's own "
                        "maximum: np.max(x, axis=-1, keepdims=True)."
                    )
                raise _Fail(
                    f"On large scores {_fmt(x[0])} you got {_fmt(got[0])}: np.exp "
                    "overflows (exp(10000) is inf, and inf / inf is NaN). Subtract "
                    "each row's maximum before exp: x - np.max(x, axis=-1, "
                    "keepdims=True); it changes nothing mathematically."
                )
            raise _Fail(f"For {label} your output contains NaN or inf: {_fmt(got)}.")
        if _close(got, expected):
            continue
        sums = got.sum(axis=-1)
        if x.ndim >= 2 and _close(got, softmax(x, axis=0)):
            raise _Fail(
                f"Softmax over the wrong axis: for {label} your columns sum to 1, "
                f"but each row should (your row sums: {_fmt(sums)}). Use "
                "axis=-1 (the last axis) with keepdims=True."
            )
        if x.ndim == 3 and _close(got, softmax(x, axis=1)):
            raise _Fail(
                f"Softmax over axis 1 for {label}: use axis=-1 (the last axis), so "
                "it works for any number of dimensions."
            )
        e = np.exp(x - x.max())
        if _close(got, e / e.sum()):
            raise _Fail(
                f"For {label} the whole array sums to 1, but each row should. "
                "Sum over the last axis only: np.sum(e, axis=-1, keepdims=True)."
            )
        if _close(got / got.sum(axis=-1, keepdims=True), expected):
            raise _Fail(
                f"For {label} your rows are in the right proportions but sum to "
                f"{_fmt(sums)}, not 1: divide by the row sums."
            )
        with np.errstate(all="ignore"):
            if _close(got, x / x.sum(axis=-1, keepdims=True)):
                raise _Fail(
                    f"For {label} you divided the scores by their sum without "
                    "taking exp first: softmax is exp(x) / sum(exp(x))."
                )
        raise _Fail(
            f"For {label} {_fmt(x)} you returned {_fmt(got)}, expected "
            f"{_fmt(expected)}."
        )
    return (
        f"{name} matches the reference on {len(cases)} cases (a row, a grid, a "
        "batch, -inf entries and scores of 1e4)."
    )


@_checker("the weighted sum of the rows")
def check_mix(fn, name):
    """Check ``fn(weights, rows) -> (d,)``: sum_j weights[j] * rows[j]."""
    rng = np.random.default_rng(_SEED)
    cases = [
        (np.array([0.4, 0.5, 0.1]), np.array([[1.0, 0.0, 2.0, 0.0],
                                              [0.0, 1.0, 0.0, 1.0],
                                              [3.0, 3.0, 0.0, 0.0]])),
        (softmax(rng.standard_normal(5)), rng.standard_normal((5, 2))),
    ]
    for w, rows in cases:
        expected = w @ rows
        result, _ = _call(fn, name, ("weights", "rows"), w, rows)
        got = _as_array(result, f"What {name} returns")
        n, d = rows.shape
        if got.shape == rows.shape:
            raise _Fail(
                f"You returned shape {got.shape}: each row times its weight, but "
                "not added up. Sum over the rows (axis=0), or write weights @ rows."
            )
        if got.shape == (n,) and n != d:
            raise _Fail(
                f"You returned one number per ROW (shape {got.shape}): you added "
                "up each row's features. The sum runs over the rows (axis=0): the "
                f"result is one vector of length d = {d}, like a row."
            )
        _require_shape(got, (d,), "The weighted sum", "It is one vector, like a row.")
        if _close(got, expected):
            continue
        if _close(got, rows.mean(axis=0)):
            raise _Fail(
                "You returned the plain average of the rows: multiply each row by "
                "its weight first (weights @ rows)."
            )
        if _close(got, rows.sum(axis=0)):
            raise _Fail("You added the rows without their weights: weights @ rows.")
        raise _Fail(
            f"For weights {_fmt(w)} expected {_fmt(expected)}, got {_fmt(got)}."
        )
    return f"{name} mixes the rows with their weights on {len(cases)} cases."


@_checker("the context vectors A E")
def check_context_vectors(fn, name):
    """Check ``fn(E) -> softmax(E E^T) E`` (softmax along each row)."""
    rng = np.random.default_rng(_SEED)
    cases = [
        ("3 tokens, 4 features", rng.standard_normal((3, 4))),
        ("5 tokens, 2 features", rng.standard_normal((5, 2))),
        ("large entries (scores near 1000)", rng.standard_normal((4, 3)) * 20),
    ]
    for label, E in cases:
        S = E @ E.T
        A = softmax(S, axis=-1)
        expected = A @ E
        result, seen = _call(fn, name, ("E",), E)
        got = _as_array(result, f"What {name} returns")
        n, d = E.shape
        if got.shape == (n, n) and n != d:
            raise _Fail(
                f"For {label} you returned shape {got.shape}, an n x n grid: that "
                "is the weights A (or the scores). Return the new vectors A @ E, "
                f"shape {E.shape}."
            )
        if got.shape == (d, d) and n != d:
            raise _Fail(
                f"For {label} you returned shape {got.shape}: you multiplied E^T E "
                "(features x features). The scores compare tokens: E @ E.T."
            )
        _require_shape(got, E.shape, f"For {label}, the output",
                       "One new vector per token: A @ E.")
        if _close(got, expected):
            continue
        if _nonfinite(got) or (_overflow(seen) and not _close(got, expected)):
            raise _Fail(
                f"For {label} your output has NaN or inf: np.exp of scores near "
                "1000 overflows. Use a softmax that subtracts each row's maximum "
                "first (softmax, or your my_softmax)."
            )
        found = {
            "axis0": softmax(S, axis=0) @ E,
            "no_softmax": S @ E,
            "scaled": softmax(S / np.sqrt(d), axis=-1) @ E,
        }
        if _close(got, found["axis0"]):
            raise _Fail(
                "Softmax over the wrong axis: your weights' COLUMNS sum to 1. Each "
                "row (one query) should: softmax(S, axis=-1), then A @ E. (Mixing "
                "with A.T gives the same wrong result, since S is symmetric.)"
            )
        if _close(got, found["no_softmax"]):
            raise _Fail(
                "You mixed with the raw scores S = E E^T: turn them into weights "
                "with softmax (each row) first."
            )
        if _close(got, found["scaled"]):
            raise _Fail(
                "You divided the scores by sqrt(d): this lesson's recipe has no "
                "scaling (lesson 04 adds it). Use softmax(E @ E.T)."
            )
        raise _Fail(
            f"For {label} expected {_fmt(expected)}, got {_fmt(got)}: "
            "A = softmax(E @ E.T) row by row, then A @ E."
        )
    return (
        f"{name} computes softmax(E E^T) E, row by row, on {len(cases)} cases "
        "(including scores near 1000)."
    )
