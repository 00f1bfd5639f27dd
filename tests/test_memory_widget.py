"""Lesson 14's explorer (helpers/widgets/lesson14.py): opens with no
arguments, reads typed facts, survives bad input, describes its picture."""

import time

import numpy as np
import pytest

from helpers import widgets as W
from helpers.widgets.lesson14 import FAIL, OK, read_facts

PNG = b"\x89PNG"


@pytest.fixture(scope="module")
def ex():
    e = W.memory_explorer()
    yield e
    e.close()


def test_in_the_table():
    assert any(row.name == "memory_explorer" and row.lesson == 14
               for row in W.EXPLORERS)


def test_opens_and_tells_the_overwrite(ex):
    assert ex.last_error is None and bytes(ex.picture.value).startswith(PNG)
    assert ex.asked == 11 and ex.answers["Ada"][1] == "9"   # the later room
    assert "1 fact repeats a name" in ex.message
    assert ex.state.shape == (16, 16)


def test_read_facts_by_hand():
    facts, notes = read_facts("Ada=3; Ben -> 7, Cleo: 12\nnonsense")
    assert facts == [("Ada", "3"), ("Ben", "7"), ("Cleo", "12")]
    assert "nonsense" in notes[0]


def test_softmax_recalls_what_linear_attention_adds():
    e = W.memory_explorer(facts="Ada=3, Ada=9", n=2, memory="linear")
    try:
        assert e.asked == 1
        e.memory.value = "delta"
        assert e.answers["Ada"][0] == "9"          # overwritten
        e.memory.value = "softmax"
        assert e.state.shape == (2, 32)            # the cache grows with N
        e.n.value = 40
        assert e.state.shape == (40, 32)
        # every name written once comes back; Ada's two rooms are averaged
        assert all(g == w for a, (g, w, _) in e.answers.items() if a != "Ada")
        e.memory.value = "linear"
        assert e.state.shape == (16, 16)           # the state does not
    finally:
        e.close()


@pytest.mark.parametrize("text", ["", "   ", "nonsense", "\U0001F600=\U0001F389, a",
                                  "<script>alert('x')</script>", "<img src=x>=1",
                                  "x" * 5000, "Ada=1;" * 300, "=, =, ==",
                                  "the\x00cat=\x1b[2J"])
def test_any_input(ex, text):
    ex.last_error = None
    draws = ex.draw_count
    ex.sentence.value = text
    assert ex.last_error is None, repr(ex.last_error)
    assert ex.draw_count == draws + 1 and bytes(ex.picture.value).startswith(PNG)
    assert ex.message and ex.alt
    assert np.all(np.isfinite(ex.weights))
    ex.sentence.value = "Ada=3"


def test_nonsense_sliders_and_huge_n(ex):
    for v in (10**9, -5, 64, 1):
        ex.n.value = max(ex.n.min, min(ex.n.max, v))
        assert ex.last_error is None
    ex.n.value = 12


def test_alt_follows_the_picture_and_marks_failures():
    e = W.memory_explorer(facts="", n=48, memory="linear")
    try:
        assert e.recalled < e.asked
        assert f"Recalled {e.recalled} of {e.asked}" in e.alt
        assert f"failed ({FAIL})" in e.alt
        e.memory.value = "softmax"
        assert f"Recalled {e.asked} of {e.asked}" in e.alt and "48 rows" in e.alt
        assert OK != FAIL
    finally:
        e.close()


def test_every_control_is_named():
    e = W.memory_explorer()
    try:
        for w in (e.sentence, e.memory, e.n, e.again):
            assert w.description
        seed = e.seed
        e.again.click()
        assert e.seed == seed + 1 and e.last_error is None
    finally:
        e.close()


def test_update_is_quick(ex):
    times = []
    for i in range(15):
        t0 = time.perf_counter()
        ex.n.value = 1 + (i * 13) % 64
        times.append(time.perf_counter() - t0)
    print(f"median update {1000 * np.median(times):.1f} ms")
    # the 40 ms goal is the benchmark's (it prints); here only a hang fails
    assert np.median(times) < 60


@pytest.mark.parametrize("memory, n", [("softmax", 2), ("linear", 2), ("softmax", 12),
                                       ("softmax", 64)])
def test_a_name_written_twice_is_a_tie_not_a_recall(memory, n):
    # averaged (softmax) or added (linear), Ada's read-back is as near to room
    # 3 as to room 9 whatever the order of the facts: a tie, never "9"
    e = W.memory_explorer(facts="Ada=3, Ada=9", memory=memory, n=n)
    try:
        assert e.answers["Ada"][0] == "3 = 9" and e.answers["Ada"][1] == "9"
        assert e.recalled == e.asked - 1
        assert "A tie is no recall" in e.message and "tie" in e.alt
        label = e._bar_label(e._state, "Ada", *e.answers["Ada"][:2])
        assert label == f"{FAIL} Ada \u2192 3 = 9 (tie)"
        e.sentence.value = "Ada=9, Ada=3"           # the other order: a tie again
        assert e.answers["Ada"][0] == "9 = 3"
    finally:
        e.close()


@pytest.mark.parametrize("memory", ["delta", "gated"])
def test_the_delta_rules_answer_the_new_room(memory):
    e = W.memory_explorer(facts="Ada=3, Ada=9", memory=memory, n=2)
    try:
        assert e.answers["Ada"][0] == "9" and e.recalled == 1
        assert "tie" not in e.message
    finally:
        e.close()


def test_undrawable_names_stay_distinct():
    e = W.memory_explorer(facts="\u540d\u524d=3, \u65e5\u672c=5", memory="softmax", n=2)
    try:
        assert set(e.answers) == {"\u540d\u524d", "\u65e5\u672c"} and e.asked == 2
        assert e.recalled == 2 and "repeat" not in e.message
        labels = list(e._state._lab.values())
        assert len(set(labels)) == len(labels)    # drawn labels differ too
    finally:
        e.close()


def test_fallbacks_are_said():
    e = W.memory_explorer(memory="bogus", n=500)
    try:
        assert e.memory.value == "delta" and e.n.value == 64
        assert "Unknown memory 'bogus'" in e.message and "N = 500" in e.message
        e.n.value = 5                                # the learner moved on
        assert "N = 500" not in e.message and "Unknown memory" in e.message
    finally:
        e.close()
    e = W.memory_explorer(memory="softmax", n=12)
    try:
        assert "12 rows x 32 numbers" in e.message and "Unknown" not in e.message
    finally:
        e.close()


# --- issue 54: beta as a knob, and input the explorer cannot read -------------


def test_a_missing_comma_is_named_not_read_as_a_room():
    facts, notes = read_facts("Ann=4 Bob=5")
    assert facts == [] and "a comma missing" in notes[0] and "Ann=4 Bob=5" in notes[0]
    facts, notes = read_facts("Ada=3, Ann=4 Bob=5, Cleo -> 2 -> 7")
    assert facts == [("Ada", "3")]
    assert "'Ann=4 Bob=5', 'Cleo -> 2 -> 7' each look like two facts" in notes[0]
    assert read_facts("Ada=room 3") == ([("Ada", "room 3")], [])  # spaces are fine
    e = W.memory_explorer(facts="Ann=4 Bob=5", n=4)
    try:
        assert e.last_error is None and "4 Bob=5" not in e.answers.values()
        assert "Ann" not in e.answers and "a comma missing" in e.message
    finally:
        e.close()


@pytest.mark.parametrize("n", [12, 64])
def test_the_slider_and_the_message_agree_when_many_facts_are_typed(n):
    text = ", ".join(f"P{i}={i % 9 + 1}" for i in range(200))
    e = W.memory_explorer(facts=text, n=n)
    try:
        assert e.last_error is None and e.n.value == n and len(e.facts) == n
        assert [f for f, _ in e.facts] == [f"P{i}" for i in range(n)]
        assert f"200 facts typed: N = {n} uses the first {n}" in e.message
        assert "all are kept" not in e.message
        assert ("move N up to 64" in e.message) == (n < 64)
        e.n.value = 30                                   # the learner moves N
        assert len(e.facts) == 30 and "uses the first 30" in e.message
    finally:
        e.close()


def test_a_name_drawn_as_a_question_mark_says_why():
    from helpers.widgets.engine import display_label
    undrawable = [c for c in ("\U0001F389", "\U0001F600", "\u540d", "\U0001D11E")
                  if display_label(c)[1]]
    if not undrawable:  # pragma: no cover - a font with every glyph
        pytest.skip("this font draws every candidate")
    name = undrawable[0]
    e = W.memory_explorer(facts=f"{name}=3, Ada=5", n=2, memory="softmax")
    try:
        assert name in e.answers and e.recalled == 2
        assert "drawn with '?'" in e.message and "glyph" in e.message
        e.sentence.value = "Ada=3, Ben=5"
        assert "drawn with '?'" not in e.message
    finally:
        e.close()


def test_beta_is_a_knob_of_the_delta_rules_only():
    e = W.memory_explorer(facts="", n=16, memory="delta")
    try:
        assert e.beta.value == 1.0 and not e.beta.disabled
        assert e.beta_used == 1.0 and "\u03b2 = 1.0" in e.alt
        state_at_one = e.state.copy()
        e.beta.value = 0.3
        assert e.beta_used == 0.3 and "\u03b2 = 0.3" in e.alt and e.last_error is None
        # the same facts, stored with a smaller beta: the read-back is the
        # library's delta rule with that beta
        from helpers.world import recall as R
        assert len(e.facts) == 16 and not np.allclose(e.state, state_at_one)
        S_lib = R.read_back("delta", *_keys_and_values(e), np.zeros((1, 16)),
                            beta=0.3)[1]
        assert np.allclose(e.state, S_lib)
        e.memory.value = "linear"
        assert e.beta.disabled and e.beta_used is None and "\u03b2" not in e.alt
        e.memory.value = "gated"
        assert not e.beta.disabled and e.beta_used == 0.3
    finally:
        e.close()


def _keys_and_values(e):
    from helpers.widgets.memory_parts import fact_vectors as _vectors
    names, rooms = [f for f, _ in e.facts], [r for _, r in e.facts]
    return _vectors(names, 1000 + e.seed)[1], _vectors(rooms, 2000 + e.seed)[1]


@pytest.mark.parametrize("beta", ["x", None, 0, 5, float("nan"), -1])
def test_a_bad_beta_is_said_and_replaced(beta):
    e = W.memory_explorer(beta=beta)
    try:
        assert e.last_error is None and e.beta.value == 1.0
        assert "not a number from 0.1 to 1" in e.message
        e.beta.value = 0.5
        assert "not a number from 0.1 to 1" not in e.message
    finally:
        e.close()


# --- the cold reader's cases (fix14) -------------------------------------------

def test_text_that_cannot_be_read_is_not_called_no_facts_typed():
    e = W.memory_explorer(facts="hello world", n=4)
    try:
        assert "No fact could be read" in e.message
        assert "No facts typed" not in e.message
        e.sentence.value = "   "
        assert "No facts typed" in e.message
    finally:
        e.close()


def test_a_nan_beta_set_later_resets_the_slider_and_says_so():
    e = W.memory_explorer(n=8, memory="delta", beta=0.5)
    try:
        e.beta.value = float("nan")
        assert e.beta.value == 1.0 and e.beta_used == 1.0
        assert "the slider is set to" in e.message and e.last_error is None
    finally:
        e.close()


def test_counts_are_singular_for_one():
    e = W.memory_explorer(facts="Ada=3", n=1, memory="softmax")
    try:
        assert "1 of 1 name recalled from 1 fact;" in e.message, e.message
    finally:
        e.close()


def test_the_alt_text_names_an_undrawable_name_that_failed():
    from helpers.widgets.engine import display_label
    undrawable = [c for c in ("\U0001F389", "\U0001F600", "\u540d", "\U0001D11E")
                  if display_label(c)[1]]
    if not undrawable:  # pragma: no cover - a font with every glyph
        pytest.skip("this font draws every candidate")
    name = undrawable[0]
    e = W.memory_explorer(facts=f"{name}=3, {name}=9", n=2, memory="softmax")
    try:
        e.flush()
        assert f"typed {name!r}" in e.alt, e.alt
        assert "names or rooms are" in e.message or "name or room is" in e.message
    finally:
        e.close()
