"""helpers/runtime/timing.py: best-of-several timing after a warm-up, and one BLAS
thread inside a block (restored afterwards)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

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


def _blas_counts():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_blas_threads_limits_and_restores():
    before = _blas_counts()
    with timing.blas_threads() as limited:
        a = np.ones((64, 64))
        assert np.allclose(a @ a, 64.0)
        assert limited == bool(before)
        assert all(n == 1 for n in _blas_counts())     # None means one thread
    assert _blas_counts() == before


def test_blas_threads_takes_a_count_and_works_as_a_decorator():
    @timing.blas_threads(2)
    def inside():
        return _blas_counts()

    before = _blas_counts()
    assert all(n == 2 for n in inside())
    assert _blas_counts() == before
    with timing.one_blas_thread():
        assert all(n == 1 for n in _blas_counts())
    with pytest.raises(ValueError, match="at least 1"), timing.blas_threads(0):
        pass


def test_best_seconds_is_best_ms_in_seconds(monkeypatch):
    calls, clock = [], iter([0.0, 5.0, 10.0, 11.0, 20.0, 23.0])
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(clock))
    assert timing.best_seconds(lambda: calls.append(1), repeats=3) == pytest.approx(1.0)
    assert len(calls) == 4                                  # one warm-up + 3 runs


def test_blas_threads_restores_after_an_error():
    before = _blas_counts()
    with pytest.raises(KeyError), timing.blas_threads():
        raise KeyError("inside")
    assert _blas_counts() == before


def test_blas_threads_hold_keeps_the_count():
    before = _blas_counts()
    try:
        assert timing.blas_threads(2).hold() == bool(before)
        assert all(n == 2 for n in _blas_counts())   # still set: nothing restores it
    finally:
        for n in set(before):
            timing.blas_threads(n).hold()


def test_setup_notebook_leaves_the_kernel_one_blas_thread():
    from helpers.notebook import setup_notebook

    before = _blas_counts()
    try:
        timing.blas_threads(2).hold()
        setup_notebook()
        assert all(n == 1 for n in _blas_counts())
    finally:
        for n in set(before):
            timing.blas_threads(n).hold()
