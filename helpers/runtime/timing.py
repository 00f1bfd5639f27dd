"""Timing that holds on a busy machine, and the BLAS thread count (lessons 11-14).

A single timing of a numpy call depends on what else the machine is doing and
on how many threads the BLAS library (OpenBLAS, MKL, Accelerate) spreads a
matrix product over. Lesson 12 compares plain and tiled attention, so it
times each figure as the **best of several runs after a warm-up**, with the
BLAS library held to **one thread**: the best run is the one least disturbed
by other work, and one thread makes the two methods share the same budget.

:func:`blas_threads` is the one place the project sets the BLAS thread
count, through threadpoolctl. The trainers (lessons 09 and 13) and every
timed cell run inside it with one thread. Their matrices are small
(64 x 64 and less), so a second thread only adds hand-over costs, and on a
shared machine (a JupyterHub node, a Binder pod that sees all of its host's
cores) OpenBLAS's default of one thread per core made lesson 13's training
about 8 times slower (issue 53: 386 against 47-52 ms a step of
``tools/train_induction.py --numpy``, on the project's 2-core machine under
other load).
"""

from __future__ import annotations

import contextlib
import time

from threadpoolctl import ThreadpoolController

__all__ = ["best_ms", "best_seconds", "blas_threads", "one_blas_thread"]


_CONTROLLER = []  # threadpoolctl's view of the loaded libraries, made once


def _controller():
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController().select(user_api="blas"))
    return _CONTROLLER[0]


class blas_threads(contextlib.ContextDecorator):  # noqa: N801 (used like a function)
    """``with blas_threads() as limited:`` runs its block with the BLAS
    library on ``n`` threads (``None``: one) and restores the old counts
    afterwards, even after an error. ``limited`` is True when a BLAS library
    was found and limited, False when there was none to limit.

    Also a decorator (``@blas_threads()`` runs each call of a function so),
    and ``blas_threads().hold()`` sets the count for good (a notebook's
    kernel: :func:`helpers.notebook.setup_notebook`). About 0.1 ms a use.
    """

    def __init__(self, n: int | None = None):
        self.n = 1 if n is None else int(n)
        if self.n < 1:
            raise ValueError(f"n must be at least 1 thread, got {n}")
        self._limiter = None

    def hold(self) -> bool:
        """Set the count and keep it (nothing restores it); True if limited."""
        _controller().limit(limits=self.n)
        return bool(_controller().lib_controllers)

    def __enter__(self) -> bool:
        self._limiter = _controller().limit(limits=self.n)
        return bool(_controller().lib_controllers)

    def __exit__(self, *exc) -> None:
        self._limiter.restore_original_limits()

    def _recreate_cm(self):  # a decorated function may run in two threads at once
        return blas_threads(self.n)


def one_blas_thread():
    """``with one_blas_thread() as limited:``: :func:`blas_threads` with one."""
    return blas_threads(1)


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
