"""Projection mode (helpers.figures.style): one switch makes the figures of
helpers.figures.plots and every explorer larger on screen, and switching back
restores the normal sizes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.lines import Line2D
from PIL import Image

from helpers.figures import plots, style
from helpers import widgets as W
from helpers.widgets import base

TOKENS = "the fluffy blue creature roamed the verdant forest".split()


@pytest.fixture(autouse=True)
def normal_afterwards():
    # Explorers that earlier test files left open would all redraw at every
    # switch (as every explorer on a learner's screen should): close them, so
    # each test here times and checks only its own.
    from helpers.widgets import base

    for ex in list(base._LIVE):
        ex.close()
    yield
    style.projector(False)


def _px(t, fig):
    return t.get_fontsize() * fig.dpi / 72.0


def _size(png):
    return Image.open(io.BytesIO(bytes(png))).size


def _plot():
    A = np.full((len(TOKENS), len(TOKENS)), 1.0 / len(TOKENS))
    fig = plots.heatmap(A, TOKENS, TOKENS)
    png = fig._repr_png_()  # drawn as a notebook shows it
    ax = fig.axes[0]
    label = ax.get_yticklabels()[0]
    frame = max(s.get_linewidth() for s in ax.spines.values())
    return fig, _px(label, fig), frame, _size(png)


def _line_plot():
    fig = plots.loglog_cost([8, 16, 32], [1.0, 4.0, 16.0])
    fig._repr_png_()
    widths = [ln.get_linewidth() for ln in fig.findobj(Line2D) if ln.get_visible()
              and len(ln.get_xdata()) > 1]
    return max(widths)


def test_starts_normal():
    assert style.current() is style.NORMAL
    assert W.first_taste().figure.dpi == style.NORMAL.explorer_dpi


def test_projector_enlarges_the_labels_of_plots_and_switching_back_restores():
    fig, label, frame, size = _plot()
    line = _line_plot()
    assert style.projector() is style.PROJECTOR
    _, big_label, big_frame, big_size = _plot()
    assert big_label >= 1.4 * label  # pixels of a token label
    assert big_frame >= 1.5 * frame  # thicker axes lines
    assert _line_plot() >= 1.5 * line  # thicker plotted lines
    assert big_size[0] > 1.3 * size[0]
    assert style.projector(False) is style.NORMAL
    _, again, again_frame, again_size = _plot()
    assert (again, again_frame, again_size) == (label, frame, size)


def test_projector_enlarges_new_and_existing_explorers_and_back():
    shown = W.pattern_explorer(" ".join(TOKENS))  # already on screen
    label = shown.artists.heat.row_text[0]
    normal_px, normal_size = _px(label, shown.figure), _size(shown.picture.value)
    normal_png = bytes(shown.picture.value)
    draws = shown.draw_count
    style.projector()
    assert shown.draw_count == draws + 1  # redrawn at once, same inputs
    big = shown.artists.heat.row_text[0]
    assert big.get_text() == label.get_text()
    assert _px(big, shown.figure) == pytest.approx(1.5 * normal_px)
    assert _size(shown.picture.value)[0] > 1.4 * normal_size[0]
    new = W.pattern_explorer(" ".join(TOKENS))  # made in projection mode
    assert _size(new.picture.value) == _size(shown.picture.value)
    new.temperature.value = 2.0  # updates keep the large sizes
    assert new.figure.dpi == style.PROJECTOR.explorer_dpi
    style.projector(False)
    assert _px(shown.artists.heat.row_text[0], shown.figure) == normal_px
    assert bytes(shown.picture.value) == normal_png  # exactly as before
    assert new.figure.dpi == style.NORMAL.explorer_dpi  # both redrawn normal
    assert abs(_size(new.picture.value)[0] - normal_size[0]) <= 2
    shown.close()
    new.close()


def test_a_closed_explorer_is_left_alone():
    ex = W.first_taste()
    ex.close()
    draws = ex.draw_count
    style.projector()
    assert ex.draw_count == draws


def test_projector_enlarges_the_training_monitor():
    normal = _size(W.TrainingMonitor(steps=10).image.value)
    style.projector()
    big = _size(W.TrainingMonitor(steps=10).image.value)
    assert big[0] == pytest.approx(1.5 * normal[0], abs=2)


# --- issue 39: one sizing rule for every explorer ------------------------------
@pytest.mark.parametrize("row", W.EXPLORERS, ids=lambda r: r.name)
def test_every_explorer_fits_a_laptop_without_being_stretched(row):
    """Every explorer of the table (a new one included): its picture is never
    stretched to the cell's width, and it is capped so that the explorer fits
    the window's notebook area; its picture alone is drawn small enough for
    that at a laptop's 768 px window (so it is shown at its own pixels)."""
    from helpers.widgets import base

    ex = row.factory()
    try:
        layout = ex.picture.layout
        assert layout.align_self == "flex-start" and layout.width == "auto"
        assert layout.max_width == "100%" and layout.height == "auto"
        reserve = style.SCREEN_CHROME_PX + ex._controls_px + style.MESSAGE_PX
        assert layout.max_height == (f"max({style.MIN_PICTURE_PX}px, "
                                     f"calc(100vh - {reserve:.0f}px))")
        height = _size(ex.picture.value)[1]
        assert height <= style.LAPTOP[1] - reserve, (height, reserve)
        assert ex._controls_px == base.controls_height(
            ex.children[:len(ex._controls)]) > 0
        assert ex.children[len(ex._controls)] is ex.picture
    finally:
        ex.close()


def test_the_fit_runs_again_only_when_what_it_reads_changed():
    """The screen fit runs on every update (every keystroke): it fits again
    only when the sizes, the page's bars, the measured room or the height of
    a control that can grow (an HTML table) changed (``_fitted`` is what the
    last fit was made for)."""
    ex = W.parameter_calculator()  # its HTML table is part of its controls
    try:
        fitted = ex._fitted
        ex.n_layers.value = 95  # new numbers, the same lines: nothing to fit
        ex.d_k.value = 64
        assert ex._fitted is fitted and ex.update_count == 3
        ex.fit_screen(300)  # the page's bars: fitted again
        assert ex._fitted is not fitted
        reserve = 300 + ex._controls_px + style.MESSAGE_PX
        assert ex.picture.layout.max_height == (
            f"max({style.MIN_PICTURE_PX}px, calc(100vh - {reserve:.0f}px))")
        fitted = ex._fitted
        ex.fit_screen(300)
        assert ex._fitted is fitted
        with ex.quietly():
            ex.table.value += "<br>one more line"  # the HTML grew
        ex._fit_screen()
        assert ex._fitted is not fitted
        assert ex._controls_px == base.controls_height(ex._controls)
        assert ex.picture.layout.max_height == (
            f"max({style.MIN_PICTURE_PX}px, calc(100vh - "
            f"{300 + ex._controls_px + style.MESSAGE_PX:.0f}px))")
        fitted = ex._fitted
        style.projector()  # the sizes: fitted again
        assert ex._fitted is not fitted and "attn-projector" in ex._dom_classes
    finally:
        ex.close()


def test_projection_mode_grows_the_controls_and_the_room_they_take():
    ex = W.pattern_explorer()
    normal = ex.picture.layout.max_height
    assert "attn-projector" not in ex._dom_classes
    style.projector()
    assert "attn-projector" in ex._dom_classes
    assert ex.picture.layout.max_height != normal  # the controls take more room
    assert "--jp-widgets-font-size: 19.5px" in W.base.MESSAGE_STYLE
    style.projector(False)
    assert "attn-projector" not in ex._dom_classes
    assert ex.picture.layout.max_height == normal
    ex.fit_screen(300)
    assert "calc(100vh - " in ex.picture.layout.max_height and normal != \
        ex.picture.layout.max_height
    ex.close()


# -- every learner (issue 43): the explorer's access widget and stylesheet --
def test_every_explorer_carries_its_access_widget_with_its_alt_text():
    """anywidget works on ipywidgets 7.7 (Colab; tests/compat) and 8: every
    explorer carries one Access widget, hidden, whose ``alt`` is the
    picture's text alternative, and whose front end keeps every key but Tab."""
    from helpers.widgets import access

    ex = W.pattern_explorer()
    try:
        assert ex.access is not None and ex.access in ex.children
        assert ex.access.layout.display == "none"
        assert len(ex.alt) >= 20 and ex.access.alt == ex.alt
        before = ex.alt
        ex.temperature.value = 0.3
        assert ex.access.alt == ex.alt != before
        assert 'event.key !== "Tab"' in access._ESM and "stopPropagation" in access._ESM
        assert "aria-live" in access._ESM and "aria-label" in access._ESM
        assert access.FOCUS_CSS in base.MESSAGE_STYLE and ":focus" in access.FOCUS_CSS
    finally:
        ex.close()


def _png_of(width, height):
    import struct
    return (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR"
            + struct.pack(">II", width, height) + b"\x00" * 8)


def test_an_explorer_drawn_for_the_screen_fills_the_room_it_is_told():
    style.projector()  # 120 dpi: room to draw smaller (the fixture switches back)
    ex = W.pattern_explorer()
    try:
        ex.fit_screen(165, draw_for_screen=True)
        assert ex.access.measure
        w, h = base.png_size(ex.picture.value)
        dpi = ex.figure.dpi
        room = [int(w * 0.8), int(h * 0.8)]  # a short screen
        ex.access.room = room
        assert ex.figure.dpi < dpi and ex.picture.layout.max_height == f"{room[1]}px"
        w2, h2 = base.png_size(ex.picture.value)
        assert 0.85 * room[1] <= h2 <= room[1] + 2 and w2 <= room[0] + 2
        ex.access.room = [w * 10, h * 10]  # a huge one: at most MAX_SCREEN_DPI
        assert ex.figure.dpi == style.MAX_SCREEN_DPI
        ex.access.room = [10, 10]  # too small: never below MIN_SCREEN_DPI
        assert ex.figure.dpi == style.MIN_SCREEN_DPI
        assert base.png_size(b"not a png") is None
        assert base.png_size(_png_of(3, 4)) == (3, 4)
    finally:
        ex.close()


def test_projection_mode_draws_a_lesson_explorer_for_the_room_it_has():
    """In a lesson, projection mode draws the picture (and so its text) as
    large as the notebook area allows, and back at the normal sizes it is
    drawn as before."""
    ex = W.pattern_explorer()
    try:
        normal = base.png_size(ex.picture.value)
        style.projector()
        assert ex.access.measure
        ex.access.room = [normal[0] * 3, int(normal[1] * 1.8)]  # a large screen
        big = base.png_size(ex.picture.value)
        assert big[1] >= 1.7 * normal[1] and ex.figure.dpi >= 1.7 * 80
        style.projector(False)
        assert base.png_size(ex.picture.value) == normal and ex.figure.dpi == 80
        ex.access.room = [10, 10]  # ignored at the normal sizes
        assert ex.figure.dpi == 80
    finally:
        ex.close()
