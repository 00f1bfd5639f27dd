"""Lesson 11: the checkers of the small GPT's exercises: the next-token loss
(warm-up), one head's causal pattern on the real GPT (core) and top-k
sampling (stretch).

The core checker runs :mod:`helpers.gpt`'s model, loaded once on first use;
without its files it says so in one sentence instead of failing. Every
expected value is computed at check time from the model's own weights.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.models import gpt
from helpers.attention import softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _as_array,
    _call,
    _checker,
    _fmt,
    _overflow,
    _require_shape,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_next_token_loss", "check_gpt_head_pattern", "check_top_k_sample"]

# ------------------------------------------------ warm-up: the next-token loss ---

HAND_LOGITS = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, math.log(5.0)],
                        [5.0, 0.0, 0.0, 0.0]])
HAND_IDS = np.array([2, 3, 2])
HAND_TEXT = (
    "logits = [[0, 0, 0, 0], [0, 0, 0, ln 5], [5, 0, 0, 0]] and ids = [2, 3, 2]: "
    "logits[0] gives ids[1] = 3 the probability 1/4, logits[1] gives ids[2] = 2 "
    "the probability 1/(1 + 1 + 1 + 5) = 1/8, so the loss is (ln 4 + ln 8) / 2 "
    "= 1.733 nats (logits[2] predicts the token after the text: not scored)"
)
_SHAPE_ERRORS = ("shape mismatch", "could not be broadcast", "out of bounds")


def _log_softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _loss_cases():
    """``(label, logits, ids)``: the hand-worked case first, then seeded ones."""
    rng = np.random.default_rng(_SEED + 11)
    return [
        ("the hand-worked case", HAND_LOGITS, HAND_IDS),
        ("6 tokens, a vocabulary of 10", rng.standard_normal((6, 10)) * 2,
         rng.integers(0, 10, 6)),
        ("9 tokens of float32 logits, a vocabulary of 50",
         (rng.standard_normal((9, 50)) * 3).astype(np.float32), rng.integers(0, 50, 9)),
        ("2 tokens (a single prediction)", rng.standard_normal((2, 5)),
         rng.integers(0, 5, 2)),
        ("logits as large as 1e4", rng.standard_normal((5, 8)) * 1e4,
         rng.integers(0, 8, 5)),
    ]


def _loss_mistakes(logits, ids):
    """``{value: why}`` of the classic mistakes, most specific first."""
    z = np.asarray(logits, dtype=np.float64)
    n, t = len(ids), np.arange(len(ids) - 1)
    logp = _log_softmax(z)
    right = -logp[t, ids[1:]]
    p = np.exp(-right)
    off = ("off by one: n tokens make n - 1 predictions, logits[:-1] scored "
           "against ids[1:], and the loss is their mean")
    shift = ("no shift: you scored logits[t] against ids[t], a token the model "
             "has already seen. logits[t] predicts the NEXT token: score "
             "logits[:-1] against ids[1:]")
    tries = [
        (-logp[np.arange(n), ids].mean(), shift),
        (-logp[t, ids[:-1]].mean(), shift),
        (-logp[t + 1, ids[1:]].mean(), shift),
        (-logp[t + 1, ids[:-1]].mean(), "you shifted the wrong way: logits[t + 1] "
         "against ids[t] predicts the past. logits[t] predicts ids[t + 1]: score "
         "logits[:-1] against ids[1:]"),
        (p.mean(), "you averaged the probabilities of the right tokens; the loss is "
         "their negative log, -log p (a sure right guess costs 0 nats)"),
        (-p.mean(), "you averaged minus the probabilities; the loss is -log p"),
        ((1 - p).mean(), "you averaged 1 - p; the loss is -log p"),
        (-right.mean(), "your loss is negative: you forgot the minus sign. The loss "
         "is -log p, which is never below 0"),
        (right.sum(), "you summed the losses of the n - 1 predictions; the loss is "
         "their mean"),
        (right.mean() / math.log(2), "you used log base 2 (bits); the loss is in "
         "nats, np.log (base e). Bits = nats / ln 2"),
        (-_log_softmax(z[:-1], axis=0)[t, ids[1:]].mean(), "your softmax ran over "
         "the wrong axis, down the positions (axis=0). Each row logits[t] is one "
         "prediction over the vocabulary: normalise along axis=-1"),
        (-_log_softmax(z, axis=0)[t, ids[1:]].mean(), "your softmax ran over the "
         "wrong axis, down the positions (axis=0). Each row logits[t] is one "
         "prediction over the vocabulary: normalise along axis=-1"),
        (-logp[np.arange(n), np.roll(ids, -1)].mean(), "you included the last "
         "position (wrapping round to ids[0]): logits[n - 1] predicts the token "
         "after the text, which nobody knows. O" + off[1:]),
        (right.sum() / n, "you divided by n; " + off),
    ]
    if n > 2:
        tries += [(right[1:].mean(), "you scored only n - 2 predictions; " + off),
                  (right[:-1].mean(), "you scored only n - 2 predictions; " + off)]
    return tries


def _loss_call(fn, name, logits, ids):
    try:
        return _call(fn, name, ("logits", "ids"), logits, ids)
    except _Fail as fail:
        text = str(fail)
        if any(key in text for key in _SHAPE_ERRORS):
            first = text.split(". ")[0].rstrip(". ")
            raise _Fail(f"{first}. {_off_by_one(len(ids))}") from None
        raise


def _off_by_one(n) -> str:
    return (f"Off by one: {n} tokens make {n - 1} predictions, so score the "
            f"{n - 1} rows logits[:-1] against the {n - 1} ids ids[1:] "
            "(the last row predicts a token after the text).")


@_checker("the next-token loss")
def check_next_token_loss(fn, name):
    """Check ``fn(logits, ids) -> float``: the mean cross-entropy, in nats, of
    predicting ``ids[t + 1]`` from ``logits[t]`` for ``t = 0 .. n - 2``.

    logits : (n, vocab);  ids : (n,) int. One prediction per prefix, as the
    causal LM is trained; logits of 1e4 must not overflow (log-sum-exp).
    """
    cases = _loss_cases()
    for label, logits, ids in cases:
        expected = float(-_log_softmax(logits.astype(np.float64))[
            np.arange(len(ids) - 1), ids[1:]].mean())
        result, seen = _loss_call(fn, name, logits, ids)
        got = _as_array(result, f"What your {name} returns")
        n = len(ids)
        hand = logits is HAND_LOGITS
        where = "On the hand-worked case" if hand else f"For {label}"
        case = f" The case: {HAND_TEXT}." if hand else ""
        if got.shape == (n - 1,) and n > 2:
            raise _Fail(f"{where} you returned {n - 1} numbers, one loss per "
                        f"prediction; return their mean (one number).{case}")
        if got.size != 1:
            raise _Fail(f"{where} you returned an array of shape {got.shape}; "
                        f"return one number, the mean loss.{case}")
        with np.errstate(all="ignore"):
            value = float(got.reshape(()))
        if math.isfinite(value) and math.isclose(value, expected, rel_tol=1e-5,
                                                 abs_tol=1e-7):
            continue
        if not math.isfinite(value) or (_overflow(seen) and "1e4" in label):
            raise _Fail(
                f"{where} you got {value}: np.exp of a logit of 1e4 overflows to inf "
                "(or a probability underflows to 0, and log(0) = -inf). Use "
                "log-sum-exp: log p = z - m - log(sum(exp(z - m))), with m each "
                "row's max, and never take log of a probability.")
        with np.errstate(all="ignore"):
            tries = _loss_mistakes(logits, ids)
        for wrong, why in tries:
            if math.isclose(value, wrong, rel_tol=1e-5, abs_tol=1e-7):
                raise _Fail(f"{where} you got {value:.4g} instead of "
                            f"{expected:.4g}: {why}.{case}")
        raise _Fail(f"{where}: expected {expected:.4g} nats, got {value:.4g}. "
                    "Take log-softmax of each row logits[t], pick the entry of "
                    f"ids[t + 1], and average minus those over t = 0 .. n - 2.{case}")
    return (f"{name} gives the mean next-token loss in nats on {len(cases)} cases "
            "(1.733 by hand, float32, one prediction, logits of 1e4).")


# ------------------------------------------ the core: a head of the real GPT ---

GPT_TEXTS = ("To be, or not to be, that is the question.",
             "ROMEO.\nBut soft, what light through yonder window breaks?")
GPT_HEADS = (((0, 0), 0), ((2, 3), 1), ((3, 5), 0))  # (layer, head), text


def _gpt(model):
    """``model``, or the shared ``gpt.load()``; missing files are a _Fail."""
    if model is not None:
        return model
    try:
        return gpt.load()
    except gpt.ModelNotAvailable as exc:
        raise _Fail(str(exc)) from None


def _head_tries(x, W_Q, b_Q, W_K, b_K, expected):
    """``([(weights, why)], unmasked weights)``: the classic mistakes, in float64."""
    x, W_Q, b_Q, W_K, b_K = (np.asarray(a, dtype=np.float64)
                             for a in (x, W_Q, b_Q, W_K, b_K))
    Q, K = x @ W_Q + b_Q, x @ W_K + b_K
    d, n = Q.shape[-1], x.shape[0]
    S = Q @ K.T / math.sqrt(d)
    lower = np.tril(np.ones((n, n), dtype=bool))

    def masked(scores, keep=lower, fill=-np.inf):
        return softmax(np.where(keep, scores, fill))

    upside = ("your mask is upside down: each query sees the keys AFTER it. Rows "
              "are queries: keep key j <= query i, the lower triangle, "
              "np.tril(np.ones((n, n), dtype=bool)) (True = may attend)")
    bias = "the biases are missing: Q = x @ W_Q + b_Q and K = x @ W_K + b_K"
    return [
        (expected.T, "your weights are transposed (keys in rows): rows must be "
         "queries, scores = Q K^T"),
        (masked(S.T), "you swapped Q and K: attention(K, Q, ...) scores K Q^T. Pass "
         "Q first and K second (rows = queries)"),
        (masked(S, lower.T), upside),
        (masked(S, ~lower), upside),
        (masked(S, lower[::-1]), upside),
        (softmax(S) * lower, "you masked after the softmax: the rows no longer sum "
         "to 1. Set the masked scores to -inf first, then take the softmax"),
        (masked(S, fill=0.0), "the masked scores are 0 instead of -inf: exp(0) = 1 "
         "still gives them weight"),
        (masked(S, np.tril(lower, k=-1)), "you left out the diagonal: a token may "
         "attend to itself (key j <= query i)"),
        (masked(Q @ K.T), f"the scores are not divided by sqrt(d_head) = "
         f"{math.sqrt(d):g}; your attention from lesson 04 should do that"),
        (masked((x @ W_Q) @ (x @ W_K).T / math.sqrt(d)), bias),
        (masked((x @ W_Q) @ K.T / math.sqrt(d)), bias),
    ], softmax(S)


def _leaks(got, tokens, label):
    """A _Fail naming the rows that put weight on later keys, if any do."""
    n = got.shape[0]
    future = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), got, 0.0).sum(-1)
    rows = np.flatnonzero(future > 1e-6)
    if not rows.size:
        return None
    every = rows.size == n - 1 and rows[-1] == n - 2
    which = (f"rows 0 to {n - 2} (every query but the last) put" if every
             else f"row {rows[0]} puts" if rows.size == 1
             else "rows " + ", ".join(str(r) for r in rows[:8])
             + (" ..." if rows.size > 8 else "") + " put")
    r = int(rows[0])
    return (f"For {label}, the future leaks: {which} weight on later tokens; row "
            f"{r} (query {tokens[r]!r}) gives {future[r]:.2f} of its weight to the "
            f"{n - 1 - r} tokens after it")


def check_gpt_head_pattern(fn, model=None) -> bool:
    """Check ``fn(x, W_Q, b_Q, W_K, b_K) -> weights (n, n)`` on heads of the
    small GPT: ``x = model.attention_input(run, layer)`` (n, d_model), the
    head's ``W_Q, W_K`` (d_model, d_head) and ``b_Q, b_K`` (d_head,) from
    ``model.head_weights(layer, head)``. The weights must equal
    ``run.attention[layer, head]`` within 1e-5: causal, rows = queries.

    ``model`` defaults to ``helpers.gpt.load()``.
    """

    @_checker("one head of the GPT: its causal attention weights")
    def check_gpt_head_pattern(fn, name):
        mdl = _gpt(model)
        runs = [mdl.run(text) for text in GPT_TEXTS]
        for (layer, head), which in GPT_HEADS:
            run = runs[which]
            x = mdl.attention_input(run, layer)
            w = mdl.head_weights(layer, head)
            args = (x, w["W_Q"], w["b_Q"], w["W_K"], w["b_K"])
            expected = run.attention[layer, head]
            n = x.shape[0]
            label = f"layer {layer}, head {head} on {GPT_TEXTS[which][:20] + '...'!r}"
            result, _ = _call(fn, name, ("x", "W_Q", "b_Q", "W_K", "b_K"), *args)
            if isinstance(result, tuple) and len(result) == 2:
                raise _Fail(f"Your {name} returned two things; return only the "
                            "weights (the second thing attention returns).")
            got = _as_array(result, f"What your {name} returns")
            if got.ndim == 2 and got.shape[0] == n and got.shape[1] != n:
                raise _Fail(
                    f"For {label}, you returned shape {got.shape}: that is the "
                    "output (weights @ V), one row of values per token. Return "
                    "the weights (n, n): `_, weights = attention(Q, K, K, "
                    "mask=...)`.")
            _require_shape(got, expected.shape, f"For {label}, the weights",
                           "One row per query token and one column per key token.")
            if np.allclose(got, expected, rtol=0, atol=1e-5):
                continue
            with np.errstate(all="ignore"):
                clean = np.nan_to_num(got.astype(np.float64), nan=0.0)
                tries, unmasked = _head_tries(*args, expected)
            for wrong, why in tries:
                if np.allclose(clean, wrong, rtol=0, atol=1e-5):
                    raise _Fail(f"For {label}: {why}.")
            if not np.isfinite(got).all():
                raise _Fail(f"For {label}, your weights contain NaN or inf: does "
                            "every row keep at least its own key (the diagonal)?")
            leak = _leaks(got, run.tokens, label)
            if leak and np.allclose(got, unmasked, rtol=0, atol=1e-5):
                raise _Fail(f"{leak}: there is no causal mask. Pass "
                            "mask=np.tril(np.ones((n, n), dtype=bool)) to your "
                            "attention (key j <= query i).")
            if leak:
                raise _Fail(f"{leak}. Keep key j <= query i with a causal mask "
                            "before the softmax.")
            if not np.allclose(got.sum(axis=-1), 1, atol=1e-4):
                raise _Fail(f"For {label}, the rows of your weights do not sum to 1 "
                            f"(row sums {_fmt(got.sum(axis=-1)[:4])} ...): the "
                            "softmax runs along the last axis, one row per query.")
            worst = float(np.abs(got - expected).max())
            raise _Fail(
                f"For {label}, your weights differ from the model's by up to "
                f"{worst:.2g}. Build Q = x @ W_Q + b_Q and K = x @ W_K + b_K, then "
                "call attention(Q, K, K, mask=np.tril(np.ones((n, n), dtype=bool))).")
        heads = ", ".join(f"layer {la} head {h}" for (la, h), _ in GPT_HEADS)
        return (f"{name} reproduces the GPT's causal heads ({heads}) on "
                f"{len(GPT_TEXTS)} texts within 1e-5.")

    return check_gpt_head_pattern(fn)


# --------------------------------------------------- stretch: top-k sampling ---

N_DRAWS, N_EMPIRICAL, TV_OK = 30, 4000, 0.04


def _sample_cases():
    """``(label, logits, k, T, seed)``: no two logits tie."""
    rng = np.random.default_rng(_SEED + 12)
    small, big = rng.standard_normal(10) * 1.5, rng.standard_normal(50) * 2
    return [
        ("k = 10 (every token), T = 1", small, 10, 1.0, 1),
        ("k = 10, T = 0.5", small, 10, 0.5, 2),
        ("k = 10, T = 2", small, 10, 2.0, 3),
        ("k = 4, T = 1", small, 4, 1.0, 4),
        ("k = 4, T = 0.7", small, 4, 0.7, 5),
        ("50 float32 logits, k = 5, T = 0.8", big.astype(np.float32), 5, 0.8, 6),
        ("k = 1 (always the top token)", small, 1, 1.0, 7),
    ]


def _reference_draws(p, seed, count):
    rng = np.random.default_rng(seed)
    return np.array([int(rng.choice(len(p), p=p)) for _ in range(count)])


def _sample_one(fn, name, label, logits, k, T, rng):
    """One call; its token id as an int (or a _Fail that says why not)."""
    V = len(logits)
    try:
        result, _ = _call(fn, name, ("logits", "k", "temperature", "rng"),
                          logits, k, T, rng)
    except _Fail as fail:
        text = str(fail)
        if "do not sum to 1" in text:
            if k >= V and T != 1:
                why = ("The temperature came after the softmax: divide the "
                       "LOGITS by T, then take the softmax (which sums to 1)")
            else:
                why = ("You did not renormalise: after keeping the k largest, the "
                       "probabilities must sum to 1 again. Set the other logits "
                       "to -inf before the softmax (or divide p by p.sum())")
            raise _Fail(f"With {label}: your probabilities do not sum to 1 "
                        f"(rng.choice refused them). {why}.") from None
        if "same size" in text:
            raise _Fail(f"With {label}: rng.choice got {V} choices but a "
                        "different number of probabilities: keep one per token, p of "
                        "length len(logits) with zeros outside the top k, and "
                        "draw rng.choice(len(p), p=p).") from None
        raise
    arr = _as_array(result, f"What your {name} returns")
    if arr.shape == (V,):
        raise _Fail(f"You returned {V} numbers (the probabilities?); return ONE "
                    "token id drawn from them: rng.choice(len(p), p=p).")
    if arr.size != 1:
        raise _Fail(f"You returned an array of shape {arr.shape}; return one token "
                    "id (an int).")
    value = arr.reshape(()).item()
    if isinstance(value, complex) or not float(value).is_integer():
        raise _Fail(f"You returned {value!r}, not a token id: return the index "
                    f"rng.choice(len(p), p=p), a whole number from 0 to {V - 1}.")
    if not 0 <= value < V:
        raise _Fail(f"You returned token id {int(value)}, but there are only {V} "
                    f"tokens (ids 0 to {V - 1}).")
    return int(value)


def _sample_mistakes(logits, k, T):
    """``[(p, why)]``: the distributions of the classic mistakes."""
    V = len(logits)
    z = np.asarray(logits, dtype=np.float64) / T
    smallest = np.zeros(V, dtype=bool)
    smallest[np.argsort(z)[:k]] = True
    off = ("k off by one: you kept {} tokens, not k = {}. np.sort(z)[-k] is the "
           "k-th largest")
    tries = [
        (gpt.top_k_probabilities(logits, k, 1.0 / T), "you multiplied the logits by "
         "T; divide them: softmax(logits / T), so that T above 1 flattens"),
        (gpt.top_k_probabilities(logits, k, 1.0), "your draws do not depend on T: "
         "the temperature must divide the logits BEFORE the softmax (dividing the "
         "probabilities after it and renormalising cancels out)"),
        (softmax(np.where(smallest, z, -np.inf)), "you kept the k SMALLEST logits: "
         "np.argsort sorts ascending, so the k largest are np.argsort(z)[-k:]"),
        (gpt.top_k_probabilities(logits, None, T), "k is ignored: you sampled from "
         "every token. Set all but the k largest logits to -inf before the "
         "softmax"),
        (gpt.top_k_probabilities(logits, k + 1, T), off.format(k + 1, k)),
    ]
    if k > 1:
        tries.append((gpt.top_k_probabilities(logits, k - 1, T), off.format(k - 1, k)))
    p, top = gpt.top_k_probabilities(logits, k, T), np.argsort(z)[-k:]
    for order in (top, top[::-1]):  # a position in a list of the top k, returned
        q = np.zeros(V)
        q[:k] = p[order]
        tries.append((q, "you returned a position in your list of the k largest, "
                      "not a token id. Draw from the whole vocabulary, "
                      "rng.choice(len(p), p=p) with p zero outside the top k"))
    return tries


@_checker("top-k sampling with a temperature")
def check_top_k_sample(fn, name):
    """Check ``fn(logits, k, temperature, rng) -> int``: one token id drawn
    from ``softmax(logits / T)`` restricted to the ``k`` largest logits, with
    exactly one ``rng.choice(len(p), p=p)`` per call, so that the same seed
    gives the same draws as ``gpt.top_k_probabilities`` + ``rng.choice``.
    """
    cases = _sample_cases()
    for label, logits, k, T, seed in cases:
        p = gpt.top_k_probabilities(logits, k, T)
        expected = _reference_draws(p, seed, N_DRAWS)

        def draws(s=seed, count=N_DRAWS):
            rng = np.random.default_rng(s)
            return np.array([_sample_one(fn, name, label, logits, k, T, rng)
                             for _ in range(count)])

        got = draws()
        if np.array_equal(got, expected):
            continue
        top = int(np.argmax(logits))
        if (got == top).all():
            raise _Fail(f"With {label}: every draw was the top token ({top}): that "
                        "is greedy (argmax), not sampling. Draw from the "
                        f"probabilities: rng.choice(len(p), p=p), p[{top}] is only "
                        f"{p[top]:.2f}.")
        if not np.array_equal(draws(), got):
            raise _Fail(f"With {label}: the same seed gave different draws: your "
                        "function is not reproducible. Draw with the rng it is "
                        "given, rng.choice(len(p), p=p), not np.random or a new "
                        "generator.")
        if len(set(got.tolist())) == 1:
            raise _Fail(f"With {label}: {N_DRAWS} calls on one generator all gave "
                        f"token {got[0]}: your draws ignore the rng (a new generator "
                        "in every call?). Use the rng argument: rng.choice(len(p), "
                        "p=p).")
        with np.errstate(all="ignore"):
            tries = _sample_mistakes(logits, k, T)
        tries = [(q, why) for q, why in tries if not np.allclose(q, p, atol=1e-9)]
        for q, why in tries:
            if np.array_equal(got, _reference_draws(q, seed, N_DRAWS)):
                raise _Fail(f"With {label}: {why}.")
        freq = np.bincount(draws(seed + 1000, N_EMPIRICAL), minlength=len(p))
        freq = freq / N_EMPIRICAL
        if 0.5 * np.abs(freq - p).sum() < TV_OK:
            raise _Fail(
                f"With {label}: your draws follow the right probabilities over "
                f"{N_EMPIRICAL:,} draws, but they are not the draws of "
                "rng.choice(len(p), p=p) with the same generator. Draw exactly "
                "once per call, rng.choice(len(p), p=p), with p of length "
                "len(logits) (zeros outside the top k), so that a seed repeats.")
        for q, why in tries:
            if 0.5 * np.abs(freq - q).sum() < TV_OK:
                raise _Fail(f"With {label} (judging by {N_EMPIRICAL:,} draws): {why}.")
        outside = np.flatnonzero((freq > 0) & (p == 0))
        if outside.size:
            raise _Fail(f"With {label}: you drew token {outside[0]}, which is not "
                        "among the k largest logits: keep only those.")
        i = int(np.argmax(np.abs(freq - p)))
        raise _Fail(f"With {label}: your draws do not follow softmax(logits / T) "
                    f"over the k largest: token {i} came up {freq[i]:.1%} of "
                    f"{N_EMPIRICAL:,} times, expected {p[i]:.1%}.")
    return (f"{name} draws what top_k_probabilities + rng.choice draw, seed for "
            f"seed ({len(cases)} settings of k and T, {N_DRAWS} draws each).")

