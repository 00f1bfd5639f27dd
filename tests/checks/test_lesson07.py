"""Lesson 07's checkers (helpers/checks/lesson07.py), check_multi_head,
check_attention_params and check_batched_attention. Each passes correct
functions (for the warm-up and the stretch, the reference solutions of
tools/solutions/lesson07.py), and each classic mistake, a deliberately wrong
function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import (
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
)
from tools.solutions import lesson07

from .conftest import assert_diagnosis, assert_success, my_attention


# --- check_multi_head ----------------------------------------------------------


def my_multi_head(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V, mask=mask)
    return heads.transpose(1, 0, 2).reshape(n, h * d_v) @ W_O, A


def multi_head_loop(E, W_Q, W_K, W_V, W_O, mask=None):
    d_v = W_V.shape[2]
    dE = np.zeros((E.shape[0], W_O.shape[1]))
    patterns = []
    for i in range(W_Q.shape[0]):
        out, A = my_attention(E @ W_Q[i], E @ W_K[i], E @ W_V[i], mask)
        dE += out @ W_O[i * d_v : (i + 1) * d_v]
        patterns.append(A)
    return dE, np.stack(patterns)


def test_multi_head_correct(capsys):
    assert_success(checks.check_multi_head, my_multi_head, capsys)
    assert_success(checks.check_multi_head, multi_head_loop, capsys)
    assert_success(checks.check_multi_head, multi_head_attention, capsys)


def multi_head_merge_no_transpose(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V, mask=mask)
    return heads.reshape(n, h * d_v) @ W_O, A


def multi_head_split_no_transpose(E, W_Q, W_K, W_V, W_O, mask=None):
    h, d_model, d_k = W_Q.shape
    n, d_v = E.shape[0], W_V.shape[2]

    def fused(W, d):
        return (E @ W.transpose(1, 0, 2).reshape(d_model, h * d)).reshape(h, n, d)

    heads, A = scaled_dot_product_attention(
        fused(W_Q, d_k), fused(W_K, d_k), fused(W_V, d_v), mask=mask
    )
    return heads.reshape(n, h * d_v) @ W_O, A


def multi_head_no_w_o(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V, mask=mask)
    return heads.transpose(1, 0, 2).reshape(n, h * d_v), A


def multi_head_mean(E, W_Q, W_K, W_V, W_O, mask=None):
    dE, A = my_multi_head(E, W_Q, W_K, W_V, W_O, mask)
    return dE / W_Q.shape[0], A


def multi_head_no_scale(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(
        E @ W_Q, E @ W_K, E @ W_V, mask=mask, scale=1.0
    )
    return heads.transpose(1, 0, 2).reshape(n, h * d_v) @ W_O, A


def multi_head_one_pattern(E, W_Q, W_K, W_V, W_O, mask=None):
    dE, A = my_multi_head(E, W_Q, W_K, W_V, W_O, mask)
    return dE, A.mean(axis=0)


def multi_head_multiply_mask(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    A = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1]))
    if mask is not None:
        A = A * mask
    return (A @ V).transpose(1, 0, 2).reshape(n, h * d_v) @ W_O, A


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (multi_head_merge_no_transpose, ["reshape", "transpose first"]),
        (multi_head_split_no_transpose, ["split", "reshape", "transpose"]),
        (multi_head_no_w_o, ["(5, 6)", "(5, 4)", "W_O"]),
        (multi_head_mean, ["averaged"]),
        (multi_head_no_scale, ["sqrt(d_k)"]),
        (multi_head_one_pattern, ["(2, 5, 5)", "(5, 5)", "every head"]),
        (multi_head_multiply_mask, ["multiplied the weights by 0 after softmax"]),
        (lambda *a, **k: my_multi_head(*a, **k)[0], ["two", "dE, weights"]),
    ],
)
def test_multi_head_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_multi_head, wrong, capsys, *needles)


# --- check_attention_params and check_batched_attention ------------------------


def test_attention_params_solution(capsys):
    assert_success(checks.check_attention_params, lesson07.attention_params, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda d, h, k, n: (3 * d * k, 3 * d * k * h, 3 * d * k * h * n), ["forgot W_O"]),
    (lambda d, h, k, n: (2 * d * k + d * d,) * 3, ["square value map"]),
    (lambda d, h, k, n: (4 * d * k + 3 * k + d,) * 3, ["biases"]),
    (lambda d, h, k, n: (4 * d * d,) * 3, ["thin"]),
    (lambda d, h, k, n: (4 * d * k, 4 * d * k * n, 4 * d * k * h * n),
     ["layers instead"]),
    (lambda d, h, k, n: (4 * d * k, 4 * d * k * h, 4 * d * k * h),
     ["number of layers"]),
    (lambda d, h, k, n: 4 * d * k, ["three numbers"]),
])
def test_attention_params_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_attention_params, wrong, capsys, *needles)


@pytest.mark.parametrize("wrong", [
    lambda d, h, k, n: tuple(x + 0.5 for x in lesson07.attention_params(d, h, k, n)),
    lambda d, h, k, n: tuple(str(x) for x in lesson07.attention_params(d, h, k, n)),
])
def test_attention_params_refuses_non_numbers(wrong, capsys):
    """int() would truncate 196608.5 or parse '196608': neither is a count."""
    assert_diagnosis(checks.check_attention_params, wrong, capsys, "whole numbers")
    assert_success(checks.check_attention_params, lesson07.attention_params, capsys)


def _batched(transform_scores=None, axis=-1, scale=True, after=False, mix=False):
    def attention(Q, K, V, mask=None):
        scores = Q @ np.swapaxes(K, -1, -2) / (np.sqrt(Q.shape[-1]) if scale else 1)
        if mask is not None and not after:
            scores = np.where(mask, scores, -np.inf)
        weights = softmax(scores, axis=axis)
        if mask is not None and after:
            weights = weights * mask
        if mix:
            weights = np.swapaxes(weights, 0, 1).reshape(weights.shape)
        return weights @ V, weights
    return attention


def test_batched_attention_solution(capsys):
    assert_success(checks.check_batched_attention, lesson07.my_batched_attention,
                   capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda Q, K, V, mask=None: (softmax(Q @ K.T) @ V, softmax(Q @ K.T)),
     ["K.T", "swapaxes"]),
    (_batched(axis=-2), ["axis 2", "axis=-1"]),
    (_batched(scale=False), ["sqrt(d_k)"]),
    (_batched(after=True), ["after softmax"]),
    (_batched(mix=True), ["mixed up"]),
])
def test_batched_attention_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_batched_attention, wrong, capsys, *needles)
