"""Lesson 08's checkers (helpers/checks/lesson08.py), check_cross_attention,
check_cross_shape and check_padded_cross. Each passes correct functions (for the
warm-up and the stretch, the reference solutions of
tools/solutions/lesson08.py), and each classic mistake, a deliberately wrong
function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import causal_mask, cross_attention, softmax
from tools.solutions import lesson08

from .conftest import (
    assert_diagnosis,
    assert_success,
    attention_axis0,
    attention_kq,
    attention_no_scale,
    my_attention,
)


# --- check_cross_attention -----------------------------------------------------


def my_cross(X_query, X_source, W_Q, W_K, W_V):
    return my_attention(X_query @ W_Q, X_source @ W_K, X_source @ W_V)


def test_cross_attention_correct(capsys):
    assert_success(checks.check_cross_attention, my_cross, capsys)
    assert_success(checks.check_cross_attention, cross_attention, capsys)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(Xs @ W_Q, Xq @ W_K, Xq @ W_V),
            ["roles are swapped", "X_query @ W_Q"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(Xq @ W_Q, Xq @ W_K, Xs @ W_V),
            ["keys come from X_query"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(Xq @ W_Q, Xs @ W_K, Xq @ W_V),
            ["values come from X_query"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: attention_kq(Xq @ W_Q, Xs @ W_K, Xs @ W_V),
            ["K Q^T"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: attention_no_scale(
                Xq @ W_Q, Xs @ W_K, Xs @ W_V
            ),
            ["sqrt(d_k)"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(
                Xq @ W_Q, Xs @ W_K, Xs @ W_V, causal_mask(len(Xq))
            ),
            ["causal mask", "no mask"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: attention_axis0(Xq @ W_Q, Xs @ W_K, Xs @ W_V),
            ["wrong axis"],
        ),
    ],
)
def test_cross_attention_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_cross_attention, wrong, capsys, *needles)


def test_cross_attention_swapped_roles_named_on_non_square(capsys):
    # Only the non-square cases: the swap shows up as a transposed shape.
    def wrong(Xq, Xs, W_Q, W_K, W_V):
        if len(Xq) == len(Xs):
            return my_cross(Xq, Xs, W_Q, W_K, W_V)
        return my_attention(Xs @ W_Q, Xq @ W_K, Xq @ W_V)

    assert_diagnosis(
        checks.check_cross_attention,
        wrong,
        capsys,
        "(3, 5)",
        "(5, 3)",
        "roles are swapped",
    )


# --- check_cross_shape and check_padded_cross ----------------------------------


def test_cross_shape_solution(capsys):
    assert_success(checks.check_cross_shape, lesson08.cross_shape, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda n_q, n_s: (n_s, n_q), ["swapped"]),
    (lambda n_q, n_s: (n_q, n_q), ["square"]),
    (lambda n_q, n_s: n_q * n_s, ["pair of whole numbers"]),
])
def test_cross_shape_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_cross_shape, wrong, capsys, *needles)


@pytest.mark.parametrize("wrong", [
    lambda n_q, n_s: (n_q + 0.7, n_s + 0.2),
    lambda n_q, n_s: (str(n_q), str(n_s)),
])
def test_cross_shape_refuses_non_numbers(wrong, capsys):
    """A shape is a pair of whole numbers; int() used to accept (4.7, 6.2)."""
    assert_diagnosis(checks.check_cross_shape, wrong, capsys, "pair of whole numbers")
    assert_success(checks.check_cross_shape, lesson08.cross_shape, capsys)


def _padded(rows=False, invert=False, ignore=False, after=False):
    def attention(X_query, X_source, W_Q, W_K, W_V, source_is_real):
        Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
        scores = Q @ K.T / np.sqrt(K.shape[-1])
        real = ~source_is_real if invert else source_is_real
        if rows:
            keep = np.zeros(len(Q), bool)
            keep[: min(len(Q), len(real))] = real[: len(Q)]
            mask = np.broadcast_to(keep[:, None], scores.shape)
        else:
            mask = np.broadcast_to(real[None, :], scores.shape)
        if not (ignore or after):
            scores = np.where(mask, scores, -np.inf)
        weights = softmax(scores)
        if after:
            weights = weights * mask
        return weights @ V, weights
    return attention


def test_padded_cross_solution(capsys):
    assert_success(checks.check_padded_cross, lesson08.my_padded_cross_attention,
                   capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (_padded(rows=True), ["rows (queries) instead of columns"]),
    (_padded(invert=True), ["inverted"]),
    (_padded(ignore=True), ["still reach the padding"]),
    (_padded(after=True), ["after softmax"]),
])
def test_padded_cross_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_padded_cross, wrong, capsys, *needles)


# --- check_word_heatmap (the picture world's tests: tests/test_images.py) -----


def test_word_heatmap_solution(capsys):
    assert_success(checks.check_word_heatmap, lesson08.word_heatmap, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda A, i, r, c: A[i].reshape(r, c, order="F"), ["column by column"]),
    (lambda A, i, r, c: A[i].reshape(c, r), ["rows and columns are swapped"]),
    (lambda A, i, r, c: A[:, i].reshape(r, c), ["a column A[:, i]"]),
    (lambda A, i, r, c: softmax(A[i]).reshape(r, c), ["softmax again"]),
])
def test_word_heatmap_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_word_heatmap, wrong, capsys, *needles)
