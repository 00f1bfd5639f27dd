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
        result, _ = _call(fn, name, ("s", "g"), s, g)
        got = _as_array(result, f"What {name} returns")
        _require_shape(got, x.shape, "dL/dx", "It has the same shape as the scores x.")
        if _close(got, expected):
            continue
        axis0 = matmul = None
        if x.ndim == 2:
            axis0 = s * (g - np.sum(g * s, axis=0, keepdims=True))
            if x.shape[0] == x.shape[1]:
                matmul = s * (g - g @ s.T)
        cands = {
            "missing": s * g,
            "diag": s * (1 - s) * g,
            "axis0": axis0,
            "matmul": matmul,
            "sign": s * (np.sum(g * s, axis=-1, keepdims=True) - g),
        }
        messages = {
            "missing": "You kept only the first term, s * g. The Jacobian of "
            "softmax is diag(s) - s s^T, so there is a second term: "
            "dL/dx = s * (g - sum(g * s, axis=-1, keepdims=True)).",
            "diag": "You used only the diagonal s(1 - s) of the Jacobian; the "
            "off-diagonal entries -s_i s_j matter too: "
            "dL/dx = s * (g - sum(g * s, axis=-1, keepdims=True)).",
            "axis0": "The sum in the second term runs over the wrong axis (a "
            "transposed Jacobian-vector product): each row is its own softmax, "
            "so sum g * s over the last axis (axis=-1, keepdims=True).",
            "sign": "Your result has the wrong sign: dL/dx = s * (g - sum(g * s)).",
            "matmul": "The second term mixes rows: g @ s.T (a transposed "
            "product) pairs row i of g with every row of s. Each row needs its "
            "own dot product: (g * s).sum(axis=-1, keepdims=True).",
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
