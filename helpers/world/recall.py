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
           "recall_curve", "copy_accuracy",
           "overwrite_accuracy", "two_documents"]

#: 64 readable keys (first names), in a fixed order.
NAMES = (
    "Ada Ben Cleo Dan Eva Finn Gus Hana Ivo Jun Kai Lea Milo Nia Omar Pia Quin "
    "Rosa Sam Tara Uma Vik Wes Xia Yara Zed Abe Bea Cruz Dora Eli Fay Gil Hugo "
    "Iris Jax Kim Luz Max Nell Otto Pam Ravi Sol Theo Una Val Will Yuri Zoe Ari "
    "Bo Cal Dee Ezra Flo Gia Hal Ike Joy Kit Lou Mae Ned").split()
#: The memories :func:`read_back` knows.
MEMORIES = ("softmax", "linear", "linear elu+1", "delta")
#: Softmax's scale here: a sharp head, as a trained head with large q . k
#: would be. With unit keys lesson 04's 1 / sqrt(d_k) = 0.25 recalls only
#: 0.47 / 0.21 / 0.10 at N = 4 / 8 / 16, and scale 1 0.95 / 0.80 / 0.42
#: (``recall_curve("softmax", Ns, scale=...)``, 50 contexts each).
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
    ``beta`` and ``alpha`` are the delta rule's."""
    K, V, Q = (np.asarray(a, dtype=float) for a in (K, V, Q))
    if memory == "softmax":
        return scaled_dot_product_attention(Q, K, V, scale=scale)[0], \
            np.hstack([K, V])
    if memory == "linear":
        S = K.T @ V
        return Q @ S, S
    if memory == "linear elu+1":
        from helpers.attention import elu_plus_one
        S = elu_plus_one(K).T @ V
        return linear_attention(Q, K, V), S
    if memory == "delta":
        n = len(K)
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


def recall_curve(memory: str, Ns, d_k: int = 16, trials: int = 50, seed: int = 0,
                 **kw):
    """Mean recall accuracy, mean error and accuracy by position (a list of
    (N,) arrays) for each N, over ``trials`` seeded contexts."""
    acc, err, by_pos = [], [], []
    for N in Ns:
        hits, errs = [], []
        for t in range(trials):
            _, _, K, V = facts(N, d_k, d_k, seed=seed + 1000 * t + N)
            out, _ = read_back(memory, K, V, K, **kw)
            h, e = recall(out, V)
            hits.append(h)
            errs.append(e)
        acc.append(float(np.mean(hits)))
        err.append(float(np.mean(errs)))
        by_pos.append(np.mean(hits, axis=0))
    return np.array(acc), np.array(err), by_pos


def copy_accuracy(memory: str, lengths, d: int = 16, vocab: int = 26,
                  trials: int = 20, seed: int = 0):
    """Share of letters copied right from random texts of each length: key
    of position i = a seeded unit vector, value = the letter's vector; the
    answer is the nearest letter."""
    letters = unit_vectors(vocab, d, seed + 7)
    out = []
    for L in lengths:
        right = []
        for t in range(trials):
            rng = np.random.default_rng(seed + 100 * t + L)
            text = rng.integers(0, vocab, L)
            P = unit_vectors(L, d, seed + 100 * t + L + 1)
            got, _ = read_back(memory, P, letters[text], P)
            guess = ((got[:, None, :] - letters[None]) ** 2).sum(-1).argmin(1)
            right.append(np.mean(guess == text))
        out.append(float(np.mean(right)))
    return np.array(out)


def overwrite_accuracy(memory: str, Ns, d_k: int = 16, trials: int = 50,
                       seed: int = 0):
    """Each of N names is written twice, the second time with a new room;
    the share of queries answered with the **new** room (nearest of all 2N
    values) for each N."""
    out = []
    for N in Ns:
        hits = []
        for t in range(trials):
            K = unit_vectors(N, d_k, seed + 1000 * t + N)
            V = unit_vectors(2 * N, d_k, seed + 1000 * t + N + 1)
            got, _ = read_back(memory, np.vstack([K, K]), V, K)
            dist = ((got[:, None, :] - V[None]) ** 2).sum(-1)
            hits.append(_nearest_is(dist, np.arange(N, 2 * N)))
        out.append(float(np.mean(hits)))
    return np.array(out)


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
