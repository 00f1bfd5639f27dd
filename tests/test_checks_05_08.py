"""Warm-ups and stretches of lessons 05-08: each checker passes the reference
solution (tools/solutions) and names each deliberate mistake."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import scaled_dot_product_attention, softmax
from test_checks import assert_diagnosis, assert_success  # shared with test_checks
from tools.solutions import lesson05, lesson06, lesson07, lesson08


# ----------------------------------------------------------------- 05 ---
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


# ----------------------------------------------------------------- 06 ---
def test_masked_count_solution(capsys):
    assert_success(checks.check_masked_count, lesson06.masked_count, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda n: n * (n + 1) // 2, ["allowed"]),
    (lambda n: n * n / 2, ["diagonal is allowed"]),
    (lambda n: n * n - n, ["off the diagonal"]),
    (lambda n: np.triu(np.ones((n, n)), 1), ["one number"]),
    (lambda n: n - 1, ["expected 6"]),
])
def test_masked_count_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_masked_count, wrong, capsys, *needles)


def _attend(q, K, V, scale=True):
    w = softmax(K @ q / (np.sqrt(q.shape[-1]) if scale else 1.0))
    return w @ V


def _no_append(q, k, v, K, V):
    return _attend(q, np.vstack([K, k]), np.vstack([V, v])), K, V


def _before(q, k, v, K, V):
    out = _attend(q, K, V) if len(K) else np.zeros(V.shape[1])
    return out, np.vstack([K, k]), np.vstack([V, v])


def _before_later(q, k, v, K, V):   # right at step 1, then attends before appending
    if not len(K):
        return lesson06.my_kv_step(q, k, v, K, V)
    return _attend(q, K, V), np.vstack([K, k]), np.vstack([V, v])


def _recompute(q, k, v, K, V):
    K2, V2 = np.vstack([K, k]), np.vstack([V, v])
    out, _ = scaled_dot_product_attention(np.tile(q, (len(K2), 1)), K2, V2)
    return out, K2, V2


def _no_scale(q, k, v, K, V):
    K2, V2 = np.vstack([K, k]), np.vstack([V, v])
    return _attend(q, K2, V2, scale=False), K2, V2


def _front(q, k, v, K, V):
    K2, V2 = np.vstack([k, K]), np.vstack([v, V])
    return _attend(q, K2, V2), K2, V2


def _query_cached(q, k, v, K, V):
    K2, V2 = np.vstack([K, q]), np.vstack([V, v])
    return _attend(q, K2, V2), K2, V2


def test_kv_step_solution(capsys):
    assert_success(checks.check_kv_step, lesson06.my_kv_step, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (_no_append, ["forgot to append"]),
    (_before, ["before appending", "see itself"]),
    (_before_later, ["ignores the newest token", "before appending"]),
    (_recompute, ["recomputed every token"]),
    (_no_scale, ["sqrt(d_k)"]),
    (_front, ["at the end"]),
    (_query_cached, ["appended the query"]),
    (lambda q, k, v, K, V: _attend(q, K, V), ["three things"]),
])
def test_kv_step_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_kv_step, wrong, capsys, *needles)


# ----------------------------------------------------------------- 07 ---
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


# ----------------------------------------------------------------- 08 ---
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
