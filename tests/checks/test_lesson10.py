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
    (lambda n, L=6, H=12: L + H + n, "expected 3,500 weights"),
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
    (_causal_no_bias, "b_Q is missing"),
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


# --- issue 54: more mistakes named, and right spellings pass --------------------

@pytest.mark.parametrize("fn, words", [
    (lambda n, n_layers=6, n_heads=12: 72 * n**2, "72 = 6 x 12 by hand"),
    (lambda n, n_layers=6, n_heads=12: n_layers * n_heads * (n - 2) ** 2,
     "left out [CLS] and [SEP]"),
    (lambda n, n_layers=6, n_heads=12: 6 * n_heads * n**2, "6 layers by hand"),
    (lambda n, n_layers=6, n_heads=12: n_layers * 12 * n**2, "12 heads by hand"),
    (lambda n, n_layers=6, n_heads=12: n**2, "one head's pattern"),
    (lambda n, n_layers=6, n_heads=12: (n_layers + n_heads) * n**2, "added the layers"),
    (lambda n, n_layers=6, n_heads=12: 2 * n_layers * n_heads * n**2, "twice"),
    (lambda n, n_layers=6, n_heads=12: 3 * n_layers * n_heads * n**2,
     "you counted Q, K and V"),
])
def test_weight_count_more_mistakes(fn, words, capsys):
    result, out = _verdict(checks.check_n_attention_weights, fn, capsys)
    assert result is False and out.startswith("Not quite:")
    assert words in out, out


def test_weight_count_right_spellings(capsys):
    for fn in (lambda n, n_layers=6, n_heads=12: n_layers * n_heads * n * n,
               lambda n, n_layers=6, n_heads=12: float(n_layers * n_heads * n**2),
               lambda n, n_layers=6, n_heads=12: np.zeros((n_layers, n_heads, n,
                                                            n)).size,
               lambda n, n_layers=6, n_heads=12: int(np.prod([n_layers, n_heads,
                                                              n, n]))):
        assert _verdict(checks.check_n_attention_weights, fn, capsys)[0] is True


def _scaled_head(divisor, causal=False):
    def pattern(x, W_Q, b_Q, W_K, b_K):
        Q, K = x @ W_Q + b_Q, x @ W_K + b_K
        S = Q @ K.T / divisor(x, Q)
        if causal:
            S = np.where(_lower(len(Q)), S, -np.inf)
        return softmax(S)
    return pattern


def _strict_big_negative(x, W_Q, b_Q, W_K, b_K):
    Q, K, r = _bare(x, W_Q, b_Q, W_K, b_K)
    j = np.arange(len(Q))
    return softmax(np.where(j[None, :] < j[:, None], Q @ K.T / r, -1e9))


def _strict_own_attention(x, W_Q, b_Q, W_K, b_K):
    Q, K, r = _bare(x, W_Q, b_Q, W_K, b_K)
    j = np.arange(len(Q))
    return lesson10.attention(Q, K, K, mask=j[None, :] < j[:, None])[1]


@needs_model
@pytest.mark.parametrize("fn, words", [
    (_scaled_head(lambda x, Q: np.sqrt(x.shape[1]), causal=True), "d_model"),
    (_scaled_head(lambda x, Q: Q.shape[1], causal=True), "d_k itself"),
    (_strict_big_negative, "left out the diagonal"),
    (_strict_own_attention, "left out the diagonal"),
])
def test_causal_head_more_mistakes(fn, words, capsys):
    result, out = _verdict(checks.check_causal_head_pattern, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def _biases_swapped(x, W_Q, b_Q, W_K, b_K):
    return lesson10.real_head_pattern(x, W_Q, b_K, W_K, b_Q)


def _keys_from_W_Q(x, W_Q, b_Q, W_K, b_K):
    return lesson10.real_head_pattern(x, W_Q, b_Q, W_Q, b_Q)


def _in_place_real(x, W_Q, b_Q, W_K, b_K):
    x *= 1.0001
    return lesson10.real_head_pattern(x, W_Q, b_Q, W_K, b_K)


@needs_model
@pytest.mark.parametrize("fn, words", [
    (_scaled_head(lambda x, Q: np.sqrt(x.shape[1])), "d_model"),
    (_scaled_head(lambda x, Q: np.sqrt(384)), "d_model"),
    (_scaled_head(lambda x, Q: Q.shape[1]), "d_k itself"),
    (_scaled_head(lambda x, Q: 8.0), "typed in by hand"),
    (_scaled_head(lambda x, Q: 1.0), "not divided by sqrt(d_k)"),
    (lambda *a: lesson10.real_head_pattern(*a).T, "transposed"),
    (lambda x, W_Q, b_Q, W_K, b_K: lesson10.real_head_pattern(
        x, W_Q, 0 * b_Q, W_K, 0 * b_K), "b_Q is missing"),
    (lambda x, W_Q, b_Q, W_K, b_K: lesson10.real_head_pattern(
        x, W_Q, 0 * b_Q, W_K, b_K), "b_Q is missing"),
    (_biases_swapped, "biases are swapped"),
    (_keys_from_W_Q, "built with W_Q"),
    (lambda *a: lesson10.causal_head_pattern(*a), "applied a causal mask"),
    (lambda *a: softmax(_bare(*a)[0] @ _bare(*a)[1].T / _bare(*a)[2], axis=0),
     "last axis"),
    (_in_place_real, "changed its input x in place"),
])
def test_real_head_more_mistakes(fn, words, capsys):
    result, out = _verdict(checks.check_real_head, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


@needs_model
def test_real_head_right_spellings(capsys):
    def own_softmax(x, W_Q, b_Q, W_K, b_K):
        Q, K, r = _bare(x, W_Q, b_Q, W_K, b_K)
        S = Q @ K.T / r
        e = np.exp(S - S.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def with_x_as_values(x, W_Q, b_Q, W_K, b_K):
        Q, K, _ = _bare(x, W_Q, b_Q, W_K, b_K)
        return lesson10.attention(Q, K, x)[1]

    def big_negative_causal(x, W_Q, b_Q, W_K, b_K):
        Q, K, r = _bare(x, W_Q, b_Q, W_K, b_K)
        return softmax(np.where(_lower(len(Q)), Q @ K.T / r, -1e9))

    for fn in (own_softmax, with_x_as_values):
        assert _verdict(checks.check_real_head, fn, capsys)[0] is True
    assert _verdict(checks.check_causal_head_pattern, big_negative_causal,
                    capsys)[0] is True


def _causal_variant(keep=None, axis=-1, kq=False, own_softmax=False):
    def pattern(x, W_Q, b_Q, W_K, b_K):
        Q, K, r = _bare(x, W_Q, b_Q, W_K, b_K)
        lower = _lower(len(Q))
        S = (K @ Q.T if kq else Q @ K.T) / r
        S = np.where(lower if keep is None else keep(lower), S, -np.inf)
        if own_softmax:
            with np.errstate(all="ignore"):
                e = np.exp(S - S.max(axis=axis, keepdims=True))
                return e / e.sum(axis=axis, keepdims=True)
        return softmax(S, axis=axis)
    return pattern


@needs_model
@pytest.mark.parametrize("fn, words", [
    (_causal_variant(keep=lambda m: ~m), "wrong way round"),
    (_causal_variant(keep=lambda m: ~m, own_softmax=True), "wrong way round"),
    (_causal_variant(axis=0), "down the columns"),
    (_causal_variant(kq=True), "K Q^T"),
    (_causal_variant(keep=lambda m: np.tril(m, -1), own_softmax=True),
     "left out the diagonal"),
])
def test_causal_head_mask_mistakes(fn, words, capsys):
    result, out = _verdict(checks.check_causal_head_pattern, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


@needs_model
@pytest.mark.parametrize("fn, words", [
    (lambda *a: softmax(_bare(*a)[0] @ _bare(*a)[1].T) / _bare(*a)[2],
     "after the softmax"),
    (lambda *a: lesson10.attention(*_bare(*a)[:2], a[0])[0], "attention's output"),
    (lambda x, W_Q, b_Q, W_K, b_K: lesson10.real_head_pattern(x, W_K, b_K, W_K, b_K),
     "queries are built with W_K"),
])
def test_real_head_order_mistakes(fn, words, capsys):
    result, out = _verdict(checks.check_real_head, fn, capsys)
    assert result is False and words in out, out


# --- a cold reader's review: messages that named the wrong mistake ---------------

def test_weight_count_q_k_v_is_not_six_layers(capsys):
    """3 x L x H x n^2 once read as '6 layers by hand' (3 x 2 layers = 6)."""
    result, out = _verdict(checks.check_n_attention_weights,
                           lambda n, L, H: 3 * L * H * n * n, capsys)
    assert result is False and "you counted Q, K and V" in out, out
    assert "by hand" not in out, out


@needs_model
def test_real_head_width_message_names_both_sizes(capsys):
    result, out = _verdict(checks.check_real_head,
                           _scaled_head(lambda x, Q: np.sqrt(x.shape[1])), capsys)
    assert result is False
    assert "sqrt(384) = 19.6, the square root of the model width d_model" in out, out
    assert "d_k = Q.shape[-1] = 32 is one head's width: divide by sqrt(32) = 5.657" \
        in out, out


@needs_model
def test_real_head_b_k_alone_may_be_left_out(capsys):
    """q . b_K is the same for every key of a row: the weights do not change."""
    result, out = _verdict(checks.check_real_head,
                           lambda x, W_Q, b_Q, W_K, b_K: lesson10.real_head_pattern(
                               x, W_Q, b_Q, W_K, 0 * b_K), capsys)
    assert result is True, out

