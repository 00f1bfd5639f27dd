"""helpers/runtime/timing.py: best-of-several timing after a warm-up, and one BLAS
thread inside a block (restored afterwards)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.runtime import timing


def test_best_ms_warms_up_then_keeps_the_fastest(monkeypatch):
    calls = []
    clock = iter([0.0, 0.5, 1.0, 1.1, 2.0, 2.3])  # runs of 0.5, 0.1, 0.3 s
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(clock))
    assert timing.best_ms(lambda: calls.append(1), repeats=3) == pytest.approx(100.0)
    assert len(calls) == 4  # one warm-up, not timed, and three timed runs


def test_best_ms_rejects_no_runs():
    with pytest.raises(ValueError, match="at least 1"):
        timing.best_ms(lambda: None, repeats=0)


def test_one_blas_thread_limits_and_restores():
    pairs = timing._openblas_libraries()
    before = [get() for _, get in pairs]
    with timing.one_blas_thread() as limited:
        a = np.ones((64, 64))
        assert np.allclose(a @ a, 64.0)
        if pairs and limited:
            assert all(get() == 1 for _, get in pairs)
    assert [get() for _, get in pairs] == before


def test_best_seconds_is_best_ms_in_seconds(monkeypatch):
    calls, clock = [], iter([0.0, 5.0, 10.0, 11.0, 20.0, 23.0])
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(clock))
    assert timing.best_seconds(lambda: calls.append(1), repeats=3) == pytest.approx(1.0)
    assert len(calls) == 4                                  # one warm-up + 3 runs


def test_one_blas_thread_restores_after_an_error():
    pairs = timing._openblas_libraries()
    before = [get() for _, get in pairs]
    with pytest.raises(KeyError), timing.one_blas_thread():
        raise KeyError("inside")
    assert [get() for _, get in pairs] == before
