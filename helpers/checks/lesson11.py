"""Lesson 11: the checkers of the small GPT's exercises: the next-token loss
(warm-up), one decoding step with the KV cache on the real GPT (core) and
top-k sampling (stretch).

The core checker runs :mod:`helpers.models.gpt`'s model, loaded once on first use;
without its files it says so in one sentence instead of failing. Every
expected value is computed at check time from the model's own weights.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.models import gpt
from helpers.attention import scaled_dot_product_attention, softmax
from helpers.checks._lesson11_loss import (
    _clipped,
    _log_softmax,
    _loss_mistakes,
    _temperature,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _as_array,
    _call,
    _checker,
    _overflow,
    _require_shape,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_next_token_loss", "check_decode_step", "check_top_k_sample"]

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
        with np.errstate(all="ignore"):
            eps, T = _clipped(value, logits, ids), _temperature(value, logits, ids)
            if T is not None:  # the same T must explain another case too
                _, z2, ids2 = cases[1] if logits is not cases[1][1] else cases[0]
                other = _as_array(_loss_call(fn, name, z2.copy(), ids2.copy())[0],
                                  f"What your {name} returns")
                want = -_log_softmax(z2.astype(np.float64) / T)[
                    np.arange(len(ids2) - 1), ids2[1:]].mean()
                if not (other.size == 1 and math.isclose(
                        float(other.reshape(())), want, rel_tol=1e-4)):
                    T = None
        if eps is not None:
            raise _Fail(
                f"{where} you got {value:.4g} instead of {expected:.4g}: you "
                f"clipped the probabilities (to about {eps:.0e}) before the log. A "
                "probability that underflows to 0 then costs -log(eps), not its "
                "true loss, which at logits of 1e4 is thousands of nats. Never take "
                "the log of a probability: log p = z - m - log(sum(exp(z - m))), "
                f"with m each row's max.{case}")
        if T is not None:
            raise _Fail(
                f"{where} you got {value:.4g} instead of {expected:.4g}: your "
                f"loss divides the logits by a temperature (T = {T:.3g}). The loss "
                "is of the model's own logits: log-softmax of logits[t] as they "
                f"are, no temperature (that belongs to sampling).{case}")
        raise _Fail(f"{where}: expected {expected:.4g} nats, got {value:.4g}. "
                    "Take log-softmax of each row logits[t], pick the entry of "
                    f"ids[t + 1], and average minus those over t = 0 .. n - 2.{case}")
    return (f"{name} gives the mean next-token loss in nats on {len(cases)} cases "
            "(1.733 by hand, float32, one prediction, logits of 1e4).")


# ------------------------------------- the core: one cached decoding step ---

STEP_TEXT = "ANTONY.\nI come to bury Caesar, not to praise him."
STEP_PREFILL = 5  # tokens through model.prefill before the learner's steps
GREEDY_PROMPT, GREEDY_TOKENS = "BRUTUS.\nRomans, countrymen, and lovers!", 6


def _gpt(model):
    """``model``, or the shared ``gpt.load()``; missing files are a _Fail."""
    if model is not None:
        return model
    try:
        return gpt.load()
    except gpt.ModelNotAvailable as exc:
        raise _Fail(str(exc)) from None


def _reference_step(model, token, pos, cache, *, at=None, tok=True, where=True,
                    keys="all", scale=None, final_norm=True):
    """The logits of one cached step, or of a classic mistake: the position
    embedding of ``at`` (``None``: ``pos``), no token (``tok=False``) or
    position (``where=False``) embedding, or attending to ``keys`` "old" (the
    cache without the new key), "self" (the new key only) or "first", or
    scores scaled by ``scale`` (``None``: 1/sqrt(d_head)), or unembedded
    without the final LayerNorm (``final_norm=False``)."""
    h = np.zeros((1, model.d_model), dtype=np.float32)
    if tok:
        h = h + model.wte[[token]]
    if where:
        h = h + model.wpe[[pos if at is None else at]]
    for layer, (K, V) in enumerate(cache):
        q, k, v = model.qkv(layer, h)
        K, V = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
        pick = {"all": slice(None), "old": slice(0, -1), "self": slice(-1, None),
                "first": slice(0, 1)}[keys]
        out, _ = scaled_dot_product_attention(q, K[:, pick], V[:, pick],
                                              scale=scale)
        h = model.finish(layer, h, out)
    return model.unembed(h[0]) if final_norm else h[0] @ model.wte.T


def _step_mistakes(model, token, pos, cache):
    """``[(logits, why)]`` of the classic mistakes of one cached step."""
    where = (f"the new token sits at position pos = {pos} and takes "
             f"model.wpe[pos]; positions count from 0, so a cache of {pos} tokens "
             f"holds positions 0 to {pos - 1}" if pos > 1 else
             f"the new token sits at position pos = {pos} and takes model.wpe[pos]; "
             "positions count from 0, so the one cached token is position 0")
    tries = [
        (dict(keys="old"), "the new token did not attend to itself: append its k "
         "and v to the cache first, then attend over the grown cache (a query "
         "sees every key j <= i, its own included)"),
        (dict(keys="self"), "the new token attended only to its own key: the "
         "cached keys and values of the earlier tokens are lost. Attend over "
         "np.concatenate([K, k], axis=1)"),
        (dict(keys="first"), "your mask hides the cached tokens: the new token "
         "is the last query, after every cached key, so its row of the causal "
         "mask is all True. One new query needs no mask at all"),
        (dict(at=len(cache)), f"wrong position embedding: len(cache) = "
         f"{len(cache)} is the number of layers, not of tokens; {where}"),
        (dict(at=pos + 1), f"wrong position embedding (pos + 1): {where}"),
        (dict(where=False), "no position embedding: the new token's vector is "
         "model.wte[token] + model.wpe[pos]"),
        (dict(tok=False), "no token embedding: the new token's vector is "
         "model.wte[token] + model.wpe[pos]"),
        (dict(scale=1.0), "the scores were not divided by sqrt(d_k): attention "
         "is softmax(q K^T / sqrt(d_k)) V, with d_k = 32 here (lesson 04's "
         "attention does it for you)"),
        (dict(scale=1.0 / model.d_head), "the scores were divided by d_k, not by "
         "sqrt(d_k): attention is softmax(q K^T / sqrt(d_k)) V"),
        (dict(scale=1.0 / math.sqrt(model.d_model)), "the scores were divided by "
         "sqrt(d_model) = sqrt(192); d_k is one head's size, 32: softmax(q K^T / "
         "sqrt(32)) V"),
        (dict(final_norm=False), "you skipped the final LayerNorm (h[0] @ "
         "model.wte.T): use model.unembed(h[0]), which applies model.ln_f first"),
    ]
    if pos >= 1:
        tries.insert(4, (dict(at=pos - 1), f"wrong position embedding (pos - 1): "
                         f"{where}"))
    if pos != 0:
        tries.append((dict(at=0), f"every new token got position 0: {where}"))
    return [(_reference_step(model, token, pos, cache, **kw), why)
            for kw, why in tries]


def _copy_cache(cache):
    return [(K.copy(), V.copy()) for K, V in cache]


def _step_call(fn, name, model, token, pos, cache):
    """One call of the learner's step on a copy of ``cache``: ``(logits, new
    cache)`` as arrays, after every check of form; the given cache unchanged."""
    given = _copy_cache(cache)
    try:
        result, _ = _call(fn, name, ("model", "token", "pos", "cache"),
                          model, token, pos, given)
    except _Fail as fail:
        text = str(fail)
        d = model.d_model
        if f"cannot reshape array of size {3 * d} into shape ({d}," in text:
            raise _Fail(text.split(". ")[0].rstrip(".") + (
                f". Your h is 1-D, shape ({d},): model.wte[token] picks one row "
                f"as a vector. The blocks take rows, h of shape (1, {d}): "
                "model.wte[[token]] + model.wpe[[pos]] (a list of one index), "
                "or h[None].")) from None
        if "concatenation axis" in text:
            raise _Fail(text.split(". ")[0].rstrip(".") + (
                ". You appended along the wrong axis: K is (heads, tokens, "
                "d_head) = (6, pos, 32) and k is (6, 1, 32), so the tokens are "
                "axis 1: np.concatenate([K, k], axis=1).")) from None
        if "reshape" in text or "broadcast" in text or "matmul" in text:
            text = text.split(". ")[0].rstrip(".") + (
                ". One new token is one query row: q is (heads, 1, d_head) and "
                "the cache grows along axis 1, the tokens. A causal mask of shape "
                "(n, n) would make n query rows: one new query needs no mask, "
                "since every cached key comes before it.")
        raise _Fail(text) from None
    for (K, V), (K0, V0) in zip(given, cache):
        if K.shape != K0.shape or not (np.array_equal(K, K0)
                                       and np.array_equal(V, V0)):
            raise _Fail(f"Your {name} changed the cache it was given. Build a new "
                        "list, new_cache.append((K, V)), and return it with the "
                        "logits: the old cache stays as it was.")
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise _Fail(f"Your {name} should return two things, (logits, new_cache); "
                    f"it returned {type(result).__name__}"
                    + (f" of length {len(result)}" if isinstance(result, (tuple, list))
                       else "") + ".")
    logits, new = result
    logits = _as_array(logits, f"The logits your {name} returns")
    V_, d = model.vocab_size, model.d_model
    if logits.shape in ((d,), (1, d)):
        raise _Fail(f"Your {name} returned the residual vector h {logits.shape}, "
                    f"not logits: turn it into {V_} logits with model.unembed(h[0]).")
    if logits.shape == (1, V_):
        raise _Fail(f"Your logits have shape (1, {V_}); return shape ({V_},), one "
                    "logit per token: model.unembed(h[0]) or logits[0].")
    _require_shape(logits, (V_,), "The logits", "One logit per token of the "
                   "vocabulary: model.unembed(h[0]).")
    if not isinstance(new, (list, tuple)) or len(new) != model.n_layers:
        raise _Fail(f"The new cache should be a list with one (K, V) per layer, "
                    f"{model.n_layers} in all; yours is {type(new).__name__}"
                    + (f" of length {len(new)}" if isinstance(new, (list, tuple))
                       else "") + ".")
    want = (model.n_heads, pos + 1, model.d_head)
    arrays = []  # the new cache as arrays (nested lists are accepted too)
    for layer, pair in enumerate(new):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise _Fail(f"new_cache[{layer}] should be a pair (K, V).")
        K, V = (np.asarray(a) for a in pair)
        arrays.append((K, V))
        K0, V0 = cache[layer]
        if K.shape == K0.shape and np.array_equal(K, K0):
            raise _Fail(f"The cache did not grow: new_cache[{layer}] is the cache "
                        "you were given. Append the new token's k and v, "
                        "np.concatenate([K, k], axis=1), and keep that: the next "
                        "step needs this token's key and value.")
        if K.shape == (model.n_heads, 1, model.d_head) and pos > 0:
            raise _Fail(f"new_cache[{layer}] holds only the new token: you replaced "
                        "the cache by its k and v instead of appending them, "
                        "np.concatenate([K, k], axis=1).")
        if K.ndim == 3 and K.shape[0] != model.n_heads and K.shape[2] == \
                model.d_head:
            raise _Fail(f"new_cache[{layer}]'s K has shape {K.shape}: you appended "
                        f"along axis 0, the heads ({model.n_heads} of them). The "
                        "tokens are axis 1 of K (heads, tokens, d_head): "
                        "np.concatenate([K, k], axis=1).")
        _require_shape(K, want, f"new_cache[{layer}]'s K after a step at pos = "
                       f"{pos}", "One more row than the cache you were given.")
        _require_shape(V, want, f"new_cache[{layer}]'s V", "")
        if np.allclose(K[:, :pos], V0) and np.allclose(V[:, :pos], K0):
            raise _Fail(f"new_cache[{layer}] is (V, K): keys and values swapped. "
                        "Keep each layer as (K, V).")
        if not (np.allclose(K[:, :pos], K0, rtol=1e-5, atol=1e-6)
                and np.allclose(V[:, :pos], V0, rtol=1e-5, atol=1e-6)):
            raise _Fail(f"new_cache[{layer}] changed the cached rows: the keys and "
                        "values of earlier tokens never change (they cannot see "
                        "the new one). Append the new row after them.")
    return logits.astype(np.float64), arrays


def check_decode_step(fn, model=None) -> bool:
    """Check ``fn(model, token, pos, cache) -> (logits, new_cache)``: one new
    token at position ``pos`` through every layer with the KV cache.

    ``cache[layer] = (K, V)``, each ``(heads, pos, d_head)``, holds the
    ``pos`` earlier tokens (``model.prefill``); ``logits`` ``(vocab,)`` must
    equal the full run's within 1e-4, and ``new_cache`` each ``(heads, pos +
    1, d_head)``, the given cache left unchanged. Then greedy decoding with
    ``fn`` must give ``model.generate(..., temperature=0)``'s tokens.
    ``model`` defaults to ``helpers.models.gpt.load()``.
    """

    @_checker("one decoding step with the KV cache")
    def check_decode_step(fn, name):
        mdl = _gpt(model)
        run = mdl.run(STEP_TEXT)
        ids = run.ids
        steps = list(range(STEP_PREFILL, STEP_PREFILL + 4)) + [1]
        for pos in steps:
            if pos in (STEP_PREFILL, 1):  # a fresh cache: 5 tokens, then 1
                _, cache = mdl.prefill(ids[:pos])
            token = int(ids[pos])
            label = (f"the token {mdl.piece(token)!r} at pos = {pos}, after "
                     f"{pos} cached token{'s' if pos > 1 else ''}")
            got, new = _step_call(fn, name, mdl, token, pos, cache)
            expected = run.logits[pos].astype(np.float64)
            if not np.isfinite(got).all():
                raise _Fail(f"For {label}, your logits contain NaN or inf.")
            if not np.allclose(got, expected, rtol=0, atol=1e-4):
                with np.errstate(all="ignore"):
                    tries = _step_mistakes(mdl, token, pos, cache)
                for wrong, why in tries:
                    if np.allclose(got, wrong, rtol=0, atol=1e-4):
                        raise _Fail(f"For {label}: {why}.")
                worst = float(np.abs(got - expected).max())
                raise _Fail(
                    f"For {label}, your logits differ from the model's by up to "
                    f"{worst:.2g}. Per layer: q, k, v = model.qkv(layer, h); append "
                    "k and v to the cache; out = attention(q, K, V); h = "
                    "model.finish(layer, h, out). Then model.unembed(h[0]).")
            cache = new
        # greedy decoding with the learner's step, against generate
        prompt = mdl.run(GREEDY_PROMPT).ids
        logits, cache = mdl.prefill(prompt)
        mine = []
        for t in range(GREEDY_TOKENS):
            token = int(np.argmax(logits))
            mine.append(token)
            logits, cache = _step_call(fn, name, mdl, token, len(prompt) + t, cache)
        want = mdl.generate(GREEDY_PROMPT, GREEDY_TOKENS, temperature=0).new_ids
        if mine != [int(i) for i in want]:
            raise _Fail("Greedy decoding with your step drifts from "
                        f"model.generate: {mdl.decode(mine)!r} against "
                        f"{mdl.decode(want)!r}.")
        return (f"{name} gives the full run's logits at {len(steps)} positions "
                f"within 1e-4, grows the cache by one row, and greedy decoding "
                f"with it writes what model.generate writes ({GREEDY_TOKENS} "
                "tokens).")

    return check_decode_step(fn)


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
    the ``rng`` given. Draws equal to ``rng.choice(len(p), p=p)``'s, seed for
    seed, pass at once; a sampler that draws another way (for example among
    the k kept tokens, ``rng.choice(k, p=...)``) is judged by the frequencies
    of ``N_EMPIRICAL`` draws, and must still repeat itself for a seed.
    """
    cases, by_frequency = _sample_cases(), []
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

        def tv(q):
            return 0.5 * float(np.abs(freq - q).sum())

        outside = np.flatnonzero((freq > 0) & (p == 0))
        missed = np.flatnonzero((freq == 0) & (p > 0.003))  # e^-12 by chance
        # mistakes the frequencies can tell apart from the right distribution
        apart = [(q, why) for q, why in tries
                 if 0.5 * np.abs(q - p).sum() > 2 * TV_OK]
        nearest = min(apart, key=lambda t: tv(t[0]), default=None)
        if (not outside.size and not missed.size and tv(p) < TV_OK
                and (nearest is None or tv(p) < tv(nearest[0]))):
            by_frequency.append(label)  # right, drawn another way (e.g. among k)
            continue
        if nearest is not None and tv(nearest[0]) < min(TV_OK, tv(p)):
            raise _Fail(f"With {label} (judging by {N_EMPIRICAL:,} draws): "
                        f"{nearest[1]}.")
        if outside.size:
            raise _Fail(f"With {label}: you drew token {outside[0]}, which is not "
                        "among the k largest logits: keep only those.")
        if missed.size:
            raise _Fail(f"With {label}: token {missed[0]} is among the k largest "
                        f"(p = {p[missed[0]]:.2f}) but never came up in "
                        f"{N_EMPIRICAL:,} draws: keep all k of them.")
        i = int(np.argmax(np.abs(freq - p)))
        raise _Fail(f"With {label}: your draws do not follow softmax(logits / T) "
                    f"over the k largest: token {i} came up {freq[i]:.1%} of "
                    f"{N_EMPIRICAL:,} times, expected {p[i]:.1%}.")
    if by_frequency:
        return (f"{name} draws from softmax(logits / T) over the k largest, judged "
                f"by the frequencies of {N_EMPIRICAL:,} draws ({len(cases)} "
                "settings of k and T): right. Its draws are not those of "
                "rng.choice(len(p), p=p) seed for seed (they are drawn another "
                "way), which is fine.")
    return (f"{name} draws what top_k_probabilities + rng.choice draw, seed for "
            f"seed ({len(cases)} settings of k and T, {N_DRAWS} draws each).")

