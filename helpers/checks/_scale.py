"""Which number did the learner divide the scores by? Shared by the checkers
of lessons 08 and 10: a pattern that is ``softmax(Q K^T / c)`` for some
number ``c`` other than ``sqrt(d_k)`` is named by what ``c`` is (1, d_k, the
model's width, its square root, the number of tokens, or a number typed in)."""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import softmax
from helpers.checks._core import _close


def _fitted_divisor(got, raw, mask=None):
    """The ``c`` with ``got == softmax(raw / c)`` (``raw = Q K^T``, masked
    keys excluded), or None when no single number fits.

    Within a row, ``log got_ij - log got_ik = (raw_ij - raw_ik) / c``, so
    ``1 / c`` is a least-squares slope of the row-centred logs against the
    row-centred scores; the fit is then checked by recomputing the softmax.
    """
    got = np.asarray(got, dtype=float)
    raw = np.asarray(raw, dtype=float)
    if got.shape != raw.shape or got.ndim != 2 or not np.isfinite(got).all():
        return None
    keep = np.ones(raw.shape, bool)
    if mask is not None:
        keep = np.broadcast_to(mask, raw.shape)
    if (got[keep] <= 0).any():
        return None
    xs, ys = [], []
    for i in range(raw.shape[0]):
        k = keep[i]
        if k.sum() < 2:
            continue
        x, y = raw[i, k], np.log(got[i, k])
        xs.append(x - x.mean())
        ys.append(y - y.mean())
    if not xs:
        return None
    x, y = np.concatenate(xs), np.concatenate(ys)
    if not (x @ x) > 0:
        return None
    slope = (x @ y) / (x @ x)
    if not np.isfinite(slope) or abs(slope) < 1e-12:
        return None
    scores = np.where(keep, raw * slope, -np.inf)
    if not _close(got, softmax(scores)):
        return None
    return 1.0 / slope


def name_the_divisor(got, raw, named, mask=None, what="scores"):
    """A message naming the number the learner divided ``raw`` by, or None.

    ``named`` lists ``(value, description)`` or ``(value, description,
    message)`` entries, the right one first (``(sqrt(d_k), "sqrt(d_k)")``);
    the first value within 0.1% of the fitted divisor is named, by
    ``message`` when the entry gives one (a whole sentence or two, numbers
    included), else by "You divided the scores by <description> = <value>"
    (a three-part entry's description carries its own number).
    A divisor that is the reciprocal of a named value is reported as that
    value multiplied in; an unnamed divisor as a typed-in number.
    """
    c = _fitted_divisor(got, raw, mask)
    if c is None:
        return None
    right, right_name = named[0][:2]
    if math.isclose(c, right, rel_tol=1e-3):
        return None
    for entry in named[1:]:
        value, description = entry[:2]
        if math.isclose(c, value, rel_tol=1e-3):
            if value == 1:
                return (f"You did not divide the {what} by {right_name} = {right:.4g} "
                        "before the softmax.")
            if len(entry) > 2:
                return entry[2]
            return (f"You divided the {what} by {description} = {value:.4g}; divide "
                    f"by {right_name} = {right:.4g} instead.")
    for entry in named:
        value, description = entry[:2]
        if value != 1 and math.isclose(c, 1 / value, rel_tol=1e-3):
            if value == right:
                return (f"You multiplied the {what} by {right_name} = {right:.4g}; "
                        f"divide them by it: softmax(Q K^T / {right_name}).")
            if len(entry) < 3:
                description = f"{description} = {value:.4g}"
            return (f"You multiplied the {what} by {description}; divide them by "
                    f"{right_name} = {right:.4g} instead.")
    if c < 0:
        return (f"Your {what} have the wrong sign: they look divided by {c:.4g}. "
                f"Divide by {right_name} = {right:.4g}.")
    return (f"You divided the {what} by {c:.4g}, a number that is none of the sizes "
            f"here (typed in by hand?). Divide by {right_name} = {right:.4g}, "
            "computed from the arrays, so that it is right for any size.")
