"""Lesson 11's explorer (helpers/widgets/lesson11.py): what it shows is the
small GPT's attention and next-token distribution, the temperature reshapes
the distribution as softmax(logits / T), the button continues the prompt
reproducibly, every kind of input gives a message and a picture, and without
the model files it says why in one sentence."""

from __future__ import annotations

import io

import ipywidgets as widgets
import numpy as np
import pytest
from matplotlib.colors import to_rgb
from PIL import Image

from helpers.models import gpt
from helpers import widgets as W
from helpers.widgets import engine, lesson11, policy
from helpers.widgets.base import MESSAGE_STYLE

needs_model = pytest.mark.skipif(not (gpt.FOLDER / "model.safetensors").is_file(),
                                 reason="data/gpt/model.safetensors is missing")
PROMPT = "ROMEO:\nBut soft, what light through yonder window breaks?"


@pytest.fixture(scope="module")
def model():
    return gpt.load()


@pytest.fixture(scope="module")
def explorer():
    """One explorer for the many inputs (a figure takes a while to build)."""
    ex = W.gpt_explorer(PROMPT, layer=1, head=3)
    yield ex
    ex.close()


def _walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _walk(child)


def _softmax(z):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def _assert_causal_pattern(weights):
    """Rows sum to 1 and every weight above the diagonal is exactly 0."""
    n = weights.shape[-1]
    assert np.allclose(weights.sum(axis=-1), 1, atol=1e-5)
    assert np.all(weights[..., np.triu(np.ones((n, n), dtype=bool), k=1)] == 0)
    assert np.all(weights >= 0)


def test_token_labels_mark_spaces_line_breaks_and_the_start():
    assert lesson11.token_label(" the") == "\u00b7the"
    assert lesson11.token_label("  ") == "\u00b7\u00b7"
    assert lesson11.token_label("\n") == "\u21b5"
    assert lesson11.token_label("<|endoftext|>") == "\u27e8bos\u27e9"
    assert lesson11.token_label("\x00") == "\\x00"
    assert lesson11.token_label("\ufffd") == "\ufffd"
    for label in ("\u00b7", "\u21b5", "\u27e8", "\u27e9", "\ufffd"):
        assert engine.display_label(label) == (label, False)  # the font draws it


@needs_model
@pytest.mark.parametrize("layer, head", [(0, 0), (1, 4), (3, 5)])
def test_one_head_is_exactly_the_models_attention(model, layer, head):
    ex = W.gpt_explorer(PROMPT, layer=layer, head=head)
    run = model.run(PROMPT)
    assert ex.tokens == run.tokens and ex.tokens[0] == "<|endoftext|>"
    assert np.array_equal(ex.weights, run.attention[layer, head])
    _assert_causal_pattern(ex.weights)
    assert ex.message == "" and ex.last_error is None and ex.picture.value
    ex.close()


@needs_model
def test_next_token_probabilities_are_the_models(model, explorer):
    explorer.temperature.value = 1.0
    explorer.prompt.value = PROMPT
    run = model.run(PROMPT)
    assert explorer.probs.shape == (model.vocab_size,)
    assert np.isclose(explorer.probs.sum(), 1.0, atol=1e-9)
    top40 = gpt.top_k_probabilities(run.logits[-1], 40)   # what Generate draws
    assert np.allclose(explorer.probs, top40, atol=1e-6)
    best = np.argsort(-run.probs(), kind="stable")[:lesson11.TOP_K_SHOWN]
    assert [t for t, _ in explorer.top] == [model.piece(i) for i in best]
    shown = [p for _, p in explorer.top]
    assert shown == sorted(shown, reverse=True)
    assert np.allclose(shown, top40[best], atol=1e-6)


@needs_model
@pytest.mark.parametrize("T", [0.1, 0.5, 1.5, 2.0])
def test_temperature_reshapes_the_probabilities_without_rerunning(model, explorer, T):
    explorer.prompt.value = PROMPT
    explorer.temperature.value = 1.0
    run, p1 = explorer.run, explorer.probs.copy()
    drawn = explorer.draw_count
    explorer.temperature.value = T
    assert explorer.run is run and explorer.draw_count == drawn + 1
    expected = gpt.top_k_probabilities(model.run(PROMPT).logits[-1], 40, T)
    assert np.allclose(explorer.probs, expected, atol=1e-6)
    # below 1 the most likely token gains, above 1 it loses
    top = int(np.argmax(p1))
    assert int(np.argmax(explorer.probs)) == top
    assert (explorer.probs[top] > p1[top]) == (T < 1)
    explorer.temperature.value = 1.0


@needs_model
def test_all_heads_and_the_dropdowns_only_redraw(model, explorer):
    explorer.prompt.value = PROMPT
    explorer.head.value = lesson11.ALL_HEADS
    explorer.layer.value = 2
    run = explorer.run
    A = model.run(PROMPT).attention
    n = len(explorer.tokens)
    assert n == min(A.shape[-1], lesson11.ALL_HEADS_SHOWN)
    assert explorer.weights.shape == (model.n_heads, n, n) == (6, n, n)
    assert np.array_equal(explorer.weights, A[2][:, -n:, -n:])
    assert (np.triu(explorer.weights, k=1) == 0).all()  # the last rows: causal
    drawn = explorer.draw_count
    explorer.layer.value = 0
    explorer.head.value = 5
    assert explorer.run is run and explorer.draw_count == drawn + 2
    assert np.array_equal(explorer.weights, A[0, 5])
    assert [o for _, o in explorer.layer.options] == [0, 1, 2, 3]
    assert [o for _, o in explorer.head.options] == [lesson11.ALL_HEADS, *range(6)]


@needs_model
def test_the_picture_greys_the_future_and_colours_each_weight(model):
    ex = W.gpt_explorer("To be, or not to be, that is the question", head=0)
    img = np.asarray(Image.open(io.BytesIO(ex.picture.value)).convert("RGB"), int)
    fig = ex.artists.fig
    full = np.asarray(fig.canvas.buffer_rgba())
    pad = int(round(engine.MARGIN_PX * fig.dpi / engine.DPI))
    top, _, left, _ = engine.content_box(full, pad)
    bbox, height, n = ex.artists.single.ax.bbox, full.shape[0], len(ex.tokens)

    def pixel(i, j):
        x = int(bbox.x0 + (j + 0.5) * bbox.width / n) - left
        y = int(height - bbox.y1 + (i + 0.5) * bbox.height / n) - top
        return img[y, x]

    grey = np.round(np.array(to_rgb(policy.BAD_COLOUR)) * 255)
    cmap = ex.artists.single.im.get_cmap()
    for i, j in [(0, 1), (0, n - 1), (3, 4), (n - 2, n - 1)]:  # the future
        assert np.abs(pixel(i, j) - grey).max() <= 2, (i, j)
    for i, j in [(0, 0), (5, 2), (n - 1, 0), (n - 1, n - 1)]:
        expected = np.round(np.array(cmap(float(ex.weights[i, j]))[:3]) * 255)
        assert np.abs(pixel(i, j) - expected).max() <= 3, (i, j)
    labels = [t.get_text() for t in ex.artists.single.row_text if t.get_visible()]
    assert labels[0] == "\u27e8bos\u27e9" and "\u00b7be" in labels
    ex.close()


@needs_model
def test_generate_appends_twenty_tokens_reproducibly(model):
    a, b = W.gpt_explorer(PROMPT), W.gpt_explorer(PROMPT)
    a.temperature.value = b.temperature.value = 0.8
    for ex in (a, b):
        ex.generate.click()
        ex.generate.click()
    assert a.prompt.value == b.prompt.value  # the same clicks, the same text
    first = model.generate(PROMPT, 20, temperature=0.8, top_k=40, seed=0)
    second = model.generate(first.text, 20, temperature=0.8, top_k=40, seed=1)
    assert len(first.new_ids) == 20 and first.new_text
    assert a.prompt.value == PROMPT + first.new_text + second.new_text
    assert a.tokens == model.run(a.prompt.value).tokens[-lesson11.ALL_HEADS_SHOWN:]
    other = model.generate(PROMPT, 20, temperature=0.8, top_k=40, seed=1)
    assert other.new_text != first.new_text  # the seed counts the clicks
    assert a.last_error is None and a.sentence is a.prompt
    a.close()
    b.close()


@needs_model
def test_a_long_prompt_is_cut_to_the_context_and_drawn_trimmed(model, explorer):
    text = ("Now is the winter of our discontent made glorious summer. " * 200)[:10000]
    total = len(model.encode(text)) + 1
    explorer.head.value = 4
    explorer.layer.value = 3
    explorer.prompt.value = text
    run = model.run(text)
    assert explorer.n_cut == run.n_cut == total - model.context > 0
    assert len(explorer.tokens) == lesson11.MAX_SHOWN == 32
    assert explorer.tokens == run.tokens[-32:]
    assert np.array_equal(explorer.weights, run.attention[3, 4][-32:, -32:])
    assert f"the first {run.n_cut} tokens of the prompt were cut" in explorer.message
    assert "the last 32 of the 128 tokens" in explorer.message
    assert np.allclose(explorer.probs, gpt.top_k_probabilities(run.logits[-1], 40),
                       atol=1e-6)


@needs_model
@pytest.mark.parametrize("text, needle", [
    ("", "Type a prompt"),
    ("   ", "Only spaces"),
    ("\n\n \n", "Only spaces"),
    ("x" * 10000, "were cut"),
    ("I love \U0001F40D and \U0001F389!", "byte tokens"),
    ("a\x00b\x00\x00c", "Control characters"),
    ("<b>x</b>", ""),
    ("<|endoftext|><|endoftext|>", ""),
    ("\u0420\u0435\u043a\u0430 \u6211\u559c\u6b22", "byte tokens"),
])
@pytest.mark.parametrize("head", [2, lesson11.ALL_HEADS])
def test_any_input_gives_a_message_and_a_picture(explorer, text, needle, head):
    explorer.head.value = head
    explorer.prompt.value = PROMPT
    drawn = explorer.draw_count
    explorer.prompt.value = text
    assert needle in explorer.message
    assert explorer.last_error is None
    assert explorer.draw_count == drawn + 1 and explorer.picture.value
    assert 1 <= len(explorer.tokens) <= lesson11.MAX_SHOWN
    assert np.isclose(explorer.probs.sum(), 1.0) and len(explorer.top) == 8
    if len(explorer.tokens) == len(explorer.run.tokens):  # nothing trimmed
        _assert_causal_pattern(explorer.weights)
    explorer.generate.click()
    assert explorer.last_error is None and explorer.prompt.value.startswith(text)


@needs_model
def test_typed_html_never_reaches_an_html_widget():
    ex = W.gpt_explorer('<img src=x onerror="alert(1)"><b>x</b>')
    # the only HTML widget is the message line's fixed stylesheet
    assert [w.value for w in _walk(ex) if isinstance(w, widgets.HTML)] == [
        MESSAGE_STYLE]
    assert isinstance(ex.message_label, widgets.Label)
    assert ex.last_error is None and ex.picture.value
    ex.close()


@needs_model
def test_dom_classes_and_the_model_is_loaded_once(explorer):
    for name in ("sentence", "temperature", "layer", "head"):
        assert f"attn-{name}" in getattr(explorer, name)._dom_classes
    assert "attn-explorer" in explorer._dom_classes
    other = W.gpt_explorer("x")
    assert other.model is explorer.model is lesson11._model
    other.close()


def test_without_the_model_one_sentence_says_why(monkeypatch):
    def unavailable(path=None):
        raise gpt.ModelNotAvailable("data/gpt lacks model.safetensors: the small GPT "
                                    "ships in data/gpt/ (python3 tools/train_gpt.py "
                                    "remakes it).")

    monkeypatch.setattr(lesson11, "_model", None)
    monkeypatch.setattr(gpt, "load", unavailable)
    ex = W.gpt_explorer(PROMPT)
    assert ex.message.startswith("data/gpt lacks model.safetensors")
    assert ex.picture.value and ex.weights.shape == (6, 0, 0)
    ex.prompt.value = "another prompt"
    ex.head.value = 3
    ex.generate.click()
    assert ex.last_error is None and "lacks" in ex.message
    assert ex.prompt.value == "another prompt" and "lacks" in repr(ex)
    ex.close()


@needs_model
def test_top_p_keeps_the_nucleus_and_generate_uses_it(model):
    ex = W.gpt_explorer(PROMPT, head=1)
    logits = model.run(PROMPT).logits[-1]
    ex.top_p.value = 0.5
    expected = gpt.top_k_probabilities(logits, 40, 1.0, 0.5)
    assert np.allclose(ex.probs, expected, atol=1e-9)
    assert np.count_nonzero(ex.probs) == np.count_nonzero(expected) < 20
    assert np.isclose(ex.probs.sum(), 1.0)
    ex.generate.click()
    g = model.generate(PROMPT, 20, temperature=1.0, top_k=40, top_p=0.5, seed=0)
    assert ex.prompt.value == PROMPT + g.new_text and ex.last_error is None
    ex.top_p.value = 1.0
    assert np.allclose(ex.probs, gpt.top_k_probabilities(
        model.run(ex.prompt.value).logits[-1], 40), atol=1e-6)
    ex.close()


@needs_model
def test_generate_keeps_the_box_and_the_picture_and_says_what_it_added(model):
    ex = W.gpt_explorer("KING.\n")
    assert ex.prompt.rows == lesson11.PROMPT_ROWS
    size = Image.open(io.BytesIO(ex.picture.value)).size
    for _ in range(6):
        ex.generate.click()
    assert ex.prompt.rows == lesson11.PROMPT_ROWS   # fixed: the box scrolls
    after = Image.open(io.BytesIO(ex.picture.value)).size   # margins trimmed only
    assert all(abs(a - b) <= 0.05 * b for a, b in zip(after, size)), (after, size)
    assert "Added: \u201c" in ex.message and ex.last_error is None
    added = model.generate(ex.prompt.value, 1, seed=0)  # the model still runs on it
    assert len(added.new_ids) == 1
    ex.close()


@needs_model
def test_the_bars_axis_fits_the_largest_probability(model):
    ex = W.gpt_explorer(PROMPT, head=0)
    ex.temperature.value = 2.0
    best = max(p for _, p in ex.top)
    right = ex.artists.bars.ax.get_xlim()[1]   # the bars' own padding: 12%
    assert best < right <= 1.12 * (1.25 * best + 0.05)  # not a fixed 0-1 axis
    ex.close()


@needs_model
def test_the_bars_axis_follows_every_change(model):
    """Issue 43: after a temperature or top-p change the axis was stale."""
    ex = W.gpt_explorer(PROMPT, head=0)
    for T, top_p in [(1.0, 1.0), (0.3, 1.0), (2.0, 1.0), (1.0, 0.05), (1.0, 0.5)]:
        ex.temperature.value, ex.top_p.value = T, top_p
        best = max(p for _, p in ex.top)
        lo, hi = ex.artists.bars.ax.get_xlim()
        ticks = [t for t in ex.artists.bars.ax.get_xticks() if lo <= t <= hi]
        assert best <= hi / 1.12 + 1e-9 and max(ticks) >= 0.5 * best, (T, top_p)
        assert ex.artists.bars.ax.get_xlim() == (lo, hi)
    ex.close()


@needs_model
def test_the_bars_are_what_generate_draws_from(model):
    """Only tokens with p > 0, at Generate's top-k 40; punctuation named."""
    ex = W.gpt_explorer(PROMPT, head=0, top_p=0.5)
    p = gpt.top_k_probabilities(model.run(PROMPT).logits[-1], 40, 1.0, 0.5)
    assert all(q > 0 for _, q in ex.top) and len(ex.top) == np.count_nonzero(p)
    ex.temperature.value = 2.0
    q = gpt.top_k_probabilities(model.run(PROMPT).logits[-1], 40, 2.0, 0.5)
    assert np.allclose(ex.probs, q)
    assert lesson11.bar_label(",") != lesson11.bar_label(".")
    assert "comma" in lesson11.bar_label(",") and "full stop" in lesson11.bar_label(".")
    assert f"{max(q):.3g}"[:4] in ex.alt and "top-k 40" in ex.alt
    ex.close()


@needs_model
def test_the_all_heads_picture_says_when_labels_are_thinned(model):
    ex = W.gpt_explorer("To be, or not to be, that is the question: " * 4)
    assert len(ex.tokens) == lesson11.ALL_HEADS_SHOWN  # every token labelled
    title = ex.artists.suptitle.get_text()
    assert "labels: every" not in title, title
    ex.head.value = 0
    assert len(ex.tokens) == lesson11.MAX_SHOWN
    short = W.gpt_explorer("To be")
    assert "labels: every" not in short.artists.suptitle.get_text()
    ex.close()
    short.close()


@needs_model
@pytest.mark.parametrize("top_p, temperature, want", [
    (float("nan"), 1.0, (1.0, 1.0)), (5, 9.0, (1.0, 2.0)), (0.0, 0.0, (0.05, 0.1)),
    (None, "hot", (1.0, 1.0)),
])
def test_odd_slider_values_are_clamped_not_raised(top_p, temperature, want):
    ex = W.gpt_explorer("KING.\n", top_p=top_p, temperature=temperature)
    assert (ex.top_p.value, ex.temperature.value) == want
    assert ex.last_error is None and np.isclose(ex.probs.sum(), 1.0)
    ex.generate.click()
    assert ex.last_error is None and ex.prompt.value.startswith("KING.\n")
    ex.close()


@needs_model
def test_a_tiny_probability_reads_below_0_001_not_0(model):
    """Issue 46: at T = 0.1 the lesser bars hold p ~ 1e-14, drawn as "0.000"
    and read as "0" in the alt; both now say "<0.001"."""
    assert lesson11.prob_text(1e-14) == "<0.001" == lesson11.prob_text(0.00049)
    assert lesson11.prob_text(0.0005) == "0.001" and lesson11.prob_text(0.25) == "0.250"
    ex = W.gpt_explorer(PROMPT, head=0, temperature=0.1)
    tiny = [p for _, p in ex.top if p < 0.0005]
    assert tiny and all(p > 0 for p in tiny)
    shown = [t.get_text() for t in ex.artists.bars.value_text[0][:len(ex.top)]]
    assert shown.count("<0.001") == len(tiny) and "0.000" not in shown, shown
    bars = ex.alt.split(" bars: ")[1].split(". Layer")[0]
    assert bars.count("<0.001") == len(tiny) and not bars.endswith("' 0"), bars
    assert "' 0," not in bars and "0.000" not in bars, bars
    ex.close()


def test_the_default_prompt_needs_no_note():
    """The playground opens the explorer as is: every token drawn, no message."""
    ex = W.gpt_explorer()
    if ex.model is not None:
        assert len(ex.tokens) <= lesson11.ALL_HEADS_SHOWN and ex.message == ""
    ex.close()


@needs_model
def test_a_split_letter_is_named_and_the_alt_reads_well_aloud(explorer):
    explorer.head.value = 2
    explorer.prompt.value = "Ich gehe über die Brücke.\nDanke"
    assert "'ü' (2 bytes)" in explorer.message
    assert "emoji" not in explorer.message
    alt = explorer.alt
    assert "\u00b7" not in alt and "\u21b5" not in alt  # no drawn marks
    assert "Prompt ends: " in alt and "(line break) Danke" in alt
