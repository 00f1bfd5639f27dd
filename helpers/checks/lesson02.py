"""Lesson 02: the checker of softmax."""

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
    _checker,
    _nonfinite,
    _overflow,
)


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
