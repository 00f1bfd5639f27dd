"""An induction circuit built by hand (lesson 13): two attention heads whose
every weight is set, not learned, on top of :mod:`helpers.attention`.

The residual stream of this model has four labelled subspaces, one block of
coordinates each (row vectors, ``(n_tokens, d_model)`` as everywhere)::

    token  | position | previous token | output
    V dims |  P dims  |     V dims     | V dims        d_model = 3 V + P

* every sequence starts with ``<|endoftext|>`` (id 0): the first position
  has no token before it, so the previous-token head writes that marker
  there, which no query asks for;
* the embedding ``E`` writes a one-hot of the token into ``token`` and a
  one-hot of the position into ``position``;
* layer 0 has one head, the **previous-token head**: its query reads the
  position p, its key reads position j and the match is 1 exactly when
  j = p - 1 (a purely positional pattern); its value reads the token, and
  ``W_O`` writes it into ``previous token``: "the token before me was X";
* layer 1 has one head, the **induction head**: its query reads the current
  token X from ``token``, its key reads ``previous token`` (what layer 0
  wrote: K-composition), so it attends to the tokens that came right after
  an earlier X; its value reads that token and ``W_O`` writes it into
  ``output``;
* the unembedding ``W_U`` reads ``output`` only: the model predicts whatever
  the induction head copied, and nothing else.

There is no LayerNorm and no MLP, and the scores are used as they are
(``scale=1``): a match scores ``SHARPNESS``, anything else 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.attention import causal_mask, scaled_dot_product_attention, softmax

__all__ = [
    "HAND_VOCAB",
    "HandRun",
    "Layout",
    "build_circuit",
    "run_circuit",
]

#: The hand-built model's vocabulary: ``<|endoftext|>`` (id 0, which starts
#: every sequence, as in the trained models) and 12 short words, all of them
#: words of lesson 13's trained model too (its 127), so that a text of the
#: hand-built circuit can be typed into the lesson's explorer as it is.
HAND_VOCAB = (
    "<|endoftext|>", "cat", "dog", "fox", "fish", "bird", "owl",
    "cow", "salt", "wolf", "tea", "pig", "milk",
)  # fmt: skip
SHARPNESS = 12.0  # a matching key scores this much more than any other
LOGIT_SCALE = 8.0  # the output logit of a copied token


@dataclass(frozen=True)
class Layout:
    """Where each subspace of the residual stream lives: ``slice``s of
    ``range(d_model)``, for a vocabulary of ``V`` tokens and ``P`` positions."""

    V: int
    P: int

    @property
    def token(self):
        return slice(0, self.V)

    @property
    def position(self):
        return slice(self.V, self.V + self.P)

    @property
    def previous(self):
        return slice(self.V + self.P, 2 * self.V + self.P)

    @property
    def output(self):
        return slice(2 * self.V + self.P, 3 * self.V + self.P)

    @property
    def d_model(self) -> int:
        return 3 * self.V + self.P


def build_circuit(vocab_size: int = len(HAND_VOCAB), n_positions: int = 32) -> dict:
    """Every weight of the two-head induction circuit, set by hand.

    Returns ``{"layout", "W_Q0", "W_K0", "W_V0", "W_O0", "W_Q1", "W_K1",
    "W_V1", "W_O1", "W_U"}``: layer 0's head maps ``(d_model, P)`` for Q and
    K and ``(d_model, V)`` for V, ``W_O0`` is ``(V, d_model)``; layer 1's
    maps are all ``(d_model, V)`` and ``W_O1`` is ``(V, d_model)``;
    ``W_U`` is ``(d_model, V)``.
    """
    lay = Layout(int(vocab_size), int(n_positions))
    V, P, d = lay.V, lay.P, lay.d_model
    eye_V, eye_P = np.eye(V), np.eye(P)
    W = {"layout": lay}
    # layer 0, previous-token head: query "I am at p", key "I am at j" moved to
    # j + 1, so q_p . k_j = SHARPNESS exactly when j = p - 1
    W["W_Q0"] = np.zeros((d, P))
    W["W_Q0"][lay.position] = SHARPNESS * eye_P
    W["W_K0"] = np.zeros((d, P))
    W["W_K0"][lay.position] = np.eye(P, k=1)  # row j -> column j + 1
    W["W_V0"] = np.zeros((d, V))
    W["W_V0"][lay.token] = eye_V
    W["W_O0"] = np.zeros((V, d))
    W["W_O0"][:, lay.previous] = eye_V
    # layer 1, induction head: query "my token is X", key "the token before
    # me was X" (read from what layer 0 wrote)
    W["W_Q1"] = np.zeros((d, V))
    W["W_Q1"][lay.token] = SHARPNESS * eye_V
    W["W_K1"] = np.zeros((d, V))
    W["W_K1"][lay.previous] = eye_V
    W["W_V1"] = np.zeros((d, V))
    W["W_V1"][lay.token] = eye_V
    W["W_O1"] = np.zeros((V, d))
    W["W_O1"][:, lay.output] = eye_V
    W["W_U"] = np.zeros((d, V))
    W["W_U"][lay.output] = LOGIT_SCALE * eye_V
    return W


@dataclass
class HandRun:
    """One forward pass of the hand-built circuit on ``n`` token ids."""

    ids: np.ndarray  # (n,)
    E: np.ndarray  # (n, d_model): the embedding
    A0: np.ndarray  # (n, n): the previous-token head's pattern
    E1: np.ndarray  # (n, d_model): E + layer 0's update
    A1: np.ndarray  # (n, n): the induction head's pattern
    E2: np.ndarray  # (n, d_model): after layer 1
    logits: np.ndarray  # (n, V): logits[t] predicts ids[t + 1]

    def probs(self) -> np.ndarray:
        """``(n, V)`` next-token probabilities."""
        return softmax(self.logits)

    def loss_per_position(self) -> np.ndarray:
        """``(n - 1,)`` nats: ``-log p(ids[t + 1] | ids[: t + 1])``."""
        p = self.probs()[np.arange(len(self.ids) - 1), self.ids[1:]]
        return -np.log(p)


def embed(W: dict, ids) -> np.ndarray:
    """``E``: one-hot token + one-hot position, ``(n, d_model)``."""
    lay = W["layout"]
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    n = len(ids)
    if n > lay.P:
        raise ValueError(f"the circuit has {lay.P} positions, got {n} tokens")
    if n and (ids.min() < 0 or ids.max() >= lay.V):
        raise ValueError(f"token ids must be in 0..{lay.V - 1}")
    E = np.zeros((n, lay.d_model))
    E[np.arange(n), ids] = 1.0
    E[np.arange(n), lay.V + np.arange(n)] = 1.0
    return E


def run_circuit(W: dict, ids, ablate=()) -> HandRun:
    """Run the circuit on ``ids`` (``(n,)`` ints in ``0..V-1``).

    ``ablate`` may hold ``"previous"`` and/or ``"induction"``: that head's
    output is set to zero (its pattern is still computed and returned).
    """
    E = embed(W, ids)
    mask = causal_mask(len(E))
    out0, A0 = scaled_dot_product_attention(
        E @ W["W_Q0"], E @ W["W_K0"], E @ W["W_V0"], mask=mask, scale=1.0
    )
    E1 = E + (0.0 if "previous" in ablate else out0 @ W["W_O0"])
    out1, A1 = scaled_dot_product_attention(
        E1 @ W["W_Q1"], E1 @ W["W_K1"], E1 @ W["W_V1"], mask=mask, scale=1.0
    )
    E2 = E1 + (0.0 if "induction" in ablate else out1 @ W["W_O1"])
    return HandRun(np.asarray(ids), E, A0, E1, A1, E2, E2 @ W["W_U"])
