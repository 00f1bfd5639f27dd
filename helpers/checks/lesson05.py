"""Lesson 05: the checkers of the update E + (A V) W_up."""

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


@_checker("the update E + (A V) W_up")
def check_update(fn, name):
    """Check ``fn(E, A, V, W_up) -> E + (A @ V) @ W_up``.

    Shapes: ``E`` (n, d_model), ``A`` (n, n), ``V = E W_V`` (n, d_v),
    ``W_up`` (d_v, d_model). The first case has n = d_v, so a product in the
    wrong order or element by element still runs and can be named.
    """
    rng = np.random.default_rng(_SEED)
    cases = []
    for n, d, d_v in ((3, 5, 3), (4, 6, 2), (3, 4, 2)):
        E = rng.standard_normal((n, d))
        A = softmax(rng.standard_normal((n, n)) * 2)
        V = rng.standard_normal((n, d_v))
        W_up = rng.standard_normal((d_v, d))
        cases.append((E, A, V, W_up))
    for E, A, V, W_up in cases:
        n, d = E.shape
        d_v = V.shape[1]
        expected = E + A @ V @ W_up
        try:
            result, _ = _call(fn, name, ("E", "A", "V", "W_up"), E, A, V, W_up)
        except _Fail as fail:
            if "could not be broadcast" not in str(fail):
                raise
            raise _Fail(
                f"{fail.args[0].split('. ')[0]}. E is {E.shape} but A @ V is "
                f"{(n, d_v)}: bring the weighted values back up to embedding "
                "space with @ W_up before adding them to E."
            ) from None
        got = _as_array(result, f"What {name} returns")
        if got.shape == (n, d_v) and d_v != d:
            raise _Fail(
                f"Your result has shape {got.shape}: it is d_v wide, like V. "
                "The weighted values A @ V still live in the small value space; "
                "bring them back up to embedding space with @ W_up before adding E."
            )
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
                "no_e": A @ V @ W_up,
                "at": E + A.T @ V @ W_up,
                "no_a": E + V @ W_up,
                "only_e": E,
                "order": E + V @ A @ W_up if n == d_v else None,
                "elementwise": E + (A * V) @ W_up if n == d_v else None,
            },
        )
        messages = {
            "no_e": "You returned dE = (A @ V) @ W_up without adding E: the update "
            "is added to the embeddings, E' = E + (A @ V) @ W_up.",
            "at": "You used A transposed: row i of A holds query i's weights, so "
            "the weighted values are A @ V (not A.T @ V).",
            "no_a": "You added every token's own value (V @ W_up): each token should "
            "receive the weighted mix A @ V of the values.",
            "only_e": "You returned E unchanged: add (A @ V) @ W_up.",
            "order": "The product is in the wrong order: V @ A instead of A @ V. "
            "Row i of A @ V mixes the value rows with query i's weights.",
            "elementwise": "You multiplied A and V element by element (A * V); "
            "the weighted sum is the matrix product A @ V.",
        }
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"Your E' differs from E + (A @ V) @ W_up (largest difference "
            f"{np.max(np.abs(got - expected)):.3g})."
        )
    return f"{name} computes E + (A V) W_up on {len(cases)} cases."
