"""What the checker tests share: ``run`` (a checker must not raise or warn),
``assert_success`` and ``assert_diagnosis``, and the learner-style functions
that several lessons' tests build on (a correct softmax and attention, and
the wrong ones lesson 08's cross-attention tests reuse from lesson 04).

The tests of lesson N are in ``test_lessonNN.py`` (its checkers are
``helpers/checks/lessonNN.py``, its solutions ``tools/solutions/lessonNN.py``);
``test_every_checker.py`` holds what every checker of lessons 01-09 must do.
"""

from __future__ import annotations

import warnings

import numpy as np

from helpers.attention import softmax


def said(text: str) -> str:
    """A checker's printed message as one line per message (the checkers
    break their lines between words, ``helpers.checks._core.LINE_CHARS``)."""
    return " ".join(text.split()) + ("\n" if text.endswith("\n") else "")



def run(checker, fn, capsys, **kw):
    """Run a checker (``kw`` passed on); it must not raise or warn. Returns
    (result, printed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = checker(fn, **kw)
    out = capsys.readouterr()
    assert out.err == ""
    return result, said(out.out)


def verdict(checker, fn, capsys, **kw):
    """:func:`run`, and the checker printed exactly one message. Returns
    (result, that message)."""
    result, printed = run(checker, fn, capsys, **kw)
    assert printed.count("\n") == 1, printed
    return result, printed


def assert_success(checker, fn, capsys):
    result, printed = run(checker, fn, capsys)
    assert result is True, printed
    assert printed.startswith("Correct:"), printed
    assert printed.count("\n") == 1, printed  # exactly one line


def assert_diagnosis(checker, fn, capsys, *needles):
    result, printed = run(checker, fn, capsys)
    assert result is False, printed
    assert printed.startswith("Not quite:"), printed
    for needle in needles:
        assert needle.lower() in printed.lower(), (needle, printed)
    return printed


# --- learner functions several lessons' tests use ------------------------------


def naive_softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def my_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return A @ V, A


def softmax_no_max(x):
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)


def attention_no_scale(Q, K, V, mask=None):
    S = Q @ K.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return A @ V, A


def attention_kq(Q, K, V, mask=None):
    S = K @ Q.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return A @ V, A


def attention_axis0(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    A = softmax(S, axis=0)
    return A @ V, A
