"""Lesson 06: the checkers of the causal mask, the masked count and the KV cache."""

from __future__ import annotations


import numpy as np

from helpers.attention import causal_mask, scaled_dot_product_attention, softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _fmt,
    _first_match,
    _call,
    _as_array,
    _require_shape,
    _checker,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_causal_mask", "check_masked_count", "check_kv_step"]


@_checker("the causal mask")
def check_causal_mask(fn, name):
    """Check ``fn(n) -> bool (n, n)``, True on and below the diagonal."""
    sizes = (4, 5, 2, 1)
    for n in sizes:
        expected = causal_mask(n)
        result, _ = _call(fn, name, ("n",), n)
        got = _as_array(result, f"What {name}({n}) returns")
        _require_shape(
            got, (n, n), f"{name}({n})", "One row per query, one column per key."
        )
        values = got.astype(bool) if got.dtype != bool else got
        if got.dtype == bool or np.isin(got, (0, 1)).all():
            found = _first_match(
                values.astype(float),
                {
                    "ok": expected.astype(float),
                    "upper": np.triu(np.ones((n, n))),
                    "strict_lower": np.tril(np.ones((n, n)), k=-1),
                    "inverted": np.triu(np.ones((n, n)), k=1),
                    "all": np.ones((n, n)),
                },
            )
        else:
            found = None
        if found == "ok" and got.dtype != bool:
            raise _Fail(
                f"The pattern is right, but {name} returns dtype {got.dtype}; a mask "
                "must be boolean (True = may attend). Convert with .astype(bool)."
            )
        if found == "ok":
            continue
        if n == 1 and found is None and not values.all():
            raise _Fail(
                f"{name}(1) is {_fmt(got)}: a single token must be allowed to "
                "attend to itself, so the answer is [[True]]."
            )
        messages = {
            "upper": "Wrong triangle: you kept the upper triangle, so each token "
            "sees the tokens after it (the future). Rows are queries: keep "
            "j <= i, the lower triangle (np.tril).",
            "strict_lower": "You left out the diagonal: a token may attend to "
            "itself. Use np.tril(...) with k=0 (the default), or j <= i.",
            "inverted": "Your mask is the wrong way round: True should mean 'may "
            "attend' (on and below the diagonal), but you marked the blocked "
            "cells.",
            "all": "Everything is True: nothing is masked. Keep only j <= i.",
        }
        if found in messages and n > 1:
            raise _Fail(f"{messages[found]} For n = {n} you returned\n{_fmt(got)}")
        raise _Fail(
            f"For n = {n} expected\n{_fmt(expected)}\nbut got\n{_fmt(got)}\n"
            "(1 = True = may attend; row = query, column = key)."
        )
    return f"{name} is True on and below the diagonal for n = 1, 2, 4 and 5."


# ------------------------------------------------------------- warm-up ---


@_checker("the number of masked weights")
def check_masked_count(fn, name):
    """Check ``fn(n) -> n (n - 1) / 2``: the causal pattern's zero weights."""
    for n in (4, 7, 1, 10):
        expected = n * (n - 1) // 2
        result, _ = _call(fn, name, ("n",), n)
        got = _as_array(result, f"What {name}({n}) returns")
        if got.size != 1:
            raise _Fail(
                f"{name}({n}) returned an array of shape {got.shape}; return one "
                "number, the count (for example mask.size - mask.sum())."
            )
        got = float(got.reshape(()))
        if got == expected:
            continue
        wrong = {
            n * (n + 1) / 2: "the ALLOWED weights (on and below the diagonal); the "
            "question asks for the masked ones, above it",
            n * n / 2: "half the grid, but the diagonal is allowed: each token may "
            "look at itself",
            n * n - n: "every cell off the diagonal; only the cells above it "
            "(later keys) are masked",
            n * n: "the whole grid",
        }
        if got in wrong and n > 1:
            raise _Fail(f"For n = {n} you counted {got:g}: that is {wrong[got]}. "
                        f"Expected {expected}.")
        raise _Fail(f"For n = {n} expected {expected} masked weights, got {got:g}.")
    return f"{name} counts n (n - 1) / 2 masked weights (28 of 64 for n = 8)."


# ------------------------------------------------------------- stretch ---


def _kv_case(seed, n, d_k, d_v):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k)),
            rng.standard_normal((n, d_v)))


@_checker("one generation step with a KV cache")
def check_kv_step(fn, name):
    """Check ``fn(q, k, v, K_cache, V_cache) -> (out, K_cache, V_cache)``.

    Tokens are fed one at a time from empty caches (shapes (0, d_k), (0, d_v));
    each ``out`` (d_v,) must equal that token's row of full causal attention.
    """
    for seed, n, d_k, d_v in ((_SEED, 5, 3, 2), (_SEED + 1, 4, 2, 3)):
        Q, K, V = _kv_case(seed, n, d_k, d_v)
        full, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))
        K_cache, V_cache = np.zeros((0, d_k)), np.zeros((0, d_v))
        for t in range(n):
            result, _ = _call(fn, name, ("q", "k", "v", "K_cache", "V_cache"),
                              Q[t], K[t], V[t], K_cache, V_cache)
            if not isinstance(result, (tuple, list)) or len(result) != 3:
                raise _Fail(
                    f"{name} should return three things: (out, K_cache, V_cache), "
                    "the newest token's output and the two caches with its k and v "
                    "appended."
                )
            out = _as_array(result[0], "The output (first thing returned)")
            K_new = _as_array(result[1], "K_cache (second thing returned)")
            V_new = _as_array(result[2], "V_cache (third thing returned)")
            if K_new.shape == (t, d_k) or V_new.shape == (t, d_v):
                raise _Fail(
                    f"At step {t + 1} the caches came back with {t} rows: you forgot "
                    "to append the new token's k and v (np.vstack([K_cache, k]))."
                )
            if out.ndim == 2 and out.shape[0] == t + 1 and t > 0:
                raise _Fail(
                    f"At step {t + 1} you returned {out.shape[0]} output rows: you "
                    "recomputed every token. Only the newest token is new; its row "
                    "is all the next step needs (the others were computed before)."
                )
            if (K_new.shape == (t + 1, d_k) and np.allclose(K_new[-1], Q[t])
                    and not np.allclose(K[t], Q[t])):
                raise _Fail("You appended the query q to the key cache; the cache "
                            "holds keys k (and values v).")
            _require_shape(K_new, (t + 1, d_k), f"K_cache after step {t + 1}",
                           "One row per token so far: the old keys, then k.")
            _require_shape(V_new, (t + 1, d_v), f"V_cache after step {t + 1}",
                           "One row per token so far: the old values, then v.")
            if not (np.allclose(K_new[:t], K[:t]) and np.allclose(K_new[t], K[t])
                    and np.allclose(V_new[:t], V[:t]) and np.allclose(V_new[t], V[t])):
                raise _Fail(
                    f"After step {t + 1} the caches do not hold the keys and values "
                    "so far in order: keep the old rows and append k and v at the "
                    "END (new tokens come last)."
                )
            out = out.reshape(-1) if out.size == d_v else out
            _require_shape(out, (d_v,), f"The output at step {t + 1}",
                           "One row: the newest token's weighted sum of values.")
            if _close(out, full[t]):
                K_cache, V_cache = K_new, V_new
                continue
            if t == 0 and (not np.isfinite(out).all() or np.allclose(out, 0)):
                raise _Fail(
                    "At the first step your output is empty (zeros or NaN): you "
                    "attended BEFORE appending, so the newest token could not see "
                    "itself. Append k and v first, then attend over the whole cache."
                )
            if t > 0:
                w_prev = softmax(K[:t] @ Q[t] / np.sqrt(d_k))
                if _close(out, w_prev @ V[:t]):
                    raise _Fail(
                        f"At step {t + 1} your output ignores the newest token: you "
                        "attended BEFORE appending its k and v. Append first, then "
                        "attend over the whole cache (the token may see itself)."
                    )
            candidates = {
                "scale": softmax(K[: t + 1] @ Q[t]) @ V[: t + 1],
                "all": full_unmasked_row(Q, K, V, t),
            }
            found = _first_match(out, candidates)
            if found == "scale":
                raise _Fail("You forgot to divide the scores by sqrt(d_k).")
            if found == "all":
                raise _Fail(
                    f"At step {t + 1} your output uses keys of LATER tokens: the "
                    "cache must hold only the tokens written so far, which is the "
                    "mask's job done for free."
                )
            raise _Fail(
                f"At step {t + 1} your output differs from row {t + 1} of causal "
                f"attention over the whole sentence (largest difference "
                f"{np.max(np.abs(out - full[t])):.3g})."
            )
    return (f"{name} gives, token by token, the same rows as full causal attention "
            "while computing one row per step.")


def full_unmasked_row(Q, K, V, t):
    """Row ``t`` of attention without a mask (the future visible)."""
    w = softmax(K @ Q[t] / np.sqrt(Q.shape[-1]))
    return w @ V
