"""The checkers as graded tests: what the graded release's tests call
(``python -m tools assign``, see tools/assign.py and the instructor guide).

A public test runs the lesson's own check cell, e.g.
``check_attention(attention)``, in the graded notebook's variables: the
learner sees the same checker, on the same inputs, in the lesson. A hidden
test runs the same call on other inputs: every checker that draws its cases
from a seeded generator (``helpers.checks._core._SEED``) draws other ones
(:func:`other_inputs`), and one that reads a sentence (a ``text`` argument,
lesson 10's real heads) reads :data:`HIDDEN_TEXT`. A function that only fits
the lesson's cases (numbers typed in, a shape guessed) passes the public
test and fails the hidden one; a right function passes both. Checkers whose
cases are fixed worked examples (a byte count, a mask of given size) check
the same cases in both.

:func:`verdict` turns the checker's printed message into the test's
failure: the learner's feedback is the line that names the mistake.
Nothing here changes what a learner sees in a lesson.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import sys

#: The sentence the hidden tests give a checker that reads one (lesson 10's
#: real heads: ``check_real_head(fn, model, text=...)``) instead of its own.
HIDDEN_TEXT = "After the storm the children walked along the muddy bank of the river."

#: The seed the hidden tests draw their cases from (any seed other than
#: ``_core._SEED`` gives other cases; ``tests/test_grading.py`` runs every
#: reference solution and a wrong answer per lesson with it).
HIDDEN_SEED = 9_871


@contextlib.contextmanager
def other_inputs(seed: int = HIDDEN_SEED):
    """Within the ``with`` block, every checker draws its random cases from
    ``seed`` instead of ``_core._SEED``: each module of ``helpers.checks``
    reads its ``_SEED`` when a check runs, so rebinding it there is enough.
    Restored on leaving, also after an error."""
    modules = [module for name, module in list(sys.modules.items())
               if name.startswith("helpers.checks") and hasattr(module, "_SEED")]
    saved = [(module, module._SEED) for module in modules]
    try:
        for module in modules:
            module._SEED = seed
        yield
    finally:
        for module, value in saved:
            module._SEED = value


def _not_defined(name: str) -> str:
    return (f"Not done: {name} is not defined after your notebook ran. Run it "
            f"from the top (Kernel > Restart Kernel and Run All Cells): a cell "
            f"above may have stopped with an error, or the exercise cell that "
            f"defines {name} was deleted or renamed.")


def _hidden(checker):
    """The checker, reading :data:`HIDDEN_TEXT` if it reads a sentence."""
    if "text" not in inspect.signature(checker).parameters:
        return checker
    return functools.wraps(checker)(functools.partial(checker, text=HIDDEN_TEXT))


def verdict(env: dict, call: str, hidden: bool = False) -> None:
    """Run a check call such as ``"check_attention(attention)"`` in the
    notebook's variables ``env`` (a checker's name means the checker of
    ``helpers.checks``, whatever the notebook did with that name); with
    ``hidden``, on :func:`other_inputs` and :data:`HIDDEN_TEXT`. Returns
    when the checker says "Correct"; otherwise raises ``AssertionError``
    whose message is the checker's own (one line), or says which name the
    notebook lacks."""
    from helpers import checks

    scope = dict(env or {})
    scope.update({name: _hidden(getattr(checks, name)) if hidden
                  else getattr(checks, name) for name in checks.__all__})
    printed = io.StringIO()
    inputs = other_inputs() if hidden else contextlib.nullcontext()
    try:
        with contextlib.redirect_stdout(printed), inputs:
            passed = eval(call, scope)  # noqa: S307 - a call written by tools/assign.py
    except NameError as exc:
        raise AssertionError(_not_defined(getattr(exc, "name", None) or str(exc))) \
            from None
    message = " ".join(printed.getvalue().split())
    if passed is not True:
        raise AssertionError(message or f"{call} did not pass.")


def score(env: dict, call: str, points: float, hidden: bool = False) -> float:
    """For nbgrader's grade cells: ``points`` when :func:`verdict` passes,
    else 0, returned as the cell's value (nbgrader reads it as the cell's
    score), with the verdict printed: the checker's message, which names
    the mistake. Never raises, so a learner's Run All carries on."""
    try:
        verdict(env, call, hidden)
    except AssertionError as failed:
        print(failed)
        return 0
    print(f"Correct: {call} passed.")
    return points
