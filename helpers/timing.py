"""Timings that hold on a busy laptop (lesson 11): the best of several runs
after a warm-up, with the BLAS library limited to one thread.

The best run is the one least disturbed by other programs; one BLAS thread
keeps numpy from waiting on cores that other work holds (the matrices of the
lessons are small, so more threads would not help them anyway). The thread
count is set through OpenBLAS's own function, found among the libraries the
process has loaded (Linux; numpy's wheels bring OpenBLAS), so no package is
needed for it; where it cannot be found the timing still runs, with the
library's own threads.
"""

from __future__ import annotations

import ctypes
import time
from contextlib import contextmanager

__all__ = ["best_seconds", "one_blas_thread"]

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")


def _openblas():
    """``(set_threads, get_threads)`` of the OpenBLAS numpy loaded, or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SETTERS:
            getter = name.replace("set_num", "get_num")
            if hasattr(lib, name) and hasattr(lib, getter):
                return getattr(lib, name), getattr(lib, getter)
    return None


@contextmanager
def one_blas_thread():
    """Inside the ``with`` block numpy's matrix products use one thread."""
    found = _openblas()
    if found is None:
        yield
        return
    set_threads, get_threads = found
    before = int(get_threads())
    set_threads(1)
    try:
        yield
    finally:
        set_threads(before)


def best_seconds(fn, repeats: int = 5) -> float:
    """Seconds of ``fn()``: one warm-up call, then the best of ``repeats``."""
    fn()
    best = float("inf")
    for _ in range(int(repeats)):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
