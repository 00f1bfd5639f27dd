"""Where a token is: the positional encoding of the toy world.

``positional_encoding(n)`` gives ``N_POS_DIMS`` columns of sines and cosines
that tell a head *where* a token is, so that a head can "look at the previous
token". ``helpers.world.lexicon.embed`` appends them after the word's features
(``embed(..., positions=False)`` leaves them at zero), and the tiny model of
lesson 09 adds the same clock hands to its learned embeddings.

``sinusoidal_encoding(n, d)`` is the encoding of the original transformer
(Vaswani et al., 2017), the real-model version of the same idea, and
``offset_rotation(k, d)`` the matrix that moves it ``k`` positions on
(lesson 03).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "POS_PERIODS", "POS_AMPLITUDE", "N_POS_DIMS", "positional_encoding",
    "sinusoidal_encoding", "offset_rotation",
]


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
    ``helpers.world.heads``. (The dot product of two positions depends only on
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


def _frequencies(d: int, base: float) -> np.ndarray:
    """``(d // 2,)`` angular speeds ``base ** (-2i / d)``, one per (sin, cos) pair."""
    if int(d) != d or d <= 0 or d % 2:
        raise ValueError(
            f"the encoding width d must be a positive even number, got {d}")
    return float(base) ** (-np.arange(0, int(d), 2) / int(d))


def sinusoidal_encoding(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The original transformer's positional encoding: an ``(n, d)`` array ``PE``.

    Position ``pos`` (from 0), pair ``i`` (columns ``2i`` and ``2i + 1``)::

        PE[pos, 2i]     = sin(pos / base ** (2i / d))
        PE[pos, 2i + 1] = cos(pos / base ** (2i / d))

    Pair 0 turns one radian per position (a period of about 6 tokens); the
    last pairs turn so slowly that their period is close to ``2 pi base``.
    It is added to the token embeddings (``E + PE``), like the toy's clock
    hands, but with ``d`` = ``d_model`` columns and no learned part.
    """
    if int(n) != n or n < 0:
        raise ValueError(f"sinusoidal_encoding needs a whole number n >= 0, got {n}")
    angles = np.arange(int(n))[:, None] * _frequencies(d, base)[None, :]
    pe = np.empty((int(n), int(d)))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def offset_rotation(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """The ``(d, d)`` matrix ``M_k``: ``PE[pos + k] = PE[pos] @ M_k`` at every ``pos``.

    Block-diagonal: for pair ``i`` with speed ``w = base ** (-2i / d)`` the
    2 x 2 block ``[[cos kw, -sin kw], [sin kw, cos kw]]`` turns the row pair
    ``(sin pos w, cos pos w)`` into ``(sin (pos+k) w, cos (pos+k) w)`` (the
    angle-addition formulas). So "k positions later" is one fixed linear map,
    the same at every position: a head can learn it as part of ``W_Q`` or
    ``W_K``.
    """
    m = np.zeros((int(d), int(d)))
    for i, w in enumerate(_frequencies(d, base)):
        c, s = np.cos(k * w), np.sin(k * w)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return m
