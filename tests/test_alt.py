"""Text alternatives (issue 43): the builders of helpers.figures.alt against
hand-worked numbers, every figure function of lessons 00-10 (helpers.figures.plots,
diagrams, imageplots) says the numbers it drew, and every explorer of
lessons 00-10 says what its picture shows, follows its input and survives
bad input."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from helpers.world import images
from helpers.figures import plots
from helpers.attention import causal_mask
from helpers.figures import alt, charts, diagrams, imageplots
from helpers.widgets import EXPLORERS

TOKENS = ["the", "cat", "sat"]
#: a 3 x 3 pattern worked by hand: rows are queries
A = np.array([[0.7, 0.2, 0.1],
              [0.6, 0.3, 0.1],
              [0.05, 0.15, 0.8]])


# ------------------------------------------------------------ the builders ---
def test_number_rounds_to_three_digits_and_never_writes_minus_zero():
    assert alt.number(0.123456) == "0.123"
    assert alt.number(2 / 3) == "0.667"
    assert alt.number(-1e-17) == "0"
    assert alt.number(-0.0) == "0"
    assert alt.number(-0.0004) == "-0.0004"
    assert alt.number(1024) == "1024"  # whole numbers below a million stay whole
    assert alt.number(1234567) == "1.23e+06"
    assert alt.number(-np.inf) == "−∞"
    assert alt.number(np.nan) == "not a number"


def test_grid_names_each_querys_strongest_key():
    text = alt.grid(A, TOKENS, TOKENS)
    assert text.startswith("3 query rows × 3 key columns, weight from 0.05 to 0.8.")
    assert "'the' → 'the' 0.7; 'cat' → 'the' 0.6; 'sat' → 'sat' 0.8." in text


def test_grid_of_a_masked_row_says_none():
    shown = np.where(causal_mask(3), A, -np.inf)
    shown[0, 0] = np.nan  # row 0 has nothing left
    text = alt.grid(shown, TOKENS, TOKENS)
    assert "'the': none" in text and "'cat' → 'the' 0.6" in text
    assert alt.grid(np.full((2, 2), np.nan)).startswith("An empty grid")


def test_masked_counts_the_hidden_cells_and_what_remains():
    text = alt.masked(A, causal_mask(3), TOKENS, TOKENS)
    assert text.startswith("3 of 9 cells masked (every key after its query")
    assert "'the' → 'the' 0.7; 'cat' → 'the' 0.6; 'sat' → 'sat' 0.8" in text
    assert alt.masked(A, np.ones((3, 3), bool)).startswith("no cell is masked")


def test_habit_finds_a_previous_token_head_and_a_sink():
    previous = np.eye(4, k=-1)
    previous[0, 0] = 1.0
    assert alt.habit(previous)[0] == "previous"
    assert "in 3 of 3 rows" in alt.habit(previous)[1]
    sink = np.zeros((4, 4))
    sink[:, 0] = 1.0
    kind, phrase = alt.habit(sink, ["[CLS]", "a", "b", "c"])
    assert kind == "first" and "'[CLS]' (4 of 4)" in phrase
    assert alt.habit(A)[0] == "self"  # rows 'the' and 'sat': 2 of 3 look at themselves
    mixed = np.eye(4)[[1, 3, 0, 2]]  # strongest keys 1, 3, 0, 2: no habit
    assert alt.habit(mixed)[0] == "mixed"


def test_bars_series_and_slope_by_hand():
    assert alt.bars("w", ["a", "b", "c"], [0.2, 0.5, 0.3]) == (
        "w: 3 bars, tallest 'b' 0.5, 'c' 0.3, smallest 'a' 0.2")
    assert alt.series("loss", [1, 2, 3], [2.0, 3.0, 1.0]) == (
        "loss: 2 at 1 to 1 at 3, highest 3 at 2")
    assert alt.slope([1, 2, 4], [1, 4, 16]) == pytest.approx(2.0)
    assert alt.slope([1], [1]) is None


def test_labels_are_escaped_in_the_img_tag():
    fig = plots.heatmap(A, ["<b>&", "cat", "sat"], TOKENS)
    assert "'<b>&' → 'the' 0.7" in fig.alt_text
    tag = alt.img_html("AAAA", fig.alt_text)
    assert "<b>&" not in tag and "&lt;b&gt;&amp;" in tag
    assert html.unescape(re.search(r'alt="([^"]*)"', tag).group(1)) == fig.alt_text


# ------------------------------------------------- every figure function ---
def _figures(seed):
    """Every figure function of lessons 00-10, on numbers made from ``seed``."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(3), size=3)
    heads = rng.dirichlet(np.ones(3), size=(2, 3))
    picture = images.make_picture(seed + 8)
    sizes = np.array([256, 512, 1024])
    return {
        "heatmap": plots.heatmap(P, TOKENS, TOKENS),
        "video": plots.heatmap(P, TOKENS, TOKENS, convention="video"),
        "both_conventions": plots.both_conventions(P, TOKENS),
        "head_grid": plots.head_grid(heads, TOKENS, cells=[(0, 1, 1)]),
        "mask_view": plots.mask_view(np.tril(P), causal_mask(3), TOKENS),
        "model_heads": plots.model_heads(heads[None], TOKENS),
        "vector": plots.vector_view(rng.standard_normal(3), ["x", "y", "z"]),
        "vectors": plots.vector_view(rng.random((2, 3)), ["x", "y", "z"],
                                     labels=["u", "v"]),
        "bar_view": plots.bar_view(P[0], TOKENS, highlight=1),
        "loglog_cost": plots.loglog_cost(sizes, rng.random(3) * 1e-3 * sizes ** 2,
                                         sizes ** 2 / 1e4),
        "sense_by_layer": plots.sense_by_layer(rng.standard_normal((4, 3)),
                                               rng.standard_normal((3, 4, 2)),
                                               np.array([0, 0, 1, 1])),
        "loss_figure": charts.loss_figure(list(2.0 - rng.random(20).cumsum() / 20)),
        "block_diagram": diagrams.block_diagram(
            title=f"One encoder block ({seed})"),
        "pipeline_diagram": diagrams.pipeline_diagram(
            highlight=["Q", "S"][seed % 2], n=3 + seed, d_model=44, d_k=3, d_v=3),
        "picture_view": imageplots.picture_view(picture.pixels),
        "picture_objects": imageplots.picture_view(picture.pixels,
                                                   objects=picture.objects),
        "maps_view": imageplots.maps_view(picture.pixels, rng.random((2, 64)) * 0.2,
                                          ["red", "circle"]),
    }


@pytest.fixture(scope="module")
def figures():
    return _figures(0), _figures(1)


def test_every_figure_function_sets_an_alt_with_its_numbers(figures):
    for name, fig in figures[0].items():
        assert fig.alt, name  # set by the figure function, not the fallback
        assert len(fig.alt) >= 20, name
        assert re.search(r"\d", fig.alt), name
        assert fig.alt == alt.clip(fig.alt) or len(fig.alt) > alt.MAX_CHARS, name


def test_different_inputs_give_different_alts(figures):
    first, second = figures
    for name in first:
        assert first[name].alt != second[name].alt, name
    texts = [fig.alt for fig in first.values()]
    assert len(set(texts)) == len(texts)


def test_the_heatmap_alt_quotes_the_drawn_rows():
    fig = plots.heatmap(A, TOKENS, TOKENS, title="T")
    assert fig.alt.startswith("T. 3 query rows × 3 key columns")
    assert "'sat' → 'sat' 0.8" in fig.alt and "each row sums to 1" in fig.alt
    video = plots.heatmap(A, TOKENS, TOKENS, convention="video")
    assert "'sat' → 'sat' 0.8" in video.alt and "each column sums to 1" in video.alt


def test_the_head_grid_alt_gives_each_heads_habit_and_framed_cells():
    previous = np.eye(3, k=-1)
    previous[0, 0] = 1.0
    fig = plots.head_grid(np.stack([A, previous]), TOKENS, titles=["a", "b"],
                          cells=[(0, 2, 2)])
    assert "a: looks at itself (in 2 of 3 rows); strongest 'sat' → 'sat' 0.8" in fig.alt
    assert "b: looks back one token (in 2 of 2 rows)" in fig.alt
    assert "Framed cells: a 'sat' → 'sat' 0.8." in fig.alt


def test_the_curve_alts_say_start_end_and_slope():
    loss = charts.loss_figure([2.0, 1.5, 1.0, 0.5])
    assert "2 at 1 to 0.5 at 4" in loss.alt
    cost = plots.loglog_cost([256, 512, 1024], [1e-3, 4e-3, 1.6e-2])
    assert "1 at 256 to 16 at 1024" in cost.alt and "slope is about 2 " in cost.alt


def test_the_picture_alts_name_patches_by_row_and_column():
    picture = images.make_picture(8)
    fig = imageplots.picture_view(picture.pixels, objects=picture.objects)
    colour, shape, r, c = picture.objects[0]
    assert (f"a {colour} {shape} in patch rows {2 * r}-{2 * r + 1}, columns "
            f"{2 * c}-{2 * c + 1}") in fig.alt
    lit = np.zeros(64)
    lit[8 * 3 + 5] = 0.2
    maps = imageplots.maps_view(picture.pixels, lit[None], ["red"])
    assert "'red': brightest patch row 3, column 5 (0.2)" in maps.alt


# ------------------------------------------------------------- explorers ---
BAD = ["", "   ", "zzqx blorp", "🙂 bank 🙂", "<script>alert(1)</script> <b>&",
       "the cat " * 200]
LESSONS = [row for row in EXPLORERS if row.lesson <= 10]


@pytest.mark.parametrize("row", LESSONS, ids=lambda row: row.name)
def test_each_explorer_says_what_it_shows_and_follows_its_input(row):
    ex = row.factory()
    if row.name == "real_attention_explorer" and ex.model is None:
        assert "download the model" in ex.alt
        return
    first = ex.alt
    assert len(first) >= 20 and not first.startswith("Picture of the")
    assert ex.last_error is None
    if row.name == "parameter_calculator":
        ex.n_heads.value = 2
        assert ex.alt != first and "per head" in ex.alt
        return
    box = ex.sentence
    seen = {first}
    for text in BAD:
        box.value = text
        ex.flush()
        assert ex.last_error is None, (text, ex.last_error)
        assert len(ex.alt) >= 20, text
        seen.add(ex.alt)
    assert len(seen) >= 4  # the text changes with the input
    ex.close()


def test_explorer_alts_change_with_their_settings():
    from helpers import widgets as W

    pattern = W.pattern_explorer()
    before = pattern.alt
    pattern.temperature.value = 0.2
    assert pattern.alt != before and "T = 0.2" in pattern.alt
    mask = W.mask_explorer(step=2)
    assert "cells masked" in mask.alt
    mask.step.value = 4
    assert "Step 4, the output" in mask.alt
    heads = W.multi_head_explorer()
    assert "head 'previous token': looks back one token" in heads.alt
    heads.head.value = "sense"
    assert heads.alt.startswith("Several heads on one sentence: head 'sense' alone")


def test_the_calculator_prints_no_about_for_small_counts():
    from helpers import widgets as W

    calc = W.parameter_calculator(d_model=1, d_k=1, n_heads=1, n_layers=1)
    assert "per head (4 matrices): 4" in calc.lines
    assert not any("4 (4)" in line for line in calc.lines)
    assert "per block (1 head): 4" in calc.lines
    assert calc.lines[-1] == "all 1 layer: 4"
    big = W.parameter_calculator()
    assert "per head (4 matrices): 6,291,456 (about 6.3 million)" in big.lines


def test_the_real_model_explorer_without_its_model_says_what_to_do(monkeypatch):
    from helpers.widgets import lesson10

    monkeypatch.setattr(lesson10, "_shared_model",
                        lambda: (None, "No copy of the model here."))
    ex = lesson10.real_attention_explorer()
    assert "no picture, the model is not on this computer" in ex.alt
    assert "download the model once" in ex.alt
    assert ex.alt.endswith("Note: No copy of the model here.")
    ex.close()


def test_the_training_monitor_describes_its_curve():
    from helpers import widgets as W

    monitor = W.TrainingMonitor(steps=3, title="Loss", ylabel="loss")
    assert monitor.alt == "Loss: not started (3 steps to go)."
    for step, loss in enumerate([2.0, 1.0, 0.5], start=1):
        monitor.update(step, loss)
    assert monitor.alt == "Loss: step 3 of 3. loss: 2 at 1 to 0.5 at 3."
    bundle = monitor._repr_mimebundle_()
    assert 'alt="Loss: step 3 of 3.' in bundle["text/html"]


# ------------------------------------------------- the stored notebooks ---
def stored_alts(path):
    """The alt text of every stored picture of a notebook ("" for none)."""
    import json

    alts = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                found = re.search(r'alt="([^"]*)"', "".join(data.get("text/html", "")))
                alts.append(html.unescape(found.group(1)) if found else "")
    return alts


def test_every_stored_picture_of_lessons_00_to_10_has_its_own_alt():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "notebooks"
    paths = sorted(p for p in folder.glob("[01][0-9]_*.ipynb") if int(p.name[:2]) <= 10)
    assert len(paths) == 11
    for path in paths:
        alts = stored_alts(path)
        assert alts, path.name
        assert all(len(a) >= 20 for a in alts), path.name  # (a symbolic diagram
        # of lesson 07 has no number to say)
        assert len(set(alts)) == len(alts), path.name  # distinct within the lesson


# ---------------------------------------------- never over-claim (issue 54) ---
def test_a_flat_row_is_spread_out_not_looking_at_its_first_key():
    rng = np.random.default_rng(0)
    flat = np.full((3, 11), 1 / 11) + rng.uniform(-0.004, 0.004, (3, 11))
    flat /= flat.sum(axis=1, keepdims=True)
    words = [f"w{i}" for i in range(11)]
    text = alt.grid(flat, words[:3], words)
    assert "'w0' → spread out, all near 0.0909" in text
    assert "→ 'w" not in text  # no key named as the strongest
    assert alt.is_flat([0.5, 0.5]) and alt.is_flat([0.54, 0.46])
    assert not alt.is_flat([0.7, 0.3]) and not alt.is_flat([1.0])
    # 0.2 on one of 11 keys is more than a margin above 1/11: named
    peaked = np.full(11, 0.08)
    peaked[4] = 0.2
    assert alt.strongest(peaked, words) == "'w4' 0.2"


def test_a_flat_square_pattern_has_no_habit_and_no_strongest_cells():
    n = 11
    W = np.tril(np.ones((n, n)))  # causal and uniform over the allowed keys
    W = W / W.sum(axis=1, keepdims=True)
    W[0] = 0
    W[0, 0] = 1.0
    kind, phrase = alt.habit(np.full((n, n), 1 / n), [f"t{i}" for i in range(n)])
    assert kind == "spread" and "most queries look at" not in phrase
    text = alt.heads([np.full((n, n), 1 / n)], ["hand-built"])
    assert "strongest" not in text and "spread out" in text
    # a causal uniform pattern: row i spreads over its i + 1 keys
    assert alt.habit(W)[0] == "spread"


def test_ties_are_named_as_ties():
    assert alt.strongest([0.4, 0.4, 0.2], TOKENS) == "'the' and 'cat' tie at 0.4"
    assert alt.strongest([0.32, 0.32, 0.32, 0.04], TOKENS + ["on"]) == \
        "'the', 'cat', 'sat' tie at 0.32"
    text = alt.grid(np.array([[0.45, 0.45, 0.1], [0.1, 0.1, 0.8]]), TOKENS[:2], TOKENS)
    assert "'the' → 'the' and 'cat' tie at 0.45; 'cat' → 'sat' 0.8." in text
    # a row of ties casts no vote for "looks at its first key"
    tied = np.array([[0.5, 0.5, 0], [0.45, 0.45, 0.1], [0.4, 0.4, 0.2]])
    assert alt.habit(tied)[0] != "first"


def test_a_flat_row_of_scores_is_spread_out_against_the_grids_range():
    scores = np.array([[1.0, 1.01, 0.99], [5.0, -3.0, 0.0]])
    text = alt.grid(scores, ["a", "b"], TOKENS, what="score")
    assert "'a' → spread out, all near 1" in text and "'b' → 'the' 5" in text


def test_a_panel_the_figures_own_alt_leaves_out_is_described_too():
    from helpers.figures.common import AttentionFigure

    fig = AttentionFigure()
    left, right = fig.subplots(1, 2)
    left.plot([0, 1, 2], [3.0, 1.0, 2.0], label="loss")
    left.set_title("the loss")
    right.bar([0, 1], [0.25, 0.75])
    right.set_title("the shares")
    fig.alt = "Training: the loss falls from 3 to 2."
    assert alt.text_of(fig) == fig.alt  # nothing added unless a panel says so
    alt.panel(left, "the loss falls from 3 to 2")  # already said: not repeated
    assert alt.text_of(fig) == fig.alt
    alt.panel(right, "the shares: 'b' takes 0.75")
    assert alt.text_of(fig).endswith("Also: the shares: 'b' takes 0.75.")
    fig.alt_covers_panels = True
    assert alt.text_of(fig) == "Training: the loss falls from 3 to 2."


def test_a_panel_described_in_other_words_is_not_described_twice():
    fig = plots.both_conventions(A, TOKENS) if hasattr(plots, "both_conventions") \
        else None
    if fig is None:
        pytest.skip("no both_conventions")
    assert alt.missing_panels(fig, fig.alt) == []
