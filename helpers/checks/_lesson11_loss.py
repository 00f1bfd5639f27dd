"""Lesson 11's warm-up checker, its named mistakes: the values that the
classic wrong next-token losses give on a case, so that
:func:`helpers.checks.lesson11.check_next_token_loss` can name the one made
(an off-by-one, no shift, a mean over the vocabulary, a clip, a stray
temperature, ...)."""

from __future__ import annotations

import math

import numpy as np


def _log_softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


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
    block = ("you indexed log_p[:, targets], every row × every target (an "
             "(n - 1) × (n - 1) block); pick one entry per row: "
             "log_p[np.arange(n - 1), targets]")
    tries += [(-logp[:-1][:, ids[1:]].mean(), block),
              (-logp[:, ids[1:]].mean(), block),
              (-_log_softmax(z[:-1], axis=0)[:, ids[1:]].mean(), block)]
    if n > 2:
        tries += [(right[1:].mean(), "you scored only n - 2 predictions; " + off),
                  (right[:-1].mean(), "you scored only n - 2 predictions; " + off)]
        tries.append((float(np.median(right)), "you took the median of the n - 1 "
                      "losses; the loss is their mean"))
    vocab = z.shape[-1]
    tries += [
        (right.mean() / vocab, f"you averaged over the vocabulary too (a mean over "
         f"all (n - 1) x {vocab} entries of a one-hot product): pick the one entry "
         "ids[t + 1] of each row, then average over the n - 1 predictions only"),
        (-(z[:-1] - _logsumexp_all(z[:-1]))[t, ids[1:]].mean(), "you normalised "
         "over the whole array at once (one softmax over every position and token): "
         "each row logits[t] is its own prediction, so normalise each row, "
         "axis=-1, keepdims=True"),
        (-(z[:-1] - _logsumexp_all(z))[t, ids[1:]].mean(), "you normalised over "
         "the whole array at once (one softmax over every position and token): each "
         "row logits[t] is its own prediction, so normalise each row, axis=-1, "
         "keepdims=True"),
    ]
    return tries


def _logsumexp_all(z):
    m = z.max()
    return m + np.log(np.exp(z - m).sum())


def _clipped(value, logits, ids):
    """The clip level ``eps`` if ``value`` is the loss with probabilities
    clipped to at least ``eps`` before the log (tokens whose probability
    underflows to 0 cost -log eps), else None."""
    z = np.asarray(logits, dtype=np.float64)
    t = np.arange(len(ids) - 1)
    p = np.exp(_log_softmax(z))[t, ids[1:]]
    zero = p < 1e-300
    if not zero.any():
        return None
    rest = -np.log(p[~zero]).sum()
    cost = (value * len(t) - rest) / zero.sum()  # -log eps of each clipped term
    if not 2 < cost < 745:
        return None
    eps = math.exp(-cost)
    usual = [10.0 ** -k for k in range(2, 324)] + [
        float(np.finfo(np.float64).eps), float(np.finfo(np.float32).eps),
        float(np.finfo(np.float64).tiny), float(np.finfo(np.float32).tiny)]
    return eps if any(abs(math.log(eps / u)) < 1e-3 for u in usual) else None


def _temperature(value, logits, ids):
    """``T`` if ``value`` is the loss of ``softmax(logits / T)`` for some T
    other than 1 (in 0.05 .. 20), else None."""
    z = np.asarray(logits, dtype=np.float64)
    t = np.arange(len(ids) - 1)

    def loss(T):
        return float(-_log_softmax(z / T)[t, ids[1:]].mean())

    grid = np.geomspace(0.05, 20, 241)
    gap = np.array([loss(T) - value for T in grid])
    for i in np.flatnonzero(np.sign(gap[:-1]) != np.sign(gap[1:])):
        lo, hi = grid[i], grid[i + 1]
        for _ in range(60):
            mid = math.sqrt(lo * hi)
            if np.sign(loss(mid) - value) == np.sign(gap[i]):
                lo = mid
            else:
                hi = mid
        T = math.sqrt(lo * hi)
        if abs(T - 1) > 1e-3 and math.isclose(loss(T), value, rel_tol=1e-6,
                                              abs_tol=1e-8):
            return T
    return None
