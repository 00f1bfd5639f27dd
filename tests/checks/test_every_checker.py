"""What every checker of lessons 01-09 does: a stub gets "not done yet",
an exception, a garbage return or a result instead of a function gets a
diagnosis, never a traceback (lessons 10-12 test theirs in their own files)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checks._core import LINE_CHARS

from helpers import checks

from .conftest import assert_diagnosis, run


# --- the core exercises (ALL_CHECKERS) -----------------------------------------


def stub_raise(*args, **kwargs):
    raise NotImplementedError("Your turn")


def stub_none(*args, **kwargs):
    return None


def stub_ellipsis(*args, **kwargs):
    ...
    return ...


ALL_CHECKERS = [
    checks.check_cosine,
    checks.check_softmax,
    checks.check_scores,
    checks.check_attention,
    checks.check_update,
    checks.check_causal_mask,
    checks.check_multi_head,
    checks.check_cross_attention,
    checks.check_softmax_backward,
]


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("stub", [stub_raise, stub_none, stub_ellipsis])
def test_stub_is_not_done_yet(checker, stub, capsys):
    result = checker(stub)
    printed = capsys.readouterr().out
    assert result is False
    assert printed.startswith("Not done yet"), printed
    # one paragraph, in lines broken between words (JupyterLab breaks a long
    # output line anywhere: "Write t / he")
    lines = printed.rstrip("\n").split("\n")
    assert all(0 < len(line) <= LINE_CHARS for line in lines), lines
    assert " ".join(lines) == " ".join(printed.split()), printed


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
def test_exceptions_are_reported_not_raised(checker, capsys):
    def broken(*args, **kwargs):
        raise KeyError("oops, a typo")

    printed = assert_diagnosis(checker, broken, capsys, "KeyError", "oops, a typo")
    assert "Traceback" not in printed


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
def test_garbage_return_is_reported(checker, capsys):
    assert_diagnosis(checker, lambda *a, **k: "hello", capsys)


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
def test_passing_a_result_instead_of_a_function(checker, capsys):
    assert_diagnosis(checker, np.zeros(3), capsys, "pass your function itself")


# --- the warm-ups and stretches of lessons 01-04 -------------------------------


NEW_CHECKERS = [
    checks.check_length,
    checks.check_nearest,
    checks.check_mix,
    checks.check_context_vectors,
    checks.check_one_score,
    checks.check_chemistry_head,
    checks.check_softmax_temperature,
    checks.check_attention_dropout,
]


@pytest.mark.parametrize("checker", NEW_CHECKERS, ids=lambda c: c.__name__)
def test_stub_and_garbage(checker, capsys):
    def stub(*args, **kwargs):
        raise NotImplementedError

    result, printed = run(checker, stub, capsys)
    assert result is False and printed.startswith("Not done yet")
    assert_diagnosis(checker, lambda *a, **k: "hello", capsys)

    def broken(*args, **kwargs):
        raise KeyError("oops")

    assert_diagnosis(checker, broken, capsys, "KeyError", "oops")
