"""Every exercise: its reference solution (tools/solutions/lessonNN.py)
passes its checker, its stub in the notebook gets "not done yet", and the
notebook's collapsed solution shows the same source."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import attention
from tools import common, solve

EXERCISES = solve.exercises()


def said(text: str) -> str:
    """A checker's printed message as one line per message (the checkers
    break their lines between words, ``helpers.checks._core.LINE_CHARS``)."""
    return " ".join(text.split()) + ("\n" if text.endswith("\n") else "")



def _needs_model(path):
    """Lesson 10's checkers run the real model: skip without its offline copy."""
    from conftest import model_available

    if path.name.startswith("10") and not model_available():
        pytest.skip("no offline copy of all-MiniLM-L6-v2 (make test makes it)")
IDS = [f"{path.name[:2]}:{name}" for path, name, *_ in EXERCISES]


def test_every_lesson_with_an_exercise_has_its_solutions():
    lessons = {path.name[:2] for path, *_ in EXERCISES}
    assert lessons == {stem[:2] for stem in common.lessons()}  # every lesson notebook


@pytest.mark.parametrize("path,name,solution,checker,stub", EXERCISES, ids=IDS)
def test_solution_passes_its_checker(path, name, solution, checker, stub, capsys):
    _needs_model(path)
    assert checker(solution) is True
    assert said(capsys.readouterr().out).startswith("Correct:")


@pytest.mark.parametrize("path,name,solution,checker,stub", EXERCISES, ids=IDS)
def test_stub_is_not_done_yet(path, name, solution, checker, stub, capsys):
    _needs_model(path)
    assert stub is not None, f"{path.name}: no stub cell defines {name}"
    scope = {"np": np, "softmax": attention.softmax}
    exec(stub, scope)
    assert checker(scope[name]) is False
    assert said(capsys.readouterr().out).startswith("Not done yet:")


@pytest.mark.parametrize("path", sorted({p for p, *_ in EXERCISES}),
                         ids=lambda p: p.name)
def test_notebook_shows_the_solution_source(path):
    assert solve.stale(common.read(path), path) == []


def test_a_wrong_solution_in_a_notebook_is_reported():
    path = EXERCISES[0][0]
    nb = common.read(path)
    for cell in nb.cells:
        if "<summary>Solution</summary>" in common.source_of(cell):
            cell.source = cell.source.replace("return", "return 1 +", 1)
    assert solve.stale(nb, path)
