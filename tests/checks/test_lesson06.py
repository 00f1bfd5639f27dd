"""Lesson 06's checkers (helpers/checks/lesson06.py), check_causal_mask,
check_masked_count and check_kv_step. Each passes correct functions (for the
warm-up and the stretch, the reference solutions of
tools/solutions/lesson06.py), and each classic mistake, a deliberately wrong
function, gets a diagnosis that names it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import scaled_dot_product_attention, softmax
from tools.solutions import lesson06

from .conftest import assert_diagnosis, assert_success


# --- check_causal_mask ---------------------------------------------------------


def test_causal_mask_correct(capsys):
    assert_success(
        checks.check_causal_mask, lambda n: np.tril(np.ones((n, n), bool)), capsys
    )
    assert_success(
        checks.check_causal_mask,
        lambda n: np.arange(n)[:, None] >= np.arange(n),
        capsys,
    )


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (
            lambda n: np.triu(np.ones((n, n), bool)),
            ["wrong triangle", "upper", "future"],
        ),
        (lambda n: np.tril(np.ones((n, n), bool), k=-1), ["diagonal", "itself"]),
        (lambda n: ~np.tril(np.ones((n, n), bool)), ["wrong way round"]),
        (
            lambda n: np.tril(np.ones((n, n))),
            ["dtype float64", "boolean", "astype(bool)"],
        ),
        (lambda n: np.ones((n, n), bool), ["nothing is masked"]),
        (lambda n: np.tril(np.ones((n, n + 1), bool)), ["shape", "(4, 4)", "(4, 5)"]),
    ],
)
def test_causal_mask_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_causal_mask, wrong, capsys, *needles)


# --- check_masked_count and check_kv_step --------------------------------------


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
