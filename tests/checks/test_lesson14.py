"""Lesson 14's checkers (helpers/checks/lesson14.py): each named mistake is
diagnosed, the reference solutions pass (also run by test_solutions.py)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.checks.lesson14 import (HYBRID_CASES, hybrid_mistakes,
                                     reference_hybrid_bytes)
from tools.solutions import lesson14


def said(text: str) -> str:
    return " ".join(text.split()) + ("\n" if text.endswith("\n") else "")


def _verdict(checker, fn, capsys):
    result = checker(fn)
    out = said(capsys.readouterr().out)
    assert out.count("\n") == 1, out
    return result, out


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


def test_hybrid_mistakes_all_differ_in_the_first_case():
    case = HYBRID_CASES[0]
    values = [v for v, _ in hybrid_mistakes(*case)] + [reference_hybrid_bytes(*case)]
    assert len(set(values)) == len(values)


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
])
def test_delta_step_names_the_mistake(fn, words, capsys):
    result, out = _verdict(checks.check_delta_step, fn, capsys)
    assert result is False and words in out, out


def test_delta_success_tells_the_overwrite(capsys):
    result, out = _verdict(checks.check_delta_step, lesson14.delta_step, capsys)
    assert result and "reads back 5" in out and "would read 7" in out
