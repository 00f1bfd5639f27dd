"""Lesson 01: the checker of cosine similarity."""

from __future__ import annotations

import math

import numpy as np

from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _call,
    _as_array,
    _checker,
)


@_checker("the cosine similarity")
def check_cosine(fn, name):
    """Check ``fn(a, b) -> float``, the cosine similarity of two vectors."""
    cases = [
        (np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])),
        (np.array([1.0, 0.0]), np.array([0.0, 2.0])),  # orthogonal: 0
        (np.array([2.0, -1.0, 0.5]), np.array([-4.0, 2.0, -1.0])),  # opposite: -1
        (np.array([3.0, 4.0]), np.array([3.0, 4.0])),  # the same: 1
        (
            np.random.default_rng(_SEED).standard_normal(8) * 5,
            np.random.default_rng(_SEED + 1).standard_normal(8) * 0.1,
        ),
    ]
    for a, b in cases:
        result, _ = _call(fn, name, ("a", "b"), a, b)
        got = _as_array(result, f"What {name} returns")
        dot = float(a @ b)
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        expected = dot / (na * nb)
        if got.shape == a.shape:
            raise _Fail(
                f"{name} returned a vector of shape {got.shape}, not one number. "
                "Multiplying a * b works element by element; add the products up "
                "(np.dot(a, b) or a @ b) before dividing."
            )
        if got.size != 1:
            raise _Fail(
                f"{name} should return one number, but returned an array of "
                f"shape {got.shape}."
            )
        value = float(got.reshape(()))
        if math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-9):
            continue
        where = f"For a = {_fmt(a)} and b = {_fmt(b)} you returned {value:.4g}"
        where += f", expected {expected:.4g}"
        if math.isclose(value, dot, rel_tol=1e-6, abs_tol=1e-9):
            raise _Fail(
                f"{where}: that is the plain dot product. Divide it by the two "
                "lengths, np.linalg.norm(a) * np.linalg.norm(b)."
            )
        if math.isclose(value, dot / (na**2 * nb**2), rel_tol=1e-6, abs_tol=1e-9):
            raise _Fail(
                f"{where}: you divided by the squared lengths. The length is the "
                "square root of a @ a (np.linalg.norm does it for you)."
            )
        if math.isclose(value, dot / na, rel_tol=1e-6, abs_tol=1e-9) or math.isclose(
            value, dot / nb, rel_tol=1e-6, abs_tol=1e-9
        ):
            raise _Fail(
                f"{where}: you divided by only one of the two lengths; divide by both."
            )
        raise _Fail(f"{where}. Cosine = (a . b) / (|a| |b|).")
    return (
        f"{name} gives 1 for the same direction, -1 for opposite, 0 for "
        f"orthogonal, and matches the reference on {len(cases)} cases."
    )
