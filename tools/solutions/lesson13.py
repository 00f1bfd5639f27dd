"""Lesson 13: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {
    "prefix_matching_score": "check_prefix_matching_score",
    "induction_qk": "check_induction_qk",
    "ablation_ratio": "check_ablation_ratio",
}


def prefix_matching_score(A, start, length):
    j = np.arange(length - 1)  # the second copy, but its last token
    queries = start + length + j  # the token X, seen again
    keys = start + j + 1  # what followed X the first time
    return A[..., queries, keys].mean(axis=-1)  # one score per pattern (per head)


def induction_qk(layout, sharpness):
    W_Q = np.zeros((layout.d_model, layout.V))
    W_K = np.zeros((layout.d_model, layout.V))
    W_Q[layout.token] = sharpness * np.eye(layout.V)  # query: "my token is X"
    W_K[layout.previous] = np.eye(layout.V)  # key: "the token before me was X"
    return W_Q, W_K


def ablation_ratio(model, ids, start, length, head):
    def second_copy(loss):  # loss[t] predicts token t + 1
        return loss[start + length : start + 2 * length - 1].mean()

    intact = model.run(ids).loss_per_position()
    ablated = model.run(ids, ablate={head}).loss_per_position()
    return second_copy(ablated) / second_copy(intact)
