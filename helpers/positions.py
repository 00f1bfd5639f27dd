"""Where a token is: the positional encoding of the toy world.

``positional_encoding(n)`` gives ``N_POS_DIMS`` columns of sines and cosines
that tell a head *where* a token is, so that a head can "look at the previous
token". ``helpers.lexicon.embed`` appends them after the word's features
(``embed(..., positions=False)`` leaves them at zero), and the tiny model of
lesson 09 adds the same clock hands to its learned embeddings.
"""

from __future__ import annotations

import numpy as np

__all__ = ["POS_PERIODS", "POS_AMPLITUDE", "N_POS_DIMS", "positional_encoding"]


#: Periods (in tokens) of the sine/cosine pairs of the positional encoding.
POS_PERIODS: tuple[int, ...] = (4, 7, 16, 200)


#: Height of every positional sine and cosine.
POS_AMPLITUDE: float = 0.5

#: Number of positional columns appended after FEATURES (a sin and a cos per period).
N_POS_DIMS: int = 2 * len(POS_PERIODS)


def positional_encoding(n: int) -> np.ndarray:
    """Where each token is: an ``(n, N_POS_DIMS)`` array.

    Token ``i`` (counting from 0) gets, for each period ``T`` in
    ``POS_PERIODS = (4, 7, 16, 200)``, the pair

        ``POS_AMPLITUDE * sin(2 pi i / T)``, ``POS_AMPLITUDE * cos(2 pi i / T)``

    Think of each pair as the hand of a clock that turns once every ``T``
    tokens: short periods tell neighbours apart, the long one keeps
    positions 100 tokens apart from looking alike.

    Why sines and cosines? Turning a hand back by one step is a fixed
    rotation, i.e. a matrix. So a query matrix can turn "I am at i" into
    "I look for i - 1", and the dot product with the key "I am at j" is
    largest exactly when j = i - 1: that is the previous-token head in
    ``helpers.heads``. (The dot product of two positions depends only on
    the distance ``i - j``, never on where the sentence starts.)

    The values are at most 0.5 in size, so positions do not swamp the
    meaning columns; ``embed(..., positions=False)`` switches them off.
    """
    if int(n) != n or n < 0:
        raise ValueError(f"positional_encoding needs a whole number n >= 0, got {n}")
    i = np.arange(int(n))[:, None]
    angles = 2 * np.pi * i / np.array(POS_PERIODS, dtype=float)[None, :]
    out = np.empty((int(n), N_POS_DIMS))
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles)
    return POS_AMPLITUDE * out
