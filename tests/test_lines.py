"""The head view of lines (issue 51, helpers/widgets/lines.py): a toggle in
lessons 04 and 11 only, its alt text, and that the lines draw from the same
map of numbers as the grid (the front end reads ``pointer.panels``)."""

import numpy as np

from helpers import widgets as W
from helpers.widgets import lines

SENTENCE = "the animal did not cross the street because it was tired"


def test_the_lines_toggle_tells_the_front_end_and_the_alt_text():
    ex = W.pattern_explorer(SENTENCE)
    grid_alt = ex.alt
    assert not ex.lines and ex.lines_toggle.description == "Lines"
    ex.lines_toggle.value = True
    assert ex.lines and ex.alt == lines.PREFIX + grid_alt
    if ex.pointer is not None:
        assert ex.pointer.lines is True
    # the picture follows an input: the words still say "lines", once
    ex.temperature.value = 0.5
    assert ex.alt.startswith(lines.PREFIX) and ex.alt.count("head view") == 1
    # the lines are the grid's numbers: one per (query, key) weight
    panel = ex.panels["panels"][0]
    shown = np.array([[float(v) for v in row] for row in panel["values"]])
    np.testing.assert_allclose(shown, ex.weights, rtol=5e-3)
    ex.lines_toggle.value = False
    assert not ex.alt.startswith(lines.PREFIX) and "head view" not in ex.alt
    ex.close()


def test_a_picked_token_and_a_guess_keep_the_lines_words():
    ex = W.gpt_explorer()
    assert ex.lines_toggle is not None
    ex.lines_toggle.value = True
    from helpers.widgets import pointer

    pointer.pick(ex, 0, 3)
    assert ex.alt.startswith(lines.PREFIX) and "Picked" in ex.alt
    ex.guess_toggle.value = True
    assert ex.alt.startswith(lines.PREFIX) and "hidden until you press Reveal" in ex.alt
    assert ex.last_error is None
    ex.close()


def test_only_lessons_04_and_11_have_lines():
    with_lines = []
    for row in W.EXPLORERS:
        if row.lesson == 10:
            continue
        ex = row.factory()
        if ex.lines_toggle is not None:
            with_lines.append(row.lesson)
        ex.close()
    assert with_lines == [4, 11]
