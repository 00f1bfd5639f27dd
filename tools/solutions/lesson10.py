"""Lesson 10: the reference solution of each exercise (see tools/README.md).

``attention`` is the learner's function of lesson 04 (the notebook defines
it in the cell before the exercise); here it is lesson 04's solution.
"""

from tools.solutions.lesson04 import attention  # noqa: F401  (used by the solutions)

CHECKERS = {"real_head_pattern": "check_real_head"}


def real_head_pattern(x, W_Q, b_Q, W_K, b_K):
    Q = x @ W_Q + b_Q
    K = x @ W_K + b_K
    _, weights = attention(Q, K, K)
    return weights
