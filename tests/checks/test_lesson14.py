"""Lesson 14's checkers (helpers/checks/lesson14.py): each named mistake is
diagnosed, the reference solutions pass (also run by test_solutions.py)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.checks.lesson14 import (HYBRID_CASES, hybrid_mistakes,
                                     reference_hybrid_bytes)
from tools.solutions import lesson14

from .conftest import said
from .conftest import verdict as _verdict


def test_the_solutions_pass(capsys):
    for name, checker in lesson14.CHECKERS.items():
        result, out = _verdict(getattr(checks, checker), getattr(lesson14, name),
                               capsys)
        assert result is True and out.startswith("Correct:"), out


# --- warm-up: a hybrid's memory -------------------------------------------------

def test_hybrid_by_hand():
    # 8 layers, 2 full: cache 2 x 2 x 2 x 6 x 4 x 100 = 19,200; state 6 x 3 x 5 x 7 x 4
    assert reference_hybrid_bytes(*HYBRID_CASES[0]) == 19_200 + 2_520
    # Qwen3-Next-80B-A3B at 262,144 tokens: 12 full layers, 36 Gated DeltaNet layers
    q3 = reference_hybrid_bytes(*HYBRID_CASES[1])
    assert q3 == 12 * 2 * 2 * 256 * 2 * 262_144 + 36 * 32 * 128 * 128 * 2


def test_hybrid_mistakes_all_differ_in_some_case():
    # two mistakes may give the same number in one case (cache / 2 is the cache
    # of one of 2 full layers) but never in every case: the checker reads on
    # to the case that tells them apart
    table = [[v for v, _ in hybrid_mistakes(*case)] for case in HYBRID_CASES]
    n = len(table[0])
    for i in range(n):
        for j in range(i + 1, n):
            assert any(row[i] != row[j] for row in table), (i, j)
    values = [v for v, _ in hybrid_mistakes(*HYBRID_CASES[-1])]
    assert len(set(values)) >= len(values) - 1
    # the last case (10 layers, one in 4 full) catches every mistake, L / i too
    assert reference_hybrid_bytes(*HYBRID_CASES[-1]) not in [
        v for v, _ in hybrid_mistakes(*HYBRID_CASES[-1])]
    assert reference_hybrid_bytes(*HYBRID_CASES[-1]) == (
        2 * 2 * 2 * 6 * 4 * 100 + 8 * 3 * 5 * 7 * 4)   # 2 full layers, 8 with a state


def _full(n, L, i):
    return L // i


@pytest.mark.parametrize("fn, words", [
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + (L - L // i) * hs * dk * dv * b * n, "multiplied the state by the number"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * L * g * dh * b * n
     + L * hs * dk * dv * b, "counted every layer twice"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + (L - i) * hs * dk * dv * b, "n_layers - interval is not"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: (L // i) * g * dh * b * n
     + (L - L // i) * hs * dk * dv * b, "a key AND a value"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n,
     "fixed state is missing"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * n
     + (L - L // i) * hs * dk * dv, "counts numbers, not bytes"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: n + L, "expected 21,720"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L / i) * g * dh * b * n
     + (L - L / i) * hs * dk * dv * b, "not a whole number of layers"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + L * hs * dk * dv * b, "state on all n_layers layers"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L - L // i) * g * dh * b * n
     + (L // i) * hs * dk * dv * b, "swapped"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i + 1) * g * dh * b * n
     + (L - L // i - 1) * hs * dk * dv * b, "not one more"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + (L - L // i) * hs * dk * dv, "multiplied only the cache"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + (L - L // i) * hs * dk * dk * b, "not d_k x d_k"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: (2 * (L // i) * g * dh * b * n
     + (L - L // i) * hs * dk * dv * b) / 2**30, "that is GiB"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: np.zeros(2), "return one number"),
])
def test_hybrid_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_hybrid_bytes, fn, capsys)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out


# --- core: one step of linear attention -----------------------------------------

def _read_first(S, z, q, k, v):
    return q @ S / (q @ z), S + np.outer(k, v), z + k


@pytest.mark.parametrize("fn, words", [
    (lambda S, z, q, k, v: (q @ (S + np.outer(k, v)), S + np.outer(k, v), z + k),
     "forgot the normaliser"),
    (lambda S, z, q, k, v: (q @ (S + np.outer(k, v)) / (q @ (z + k)),
                            S.T + np.outer(v, k), z + k), "transposed"),
    (_read_first, "NaN or inf"),
    (lambda S, z, q, k, v: (q @ S, S + np.outer(k, v), z + k), "before writing"),
    (lambda S, z, q, k, v: (q @ (S + np.outer(k, v)) / (q @ (z + k)),
                            S + np.outer(k, v), z), "z was not updated"),
    (lambda S, z, q, k, v: (q @ (S + np.outer(k, v)), S + np.outer(k, v)),
     "three things"),
    (lambda S, z, q, k, v: None, "Not done yet"),
])
def test_linear_step_names_the_mistake(fn, words, capsys):
    result = checks.check_linear_step(fn)
    out = said(capsys.readouterr().out)
    assert result is False and words in out, out


def _in_place(S, z, q, k, v):
    S += np.outer(k, v)
    return q @ S / (q @ (z + k)), S, z + k


@pytest.mark.parametrize("fn, words", [
    (_in_place, "S_new = S + np.outer(k, v)"),
    (lambda S, z, q, k, v: (q @ (S + np.outer(v, k)), S + np.outer(v, k), z + k),
     "np.outer(k, v), not np.outer(v, k)"),
    (lambda S, z, q, k, v: lesson14.linear_step(
        S, z, np.where(q > 0, q + 1, np.exp(q)), np.where(k > 0, k + 1, np.exp(k)), v),
     "already features"),
    (lambda S, z, q, k, v: ((q @ (S + np.outer(k, v))) / (k @ (z + k)),
                            S + np.outer(k, v), z + k), "divided by k . z_new"),
    (lambda S, z, q, k, v: lesson14.linear_step(S, z, q, k, v)[1:]
     + lesson14.linear_step(S, z, q, k, v)[:1], "wrong order"),
])
def test_linear_step_names_more_mistakes(fn, words, capsys):
    result = checks.check_linear_step(fn)
    out = said(capsys.readouterr().out)
    assert result is False and words in out, out
    assert "z = S" not in out and "keepdims" not in out


@pytest.mark.parametrize("fn", [
    lambda S, z, q, k, v: tuple(np.asarray(x, np.float32).tolist()
                                for x in lesson14.linear_step(S, z, q, k, v)),
    lambda S, z, q, k, v: ((q @ (S + k[:, None] * v[None])) / ((z + k) @ q),
                           S + k[:, None] * v[None], z + k),
    lambda S, z, q, k, v: [*lesson14.linear_step(S.copy(), z.copy(), q, k, v)],
])
def test_linear_step_near_misses_are_right(fn, capsys):
    assert checks.check_linear_step(fn) is True, capsys.readouterr().out


def test_reading_the_old_state_is_named_after_the_first_token(capsys):
    def read_old(S, z, q, k, v):  # right at token 0 (nothing stored), then stale
        if not z.any():
            return lesson14.linear_step(S, z, q, k, v)
        return q @ S / (q @ z), S + np.outer(k, v), z + k
    assert checks.check_linear_step(read_old) is False
    assert "read the state before writing" in said(capsys.readouterr().out)


# --- stretch: the delta rule ---------------------------------------------------

@pytest.mark.parametrize("fn, words", [
    (lambda S, k, v, b, a=1.0: a * (S + b * np.outer(k, k @ S)) + b * np.outer(k, v),
     "sign is wrong"),
    (lambda S, k, v, b, a=1.0: a * S + b * np.outer(k, v), "not subtracted"),
    (lambda S, k, v, b, a=1.0: a * (S - np.outer(k, k @ S)) + np.outer(k, v),
     "beta is missing"),
    (lambda S, k, v, b, a=1.0: S - b * np.outer(k, k @ S) + b * np.outer(k, v),
     "alpha is missing"),
    (lambda S, k, v, b, a=1.0: a * (S - b * np.outer(k, k @ S) + b * np.outer(k, v)),
     "not the new write"),
    (lambda S, k, v, b, a=1.0: (a * (S - b * np.outer(k, k @ S))
                                + b * np.outer(k, v)).T, "transposed"),
    (lambda S, k, v, b, a=1.0: a * S - b * np.outer(k, k @ S) + b * np.outer(k, v),
     "but not the erase"),
    (lambda S, k, v, b, a=1.0: (1 - a) * (S - b * np.outer(k, k @ S))
     + b * np.outer(k, v), "1 - alpha"),
    (lambda S, k, v, b, a=1.0: (lesson14.delta_step(S, k, v, b, a), k @ S),
     "return S_new alone"),
])
def test_delta_step_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_delta_step, fn, capsys)
    assert result is False and words in out, out


def test_delta_success_tells_the_overwrite(capsys):
    result, out = _verdict(checks.check_delta_step, lesson14.delta_step, capsys)
    assert result and "reads back 5" in out and "would read 7" in out


@pytest.mark.parametrize("fn", [
    lambda S, k, v, b, a=1.0: (a * (S - b * k[:, None] * (k @ S)[None])
                               + b * k[:, None] * v[None]).astype(np.float32),
    lambda S, k, v, b, a=1.0: (a * (S + b * np.outer(k, v - k @ S))
                               + (1 - a) * b * np.outer(k, v)).tolist(),
])
def test_delta_step_near_misses_are_right(fn, capsys):
    assert checks.check_delta_step(fn) is True, capsys.readouterr().out


# --- the cold read's slips: each message names the mistake made ---------------


def test_delta_step_in_place_is_named_in_this_exercises_words(capsys):
    def delta_step(S, k, v, beta, alpha):
        S -= beta * np.outer(k, k @ S)
        S *= alpha
        S += beta * np.outer(k, v)
        return S

    result, out = _verdict(checks.check_delta_step, delta_step, capsys)
    assert result is False and "in place" in out and "S_new = alpha" in out, out
    assert "z = " not in out, out


def test_delta_step_transposed_erase_is_named(capsys):
    def delta_step(S, k, v, beta, alpha):
        return alpha * (S - beta * np.outer(k @ S, k)) + beta * np.outer(k, v)

    result, out = _verdict(checks.check_delta_step, delta_step, capsys)
    assert result is False and "np.outer(k, old) to erase" in out, out
    assert "keepdims" not in out, out


def test_linear_step_kT_at_v_on_rows_is_named(capsys):
    def linear_step(S, z, q, k, v):
        S_new = S + k.T @ v
        z_new = z + k
        return q @ S_new / (q @ z_new), S_new, z_new

    result, out = _verdict(checks.check_linear_step, linear_step, capsys)
    assert result is False and "k.T is k itself" in out, out


# --- issue 54: every plausible slip named (brainstormed, then each tried) -------

outer = np.outer


@pytest.mark.parametrize("fn, words", [
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * hs * dh * b * n
     + (L - L // i) * hs * dk * dv * b, "not n_state_heads"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + (L - L // i) * g * dk * dv * b, "not n_kv_heads"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * g * dh * b * n
     + (L - L // i) * hs * dk * dv * b, "one full-attention layer"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * b * n
     + hs * dk * dv * b, "the state of one layer"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dk * b * n
     + (L - L // i) * hs * dk * dv * b, "not d_k"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (L // i) * g * dh * n
     + (L - L // i) * hs * dk * dv * b, "multiplied only the state"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * i * g * dh * b * n
     + (L - i) * hs * dk * dv * b, "not their number"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * (-(-L // i)) * g * dh * b * n
     + (L - -(-L // i)) * hs * dk * dv * b, "not one more"),   # rounded up
])
def test_hybrid_names_more_mistakes(fn, words, capsys):
    result, out = _verdict(checks.check_hybrid_bytes, fn, capsys)
    assert result is False and words in out, out


def test_hybrid_one_layers_cache_is_not_named_as_a_missing_factor_2(capsys):
    # with 2 full layers, the cache of one layer equals the cache without its
    # factor 2; the checker reads on to Qwen3-Next's 12 layers to tell them apart
    def one_layer(n, L, i, g, dh, hs, dk, dv, b=2):
        return 2 * g * dh * b * n + (L - L // i) * hs * dk * dv * b

    result, out = _verdict(checks.check_hybrid_bytes, one_layer, capsys)
    assert "one full-attention layer" in out and "AND a value" not in out, out


@pytest.mark.parametrize("fn", [
    lambda n, L, i, g, dh, hs, dk, dv, b=2: (L // i) * 2 * n * g * dh * b
    + (L - L // i) * hs * dk * dv * b,
    lambda n, L, i, g, dh, hs, dk, dv, b=2: np.int64(
        lesson14.hybrid_bytes(n, L, i, g, dh, hs, dk, dv, b)),
    lambda n, L, i, g, dh, hs, dk, dv, b=2: float(
        lesson14.hybrid_bytes(n, L, i, g, dh, hs, dk, dv, b)),
])
def test_hybrid_right_variants_pass(fn, capsys):
    assert checks.check_hybrid_bytes(fn) is True, capsys.readouterr().out


def _lin(o, S_new, z_new):
    """A learner's linear step from three formulas of (S, z, q, k, v)."""
    return lambda S, z, q, k, v: (o(S, z, q, k, v), S_new(S, z, q, k, v),
                                  z_new(S, z, q, k, v))


def _S1(S, z, q, k, v):
    return S + outer(k, v)


def _z1(S, z, q, k, v):
    return z + k


@pytest.mark.parametrize("fn, words", [
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (z + k).sum(), _S1, _z1),
     "the sum of z_new"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (q @ q), _S1, _z1),
     "divided by q . q"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (q @ (z + q)), _S1,
          lambda S, z, q, k, v: z + q), "not the queries"),
    (_lin(lambda S, z, q, k, v: q @ (S + outer(q, v)) / (q @ (z + k)),
          lambda S, z, q, k, v: S + outer(q, v), _z1), "wrote the query"),
    (_lin(lambda S, z, q, k, v: k @ _S1(S, z, q, k, v) / (k @ (z + k)), _S1, _z1),
     "read with the key"),
    (_lin(lambda S, z, q, k, v: q @ outer(k, v) / (q @ (z + k)),
          lambda S, z, q, k, v: outer(k, v), _z1), "lost the old state"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (q @ k), _S1,
          lambda S, z, q, k, v: k), "lost the old sum"),
    (_lin(lambda S, z, q, k, v: _S1(S, z, q, k, v) @ q / (q @ (z + k)), _S1, _z1),
     "S_new @ q puts the state first"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (z + k), _S1, _z1),
     "element by element by z_new"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (q * (z + k)), _S1, _z1),
     "element by element by q * z_new"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (q @ (z + v)), _S1,
          lambda S, z, q, k, v: z + v), "z sums the keys"),
    (_lin(lambda S, z, q, k, v: q @ (S + k * v) / (q @ (z + k)),
          lambda S, z, q, k, v: S + k * v, _z1), "k * v multiplies element"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v)
          / np.linalg.norm(q @ _S1(S, z, q, k, v)), _S1, _z1),
     "S_new and z_new are right, but the normaliser is not"),
    (_lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / q.sum(), _S1, _z1),
     "sum of q"),
    (lambda S, z, q, k, v: lesson14.linear_step(S, z, q, k, v)[0], "three things"),
])
def test_linear_step_names_every_slip_tried(fn, words, capsys):
    result, out = _verdict(checks.check_linear_step, fn, capsys)
    assert result is False and words in out, out
    assert "keepdims" not in out, out        # lesson 04's hint is not this one


def test_linear_step_wrong_normaliser_gives_both_numbers(capsys):
    fn = _lin(lambda S, z, q, k, v: q @ _S1(S, z, q, k, v) / (q @ (z + k) + 1.0),
              _S1, _z1)
    result, out = _verdict(checks.check_linear_step, fn, capsys)
    assert result is False and "you divided q @ S_new by" in out, out
    assert "where q @ z_new is" in out, out


@pytest.mark.parametrize("fn, words", [
    (lambda S, k, v, b, a=1.0: a * (S - b * outer(k, S @ k)) + b * outer(k, v),
     "S @ k reads the state with the key on the wrong side"),
    (lambda S, k, v, b, a=1.0: a * (S - b * outer(k, k @ S)) + b * (k.T @ v),
     "k.T @ v: for a 1-D row k.T is k itself"),
    (lambda S, k, v, b, a=1.0: a * (S - b * (k.T @ (k @ S))) + b * (k.T @ v),
     "(both times)"),
    (lambda S, k, v, b, a=1.0: b * (S - a * outer(k, k @ S)) + a * outer(k, v),
     "beta and alpha are swapped"),
    (lambda S, k, v, b, a=1.0: a * (S - b * outer(k, v)) + b * outer(k, v),
     "you erased np.outer(k, v)"),
    (lambda S, k, v, b, a=1.0: a * (S - b * S) + b * outer(k, v),
     "a share beta of the whole state"),
    (lambda S, k, v, b, a=1.0: a * (-b * outer(k, k @ S)) + b * outer(k, v),
     "the old state S itself is missing"),
    (lambda S, k, v, b, a=1.0: a * (S - b * outer(k, k)) + b * outer(k, v),
     "not np.outer(k, k)"),
    (lambda S, k, v, b, a=1.0: a * (S - b * outer(k, k @ S)) + b * (k * v),
     "k * v multiplies element by element"),
    (lambda S, k, v, b: S - b * outer(k, k @ S) + b * outer(k, v),
     "with alpha=1.0 as in its first line"),
    (lambda S, k, v, b, a=1.0: a * (S - outer(k, k @ S)) + outer(k, v),
     "beta is missing: it scales both"),
    (lambda S, k, v, b, a=1.0: a * (S - b * outer(k, k @ S)) + outer(k, v),
     "beta is missing from the write"),
])
def test_delta_step_names_every_slip_tried(fn, words, capsys):
    result, out = _verdict(checks.check_delta_step, fn, capsys)
    assert result is False and words in out, out
    assert "keepdims" not in out, out


def test_a_plain_S_at_k_is_not_called_k_T_at_v(capsys):
    # the cold read's slip: `S @ k` was answered with a message about k.T @ v
    def delta_step(S, k, v, beta, alpha=1.0):
        old = S @ k
        return alpha * (S - beta * np.outer(k, old)) + beta * np.outer(k, v)

    result, out = _verdict(checks.check_delta_step, delta_step, capsys)
    assert result is False and "S @ k" in out and "k.T @ v" not in out, out


def test_an_unknown_shape_error_lists_the_shapes_without_guessing(capsys):
    def delta_step(S, k, v, beta, alpha=1.0):
        return alpha * (S - beta * np.outer(k, k @ S)) + beta * np.outer(k, v) @ S

    result, out = _verdict(checks.check_delta_step, delta_step, capsys)
    assert result is False and "two shapes do not fit" in out, out
    assert "k.T @ v: for" not in out and "keepdims" not in out, out


@pytest.mark.parametrize("fn", [
    lambda S, k, v, b, a=1.0: a * (S - b * outer(k, S.T @ k)) + b * outer(k, v),
    lambda S, k, v, b, a=1.0: a * (S - b * outer(k, k) @ S) + b * outer(k, v),
    lambda S, k, v, b, a=1.0: a * S - a * b * outer(k, k @ S) + b * outer(k, v),
    lambda S, k, v, beta, alpha: alpha * (S - beta * outer(k, k @ S))
    + beta * outer(k, v),
    lambda S, k, v, b, a=1.0: a * (S + b * outer(k, v - k @ S))
    + (1 - a) * b * outer(k, v),
])
def test_delta_step_right_variants_pass(fn, capsys):
    assert checks.check_delta_step(fn) is True, capsys.readouterr().out


@pytest.mark.parametrize("fn", [
    lambda S, z, q, k, v: (np.einsum("i,ij->j", q, S + np.einsum("i,j->ij", k, v))
                           / np.dot(q, z + k), S + np.einsum("i,j->ij", k, v), z + k),
    lambda S, z, q, k, v: ((S + outer(k, v)).T @ q / abs(q @ (z + k)),
                           S + outer(k, v), z + k),
    lambda S, z, q, k, v: (q @ (S + outer(k, v)) / (q @ (z + k) + 1e-12),
                           S + outer(k, v), z + k),
])
def test_linear_step_more_right_variants_pass(fn, capsys):
    assert checks.check_linear_step(fn) is True, capsys.readouterr().out


# --- the cold reader's cases (fix14) -------------------------------------------

@pytest.mark.parametrize("fn, words, not_words", [
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: reference_hybrid_bytes(
        n, L, i, g, dh, hs, dk, dv, 2), "bytes_per_value was ignored", "every layer"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * reference_hybrid_bytes(
        n, L, i, g, dh, hs, dk, dv, b), "doubled the whole result", "every layer"),
    (lambda n, L, i, g, dh, hs, dk, dv, b=2: 2 * L * g * dh * b * n
     + L * hs * dk * dv * b, "counted every layer twice", "doubled"),
])
def test_hybrid_tells_doubling_from_counting_every_layer(fn, words, not_words, capsys):
    result = checks.check_hybrid_bytes(fn)
    out = said(capsys.readouterr().out)
    assert result is False and words in out and not_words not in out, out


def test_the_third_hybrid_case_has_unequal_layer_counts():
    n, L, i = HYBRID_CASES[2][:3]
    assert L // i != L - L // i          # 2 full, 4 with a state
    values = [v for v, _ in hybrid_mistakes(*HYBRID_CASES[2]) if v is not None]
    doubled = 2 * reference_hybrid_bytes(*HYBRID_CASES[2])
    every_layer_twice = [v for v, why in hybrid_mistakes(*HYBRID_CASES[2])
                         if "every layer twice" in why][0]
    assert every_layer_twice != doubled and doubled in values


def test_dividing_by_z_new_dot_z_new_is_not_called_k_dot_z_new(capsys):
    # at token 0, z_new = k: the two slips give one number there; the probe tells
    def zz(S, z, q, k, v):
        S_new, z_new = S + np.outer(k, v), z + k
        return q @ S_new / (z_new @ z_new), S_new, z_new
    assert checks.check_linear_step(zz) is False
    out = said(capsys.readouterr().out)
    assert "z_new . z_new" in out and "divided by k . z_new" not in out, out


def test_a_decayed_state_is_reported_before_the_output(capsys):
    def decays(S, z, q, k, v):
        S_new, z_new = 0.9 * S + np.outer(k, v), 0.9 * z + k
        return q @ S_new / (q @ z_new), S_new, z_new
    assert checks.check_linear_step(decays) is False
    out = said(capsys.readouterr().out)
    assert "At token 1: S_new is off by" in out and "o is off" not in out, out


def test_the_delta_message_at_token_0_has_its_colon(capsys):
    def half(S, k, v, beta, alpha=1.0):
        return 0.5 * lesson14.delta_step(S, k, v, beta, alpha)
    assert checks.check_delta_step(half) is False
    out = said(capsys.readouterr().out)
    assert "starting from S = 0: S_new is off by" in out, out
