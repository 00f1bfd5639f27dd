"""Lesson 03: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

from helpers.world import lexicon

CHECKERS = {"one_score": "check_one_score", "scores": "check_scores",
            "chemistry_head": "check_chemistry_head"}


def scores(E, W_Q, W_K):
    Q = E @ W_Q
    K = E @ W_K
    return Q @ K.T


def one_score(Q, K, i, j):
    return float(Q[i] @ K[j])


def chemistry_head():
    F = list(lexicon.FEATURES)
    W_Q = np.zeros((lexicon.D_MODEL, 1))
    W_K = np.zeros((lexicon.D_MODEL, 1))
    W_Q[F.index("ambiguous"), 0] = 8.0   # only ambiguous words ask (mole: 4)
    W_K[F.index("chemistry"), 0] = 1.0   # chemistry words answer
    W_K[F.index("ambiguous"), 0] = -1.0  # mole's own chemistry 0.5 cancels
    return W_Q, W_K
