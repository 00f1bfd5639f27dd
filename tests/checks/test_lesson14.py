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


def test_hybrid_mistakes_all_differ_in_the_first_and_last_case():
    for case in (HYBRID_CASES[0], HYBRID_CASES[-1]):
        values = [v for v, _ in hybrid_mistakes(*case)]
        assert len(set(values)) == len(values)
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
     + (L - L // i) * hs * dk * dv, "multiplies the cache only"),
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
