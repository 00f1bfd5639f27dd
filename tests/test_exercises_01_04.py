"""Warm-up and stretch checkers of lessons 01-04: each passes its reference
solution and names each classic mistake (a deliberately wrong function)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks, lexicon
from helpers.attention import softmax
from tests.test_checks import assert_diagnosis, assert_success, run
from tools.solutions import lesson01, lesson02, lesson03, lesson04

NEW_CHECKERS = [
    checks.check_length,
    checks.check_nearest,
    checks.check_mix,
    checks.check_context_vectors,
    checks.check_one_score,
    checks.check_chemistry_head,
    checks.check_softmax_temperature,
    checks.check_attention_dropout,
]


@pytest.mark.parametrize("checker", NEW_CHECKERS, ids=lambda c: c.__name__)
def test_stub_and_garbage(checker, capsys):
    def stub(*args, **kwargs):
        raise NotImplementedError

    result, printed = run(checker, stub, capsys)
    assert result is False and printed.startswith("Not done yet")
    assert_diagnosis(checker, lambda *a, **k: "hello", capsys)

    def broken(*args, **kwargs):
        raise KeyError("oops")

    assert_diagnosis(checker, broken, capsys, "KeyError", "oops")


# ---------------------------------------------------------------- lesson 01 ---


def test_length(capsys):
    assert_success(checks.check_length, lesson01.length, capsys)
    assert_success(checks.check_length, np.linalg.norm, capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda a: a @ a, "square root"),
    (lambda a: a.sum(), "plain sum"),
    (lambda a: np.abs(a).sum(), "absolute values"),
    (lambda a: np.sqrt(a * a), "add them up"),
])
def test_length_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_length, wrong, capsys, needle)


def test_nearest(capsys):
    assert_success(checks.check_nearest, lesson01.nearest, capsys)


def _cos(t, v):
    return t @ v / (np.linalg.norm(t, axis=1) * np.linalg.norm(v))


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda t, v, k: np.argsort(-(t @ v))[:k], "dot product"),
    (lambda t, v, k: np.argsort(_cos(t, v))[:k], "least similar"),
    (lambda t, v, k: np.argsort(-_cos(t, v))[:k][::-1], "worst first"),
    (lambda t, v, k: np.argsort(-((t / np.linalg.norm(t, axis=0)) @ v))[:k],
     "columns"),
    (lambda t, v, k: _cos(t, v), "cosines themselves"),
    (lambda t, v, k: np.argsort(-_cos(t, v)), "only the best k"),
])
def test_nearest_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_nearest, wrong, capsys, needle)


# ---------------------------------------------------------------- lesson 02 ---


def test_mix(capsys):
    assert_success(checks.check_mix, lesson02.mix, capsys)
    assert_success(checks.check_mix, lambda w, r: (w[:, None] * r).sum(axis=0), capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda w, r: w[:, None] * r, "not added up"),
    (lambda w, r: (w[:, None] * r).sum(axis=1), "one number per row"),
    (lambda w, r: r.mean(axis=0), "plain average"),
    (lambda w, r: r.sum(axis=0), "without their weights"),
    (lambda w, r: r @ w, "inner sizes"),
])
def test_mix_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_mix, wrong, capsys, needle)


def naive_context(E):
    e = np.exp(E @ E.T)
    return e / e.sum(axis=-1, keepdims=True) @ E


def test_context_vectors(capsys):
    assert_success(checks.check_context_vectors, lesson02.context_vectors, capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda E: softmax(E @ E.T, axis=0) @ E, "wrong axis"),
    (lambda E: softmax(E @ E.T).T @ E, "A.T"),
    (lambda E: (E @ E.T) @ E, "raw scores"),
    (lambda E: softmax(E @ E.T / np.sqrt(E.shape[1])) @ E, "no scaling"),
    (lambda E: softmax(E @ E.T), "weights a"),
    (lambda E: softmax(E.T @ E), "e^t e"),
    (naive_context, "overflow"),
])
def test_context_vectors_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_context_vectors, wrong, capsys, needle)


# ---------------------------------------------------------------- lesson 03 ---


def test_one_score(capsys):
    assert_success(checks.check_one_score, lesson03.one_score, capsys)
    assert_success(checks.check_one_score, lambda Q, K, i, j: (Q @ K.T)[i, j], capsys)


@pytest.mark.parametrize(("wrong", "needle"), [
    (lambda Q, K, i, j: Q[j] @ K[i], "swapped the roles"),
    (lambda Q, K, i, j: Q[i] @ K[j] / np.sqrt(Q.shape[1]), "sqrt(d_k)"),
    (lambda Q, K, i, j: Q[i] @ Q[j], "used Q twice"),
    (lambda Q, K, i, j: K[i] @ K[j], "used K twice"),
    (lambda Q, K, i, j: Q[i] * K[j], "add them up"),
])
def test_one_score_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_one_score, wrong, capsys, needle)


def head(query=(), keys=(), d_q=1, d_k=1, rows=None):
    """A head whose W_Q/W_K read the named feature rows (column 0)."""
    F = list(lexicon.FEATURES)
    rows = rows or lexicon.D_MODEL

    def fn():
        W_Q, W_K = np.zeros((rows, d_q)), np.zeros((rows, d_k))
        for name, value in query:
            W_Q[F.index(name), 0] = value
        for name, value in keys:
            W_K[F.index(name), 0] = value
        return W_Q, W_K

    return fn


def test_chemistry_head(capsys):
    assert_success(checks.check_chemistry_head, lesson03.chemistry_head, capsys)
    wide = head([("ambiguous", 8.0)], [("chemistry", 1.0), ("ambiguous", -1.0)],
                d_q=4, d_k=4)
    assert_success(checks.check_chemistry_head, wide, capsys)


@pytest.mark.parametrize(("wrong", "needles"), [
    (head([("ambiguous", 8.0)], [("chemistry", 1.0)]),
     ["attends to itself", "weighed", "'ambiguous' flag"]),
    (head([("ambiguous", 8.0)], [("animal", 1.0)]),
     ["animal word 'cat'", "reads mostly the 'animal' row"]),
    (head([("ambiguous", 8.0)], [("chemistry", 1.0), ("animal", 2.0)]),
     ["animal word 'cat'"]),
    (head([("ambiguous", 8.0)], [("ambiguous", 1.0)]),
     ["attends to itself", "reads mostly the 'ambiguous' row"]),
    (head([], [("chemistry", 1.0)]), ["same weight"]),
    (head([("ambiguous", 8.0)], [("chemistry", 1.0)], d_q=2, d_k=3),
     ["d_k mismatch", "length 2", "length 3"]),
    (head([("ambiguous", 8.0)], [("chemistry", 1.0)], rows=len(lexicon.FEATURES)),
     ["position columns", "44 rows"]),
    (lambda: np.zeros((lexicon.D_MODEL, 1)), ["two matrices"]),
    (head([("ambiguous", np.inf)], [("chemistry", 1.0)]), ["nan or inf"]),
])
def test_chemistry_head_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_chemistry_head, wrong, capsys, *needles)


@pytest.mark.parametrize(("wrong", "needles"), [
    # issue 22 point 13: the argmax is right, but mole's row is flat
    (head([("ambiguous", 0.01)], [("chemistry", 1.0), ("ambiguous", -1.0)]),
     ["almost uniform", "query is too weak", "at least 2 times"]),
    (head([("ambiguous", 8.0)], [("chemistry", 0.1), ("ambiguous", -0.1)]),
     ["almost uniform", "too weak"]),
    (head([("ambiguous", 1.0)], [("chemistry", 1.0), ("ambiguous", -1.0)]),
     ["only leans", "query is too weak", "at least 2 times"]),
])
def test_chemistry_head_refuses_a_weak_query(wrong, needles, capsys):
    """Only the largest weight right is no answer; the solution still passes."""
    assert_diagnosis(checks.check_chemistry_head, wrong, capsys, *needles)
    assert_success(checks.check_chemistry_head, lesson03.chemistry_head, capsys)


# ---------------------------------------------------------------- lesson 04 ---


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
