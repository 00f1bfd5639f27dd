"""Lesson 04's checkers (helpers/checks/lesson04.py), check_attention,
check_softmax_temperature and check_attention_dropout. Each passes correct
functions (for the warm-up and the stretch, the reference solutions of
tools/solutions/lesson04.py), and each classic mistake, a deliberately wrong
function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import scaled_dot_product_attention, softmax
from tools.solutions import lesson04

from .conftest import (
    assert_diagnosis,
    assert_success,
    attention_axis0,
    attention_kq,
    attention_no_scale,
    my_attention,
    naive_softmax,
    softmax_no_max,
)


# --- check_attention -----------------------------------------------------------


def test_attention_correct(capsys):
    assert_success(checks.check_attention, my_attention, capsys)
    assert_success(checks.check_attention, scaled_dot_product_attention, capsys)


def attention_video(Q, K, V, mask=None):
    S = K @ Q.T / np.sqrt(Q.shape[-1])
    A = softmax(S, axis=0)  # columns sum to 1, keys are rows
    return A.T @ V, A


def attention_multiply_mask(Q, K, V, mask=None):
    A = softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
    if mask is not None:
        A = A * mask
    return A @ V, A


def attention_ignores_mask(Q, K, V, mask=None):
    return my_attention(Q, K, V)


def attention_inverted_mask(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = softmax(S)
    return A @ V, A


def attention_nan_row(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = naive_softmax(S)  # -inf - (-inf) = NaN on a fully masked row
    return A @ V, A


def attention_big_negative(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -1e9)
    A = softmax(S)
    return A @ V, A


def attention_no_max(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax_no_max(S)
    return A @ V, A


def attention_swapped_return(Q, K, V, mask=None):
    out, A = my_attention(Q, K, V, mask)
    return A, out


def attention_no_mask_param(Q, K, V):
    return my_attention(Q, K, V)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (attention_no_scale, ["forgot", "sqrt(d_k)"]),
        (attention_kq, ["K Q^T instead of Q K^T"]),
        (attention_video, ["transpose", "keys as rows"]),
        (attention_axis0, ["wrong axis", "columns sum to 1"]),
        (
            attention_multiply_mask,
            [
                "rows sum to [",
                "not 1",
                "multiplied the weights by 0 after softmax",
                "-inf",
            ],
        ),
        (attention_ignores_mask, ["ignored the mask"]),
        (attention_inverted_mask, ["wrong way round"]),
        (attention_nan_row, ["fully masked row", "NaN"]),
        (attention_big_negative, ["fully masked row", "all-zero", "big negative"]),
        (attention_no_max, ["large scores", "overflow", "maximum"]),
        (attention_swapped_return, ["(weights, output)", "other order"]),
        (attention_no_mask_param, ["TypeError", "mask=None"]),
        (lambda Q, K, V, mask=None: my_attention(Q, K, V, mask)[1], ["two", "output"]),
        (
            lambda Q, K, V, mask=None: (V, my_attention(Q, K, V, mask)[1]),
            ["output", "weights @ V"],
        ),
    ],
)
def test_attention_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_attention, wrong, capsys, *needles)


def test_attention_transposed_output(capsys):
    def wrong(Q, K, V, mask=None):
        _, A = my_attention(Q, K, V, mask)
        return A.T @ V, A

    assert_diagnosis(checks.check_attention, wrong, capsys, "transposed", "weights @ V")


# --- check_softmax_temperature and check_attention_dropout ---------------------


def test_softmax_temperature(capsys):
    assert_success(checks.check_softmax_temperature, lesson04.softmax_temperature,
                   capsys)


def naive_temperature(x, T):
    e = np.exp(x / T)
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda x, T: softmax(x * T), "multiplied the scores by t"),
    (lambda x, T: softmax(x) / T, "after softmax"),
    (lambda x, T: softmax(x), "do not depend on t"),
    (lambda x, T: softmax(x / np.sqrt(T)), "sqrt(t)"),
    (naive_temperature, "overflows"),
])
def test_softmax_temperature_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_softmax_temperature, wrong, capsys, needle)


def dropout(where="after", scale=True, seeded=True, keep_rule="ge", divide_by_p=False):
    """A dropout implementation with one deliberate mistake (or none)."""
    def fn(Q, K, V, p, seed):
        rng = np.random.default_rng(seed if seeded else None)
        S = Q @ K.T / np.sqrt(Q.shape[-1])
        u = rng.random(S.shape)
        keep = u >= p if keep_rule == "ge" else u < p
        if where == "before":
            A = softmax(np.where(keep, S, -np.inf))
        else:
            A = softmax(S) * keep
            if divide_by_p:
                A = A / p
            elif scale:
                A = A / (1 - p)
        return A @ V, A
    return fn


def test_attention_dropout(capsys):
    assert_success(checks.check_attention_dropout, lesson04.attention_dropout, capsys)
    assert_success(checks.check_attention_dropout, dropout(), capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (dropout(where="before"), "before softmax"),
    (dropout(scale=False), "rescale them by 1 / (1 - p)"),
    (dropout(seeded=False), "not seeded"),
    (dropout(keep_rule="lt"), "keeps a fraction p"),
    (dropout(divide_by_p=True), "instead of 1 - p"),
    (lambda Q, K, V, p, seed: _times(lesson04.attention_dropout(Q, K, V, p, seed),
                                     V, (1 - p) ** 2), "multiplied the kept"),
    (lambda Q, K, V, p, seed: (_drop_rows(Q, K, p) @ V, _drop_rows(Q, K, p)),
     "p = 0 nothing should be dropped"),
    (lambda Q, K, V, p, seed: lesson04.attention_dropout(Q, K, V, p, 0),
     "ignores the seed"),
    (lambda Q, K, V, p, seed: lesson04.attention_dropout(Q, K, V, p, seed)[::-1],
     "other order"),
])
def test_attention_dropout_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_attention_dropout, wrong, capsys, needle)


def _drop_rows(Q, K, p):
    """Wrong: shrinks every weight, so rows change even at p = 0."""
    A = softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
    return A * 0.9


def _times(result, V, factor):
    """Wrong: the weights multiplied by (1 - p) instead of divided by it."""
    _, w = result
    return (w * factor) @ V, w * factor
