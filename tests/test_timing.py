"""helpers.timing: the best of several runs after a warm-up, and one BLAS
thread inside the block (restored after it, also after an error)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import timing


def test_best_seconds_warms_up_then_keeps_the_fastest(monkeypatch):
    calls, clock = [], iter([0.0, 5.0, 10.0, 11.0, 20.0, 23.0])
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(clock))
    assert timing.best_seconds(lambda: calls.append(1), repeats=3) == 1.0
    assert len(calls) == 4                                  # one warm-up + 3 runs


def test_one_blas_thread_limits_and_restores():
    np.ones((64, 64)) @ np.ones((64, 64))                   # OpenBLAS is loaded
    found = timing._openblas()
    if found is None:
        pytest.skip("no OpenBLAS found in this process (not Linux, or another BLAS)")
    _, get_threads = found
    before = get_threads()
    with timing.one_blas_thread():
        assert get_threads() == 1
    assert get_threads() == before
    with pytest.raises(KeyError), timing.one_blas_thread():
        raise KeyError("inside")
    assert get_threads() == before
