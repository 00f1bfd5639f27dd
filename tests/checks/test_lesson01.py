"""Lesson 01's checkers (helpers/checks/lesson01.py), check_cosine, check_length
and check_nearest. Each passes correct functions (for the warm-up and the
stretch, the reference solutions of tools/solutions/lesson01.py), and each
classic mistake, a deliberately wrong function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from tools.solutions import lesson01

from .conftest import assert_diagnosis, assert_success


# --- check_cosine --------------------------------------------------------------


def test_cosine_correct(capsys):
    assert_success(
        checks.check_cosine,
        lambda a, b: a @ b / (np.linalg.norm(a) * np.linalg.norm(b)),
        capsys,
    )


@pytest.mark.parametrize(
    ("wrong", "needle"),
    [
        (lambda a, b: a @ b, "plain dot product"),
        (lambda a, b: a @ b / (a @ a * (b @ b)), "squared lengths"),
        (lambda a, b: a @ b / np.linalg.norm(a), "only one of the two lengths"),
        (
            lambda a, b: a * b / (np.linalg.norm(a) * np.linalg.norm(b)),
            "add the products",
        ),
    ],
)
def test_cosine_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_cosine, wrong, capsys, needle)


# --- check_length and check_nearest --------------------------------------------


def test_length(capsys):
    assert_success(checks.check_length, lesson01.length, capsys)
    assert_success(checks.check_length, np.linalg.norm, capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda a: a @ a, "square root"),
    (lambda a: a.sum(), "plain sum"),
    (lambda a: np.abs(a).sum(), "absolute values"),
    (lambda a: np.sqrt(a * a), "add them up"),
])
def test_length_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_length, wrong, capsys, needle)


def test_nearest(capsys):
    assert_success(checks.check_nearest, lesson01.nearest, capsys)


def _cos(t, v):
    return t @ v / (np.linalg.norm(t, axis=1) * np.linalg.norm(v))


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda t, v, k: np.argsort(-(t @ v))[:k], "dot product"),
    (lambda t, v, k: np.argsort(_cos(t, v))[:k], "least similar"),
    (lambda t, v, k: np.argsort(-_cos(t, v))[:k][::-1], "worst first"),
    (lambda t, v, k: np.argsort(-((t / np.linalg.norm(t, axis=0)) @ v))[:k],
     "columns"),
    (lambda t, v, k: _cos(t, v), "cosines themselves"),
    (lambda t, v, k: np.argsort(-_cos(t, v)), "only the best k"),
])
def test_nearest_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_nearest, wrong, capsys, needle)
