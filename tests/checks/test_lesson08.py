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


# --- issue 54: every plausible mistake named, every right spelling passes -------
# The first case (5 tokens, width 4, d_k 3, d_v 6) makes each size a learner
# might divide by a different number, so the checker can say which one it was.


def _scaled(divisor):
    """Cross-attention whose scores are divided by ``divisor(Xq, Xs, Q, K, V)``."""
    def attention(X_query, X_source, W_Q, W_K, W_V):
        Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
        A = softmax(Q @ K.T / divisor(X_query, X_source, Q, K, V))
        return A @ V, A
    return attention


def _cross_right_einsum(X_query, X_source, W_Q, W_K, W_V):
    Q = np.einsum("qd,dk->qk", X_query, W_Q)
    K = np.einsum("sd,dk->sk", X_source, W_K)
    V = X_source.dot(W_V)
    S = np.einsum("qk,sk->qs", Q, K) / np.sqrt(W_K.shape[1])
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)   # no max subtracted
    return np.dot(A, V), A


def _cross_right_transpose_first(X_query, X_source, W_Q, W_K, W_V):
    K_T = (X_source @ W_K).T
    S = (X_query @ W_Q) @ K_T * (1 / np.sqrt(len(K_T)))
    return my_attention_from_scores(S, X_source @ W_V)


def my_attention_from_scores(S, V):
    A = softmax(S, axis=-1)
    return A @ V, A


def test_cross_attention_right_spellings(capsys):
    for fn in (_cross_right_einsum, _cross_right_transpose_first,
               _scaled(lambda Xq, Xs, Q, K, V: K.shape[-1] ** 0.5)):
        assert_success(checks.check_cross_attention, fn, capsys)


def _in_place_cross(X_query, X_source, W_Q, W_K, W_V):
    X_query -= X_query.mean()
    return my_cross(X_query, X_source, W_Q, W_K, W_V)


@pytest.mark.parametrize(("wrong", "needles"), [
    (_scaled(lambda Xq, Xs, Q, K, V: Q.shape[-1]), ["d_k itself"]),
    (_scaled(lambda Xq, Xs, Q, K, V: np.sqrt(Xq.shape[1])), ["X_query's width",
                                                            "model width"]),
    (_scaled(lambda Xq, Xs, Q, K, V: Xq.shape[1]), ["X_query's width"]),
    (_scaled(lambda Xq, Xs, Q, K, V: np.sqrt(V.shape[1])), ["values' width"]),
    (_scaled(lambda Xq, Xs, Q, K, V: np.sqrt(len(K))), ["number of tokens"]),
    (_scaled(lambda Xq, Xs, Q, K, V: np.sqrt(2)), ["typed in by hand"]),
    (_scaled(lambda Xq, Xs, Q, K, V: 1.0), ["did not divide", "sqrt(d_k)"]),
    (lambda *a: my_cross(*a)[::-1], ["(weights, output)"]),
    (lambda Xq, Xs, W_Q, W_K, W_V: (my_cross(Xq, Xs, W_Q, W_K, W_V)[1] @ Xs,
                                    my_cross(Xq, Xs, W_Q, W_K, W_V)[1]),
     ["weights @ X_source"]),
    (lambda Xq, Xs, W_Q, W_K, W_V: (my_cross(Xq, Xs, W_Q, W_K, W_V)[1].T @ (Xs @ W_V),
                                    my_cross(Xq, Xs, W_Q, W_K, W_V)[1]),
     ["weights.T"]),
    (_in_place_cross, ["changed its input X_query in place"]),
])
def test_cross_attention_more_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_cross_attention, wrong, capsys, *needles)


def test_cross_attention_width_is_not_called_d_k(capsys):
    """Issue 54: a learner who scaled by the model width was told 'd_k'."""
    printed = assert_diagnosis(
        checks.check_cross_attention,
        _scaled(lambda Xq, Xs, Q, K, V: np.sqrt(Xq.shape[1])), capsys)
    assert "divided the scores by d_k" not in printed


def test_cross_shape_right_spellings(capsys):
    for fn in (lambda n_q, n_s: [n_q, n_s], lambda n_q, n_s: np.array([n_q, n_s]),
               lambda n_q, n_s: (float(n_q), float(n_s)),
               lambda n_q, n_s: np.zeros((n_q, n_s)).shape):
        assert_success(checks.check_cross_shape, fn, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda n_q, n_s: (n_s, n_s), ["square"]),
    (lambda n_q, n_s: (n_q + 1, n_s), ["off by one"]),
    (lambda n_q, n_s: (n_q, n_s - 1), ["off by one"]),
    (lambda n_q, n_s: (n_q * n_s, 1), ["in one line"]),
    (lambda n_q, n_s: (n_q, n_s, 1), ["pair (rows, columns)"]),
    (lambda n_q, n_s: n_q, ["one number", "pair of whole numbers"]),
    (lambda n_q, n_s: (6, 4), ["typed in by hand"]),
])
def test_cross_shape_more_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_cross_shape, wrong, capsys, *needles)


def _padded_variant(fill=-np.inf, divisor=None, axis=-1, renormalise=False):
    def attention(X_query, X_source, W_Q, W_K, W_V, source_is_real):
        Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
        d = np.sqrt(K.shape[-1]) if divisor is None else divisor(X_query, Q)
        S = np.where(source_is_real[None, :], Q @ K.T / d, fill)
        A = softmax(S, axis=axis)
        if renormalise:
            A = softmax(Q @ K.T / d) * source_is_real
            A = A / A.sum(axis=-1, keepdims=True)
        return A @ V, A
    return attention


def test_padded_cross_right_spellings(capsys):
    for fn in (_padded_variant(fill=-1e9), _padded_variant(renormalise=True),
               _padded_variant(fill=-np.inf, divisor=lambda X, Q: np.sqrt(Q.shape[1]))):
        assert_success(checks.check_padded_cross, fn, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (_padded_variant(fill=0.0), ["0 instead of -inf"]),
    (_padded_variant(divisor=lambda X, Q: 1.0), ["divide", "sqrt(d_k)"]),
    (_padded_variant(divisor=lambda X, Q: Q.shape[1]), ["d_k itself"]),
    (_padded_variant(divisor=lambda X, Q: np.sqrt(X.shape[1])), ["X_query's width"]),
    (_padded_variant(axis=0), ["wrong axis"]),
    (lambda *a: tuple(r.T for r in lesson08.my_padded_cross_attention(*a)),
     ["one row per query token"]),
])
def test_padded_cross_more_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_padded_cross, wrong, capsys, *needles)


def test_word_heatmap_right_spellings(capsys):
    for fn in (lambda A, i, r, c: np.reshape(A[i], (r, c)),
               lambda A, i, r, c: A[i, :].reshape(r, -1).copy(),
               lambda A, i, r, c: np.array([A[i, k * c:(k + 1) * c]
                                            for k in range(r)])):
        assert_success(checks.check_word_heatmap, fn, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda A, i, r, c: A[i].reshape(r, c)[::-1], ["upside down"]),
    (lambda A, i, r, c: A[i].reshape(r, c)[:, ::-1], ["mirrored"]),
    (lambda A, i, r, c: A[i + 1].reshape(r, c), ["not of word"]),
    (lambda A, i, r, c: A[i - 1].reshape(r, c), ["not of word"]),
    (lambda A, i, r, c: A[i].reshape(r, c).T, ["rows and columns are swapped"]),
    (lambda A, i, r, c: A[i], ["lay it out as the grid"]),
    (lambda A, i, r, c: A, ["all of A"]),
    (lambda A, i, r, c: A[i].reshape(r, c) * A.shape[1], ["rescaled"]),
])
def test_word_heatmap_more_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_word_heatmap, wrong, capsys, *needles)


def test_cross_attention_scaled_after_softmax(capsys):
    def wrong(Xq, Xs, W_Q, W_K, W_V):
        A = softmax((Xq @ W_Q) @ (Xs @ W_K).T) / np.sqrt(W_Q.shape[1])
        return A @ (Xs @ W_V), A

    assert_diagnosis(checks.check_cross_attention, wrong, capsys, "after the softmax")


# --- a cold reader's review: messages that named the wrong mistake ---------------


def test_cross_attention_multiplied_by_sqrt_d_k(capsys):
    printed = assert_diagnosis(
        checks.check_cross_attention,
        _scaled(lambda Xq, Xs, Q, K, V: 1 / np.sqrt(Q.shape[-1])), capsys,
        "multiplied the scores by sqrt(d_k)")
    assert "none of the sizes" not in printed, printed


def test_cross_attention_model_width_message_names_both_sizes(capsys):
    assert_diagnosis(
        checks.check_cross_attention,
        _scaled(lambda Xq, Xs, Q, K, V: np.sqrt(Xq.shape[1])), capsys,
        "You divided the scores by sqrt(4) = 2, the square root of X_query's width",
        "d_k = Q.shape[-1] = 3 is the width of the queries and keys: divide by "
        "sqrt(3) = 1.732.")


def _padded_masks(rows=False, causal=False, padding=True):
    def attention(X_query, X_source, W_Q, W_K, W_V, source_is_real):
        Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
        n_q, n_s = len(Q), len(K)
        keep = np.ones((n_q, n_s), bool)
        if padding:
            keep &= source_is_real[None, :]
        if rows:
            row_is_real = np.resize(source_is_real, n_q) | (np.arange(n_q) >= n_s)
            keep &= row_is_real[:, None]
        if causal:
            keep &= np.tril(np.ones((n_q, n_s), bool))
        A = softmax(np.where(keep, Q @ K.T / np.sqrt(K.shape[-1]), -np.inf))
        return A @ V, A
    return attention


@pytest.mark.parametrize(("wrong", "needles"), [
    (_padded_masks(rows=True), ["also masked query rows"]),
    (_padded_masks(causal=True), ["causal mask as well"]),
    (_padded_masks(causal=True, padding=False), ["causal mask instead"]),
])
def test_padded_cross_names_the_extra_mask(wrong, needles, capsys):
    printed = assert_diagnosis(checks.check_padded_cross, wrong, capsys, *needles)
    assert "fully masked row" not in printed, printed


def test_rows_sum_message_has_no_excuse_without_masked_rows(capsys):
    """'(0 for a fully masked row)' only where a row is meant to be fully masked."""
    def half(X_query, X_source, W_Q, W_K, W_V):
        out, A = my_cross(X_query, X_source, W_Q, W_K, W_V)
        A = A.copy()
        A[-1] *= 0.5
        return A @ (X_source @ W_V), A
    printed = assert_diagnosis(checks.check_cross_attention, half, capsys,
                               "should sum to 1")
    assert "fully masked" not in printed, printed
