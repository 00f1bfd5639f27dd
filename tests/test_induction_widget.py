"""Lesson 13's explorer: it opens with no arguments, shows the chosen head on
the words typed, marks where an induction head would look, compares the loss
with that head ablated, and survives any input with a short message."""

from __future__ import annotations

import time

import numpy as np
import pytest

from helpers.analysis import induction
from helpers.widgets import induction_explorer
from helpers.analysis.induction import stripe_keys
from helpers.widgets.lesson13 import MAX_SHOWN


@pytest.fixture(scope="module")
def ex():
    return induction_explorer()


def test_opens_with_a_random_repeat(ex):
    assert ex.last_error is None and ex.draw_count >= 1
    assert "unknown" not in ex.message and "past where" not in ex.message
    n = len(ex.tokens)
    full = ex.run.attention[ex.head.value]  # the whole text; the picture: its end
    assert ex.weights.shape == (n, n) and np.allclose(full.sum(axis=1), 1.0)
    assert np.array_equal(ex.weights, full[-n:, -n:])
    assert np.all(ex.weights[np.triu_indices(n, 1)] == 0)
    assert ex.head.value[0] == 1  # a layer-1 head by default
    # 20 random words, then 10 written twice: the second copy is framed, and
    # it starts after position 20, where the trained head is a textbook one
    assert (ex.stripe >= 0).sum() >= 10
    assert len(ex.run.ids) == 41 and len(ex.tokens) == MAX_SHOWN
    assert "find their word earlier" in ex.alt and "past the trained" not in ex.alt
    assert ex.picture.value[:4] == b"\x89PNG"


def test_stripe_keys_by_hand():
    # BOS a b c a b : the second a (4) -> b (2), the second b (5) -> c (3)
    assert stripe_keys([0, 1, 2, 3, 1, 2]).tolist() == [-1, -1, -1, -1, 2, 3]
    assert stripe_keys([0, 5, 5, 5]).tolist() == [-1, -1, 2, 3]


def test_ablating_the_shown_head_changes_the_loss(ex):
    ex.text.value = ex.text.value  # the default text
    loss, cut = np.asarray(ex.loss), np.asarray(ex.loss_ablated)
    assert loss.shape == cut.shape == (len(ex.run.ids) - 1,)
    second = stripe_keys(ex.run.ids) >= 0  # every query, not just those drawn
    assert cut[second[1:]].mean() > loss[second[1:]].mean()
    ps = [p for _, p, _ in ex.top]
    assert ps == sorted(ps, reverse=True)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "Type some words"),
        ("   \n\t ", "Type some words"),
        ("zzz <b>bold</b> 😀", "unknown word"),
        ("<|endoftext|> <|endoftext|>", "unknown word"),
        ("\x00 nul", "unknown word"),
    ],
)
def test_bad_input_gives_a_message(ex, text, words):
    ex.text.value = text
    assert ex.last_error is None and words in ex.message


def test_long_text_is_cut_and_shown_in_part(ex):
    model = induction.load()
    word = model.piece(5)
    ex.text.value = " ".join([word] * 400)
    assert ex.last_error is None
    assert "reads at most" in ex.message and len(ex.tokens) == MAX_SHOWN


def test_every_head_and_the_button(ex):
    for value in [v for _, v in ex.head.options]:
        ex.head.value = value
        assert ex.last_error is None and ex.weights.shape[0] == len(ex.tokens)
    before = ex.text.value
    ex.new.click()
    assert ex.text.value != before and ex.last_error is None


def test_median_update_is_quick(ex):
    ex.text.value = induction_explorer().text.value
    times = []
    for k in range(15):
        ex.head.value = ex.head.options[k % len(ex.head.options)][1]
        t0 = time.perf_counter()
        ex.refresh()
        ex.flush()
        times.append(time.perf_counter() - t0)
    print(f"median update {1000 * np.median(times):.1f} ms")
    # the 40 ms goal is the benchmark's (it prints); here only a hang fails
    assert np.median(times) < 60


def test_the_models_words_are_listed_and_unknown_ones_named(ex):
    words = ex.vocabulary
    assert len(words) == 127 and words == sorted(words) and "<|endoftext|>" not in words
    assert all(w in ex.words.value for w in words[:5]) and "127 words" in ex.words.value
    ex.text.value = "the cat sat on the mat with a dog and a very quiet owl today"
    assert ex.last_error is None
    for w in ("'the'", "'sat'", "'mat'", "'quiet'", "'today'"):
        assert w in ex.message, ex.message
    assert "Left out 10 different unknown words (15 words typed in all" in ex.message
    assert [ex.model.piece(i) for i in ex.run.ids[1:]] == ["cat", "dog", "owl"]


def test_the_hand_built_circuits_words_are_the_models():
    from helpers.analysis import circuits

    assert set(circuits.HAND_VOCAB[1:]) <= set(induction_explorer().vocabulary)


def test_the_note_follows_earlier_occurrences_past_55_not_the_length(ex):
    model = induction.load()
    # a 12-word repeat at 41-52 and 53-64 copies fine: no note, no shading
    ids, _ = induction.repeated_ids(model.vocab_size, 12, 40, 5, distinct=True)
    ex.text.value = " ".join(model.piece(i) for i in ids[1:])
    assert ex.last_error is None and "stops looking one back" not in ex.message
    assert len(ex.late) == 0 and "Shaded" not in ex.alt
    # first copy at 49-60: its words at 55-60 are not copied (queries 67-72)
    ids, _ = induction.repeated_ids(model.vocab_size, 12, 48, 5, distinct=True)
    ex.text.value = " ".join(model.piece(i) for i in ids[1:])
    assert "queries at positions 67-72" in ex.message and "not untrained" in ex.message
    assert ex.late.tolist() == list(range(67, 73))
    assert "predicted at positions 68-72" in ex.alt
    ex.text.value = "cat dog owl cat dog owl"
    assert "stops looking" not in ex.message and "Shaded" not in ex.alt


def test_the_default_repeat_is_the_clean_stripe(ex):
    ex.text.value = induction_explorer().text.value
    words = ex.text.value.split()
    assert len(words) == 40 and len(set(words)) == 30  # 20 + 10, all different
    assert (ex.stripe >= 0).sum() == 10 and ex.message.count("Left out") == 0
    assert max(ex.loss[31:]) < 1.0  # predicting the second copy: no spike


def test_words_are_looked_up_lowercased_without_punctuation(ex):
    ex.text.value = "Cat, DOG! owl. cat dog owl"
    assert ex.last_error is None and "Left out" not in ex.message
    assert [ex.model.piece(i) for i in ex.run.ids[1:]] == ["cat", "dog", "owl"] * 2


def test_an_emoji_is_named_not_shown_as_a_bare_question_mark(ex):
    ex.text.value = "cat \U0001f436 dog"
    assert "DOG FACE" in ex.message and "2 different" not in ex.message
