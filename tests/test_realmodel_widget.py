"""Lesson 10's explorer (helpers/widgets/lesson10.py): what it draws is the
real model's attention, every kind of input gives a message and a picture,
and without a model it says why in one sentence."""

from __future__ import annotations

import io

import ipywidgets as widgets
import numpy as np
import pytest
from PIL import Image

from conftest import model_available
from helpers.models import pretrained
from helpers import widgets as W
from helpers.widgets import engine
from helpers.widgets import lesson10
from helpers.widgets.base import MESSAGE_STYLE

needs_model = pytest.mark.skipif(not model_available(),
                                 reason="no offline copy of all-MiniLM-L6-v2")
SENTENCE = "The fisherman pulled his boat onto the river bank."


@pytest.fixture(scope="module")
def model():
    return pretrained.load()


@pytest.fixture(scope="module")
def explorers():
    """One explorer showing one head and one showing all 12 (built once: a
    figure of 12 panels takes a while to build)."""
    return {h: W.real_attention_explorer(SENTENCE, head=h)
            for h in (3, lesson10.ALL_HEADS)}


def _walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _walk(child)


@needs_model
@pytest.mark.parametrize("layer, head", [(0, 2), (3, 7), (5, 11)])
def test_one_head_is_exactly_the_models_attention(model, layer, head):
    ex = W.real_attention_explorer(SENTENCE, layer=layer, head=head)
    run = model.run(SENTENCE)
    assert ex.tokens == run.tokens
    assert ex.tokens[0] == "[CLS]" and ex.tokens[-1] == "[SEP]"
    assert np.array_equal(ex.weights, run.attention[layer, head])
    assert np.allclose(ex.weights.sum(axis=-1), 1, atol=1e-5)
    assert ex.message == "" and ex.last_error is None and ex.picture.value


@needs_model
def test_all_heads_of_a_layer_is_the_layer(model):
    ex = W.real_attention_explorer(SENTENCE, layer=4)
    assert ex.head.value == lesson10.ALL_HEADS
    assert np.array_equal(ex.weights, model.run(SENTENCE).attention[4])
    assert ex.weights.shape == (12, len(ex.tokens), len(ex.tokens))


@needs_model
def test_layer_and_head_follow_the_dropdowns_without_rerunning(model):
    ex = W.real_attention_explorer(SENTENCE, layer=0, head=0)
    run, drawn = ex.run, ex.draw_count
    ex.layer.value = 2
    ex.head.value = 5
    assert ex.run is run  # the same run: only the picture changed
    assert np.array_equal(ex.weights, model.run(SENTENCE).attention[2, 5])
    assert ex.draw_count == drawn + 2
    ex.head.value = lesson10.ALL_HEADS
    assert np.array_equal(ex.weights, ex.all_weights)


@needs_model
def test_word_pieces_are_the_labels(model):
    ex = W.real_attention_explorer("Unbelievably, the riverbank flooded.", head=0)
    assert ex.tokens == model.run("Unbelievably, the riverbank flooded.").tokens
    assert any(t.startswith("##") for t in ex.tokens)


@needs_model
def test_the_picture_shows_each_weight_in_its_cell(model):
    """The centre pixel of cell (i, j) has the colour-map colour of the weight
    (rows = queries from the top, columns = keys from the left)."""
    ex = W.real_attention_explorer(SENTENCE, layer=0, head=2)
    img = np.asarray(Image.open(io.BytesIO(ex.picture.value)).convert("RGB"))
    # the stored picture is the figure with its white margins cut off
    fig = ex.artists.fig
    full = np.asarray(fig.canvas.buffer_rgba())
    pad = int(round(engine.MARGIN_PX * fig.dpi / engine.DPI))
    top, _, left, _ = engine.content_box(full, pad)
    bbox, height = ex.artists.single.ax.bbox, full.shape[0]
    n = len(ex.tokens)
    lut = ex.artists.single.pixels._lut
    for i, j in [(0, 0), (1, 0), (5, 4), (n - 1, n - 2), (2, 7)]:
        x = int(bbox.x0 + (j + 0.5) * bbox.width / n) - left
        y = int(height - bbox.y1 + (i + 0.5) * bbox.height / n) - top
        expected = lut[min(int(np.floor(ex.weights[i, j] * 256)), 255)]
        assert np.array_equal(img[y, x], expected), (i, j)


@needs_model
@pytest.mark.parametrize("text, needle", [
    ("", "Type a sentence"),
    ("   \n ", "Type a sentence"),
    ("I love 🐍 and 🎉!", "[UNK]"),
    ("\u200b\u200b", "[CLS] and [SEP] are shown alone"),
    ("Река течёт у берега. 我喜欢河岸。", "[UNK]"),
])
def test_odd_inputs_give_a_message_and_a_picture(explorers, text, needle):
    for ex in explorers.values():
        ex.sentence.value = SENTENCE
        drawn = ex.draw_count
        ex.sentence.value = text
        assert needle in ex.message
        assert ex.last_error is None
        assert ex.draw_count == drawn + 1 and ex.picture.value


@needs_model
def test_long_text_is_cut_to_32_word_pieces_with_a_message(model):
    text = ("The quick brown fox jumps over the lazy dog by the bank. " * 18)[:1000]
    total = len(model.run(text).tokens)
    ex = W.real_attention_explorer(text, head=1)
    assert len(ex.tokens) == lesson10.MAX_PIECES == 32
    assert ex.tokens[-1] == "[SEP]" and ex.n_cut == total - 32
    assert f"{total - 32} of its {total} word pieces were cut" in ex.message
    assert np.array_equal(ex.weights, model.run(text, max_tokens=32).attention[0, 1])


@needs_model
def test_typed_html_never_reaches_an_html_widget():
    ex = W.real_attention_explorer('<img src=x onerror="alert(1)">')
    # the only HTML widget is the message line's fixed stylesheet
    assert [w.value for w in _walk(ex) if isinstance(w, widgets.HTML)] == [
        MESSAGE_STYLE]
    assert ex.last_error is None and ex.picture.value


@needs_model
def test_the_model_is_loaded_once(explorers):
    a, b = explorers.values()
    assert a.model is b.model is lesson10._model


def test_without_a_model_one_sentence_says_why(monkeypatch):
    def unavailable(path=None):
        raise pretrained.ModelNotAvailable("The pretrained model is not available: "
                                           "run load() once with internet.")

    monkeypatch.setattr(lesson10, "_model", None)
    monkeypatch.setattr(pretrained, "load", unavailable)
    from helpers.widgets import output
    monkeypatch.setattr(output, "_IN_APP", [])  # a lesson, not the playground
    ex = W.real_attention_explorer(SENTENCE)
    assert ex.message.startswith("The pretrained model is not available")
    assert ex.message.count(".") == 1 and ex.picture.value
    ex.sentence.value = "another sentence"
    ex.head.value = 3
    assert ex.last_error is None and "not available" in ex.message
    assert "not available" in repr(ex)
