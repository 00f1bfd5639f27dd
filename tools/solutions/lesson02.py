"""Lesson 02: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {"my_softmax": "check_softmax"}


def my_softmax(x):
    x = np.asarray(x, dtype=float)
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)
