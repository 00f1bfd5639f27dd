"""Lesson 05: the reference solution of each exercise (see tools/README.md)."""

CHECKERS = {"my_update": "check_update"}


def my_update(E, A, V, W_up):
    return E + (A @ V) @ W_up
