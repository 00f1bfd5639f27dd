"""Lesson 09: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {"my_softmax_backward": "check_softmax_backward"}


def my_softmax_backward(s, g):
    row_dot = np.sum(g * s, axis=-1, keepdims=True)   # sum_j g_j s_j, per row
    return s * (g - row_dot)
