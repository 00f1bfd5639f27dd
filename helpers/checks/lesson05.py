"""Lesson 05: the checker of the update E + A V."""

from __future__ import annotations


import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _first_match,
    _call,
    _as_array,
    _require_shape,
    _checker,
)


@_checker("the update E + A V")
def check_update(fn, name):
    """Check ``fn(E, A, V) -> E + A @ V``."""
    rng = np.random.default_rng(_SEED)
    cases = []
    for n, d in ((3, 3), (3, 5), (4, 2)):
        E = rng.standard_normal((n, d))
        A = softmax(rng.standard_normal((n, n)) * 2)
        V = rng.standard_normal((n, d))
        cases.append((E, A, V))
    for E, A, V in cases:
        n, d = E.shape
        expected = E + A @ V
        result, _ = _call(fn, name, ("E", "A", "V"), E, A, V)
        got = _as_array(result, f"What {name} returns")
        _require_shape(
            got,
            expected.shape,
            "E'",
            "It is the same shape as E: one updated row per token.",
        )
        if _close(got, expected):
            continue
        found = _first_match(
            got,
            {
                "no_e": A @ V,
                "at": E + A.T @ V,
                "no_a": E + V,
                "only_e": E,
                "replace": A @ V + V,
                "order": E + V @ A if n == d else None,
                "elementwise": E + A * V if n == d else None,
            },
        )
        messages = {
            "no_e": "You returned A V (that is dE) without adding E: the update "
            "is added to the embeddings, E' = E + A @ V.",
            "at": "You used A transposed: row i of A holds query i's weights, so "
            "dE = A @ V (not A.T @ V).",
            "no_a": "You added V itself: each token should receive the weighted "
            "mix A @ V of the values.",
            "only_e": "You returned E unchanged: add A @ V.",
            "replace": "You added the weighted values to V instead of E: "
            "E' = E + A @ V.",
            "order": "The product is in the wrong order: V @ A instead of A @ V. "
            "Row i of A @ V mixes the value rows with query i's weights.",
            "elementwise": "You multiplied A and V element by element (A * V); "
            "the weighted sum is the matrix product A @ V.",
        }
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"Your E' differs from E + A @ V (largest difference "
            f"{np.max(np.abs(got - expected)):.3g})."
        )
    return f"{name} computes E + A V on {len(cases)} cases."
