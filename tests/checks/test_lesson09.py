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
        (lambda s, g: s * g, ["second term", "every weight of its row"]),
        (lambda s, g: s * (1 - s) * g, ["only how s_i changes with its own score"]),
        (
            lambda s, g: s * (g - np.sum(g * s, axis=0, keepdims=True)),
            ["wrong axis", "axis=0"],
        ),
        (
            lambda s, g: (
                s * (g - g @ s.T)
                if s.ndim == 2 and len(s) == s.shape[1]
                else softmax_backward(s, g)
            ),
            ["mixes rows", "own sum of products"],
        ),
        (lambda s, g: -softmax_backward(s, g), ["wrong sign"]),
        (lambda s, g: softmax_backward(s, g)[..., :-1], ["shape"]),
    ],
)
def test_softmax_backward_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_softmax_backward, wrong, capsys, *needles)


# --- issue 54: more mistakes, in the lesson's words, and right spellings --------


def test_softmax_backward_right_spellings(capsys):
    for fn in (lambda s, g: s * g - s * (s * g).sum(axis=-1, keepdims=True),
               lambda s, g: s * (g - np.einsum("...i,...i->...", g, s)[..., None]),
               lambda s, g: s * (g - (g * s).sum(-1)[..., np.newaxis])):
        assert_success(checks.check_softmax_backward, fn, capsys)


def _in_place(s, g):
    g -= np.sum(g * s, axis=-1, keepdims=True)
    return s * g


@pytest.mark.parametrize(("wrong", "needles"), [
    (lambda s, g: s * (g - np.sum(g * s)), ["no axis", "axis=-1"]),
    (lambda s, g: g - np.sum(g * s, axis=-1, keepdims=True), ["factor s"]),
    (lambda s, g: s * (g - np.sum(g, axis=-1, keepdims=True)), ["over g alone"]),
    (lambda s, g: s * (g - np.mean(g * s, axis=-1, keepdims=True)), ["mean"]),
    (lambda s, g: s * (g - s * g), ["only how s_i changes"]),
    (lambda s, g: -s * np.sum(g * s, axis=-1, keepdims=True), ["first term"]),
    (lambda s, g: s * (g - np.sum(g * s, axis=-1)), ["keepdims=True"]),
    (lambda s, g: s * (g - np.sum(g * s, axis=1, keepdims=True)), ["axis=-1"]),
    (_in_place, ["changed its input g in place"]),
])
def test_softmax_backward_more_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_softmax_backward, wrong, capsys, *needles)


def test_softmax_backward_messages_use_the_lessons_words(capsys):
    """Lesson 09 teaches no Jacobian: no message may use the word."""
    for wrong in (lambda s, g: s * g, lambda s, g: s * (1 - s) * g,
                  lambda s, g: s * (g - np.sum(g * s, axis=0, keepdims=True))):
        printed = assert_diagnosis(checks.check_softmax_backward, wrong, capsys)
        assert "jacobian" not in printed.lower(), printed


# --- a cold reader's review ------------------------------------------------------


def test_softmax_backward_matmul_named_even_where_it_crashes(capsys):
    """s * (g - g @ s.T) fails on the 3 x 5 case: named, not a keepdims hint."""
    printed = assert_diagnosis(checks.check_softmax_backward,
                               lambda s, g: s * (g - g @ s.T), capsys,
                               "mixes rows", "own sum of products")
    assert "keepdims" not in printed.split("own sum")[0], printed


def test_softmax_backward_without_scipy_says_so(capsys):
    def with_scipy(s, g):
        from scipy.special import softmax as _  # noqa: F401
        return s * (g - np.sum(g * s, axis=-1, keepdims=True))

    try:
        import scipy  # noqa: F401
    except ImportError:
        assert_diagnosis(checks.check_softmax_backward, with_scipy, capsys,
                         "scipy is not installed", "numpy")
    else:
        pytest.skip("scipy is installed here")
