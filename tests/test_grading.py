"""The graded release's pieces that need no Otter (tools/assign.py,
helpers/checks/grading.py, tools/points.toml): the tests' verdicts, the
hidden tests' other inputs, the points, the master notebook. The release
graded end to end is tests/test_assignments.py."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.checks import _core, grading, lesson04
from tools import assign, solve
from tools.common import read, source_of
from tools.solutions import lesson04 as solutions04
from tools.solutions import lesson10 as solutions10
from tools.solutions import lesson13 as solutions13

from conftest import model_available

EXERCISES = solve.exercises()


def test_every_exercise_has_points_and_no_other():
    table = assign._toml(assign.POINTS)
    by_lesson = {}
    for path, name, *_ in EXERCISES:
        by_lesson.setdefault(f"lesson{solve.lesson_of(path)}", set()).add(name)
    assert {k: set(v) for k, v in table.items()} == by_lesson
    for lesson, names in by_lesson.items():
        marks = assign.points(lesson[-2:], names)
        assert all(public >= 0 and hidden >= 0 and public + hidden > 0
                   for public, hidden in marks.values())


def test_a_missing_exercise_is_named(tmp_path):
    points = tmp_path / "points.toml"
    points.write_text("[lesson04]\nattention = {public = 2, hidden = 1}\n")
    assert assign.points("04", ["attention"], points) == {"attention": (2, 1)}
    with pytest.raises(ValueError, match="lesson 04's exercise attention_dropout"):
        assign.points("04", ["attention", "attention_dropout"], points)


@pytest.mark.parametrize("source, call", [
    ("from helpers import checks\npassed = checks.check_mix(mix)", "check_mix(mix)"),
    ("ok = check_update(my_update)     # prints a one-line verdict",
     "check_update(my_update)"),
    ("passed = checks.check_real_head(real_head_pattern, model)",
     "check_real_head(real_head_pattern, model)"),
])
def test_the_check_call_is_the_lesson_check_cells(source, call):
    assert assign.check_call(source, call.split("(")[0]) == call


def test_verdict_passes_a_right_answer_silently(capsys):
    grading.verdict({"attention": solutions04.attention}, "check_attention(attention)")
    grading.verdict({"attention": solutions04.attention}, "check_attention(attention)",
                    hidden=True)
    assert capsys.readouterr().out == ""  # the checker's words went to the verdict


def test_verdict_fails_with_the_checkers_message_on_one_line():
    def attention(Q, K, V, mask=None):  # tests/checks: attention_no_scale
        A = np.exp(Q @ K.T)
        A = A / A.sum(axis=-1, keepdims=True)
        return A @ V, A

    with pytest.raises(AssertionError) as caught:
        grading.verdict({"attention": attention}, "check_attention(attention)")
    message = str(caught.value)
    assert message.startswith("Not quite:") and "sqrt(d_k)" in message
    assert "\n" not in message


def test_verdict_names_what_the_notebook_lacks():
    with pytest.raises(AssertionError, match="attention is not defined after your "
                       "notebook ran"):
        grading.verdict({}, "check_attention(attention)")


def test_a_notebook_cannot_replace_the_checker():
    with pytest.raises(AssertionError, match="Not done yet"):
        grading.verdict({"check_attention": lambda fn: True,
                         "attention": lambda Q, K, V, mask=None: None},
                        "check_attention(attention)")


def test_other_inputs_change_the_seed_and_restore_it():
    assert lesson04._SEED == _core._SEED == 1234
    with pytest.raises(RuntimeError):
        with grading.other_inputs(5):
            assert lesson04._SEED == _core._SEED == 5
            raise RuntimeError
    assert lesson04._SEED == _core._SEED == 1234


def _key(args, kwargs):
    return tuple((a.shape, a.tobytes()) if isinstance(a, np.ndarray) else repr(a)
                 for a in (*args, *sorted(kwargs.items())))


def memorizer(checker, reference):
    """A function that only replays the answers to the public test's cases
    (typed in from the check's output, say): right there, wrong elsewhere."""
    seen = {}

    def record(*args, **kwargs):
        seen[_key(args, kwargs)] = result = reference(*args, **kwargs)
        return result

    assert checker(record) is True

    def replay(*args, **kwargs):
        return seen.get(_key(args, kwargs), next(iter(seen.values())))

    return replay


@pytest.mark.parametrize("name, module", [
    ("softmax_temperature", solutions04), ("attention", solutions04),
    ("attention_dropout", solutions04), ("prefix_matching_score", solutions13),
    ("real_head_pattern", solutions10),  # another sentence, not another seed
])
def test_a_hidden_test_fails_what_only_fits_the_public_cases(name, module, capsys):
    if module is solutions10 and not model_available():
        pytest.skip("no offline copy of all-MiniLM-L6-v2 (make test makes it)")
    checker = getattr(checks, module.CHECKERS[name])
    replay = memorizer(checker, getattr(module, name))
    call = f"{checker.__name__}({name})"
    grading.verdict({name: replay}, call)  # the public test passes
    with pytest.raises(AssertionError, match="Not quite"):
        grading.verdict({name: replay}, call, hidden=True)


def test_the_master_notebook_of_lesson_04():
    path = next(p for p, *_ in EXERCISES if p.name.startswith("04"))
    nb = assign.master(path)
    texts = [source_of(c) for c in nb.cells]
    assert nb.cells[0].cell_type == "raw" and texts[0].startswith("# ASSIGNMENT CONFIG")
    assert not any("<summary>Solution</summary>" in t for t in texts)
    lesson = read(path)
    kept = [c for c in lesson.cells
            if "<summary>Solution</summary>" not in source_of(c)]
    assert len(nb.cells) == 1 + len(kept) + 3 * 8  # a question: 8 cells around its stub
    for name, (function, checker) in solve.solutions("04").items():
        begin = texts.index(f"# BEGIN QUESTION\nname: lesson04_{name}\npoints: [1, 1]"
                            "\ncheck_cell: false")
        stub, solution = texts[begin + 2].split("\n# BEGIN SOLUTION NO PROMPT\n")
        assert stub == source_of(lesson.cells[solve._stub_index(lesson, name)])
        assert solution == solve.source(function).rstrip("\n") + "\n# END SOLUTION"
        call = f"verdict(env, '{checker.__name__}({name})'"
        assert call + ")" in texts[begin + 5] and "hidden: false" in texts[begin + 5]
        assert call + ", hidden=True)" in texts[begin + 6]
        assert "hidden: true" in texts[begin + 6]
        # the lesson's own check cell follows the question
        assert texts[begin + 9].endswith(f"{checker.__name__}({name})")
