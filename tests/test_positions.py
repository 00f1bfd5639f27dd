"""The sinusoidal positional encoding of lesson 03 and its offset-as-rotation
property (helpers/world/positions.py), against hand-worked values."""

import numpy as np
import pytest

from helpers.world.positions import offset_rotation, sinusoidal_encoding


def test_hand_worked_values():
    pe = sinusoidal_encoding(3, 4)
    # pair 0 turns 1 radian per position, pair 1 turns 10000 ** (-2/4) = 0.01
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert np.allclose(pe[1], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)])
    assert np.allclose(pe[2], [np.sin(2), np.cos(2), np.sin(0.02), np.cos(0.02)])
    assert sinusoidal_encoding(0, 8).shape == (0, 8)


@pytest.mark.parametrize("k", [1, 3, 17, -5])
def test_an_offset_is_one_rotation_at_every_position(k):
    pe = sinusoidal_encoding(80, 32)
    m = offset_rotation(k, 32)
    lo, hi = max(0, -k), 80 - max(0, k)
    assert np.abs(pe[lo:hi] @ m - pe[lo + k:hi + k]).max() < 1e-12
    assert np.allclose(m @ m.T, np.eye(32))           # a rotation keeps lengths
    assert np.count_nonzero(m) == 2 * 32               # 2 x 2 blocks only


def test_dot_product_depends_only_on_the_offset():
    pe = sinusoidal_encoding(100, 16)
    for k in (1, 4, 9):
        dots = [pe[p] @ pe[p + k] for p in range(0, 90)]
        assert np.ptp(dots) < 1e-12


@pytest.mark.parametrize("d", [0, 3, -2, 2.5])
def test_odd_or_bad_width_is_refused(d):
    with pytest.raises(ValueError, match="even"):
        sinusoidal_encoding(4, d)
