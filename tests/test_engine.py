"""The drawing engine of the explorers, through its own small public API
(helpers.widgets.engine), without going through an explorer."""

from __future__ import annotations

import io
from collections import OrderedDict

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont
from PIL import Image

from helpers.figures.plots import number_text, short_label
from helpers.widgets import engine

FONT = findfont(FontProperties())


def _decode(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_png_bytes_round_trip_is_exact():
    rng = np.random.default_rng(0)
    rgba = rng.integers(0, 256, size=(7, 5, 4), dtype=np.uint8)
    png = engine.png_bytes(rgba)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    np.testing.assert_array_equal(_decode(png), rgba[:, :, :3])
    assert engine.png_bytes(rgba) == png  # the bytes depend only on the pixels


def test_text_bitmap_has_ink_and_rotation_swaps_the_sides():
    flat, ascent = engine.text_bitmap("bank", FONT, 12, 0.0)
    assert flat.dtype == np.uint8 and flat.max() == 255 and ascent > 0
    up, _ = engine.text_bitmap("bank", FONT, 12, 90.0)
    assert flat.shape[1] > flat.shape[0]  # wide
    assert up.shape[0] > up.shape[1]  # tall
    empty, _ = engine.text_bitmap("", FONT, 12, 0.0)
    assert empty.max() == 0


def test_render_png_draws_the_changing_artists_over_a_cached_background():
    fig = Figure(figsize=(2, 1), dpi=50)
    canvas = FigureCanvasAgg(fig)
    art = engine.FigureArtists(fig)
    label = art.text(0.5, 0.5, "", ha="center", va="center", fontsize=20)
    cache = OrderedDict()
    blank = _decode(engine.render_png(art, ("k",), cache, canvas))
    assert list(cache) == [("k",)] and (blank == 255).all()
    label.set_text("cat")
    drawn = _decode(engine.render_png(art, ("k",), cache, canvas))
    assert len(cache) == 1  # the background was reused
    assert (drawn < 128).any()  # black ink where the label is
    label.set_text("")
    again = _decode(engine.render_png(art, ("k",), cache, canvas))
    np.testing.assert_array_equal(again, blank)  # nothing left behind


def test_place_text_anchors_the_mask_like_matplotlib():
    fig = Figure(figsize=(2, 1), dpi=50)
    t = fig.text(0, 0, "word", ha="right", va="top", fontsize=10)
    mask, x0, y0 = engine.place_text(t, fig.dpi, 80, 40, 50)
    assert x0 + mask.shape[1] == 80  # right edge at the anchor
    assert y0 == 50 - 40  # top at the anchor (rows from the top)


@pytest.mark.parametrize("room", [10.0, 25.0, 60.0])
def test_fit_label_never_exceeds_its_room(room):
    cut = engine.fit_label("extraordinarily", 11, room)
    assert engine.label_width(cut, 11) <= room or cut == "\u2026"
    assert cut == "extraordinarily" or cut.endswith("\u2026")


def test_display_label_replaces_what_the_font_cannot_draw():
    assert engine.display_label("cat") == ("cat", False)
    label, replaced = engine.display_label("\ue000cat")  # a private-use character
    assert replaced and label == "?cat"
    assert engine.display_label("a\tb") == ("a b", False)
    long = "x" * 30
    assert engine.display_label(long)[0] == short_label(long, engine.LABEL_CHARS)


def test_label_sizes_shrink_with_many_tokens_but_stay_readable():
    sizes = [engine.label_size(n) for n in (1, 16, 17, 20, 24)]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[-1] * engine.DPI / 72 >= engine.MIN_LABEL_PX


@pytest.mark.parametrize("x,nice", [(0.7, 1.0), (1.3, 2.0), (3.0, 5.0), (0, 1.0),
                                    (-40, 50.0), (float("nan"), 1.0)])
def test_nice_limit(x, nice):
    assert engine.nice_limit(x) == pytest.approx(nice)


def test_number_text_never_writes_minus_zero():
    assert number_text(-1e-17) == "0.00"
    assert number_text(-0.004) == "0.00"
    assert number_text(-0.006) == "-0.01"
    assert number_text(-0.0, "{:.3g}") == "0"
    assert number_text(-2.5, "{:.1f}") == "-2.5"
