"""Lesson 09: the checker of the softmax backward pass."""

from __future__ import annotations


import numpy as np

from helpers.attention import (
    softmax,
    softmax_backward,
)
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
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_softmax_backward"]


def _finite_difference(x, g, eps=1e-6):
    """Numerical dL/dx for L = sum(g * softmax(x)), one entry at a time."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (np.sum(g * softmax(up)) - np.sum(g * softmax(down))) / (2 * eps)
    return grad


_MIXES_ROWS = ("The second term mixes rows: g @ s.T pairs row i of g with every "
               "row of s (and fails when the grid is not square). Each row needs "
               "its own sum of products: (g * s).sum(axis=-1, keepdims=True).")


def _mixes_rows(fn, name):
    """Whether ``fn`` gives ``s * (g - g @ s.T)`` on a square grid."""
    rng = np.random.default_rng(_SEED + 1)
    s, g = softmax(rng.standard_normal((4, 4))), rng.standard_normal((4, 4))
    try:
        result, _ = _call(fn, name, ("s", "g"), s, g)
        got = _as_array(result, name)
    except Exception:  # _Fail, or the stub's _Stub: no verdict from here
        return False
    return got.shape == s.shape and _close(got, s * (g - g @ s.T))


@_checker("the softmax backward pass")
def check_softmax_backward(fn, name):
    """Check ``fn(s, g) -> dL/dx`` with ``s = softmax(x)`` row-wise, ``g = dL/ds``."""
    rng = np.random.default_rng(_SEED)
    cases = [
        ("one row of 4", rng.standard_normal(4), rng.standard_normal(4)),
        ("a 3 x 5 grid", rng.standard_normal((3, 5)), rng.standard_normal((3, 5))),
        ("a 4 x 4 grid", rng.standard_normal((4, 4)) * 2, rng.standard_normal((4, 4))),
    ]
    for label, x, g in cases:
        s = softmax(x)
        expected = softmax_backward(s, g)
        numeric = _finite_difference(x, g)
        try:
            result, _ = _call(fn, name, ("s", "g"), s, g)
        except _Fail:
            # s * (g - g @ s.T) runs on a square grid only: name it from there
            # rather than with the crash's hint
            if x.ndim == 2 and x.shape[0] != x.shape[1] and _mixes_rows(fn, name):
                raise _Fail(_MIXES_ROWS) from None
            raise
        got = _as_array(result, f"What {name} returns")
        _require_shape(got, x.shape, "dL/dx", "It has the same shape as the scores x.")
        if _close(got, expected):
            continue
        row_dot = np.sum(g * s, axis=-1, keepdims=True)
        axis0 = matmul = everything = None
        if x.ndim == 2:
            axis0 = s * (g - np.sum(g * s, axis=0, keepdims=True))
            everything = s * (g - np.sum(g * s))
            if x.shape[0] == x.shape[1]:
                matmul = s * (g - g @ s.T)
        cands = {
            "missing": s * g,
            "diag": s * (1 - s) * g,
            "axis0": axis0,
            "everything": everything,
            "matmul": matmul,
            "sign": s * (row_dot - g),
            "outer_s": g - row_dot,
            "g_only": s * (g - np.sum(g, axis=-1, keepdims=True)),
            "mean": s * (g - np.mean(g * s, axis=-1, keepdims=True)),
            "second_only": -s * row_dot,
        }
        rule = ("dL/dx = s * (g - sum(g * s, axis=-1, keepdims=True)), as in the "
                "hint")
        messages = {
            "missing": "You kept only the first term, s * g. Changing one score x_i "
            "changes every weight of its row, not only s_i (they must still sum to "
            f"1), so there is a second term: {rule}.",
            "diag": "You used only how s_i changes with its own score, s_i(1 - s_i). "
            "The other weights of the row change too (by -s_i s_j), and their "
            f"share must be added: {rule}.",
            "axis0": "The sum in the second term runs over the wrong axis: down each "
            "column (axis=0) instead of along each row. Each row is its own "
            "softmax, so sum g * s over the last axis (axis=-1, keepdims=True).",
            "everything": "The sum in the second term has no axis: np.sum(g * s) "
            "adds up the whole grid into one number. Each row is its own softmax "
            "and needs its own sum: np.sum(g * s, axis=-1, keepdims=True).",
            "sign": "Your result has the wrong sign: dL/dx = s * (g - sum(g * s)).",
            "matmul": _MIXES_ROWS,
            "outer_s": "The factor s in front is missing: you returned g - sum(g * "
            f"s) for each row. Multiply by s: {rule}.",
            "g_only": "The sum in the second term is over g alone; it is over g * "
            f"s, the products of each weight and its gradient: {rule}.",
            "mean": "You took the mean of g * s along the row; the formula needs "
            "the sum (np.sum, not np.mean: they differ by the row's length).",
            "second_only": f"The first term s * g is missing: {rule}.",
        }
        found = _first_match(got, cands)
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"For {label} your gradient differs from the finite-difference one by "
            f"up to {np.max(np.abs(got - numeric)):.3g}: expected {_fmt(numeric)}, "
            f"got {_fmt(got)}."
        )
    return f"{name} matches the finite-difference gradient on {len(cases)} cases."
