"""The graded release end to end (issue 52; tools/assign.py): three lessons
(01, 04 and 13) built with ``otter assign`` into a throwaway folder, then
graded with ``otter run`` (Otter's own local grader, no Docker):

* the reference solutions get full marks;
* named wrong answers (from tests/checks/test_lessonNN.py) get partial
  marks, each with the checker's message, which names the mistake;
* an empty notebook and a crashing one get zero, with a message that says
  what is missing, and no traceback;
* the student notebooks hold no solution text and pass ``tools check``;
* nbgrader (tools/assign_nbgrader.py), lesson 04: ``nbgrader autograde``
  gives the right answers their points, a wrong one 0 with the checker's
  message, and an empty notebook 0.

Needs the ``grading`` extra (otter-grader, nbgrader): ``make test-grading`` makes
``.venv-grading`` and runs this file there; elsewhere it is skipped.
"""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip(
    "otter", reason="the grading extra is not installed (pip install -e '.[grading]'; "
    "make test-grading runs this file in .venv-grading)")

from tools import assign, form, solve  # noqa: E402
from tools.common import read, source_of, write  # noqa: E402

LESSONS = ("01", "04", "13")

#: Per lesson, wrong answers from tests/checks/test_lessonNN.py (the
#: exercise's function as a learner writes it, and words of the checker's
#: message that name the mistake); the lesson's other exercises are answered
#: right in the same notebook.
WRONG = {
    "01": {"cosine": ("def cosine(a, b):\n    return a @ b", "plain dot product")},
    "04": {
        "softmax_temperature": ("def softmax_temperature(x, T):\n"
                                "    return softmax(x * T)",
                                "you multiplied the scores by T"),
        "attention_dropout": ("""\
            def attention_dropout(Q, K, V, p, seed):
                rng = np.random.default_rng(seed)
                weights = softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
                weights = weights * (rng.random(weights.shape) >= p)
                return weights @ V, weights""", "rescale them by 1 / (1 - p)"),
    },
    "13": {
        "induction_qk": ("""\
            def induction_qk(layout, sharpness):
                W_Q = np.zeros((layout.d_model, layout.V))
                W_K = np.zeros((layout.d_model, layout.V))
                W_Q[layout.previous] = sharpness * np.eye(layout.V)
                W_K[layout.token] = np.eye(layout.V)
                return W_Q, W_K""", "swapped"),
    },
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("assignments")
    return out, assign.build(LESSONS, out=out)


def _path(built, lesson):
    return next(p for p in built[1] if p.name.startswith(lesson))


def _grade(built, lesson, nb, name):
    out, folders = built
    path = _path(built, lesson)
    folder = out / "submissions" / name
    folder.mkdir(parents=True)
    write(nb, folder / path.name)
    return assign.grade(folder / path.name, assign.autograder_zip(folders[path]),
                        folder / "results")


def _questions(results):
    return {k: v for k, v in results.items() if k != "Public Tests"}


def _exercises(lesson):
    return {f"lesson{lesson}_{name}": marks for name, marks in assign.points(
        lesson, solve.solutions(lesson)).items()}


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_reference_solutions_get_full_marks(built, lesson):
    folder = built[1][_path(built, lesson)]
    reference = read(folder / "dist" / "autograder" / _path(built, lesson).name)
    results = _questions(_grade(built, lesson, reference, f"reference{lesson}"))
    expected = {q: sum(m) for q, m in _exercises(lesson).items()}
    assert {q: (s, m) for q, (s, m, _) in results.items()} == {
        q: (p, p) for q, p in expected.items()}, results


def _answered(built, lesson, answers: dict):
    """The student notebook with each exercise's stub replaced: by the given
    source, else by the reference solution."""
    out, _ = built
    nb = read(out / "student" / "notebooks" / _path(built, lesson).name)
    for name, (function, _) in solve.solutions(lesson).items():
        i = solve._stub_index(nb, name)
        assert i is not None, name
        nb.cells[i].source = textwrap.dedent(answers.get(name, solve.source(function)))
    return nb


@pytest.mark.parametrize("lesson", LESSONS)
def test_wrong_answers_get_partial_marks_and_the_named_mistake(built, lesson):
    wrong = WRONG[lesson]
    nb = _answered(built, lesson, {name: src for name, (src, _) in wrong.items()})
    results = _questions(_grade(built, lesson, nb, f"wrong{lesson}"))
    marks = _exercises(lesson)
    total = sum(s for s, _, _ in results.values())
    assert 0 < total < sum(sum(m) for m in marks.values())
    for question, (score, most, feedback) in results.items():
        name = question.split("_", 1)[1]
        if name in wrong:
            assert score == 0, (question, feedback)
            # the public and the hidden test each show the checker's message
            assert feedback.count("AssertionError: Not quite: ") == 2, feedback
            assert wrong[name][1] in feedback, feedback
            assert "Traceback" not in feedback
        else:
            assert score == most == sum(marks[question]), (question, feedback)


def _zero_with(questions, words):
    for question, (score, _, feedback) in questions.items():
        assert score == 0, (question, feedback)
        assert words in feedback, feedback
        assert "Traceback" not in feedback, feedback


def test_an_empty_notebook_gets_zero_and_says_what_is_missing(built):
    from nbformat.v4 import new_notebook

    results = _questions(_grade(built, "04", new_notebook(), "empty"))
    assert set(results) == set(_exercises("04"))
    _zero_with(results, "is not defined after your notebook ran")


def test_a_crashing_notebook_gets_zero_and_says_what_is_missing(built):
    """A cell that raises, an exercise that does not compile, and one that
    raises when called."""
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell(source) for source in (
        "import numpy as np\nraise RuntimeError('a cell that crashes')",
        "def attention(Q, K, V, mask=None)\n    return Q",  # SyntaxError
        "def softmax_temperature(x, T):\n    return x / 0 + undefined_name",
        "def attention_dropout(Q, K, V, p, seed):\n    raise ValueError('oops')",
    )])
    results = _questions(_grade(built, "04", nb, "crash"))
    assert set(results) == set(_exercises("04"))
    _zero_with({k: v for k, v in results.items() if k.endswith("_attention")},
               "attention is not defined after your notebook ran")
    assert "raised NameError: name 'undefined_name'" in results[
        "lesson04_softmax_temperature"][2]
    assert "raised ValueError: oops" in results["lesson04_attention_dropout"][2]
    assert all(s == 0 for s, _, _ in results.values())


def _leaked(text, lesson):
    """{exercise: lines of its solution found in ``text``} (the def line
    is the stub's own; short lines such as `return out` are common)."""
    found = {}
    for name, (function, _) in solve.solutions(lesson).items():
        body = solve.source(function).splitlines()[1:]
        lines = [line for line in body if len(line.strip()) > 12
                 and line.strip() in text]
        if lines:
            found[name] = lines
    return found


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_student_notebook_has_no_solution_and_passes_the_form_checks(
        built, lesson):
    out, _ = built
    path = out / "student" / "notebooks" / _path(built, lesson).name
    text = "\n".join(source_of(c) for c in read(path).cells)
    assert _leaked(text, lesson) == {}
    assert "<summary>Solution</summary>" not in text
    assert form.check_notebook(path) == []


# --- nbgrader, from the same source ---------------------------------------------
@pytest.fixture(scope="module")
def course(tmp_path_factory):
    pytest.importorskip("nbgrader", reason="the grading extra is not installed")
    from tools import assign_nbgrader

    return assign_nbgrader.build(["04"], out=tmp_path_factory.mktemp("nbgrader"))


def test_nbgrader_gives_points_and_the_checkers_message(course):
    from tools import assign_nbgrader

    path = next(p for p in assign.lesson_paths(["04"]))
    nb = read(course / "release" / path.stem / path.name)
    for name, (function, _) in solve.solutions("04").items():
        wrong = WRONG["04"].get(name)
        nb.cells[solve._stub_index(nb, name)].source = textwrap.dedent(
            wrong[0] if wrong else solve.source(function))
    grades = assign_nbgrader.grade(course, path.stem, "wrong", nb)
    marks = assign.points("04", solve.solutions("04"))
    assert set(grades) == {f"{n}_{kind}" for n in marks
                           for kind in ("public", "hidden")}
    for grade_id, (score, most, feedback) in grades.items():
        name, kind = grade_id.rsplit("_", 1)
        assert most == marks[name][kind == "hidden"]
        if name in WRONG["04"]:
            assert score == 0 and feedback.startswith("Not quite: "), feedback
            assert WRONG["04"][name][1] in " ".join(feedback.split()), feedback
        else:
            assert score == most and feedback.startswith("Correct:"), feedback
    # the student's copy has no solution and no hidden test
    student = "\n".join(source_of(c) for c in read(
        course / "release" / path.stem / path.name).cells)
    assert "BEGIN SOLUTION" not in student and "hidden=True" not in student
    assert _leaked(student, "04") == {}


def test_nbgrader_gives_an_empty_notebook_zero(course):
    from nbformat.v4 import new_notebook

    from tools import assign_nbgrader

    grades = assign_nbgrader.grade(course, "04_attention_pattern", "empty",
                                   new_notebook())
    assert grades and all(score == 0 for score, _, _ in grades.values())
