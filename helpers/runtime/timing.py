"""Timing that holds on a busy laptop (lessons 11 and 12).

A single timing of a numpy call depends on what else the machine is doing and
on how many threads the BLAS library (OpenBLAS, MKL, Accelerate) spreads a
matrix product over. Lesson 12 compares plain and tiled attention, so it
times each figure as the **best of several runs after a warm-up**, with the
BLAS library held to **one thread**: the best run is the one least disturbed
by other work, and one thread makes the two methods share the same budget.

:func:`one_blas_thread` calls OpenBLAS's own ``set_num_threads`` in the
library numpy loaded (numpy's wheels bring OpenBLAS; found on Linux through
``/proc/self/maps``); where that is not possible (another BLAS, another
system) it changes nothing and says so in ``limited``.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import time

__all__ = ["best_ms", "best_seconds", "one_blas_thread"]


def _openblas_libraries():
    """(set, get) function pairs of every OpenBLAS this process has loaded
    (Linux: read from /proc/self/maps); empty elsewhere."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", f.read())))
    except OSError:
        return []
    pairs = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("openblas", "64_"),
                               ("openblas", "")):
            try:
                pairs.append((getattr(lib, f"{prefix}_set_num_threads{suffix}"),
                              getattr(lib, f"{prefix}_get_num_threads{suffix}")))
                break
            except AttributeError:
                continue
    return pairs


@contextlib.contextmanager
def one_blas_thread():
    """``with one_blas_thread() as limited:`` runs its block with the BLAS
    library on one thread and restores the old count afterwards. ``limited``
    is True when the limit could be set, False when nothing was changed."""
    pairs = _openblas_libraries()
    old = [get() for _, get in pairs]
    for set_threads, _ in pairs:
        set_threads(1)
    try:
        yield bool(pairs)
    finally:
        for (set_threads, _), n in zip(pairs, old):
            set_threads(max(1, int(n)))


def best_ms(fn, repeats: int = 5) -> float:
    """The fastest of ``repeats`` runs of ``fn()`` in milliseconds, after one
    warm-up run that is not counted (it fills caches and allocates)."""
    if int(repeats) < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats!r}")
    fn()
    best = float("inf")
    for _ in range(int(repeats)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return 1000.0 * best


def best_seconds(fn, repeats: int = 5) -> float:
    """:func:`best_ms` in seconds: one warm-up call, then the best of ``repeats``."""
    return best_ms(fn, repeats) / 1000.0
