"""Lesson 12's checkers (helpers/checks/lesson12.py): each named mistake is
diagnosed, the reference solutions pass (also run by test_solutions.py)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import causal_mask, rope, scaled_dot_product_attention, softmax
from tools.solutions import lesson12

from .conftest import said
from .conftest import verdict as _verdict


def test_the_solutions_pass(capsys):
    for name, checker in lesson12.CHECKERS.items():
        result, out = _verdict(getattr(checks, checker), getattr(lesson12, name),
                               capsys)
        assert result is True and out.startswith("Correct:"), out


# --- warm-up: the KV cache of one token ----------------------------------------

@pytest.mark.parametrize("fn, words", [
    (lambda L, h, g, d, b=2: 2 * L * h * d * b, "used the query heads"),
    (lambda L, h, g, d, b=2: L * g * d * b, "keys only"),
    (lambda L, h, g, d, b=2: 2 * g * d * b, "layers are missing"),
    (lambda L, h, g, d, b=2: 2 * L * g * d, "counts numbers, not bytes"),
    (lambda L, h, g, d, b=2: 16 * L * g * d * b, "that is bits"),
    (lambda L, h, g, d, b=2: 4 * L * g * d * b, "K and V twice"),
    (lambda L, h, g, d, b=2: 2 * L * (h // g) * d * b, "used the group size"),
    (lambda L, h, g, d, b=2: 2 * L * h / g * d * b, "used the group size"),
    (lambda L, h, g, d, b=2: 2 * L * g * b, "d_head is missing"),
    (lambda L, h, g, d, b=2: 2 * L * g * d * 2, "bytes_per_value is ignored (a "
     "hard-coded 2)"),
    (lambda L, h, g, d, b=2: L + g + d + b, "expected 1,440 bytes"),
    (lambda L, h, g, d, b=2: f"{2 * L * g * d * b}", "should be a number"),
    (lambda L, h, g, d, b=2: np.zeros(3), "return one number"),
])
def test_kv_bytes_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_kv_bytes_per_token, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def test_kv_mistakes_all_differ_in_the_first_case():
    # hand-worked: 2 x 5 layers x 3 kv heads x 16 x 3 bytes = 1,440; the group
    # size is 12 // 3 = 4, not 3, 2 x 3 or 1, and 3 bytes per value is neither
    # the hard-coded 2 nor half of 4, so each named mistake gives its own number
    # there and the first case tells every one apart
    from helpers.checks.lesson12 import KV_CASES, kv_mistakes

    L, h, g, d, b = KV_CASES[0]
    assert 2 * L * g * d * b == 1440 and h // g == 4
    wrong = [w for w, _ in kv_mistakes(L, h, g, d, b)]
    assert sorted(wrong) == sorted(set(wrong)) and 1440 not in wrong
    # hard-coded 2, query heads, group size, keys only, layers, d_head, numbers,
    # bits, K and V twice
    assert wrong == [960, 5760, 1920, 720, 288, 90, 480, 11520, 2880]


def test_kv_bytes_accepts_near_misses(capsys):
    for fn in (lambda L, h, g, d, b=2: 2.0 * L * g * d * b * (1 + 1e-12),
               lambda L, h, g, d, b=2: np.float32(2 * L * g * d * b),
               lambda L, h, g, d, b=2: L * g * d * b / 0.5):
        assert _verdict(checks.check_kv_bytes_per_token, fn, capsys)[0] is True


def test_kv_bytes_accepts_numpy_and_float_answers(capsys):
    result, out = _verdict(checks.check_kv_bytes_per_token,
                           lambda L, h, g, d, b=2: np.int64(2) * L * g * d * b * 1.0,
                           capsys)
    assert result is True and "4,718,592" in out and "128 KiB" in out


# --- optional: the latent cache of MLA ------------------------------------------

@pytest.mark.parametrize("fn, words", [
    (lambda L, h, c, r, b=2: 2 * L * (c + r) * b, "a key AND a value"),
    (lambda L, h, c, r, b=2: L * c * b, "RoPE key is missing"),
    (lambda L, h, c, r, b=2: L * (c + h * r) * b, "a RoPE key per head"),
    (lambda L, h, c, r, b=2: L * h * (c + r) * b, "a latent per head"),
    (lambda L, h, c, r, b=2: (c + r) * b, "layers are missing"),
    (lambda L, h, c, r, b=2: L * (c + r), "counts numbers, not bytes"),
    (lambda L, h, c, r, b=2: 8 * L * (c + r) * b, "that is bits"),
    (lambda L, h, c, r, b=2: L * (c + 2 * r) * b, "a RoPE value"),
    (lambda L, h, c, r, b=2: L * (c + 2 * h * r) * b, "a RoPE key per head"),
    (lambda L, h, c, r, b=2: 2 * L * (c + h * r) * b, "a RoPE key per head"),
    (lambda L, h, c, r, b=2: L * h * r * b, "a RoPE key per head"),
    (lambda L, h, c, r, b=2: (c + h * r) * b, "a RoPE key per head"),
    (lambda L, h, c, r, b=2: L * (c + h * r), "a RoPE key per head"),
    (lambda L, h, c, r, b=2: L * h * (c + h * r) * b, "a RoPE key per head"),
    (lambda L, h, c, r, b=2: L * (c + r) * 2, "bytes_per_value is ignored (a "
     "hard-coded 2)"),
    (lambda L, h, c, r, b=2: L + c + r + b, "expected 192 bytes"),
    (lambda L, h, c, r, b=2: np.zeros(2), "return one number"),
])
def test_mla_bytes_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_mla_bytes_per_token, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def test_mla_mistakes_all_differ_in_the_first_case():
    # hand-worked: 3 layers x (10 + 6) x 4 bytes = 192, and each named mistake
    # gives its own number there, so the first case tells them apart
    from helpers.checks.lesson12 import MLA_CASES, mla_mistakes, mla_rope_per_head

    L, h, c, r, b = MLA_CASES[0]
    assert L * (c + r) * b == 192
    named = mla_mistakes(L, h, c, r, b) + mla_rope_per_head(L, h, c, r, b)
    wrong = [w for w, _ in named]
    assert sorted(wrong) == sorted(set(wrong)) and 192 not in wrong
    assert wrong == [96, 384, 120, 408, 768, 64, 48, 1536, 264, 696, 816, 288, 136,
                     102, 1632]


def test_mla_bytes_accepts_near_misses(capsys):
    fn = lambda L, h, c, r, b=2: L * (c + r) * b * (1 - 1e-12)  # noqa: E731
    assert _verdict(checks.check_mla_bytes_per_token, fn, capsys)[0] is True


def test_mla_bytes_gives_deepseek_v3(capsys):
    result, out = _verdict(checks.check_mla_bytes_per_token,
                           lambda L, h, c, r, b=2: np.int64(L) * (c + r) * b * 1.0,
                           capsys)
    assert result is True and "70,272" in out
    assert 61 * (512 + 64) * 2 == 70_272


# --- core: one step of the online softmax ---------------------------------------

V_COLUMNS, BLOCK = "d_v", "b"  # what a learner might divide the scores by


def _step(rescale_total=True, rescale_acc=True, sign=1, block_max=False,
          early=False, own_max=False, alpha_column=True, m_column=True,
          subtract=True, scale=None):
    def online_softmax_step(m, total, acc, scores, V_block):
        if scale is not None:  # the scores scaled again, by sqrt(d_v) or sqrt(b)
            scores = scores / np.sqrt(V_block.shape[1] if scale == V_COLUMNS
                                      else scores.shape[1])
        blk = scores.max(axis=-1)
        m_new = blk if own_max else np.maximum(m, blk)
        with np.errstate(over="ignore", invalid="ignore"):
            alpha = np.exp(sign * (m - m_new))
        alpha = np.where(np.isfinite(alpha), alpha, 0.0)
        ref = blk if block_max else m_new
        P = np.exp(scores - (ref[:, None] if m_column else ref) if subtract
                   else scores)
        total_new = (alpha if rescale_total else 1.0) * total + P.sum(axis=-1)
        acc_new = ((alpha[:, None] if alpha_column else alpha) if rescale_acc
                   else 1.0) * acc + P @ V_block
        if early:
            acc_new = acc_new / total_new[:, None]
        return m_new, total_new, acc_new
    return online_softmax_step


def _swap(i, j):
    def online_softmax_step(m, total, acc, scores, V_block):
        state = list(lesson12.online_softmax_step(m, total, acc, scores, V_block))
        state[i], state[j] = state[j], state[i]
        return tuple(state)
    return online_softmax_step


def _nan_state(m, total, acc, scores, V_block):
    m_new = np.maximum(m, scores.max(axis=-1))
    alpha = np.exp(m - m_new) * (m_new - m) / (m_new - m)  # inf / inf at the start
    P = np.exp(scores - m_new[:, None])
    return m_new, alpha * total + P.sum(-1), alpha[:, None] * acc + P @ V_block


def _in_place(m, total, acc, scores, V_block):
    scores -= 0.0
    scores *= 1.0
    acc *= 1.0
    acc += 1.0
    return lesson12.online_softmax_step(m, total, acc - 1.0, scores, V_block)


@pytest.mark.parametrize("fn, words", [
    (_step(rescale_total=False, rescale_acc=False), "you added without rescaling"),
    (_step(rescale_acc=False), "you rescaled only the sum total"),
    (_step(rescale_total=False), "you rescaled only the output acc"),
    (_step(sign=-1), "wrong exponent: exp(m_new - m)"),
    (_step(block_max=True), "subtracted the block's own max"),
    (_step(early=True), "divided too early"),
    (_step(own_max=True), "not this block's max alone"),
    (_nan_state, "NaN or inf"),
    (_in_place, "changed its input acc in place"),
    (lambda m, total, acc, s, V: (m, total), "three things"),
    (lambda m, total, acc, s, V: (m, total, acc[:, :1]), "acc_new should have shape"),
    (_step(alpha_column=False), "Write alpha[:, None] * acc"),
    (_step(m_column=False), "np.exp(scores - m_new[:, None])"),
    (_step(subtract=False), "exp(scores) with nothing subtracted"),
    (_step(scale=V_COLUMNS), "you divided them again, by sqrt(2)"),
    (_step(scale=BLOCK), "you divided them again, by sqrt(3)"),
    (_swap(0, 1), "the running max and the running sum in the wrong order"),
    (_swap(0, 2), "three values in the wrong order"),
    (_swap(1, 2), "three values in the wrong order"),
])
def test_online_step_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_online_softmax_step, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


@pytest.mark.parametrize("which", [0, 1])
def test_online_step_refuses_column_vectors(which, capsys):
    """keepdims=True gives (n, 1) maxima or sums, which break the loop of the
    lesson (acc / total[:, None]): one number per row, shape (n,), exactly."""
    def keepdims(m, total, acc, scores, V_block):
        state = list(lesson12.online_softmax_step(m, total, acc, scores, V_block))
        state[which] = state[which][:, None]
        return tuple(state)
    result, out = _verdict(checks.check_online_softmax_step, keepdims, capsys)
    assert result is False and "shape (4,), one number per row" in out, out
    assert "without keepdims" in out, out


# --- stretch: RoPE on Q and K -----------------------------------------------------

def _rot(X, theta, pairs="adjacent"):
    n, d = X.shape
    ang = np.arange(n)[:, None] * theta
    c, s = np.cos(ang), np.sin(ang)
    i, j = ((np.arange(0, d, 2), np.arange(1, d, 2)) if pairs == "adjacent"
            else (np.arange(d // 2), np.arange(d // 2, d)))
    out = X.astype(float).copy()
    out[:, i] = X[:, i] * c - X[:, j] * s
    out[:, j] = X[:, i] * s + X[:, j] * c
    return out


def _theta(d):
    return 10000.0 ** (-np.arange(0, d, 2) / d)


@pytest.mark.parametrize("fn, words", [
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), rope(V)),
     "rotated V too"),
    (lambda Q, K, V: scaled_dot_product_attention(
        _rot(Q, _theta(Q.shape[1]), "half"), _rot(K, _theta(K.shape[1]), "half"), V),
     "paired the wrong dimensions"),
    (lambda Q, K, V: scaled_dot_product_attention(
        _rot(Q, np.ones(Q.shape[1] // 2)), _rot(K, np.ones(K.shape[1] // 2)), V),
     "same angle"),
    (lambda Q, K, V: scaled_dot_product_attention(
        _rot(Q, 1e4 ** (-np.arange(Q.shape[1] // 2) / Q.shape[1])),
        _rot(K, 1e4 ** (-np.arange(K.shape[1] // 2) / K.shape[1])), V),
     "speeds are off"),
    (lambda Q, K, V: scaled_dot_product_attention(Q, K, V), "nothing is rotated"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), K, V), "only Q"),
    (lambda Q, K, V: scaled_dot_product_attention(Q, rope(K), V), "only K"),
    (lambda Q, K, V: scaled_dot_product_attention(
        _rot(Q, -_theta(Q.shape[1])), _rot(K, -_theta(K.shape[1])), V),
     "the wrong way"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), V)[1],
     "two things"),
    (lambda Q, K, V: (lambda o, w: (w.T @ V, w.T))(
        *scaled_dot_product_attention(rope(Q), rope(K), V)), "transposed"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), V,
                                                  mask=causal_mask(len(Q))),
     "you added a causal mask"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), V, scale=1.0),
     "not divided by sqrt(d)"),
    (lambda Q, K, V: (lambda w: (w @ V, w))(softmax(rope(Q) @ rope(K).T)),
     "not divided by sqrt(d)"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), V, scale=1.0,
                                                  mask=causal_mask(len(Q))),
     "causal mask (this exercise's attention sees every key) and left out the 1 / "
     "sqrt(d)"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), V,
                                                  scale=1.0 / Q.shape[1]),
     "divided by d"),
    (lambda Q, K, V: scaled_dot_product_attention(Q, K, V, mask=causal_mask(len(Q))),
     "nothing is rotated, and you added a causal mask"),
    (lambda Q, K, V: scaled_dot_product_attention(Q, K, V, scale=1.0),
     "nothing is rotated, and the 1 / sqrt(d) scale is missing"),
])
def test_rope_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_rope_attention, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


@pytest.mark.parametrize("fn, words", [
    (lambda Q, K, V, base=1e4: scaled_dot_product_attention(rope(Q), rope(K), V),
     "your weights are those of base 10,000"),
    (lambda Q, K, V: scaled_dot_product_attention(rope(Q), rope(K), V),
     "takes no base"),
    (lambda Q, K, V, base=1e4: scaled_dot_product_attention(
        rope(Q, base=base), rope(K, base=base), V)[::-1], "swapped order"),
])
def test_rope_names_the_base_and_the_order(fn, words, capsys):
    result, out = _verdict(checks.check_rope_attention, fn, capsys)
    assert result is False and words in out, out


def test_stub_that_forgot_return_is_named(capsys):
    def forgot(m, total, acc, scores, V_block):
        lesson12.online_softmax_step(m, total, acc, scores, V_block)
    result, out = _verdict(checks.check_online_softmax_step, forgot, capsys)
    assert result is False and out.startswith("Not done yet:"), out
    assert "returned None \u2014 did you forget `return`?" in out, out


def test_rope_from_position_one_is_the_same_attention(capsys):
    """Shifting every position changes no score: starting at 1 is right too."""
    def from_one(Q, K, V, base=10000.0):
        p = np.arange(1, len(Q) + 1)
        return scaled_dot_product_attention(rope(Q, p, base), rope(K, p, base), V)
    assert _verdict(checks.check_rope_attention, from_one, capsys)[0] is True


def test_rope_accepts_near_misses(capsys):
    """Float32 work, or weights off by 1e-9, are right answers."""
    def float32(Q, K, V, base=10000.0):
        return scaled_dot_product_attention(rope(Q.astype(np.float32), base=base),
                                            rope(K.astype(np.float32), base=base),
                                            V.astype(np.float32))

    def nudged(Q, K, V, base=10000.0):
        out, w = scaled_dot_product_attention(rope(Q, base=base), rope(K, base=base),
                                              V)
        return out + 1e-9, w * (1 + 1e-9)
    for fn in (float32, nudged):
        assert _verdict(checks.check_rope_attention, fn, capsys)[0] is True


def test_stubs_are_not_done_yet(capsys):
    def stub(*args):
        raise NotImplementedError
    for checker in lesson12.CHECKERS.values():
        assert getattr(checks, checker)(stub) is False
        assert said(capsys.readouterr().out).startswith("Not done yet:")


def test_rope_pair_overwritten_in_place_is_named(capsys):
    """A classic slip: x is overwritten before y is computed from it."""
    def rope_attention(Q, K, V, base=10000.0):
        def turn(X):
            X = np.array(X, dtype=float)
            n, d = X.shape
            theta = base ** (-np.arange(0, d, 2) / d)
            angle = np.arange(n)[:, None] * theta
            c, s = np.cos(angle), np.sin(angle)
            X[:, 0::2] = X[:, 0::2] * c - X[:, 1::2] * s
            X[:, 1::2] = X[:, 0::2] * s + X[:, 1::2] * c   # uses the new x
            return X
        return scaled_dot_product_attention(turn(Q), turn(K), V)

    result, out = _verdict(checks.check_rope_attention, rope_attention, capsys)
    assert result is False and "overwrote x before computing y" in out, out
