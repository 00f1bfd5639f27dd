"""Lesson 03's checkers (helpers/checks/lesson03.py), check_scores,
check_one_score and check_chemistry_head. Each passes correct functions (for the
warm-up and the stretch, the reference solutions of
tools/solutions/lesson03.py), and each classic mistake, a deliberately wrong
function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.world import lexicon
from helpers.attention import softmax
from tools.solutions import lesson03

from .conftest import assert_diagnosis, assert_success


# --- check_scores --------------------------------------------------------------


def test_scores_correct(capsys):
    assert_success(
        checks.check_scores, lambda E, W_Q, W_K: (E @ W_Q) @ (E @ W_K).T, capsys
    )


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (lambda E, W_Q, W_K: (E @ W_K) @ (E @ W_Q).T, ["transpose", "K Q^T"]),
        (
            lambda E, W_Q, W_K: (E @ W_Q).T @ (E @ W_K),
            ["shape (4, 4)", "(3, 3)", "Q^T K"],
        ),
        (lambda E, W_Q, W_K: (E @ W_Q) * (E @ W_K), ["shape", "element by element"]),
        (
            lambda E, W_Q, W_K: (E @ W_Q) @ (E @ W_K).T / np.sqrt(W_Q.shape[1]),
            ["sqrt(d_k)", "raw scores"],
        ),
        (lambda E, W_Q, W_K: E @ E.T, ["projections are missing"]),
        (lambda E, W_Q, W_K: softmax((E @ W_Q) @ (E @ W_K).T), ["softmax"]),
    ],
)
def test_scores_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_scores, wrong, capsys, *needles)


# --- check_one_score and check_chemistry_head ----------------------------------


def test_one_score(capsys):
    assert_success(checks.check_one_score, lesson03.one_score, capsys)
    assert_success(checks.check_one_score, lambda Q, K, i, j: (Q @ K.T)[i, j], capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda Q, K, i, j: Q[j] @ K[i], "swapped the roles"),
    (lambda Q, K, i, j: Q[i] @ K[j] / np.sqrt(Q.shape[1]), "sqrt(d_k)"),
    (lambda Q, K, i, j: Q[i] @ Q[j], "used Q twice"),
    (lambda Q, K, i, j: K[i] @ K[j], "used K twice"),
    (lambda Q, K, i, j: Q[i] * K[j], "add them up"),
])
def test_one_score_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_one_score, wrong, capsys, needle)


def head(query=(), keys=(), d_q=1, d_k=1, rows=None):
    """A head whose W_Q/W_K read the named feature rows (column 0)."""
    F = list(lexicon.FEATURES)
    rows = rows or lexicon.D_MODEL

    def fn():
        W_Q, W_K = np.zeros((rows, d_q)), np.zeros((rows, d_k))
        for name, value in query:
            W_Q[F.index(name), 0] = value
        for name, value in keys:
            W_K[F.index(name), 0] = value
        return W_Q, W_K

    return fn


def test_chemistry_head(capsys):
    assert_success(checks.check_chemistry_head, lesson03.chemistry_head, capsys)
    wide = head([("ambiguous", 8.0)], [("chemistry", 1.0), ("ambiguous", -1.0)],
                d_q=4, d_k=4)
    assert_success(checks.check_chemistry_head, wide, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (head([("ambiguous", 8.0)], [("chemistry", 1.0)]),
     ["attends to itself", "weighed", "'ambiguous' flag"]),
    (head([("ambiguous", 8.0)], [("animal", 1.0)]),
     ["animal word 'cat'", "reads mostly the 'animal' row"]),
    (head([("ambiguous", 8.0)], [("chemistry", 1.0), ("animal", 2.0)]),
     ["animal word 'cat'"]),
    (head([("ambiguous", 8.0)], [("ambiguous", 1.0)]),
     ["attends to itself", "reads mostly the 'ambiguous' row"]),
    (head([], [("chemistry", 1.0)]), ["same weight"]),
    (head([("ambiguous", 8.0)], [("chemistry", 1.0)], d_q=2, d_k=3),
     ["d_k mismatch", "length 2", "length 3"]),
    (head([("ambiguous", 8.0)], [("chemistry", 1.0)], rows=len(lexicon.FEATURES)),
     ["position columns", "44 rows"]),
    (lambda: np.zeros((lexicon.D_MODEL, 1)), ["two matrices"]),
    (head([("ambiguous", np.inf)], [("chemistry", 1.0)]), ["nan or inf"]),
])
def test_chemistry_head_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_chemistry_head, wrong, capsys, *needles)


@pytest.mark.parametrize(("wrong", "needles"), [
    # issue 22 point 13: the argmax is right, but mole's row is flat
    (head([("ambiguous", 0.01)], [("chemistry", 1.0), ("ambiguous", -1.0)]),
     ["almost uniform", "query is too weak", "at least 2 times"]),
    (head([("ambiguous", 8.0)], [("chemistry", 0.1), ("ambiguous", -0.1)]),
     ["almost uniform", "too weak"]),
    (head([("ambiguous", 1.0)], [("chemistry", 1.0), ("ambiguous", -1.0)]),
     ["only leans", "query is too weak", "at least 2 times"]),
])
def test_chemistry_head_refuses_a_weak_query(wrong, needles, capsys):
    """Only the largest weight right is no answer; the solution still passes."""
    assert_diagnosis(checks.check_chemistry_head, wrong, capsys, *needles)
    assert_success(checks.check_chemistry_head, lesson03.chemistry_head, capsys)
