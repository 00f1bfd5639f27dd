"""Lesson 09's checker (helpers/checks/lesson09.py), check_softmax_backward:
correct functions pass (the formula and the full Jacobian), each classic
mistake is named, and the checker's reference is the finite difference."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.attention import softmax
from helpers.checks import lesson09

from .conftest import assert_diagnosis, assert_success


# --- check_softmax_backward ----------------------------------------------------


def softmax_backward(s, g):
    return s * (g - np.sum(g * s, axis=-1, keepdims=True))


def softmax_backward_jacobian(s, g):
    s2 = np.atleast_2d(s)
    g2 = np.atleast_2d(g)
    J = np.einsum("bi,ij->bij", s2, np.eye(s2.shape[1])) - np.einsum(
        "bi,bj->bij", s2, s2
    )
    return np.einsum("bij,bj->bi", J, g2).reshape(np.shape(s))


def test_softmax_backward_correct(capsys):
    assert_success(checks.check_softmax_backward, softmax_backward, capsys)
    assert_success(checks.check_softmax_backward, softmax_backward_jacobian, capsys)


def test_softmax_backward_reference_matches_finite_differences():
    rng = np.random.default_rng(7)
    x, g = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(
        lesson09._finite_difference(x, g), softmax_backward(softmax(x), g), atol=1e-7
    )


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (lambda s, g: s * g, ["second term", "diag(s) - s s^T"]),
        (lambda s, g: s * (1 - s) * g, ["only the diagonal"]),
        (
            lambda s, g: s * (g - np.sum(g * s, axis=0, keepdims=True)),
            ["wrong axis", "transposed"],
        ),
        (
            lambda s, g: (
                s * (g - g @ s.T)
                if s.ndim == 2 and len(s) == s.shape[1]
                else softmax_backward(s, g)
            ),
            ["transposed", "own dot product"],
        ),
        (lambda s, g: -softmax_backward(s, g), ["wrong sign"]),
        (lambda s, g: softmax_backward(s, g)[..., :-1], ["shape"]),
    ],
)
def test_softmax_backward_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_softmax_backward, wrong, capsys, *needles)
