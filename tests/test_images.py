"""Lesson 08's picture world (helpers/world/images.py,
helpers/figures/imageplots.py), its explorer (``image_explorer``) and its
exercise (``check_word_heatmap``): hand-worked numbers, invariants of the
cross-attention over patches, the checker's diagnoses and the explorer's
reactions to any caption."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import pytest

from helpers.world import images
from helpers.figures import imageplots
from helpers import widgets as W
from helpers.attention import cross_attention
from helpers.checks import check_word_heatmap
from tools.solutions import lesson08 as solutions

RED, GREEN, BLUE, CIRCLE, SQUARE, TRIANGLE, LEFT, RIGHT, TOP, BOTTOM = range(10)


def said(text: str) -> str:
    """A checker's printed message as one line per message (the checkers
    break their lines between words, ``helpers.checks._core.LINE_CHARS``)."""
    return " ".join(text.split()) + ("\n" if text.endswith("\n") else "")



def _blank():
    pixels = np.empty((images.SIZE, images.SIZE, 3))
    pixels[:] = images.BACKGROUND
    return pixels, np.zeros((images.SIZE, images.SIZE), dtype=int)


def _attend(words, picture=None):
    picture = picture or images.make_picture()
    F = images.patch_features(picture)
    caption = images.embed_caption(words)
    head = images.picture_head()
    out, A = cross_attention(caption.E, F, head.W_Q, head.W_K, head.W_V)
    return caption, F, out, A


# --------------------------------------------------------------------------
# hand-worked numbers
# --------------------------------------------------------------------------
def test_features_of_patches_with_known_pixels():
    pixels, labels = _blank()
    pixels[0:3, 0:12] = images.COLOURS["red"]  # 36 of patch 0's 144 pixels
    labels[0:3, 0:12] = 1 + images.SHAPES.index("circle")
    pixels[90:96, 84:96] = images.COLOURS["blue"]  # 72 of patch 63's pixels
    labels[90:96, 84:96] = 1 + images.SHAPES.index("triangle")
    pixels[12:24, 0:12] = (0.80, 0.25, 0.20)  # not quite red: still nearest red
    F = images.patch_features(images.Picture(pixels, labels, (), 0))
    assert F.shape == (64, images.D_MODEL) == (64, 10)
    np.testing.assert_allclose(F[0], [0.25, 0, 0, 0.25, 0, 0, 1, 0, 1, 0])
    np.testing.assert_allclose(F[63], [0, 0, 0.5, 0, 0, 0.5, 0, 1, 0, 1])
    np.testing.assert_allclose(F[8, :6], [1, 0, 0, 0, 0, 0])  # row 1, column 0
    # patch 4 is row 0, column 4: the right half, the top half, empty
    np.testing.assert_allclose(F[4], [0, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    assert images.FEATURES == ("red", "green", "blue", "circle", "square",
                               "triangle", "left", "right", "top", "bottom")


def test_patches_are_numbered_row_by_row():
    rows, cols = np.mgrid[0:images.SIZE, 0:images.SIZE]
    pieces = images.patches(rows * 1000 + cols)
    assert pieces.shape == (64, 12, 12)
    for j in (0, 1, 7, 8, 27, 63):
        r, c = divmod(j, 8)
        assert pieces[j, 0, 0] == (12 * r) * 1000 + 12 * c
        assert pieces[j, 11, 11] == (12 * r + 11) * 1000 + 12 * c + 11
    assert images.patches(np.zeros((96, 96, 3))).shape == (64, 12, 12, 3)
    grid = images.patch_grid(np.arange(64))
    assert grid.shape == (8, 8) and grid[3, 5] == 29 and grid[7, 0] == 56


def test_the_notebooks_patch_32_is_a_quarter_of_the_red_circle():
    picture = images.make_picture(8)
    assert ("red", "circle", 2, 0) in picture.objects
    F = images.patch_features(picture)
    red = np.all(np.isclose(images.patches(picture.pixels)[32],
                            images.COLOURS["red"]), axis=-1).sum()
    assert red == 69
    np.testing.assert_allclose(F[32], [69 / 144, 0, 0, 69 / 144, 0, 0, 1, 0, 0, 1])


def test_a_words_scaled_score_is_8_times_its_share():
    caption, F, _, _ = _attend("red left")
    head = images.picture_head()
    Q, K = caption.E @ head.W_Q, F @ head.W_K
    scores = Q @ K.T / np.sqrt(K.shape[1])
    np.testing.assert_allclose(scores[0], 8 * F[:, RED])
    np.testing.assert_allclose(scores[1], 8 * F[:, LEFT])


def test_caption_words_live_in_the_patches_feature_space():
    caption = images.embed_caption("A Red circles, the blorp on 😀 TOP")
    assert caption.tokens == ["a", "red", "circles", "the", "blorp", "on", "😀", "top"]
    assert caption.E.shape == (8, 10)
    assert caption.E[1, RED] == 1 and caption.E[2, CIRCLE] == 1
    assert caption.E[7, TOP] == 1 and caption.E.sum() == 3
    assert caption.asks.tolist() == [False, True, True, False, False, False, False,
                                     True]
    assert caption.function == ["a", "the", "on"]
    assert caption.outside == ["blorp", "😀"]
    assert images.embed_caption([]).E.shape == (0, 10)


# --------------------------------------------------------------------------
# the picture
# --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 8, 42])
def test_every_picture_has_each_colour_and_shape_twice_and_no_pair_twice(seed):
    picture = images.make_picture(seed)
    pairs = [(c, s) for c, s, _, _ in picture.objects]
    assert len(pairs) == len(set(pairs)) == 6
    for colour in images.COLOURS:
        assert sum(c == colour for c, _ in pairs) == 2
    for shape in images.SHAPES:
        assert sum(s == shape for _, s in pairs) == 2
    cells = [(r, c) for _, _, r, c in picture.objects]
    assert len(set(cells)) == 6
    painted = ~np.all(np.isclose(picture.pixels, images.BACKGROUND), axis=-1)
    assert np.array_equal(painted, picture.labels > 0)  # the label map is true
    again = images.make_picture(seed)
    assert np.array_equal(again.pixels, picture.pixels) and again.objects == \
        picture.objects


def test_different_seeds_make_different_pictures():
    assert images.make_picture(1).objects != images.make_picture(2).objects


# --------------------------------------------------------------------------
# cross-attention over the patches
# --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3, 8])
def test_colour_and_shape_words_look_at_their_patches(seed):
    words = list(images.COLOURS) + list(images.SHAPES)
    caption, F, _, A = _attend(words, images.make_picture(seed))
    assert A.shape == (6, 64)
    np.testing.assert_allclose(A.sum(axis=1), 1.0)
    for i, word in enumerate(words):
        k = images.FEATURES.index(word)
        has = F[:, k] > 0
        assert A[i, has].sum() > 0.7, word  # most weight on its patches
        assert A[i, has].max() > 5 * A[i, ~has].max(), word
        assert np.argmax(A[i]) in np.flatnonzero(F[:, k] == F[:, k].max())


def test_position_words_look_at_their_half_and_empty_words_everywhere():
    caption, F, out, A = _attend("left top the blorp")
    left, top = F[:, LEFT] == 1, F[:, TOP] == 1
    assert A[0, left].sum() > 0.99 and A[1, top].sum() > 0.99
    np.testing.assert_allclose(A[2], 1 / 64)  # a word that asks for nothing
    np.testing.assert_allclose(A[3], 1 / 64)
    np.testing.assert_allclose(out[2], F.mean(axis=0))  # brings back the average


def test_the_output_is_the_average_feature_vector_of_what_a_word_looks_at():
    caption, F, out, A = _attend("a red circle on the left")
    np.testing.assert_allclose(out, A @ F)
    assert out[1, CIRCLE] > out[1, SQUARE] and out[1, BOTTOM] > 0.85


def test_permuting_the_patches_permutes_the_columns_only():
    picture = images.make_picture()
    F = images.patch_features(picture)
    caption = images.embed_caption("red circle left")
    head = images.picture_head()
    out, A = cross_attention(caption.E, F, head.W_Q, head.W_K, head.W_V)
    perm = np.random.default_rng(0).permutation(64)
    out_p, A_p = cross_attention(caption.E, F[perm], head.W_Q, head.W_K, head.W_V)
    np.testing.assert_allclose(A_p, A[:, perm])
    np.testing.assert_allclose(out_p, out)


def test_both_features_in_one_query_single_out_the_red_circle():
    caption, F, _, _ = _attend("red circle")
    head = images.picture_head()
    both = caption.E.sum(axis=0, keepdims=True)
    _, A = cross_attention(both, F, head.W_Q, head.W_K, head.W_V)
    red_circle = (F[:, RED] > 0) & (F[:, CIRCLE] > 0)
    assert red_circle.sum() == 4 and A[0, red_circle].sum() > 0.95


# --------------------------------------------------------------------------
# the figures
# --------------------------------------------------------------------------
def test_overlay_lights_a_patch_by_its_weight():
    pixels = np.ones((96, 96, 3))
    values = np.zeros((8, 8))
    values[0, 0], values[0, 1] = imageplots.MAP_MAX, 5.0  # full, and more than full
    values[0, 2] = np.nan
    lit = imageplots.overlay(pixels, values)
    assert lit.shape == (96, 96, 3)
    assert np.all(lit[:12, :24] == 1.0)
    assert np.allclose(lit[12:, :], imageplots.FLOOR)  # weight 0: the floor
    assert np.allclose(lit[:12, 24:36], imageplots.FLOOR)  # NaN drawn as 0
    half = imageplots.brightness(imageplots.MAP_MAX / 2)
    assert half == pytest.approx((imageplots.FLOOR + 1) / 2, abs=0.01)


def test_maps_view_draws_one_panel_per_row():
    caption, F, _, A = _attend("red circle left")
    pixels = images.make_picture().pixels
    fig = imageplots.maps_view(pixels, A, caption.tokens, suptitle="x")
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.images]
    assert [ax.get_title() for ax in panels] == caption.tokens
    assert repr(fig).startswith("<figure")
    with pytest.raises(ValueError):
        imageplots.maps_view(pixels, A, ["one title"])
    assert imageplots.picture_view(pixels).axes[0].get_xlabel() == "patch column"


# --------------------------------------------------------------------------
# the exercise: a word's row as a map
# --------------------------------------------------------------------------
def test_the_solution_is_the_helpers_grid_and_passes(capsys):
    _, _, _, A = _attend("a red circle")
    np.testing.assert_array_equal(solutions.word_heatmap(A, 1, 8, 8),
                                  images.patch_grid(A[1]))
    assert check_word_heatmap(solutions.word_heatmap) is True
    assert said(capsys.readouterr().out).startswith("Correct:")


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


MISTAKES = {
    "column by column": lambda A, i, r, c: A[i].reshape(r, c, order="F"),
    "a column A[:, i]": lambda A, i, r, c: A[:, i].reshape(r, c),
    "Rows and columns are swapped": lambda A, i, r, c: A[i].reshape(c, r),
    "upside down": lambda A, i, r, c: A[i].reshape(r, c)[::-1],
    "mirrored": lambda A, i, r, c: A[i].reshape(r, c)[:, ::-1],
    "softmax again": lambda A, i, r, c: _softmax(A[i]).reshape(r, c),
    "rescaled": lambda A, i, r, c: (A[i] / A[i].max()).reshape(r, c),
    "the row of word 0, not of word 1": lambda A, i, r, c: A[i - 1].reshape(r, c),
    "the row as it is": lambda A, i, r, c: A[i],
    "all of A": lambda A, i, r, c: A,
    "a numpy array of numbers": lambda A, i, r, c: "a map",
}


@pytest.mark.parametrize("named", list(MISTAKES))
def test_the_checker_names_each_planted_mistake(named, capsys):
    assert check_word_heatmap(MISTAKES[named]) is False
    out = said(capsys.readouterr().out)
    assert out.startswith("Not quite:") and named in out, out
    assert out.count("\n") == 1  # one line


def test_the_checker_says_not_done_and_never_raises(capsys):
    def word_heatmap(A, i, n_rows, n_cols):
        raise NotImplementedError("Your turn")

    def in_place(A, i, n_rows, n_cols):
        A[i] = 0
        return A[i].reshape(n_rows, n_cols)

    assert check_word_heatmap(word_heatmap) is False
    assert said(capsys.readouterr().out).startswith("Not done yet:")
    assert check_word_heatmap(in_place) is False
    assert "changed its input A in place" in said(capsys.readouterr().out)
    assert check_word_heatmap(lambda *a: 1 / 0) is False
    assert "ZeroDivisionError" in said(capsys.readouterr().out)
    assert check_word_heatmap("not a function") is False
    assert said(capsys.readouterr().out).startswith("Not quite: pass your function")


# --------------------------------------------------------------------------
# the explorer
# --------------------------------------------------------------------------
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def explorer():
    ex = W.image_explorer()
    yield ex
    ex.close()


def _visible_panels(ex):
    return [p for p in ex.artists.panels if p.ax.get_visible()]


def test_the_explorer_shows_the_notebooks_numbers(explorer):
    ex = explorer
    ex.caption.value = "a red circle on the left"
    caption, F, _, A = _attend("a red circle on the left")
    assert ex.tokens == caption.tokens
    np.testing.assert_allclose(ex.weights, A)
    assert ex.weights.shape == (6, 64) and ex.message == ""
    assert ex.shown == [1, 2, 5] and ex.silent == ["a", "on", "the"]
    panels = _visible_panels(ex)
    assert [p.title.get_text() for p in panels] == ["the picture", "'red'",
                                                    "'circle'", "'left'"]
    assert "a, on, the" in ex.artists.note.get_text()
    # the red panel lights the red circle's patches, not the blue square's
    light = panels[1].image._light.reshape(8, 8)
    assert light[4, 0] == light.max() and light[4, 2] == light.min()
    assert bytes(ex.picture.value).startswith(PNG)
    assert ex.sentence is ex.caption and "attn-sentence" in ex.caption._dom_classes
    assert repr(ex) == "<image_explorer: 6 caption words x 64 patches>"


def test_the_picture_is_really_lit_where_red_looks(explorer):
    ex = explorer
    ex.caption.value = "red"
    buffer = np.asarray(ex._canvas.buffer_rgba())[:, :, :3].astype(float)
    H = buffer.shape[0]

    def patch(k, r, c):
        """Mean brightness of patch (r, c) in panel k, from the drawn pixels."""
        box = ex.artists.panels[k].ax.bbox
        w, h = box.width / 8, box.height / 8
        x0, y0 = box.x0 + c * w, H - box.y1 + r * h
        return buffer[int(y0) + 2:int(y0 + h) - 2, int(x0) + 2:int(x0 + w) - 2].mean()

    assert patch(1, 4, 0) > 2.5 * patch(1, 0, 4)  # red circle: lit; empty: dark
    assert patch(1, 4, 0) > 2.5 * patch(1, 4, 2)  # the blue square stays dark
    assert patch(0, 0, 4) > 200  # the picture panel: the light background
    assert patch(1, 0, 4) < 0.3 * patch(0, 0, 4)


LONG = " ".join(["the cat sat on the mat by the river bank"] * 30)
BAD = {
    "empty": ("", "Type a caption"),
    "whitespace": ("  \t\n", "Type a caption"),
    "punctuation": ("!!! ... ???", "No words"),
    "outside the vocabulary": ("blorptastic zzyzx the quux", "'blorptastic'"),
    "300 words": (LONG, "first 24 of 300"),
    "emoji": ("\U0001F600 red \U0001F389", "cannot draw are shown as '?'"),
    "html": ("<img src=x onerror=alert(1)> red", "'<'"),
    "script": ("</div><script>alert('hi')</script>", "no letters"),
    "digits": ("123 4.5", "no letters"),
    "control characters": ("red\x00circle\x1b[2J \u200b\u202e", ""),
    "long word": ("x" * 500, "caption vocabulary"),
    "too many words": ("red green blue circle square triangle left right top",
                       "first 7 of the 9"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_any_caption_gives_a_message_and_a_sensible_picture(explorer, case):
    ex = explorer
    text, said = BAD[case]
    ex.last_error = None
    draws = ex.draw_count
    ex.caption.value = text  # must not raise
    assert ex.last_error is None, repr(ex.last_error)
    assert ex.draw_count == draws + 1 and bytes(ex.picture.value).startswith(PNG)
    assert said in ex.message, ex.message
    assert ex.message_label.value == ex.message
    assert isinstance(ex.message_label, widgets.Label)  # plain text, never HTML
    assert len(ex.tokens) <= W.MAX_TOY_TOKENS
    assert ex.weights.shape == (len(ex.tokens), 64)
    assert np.all(np.isfinite(ex.weights))
    if ex.tokens:
        np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)
    panels = _visible_panels(ex)
    assert panels[0].title.get_text() == "the picture"  # always shown
    assert len(panels) == len(ex.shown) + 1 <= W.lesson08.MAX_WORDS + 1
    if not ex.tokens:
        assert ex.shown == [] and "Type a caption" in ex.artists.note.get_text()
    elif not any(images.embed_caption(ex.tokens).asks):
        assert len(ex.shown) == 1  # one flat picture, and the words named below
        np.testing.assert_allclose(ex.weights[ex.shown[0]], 1 / 64)


def test_the_explorer_is_in_the_table_and_the_playground():
    rows = [row for row in W.EXPLORERS if row.name == "image_explorer"]
    assert len(rows) == 1 and rows[0].lesson == 8 and rows[0].tab == "08 Picture"


def test_the_modules_stay_short():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "helpers"
    assert len((root / "world" / "images.py").read_text().splitlines()) <= 250
    assert len((root / "widgets" / "lesson08.py").read_text().splitlines()) <= 300
