"""Guess first, then reveal (issue 51, helpers/widgets/guess.py): the score
on hand-made grids, and the mode in an explorer without a browser."""

import csv

import numpy as np
import pytest

from helpers import widgets as W
from helpers.widgets import guess

#: 'it' looks most at 'animal' (0.61); 'street' most at itself (0.5);
#: 'the' is a tie between 'the' and 'animal' (0.4 each).
WORDS = ["the", "animal", "street", "it"]
A = np.array([[0.40, 0.40, 0.10, 0.10],
              [0.20, 0.50, 0.20, 0.10],
              [0.10, 0.20, 0.50, 0.20],
              [0.09, 0.61, 0.25, 0.05]])
GRID = [{"values": A, "rows": WORDS, "cols": WORDS, "name": "head 0"}]


def test_one_wrong_row_names_where_it_looked_and_what_was_chosen():
    sc = guess.score(GRID, [(0, 3, 2), (0, 1, 1), (0, 2, 2)])
    assert (sc.right, sc.total) == (2, 3)
    assert sc.text == ("2 of 3 rows right; 'it' looked at 'animal' (0.61), you "
                       "chose 'street' (0.25).")
    (wrong,) = [m for m in sc.marks if not m.right]
    assert (wrong.row, wrong.col, wrong.best) == (3, 2, 1)


def test_all_right_and_a_tie_counts_either_key():
    sc = guess.score(GRID, [(0, 0, 1), (0, 3, 1)])
    assert (sc.right, sc.total) == (2, 2)
    assert sc.text.startswith("2 of 2 rows right: each one")
    assert guess.score(GRID, [(0, 0, 0)]).right == 1  # the other key of the tie


def test_the_last_mark_of_a_row_counts_and_bad_marks_are_left_out():
    sc = guess.score(GRID, [(0, 3, 2), (0, 3, 1), (5, 0, 0), (0, 9, 0),
                            ("x", 1, 1), None, (0, 0, -1)])
    assert (sc.right, sc.total) == (1, 1)
    assert sc.text == "1 of 1 row right: each one is the key its query looks at most."


def test_an_empty_guess_says_so():
    sc = guess.score(GRID, [])
    assert (sc.right, sc.total, sc.marks) == (0, 0, [])
    assert sc.text.startswith("No guess was made")


def test_several_heads_name_the_head_of_a_miss_and_count_the_rest():
    grids = GRID + [{"values": A.T, "rows": WORDS, "cols": WORDS, "name": "head 1"}]
    sc = guess.score(grids, [(1, 0, 3), (1, 1, 2), (0, 3, 1)])
    assert (sc.right, sc.total) == (1, 3)
    assert sc.text == ("1 of 3 rows right; 'the' in head 1 looked at 'the' (0.4), "
                       "you chose 'it' (0.09); 1 more missed.")


def test_masked_keys_are_never_strongest():
    causal = np.where(np.tril(np.ones((3, 3))) > 0, A[:3, :3], np.nan)
    sc = guess.score([{"values": causal, "rows": WORDS[:3], "cols": WORDS[:3],
                       "name": ""}], [(0, 2, 2), (0, 1, 1), (0, 0, 2)])
    assert [m.right for m in sc.marks] == [False, True, True]
    first = sc.marks[0]
    assert (first.row, first.best) == (0, 0)  # row 0 sees only itself
    assert first.right is False  # key 2 is masked for query 0


SENTENCE = "the animal did not cross the street because it was tired"


@pytest.fixture
def ex():
    e = W.pattern_explorer(SENTENCE)
    yield e
    e.close()


def test_the_mode_hides_marks_reveals_and_scores(ex, tmp_path):
    ex.guess_toggle.value = True
    assert ex.guessing and ex.message.startswith("Guess first")
    assert "hidden until you press Reveal" in ex.alt
    assert "→" not in ex.alt  # no strongest key is given away
    it = ex.tokens.index("it")
    best = int(np.argmax(ex.weights[it]))
    wrong = (best + 1) % len(ex.tokens)
    guess.guess(ex, 0, it, wrong)
    guess.guess(ex, 0, 0, int(np.argmax(ex.weights[0])))
    assert ex.message.startswith("Your guess:")
    # marked twice: the mark goes away; marked again: back
    guess.guess(ex, 0, 0, int(np.argmax(ex.weights[0])))
    assert len(ex.guesses) == 1
    guess.guess(ex, 0, 0, int(np.argmax(ex.weights[0])))
    text = guess.reveal(ex)
    assert text.startswith("1 of 2 rows right; 'it' looked at "
                           f"'{ex.tokens[best]}'")
    assert f"you chose '{ex.tokens[wrong]}'" in text
    assert text in ex.alt and "→" in ex.alt  # the pattern is described again
    if ex.pointer is not None:
        assert sorted(ex.pointer.guesses) == sorted(
            [[0, it, wrong, "wrong"], [0, 0, int(np.argmax(ex.weights[0])), "right"]])
    _, path = ex.save(tmp_path / "guess")
    rows = list(csv.reader(open(path, encoding="utf-8")))
    head = rows[0]
    assert "guess: score" in head and "guess: right" in head
    scored = [r for r in rows if text in r]
    assert len(scored) == 1


def test_changing_the_input_clears_the_guess_and_empty_reveals(ex):
    ex.guess_toggle.value = True
    guess.guess(ex, 0, 1, 1)
    ex.sentence.value = "a cat sat on the mat"
    assert ex.guesses == [] and ex.guessing and ex.message.startswith("Guess first")
    assert guess.reveal(ex).startswith("No guess was made")
    ex.guess_toggle.value = False
    assert not ex.guessing and "Guess" not in ex.message and "→" in ex.alt


def test_a_click_from_the_front_end_marks_a_guess(ex):
    if ex.pointer is None:
        pytest.skip("anywidget is not installed")
    ex.pointer.mark = [0, 2, 3, 1]  # what pointer.js sends
    assert ex.guessing and ex.guesses == [(0, 2, 3)]
    ex.pointer.mark = [0, 99, 3, 2]  # outside the grid: nothing, no error
    assert ex.guesses == [(0, 2, 3)] and ex.last_error is None


@pytest.mark.parametrize("make", [W.multi_head_explorer, W.induction_explorer])
def test_guess_first_in_the_other_lessons(make):
    e = make()
    assert e.guess_toggle is not None
    e.guess_toggle.value = True
    grids = [k for k, p in enumerate(e.panels["panels"]) if p["kind"] == "grid"]
    p = grids[-1]
    values = guess._grids(e)[p]["values"]
    r = values.shape[0] - 1
    right = int(np.nanargmax(values[r]))
    guess.guess(e, p, r, right)
    assert guess.reveal(e).startswith("1 of 1 row right")
    e.close()


def test_other_explorers_have_no_guess_mode():
    e = W.mask_explorer()
    assert e.guess_toggle is None and guess.side_table(e) is None
    e.close()
