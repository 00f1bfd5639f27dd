"""The explorers of helpers.widgets: good input, bad input, display, speed path.

Every explorer is driven through its attributes only (``.sentence.value =
...``), the way a learner's typing reaches it, and we check what it says it
drew (``.tokens``, ``.weights``, ``.message``) against the core math.
"""

from __future__ import annotations

import ast
import html
import asyncio
import base64
import importlib
import inspect
import io
import json
import re
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pytest
from matplotlib.font_manager import findfont

from helpers.world import heads, lexicon
from helpers import widgets as W
from helpers.widgets import (EXPLORERS, base, engine, kit, lesson09, panels,
                             policy)
from helpers.attention import softmax

PNG = b"\x89PNG\r\n\x1a\n"


def _has_weights():
    try:
        lesson09._trained_model()
    except FileNotFoundError:
        return False
    return True


ROOT = Path(__file__).resolve().parents[1]


def _needs(row):
    """Skip marks of a row whose data file is missing."""
    return [pytest.mark.skipif(not (ROOT / row.needs).exists(),
                               reason=f"{row.needs} missing")] if row.needs else []


def _text_boxes(factory):
    """The names of an explorer's text inputs (``sentence``, or ``source``
    and ``target``), found on a freshly made explorer."""
    ex = factory()
    try:
        names = {}  # the first attribute naming each widget (.source, not .sentence)
        for k, w in vars(ex).items():
            if isinstance(w, widgets.Widget):
                names.setdefault(id(w), k)
        return [names[id(w)] for w in _all_widgets(ex) if isinstance(w, widgets.Text)
                and "attn-input" in w._dom_classes]
    finally:
        ex.close()


def _sentence_explorers():
    """(name, factory, name of the text box that the bad inputs go into) for
    every text box of every toy-lexicon explorer of :data:`EXPLORERS`."""
    cases = []
    for row in EXPLORERS:
        if not row.lexicon:  # the others: their own test files feed odd input
            continue
        boxes = _text_boxes(row.factory)
        for box in boxes:
            name = row.name if len(boxes) == 1 else f"{row.name}/{box}"
            cases.append(pytest.param(name, row.factory, box, marks=_needs(row),
                                      id=name))
    return cases


LONG = " ".join(["the cat sat on the mat by the river bank"] * 30)  # 300 words
BAD_INPUTS = {
    "empty": "",
    "whitespace": "   \t \n ",
    "one word": "bank",
    "300 words": LONG,
    "unknown words": "blorptastic zzyzx the quux",
    "digits": "123 4.5 2024 7",
    "punctuation only": "!!! ... ??? ,;:",
    "emoji": "\U0001F600 \U0001F389 cat \U0001F431",
    "non-Latin": "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 \u4e2d\u6587"
                 " \u0645\u0631\u062d\u0628\u0627",
    "mixed case": "The FLUFFY Blue CrEaTuRe",
    "repeated words": "bank bank bank bank bank",
    "html img": "<img src=x onerror=alert(1)>",
    "html script": "</div><script>alert('hi')</script>",
    "dollars": "$x$ costs $5 \\frac{1}{2}",
    "one long word": "x" * 500,
    "control characters": "the\x00cat\x1b[2J sat\u200b\u202eon",
}
EMPTY = {"empty", "whitespace", "punctuation only"}


def _all_widgets(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _all_widgets(child)


def _check_html_safe(ex):
    for w in _all_widgets(ex):
        if isinstance(w, (widgets.HTML, widgets.HTMLMath)):
            low = w.value.lower()
            assert "<script" not in low and "<img" not in low, w.value
            if w.value.startswith("<style>"):  # the message line's fixed stylesheet
                assert w.value == base.MESSAGE_STYLE, w.value


@pytest.fixture(scope="module")
def made():
    """One explorer per factory, reused across inputs (as a learner would)."""
    cache = {}

    def get(factory):
        if factory not in cache:
            cache[factory] = factory()
        return cache[factory]

    yield get
    for ex in cache.values():
        ex.close()


@pytest.mark.parametrize("case", list(BAD_INPUTS))
@pytest.mark.parametrize("name,factory,box", _sentence_explorers())
def test_any_input(made, name, factory, box, case):
    ex = made(factory)
    if box == "source":  # keep the other box of the cross explorer sensible
        ex.target.value = heads.CURRICULUM_SENTENCES["translation_fr"]
    elif box == "target":
        ex.source.value = heads.CURRICULUM_SENTENCES["translation_en"]
    ex.last_error = None
    text = BAD_INPUTS[case]
    draws = ex.draw_count
    getattr(ex, box).value = text  # must not raise
    assert ex.last_error is None, repr(ex.last_error)
    assert ex.message_label.value == ex.message
    assert ex.draw_count == draws + 1
    assert bytes(ex.picture.value).startswith(PNG)
    _check_html_safe(ex)
    weights = np.asarray(ex.weights, dtype=float)
    assert np.all(np.isfinite(weights))
    typed = {"source": "source_tokens", "target": "target_tokens"}.get(box, "tokens")
    n = len(getattr(ex, typed))
    assert n <= W.MAX_TOY_TOKENS
    if case in EMPTY:
        assert n == 0
        assert weights.size == 0
        assert ex.message  # says what to do
        if case == "punctuation only":
            assert "No words" in ex.message
        else:
            assert "Type" in ex.message
        return
    if name.startswith("cross_explorer"):
        assert weights.shape == (len(ex.target_tokens), len(ex.source_tokens))
    elif name == "embedding_explorer":
        assert weights.shape == (n, len(lexicon.FEATURES))
    elif name == "multi_head_explorer":
        assert weights.shape[-2:] == (n, n)
    elif name == "image_explorer":  # caption words x picture patches
        assert weights.shape == (n, 64)
    elif weights.ndim == 1:
        assert weights.shape == (n,)
    else:
        assert weights.shape == (n, n)
    if ex.weights_are_pattern and weights.size:
        assert np.allclose(weights.sum(axis=-1), 1.0)
    if case == "300 words":
        assert "first 24 of 300" in ex.message
    if case == "unknown words" and name != "sense_explorer":
        assert "blorptastic" in ex.message
    if case in ("one word", "repeated words", "mixed case", "digits"):
        assert "unknown" not in ex.message.lower() or name == "sense_explorer"
    if case == "mixed case" and not name.startswith("cross_explorer/source"):
        if name == "cross_explorer/target":
            assert ex.target_tokens[:2] == ["the", "fluffy"]
        else:
            assert ex.tokens[:2] == ["the", "fluffy"]
    if case == "html img" and name not in ("sense_explorer",):
        assert "<" in ex.message  # shown as plain text in a Label, not HTML
        assert isinstance(ex.message_label, widgets.Label)
    if case == "emoji" and name not in ("sense_explorer",):
        # each emoji is named as an unknown word, and the picture's '?' explained
        assert "'\U0001F600', '\U0001F389', '\U0001F431'" in ex.message
        assert "cannot draw are shown as '?'" in ex.message


def test_messages_clear_when_input_is_fine():
    ex = W.first_taste("")
    assert ex.message and not ex.tokens
    ex.sentence.value = "a fluffy blue creature"
    assert ex.message == ""
    assert ex.tokens == ["a", "fluffy", "blue", "creature"]


# --------------------------------------------------------------------------
# the numbers: each explorer shows what the core math says
# --------------------------------------------------------------------------
CREATURE = "a fluffy blue creature roamed the verdant forest"


def test_first_taste_is_the_adjective_head():
    ex = W.first_taste(CREATURE)
    run = heads.run_head(heads.adjective_head(), CREATURE)
    assert ex.tokens == run.tokens
    np.testing.assert_allclose(ex.weights, run.weights)
    creature = ex.tokens.index("creature")
    top2 = set(np.argsort(ex.weights[creature])[-2:])
    assert top2 == {ex.tokens.index("fluffy"), ex.tokens.index("blue")}


def test_embedding_explorer_shows_the_lexicon_rows():
    ex = W.embedding_explorer("the cat blorp")
    vectors, unknown = lexicon.lookup(["the", "cat", "blorp"])
    np.testing.assert_array_equal(ex.weights, vectors)
    assert ex.unknown == ["blorp"] == unknown
    assert "'blorp'" in ex.message


def test_embedding_explorer_says_which_words_were_guessed():
    # "blorping" is unknown but ends in -ing: guessed as a verb, and the
    # note says so; "blorp" has no telling ending: the plain unknown vector
    ex = W.embedding_explorer("the cat blorping blorp")
    assert ex.unknown == ["blorping", "blorp"]
    assert "guessed" in ex.message and "'blorping'" in ex.message
    assert ex.weights[2, lexicon.FEATURES.index("verb")] == 1
    assert ex.weights[2, lexicon.FEATURES.index("unknown")] == 1
    assert ex.weights[3].sum() == 1


def test_weighted_sum_hand_worked():
    ex = W.weighted_sum_explorer("river bank flows")
    assert ex.tokens == ["river", "bank", "flows"]
    assert ex.token.value == 1  # "bank" is picked by default
    F = lexicon.embed(ex.tokens, positions=False).E[:, : len(lexicon.FEATURES)]
    scores = F @ F[1]
    np.testing.assert_allclose(ex.scores, scores)
    np.testing.assert_allclose(ex.weights, softmax(scores))
    np.testing.assert_allclose(ex.new_vector, softmax(scores) @ F)
    ex.token.value = 0
    np.testing.assert_allclose(ex.weights, softmax(F @ F[0]))


def test_weighted_sum_reports_a_sense_tie():
    # before mixing, "bank" is exactly as close to both senses (lessons 01, 02)
    ex = W.weighted_sum_explorer(heads.CURRICULUM_SENTENCES["bank_river"],
                                 token="bank")
    before, after = ex.senses["before"], ex.senses["after"]
    assert abs(before["river"] - before["money"]) < 1e-9
    assert after["river"] > after["money"] + 0.1
    assert ex.sense_note == (f"nearest sense before: tie ({before['river']:.2f} each)"
                             f", after: river ({after['river']:.2f})")
    ex.sentence.value = "take a biopsy of the mole"
    assert ex.sense_note.startswith("nearest sense before: tie (0.75 each), after:")
    assert heads.sense_verdict({"a": 0.5, "b": 0.5, "c": 0.1}) == "tie: a = b (0.50)"


def test_token_choice_follows_the_word():
    ex = W.qk_explorer(CREATURE, token="blue")
    assert ex.tokens[ex.token.value] == "blue"
    ex.sentence.value = "the blue sky"
    assert ex.tokens[ex.token.value] == "blue"  # the same word stays chosen
    ex.sentence.value = "the cat sat"
    assert ex.token.value is not None and 0 <= ex.token.value < 3
    ex.sentence.value = ""
    assert ex.token.value is None and ex.weights.shape == (0,)


def test_qk_products():
    ex = W.qk_explorer(CREATURE, token="creature")
    head = heads.adjective_head()
    E = lexicon.embed(CREATURE).E
    q = E[3] @ head.W_Q
    K = E @ head.W_K
    np.testing.assert_allclose(ex.scores, K @ q)
    np.testing.assert_allclose(ex.weights, softmax(K @ q / np.sqrt(K.shape[1])))
    assert np.argmax(ex.scores) in (1, 2)  # fluffy or blue


def test_pattern_explorer_temperature_scaling_convention():
    ex = W.pattern_explorer(CREATURE)
    head = heads.adjective_head()
    E = lexicon.embed(CREATURE).E
    S = (E @ head.W_Q) @ (E @ head.W_K).T
    d_k = head.W_Q.shape[1]
    np.testing.assert_allclose(ex.weights, softmax(S / np.sqrt(d_k)))
    ex.temperature.value = 2.0
    np.testing.assert_allclose(ex.weights, softmax(S / np.sqrt(d_k) / 2.0))
    ex.scaling.value = False
    np.testing.assert_allclose(ex.weights, softmax(S / 2.0))
    ex.convention.value = "video: keys as rows"
    np.testing.assert_allclose(ex.shown, ex.weights.T)
    np.testing.assert_allclose(ex.shown.sum(axis=0), 1.0)  # columns sum to 1
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)


def test_update_explorer_resolves_bank():
    river = W.update_explorer(heads.CURRICULUM_SENTENCES["bank_river"])
    money = W.update_explorer(heads.CURRICULUM_SENTENCES["bank_deposit"])
    for ex, sense in ((river, "river"), (money, "money")):
        assert ex.tokens[ex.token.value] == "bank"
        assert ex.after_sense == sense
        head = heads.sense_head()
        run = heads.run_head(head, ex.tokens)
        np.testing.assert_allclose(ex.weights, run.weights[ex.token.value])
        np.testing.assert_allclose(ex.dE, run.dE[ex.token.value], atol=1e-12)


def test_mask_explorer_steps():
    ex = W.mask_explorer(CREATURE, masked=True, step=1)
    n = len(ex.tokens)
    upper = ~np.tril(np.ones((n, n), bool))
    assert np.all(ex.weights[upper] == 0.0)
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)
    assert np.all(np.isfinite(ex.shown))
    ex.step.value = 2
    assert np.all(np.isneginf(ex.shown[upper]))
    assert np.all(np.isfinite(ex.shown[~upper]))
    ex.step.value = 4
    assert ex.shown.shape[0] == n
    ex.mask.value = False
    assert np.all(ex.weights[upper] > 0)
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)


def test_multi_head_explorer():
    ex = W.multi_head_explorer(CREATURE)
    assert ex.weights.shape == (3, 8, 8)
    adjective = heads.run_head(heads.adjective_head(), CREATURE).weights
    np.testing.assert_allclose(ex.weights[0], adjective, atol=1e-12)
    ex.head.value = "previous token"
    np.testing.assert_allclose(ex.weights, ex.all_weights[2])
    # previous-token head: token i looks mostly at i - 1
    assert list(np.argmax(ex.weights[1:], axis=1)) == list(range(7))


def test_cross_explorer_is_not_square():
    ex = W.cross_explorer("the black cat sleeps on the mat", "le chat noir")
    assert ex.weights.shape == (3, 7)
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)
    assert ex.tokens == ["le", "chat", "noir"] == ex.target_tokens
    assert ex.source_tokens[2] == "cat"
    assert np.argmax(ex.weights[1]) == 2  # chat -> cat
    assert ex.sentence is ex.source
    assert repr(ex) == "<cross_explorer: 3 target x 7 source tokens>"
    ex.target.value = ""
    assert ex.weights.shape == (0, 7) and "Target" in ex.message


def test_parameter_calculator_gpt3():
    ex = W.parameter_calculator()
    c = ex.counts
    assert c["query"] == c["key"] == 1_572_864
    assert c["value_down"] == c["value_up"] == 1_572_864
    assert c["square_value"] == 150_994_944
    assert c["per_head"] == 6_291_456
    assert c["per_block"] == 603_979_776
    assert c["total"] == 57_982_058_496
    text = ex._repr_mimebundle_()["text/plain"]
    for figure in ("1,572,864", "150,994,944", "about 6.3 million",
                   "about 604 million", "about 58 billion"):
        assert figure in text
    ex.d_model.value = 512
    ex.d_k.value = 64
    assert ex.counts["per_head"] == 4 * 512 * 64
    ex.d_k.value = 1024
    assert "larger than d_model" in ex.message
    _check_html_safe(ex)


@pytest.mark.skipif(not _has_weights(), reason="data/tinymodel_weights.npz missing")
def test_sense_explorer_predicts():
    ex = W.sense_explorer(heads.CURRICULUM_SENTENCES["bank_river"])
    assert ex.sense == "river" and ex.probs.max() > 0.5
    ex.sentence.value = "she paid the cash into her account at the bank"
    assert ex.sense == "money"
    n = len(ex.tokens)
    assert ex.weights.shape == (n, n)
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)
    ex.sentence.value = "the cat sat"
    assert ex.sense is None and "No 'bank' or 'mole'" in ex.message


def test_sense_explorer_without_weights(monkeypatch):
    def missing():
        raise FileNotFoundError("no weights")

    monkeypatch.setattr(lesson09, "_trained_model", missing)
    ex = W.sense_explorer("the river bank")
    assert "weights are missing" in ex.message
    assert ex.last_error is None and bytes(ex.picture.value).startswith(PNG)


# --------------------------------------------------------------------------
# robustness of the machinery
# --------------------------------------------------------------------------
def test_errors_never_escape_and_keep_the_picture(monkeypatch):
    ex = W.pattern_explorer(CREATURE)
    picture, weights = bytes(ex.picture.value), ex.weights

    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(ex, "_compute", broken)
    ex.sentence.value = "anything at all"  # no exception
    assert "Could not update" in ex.message
    assert isinstance(ex.last_error, RuntimeError)
    assert bytes(ex.picture.value) == picture and ex.weights is weights
    monkeypatch.undo()

    def broken_paint(layer, state):
        raise ValueError("bad paint")

    monkeypatch.setattr(ex, "_paint", broken_paint)
    ex.sentence.value = "the cat"
    assert "Could not draw" in ex.message
    assert bytes(ex.picture.value) == picture


class _Typo(base.SentenceExplorer):
    """A toy explorer whose state may not match what it declares."""

    kind = "typo"
    shows = {"scores": None}
    state_fields = {"scores": 1.0}

    def _build(self, art):
        art.heat = panels.Heatmap(art, [0.2, 0.2, 0.6, 0.6])

    def _compute(self):
        r = kit.read_sentence(self.sentence.value)
        if r.empty:
            return kit.empty_state(r)
        A = np.full((len(r.tokens),) * 2, 1.0 / len(r.tokens))
        return base.State(tokens=r.tokens, weights=A, notes=r.notes,
                          **self.state_fields)

    def _paint(self, art, s):
        return art.heat.update(s.weights, s.labels, s.labels)


def test_a_state_must_set_exactly_what_the_explorer_shows():
    ex = _Typo("the cat")
    assert ex.last_error is None and ex.scores == 1.0 and ex.draw_count == 1
    picture = bytes(ex.picture.value)
    # a declared name missing from the state: the update stops, loudly
    ex.state_fields = {}
    ex.sentence.value = "the dog"  # no exception out of the callback
    assert isinstance(ex.last_error, AttributeError)
    assert "lacks ['scores']" in str(ex.last_error)
    assert "Could not update" in ex.message and ex.tokens == ["the", "cat"]
    assert bytes(ex.picture.value) == picture and ex.scores == 1.0
    # an undeclared name (a typo) in the state
    ex.last_error = None
    ex.state_fields = {"scores": 2.0, "score": 2.0}
    ex.sentence.value = "the bird"
    assert isinstance(ex.last_error, AttributeError)
    assert "sets ['score'] not in shows" in str(ex.last_error)
    assert not hasattr(ex, "score") and ex.scores == 1.0
    # "_" fields are the picture's own; an empty state may leave shown
    # values out: they go back to their declared value
    ex.last_error = None
    ex.state_fields = {"scores": 3.0, "_labels_colour": "red"}
    ex.sentence.value = "the fish"
    assert ex.last_error is None and ex.scores == 3.0
    ex.sentence.value = ""
    assert ex.last_error is None and ex.scores is None and ex.tokens == []


def test_shown_names_may_not_hide_an_input():
    class Clash(_Typo):
        shows = {"sentence": None}

    with pytest.raises(TypeError, match="sentence"):
        Clash("the cat")


def test_inputs_are_the_controls_that_hold_a_value():
    calc = W.parameter_calculator()
    inputs = base._inputs(calc.children)
    assert inputs == [calc.d_model, calc.d_k, calc.n_heads, calc.n_layers]
    assert calc.table not in inputs  # an HTML table shows, it is not set
    assert "attn-n-heads" in calc.n_heads._dom_classes
    ex = W.update_explorer()
    assert base._inputs(ex.children) == [ex.sentence, ex.token, ex.head]
    ex.head.value = "adjective"  # observed without being listed anywhere
    assert ex.update_count == 2 and ex.draw_count == 2


def test_every_explorer_declares_what_it_shows_once():
    """No explorer shows a value under two names, and every name it shows
    is an attribute after an update."""
    for row in EXPLORERS:
        ex = row.factory()
        try:
            assert ex.last_error is None, (row.name, ex.last_error)
            for name in type(ex).shows:
                assert hasattr(ex, name), (row.name, name)
            assert not ({"extra", "q", "K", "products", "pred", "all"}
                        & set(vars(ex))), row.name
        finally:
            ex.close()


def test_burst_of_updates_draws_once_and_shows_the_last():
    ex = W.pattern_explorer("one")
    sentences = [" ".join(["cat"] * (i + 1)) for i in range(9)] + [CREATURE]

    async def burst():
        before = ex.draw_count
        for s in sentences:
            ex.sentence.value = s
        # state is synchronous, the picture waits for the loop
        assert ex.tokens == CREATURE.split()
        assert ex.draw_count == before
        await asyncio.sleep(0)
        assert ex.draw_count == before  # still waiting for the inputs to settle
        await asyncio.sleep(policy.SETTLE * 5)
        return before

    before = asyncio.run(burst())
    assert ex.draw_count == before + 1
    reference = W.pattern_explorer(CREATURE)  # drawn at once, no loop
    assert bytes(ex.picture.value) == bytes(reference.picture.value)


def test_slow_stream_of_updates_draws_each_and_burst_waits_at_most_max_wait():
    ex = W.first_taste("one")

    async def stream():
        before = ex.draw_count
        for s in ("the cat", "the blue cat"):  # apart: one picture each
            ex.sentence.value = s
            await asyncio.sleep(policy.SETTLE * 5)
        assert ex.draw_count == before + 2
        start = ex.draw_count
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        t_end, stamps = t0 + policy.MAX_WAIT * 3, []
        while loop.time() < t_end:  # never quiet: still drawn every MAX_WAIT
            ex.sentence.value = "cat " * (1 + ex.update_count % 5)
            stamps.append(loop.time())
            await asyncio.sleep(policy.SETTLE / 4)
        await asyncio.sleep(policy.SETTLE * 5)  # the last burst's picture
        # a busy machine sleeps longer than asked: each gap of SETTLE or more
        # is a quiet moment that may give a picture; the rest wait for
        # MAX_WAIT (on a quiet machine: no such gap, at most 4 pictures)
        quiet = sum(b - a >= policy.SETTLE for a, b in zip(stamps, stamps[1:]))
        most = 1 + quiet + int((stamps[-1] - t0) / policy.MAX_WAIT) + 1
        assert 1 <= ex.draw_count - start <= most, (ex.draw_count - start, most)
        assert ex.draw_count - start < len(stamps) or quiet >= len(stamps) - 2

    asyncio.run(stream())


def test_mimebundle_and_repr():
    ex = W.pattern_explorer(CREATURE)
    bundle = ex._repr_mimebundle_()
    assert bundle["text/plain"] == "<pattern_explorer: 8 tokens>" == repr(ex)
    assert base64.b64decode(bundle["image/png"]).startswith(PNG)
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == ex.model_id and view["version_major"] == 2


def test_mimebundle_flushes_a_pending_picture():
    ex = W.first_taste("one")

    async def later():
        ex.sentence.value = CREATURE
        bundle = ex._repr_mimebundle_()  # drawn now, not later
        return bundle, ex.draw_count

    async def later_and_wait():
        result = await later()
        await asyncio.sleep(policy.SETTLE * 5)
        return result

    bundle, count = asyncio.run(later_and_wait())
    assert ex.draw_count == count  # the scheduled draw found nothing to do
    assert base64.b64decode(bundle["image/png"]) == bytes(ex.picture.value)
    assert bytes(ex.picture.value) == bytes(W.first_taste(CREATURE).picture.value)


def test_dom_classes():
    for row in EXPLORERS:
        if not row.lexicon:
            continue  # lessons 10-14: their own test files check their classes
        ex = row.factory()
        assert "attn-explorer" in ex._dom_classes
        assert "attn-picture" in ex.picture._dom_classes
        assert "attn-message" in ex.message_label._dom_classes
        assert isinstance(ex.picture, widgets.Image)
        assert ex.picture in ex.children
        if hasattr(ex, "sentence"):
            assert "attn-sentence" in ex.sentence._dom_classes


def test_same_input_same_picture():
    a = W.mask_explorer(CREATURE)
    b = W.mask_explorer("the cat")
    b.sentence.value = CREATURE
    assert bytes(a.picture.value) == bytes(b.picture.value)


def _colours(png):
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(bytes(png))).convert("RGB"))
    return {tuple(int(c) for c in px) for px in rgb.reshape(-1, 3)}


def test_benchmark_naive_path_draws_the_same_content():
    """The benchmark compares the fast path with the ordinary pyplot way; both
    must show the same picture: every cell's colour of the weights."""
    import matplotlib

    bench = _load_benchmark()
    ex = W.first_taste(CREATURE)
    cmap = matplotlib.colormaps["viridis"]
    cells = {tuple(int(round(255 * c)) for c in cmap(w)[:3])
             for w in np.unique(np.round(ex.weights, 6))}
    fast, naive = _colours(ex.picture.value), _colours(bench.naive_png(ex, ex._state))
    assert cells <= fast
    assert cells <= naive


def _load_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent / "benchmarks" / "bench_widgets.py"
    spec = importlib.util.spec_from_file_location("bench_widgets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ipython_display_publishes_widget_png_and_text(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display",
                        lambda *objs, **kw: shown.append((objs, kw)))
    ex = W.multi_head_explorer(CREATURE)
    ex._ipython_display_()
    (bundle,), kw = shown[0]
    assert kw.get("raw") is True
    assert set(bundle) == {"text/plain", "image/png", "text/html",
                           "application/vnd.jupyter.widget-view+json"}
    assert bundle["text/plain"] == "<multi_head_explorer: 8 tokens>"
    # the still picture of a stored notebook has the explorer's text alternative
    assert bundle["text/html"].startswith('<img src="data:image/png;base64,')
    assert 'alt="' in bundle["text/html"] and ex.alt
    assert html.escape(ex.alt, quote=True) in bundle["text/html"]


def test_update_explorer_adjective_head_gives_fluffy_blue_creature():
    ex = W.update_explorer(CREATURE, token="creature", head="adjective")
    names = lexicon.feature_names()
    dE = dict(zip(names, ex.dE))
    assert dE["colour"] > 0.1 and dE["texture"] > 0.1  # from "blue", "fluffy"
    assert dE["money"] == 0
    run = heads.run_head(heads.adjective_head(), CREATURE)
    np.testing.assert_allclose(ex.dE, run.dE[3], atol=1e-12)
    ex.head.value = "sense"
    np.testing.assert_allclose(ex.weights, heads.run_head(heads.sense_head(),
                                                          CREATURE).weights[3])


# --------------------------------------------------------------------------
# review findings: readable feature names, one weight scale, sense ties
# --------------------------------------------------------------------------
def _pixels(size_pt, dpi):
    return size_pt * dpi / 72.0


@pytest.mark.parametrize("factory,panel", [
    (W.embedding_explorer, "heat"),
    (W.weighted_sum_explorer, "result"),
])
def test_feature_names_are_readable_and_grouped(factory, panel):
    ex = factory()
    heat = getattr(ex.artists, panel)
    fig = ex.figure
    shown = [t for t in heat.col_text if t.get_visible()]
    assert [t.get_text() for t in shown] == list(lexicon.FEATURES)
    # as many pixels as the 8 pt labels of helpers.figures.plots at 100 dpi
    for t in shown:
        assert _pixels(t.get_fontsize(), fig.dpi) >= _pixels(8, 100) - 1e-9
        assert t.get_rotation() == 90
    # upright labels of neighbouring columns do not overlap
    renderer = ex.figure.canvas.get_renderer()
    pitch = heat.ax.get_window_extent(renderer).width / len(lexicon.FEATURES)
    px = int(round(_pixels(shown[0].get_fontsize(), fig.dpi)))
    path = findfont(shown[0].get_fontproperties())
    longest = 0
    for t in shown:
        mask, _ = engine.text_bitmap(t.get_text(), path, px, 90.0, "center")
        ink = np.flatnonzero(mask.any(axis=0))
        assert ink[-1] - ink[0] + 1 < pitch, t.get_text()
        longest = max(longest, mask.shape[0])
    # groups: separators between them, names below the labels, inside the figure
    groups = panels.feature_groups()
    assert [g[0] for g in groups] == ["part of speech", "meaning fields", "flags"]
    assert sum(g[1] for g in groups) == len(lexicon.FEATURES)
    assert groups[0][1] == lexicon.FEATURES.index("person")
    edges = [line.get_xdata()[0] for line in heat.separators]
    np.testing.assert_allclose(edges, [groups[0][1] - 0.5,
                                       groups[0][1] + groups[1][1] - 0.5])
    for g in heat.group_text:  # below the longest upright label, in the picture
        box = g.get_window_extent(renderer)
        assert box.y0 >= 0, g.get_text()
        assert box.y1 < heat.ax.get_window_extent(renderer).y0 - longest


def _clim(heat):
    return tuple(float(v) for v in heat.im.get_clim())


def test_every_attention_picture_uses_the_same_0_to_1_scale():
    flat = "the the the the the the"  # flat weights: max far below 1
    ex = W.first_taste(flat)
    assert ex.weights.max() < 0.5 and _clim(ex.artists.heat) == (0.0, 1.0)
    ex = W.pattern_explorer(CREATURE, temperature=5.0)
    assert ex.weights.max() < 0.6 and _clim(ex.artists.heat) == (0.0, 1.0)
    ex.temperature.value = 0.1  # sharp: still the same scale
    assert ex.weights.max() > 0.9 and _clim(ex.artists.heat) == (0.0, 1.0)
    ex.convention.value = "video: keys as rows"
    assert _clim(ex.artists.heat) == (0.0, 1.0)
    ex = W.mask_explorer(flat, step=3)
    assert _clim(ex.artists.heat) == (0.0, 1.0)
    ex.step.value = 1  # scores keep a scale of their own, centred on 0
    lo, hi = _clim(ex.artists.heat)
    assert lo == -hi and (lo, hi) != (0.0, 1.0)
    ex = W.multi_head_explorer(CREATURE)
    for g in ex.artists.grid:
        assert _clim(g) == (0.0, 1.0)
    ex.head.value = "previous token"
    assert _clim(ex.artists.single) == (0.0, 1.0)
    ex = W.cross_explorer("the black cat sleeps on the mat", "le chat noir")
    assert ex.weights.max() < 1 and _clim(ex.artists.heat) == (0.0, 1.0)
    ex = W.weighted_sum_explorer("river bank flows")
    lo, hi = ex.artists.weights.ax.get_xlim()  # 0-1 plus room for the values
    assert lo == 0.0 and hi == pytest.approx(1.12)
    assert ex.weights.max() < 0.6
    if _has_weights():
        ex = W.sense_explorer(heads.CURRICULUM_SENTENCES["bank_river"])
        assert _clim(ex.artists.heat) == (0.0, 1.0)
    assert W.WEIGHT_RANGE == (0.0, 1.0)


def test_update_explorer_reports_the_sense_tie_before_the_update():
    ex = W.update_explorer(heads.CURRICULUM_SENTENCES["bank_river"], token="bank")
    before, after = ex.senses["before"], ex.senses["after"]
    # the bare "bank" is exactly as close to both senses (lessons 01, 02)
    assert abs(before["river"] - before["money"]) < 1e-9
    assert after["river"] > after["money"] + 0.1
    assert ex.before_sense == "tie" and ex.after_sense == "river"
    assert ex.sense_note == (f"before: tie ({before['river']:.2f} each) "
                             f"\u2192 after: river ({after['river']:.2f})")
    assert ex.sense_note == "before: tie (0.79 each) \u2192 after: river (0.86)"
    title = ex.artists.sense.title.get_text()
    assert "tie (0.79 each)" in title and "river (0.86)" in title
    assert "->" not in title
    # a clear winner is named, not called a tie
    assert heads.sense_name({"river": 0.9, "money": 0.2}) == "river"
    ex.sentence.value = heads.CURRICULUM_SENTENCES["bank_deposit"]
    assert ex.after_sense == "money" and ex.sense_note.endswith(
        f"after: money ({ex.senses['after']['money']:.2f})")
    # a word without senses: no verdict
    ex.token.value = 0
    assert ex.sense_note == "" and ex.senses is None and ex.before_sense is None


# --------------------------------------------------------------------------
# readable token labels: >= 11.1 px up to 16 tokens, never overlapping
# --------------------------------------------------------------------------
_WORDS = ("the fluffy blue creature roamed the verdant forest near the river bank "
          "and swam across water to get to the other bank of the wide river").split()


def _token_explorer(case, n):
    """The explorer of ``case`` (a row of EXPLORERS and one of its
    ``examples``) on an n-word sentence."""
    row, kwargs = case
    text = " ".join(_WORDS[:n])
    if n >= 16:  # a long word: cut to LABEL_CHARS, it must still fit
        text = text.replace("verdant", "extraordinarily")
    kwargs = {k: " ".join(v.split()[:n]) if isinstance(v, str) and " " in v else v
              for k, v in kwargs.items()}
    ex = row.factory(text, **kwargs)
    ex.flush()
    assert len(ex.tokens) == n, ex.tokens
    return ex


#: Every example of every row of EXPLORERS (``examples``): name/variant.
TOKEN_EXPLORERS = [
    pytest.param((row, kwargs), id=f"{row.name}/{variant}" if variant else row.name,
                 marks=_needs(row))
    for row in EXPLORERS for variant, kwargs in row.examples.items()]


def _panels(layer):
    for value in vars(layer).values():
        for p in value if isinstance(value, list) else [value]:
            if isinstance(p, (panels.Heatmap, panels.Bars)) and p.ax.get_visible():
                yield p


def _ink_box(t, fig, height):
    """(x0, y0, x1, y1) of the drawn ink of ``t``, pixels, rows from the top."""
    x, y = t.get_transform().transform(t.get_position())
    mask, x0, y0 = engine.place_text(t, fig.dpi, x, y, height)
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return x0 + cols[0], y0 + rows[0], x0 + cols[-1] + 1, y0 + rows[-1] + 1


def _label_groups(ex):
    """Lists of the shown labels of each panel side (neighbours in order)."""
    for p in _panels(ex.artists):
        for name in ("row_text", "col_text"):
            shown = [t for t in getattr(p, name, []) if t.get_visible()
                     and t.get_text()]
            if shown:
                yield p, name, shown


def _check_token_labels(ex, min_px):
    fig = ex.figure
    width, height = (int(v) for v in fig.bbox.size)
    groups = list(_label_groups(ex))
    assert groups
    labels = {t.get_text() for _, _, shown in groups for t in shown}
    for p, name, shown in groups:
        image = p.ax.get_window_extent()
        image_top, image_bottom = height - image.y1, height - image.y0
        boxes = []
        for t in shown:
            assert _pixels(t.get_fontsize(), fig.dpi) >= min_px - 1e-9, t.get_text()
            box = _ink_box(t, fig, height)
            # inside the picture, and beside the image, not on it
            assert box[0] >= 0 and box[1] >= 0, t.get_text()
            assert box[2] <= width and box[3] <= height, t.get_text()
            if name == "row_text":
                assert box[2] <= image.x0, t.get_text()
            else:
                assert t.get_rotation() == 90, t.get_text()
                assert box[1] >= image_bottom, t.get_text()
            boxes.append(box)
        # neighbouring labels do not overlap (rows: vertically, columns:
        # horizontally)
        lo, hi = (1, 3) if name == "row_text" else (0, 2)
        for a, b, t in zip(boxes, boxes[1:], shown[1:]):
            assert a[hi] <= b[lo], (name, t.get_text(), a, b)
        assert image_top >= 0
    return labels


@pytest.mark.parametrize("n", [12, 16])
@pytest.mark.parametrize("case", TOKEN_EXPLORERS)
def test_token_labels_are_readable_and_do_not_overlap(case, n):
    ex = _token_explorer(case, n)
    # as many pixels as the 8 pt labels of helpers.figures.plots at 100 dpi
    labels = _check_token_labels(ex, _pixels(8, 100))
    # ordinary words are never cut (a highlighted one carries the mark first)
    labels = {lab.removeprefix(panels.MARK) for lab in labels}
    words = set(ex.tokens) | set(ex.key_tokens())
    for word in words - {"extraordinarily"}:
        assert any(lab == word or lab.startswith(word + " ") for lab in labels), word
    if ex.kind == "update_explorer":  # the weights after the words are kept
        rows = [t.get_text() for t in ex.artists.flow.row_text if t.get_visible()]
        assert rows == [f"{lab} ({w:.2f})" for lab, w in
                        zip([r.rsplit(" (", 1)[0] for r in rows[:-1]],
                            ex.weights)] + ["sum = dE"]
    if n == 16:  # the long word is cut to fit
        assert any(lab.startswith("extraord") and "\u2026" in lab
                   for lab in labels), labels
    ex.close()


@pytest.mark.parametrize("case", TOKEN_EXPLORERS)
def test_token_labels_of_long_sentences_shrink_to_at_least_10_px(case):
    ex = _token_explorer(case, 24)
    _check_token_labels(ex, engine.MIN_LABEL_PX)
    ex.close()


# --------------------------------------------------------------------------
# the training monitor of lesson 09
# --------------------------------------------------------------------------
class _FakeHandle:
    """Stands in for IPython's DisplayHandle: records every update."""

    def __init__(self):
        self.updates = []

    def update(self, obj, raw=False):
        self.updates.append((obj, raw))


def test_training_monitor_shows_text_and_a_picture_not_a_widget_repr():
    import base64

    monitor = W.TrainingMonitor(steps=300, title="loss")
    assert repr(monitor) == "<TrainingMonitor: 300 steps>"
    bundle = monitor._repr_mimebundle_()
    assert bundle["text/plain"] == "<TrainingMonitor: 300 steps>"
    assert "VBox" not in bundle["text/plain"]
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG") and b"Software" not in png
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == monitor.widget.model_id
    monitor.widget.close()


def test_training_monitor_records_the_finished_curve_only_at_the_end():
    monitor = W.TrainingMonitor(steps=4)
    handle = _FakeHandle()
    monitor._handles.append(handle)
    blank = monitor._repr_mimebundle_()["image/png"]
    for step, loss in ((2, 1.0), (3, 0.5)):
        monitor.update(step, loss)
    assert handle.updates == []                      # not finished yet
    monitor.update(4, 0.25)
    assert monitor.bar.value == 4 and monitor.label.value == "loss 0.250"
    assert len(handle.updates) == 1
    final, raw = handle.updates[0]
    assert raw and final["text/plain"] == "<TrainingMonitor: 4 steps>"
    assert final["image/png"] != blank
    # the same curve gives the same bytes (stored notebooks stay identical)
    again = W.TrainingMonitor(steps=4)
    for step, loss in ((2, 1.0), (3, 0.5), (4, 0.25)):
        again.update(step, loss)
    assert again._repr_mimebundle_()["image/png"] == final["image/png"]
    monitor.widget.close()
    again.widget.close()


def test_training_monitor_records_every_step_but_redraws_rarely():
    monitor = W.TrainingMonitor(steps=6, ylabel="cross-entropy + penalty",
                                 redraw_every=3)
    blank = monitor.image.value
    monitor.update(1, 2.0)
    monitor.update(2, 1.0)
    assert monitor.image.value == blank              # no redraw yet
    monitor.update(3, 0.5)
    after_three = monitor.image.value
    assert after_three != blank
    for step in (4, 5, 6):
        monitor.update(step, 0.1)
    assert monitor.steps == [1, 2, 3, 4, 5, 6]       # every point kept
    assert monitor.image.value != after_three       # last step redrawn
    monitor.widget.close()


def test_loss_figure_names_its_loss():
    fig = W.loss_figure([3.0, 2.0, 1.0], title="loss",
                        ylabel="cross-entropy + weight penalty")
    assert fig.axes[0].get_ylabel() == "cross-entropy + weight penalty"
    assert W.loss_figure([1.0]).axes[0].get_ylabel() == "training loss"


# --------------------------------------------------------------------------
# explorer stills: no text under 10 px, no wide empty margins (issue 13)
# --------------------------------------------------------------------------
def _shown_texts(fig):
    """Every text of the picture that is drawn: labels, numbers on bars and
    in cells, titles, tick labels, legends."""
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if not (t.get_visible() and t.get_text()):
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        yield t


def _margins(png):
    """White margins (left, right, top, bottom) of a PNG, in pixels."""
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(bytes(png))).convert("L"))
    ink = np.argwhere(img < 255)
    (top, left), (bottom, right) = ink.min(axis=0), ink.max(axis=0)
    return left, img.shape[1] - 1 - right, top, img.shape[0] - 1 - bottom


def _check_still(ex, min_px=engine.MIN_LABEL_PX):
    fig = ex.figure
    texts = list(_shown_texts(fig))
    assert texts
    for t in texts:
        assert _pixels(t.get_fontsize(), fig.dpi) >= min_px - 1e-9, t.get_text()
    margin = engine.MARGIN_PX * fig.dpi / engine.DPI
    assert max(_margins(ex.picture.value)) <= margin + 1, _margins(ex.picture.value)
    return texts


@pytest.mark.parametrize("n", [12, 24])
@pytest.mark.parametrize("case", TOKEN_EXPLORERS)
def test_explorer_stills_have_no_text_under_10_px_and_no_wide_margins(case, n):
    ex = _token_explorer(case, n)
    texts = _check_still(ex)
    # the numbers printed in cells and on bars are among them (so checked too)
    numbers = [t for p in _panels(ex.artists)
               for row in getattr(p, "cell_text", []) + getattr(p, "value_text", [])
               for t in row if t.get_visible() and t.get_text()]
    assert set(numbers) <= set(texts)
    if ex.kind in ("qk_explorer", "weighted_sum_explorer"):  # they print numbers
        assert numbers
    ex.close()


def test_parameter_calculator_still_is_readable_too():
    ex = W.parameter_calculator()
    texts = _check_still(ex)
    assert "1,572,864" in {t.get_text() for t in texts}  # a number on a bar
    ex.close()


def test_margins_are_trimmed_but_the_placeholder_keeps_its_picture():
    ex = W.multi_head_explorer(CREATURE, head="sense")  # one head: half the width
    full = int(ex.figure.bbox.width)
    assert _margins(ex.picture.value)[1] <= engine.MARGIN_PX + 1
    from PIL import Image

    width = Image.open(io.BytesIO(bytes(ex.picture.value))).size[0]
    assert width < 0.8 * full
    ex.sentence.value = ""
    assert Image.open(io.BytesIO(bytes(ex.picture.value))).size[0] == full
    ex.close()


# --------------------------------------------------------------------------
# one module per lesson, one table of explorers (issue 20)
# --------------------------------------------------------------------------
WIDGETS = ROOT / "helpers" / "widgets"
LESSON_MODULE = re.compile(r"helpers\.widgets\.lesson\d\d")


def _lesson_modules():
    return sorted(WIDGETS.glob("lesson[0-9][0-9].py"))


def test_every_row_is_its_lessons_module_and_every_explorer_has_a_row():
    assert len(EXPLORERS) >= 14
    assert len({row.name for row in EXPLORERS}) == len(EXPLORERS)
    assert len({row.tab for row in EXPLORERS}) == len(EXPLORERS)
    assert [row.lesson for row in EXPLORERS] == sorted(row.lesson for row in EXPLORERS)
    for row in EXPLORERS:
        assert row.factory.__module__ == f"helpers.widgets.lesson{row.lesson:02d}"
        assert row.factory.__doc__.startswith(f"Lesson {row.lesson:02d}:"), row.name
        assert getattr(W, row.name) is row.factory and row.name in W.__all__
        assert row.instruction and "\n" not in row.instruction, row.name
        assert len(row.instruction) <= 90, row.name
    # a lesson module per lesson with an explorer, and nothing else
    assert [int(p.stem[6:]) for p in _lesson_modules()] == sorted(
        {row.lesson for row in EXPLORERS})
    # every public factory documented "Lesson NN: ..." is in the table
    factories = set()
    for path in _lesson_modules():
        module = importlib.import_module(f"helpers.widgets.{path.stem}")
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) and obj.__module__ == module.__name__
                    and not name.startswith("_")
                    and (obj.__doc__ or "").startswith("Lesson ")):
                factories.add(name)
    assert factories == {row.name for row in EXPLORERS}


def _imported(node):
    """The modules an import statement names (``from a import b``: a and a.b)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = ("helpers.widgets" + ("." + node.module if node.module else "")
                if node.level else node.module or "")
        return [base] + [f"{base}.{a.name}" for a in node.names]
    return []


def test_lesson_modules_are_short_and_import_no_other_lesson_module():
    for path in _lesson_modules():
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 300, path.name
        own = f"helpers.widgets.{path.stem}"
        others = {m for node in ast.walk(ast.parse(text))  # lazy imports too
                  for m in _imported(node)
                  if LESSON_MODULE.fullmatch(m) and m != own}
        assert others == set(), f"{path.name} imports {sorted(others)}"


def _refers(node, names):
    """The explorer names that ``node`` itself refers to: ``W.pattern_explorer``,
    ``pattern_explorer`` or the string ``"pattern_explorer"``."""
    if isinstance(node, ast.Name):
        found = {node.id}
    elif isinstance(node, ast.Attribute):
        found = {node.attr}
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        found = {node.value}
    else:
        return set()
    return found & names


def _hand_written_lists(tree, names):
    """Literal lists, tuples, sets and dicts of ``tree`` whose items refer to
    three or more explorers (an item: a name, or a tuple/call holding one)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None] + node.values
        else:
            continue
        found = set()
        for item in items:
            found |= _refers(item, names)
            if isinstance(item, (ast.Tuple, ast.List)):
                parts = item.elts
            elif isinstance(item, ast.Call):
                parts = [item.func] + item.args
            else:
                parts = []
            for part in parts:
                found |= _refers(part, names)
        if len(found) >= 3:
            yield node.lineno, sorted(found)


def test_widget_modules_import_no_private_name_of_another_module():
    """The explorers' shared API has public names (``helpers.widgets.kit``):
    a leading underscore means "this module only"."""
    found = []
    for path in sorted(WIDGETS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "helpers"):
                found += [f"{path.name}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_")]
    assert found == []


def test_explorer_names_are_listed_in_exactly_one_table():
    names = {row.name for row in EXPLORERS}
    sources = [p for d in ("helpers", "tests", "tools")
               for p in (ROOT / d).rglob("*.py")]
    found = {}
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, which in _hand_written_lists(tree, names):
            found[f"{path.relative_to(ROOT)}:{line}"] = which
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            try:
                tree = ast.parse(source)
            except SyntaxError:  # a cell with IPython magics
                continue
            for line, which in _hand_written_lists(tree, names):
                found[f"{path.relative_to(ROOT)} cell {i}:{line}"] = which
    table = [k for k in found if k.startswith("helpers/widgets/__init__.py:")]
    assert len(table) == 1, found  # EXPLORERS
    del found[table[0]]
    assert found == {}, "explorer names listed outside helpers.widgets.EXPLORERS"



def _em(layout_width):
    return float(layout_width.removesuffix("em"))


def test_dropdowns_fit_their_longest_option():
    """Issue 22, point 18: "laye" for "layer 0". Every fitted dropdown gives
    its description its own width and the box at least 0.6 em a character of
    its longest option plus room for the arrow (the browser test measures the
    pixels)."""
    from helpers.widgets.controls import fit_dropdown

    for options, description in ((["layer 0", "layer 5"], "Layer:"),
                                 ([("all 12 heads", "all"), ("head 3", 3)], "Head:"),
                                 (["previous token", "sense"], "Head:")):
        box = fit_dropdown(options, description)
        longest = max(len(o[0] if isinstance(o, tuple) else o) for o in options)
        assert box.style.description_width == "initial"
        assert _em(box.layout.width) >= 0.6 * (len(description) + longest) + 3


def test_parameter_calculator_labels_stay_inside_the_frame():
    """The largest count (58 billion for GPT-3) is written inside its bar,
    right-aligned, so it does not run past the plot frame; the small ones
    stay after their bars."""
    ex = W.parameter_calculator()
    try:
        fig = ex.figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        frame = ex.artists.bars.ax.get_window_extent(renderer)
        texts = [t for t in ex.artists.bars.value_text[0] if t.get_visible()]
        assert texts
        for t in texts:
            box = t.get_window_extent(renderer)
            assert box.x1 <= frame.x1 + 1, (t.get_text(), box.x1, frame.x1)
        assert texts[-1].get_horizontalalignment() == "right"
        assert texts[0].get_horizontalalignment() == "left"
        ex.d_model.value = 10**6  # bigger still: still inside
        fig.canvas.draw()
        for t in ex.artists.bars.value_text[0]:
            if t.get_visible():
                assert t.get_window_extent(renderer).x1 <= frame.x1 + 1, t.get_text()
    finally:
        ex.close()
