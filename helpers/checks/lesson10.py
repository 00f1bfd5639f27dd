"""Lesson 10: the checkers of the real-transformer exercises.

They run the learner's function on all-MiniLM-L6-v2 itself
(:mod:`helpers.models.pretrained`). The model is loaded once, on first use; with
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
from helpers.checks._scale import name_the_divisor

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_real_head", "check_n_attention_weights", "check_causal_head_pattern"]

REAL_HEAD_TEXT = "The old fisherman rowed his boat to the river bank at dawn."
REAL_HEADS = ((0, 2), (3, 1), (5, 8))


def _model(model):
    """``model``, or the shared ``pretrained.load()``; a missing copy is a _Fail."""
    if model is not None:
        return model
    from helpers.models import pretrained

    try:
        return pretrained.load()
    except pretrained.ModelNotAvailable as exc:
        raise _Fail(str(exc)) from None


def _real_heads(model, text):
    """For each of ``REAL_HEADS``: ``(layer, head, run, (x, W_Q, b_Q, W_K, b_K))``,
    the layer's input (n, 384) and the head's slices, as the exercises take them."""
    mdl = _model(model)
    run = mdl.run(text)
    for layer, head in REAL_HEADS:
        yield layer, head, run, (run.hidden[layer], *mdl.head_weights(layer, head))


def _divisors(x, Q):
    """What a learner might divide a real head's scores by, the right one first
    (see :func:`helpers.checks._scale.name_the_divisor`)."""
    d_k, d_model, n = Q.shape[-1], x.shape[-1], x.shape[0]
    fix = (f"d_k = Q.shape[-1] = {d_k} is one head's width: divide by "
           f"sqrt({d_k}) = {math.sqrt(d_k):.4g}.")
    return [(math.sqrt(d_k), "sqrt(d_k)"), (1, ""),
            (d_k, "d_k itself, without the square root"),
            (math.sqrt(d_model), f"sqrt({d_model})",
             f"You divided the scores by sqrt({d_model}) = {math.sqrt(d_model):.3g}, "
             f"the square root of the model width d_model (x has {d_model} columns). "
             f"{fix}"),
            (d_model, f"the model width {d_model}",
             f"You divided the scores by {d_model}, the model width d_model (x has "
             f"{d_model} columns). {fix}"),
            (math.sqrt(n), f"sqrt({n})",
             f"You divided the scores by sqrt({n}) = {math.sqrt(n):.4g}, the square "
             f"root of the number of word pieces; d_k is a width, not a length. "
             f"{fix}")]


def check_real_head(fn, model=None, text: str = REAL_HEAD_TEXT) -> bool:
    """Check ``fn(x, W_Q, b_Q, W_K, b_K) -> weights (n, n)`` on real heads.

    ``model`` defaults to ``helpers.models.pretrained.load()``. For each head in
    ``REAL_HEADS`` the learner's function gets the layer's input
    ``x = run.hidden[layer]`` (n, 384) and the head's slices ``W_Q, W_K``
    (384, 32) and biases ``b_Q, b_K`` (32,), and must return the head's
    attention pattern, equal (within 1e-5) to ``run.attention[layer, head]``.
    """

    @_checker("one real head's attention pattern")
    def check_real_head(fn, name):
        for layer, head, run, (x, W_Q, b_Q, W_K, b_K) in _real_heads(model, text):
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
            if got.shape == x.shape or got.shape == (len(x), W_K.shape[1]):
                raise _Fail(f"For {label} you returned an array of shape {got.shape}: "
                            "that is attention's output (weights @ V). Return the "
                            "weights, the second thing attention returns.")
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
                # without b_Q, b_K adds q . b_K to every score of a row: the same
                # for each key, so the softmax cannot tell whether it is there
                raise _Fail(
                    f"For {label}: b_Q is missing (b_K too, or not: without b_Q "
                    "the weights are the same either way). Q = x @ W_Q + b_Q and "
                    "K = x @ W_K + b_K."
                )
            if np.allclose(got, tries["no_scale"], atol=1e-5):
                raise _Fail(
                    f"For {label} the scores are not divided by sqrt(d_k) = "
                    f"{math.sqrt(d_k):g}; your attention function from lesson 04 "
                    "should do that."
                )
            scale = name_the_divisor(got, Q @ K.T, _divisors(x, Q))
            if scale:
                raise _Fail(f"For {label}: {scale}")
            r = math.sqrt(d_k)
            n = len(x)
            more = {
                "the biases are swapped: Q = x @ W_Q + b_Q (the query's bias) and K = "
                "x @ W_K + b_K": softmax((x @ W_Q + b_K) @ (x @ W_K + b_Q).T / r),
                "your keys are built with W_Q: K = x @ W_K + b_K":
                    softmax(Q @ Q.T / r),
                "your queries are built with W_K: Q = x @ W_Q + b_Q":
                    softmax(K @ K.T / r),
                "you divided by sqrt(d_k) after the softmax: the scores are "
                "divided before it, softmax(Q K^T / sqrt(d_k))":
                    softmax(Q @ K.T) / r,
                "you applied a causal mask: this model is an encoder, every word "
                "piece sees every other one (no mask here; the mask is the optional "
                "section 10)": softmax(np.where(np.tril(np.ones((n, n), bool)),
                                                Q @ K.T / r, -np.inf)),
            }
            for why, wrong in more.items():
                if np.allclose(got, wrong, atol=1e-5):
                    raise _Fail(f"For {label} {why}.")
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


# ------------------------------------------------- warm-up: count the weights ---


@_checker("the number of attention weights")
def check_n_attention_weights(fn, name):
    """Check ``fn(n_pieces, n_layers, n_heads) -> n_layers * n_heads * n_pieces**2``.

    Every head of every layer gives one weight per (query, key) pair of word
    pieces ([CLS] and [SEP] included in ``n_pieces``).
    """
    # the first case's sizes are chosen so that no two mistakes give the same
    # number (with 2 layers, 3 x Q, K, V would look like 6 layers typed in)
    cases = ((10, 5, 7), (15, 6, 12), (7, 1, 1), (2, 6, 12), (1, 6, 12))
    for n, L, H in cases:
        result, _ = _call(fn, name, ("n_pieces", "n_layers", "n_heads"), n, L, H)
        got = _as_array(result, f"What your {name} returns")
        if got.shape != ():
            raise _Fail(f"Your {name} returned an array of shape {got.shape}; "
                        "return one number.")
        got = float(got)
        expected = L * H * n * n
        if got == expected:
            continue
        tries = {
            "square": (L * H * n, "you did not square n_pieces: every query has "
                       "a weight for every key, n_pieces x n_pieces per head"),
            "heads": (L * n * n, "the heads are missing: each of the n_heads "
                      "heads of a layer has its own pattern"),
            "layers": (H * n * n, "the layers are missing: every layer has its "
                       "own n_heads patterns"),
            "diagonal": (L * H * n * (n - 1), "you left out the diagonal: a word "
                         "piece also attends to itself"),
            "causal": (L * H * n * (n + 1) / 2, "you counted a causal triangle: "
                       "this encoder has no causal mask, every word piece sees "
                       "every other one (a masked weight is still stored, as 0)"),
            "special": (L * H * (n + 2) ** 2, "you added [CLS] and [SEP] again: "
                        "n_pieces already counts them"),
            "unspecial": (L * H * (n - 2) ** 2, "you left out [CLS] and [SEP]: they "
                          "are word pieces too, with rows and columns of their "
                          "own, and n_pieces already counts them"),
            "72": (72 * n * n, "you wrote 72 = 6 x 12 by hand: use the arguments, "
                   "n_layers x n_heads, so the count is right for any model"),
            "6": (6 * H * n * n, "you wrote 6 layers by hand: use the argument "
                  "n_layers"),
            "12": (L * 12 * n * n, "you wrote 12 heads by hand: use the argument "
                   "n_heads"),
            "one": (n * n, "that is one head's pattern: multiply by the number of "
                    "heads and of layers"),
            "added": ((L + H) * n * n, "you added the layers and the heads: every "
                      "layer has n_heads heads, so multiply, n_layers x n_heads"),
            "qkv": (3 * L * H * n * n, "three times too many (x3): you counted "
                    "Q, K and V. A head has one weight per (query, key) pair, "
                    "n_pieces x n_pieces"),
            "twice": (2 * L * H * n * n, "you counted every pattern twice: one "
                      "weight per (query, key) pair, n_pieces x n_pieces per head"),
        }
        for wrong, why in tries.values():
            if got == wrong:
                raise _Fail(f"For n_pieces={n}, n_layers={L}, n_heads={H} you "
                            f"gave {got:,.0f}: {why}. Expected {expected:,}.")
        raise _Fail(f"For n_pieces={n}, n_layers={L}, n_heads={H} expected "
                    f"{expected:,} weights, got {got:,.6g}: one pattern of "
                    "n_pieces x n_pieces per head, n_heads heads per layer.")
    return (f"{name} counts n_layers x n_heads x n_pieces^2 weights: 16,200 for "
            "15 word pieces in this model (6 layers, 12 heads).")


# ------------------------------------- stretch: the same head with a causal mask ---


def check_causal_head_pattern(fn, model=None, text: str = REAL_HEAD_TEXT) -> bool:
    """Check ``fn(x, W_Q, b_Q, W_K, b_K) -> weights (n, n)`` of a real head
    with a causal mask: ``softmax(where(j <= i, Q K^T / sqrt(d_k), -inf))``.

    Same inputs as :func:`check_real_head`; the expected weights are the
    head's scores, masked before the softmax (lesson 06).
    """

    @_checker("the causal version of a real head")
    def check_causal_head_pattern(fn, name):
        for layer, head, run, (x, W_Q, b_Q, W_K, b_K) in _real_heads(model, text):
            Q, K = x @ W_Q + b_Q, x @ W_K + b_K
            d_k, n = Q.shape[-1], x.shape[0]
            S = Q @ K.T / math.sqrt(d_k)
            lower = np.tril(np.ones((n, n), dtype=bool))

            def masked(scores, keep=lower, fill=-np.inf):
                return softmax(np.where(keep, scores, fill))

            expected = masked(S)
            result, _ = _call(fn, name, ("x", "W_Q", "b_Q", "W_K", "b_K"),
                              x, W_Q, b_Q, W_K, b_K)
            if isinstance(result, tuple) and len(result) == 2:
                raise _Fail(f"Your {name} returned two things; return only the "
                            "weights (the second thing attention returns).")
            got = _as_array(result, f"What your {name} returns")
            label = f"layer {layer}, head {head}"
            _require_shape(got, expected.shape, f"For {label}, the weights",
                           "One row per query token and one column per key token.")
            if np.allclose(got, expected, rtol=0, atol=1e-5):
                continue
            tries = {
                "after": (softmax(S) * lower, "you masked after the softmax: the "
                          "rows no longer sum to 1. Set the masked scores to -inf "
                          "first, then take the softmax"),
                "upper": (masked(S, lower.T), "wrong triangle: each token sees the "
                          "tokens after it. Rows are queries: keep key j <= query "
                          "i, the lower triangle (np.tril)"),
                "diagonal": (masked(S, np.tril(lower, k=-1)), "you left out the "
                             "diagonal: a token may attend to itself (np.tril "
                             "with k=0, the default; j <= i)"),
                "none": (softmax(S), "there is no causal mask: these are the "
                         "model's own (bidirectional) weights. Mask key j > "
                         "query i before the softmax"),
                "zero": (masked(S, fill=0.0), "the masked scores are 0 instead "
                         "of -inf: exp(0) = 1 still gives them weight"),
                "scale": (masked(Q @ K.T), "the scores are not divided by "
                          f"sqrt(d_k) = {math.sqrt(d_k):g}"),
                "bias": (masked((x @ W_Q) @ (x @ W_K).T / math.sqrt(d_k)), "b_Q "
                         "is missing: Q = x @ W_Q + b_Q (and K = x @ W_K + b_K)"),
                "transposed": (expected.T, "your weights are transposed: rows "
                               "must be queries (scores = Q K^T)"),
                "kq": (masked(K @ Q.T / math.sqrt(d_k)), "your scores are K Q^T: "
                       "rows must be queries, so the scores are Q @ K.T"),
                "inverted": (masked(S, ~lower), "your mask is the wrong way round: "
                             "it blocks the keys a token may see (j <= i) and keeps "
                             "the later ones. True in the mask means 'may attend'"),
                "axis0": (softmax(np.where(lower, S, -np.inf), axis=0), "the "
                          "softmax ran down the columns (axis=0): each row, one "
                          "query, must sum to 1 (axis=-1)"),
            }
            # a row with no allowed key is NaN in a learner's own softmax and 0
            # in the library's: read NaN as 0 to name the mask behind it
            read = np.nan_to_num(got, nan=0.0, posinf=0.0, neginf=0.0)
            for wrong, why in tries.values():
                if np.allclose(read, wrong, rtol=0, atol=1e-5):
                    raise _Fail(f"For {label} {why}.")
            if not np.isfinite(got).all():
                raise _Fail(
                    f"For {label} your weights contain NaN or inf. A row whose "
                    "scores are all -inf has nothing to attend to: did you leave "
                    "out the diagonal (np.tril(..., k=-1))? Row 0 must keep its "
                    "own key.")
            strict = masked(S, np.tril(lower, k=-1))
            if np.allclose(got[1:], strict[1:], rtol=0, atol=1e-5):
                raise _Fail(f"For {label} you left out the diagonal (a mask j < i): "
                            "a token may attend to itself, j <= i (np.tril with k=0, "
                            "the default). Row 0 then has no key at all.")
            scale = name_the_divisor(got, Q @ K.T, _divisors(x, Q), mask=lower)
            if scale:
                raise _Fail(f"For {label}: {scale}")
            worst = float(np.abs(got - expected).max())
            raise _Fail(
                f"For {label} your weights differ from the causal ones by up to "
                f"{worst:.2g}. Build Q and K as in the exercise, then call "
                "attention(Q, K, K, mask=np.tril(np.ones((n, n), dtype=bool))).")
        return (f"{name} gives every real head it was given ({len(REAL_HEADS)} "
                "heads) a causal pattern: later keys get weight 0 and each row "
                "sums to 1, like a GPT-style decoder.")

    return check_causal_head_pattern(fn)
