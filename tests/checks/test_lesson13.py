"""Lesson 13's checkers (helpers/checks/lesson13.py): each named mistake is
diagnosed, the reference solutions pass (also run by test_solutions.py)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from tools.solutions import lesson13


def _verdict(checker, fn, capsys):
    result = checker(fn)
    out = capsys.readouterr().out
    return result, " ".join(out.split())  # the checkers wrap long lines


def test_the_solutions_pass(capsys):
    for name, checker in lesson13.CHECKERS.items():
        result, out = _verdict(
            getattr(checks, checker), getattr(lesson13, name), capsys
        )
        assert result is True and out.startswith("Correct:"), out


# --- warm-up: the prefix-matching score ------------------------------------------
def _j(L):
    return np.arange(L - 1)


@pytest.mark.parametrize(
    "fn, words",
    [
        (
            lambda A, s, L: A[..., s + L + _j(L), s + _j(L)].mean(-1),
            "earlier occurrence of the same",
        ),
        (
            lambda A, s, L: A[..., s + L + _j(L), s + _j(L) + 2].mean(-1),
            "one past the token",
        ),
        (
            lambda A, s, L: np.stack(
                [np.diagonal(a, -(L - 1)).mean() for a in A.reshape(-1, *A.shape[-2:])]
            ).reshape(A.shape[:-2]),
            "whole diagonal",
        ),
        (
            lambda A, s, L: A[..., s + _j(L) + 1, s + L + _j(L)].mean(-1),
            "A[key, query]",
        ),
        (
            lambda A, s, L: A[..., s + L + np.arange(L), s + np.arange(L) + 1].mean(-1),
            "j = length - 1",
        ),
        (
            lambda A, s, L: A[..., s + L + _j(L), s + _j(L) + 1].mean(),
            "averaged over the heads",
        ),
        (lambda A, s, L: np.zeros((2, 2)), "shape"),
        (lambda A, s, L: A[..., s + L + _j(L), s + _j(L) + 1].sum(-1), "MEAN"),
        (lambda A, s, L: A[..., s + L + _j(L), s + _j(L) + 1].max(-1), "largest"),
        (lambda A, s, L: A[..., s + L + _j(L) - 1, s + _j(L)].mean(-1), "start - 1"),
        (lambda A, s, L: A[..., s + L + _j(L) + 1, s + _j(L) + 1].mean(-1),
         "one late"),
        (lambda A, s, L: A[s + L + _j(L), s + _j(L) + 1].mean(-1), "A[..., rows"),
        (lambda A, s, L: np.median(A[..., s + L + _j(L), s + _j(L) + 1], axis=-1),
         "median"),
        (lambda A, s, L: A[..., s + L + _j(L)[1:], s + _j(L)[1:] + 1].mean(-1),
         "skipped j = 0"),
        (lambda A, s, L: A.reshape(-1, *A.shape[-2:])[0][s + L + _j(L),
                                                         s + _j(L) + 1].mean(),
         "only the first head"),
    ],
)
def test_prefix_matching_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_prefix_matching_score, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def test_prefix_matching_stub(capsys):
    def prefix_matching_score(A, start, length):
        raise NotImplementedError

    result, out = _verdict(
        checks.check_prefix_matching_score, prefix_matching_score, capsys
    )
    assert result is False and out.startswith("Not done yet"), out


# --- core: the induction head's query and key -----------------------------------
def _qk(q_block, k_block, scale=None, identity=True):
    def induction_qk(layout, sharpness):
        W_Q = np.zeros((layout.d_model, layout.V))
        W_K = np.zeros((layout.d_model, layout.V))
        block = np.eye(layout.V) if identity else np.ones((layout.V, layout.V))
        W_Q[getattr(layout, q_block)] = (sharpness if scale is None else scale) * block
        W_K[getattr(layout, k_block)] = block
        return W_Q, W_K

    return induction_qk


def _sink(size):
    """The reference maps plus an attention-sink term: every query also
    scores ``size`` on the key at position 0 (the token -> position block)."""

    def induction_qk(layout, sharpness):
        W_Q, W_K = lesson13.induction_qk(layout, sharpness)
        W_K[layout.position.start] = size / sharpness
        return W_Q, W_K

    return induction_qk


@pytest.mark.parametrize(
    "fn, words",
    [
        (_qk("token", "token"), "key reads the token subspace"),
        (_qk("previous", "token"), "swapped"),
        (_qk("previous", "previous"), "Both maps read layout.previous"),
        (_qk("output", "previous"), "output subspace"),
        (
            _qk("token", "previous", scale=1.0),
            "Multiply one of the identities by sharpness",
        ),
        (_qk("token", "previous", identity=False), "Every token matches every token"),
        (lambda layout, s: (np.zeros((layout.d_model, layout.V)),) * 2, "all zero"),
        (
            lambda layout, s: tuple(m.T for m in lesson13.induction_qk(layout, s)),
            "transpose",
        ),
        (lambda layout, s: lesson13.induction_qk(layout, s)[0], "two matrices"),
        (_qk("token", "previous", scale=6.0), "a match scores 6; the spec says"),
        (_qk("token", "previous", scale=144.0), "multiply one only"),
        (_sink(12.0), "the query's token block to the key's position block"),
    ],
)
def test_induction_qk_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_induction_qk, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def _near_misses():
    """Right answers written another way: the checker accepts each."""
    ref = lesson13.induction_qk

    def split(layout, s):  # sqrt(sharpness) on both sides
        W_Q, W_K = ref(layout, 1.0)
        return np.sqrt(s) * W_Q, np.sqrt(s) * W_K

    def on_key(layout, s):  # the factor on the key
        W_Q, W_K = ref(layout, 1.0)
        return W_Q, s * W_K

    def as_lists(layout, s):
        return [m.astype(np.float32).tolist() for m in ref(layout, s)]

    def tiny_sink(layout, s):  # a harmless extra term
        return _sink(1e-3)(layout, s)

    return [split, on_key, as_lists, tiny_sink]


@pytest.mark.parametrize("fn", _near_misses())
def test_induction_qk_accepts_right_answers_written_otherwise(fn, capsys):
    result, out = _verdict(checks.check_induction_qk, fn, capsys)
    assert result is True and out.startswith("Correct:"), out


def test_prefix_matching_accepts_a_loop_and_float32(capsys):
    def looped(A, start, length):
        return np.array([A[..., start + length + j, start + j + 1]
                         for j in range(length - 1)], dtype=np.float32).mean(axis=0)

    result, out = _verdict(checks.check_prefix_matching_score, looped, capsys)
    assert result is True, out


# --- stretch: the ablation ratio ------------------------------------------------------
def _ratio(
    first_copy=False, inverted=False, difference=False, with_first=False, swapped=False,
    log=False, whole_text=False, per_token=False, layer=False, early=False,
    own_first=False, bare=False,
):
    def ablation_ratio(model, ids, start, length, head):
        cut = {(head[1], head[0])} if swapped else {head}
        if layer:
            cut = {(head[0], h) for h in range(model.n_heads)}
        a = model.run(ids, ablate=head if bare else cut).loss_per_position()
        b = model.run(ids).loss_per_position()
        if own_first:
            return (a[start + length : start + 2 * length - 1].mean()
                    / a[start : start + length - 1].mean())
        if whole_text:
            return a.mean() / b.mean()
        if per_token:
            return (a[start + length : start + 2 * length - 1]
                    / b[start + length : start + 2 * length - 1]).mean()
        if log:
            second = slice(start + length, start + 2 * length - 1)
            return np.log(a[second].mean() / b[second].mean())
        if first_copy:
            lo, hi = start, start + length - 1
        elif with_first:
            lo, hi = start + length - 1, start + 2 * length - 1
        elif early:
            lo, hi = start + length - 1, start + 2 * length - 2
        else:
            lo, hi = start + length, start + 2 * length - 1
        x, y = a[lo:hi].mean(), b[lo:hi].mean()
        if difference:
            return x - y
        return y / x if inverted else x / y

    return ablation_ratio


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"inverted": True}, "upside down"),
        ({"first_copy": True}, "FIRST copy"),
        ({"difference": True}, "difference"),
        ({"with_first": True}, "first token"),
        ({"swapped": True}, "(head, layer)"),
        ({"log": True}, "log of the ratio"),
        ({"whole_text": True}, "whole text"),
        ({"per_token": True}, "per-token ratios"),
        ({"layer": True}, "every head of the layer"),
        ({"early": True}, "one token early"),
        ({"own_first": True}, "its own first copy"),
        ({"bare": True}, "ablate={(1, 0)}"),
    ],
)
def test_ablation_ratio_names_the_mistake(kw, words, capsys):
    result, out = _verdict(checks.check_ablation_ratio, _ratio(**kw), capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def test_ablation_ratio_accepts_float32_losses(capsys):
    def ablation_ratio(model, ids, start, length, head):
        second = slice(start + length, start + 2 * length - 1)
        cut = model.run(ids, ablate={head}).loss_per_position().astype(np.float32)
        base = model.run(ids).loss_per_position().astype(np.float32)
        return np.float32(cut[second].mean()) / np.float32(base[second].mean())

    result, out = _verdict(checks.check_ablation_ratio, ablation_ratio, capsys)
    assert result is True, out


# --- the cold read's slips --------------------------------------------------


def test_a_score_for_three_axes_only_is_named_on_the_lessons_four(capsys):
    def prefix_matching_score(A, start, length):
        j = np.arange(length - 1)
        if A.ndim == 2:
            return A[start + length + j, start + j + 1].mean()
        return A[:, start + length + j, start + j + 1].mean(axis=-1)  # (h, n, n) only

    result, out = _verdict(checks.check_prefix_matching_score, prefix_matching_score,
                           capsys)
    assert result is False and "A[..., rows, cols]" in out, out


def test_a_loop_over_the_first_axis_is_named_on_four_axes(capsys):
    def prefix_matching_score(A, start, length):
        j = np.arange(length - 1)
        if A.ndim == 2:
            return A[start + length + j, start + j + 1].mean()
        return np.array([A[h, start + length + j, start + j + 1].mean()
                         for h in range(A.shape[0])])

    result, out = _verdict(checks.check_prefix_matching_score, prefix_matching_score,
                           capsys)
    assert result is False and "A[..., rows, cols]" in out, out


def test_the_second_copy_sliced_one_late_is_named(capsys):
    def ablation_ratio(model, ids, start, length, head):
        def second_copy(loss):
            return loss[start + length + 1 : start + 2 * length].mean()
        intact = model.run(ids).loss_per_position()
        ablated = model.run(ids, ablate={head}).loss_per_position()
        return second_copy(ablated) / second_copy(intact)

    result, out = _verdict(checks.check_ablation_ratio, ablation_ratio, capsys)
    assert result is False and "one token late" in out, out


# --- the second cold read's slips -------------------------------------------------
def test_a_score_of_zero_is_not_called_a_transpose_unless_it_is_one(capsys):
    result, out = _verdict(checks.check_prefix_matching_score,
                           lambda A, s, L: np.zeros(A.shape[:-2]), capsys)
    assert result is False and "every score you gave is 0" in out, out
    assert "you read A[key, query]" not in out, out


def test_queries_one_early_with_the_right_keys_are_named(capsys):
    def prefix_matching_score(A, start, length):
        j = np.arange(length - 1)
        return A[..., start + length + j - 1, start + j + 1].mean(-1)

    result, out = _verdict(checks.check_prefix_matching_score, prefix_matching_score,
                           capsys)
    assert result is False and "queries are one early" in out, out


def test_a_negative_sharpness_is_named(capsys):
    result, out = _verdict(checks.check_induction_qk,
                           _qk("token", "previous", scale=-12.0), capsys)
    assert result is False and "wrong sign" in out, out


def test_maps_returned_in_the_wrong_order_are_named(capsys):
    def induction_qk(layout, sharpness):
        W_Q, W_K = lesson13.induction_qk(layout, sharpness)
        return W_K, W_Q

    result, out = _verdict(checks.check_induction_qk, induction_qk, capsys)
    assert result is False and "order is swapped" in out, out


def _sliced(lo, hi, ablate=None):
    """An ablation ratio over ``loss[lo(start, length) : hi(start, length)]``."""
    def ablation_ratio(model, ids, start, length, head):
        cut = {head} if ablate is None else ablate(head)
        a = model.run(ids, ablate=cut).loss_per_position()
        b = model.run(ids).loss_per_position()
        second = slice(lo(start, length), hi(start, length))
        return a[second].mean() / b[second].mean()
    return ablation_ratio


@pytest.mark.parametrize(
    "fn, words",
    [
        (_sliced(lambda s, n: s + 12, lambda s, n: s + 23), "length 12"),  # global L
        (_sliced(lambda s, n: 21 + n, lambda s, n: 20 + 2 * n), "empty"),  # start = 21
        (_sliced(lambda s, n: s + n, lambda s, n: s + 2 * n - 2), "ends one token"),
        (_sliced(lambda s, n: s + n, lambda s, n: s + 2 * n - 1, ablate=set),
         "set(head) takes the pair apart"),
    ],
)
def test_ablation_ratio_names_the_second_slips(fn, words, capsys):
    result, out = _verdict(checks.check_ablation_ratio, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


def test_query_reading_previous_and_key_reading_token_is_named(capsys):
    # the sharpness on the query's map: both readings swapped, not the order
    result, out = _verdict(checks.check_induction_qk,
                           _qk("previous", "token", scale=12.0), capsys)
    assert result is False and "Query and key are swapped" in out, out
    assert "query reads layout.previous" in out, out
