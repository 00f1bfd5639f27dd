"""Lesson 14's tasks: associative recall and copying, with readable tokens.

A context holds N facts "name -> room": each name has a seeded random unit
key vector (``d_k`` numbers), each room a seeded random unit value vector.
A memory stores the pairs; asking with a name's key reads a vector back, and
the answer is the room whose vector is nearest (the "nearest-value recall").
Four memories, each a few lines on top of :mod:`helpers.attention`:

* ``"softmax"``: softmax attention over every stored pair (the KV cache);
* ``"linear"``: plain linear attention, ``S = sum k^T v`` (identity feature
  map, no normaliser), read as ``q S``;
* ``"linear elu+1"``: the same with ``phi = elu + 1`` and the normaliser;
* ``"delta"``: the delta rule (``beta``, and a gate ``alpha`` if given).

Copying (lesson 13's task) is recall with positions as keys: output
position i asks for the letter written at position i.
"""

from __future__ import annotations

import numpy as np

from helpers.attention import (delta_rule, linear_attention,
                               scaled_dot_product_attention)

__all__ = ["NAMES", "MEMORIES", "unit_vectors", "facts", "read_back", "recall",
           "recall_curve", "per_context", "copy_accuracy",
           "overwrite_accuracy", "two_documents"]

#: 64 readable keys (first names), in a fixed order.
NAMES = (
    "Ada Ben Cleo Dan Eva Finn Gus Hana Ivo Jun Kai Lea Milo Nia Omar Pia Quin "
    "Rosa Sam Tara Uma Vik Wes Xia Yara Zed Abe Bea Cruz Dora Eli Fay Gil Hugo "
    "Iris Jax Kim Luz Max Nell Otto Pam Ravi Sol Theo Una Val Will Yuri Zoe Ari "
    "Bo Cal Dee Ezra Flo Gia Hal Ike Joy Kit Lou Mae Ned").split()
#: The memories :func:`read_back` knows.
MEMORIES = ("softmax", "linear", "linear elu+1", "delta")
#: Softmax's scale here: the read-back is nearly one fact. Lesson 04's
#: 1 / sqrt(d_k) assumes keys of length about sqrt(d_k) (entries of size
#: 1); on these unit keys every score is at most 0.25 and it recalls only
#: 0.46 / 0.22 / 0.09 at N = 4 / 8 / 16, while on keys of length 4
#: (``key_length=4.0``), or with scale 4 on unit keys, it recalls 1.00 up to
#: N = 64 (400 contexts each; lesson 14, section 4).
SOFTMAX_SCALE = 30.0


def unit_vectors(n: int, d: int, seed: int) -> np.ndarray:
    """``n`` seeded random vectors of length 1 in ``d`` dimensions."""
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def facts(N: int, d_k: int = 16, d_v: int = 16, seed: int = 0):
    """``N`` facts: (names, rooms, K, V) with K (N, d_k), V (N, d_v) unit rows;
    room numbers are a seeded shuffle of 1 ... N."""
    rng = np.random.default_rng(seed)
    names = [NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i // len(NAMES)))
             for i in range(N)]
    rooms = [int(r) for r in rng.permutation(N) + 1]
    return (names, rooms, unit_vectors(N, d_k, seed + 1),
            unit_vectors(N, d_v, seed + 2))


def read_back(memory: str, K, V, Q, beta=1.0, alpha=None, scale=SOFTMAX_SCALE):
    """What ``memory`` returns for the queries ``Q`` (m, d_k) after storing the
    pairs ``K`` (N, d_k) -> ``V`` (N, d_v) in order; also the state it holds
    ((N, d_k + d_v) numbers for softmax: the cache itself). ``scale``
    multiplies softmax's scores (``1 / sqrt(d_k)`` is lesson 04's);
    ``beta`` and ``alpha`` are the delta rule's. Leading dimensions (many
    contexts at once) broadcast."""
    K, V, Q = (np.asarray(a, dtype=float) for a in (K, V, Q))
    if memory == "softmax":
        return scaled_dot_product_attention(Q, K, V, scale=scale)[0], \
            np.concatenate([K, V], axis=-1)
    if memory == "linear":
        S = np.swapaxes(K, -1, -2) @ V
        return Q @ S, S
    if memory == "linear elu+1":
        from helpers.attention import elu_plus_one
        S = np.swapaxes(elu_plus_one(K), -1, -2) @ V
        return linear_attention(Q, K, V), S
    if memory == "delta":
        n = K.shape[-2]
        b = np.broadcast_to(np.asarray(beta, dtype=float), (n,))
        a = None if alpha is None else np.broadcast_to(np.asarray(alpha, float), (n,))
        _, S = delta_rule(K, K, V, b, a)
        return Q @ S, S
    raise ValueError(f"unknown memory {memory!r}; one of {MEMORIES}")


def recall(out, V):
    """(hit per query, error per query): whether the nearest stored value is
    the right one, and the distance to it."""
    out, V = np.asarray(out, float), np.asarray(V, float)
    dist = ((out[:, None, :] - V[None, :, :]) ** 2).sum(-1)
    return _nearest_is(dist, np.arange(len(V))), np.linalg.norm(out - V, axis=1)


def _nearest_is(dist, right, tol=1e-9):
    """Whether value ``right[i]`` is the nearest to read-back i by more than
    ``tol``: a tie (two equal keys averaged) is no recall, on every CPU."""
    rows = np.arange(len(dist))
    mine = dist[rows, right]
    others = dist.copy()
    others[rows, right] = np.inf
    return mine < others.min(axis=1, initial=np.inf) - tol


def _recall_contexts(memory, N, d_k, trials, seed, key_length=1.0, **kw):
    """(hits, errors), each (trials, N): contexts t = 0 ... trials - 1 of
    ``N`` facts (seeded by t and N), all read back at once."""
    K, V = (np.stack(x) for x in zip(*[facts(N, d_k, d_k, seed=seed + 1000 * t + N)[2:]
                                       for t in range(trials)]))
    K = key_length * K
    out, _ = read_back(memory, K, V, K, **kw)
    hits, errs = zip(*[recall(o, v) for o, v in zip(out, V)])
    return np.array(hits), np.array(errs)


def _overwrite_contexts(memory, N, d_k, trials, seed, **kw):
    """Whether each of ``N`` names written twice reads back its new room,
    (trials, N)."""
    K = np.stack([unit_vectors(N, d_k, seed + 1000 * t + N) for t in range(trials)])
    V = np.stack([unit_vectors(2 * N, d_k, seed + 1000 * t + N + 1)
                  for t in range(trials)])
    got, _ = read_back(memory, np.concatenate([K, K], axis=1), V, K, **kw)
    dist = ((got[:, :, None, :] - V[:, None]) ** 2).sum(-1)
    return np.array([_nearest_is(d, np.arange(N, 2 * N)) for d in dist])


def recall_curve(memory: str, Ns, d_k: int = 16, trials: int = 50, seed: int = 0,
                 **kw):
    """Mean recall accuracy, mean error and accuracy by position (a list of
    (N,) arrays) for each N, over ``trials`` seeded contexts. ``key_length``
    (default 1) stretches every key; other keywords go to :func:`read_back`."""
    acc, err, by_pos = [], [], []
    for N in Ns:
        hits, errs = _recall_contexts(memory, N, d_k, trials, seed, **kw)
        acc.append(float(np.mean(hits)))
        err.append(float(np.mean(errs)))
        by_pos.append(np.mean(hits, axis=0))
    return np.array(acc), np.array(err), by_pos


def per_context(memory: str, N: int, task: str = "recall", d_k: int = 16,
                trials: int = 400, seed: int = 0, **kw) -> np.ndarray:
    """The share right in each of ``trials`` seeded contexts, shape (trials,):
    ``task="recall"`` (the contexts of :func:`recall_curve`) or
    ``"overwrite"`` (those of :func:`overwrite_accuracy`). Its mean is the
    curve's point; its spread across contexts gives the standard error,
    ``std / sqrt(trials)``."""
    if task == "recall":
        return _recall_contexts(memory, N, d_k, trials, seed, **kw)[0].mean(axis=1)
    if task == "overwrite":
        return _overwrite_contexts(memory, N, d_k, trials, seed, **kw).mean(axis=1)
    raise ValueError(f"unknown task {task!r}: 'recall' or 'overwrite'")


def copy_accuracy(memory: str, lengths, d: int = 16, vocab: int = 26,
                  trials: int = 20, seed: int = 0, keys: str = "random"):
    """Share of letters copied right from random texts of each length: key
    of position i = a seeded unit vector (``keys="random"``; they overlap) or
    one of ``d`` orthogonal unit vectors (``keys="orthogonal"``, only for
    lengths up to ``d``: no more than ``d`` vectors can be orthogonal in
    ``d`` dimensions); value = the letter's vector; the answer is the nearest
    letter."""
    if keys not in ("random", "orthogonal"):
        raise ValueError(f"keys must be 'random' or 'orthogonal', got {keys!r}")
    letters = unit_vectors(vocab, d, seed + 7)
    out = []
    for L in lengths:
        if keys == "orthogonal" and L > d:
            raise ValueError(f"at most d = {d} keys can be orthogonal, not {L}")
        right = []
        for t in range(trials):
            rng = np.random.default_rng(seed + 100 * t + L)
            text = rng.integers(0, vocab, L)
            if keys == "random":
                P = unit_vectors(L, d, seed + 100 * t + L + 1)
            else:
                rng_p = np.random.default_rng(seed + 100 * t + L + 1)
                P = np.linalg.qr(rng_p.standard_normal((d, d)))[0][:L]  # orthonormal
            got, _ = read_back(memory, P, letters[text], P)
            guess = ((got[:, None, :] - letters[None]) ** 2).sum(-1).argmin(1)
            right.append(np.mean(guess == text))
        out.append(float(np.mean(right)))
    return np.array(out)


def overwrite_accuracy(memory: str, Ns, d_k: int = 16, trials: int = 50,
                       seed: int = 0, **kw):
    """Each of N names is written twice, the second time with a new room;
    the share of queries answered with the **new** room (nearest of all 2N
    values) for each N. Keywords (``beta``, ``alpha``) go to
    :func:`read_back`."""
    return np.array([float(np.mean(_overwrite_contexts(memory, N, d_k, trials, seed,
                                                       **kw))) for N in Ns])


def two_documents(n_first: int, n_second: int, reset: bool, d_k: int = 16,
                  trials: int = 200, seed: int = 0) -> float:
    """Gated delta rule over two documents, ``n_first`` facts then
    ``n_second``, asked for the second document's facts; with ``reset`` the
    gate is alpha = 0 at the second document's first token (the state is
    wiped there), otherwise alpha = 1 everywhere. Returns the share recalled
    (nearest of all the values of both documents)."""
    n = n_first + n_second
    hits = []
    for t in range(trials):
        _, _, K, V = facts(n, d_k, d_k, seed=seed + 1000 * t + n)
        alpha = np.ones(n)
        if reset:
            alpha[n_first] = 0.0
        got, _ = read_back("delta", K, V, K[n_first:], alpha=alpha)
        dist = ((got[:, None, :] - V[None]) ** 2).sum(-1)
        hits.append(_nearest_is(dist, np.arange(n_first, n)))
    return float(np.mean(hits))
