"""Lesson 02's checkers (helpers/checks/lesson02.py), check_softmax, check_mix
and check_context_vectors. Each passes correct functions (for the warm-up and
the stretch, the reference solutions of tools/solutions/lesson02.py), and each
classic mistake, a deliberately wrong function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import softmax
from tools.solutions import lesson02

from .conftest import assert_diagnosis, assert_success, naive_softmax, softmax_no_max


# --- check_softmax -------------------------------------------------------------


def test_softmax_correct(capsys):
    assert_success(checks.check_softmax, naive_softmax, capsys)
    assert_success(checks.check_softmax, softmax, capsys)


def softmax_axis0(x):
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def softmax_axis1(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def softmax_global_max(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_no_keepdims(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1)


def softmax_whole(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def softmax_in_place(x):
    x -= np.max(x, axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


def softmax_returns_sums(x):
    return np.exp(x).sum(axis=-1)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (softmax_axis0, ["wrong axis", "columns sum to 1", "axis=-1"]),
        (softmax_axis1, ["axis 1", "axis=-1"]),
        (softmax_no_max, ["overflow", "subtract", "maximum"]),
        (softmax_global_max, ["whole array", "each row's own maximum"]),
        (softmax_no_keepdims, ["ValueError", "keepdims=True"]),
        (softmax_whole, ["whole array sums to 1"]),
        (softmax_in_place, ["in place"]),
        (softmax_returns_sums, ["shape", "sums"]),
        (
            lambda x: np.exp(x - x.max(axis=-1, keepdims=True)),
            ["divide by the row sums"],
        ),
    ],
)
def test_softmax_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_softmax, wrong, capsys, *needles)


# --- check_mix and check_context_vectors ---------------------------------------


def test_mix(capsys):
    assert_success(checks.check_mix, lesson02.mix, capsys)
    assert_success(checks.check_mix, lambda w, r: (w[:, None] * r).sum(axis=0), capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda w, r: w[:, None] * r, "not added up"),
    (lambda w, r: (w[:, None] * r).sum(axis=1), "one number per row"),
    (lambda w, r: r.mean(axis=0), "plain average"),
    (lambda w, r: r.sum(axis=0), "without their weights"),
    (lambda w, r: r @ w, "inner sizes"),
])
def test_mix_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_mix, wrong, capsys, needle)


def naive_context(E):
    e = np.exp(E @ E.T)
    return e / e.sum(axis=-1, keepdims=True) @ E


def test_context_vectors(capsys):
    assert_success(checks.check_context_vectors, lesson02.context_vectors, capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda E: softmax(E @ E.T, axis=0) @ E, "wrong axis"),
    (lambda E: softmax(E @ E.T).T @ E, "A.T"),
    (lambda E: (E @ E.T) @ E, "raw scores"),
    (lambda E: softmax(E @ E.T / np.sqrt(E.shape[1])) @ E, "no scaling"),
    (lambda E: softmax(E @ E.T), "weights a"),
    (lambda E: softmax(E.T @ E), "e^t e"),
    (naive_context, "overflow"),
])
def test_context_vectors_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_context_vectors, wrong, capsys, needle)
