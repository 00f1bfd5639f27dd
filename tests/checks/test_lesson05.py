"""Lesson 05's checkers (helpers/checks/lesson05.py), check_update,
check_delta_row and check_chemistry_values. Each passes correct functions (for
the warm-up and the stretch, the reference solutions of
tools/solutions/lesson05.py), and each classic mistake, a deliberately wrong
function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from tools.solutions import lesson05

from .conftest import assert_diagnosis, assert_success


# --- check_update --------------------------------------------------------------


def test_update_correct(capsys):
    assert_success(checks.check_update, lambda E, A, V, W_up: E + A @ V @ W_up, capsys)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (lambda E, A, V, W_up: A @ V @ W_up, ["without adding E"]),
        (lambda E, A, V, W_up: E + A.T @ V @ W_up, ["A transposed"]),
        (lambda E, A, V, W_up: E + V @ A @ W_up, ["wrong order", "A @ V"]),
        (lambda E, A, V, W_up: E + V @ W_up, ["weighted mix"]),
        (lambda E, A, V, W_up: E + (A * V) @ W_up, ["element by element"]),
        (lambda E, A, V, W_up: A @ V, ["d_v wide", "@ W_up"]),
        (lambda E, A, V, W_up: E, ["unchanged"]),
        (lambda E, A, V, W_up: E + A @ V, ["A @ V is", "@ W_up"]),
    ],
)
def test_update_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_update, wrong, capsys, *needles)


def test_update_in_place(capsys):
    def wrong(E, A, V, W_up):
        E += A @ V @ W_up
        return E

    assert_diagnosis(checks.check_update, wrong, capsys, "in place")


# --- check_delta_row and check_chemistry_values --------------------------------


def test_delta_row_solution(capsys):
    assert_success(checks.check_delta_row, lesson05.my_delta_row, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda a, V, W_up: a @ V, ["small value space", "@ W_up"]),
    (lambda a, V, W_up: (a[:, None] * V) @ W_up, ["did not add them up"]),
    (lambda a, V, W_up: V.sum(axis=0) @ W_up, ["without their weights"]),
    (lambda a, V, W_up: V.mean(axis=0) @ W_up, ["averaged"]),
])
def test_delta_row_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_delta_row, wrong, capsys, *needles)


def _chem(scale_up=2.0, read="chemistry", write="chemistry", extra=None):
    def values(features, d_model):
        W_V = np.zeros((d_model, 1))
        W_V[features.index(read), 0] = 1.0
        W_up = np.zeros((1, d_model))
        W_up[0, features.index(write)] = scale_up
        if extra:
            W_up[0, features.index(extra)] = 3.0
        return W_V, W_up
    return values


def test_chemistry_values_solution(capsys):
    assert_success(checks.check_chemistry_values, lesson05.my_chemistry_values, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (_chem(scale_up=-2.0), ["subtracts", "sign"]),
    (_chem(read="noun"), ["no chemistry", "whatever"]),
    (_chem(write="home"), ["does not touch", "'home'"]),
    (_chem(extra="body"), ["ends nearest 'skin'", "'body'"]),
    (lambda f, d: (_chem()(f, d)[0], _chem()(f, d)[1].T), ["transposed"]),
    (lambda f, d: (_chem()(f, d)[0].T, _chem()(f, d)[1]), ["(d_model, d_v)"]),
    (lambda f, d: np.zeros((d, 1)), ["returned one thing"]),
])
def test_chemistry_values_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_chemistry_values, wrong, capsys, *needles)


@pytest.mark.parametrize("scale_up", [0.2, 0.04])
def test_chemistry_values_refuses_a_barely_nearer_sense(scale_up, capsys):
    """A value side that only just tips 'mole' towards chemistry (the argmax
    right, the senses almost tied) is no answer; the solution still passes."""
    assert_diagnosis(checks.check_chemistry_values, _chem(scale_up=scale_up), capsys,
                     "only just nearer chemistry than 'animal'", "too weak")
    assert_success(checks.check_chemistry_values, lesson05.my_chemistry_values, capsys)
