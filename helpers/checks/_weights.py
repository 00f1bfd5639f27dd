"""Diagnosing attention weights: which common mistake (K Q^T, no scaling,
the wrong softmax axis, a mask ignored or inverted) gives the learner's
weights. Shared by the checkers of lessons 04, 07 and 08."""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _Fail,
    _fmt,
    _close,
    _close_nan_as_zero,
)



_ATTN_WEIGHT_MESSAGES = {
    "kq": "Your weights come from K Q^T instead of Q K^T (each row of the "
    "weights should be one query's scores against all keys). Use Q @ K.T.",
    "video": "Your weights are the transpose of the expected ones: keys as rows, "
    "queries as columns (the video-style picture). In code rows are queries: "
    "use Q @ K.T and softmax over the last axis.",
    "noscale": "You forgot to divide the scores by sqrt(d_k) before the softmax "
    "(d_k = Q.shape[-1]).",
    "dk": "You divided the scores by d_k; divide by sqrt(d_k) instead.",
    "axis0": "Softmax over the wrong axis: your columns sum to 1, but each row "
    "(one query) should. Use softmax(..., axis=-1).",
    "ignored": "You ignored the mask: the weights where mask is False should be "
    "exactly 0. Set those scores to -np.inf before the softmax: "
    "np.where(mask, scores, -np.inf).",
    "inverted": "Your mask is the wrong way round: True means 'may attend', so "
    "the scores to block are where mask is False: np.where(mask, scores, "
    "-np.inf).",
    "mask_t": "You used the mask transposed (mask.T): mask[i, j] already says "
    "whether query i (row) may attend to key j (column).",
}


def _attention_candidates(Q, K, scale_ok=True, mask=None):
    d_k = Q.shape[-1]
    s = Q @ np.swapaxes(K, -1, -2)
    r = math.sqrt(d_k)

    def masked(scores, m):
        if m is None:
            return scores
        return np.where(m, scores, -np.inf)

    cands = {
        "noscale": softmax(masked(s, mask)),
        "dk": softmax(masked(s / d_k, mask)),
        "axis0": softmax(masked(s / r, mask), axis=-2),
    }
    if s.shape[-1] == s.shape[-2]:
        st = np.swapaxes(s, -1, -2)
        cands["kq"] = softmax(masked(st / r, mask))
        cands["video"] = np.swapaxes(softmax(masked(s / r, mask)), -1, -2)
    if mask is not None:
        cands["ignored"] = softmax(s / r)
        cands["inverted"] = softmax(np.where(mask, -np.inf, s / r))
        if mask.shape[-1] == mask.shape[-2]:
            cands["mask_t"] = softmax(
                np.where(np.swapaxes(mask, -1, -2), s / r, -np.inf)
            )
    return cands


def _diagnose_weights(got_w, Q, K, mask, expected_w, label, extra=None):
    """Raise _Fail naming the mistake in ``got_w`` (which is wrong)."""
    if mask is not None and got_w.shape == expected_w.shape:
        # multiplied by 0 after softmax: rows no longer sum to 1
        after = softmax(Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])) * mask
        if _close(got_w, after):
            sums = got_w.sum(axis=-1)
            raise _Fail(
                f"Your rows sum to {_fmt(sums, 2)}, not 1: it looks like you "
                "multiplied the weights by 0 after softmax. Put -inf in the "
                "scores before softmax instead: np.where(mask, scores, -np.inf)."
            )
        dead = ~np.asarray(mask).any(axis=-1)
        dead = np.broadcast_to(dead, expected_w.shape[:-1])
        if dead.any():
            rows_got = got_w[dead]
            if not np.isfinite(rows_got).all():
                raise _Fail(
                    "A fully masked row (a query with no allowed key) became NaN: "
                    "its max is -inf and -inf - (-inf) is NaN. Such a row should "
                    "be all zeros: replace a -inf row max by 0 before subtracting "
                    "(m = np.where(np.isfinite(m), m, 0)), and divide only where "
                    "the sum is > 0, or use helpers.attention.softmax."
                )
            if _close(got_w[~dead], expected_w[~dead]):
                raise _Fail(
                    f"A fully masked row (a query with no allowed key) should get "
                    f"all-zero weights, but yours is {_fmt(rows_got[0], 2)}. If you "
                    "used a big negative number instead of -inf, that row turned "
                    "uniform; use -np.inf and make an all -inf row give zeros."
                )
    if got_w.shape == expected_w.shape and not np.isfinite(got_w).all():
        if mask is not None and (~np.asarray(mask)).any():
            pass  # handled by the candidate search below (NaN read as 0)
        else:
            raise _Fail(
                f"For {label} your weights contain NaN or inf: {_fmt(got_w, 2)}. "
                "On large scores np.exp overflows; subtract each row's maximum "
                "before exp (or use helpers.attention.softmax)."
            )
    cands = _attention_candidates(Q, K, mask=mask)
    if extra:
        cands.update(extra)
    for key, value in cands.items():
        if value is not None and _close_nan_as_zero(got_w, value):
            if key in _ATTN_WEIGHT_MESSAGES:
                raise _Fail(_ATTN_WEIGHT_MESSAGES[key])
            raise _Fail(extra[key + "_message"] if key + "_message" in extra else key)
    if not np.isfinite(got_w).all():
        raise _Fail(f"For {label} your weights contain NaN or inf: {_fmt(got_w, 2)}.")
    sums = got_w.sum(axis=-1)
    if not np.allclose(sums, expected_w.sum(axis=-1), atol=1e-6):
        # the bracket only where some row is meant to be fully masked: else it
        # would excuse a learner's all-zero row
        dead = (expected_w.sum(axis=-1) == 0).any()
        raise _Fail(
            f"For {label} your rows of weights sum to {_fmt(sums, 2)}; each row "
            "(one query) should sum to 1"
            + (" (0 for a fully masked row)." if dead else ".")
        )
    raise _Fail(
        f"For {label} your weights differ from softmax(Q K^T / sqrt(d_k)): "
        f"expected {_fmt(expected_w, 2)}, got {_fmt(got_w, 2)}."
    )
