"""Sequences whose past predicts their future (lesson 13's data) and the
scores measured on them, numpy only: what training needs (the windows of
:mod:`helpers.models.gpt_training`, its probes) and what the analysis reads
(:mod:`helpers.analysis.induction` re-exports the sequences and scores).

* :func:`repeated_ids`: ``<|endoftext|>``, a random prefix, then a random
  sequence written twice; :func:`copy_losses` the mean loss on each copy;
* :func:`previous_token`, :func:`prefix_matching` and
  :func:`chance_prefix_matching`: the two attention scores of an induction
  circuit, and what a head that spreads its weight evenly would score;
* :func:`markov_windows` and :func:`repeat_window`: the training windows of
  lesson 13's model (in-context Markov chains, plain repeats).
"""

from __future__ import annotations

import numpy as np

from helpers.models import gpt

__all__ = [
    "chance_prefix_matching",
    "copy_losses",
    "markov_windows",
    "prefix_matching",
    "previous_token",
    "repeat_window",
    "repeated_ids",
]


def repeated_ids(vocab_size: int, length: int, prefix: int = 0, seed: int = 0,
                 distinct: bool = False):
    """``<|endoftext|>``, ``prefix`` random ids, then ``length`` random ids
    written twice; all drawn from ``1 .. vocab_size - 1`` with
    ``default_rng(seed)``, with replacement, or with ``distinct`` all
    ``prefix + length`` different (by construction: drawn without
    replacement). Returns ``(ids, start)``: ids ``(1 + prefix + 2 length,)``
    and ``start``, the position of the first copy's first token."""
    rng = np.random.default_rng(seed)
    if distinct:
        w = rng.choice(np.arange(1, vocab_size), size=prefix + length, replace=False)
        p, r = w[:prefix], w[prefix:]
    else:
        p = rng.integers(1, vocab_size, size=prefix)
        r = rng.integers(1, vocab_size, size=length)
    ids = np.concatenate([[gpt.BOS], p, r, r]).astype(np.int64)
    return ids, 1 + prefix


def copy_losses(loss: np.ndarray, start: int, length: int) -> tuple[float, float]:
    """Mean loss on the first and on the second copy, from a run's
    ``loss_per_position()`` ``(n - 1,)`` (``loss[t]`` predicts token ``t + 1``).
    Each copy's first token is left out: it is random either way."""
    first = loss[start : start + length - 1]
    second = loss[start + length : start + 2 * length - 1]
    return float(first.mean()), float(second.mean())


def previous_token(attention: np.ndarray) -> np.ndarray:
    """Previous-token score: the mean weight of query ``i`` on key ``i - 1``,
    over ``i = 1 .. n - 1``. attention ``(..., n, n)`` -> ``(...)``."""
    i = np.arange(1, attention.shape[-1])
    return attention[..., i, i - 1].mean(axis=-1)


def prefix_matching(attention: np.ndarray, start: int, length: int) -> np.ndarray:
    """Prefix-matching score on a repeated sequence whose first copy starts at
    ``start`` (lesson 11's :func:`helpers.models.gpt.prefix_matching_scores`):
    the mean weight of each second-copy query ``start + length + j`` on key
    ``start + j + 1``, the token that *followed* the same token in the first
    copy, over ``j = 0 .. length - 2``. attention ``(..., n, n)`` -> ``(...)``."""
    return gpt.prefix_matching_scores(attention, length, start)


def chance_prefix_matching(start: int, length: int) -> float:
    """What :func:`prefix_matching` gives for a head that spreads each row
    evenly over the keys it may see (query ``q`` sees ``q + 1`` keys)."""
    q = start + length + np.arange(length - 1)
    return float(np.mean(1.0 / (q + 1)))


def markov_windows(rng, batch: int, T: int, vocab: int = 128, alphabet=(6, 24),
                   follow: float = 0.65) -> np.ndarray:
    """In-context Markov chains, ``(batch, T)`` ids: each row is
    ``<|endoftext|>``, then a walk on an alphabet of ``alphabet`` random words
    (new in every row) arranged in one random cycle; each word is followed by
    the next on the cycle with probability ``follow``, else by a random word
    of the alphabet. No word predicts another across rows: only finding the
    current word earlier in the row, and reading what came after it, helps."""
    k = rng.integers(alphabet[0], alphabet[1] + 1, size=(batch, 1))
    words = 1 + np.argsort(rng.random((batch, vocab - 1)), axis=1)  # the cycles
    n = T - 1
    jump = rng.random((batch, n)) >= follow
    jump[:, 0] = True  # the first word is a random one
    target = (rng.random((batch, n)) * k).astype(np.int64)  # where a jump lands
    t = np.arange(n)
    last = np.maximum.accumulate(np.where(jump, t, 0), axis=1)  # the last jump
    at = np.take_along_axis(target, last, axis=1)
    place = (at + t - last) % k  # steps along the cycle since the last jump
    out = np.zeros((batch, T), dtype=np.int64)
    out[:, 1:] = np.take_along_axis(words, place, axis=1)
    return out


def repeat_window(rng, T: int, vocab: int = 128, seg=(8, 20), lead=(0, 23)):
    """A window of plain repeats, ``(T,)`` ids: ``<|endoftext|>``, ``lead``
    random words, then, until full, ``seg`` random words written twice."""
    out = [0] + rng.integers(1, vocab, size=rng.integers(lead[0], lead[1] + 1)).tolist()
    while len(out) < T:
        s = rng.integers(1, vocab, size=rng.integers(seg[0], seg[1] + 1)).tolist()
        out += s + s
    return np.array(out[:T], dtype=np.int64)
