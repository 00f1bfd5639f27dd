"""The numbers travel with the picture (issue 51, helpers/widgets/pointer.py):
each explorer's map of the panels it drew, checked without a browser against
the explorer's own numbers and against the PNG's pixels."""

import io

import matplotlib
import numpy as np
import pytest
from PIL import Image

from helpers import widgets as W
from helpers.widgets import pointer

CREATURE = "a fluffy blue creature roamed the verdant forest"


def values(panel):
    return np.array([[float(v) for v in row] for row in panel["values"]])


def close_at_three_digits(shown, exact):
    """Texts rounded to 3 significant digits read back within 0.5% (or 1e-9)."""
    np.testing.assert_allclose(shown, exact, rtol=5e-3, atol=1e-9)


def pixel(ex, x, y):
    im = Image.open(io.BytesIO(bytes(ex.picture.value))).convert("RGB")
    return np.array(im.getpixel((int(x), int(y))), dtype=int)


def cell_centre(panel, r, c):
    x0, y0, x1, y1 = panel["box"]
    n, m = len(panel["rows"]), len(panel["cols"])
    return x0 + (c + 0.5) * (x1 - x0) / m, y0 + (r + 0.5) * (y1 - y0) / n


def viridis(v):
    lut = matplotlib.colormaps["viridis"].resampled(256)
    return np.round(np.array(lut(int(min(max(v, 0.0), 1.0) * 255.999))[:3]) * 255)


def test_pattern_map_is_the_weights_and_its_boxes_are_the_cells():
    ex = W.pattern_explorer(CREATURE)
    m = ex.panels
    (panel,) = m["panels"]
    assert m["size"] == list(Image.open(io.BytesIO(bytes(ex.picture.value))).size)
    assert panel["kind"] == "grid"
    assert panel["rows"] == ex.tokens and panel["cols"] == ex.tokens
    assert (panel["row_noun"], panel["col_noun"]) == ("query", "key")
    close_at_three_digits(values(panel), ex.weights)
    # the box is where the cells are: each cell's centre has its colour
    for r, c in [(0, 0), (3, 1), (7, 6), (5, 2)]:
        x, y = cell_centre(panel, r, c)
        assert np.abs(pixel(ex, x, y) - viridis(ex.weights[r, c])).max() <= 3
    # ... and a pixel just outside the box is not a cell (white margin/frame)
    x0, y0, x1, y1 = panel["box"]
    assert tuple(pixel(ex, x1 + 3, (y0 + y1) / 2)) == (255, 255, 255)
    # the labels reach left of the box and below it
    assert panel["labels_x0"] < x0 and panel["labels_y1"] > y1


def test_a_row_read_cell_by_cell_sums_to_one():
    ex = W.pattern_explorer(CREATURE)
    panel = ex.panels["panels"][0]
    for row in values(panel):
        assert abs(row.sum() - 1.0) <= 0.02


def test_every_head_of_lesson_07_is_one_panel_with_its_own_numbers():
    ex = W.multi_head_explorer(CREATURE)
    panels = ex.panels["panels"]
    assert [p["name"] for p in panels] == ["adjective", "sense", "previous token"]
    for k, p in enumerate(panels):
        close_at_three_digits(values(p), ex.weights[k])
        # the heads right of the first have no row labels drawn: the map
        # still names each row by its token
        assert p["rows"] == ex.tokens
    lefts = [p["box"][0] for p in panels]
    assert lefts == sorted(lefts) and len(set(lefts)) == 3
    text = pointer.readout(panels[2], 3, 2, named=True)
    assert text == (f"previous token, query 'creature' → key 'blue': "
                    f"{panels[2]['values'][3][2]}")
    assert float(text.rsplit(": ", 1)[1]) == pytest.approx(ex.weights[2][3, 2],
                                                           rel=5e-3)


def test_bars_are_charted_by_row_and_series():
    ex = W.weighted_sum_explorer()
    kinds = [p["kind"] for p in ex.panels["panels"]]
    assert kinds == ["bars", "bars", "grid"]
    weights = ex.panels["panels"][1]
    close_at_three_digits(values(weights)[:, 0], ex.weights)
    assert weights["rows"] == ex.tokens
    first = weights["values"][0][0]
    assert pointer.readout(weights, 0, 0) == f"'{ex.tokens[0]}': {first}"


def test_masked_cells_read_as_minus_infinity_not_zero():
    ex = W.mask_explorer(CREATURE, step=2)  # the scores after the mask
    panel = ex.panels["panels"][0]
    texts = panel["values"]
    shown = np.asarray(ex.shown, dtype=float)
    assert any(t in ("−∞", "masked") for row in texts for t in row)
    for r in range(len(texts)):
        for c in range(len(texts[r])):
            if np.isfinite(shown[r, c]):
                assert float(texts[r][c]) == pytest.approx(shown[r, c], rel=5e-3,
                                                           abs=1e-9)
            else:
                assert texts[r][c] in ("−∞", "masked")


def test_a_picked_query_names_its_three_largest_keys_and_clears():
    ex = W.pattern_explorer(CREATURE)
    before_alt = ex.alt
    message = pointer.pick(ex, 0, 3)
    row = ex.weights[3]
    top = np.argsort(-row, kind="stable")[:3]
    assert message.startswith("Picked 'creature': it looks most at ")
    for j in top:
        assert f"'{ex.tokens[j]}' {pointer.alt_text.number(row[j])}" in message
    assert message.index(f"'{ex.tokens[top[0]]}'", 10) < message.index(
        f"'{ex.tokens[top[2]]}'", 10)
    assert ex.picked == (0, 3) and "Picked 'creature'" in ex.alt
    # a new temperature: the pick stays and follows the new numbers
    ex.temperature.value = 0.3
    assert ex.message.count("Picked") == 1
    assert f"{pointer.alt_text.number(ex.weights[3].max())}" in ex.message
    # the same sentence shorter than the row: the pick is cleared
    ex.sentence.value = "a cat"
    assert ex.picked is None and "Picked" not in ex.message
    pointer.pick(ex, 0, 1)
    assert "Picked 'cat'" in ex.message
    assert pointer.pick(ex) == "" and ex.alt.count("Picked") == 0
    assert before_alt != ex.alt  # (another sentence now)


@pytest.mark.parametrize("bad", [(5, 0), (0, 99), (-1, 0), ("x", 0), (None, 2)])
def test_a_bad_pick_clears_and_never_raises(bad):
    ex = W.pattern_explorer(CREATURE)
    pointer.pick(ex, 0, 1)
    pointer.pick(ex, *bad)
    assert ex.picked is None and "Picked" not in ex.message


def test_the_widget_carries_the_map_and_brings_a_pick_back():
    ex = W.pattern_explorer(CREATURE)
    if ex.pointer is None:
        pytest.skip("anywidget is not installed")
    assert ex.pointer.panels == ex.panels
    assert ex.pointer in ex.children
    ex.pointer.selected = [0, 1]  # what a click on 'fluffy' sends
    assert ex.picked == (0, 1) and "Picked 'fluffy'" in ex.message
    ex.pointer.selected = []
    assert ex.picked is None and ex.message == ""


def test_an_empty_sentence_has_an_empty_map():
    ex = W.pattern_explorer("")
    assert ex.panels["panels"] == []
    assert pointer.pick(ex, 0, 0) == ex.message and ex.picked is None


#: The explorers whose ``.weights`` a grid of their picture shows (each
#: head a panel of its own when ``.weights`` holds several heads), and the
#: one whose weights are a chart's bars (lesson 02).
GRID_WEIGHTS = {0, 1, 4, 6, 7, 8, 9, 11, 13, 14}


def numbers(panel):
    """The panel's values, NaN where a cell reads "masked" or infinite."""
    out = np.full((len(panel["rows"]), len(panel["cols"])), np.nan)
    for i, row in enumerate(panel["values"]):
        for j, text in enumerate(row):
            try:
                out[i, j] = float(text)
            except ValueError:
                pass
    return out


def shows(panel, weights):
    v = numbers(panel)
    if v.shape != weights.shape:
        return False
    seen = np.isfinite(v)
    return seen.sum() >= v.size // 2 and np.allclose(v[seen], weights[seen],
                                                     rtol=5e-3, atol=1e-9)


def test_every_explorer_of_the_table_has_a_map_of_its_numbers():
    """One map per explorer, each panel well formed (boxes inside the PNG,
    one text per cell); the grids show ``.weights`` at 3 digits."""
    for row in W.EXPLORERS:
        if row.lesson == 10:
            continue  # a downloaded model (test_realmodel_widget)
        ex = row.factory()
        m = ex.panels
        assert m["panels"], f"{row.title}: no panel in the map"
        w, h = m["size"]
        for p in m["panels"]:
            x0, y0, x1, y1 = p["box"]
            assert 0 <= x0 < x1 <= w + 1 and 0 <= y0 < y1 <= h + 1, (row.title, p)
            assert len(p["values"]) == len(p["rows"])
            assert all(len(r) == len(p["cols"]) for r in p["values"])
        weights = np.asarray(ex.weights, dtype=float)
        grids = [p for p in m["panels"] if p["kind"] == "grid"]
        if row.title == "Picture":  # each asking word's 64 patches, 8 x 8
            assert len(grids) == len(ex.shown)
            for p, i in zip(grids, ex.shown):
                assert shows(p, weights[i].reshape(8, 8)), (row.title, p["name"])
        elif not weights.size:  # lesson 07's parameter counts: bars only
            assert [p["kind"] for p in m["panels"]] == ["bars"], row.title
        elif row.lesson in GRID_WEIGHTS and weights.ndim == 3:
            assert all(any(shows(p, weights[k]) for p in grids)
                       for k in range(len(grids))), row.title
        elif row.lesson in GRID_WEIGHTS:
            assert any(shows(p, weights) for p in grids), row.title
        elif row.lesson == 2:
            assert shows(m["panels"][1], weights[:, None]), row.title
        ex.close()


def test_the_fast_numbers_are_the_alt_texts_numbers():
    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.normal(size=200) * 10.0 ** rng.integers(-9, 8, size=200),
        [0.0, -0.0, 1e-13, -1e-13, 1.0, -3.0, 999999.0, 1e6, 2.5e6, 0.9995,
         -0.0004999, np.inf, -np.inf, np.nan, 0.5, 1 / 3, 123456.7]])
    fast = pointer._numbers(values[None, :])[0]
    assert fast == [pointer._number(v) for v in values]
