"""Lesson 05: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {
    "my_delta_row": "check_delta_row",
    "my_update": "check_update",
    "my_chemistry_values": "check_chemistry_values",
}


def my_delta_row(a, V, W_up):
    return (a @ V) @ W_up


def my_update(E, A, V, W_up):
    return E + (A @ V) @ W_up


def my_chemistry_values(features, d_model):
    chem = features.index("chemistry")
    W_V = np.zeros((d_model, 1))      # value-down: read one number, d_v = 1
    W_V[chem, 0] = 1.0                # ... the chemistry feature of each word
    W_up = np.zeros((1, d_model))     # value-up: write it back
    W_up[0, chem] = 2.0               # ... into mole's chemistry column
    return W_V, W_up
