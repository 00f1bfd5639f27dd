"""Lesson 02: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

from helpers.attention import softmax

CHECKERS = {"mix": "check_mix", "my_softmax": "check_softmax",
            "context_vectors": "check_context_vectors"}


def my_softmax(x):
    x = np.asarray(x, dtype=float)
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def mix(weights, rows):
    return weights @ rows


def context_vectors(E):
    A = softmax(E @ E.T, axis=-1)
    return A @ E
