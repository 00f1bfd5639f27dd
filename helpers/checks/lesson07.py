"""Lesson 07: the checkers of the parameter count, multi-head attention and
batched attention."""

from __future__ import annotations


import numpy as np

from helpers.attention import (
    causal_mask,
    scaled_dot_product_attention,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _close_nan_as_zero,
    _first_match,
    _call,
    _unpack_pair,
    _require_shape,
    _checker,
    _whole_numbers,
    _nonfinite,
)
from helpers.checks._weights import _diagnose_weights

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_multi_head", "check_attention_params", "check_batched_attention"]


def _mh_data(seed, n=5, d_model=6, h=2, d_k=3, d_v=2):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, d_model))
    W_Q = rng.standard_normal((h, d_model, d_k))
    W_K = rng.standard_normal((h, d_model, d_k))
    W_V = rng.standard_normal((h, d_model, d_v))
    W_O = rng.standard_normal((h * d_v, d_model))
    return E, W_Q, W_K, W_V, W_O


def _mh_reference(
    E, W_Q, W_K, W_V, W_O, mask=None, split_wrong=False, merge_wrong=False
):
    """Per-head reference, optionally with the classic reshape mistakes."""
    h, d_model, d_k = W_Q.shape
    d_v = W_V.shape[2]
    n = E.shape[0]
    if split_wrong:
        # fused projection (n, h*d) split by reshape without the transpose
        def split(W, d):
            fused = E @ W.transpose(1, 0, 2).reshape(d_model, h * d)
            return fused.reshape(h, n, d)

        Q, K, V = split(W_Q, d_k), split(W_K, d_k), split(W_V, d_v)
    else:
        Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    if merge_wrong:
        merged = heads.reshape(n, h * d_v)
    else:
        merged = heads.transpose(1, 0, 2).reshape(n, h * d_v)
    return merged @ W_O, weights, heads


@_checker("multi-head attention")
def check_multi_head(fn, name):
    """Check ``fn(E, W_Q, W_K, W_V, W_O, mask=None) -> (dE, weights (h, n, n))``."""
    cases = [
        ("5 tokens, 2 heads", _mh_data(_SEED), None),
        (
            "4 tokens, 3 heads, causal mask",
            _mh_data(_SEED + 1, n=4, h=3),
            causal_mask(4),
        ),
    ]
    for label, arrays, mask in cases:
        E, W_Q, W_K, W_V, W_O = arrays
        h, n, d_v, d_model = W_Q.shape[0], E.shape[0], W_V.shape[2], W_O.shape[1]
        dE, weights, heads = _mh_reference(*arrays, mask=mask)
        result, _ = _call(fn, name, ("E", "W_Q", "W_K", "W_V", "W_O"), *arrays,
                          mask=mask)
        got_dE, got_w = _unpack_pair(result, name, "dE", "weights")
        if got_w.shape != weights.shape:
            hint = "That is (h, n, n): one n x n pattern per head."
            if got_w.shape == (n, n):
                hint += " You returned a single pattern; keep every head's."
            _require_shape(got_w, weights.shape, f"For {label}, weights", hint)
        split_dE, split_w, _ = _mh_reference(*arrays, mask=mask, split_wrong=True)
        if not _close(got_w, weights):
            if _close_nan_as_zero(got_w, split_w):
                raise _Fail(
                    "Your heads got mixed up: it looks like you split a fused "
                    "(n, h*d_k) projection with .reshape(h, n, d_k). Reshape to "
                    "(n, h, d_k) first, then .transpose(1, 0, 2) to (h, n, d_k)."
                )
            if got_w.shape[0] == h and _close(got_w[::-1], weights) and h > 1:
                raise _Fail(
                    "Your heads are in the wrong order: weights[i] should be "
                    "head i's pattern (W_Q[i], W_K[i])."
                )
            _diagnose_weights(got_w, E @ W_Q, E @ W_K, mask, weights, label)
        if got_dE.shape != dE.shape:
            hint = "That is (n, d_model): the heads' outputs concatenated, times W_O."
            if got_dE.shape == (n, h * d_v):
                hint += (
                    " Yours looks like the concatenation without W_O: multiply by W_O."
                )
            elif got_dE.shape == (h, n, d_v):
                hint += (
                    " Yours is the per-head outputs: merge them with "
                    ".transpose(1, 0, 2).reshape(n, h * d_v), then @ W_O."
                )
            elif got_dE.shape == (h, n, d_model):
                hint += " Yours keeps one update per head: add them up over the heads."
            _require_shape(got_dE, dE.shape, f"For {label}, dE", hint)
        if _close(got_dE, dE):
            continue
        merged_wrong = heads.reshape(n, h * d_v) @ W_O
        blocks = [W_O[i * d_v : (i + 1) * d_v] for i in range(h)]
        found = _first_match(
            got_dE,
            {
                "merge": merged_wrong,
                "mean": dE / h,
                "concat_order": np.concatenate(list(heads[::-1]), axis=1) @ W_O,
                "plus_e": dE + E,
                "one_head": heads[0] @ blocks[0],
                "last_head": heads[-1] @ blocks[-1],
            },
        )
        messages = {
            "merge": "Your patterns are right, but the heads were merged with "
            ".reshape(n, h * d_v) straight from (h, n, d_v): that scrambles "
            "tokens and heads. Transpose first: heads.transpose(1, 0, 2)"
            ".reshape(n, h * d_v).",
            "mean": "You averaged the heads' updates; they are added: "
            "dE = sum over heads (the concatenation times W_O does that).",
            "concat_order": "The heads are concatenated in the wrong order: "
            "head 0 first, matching W_O's first block of rows.",
            "plus_e": "You returned E + dE; this function returns only the update dE.",
            "one_head": "Only head 0 contributes to your dE; add every head's update.",
            "last_head": "Only the last head contributes to your dE (a loop that "
            "overwrites instead of adding?); add every head's update.",
        }
        if found:
            raise _Fail(messages[found])
        if _nonfinite(got_dE):
            raise _Fail(f"For {label} your dE contains NaN or inf.")
        raise _Fail(
            f"For {label} your weights are right but dE differs from "
            f"concat(heads) @ W_O (largest difference "
            f"{np.max(np.abs(got_dE - dE)):.3g})."
        )
    return (
        f"{name} matches the per-head reference on {len(cases)} cases "
        "(patterns, merge order, W_O, a causal mask)."
    )


# ------------------------------------------------------------- warm-up ---


@_checker("the attention parameter count")
def check_attention_params(fn, name):
    """Check ``fn(d_model, n_heads, d_k, n_layers) -> (per_head, per_layer, total)``.

    Per head: W_Q, W_K, W_V (d_model x d_k each, d_v = d_k) and W_up
    (d_k x d_model), the head's slice of W_O; no biases.
    """
    configs = (
        ("GPT-2 small", 768, 12, 64, 12),
        ("GPT-3", 12_288, 96, 128, 96),
        ("a toy model", 10, 2, 3, 4),
    )
    for label, d_model, h, d_k, layers in configs:
        head = 4 * d_model * d_k
        expected = (head, h * head, layers * h * head)
        result, _ = _call(fn, name, ("d_model", "n_heads", "d_k", "n_layers"),
                          d_model, h, d_k, layers)
        if not isinstance(result, (tuple, list)) or len(result) != 3:
            raise _Fail(f"{name} should return three numbers: "
                        "(per_head, per_layer, total).")
        try:
            got = _whole_numbers(result)
        except (TypeError, ValueError):
            raise _Fail(f"{name} should return three whole numbers, "
                        f"got {result!r:.80}.")
        if got == expected:
            continue
        per_head = got[0]
        named = {
            3 * d_model * d_k: "You forgot W_O: each head also owns its value-up "
            "W_up (d_k x d_model), its slice of W_O. That is 4 matrices per head.",
            2 * d_model * d_k + d_model * d_model: "You counted a square value map "
            "(d_model x d_model): real models store value-down W_V (d_model x d_k) "
            "and value-up W_up (d_k x d_model) instead.",
            4 * d_model * d_k + 3 * d_k + d_model: "You added biases; this count "
            "is the weight matrices only (leave the biases out).",
            4 * d_model * d_k + 4 * d_k: "You added biases; this count is the "
            "weight matrices only (leave the biases out).",
            4 * d_model * d_model: "You used d_model x d_model for every matrix; a "
            "head's matrices are thin: d_model x d_k (or d_k x d_model).",
        }
        if per_head in named and per_head != head:
            raise _Fail(f"For {label}: per head you have {per_head:,}. "
                        f"{named[per_head]}")
        if per_head != head:
            raise _Fail(f"For {label}: per head expected {head:,} "
                        f"(4 x d_model x d_k), got {per_head:,}.")
        if got[1] != h * head:
            hint = (" You multiplied by the number of layers instead of heads."
                    if got[1] == layers * head else "")
            raise _Fail(f"For {label}: per layer expected {h * head:,} "
                        f"(n_heads x per head), got {got[1]:,}.{hint}")
        hint = (" You forgot to multiply by the number of layers."
                if got[2] == h * head else "")
        raise _Fail(f"For {label}: in total expected {layers * h * head:,} "
                    f"(n_layers x per layer), got {got[2]:,}.{hint}")
    return (f"{name} counts 4 d_model d_k per head: GPT-2 small has 196,608 per "
            "head, 2,359,296 per layer, 28,311,552 in its 12 layers.")


# ------------------------------------------------------------- stretch ---


@_checker("batched attention on (batch, heads, n, d)")
def check_batched_attention(fn, name):
    """Check ``fn(Q, K, V, mask=None) -> (out, weights)`` on 4-D arrays."""
    rng = np.random.default_rng(_SEED + 7)
    cases = []
    for b, h, n, d_k, d_v, masked in ((2, 3, 4, 2, 3, False), (3, 2, 5, 3, 2, True)):
        Q = rng.standard_normal((b, h, n, d_k))
        K = rng.standard_normal((b, h, n, d_k))
        V = rng.standard_normal((b, h, n, d_v))
        cases.append((f"(batch, heads, n) = ({b}, {h}, {n})", Q, K, V,
                      causal_mask(n) if masked else None))
    for label, Q, K, V, mask in cases:
        b, h, n, d_k = Q.shape
        expected_out, expected_w = scaled_dot_product_attention(Q, K, V, mask=mask)
        try:
            result, _ = _call(fn, name, ("Q", "K", "V"), Q, K, V, mask=mask)
        except _Fail as fail:
            if "matmul" not in str(fail):
                raise
            raise _Fail(
                f"{fail.args[0].split('. ')[0]}. If you wrote K.T: on a 4-D array .T "
                "reverses ALL four axes, (batch, heads, n, d_k) -> (d_k, n, heads, "
                "batch). Swap only the last two: np.swapaxes(K, -1, -2)."
            ) from None
        got_out, got_w = _unpack_pair(result, name, "out", "weights")
        if got_w.shape != expected_w.shape:
            hint = ""
            if got_w.ndim == 4 and got_w.shape[:2] != (b, h):
                hint = (" The leading axes are wrong: K.T reverses ALL four axes. "
                        "Swap only the last two: np.swapaxes(K, -1, -2) or "
                        "K.transpose(0, 1, 3, 2).")
            _require_shape(got_w, expected_w.shape, f"For {label} the weights",
                           "(batch, heads, n, n): one n x n pattern per sentence "
                           "and head." + hint)
        if not _close(got_w, expected_w):
            # heads of one sentence mixed with another's (wrong reshape/axes)
            mixed = np.swapaxes(expected_w, 0, 1).reshape(expected_w.shape)
            if b != h and _close(got_w, mixed):
                raise _Fail("Your heads and sentences are mixed up (a reshape or "
                            "transpose moved the batch and head axes): keep "
                            "(batch, heads) in front and work on the last two axes.")
            scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
            if mask is not None:
                scores = np.where(mask, scores, -np.inf)
            extra = {}
            for axis in (0, 1, 2):
                with np.errstate(all="ignore"):
                    e = np.exp(scores - np.max(scores, axis=axis, keepdims=True))
                    extra[f"axis{axis}"] = e / e.sum(axis=axis, keepdims=True)
                over = ("the batch", "the heads", "the queries (columns sum to 1)")
                extra[f"axis{axis}_message"] = (
                    f"Your softmax normalised over axis {axis}, {over[axis]}. "
                    "Each query's row of scores is what must sum to 1: use axis=-1."
                )
            _diagnose_weights(got_w, Q, K, mask, expected_w, label, extra=extra)
        _require_shape(got_out, expected_out.shape, f"For {label} the output",
                       "(batch, heads, n, d_v).")
        if not _close(got_out, expected_out):
            raise _Fail(f"For {label} your weights are right but the output is not "
                        "weights @ V (largest difference "
                        f"{np.max(np.abs(got_out - expected_out)):.3g}).")
    return (f"{name} gives every sentence's every head the same pattern and output "
            "as one head at a time.")
