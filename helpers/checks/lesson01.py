"""Lesson 01: the checkers of vector length, cosine similarity and nearest rows."""

from __future__ import annotations

import math

import numpy as np

from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _close,
    _call,
    _as_array,
    _checker,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_cosine", "check_length", "check_nearest"]


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


@_checker("the length of a vector")
def check_length(fn, name):
    """Check ``fn(a) -> float``, the length sqrt(a . a) of a 1-D vector."""
    cases = [
        np.array([1.0, -2.0, 2.0]),  # 3; a negative entry
        np.array([3.0, 4.0]),  # 5, the classic
        np.array([0.5, 0.5, 0.5, 0.5]),  # 1
        np.random.default_rng(_SEED).standard_normal(6),
    ]
    for a in cases:
        result, _ = _call(fn, name, ("a",), a)
        got = _as_array(result, f"What {name} returns")
        expected = math.sqrt(float(a @ a))
        if got.shape == a.shape:
            raise _Fail(
                f"For a = {_fmt(a)} {name} returned a vector of shape {got.shape}, "
                "not one number: square the entries, ADD them up, then take the "
                "square root (np.sqrt(np.sum(a**2)) or np.sqrt(a @ a))."
            )
        if got.size != 1:
            raise _Fail(
                f"{name} should return one number, but returned shape {got.shape}."
            )
        value = float(got.reshape(()))
        if math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-9):
            continue
        where = f"For a = {_fmt(a)} you returned {value:.4g}, expected {expected:.4g}"
        named = {
            float(a @ a): "that is the squared length a . a: take its square root",
            float(a.sum()): "that is the plain sum of the entries: square them first "
            "(a negative entry must not cancel a positive one)",
            float(np.abs(a).sum()): "that is the sum of the absolute values: square "
            "the entries, add them, then take the square root",
        }
        for wrong, why in named.items():
            if math.isclose(value, wrong, rel_tol=1e-6, abs_tol=1e-9):
                raise _Fail(f"{where}: {why}.")
        raise _Fail(f"{where}. The length is sqrt(a . a).")
    return (
        f"{name} gives 5 for [3, 4] and matches np.linalg.norm on "
        f"{len(cases)} cases."
    )


def _cosines(table, v):
    norms = np.linalg.norm(table, axis=1) * np.linalg.norm(v)
    return np.divide(table @ v, norms, out=np.zeros(len(table)), where=norms > 0)


@_checker("the nearest rows by cosine")
def check_nearest(fn, name):
    """Check ``fn(table, v, k) -> indices``: the k rows of ``table`` (m, d)
    with the highest cosine to ``v`` (d,), best first."""
    # Hand-made so that ranking by cosine, by dot product and by a division
    # by the column lengths give three different answers.
    table = np.array([
        [0.5, 0.5, 0.0, 0.0],  # short, exactly v's direction: cosine 1
        [10.0, 0.0, 0.0, 0.0],  # long: best dot product, cosine 0.71
        [0.0, 0.0, 1.0, 0.0],
        [1.0, 0.8, 0.1, 0.0],
        [-1.0, -1.0, 0.0, 0.0],
        [0.0, 2.0, 0.0, 3.0],
        [0.3, 0.2, 0.0, 0.1],
        [0.0, 1.5, 0.0, 0.0],
        [2.0, 2.2, 1.0, 0.0],
        [0.0, -40.0, 0.0, 0.0],  # makes column 1 long
    ])
    v = np.array([1.0, 1.0, 0.0, 0.0])
    cases = [(table, v, 3), (table, np.array([0.0, 1.0, 0.0, 1.0]), 4),
             (table[:6], -v, 2)]
    for T, q, k in cases:
        sims = _cosines(T, q)
        expected = np.argsort(-sims, kind="stable")[:k]
        result, _ = _call(fn, name, ("table", "v", "k"), T, q, k)
        got = _as_array(result, f"What {name} returns")
        if got.ndim != 1:
            raise _Fail(
                f"{name} should return a 1-D array of k = {k} row numbers, but "
                f"returned shape {got.shape}."
            )
        if got.shape == (len(T),) and k != len(T):
            if _close(got, sims):
                raise _Fail(
                    "You returned the cosines themselves; return the row numbers "
                    f"of the {k} largest: np.argsort(-cosines)[:k]."
                )
            raise _Fail(
                f"You returned {len(T)} entries, one per row; return only the "
                f"best k = {k} (slice with [:k])."
            )
        if got.shape != (k,):
            raise _Fail(f"For k = {k} you returned {got.size} row numbers.")
        if np.array_equal(got, expected):
            continue
        dot_order = np.argsort(-(T @ q), kind="stable")[:k]
        col = np.linalg.norm(T, axis=0)
        with np.errstate(all="ignore"):
            col_order = np.argsort(-((T / col) @ q), kind="stable")[:k]
        if np.array_equal(got, np.argsort(sims, kind="stable")[:k]):
            raise _Fail(
                f"You returned the {k} LEAST similar rows (worst first): sort by "
                "-cosine, or reverse the order np.argsort gives."
            )
        if np.array_equal(got, expected[::-1]):
            raise _Fail("You have the right rows but worst first; return best first.")
        if np.array_equal(got, dot_order):
            raise _Fail(
                "You ranked by the dot product, so long rows win on their length "
                "alone. Divide each row's dot product by that row's "
                "length (np.linalg.norm(table, axis=1)) and by |v|."
            )
        if np.array_equal(got, col_order):
            raise _Fail(
                "You divided by the lengths of the COLUMNS (axis=0). Each row is a "
                "word: use np.linalg.norm(table, axis=1)."
            )
        raise _Fail(
            f"For k = {k} you returned rows {got.tolist()}, expected "
            f"{expected.tolist()} (cosines {_fmt(sims[expected])})."
        )
    return (
        f"{name} ranks rows by cosine, not by length, best first, on "
        f"{len(cases)} cases."
    )
