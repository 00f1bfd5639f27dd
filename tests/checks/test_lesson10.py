"""Lesson 10's checkers (helpers/checks/lesson10.py): each named mistake is
diagnosed, the reference solutions pass (also run by test_solutions.py)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import model_available
from helpers import checks
from helpers.models import pretrained
from helpers.attention import scaled_dot_product_attention, softmax
from tools.solutions import lesson10

from .conftest import verdict as _verdict

needs_model = pytest.mark.skipif(not model_available(),
                                 reason="no offline copy of all-MiniLM-L6-v2")


# --- warm-up: the number of attention weights ----------------------------------

@pytest.mark.parametrize("fn, words", [
    (lambda n, L=6, H=12: L * H * n, "did not square"),
    (lambda n, L=6, H=12: L * n * n, "heads are missing"),
    (lambda n, L=6, H=12: H * n * n, "layers are missing"),
    (lambda n, L=6, H=12: L * H * n * (n - 1), "left out the diagonal"),
    (lambda n, L=6, H=12: L * H * n * (n + 1) // 2, "causal triangle"),
    (lambda n, L=6, H=12: L * H * (n + 2) ** 2, "[CLS] and [SEP] again"),
    (lambda n, L=6, H=12: L + H + n, "expected 600 weights"),
    (lambda n, L=6, H=12: np.zeros((n, n)), "return one number"),
])
def test_weight_count_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_n_attention_weights, fn, capsys)
    assert result is False and out.startswith("Not quite:")
    assert words in out, out


def test_weight_count_solution_and_numpy_integers(capsys):
    assert _verdict(checks.check_n_attention_weights,
                    lesson10.n_attention_weights, capsys)[0] is True
    result, out = _verdict(checks.check_n_attention_weights,
                           lambda n, L=6, H=12: np.int64(L * H) * n**2, capsys)
    assert result is True and "16,200" in out


# --- the exercise and the stretch on the real model ----------------------------

def _bare(x, W_Q, b_Q, W_K, b_K):
    return x @ W_Q + b_Q, x @ W_K + b_K, np.sqrt(W_Q.shape[1])


def _lower(n, k=0):
    return np.tril(np.ones((n, n), dtype=bool), k=k)


def _mask_after_softmax(*a):
    Q, K, r = _bare(*a)
    return softmax(Q @ K.T / r) * _lower(len(Q))


def _upper(*a):
    Q, K, r = _bare(*a)
    return scaled_dot_product_attention(Q, K, K, mask=_lower(len(Q)).T)[1]


def _strict(*a):
    Q, K, r = _bare(*a)
    return scaled_dot_product_attention(Q, K, K, mask=_lower(len(Q), -1))[1]


def _no_mask(*a):
    Q, K, r = _bare(*a)
    return scaled_dot_product_attention(Q, K, K)[1]


def _zero_fill(*a):
    Q, K, r = _bare(*a)
    return softmax(np.where(_lower(len(Q)), Q @ K.T / r, 0.0))


def _causal_unscaled(*a):
    Q, K, r = _bare(*a)
    return scaled_dot_product_attention(Q, K, K, mask=_lower(len(Q)), scale=1.0)[1]


def _causal_no_bias(x, W_Q, b_Q, W_K, b_K):
    Q, K = x @ W_Q, x @ W_K
    return scaled_dot_product_attention(Q, K, K, mask=_lower(len(Q)))[1]


def _causal_transposed(*a):
    return lesson10.causal_head_pattern(*a).T


def _nan(*a):
    w = lesson10.causal_head_pattern(*a)
    w[0, 0] = np.nan
    return w


def _in_place(x, W_Q, b_Q, W_K, b_K):
    x -= 1.0
    return lesson10.causal_head_pattern(x + 1.0, W_Q, b_Q, W_K, b_K)


@needs_model
@pytest.mark.parametrize("fn, words", [
    (_mask_after_softmax, "masked after the softmax"),
    (_upper, "wrong triangle"),
    (_strict, "left out the diagonal"),
    (_no_mask, "no causal mask"),
    (_zero_fill, "instead of -inf"),
    (_causal_unscaled, "not divided by sqrt(d_k) = 5.65685"),
    (_causal_no_bias, "biases are missing"),
    (_causal_transposed, "transposed"),
    (_nan, "NaN"),
    (_in_place, "changed its input x in place"),
])
def test_causal_head_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_causal_head_pattern, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


@needs_model
@pytest.mark.parametrize("fn, words", [
    (lambda *a: _no_mask(*a)[:-1], "should have shape"),
    (lambda *a: (None, _no_mask(*a)), "returned two things"),
])
def test_real_head_shape_and_pairs(fn, words, capsys):
    result, out = _verdict(checks.check_real_head, fn, capsys)
    assert result is False and words in out, out


@needs_model
def test_solutions_pass_with_an_explicit_model(capsys):
    model = pretrained.load()
    assert _verdict(checks.check_real_head, lesson10.real_head_pattern, capsys,
                    model=model)[0] is True
    assert _verdict(checks.check_causal_head_pattern, lesson10.causal_head_pattern,
                    capsys, model=model)[0] is True


def test_without_a_model_the_checker_says_why(monkeypatch, capsys):
    def unavailable(path=None):
        raise pretrained.ModelNotAvailable("The pretrained model is not available.")

    monkeypatch.setattr(pretrained, "load", unavailable)
    result, out = _verdict(checks.check_causal_head_pattern,
                           lesson10.causal_head_pattern, capsys)
    assert result is False
    assert out == "Not quite: The pretrained model is not available.\n"
