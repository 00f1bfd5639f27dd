"""Lesson 10: the checkers of the real-transformer exercises.

They run the learner's function on all-MiniLM-L6-v2 itself
(:mod:`helpers.pretrained`). The model is loaded once, on first use; with
no copy and no network the checker says so in one sentence instead of
failing.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _Fail,
    _as_array,
    _call,
    _checker,
    _require_shape,
)

REAL_HEAD_TEXT = "The old fisherman rowed his boat to the river bank at dawn."
REAL_HEADS = ((0, 2), (3, 1), (5, 8))


def _model(model):
    """``model``, or the shared ``pretrained.load()``; a missing copy is a _Fail."""
    if model is not None:
        return model
    from helpers import pretrained

    try:
        return pretrained.load()
    except pretrained.ModelNotAvailable as exc:
        raise _Fail(str(exc)) from None


def check_real_head(fn, model=None, text: str = REAL_HEAD_TEXT) -> bool:
    """Check ``fn(x, W_Q, b_Q, W_K, b_K) -> weights (n, n)`` on real heads.

    ``model`` defaults to ``helpers.pretrained.load()``. For each head in
    ``REAL_HEADS`` the learner's function gets the layer's input
    ``x = run.hidden[layer]`` (n, 384) and the head's slices ``W_Q, W_K``
    (384, 32) and biases ``b_Q, b_K`` (32,), and must return the head's
    attention pattern, equal (within 1e-5) to ``run.attention[layer, head]``.
    """

    @_checker("one real head's attention pattern")
    def check_real_head(fn, name):
        mdl = _model(model)
        run = mdl.run(text)
        for layer, head in REAL_HEADS:
            x = run.hidden[layer]
            W_Q, b_Q, W_K, b_K = mdl.head_weights(layer, head)
            expected = run.attention[layer, head]
            result, _ = _call(fn, name, ("x", "W_Q", "b_Q", "W_K", "b_K"),
                              x, W_Q, b_Q, W_K, b_K)
            if isinstance(result, tuple) and len(result) == 2:
                raise _Fail(
                    f"Your {name} returned two things; return only the weights "
                    "(the second thing your attention function returns)."
                )
            got = _as_array(result, f"What your {name} returns")
            label = f"layer {layer}, head {head}"
            _require_shape(got, expected.shape, f"For {label}, the weights",
                           "One row per query token and one column per key token.")
            if np.allclose(got, expected, rtol=0, atol=1e-5):
                continue
            Q, K = x @ W_Q + b_Q, x @ W_K + b_K
            d_k = Q.shape[-1]
            tries = {
                "no_bias": softmax((x @ W_Q) @ (x @ W_K).T / math.sqrt(d_k)),
                "no_scale": softmax(Q @ K.T),
                "swapped": softmax((K @ Q.T) / math.sqrt(d_k)),
            }
            if (np.allclose(got, tries["swapped"], atol=1e-5)
                    or np.allclose(got, expected.T, atol=1e-5)):
                raise _Fail(
                    f"For {label} your weights are transposed: rows must be queries. "
                    "Pass Q first and K second to attention (scores = Q K^T)."
                )
            if np.allclose(got, tries["no_bias"], atol=1e-5):
                raise _Fail(
                    f"For {label} the biases are missing: Q = x @ W_Q + b_Q and "
                    "K = x @ W_K + b_K."
                )
            if np.allclose(got, tries["no_scale"], atol=1e-5):
                raise _Fail(
                    f"For {label} the scores are not divided by sqrt(d_k) = "
                    f"{math.sqrt(d_k):g}; your attention function from lesson 04 "
                    "should do that."
                )
            if not np.allclose(got.sum(axis=-1), 1, atol=1e-4):
                raise _Fail(
                    f"For {label} the rows of your weights do not sum to 1: did the "
                    "softmax run along the last axis (one row per query)?"
                )
            worst = float(np.abs(got - expected).max())
            raise _Fail(
                f"For {label} your weights differ from the model's by up to "
                f"{worst:.2g}. Build Q from x, W_Q and b_Q, K from x, W_K and b_K, "
                "then call your attention(Q, K, V) (any V of n rows will do)."
            )
        heads = ", ".join(f"layer {lay} head {h}" for lay, h in REAL_HEADS)
        return (f"{name} reproduces the real model's heads ({heads}) on "
                f'"{text}" within 1e-5.')

    return check_real_head(fn)
