"""Lesson 12's explorer (helpers/widgets/lesson12.py): after every block the
running max, sum and output are those of the keys read so far, after the
last block the output is plain attention, the memory bar counts the scores
held at once, and every setting gives a message and a picture."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import pytest

from helpers import widgets as W
from helpers.attention import (
    causal_mask,
    scaled_dot_product_attention,
    sliding_window_mask,
    tiled_attention,
)
from helpers.widgets import lesson12
from helpers.widgets.base import MESSAGE_STYLE


@pytest.fixture(scope="module")
def explorer():
    ex = W.tiling_explorer()
    yield ex
    ex.close()


def _walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _walk(child)


def test_after_the_last_block_the_output_is_plain_attention(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 20, 6, 0
    explorer.step.value = explorer.step.max
    assert explorer.step.max == 4  # ceil(20 / 6)
    _, Q, K, V = lesson12.sweep_case(20)
    expected = scaled_dot_product_attention(Q, K, V, mask=causal_mask(20))[0]
    assert np.abs(explorer.output - expected).max() <= 1e-12
    tiled = tiled_attention(Q, K, V, block=6, causal=True)
    assert np.abs(tiled - expected).max() <= 1e-12
    assert "acc / l equals plain attention" in explorer.message
    assert explorer.last_error is None and explorer.picture.value


@pytest.mark.parametrize("step", [0, 1, 2, 3])
def test_the_running_state_covers_only_the_keys_read(explorer, step):
    explorer.n.value, explorer.block.value, explorer.window.value = 16, 5, 0
    explorer.step.value = step
    S = lesson12.sweep_case(16)[0]
    seen = np.arange(16)[None, :] < step * 5
    allowed = causal_mask(16) & seen
    expected_max = np.where(allowed, S, -np.inf).max(axis=1)
    assert np.array_equal(explorer.running_max, expected_max)
    expected_sum = np.where(allowed, np.exp(S - np.where(np.isfinite(expected_max),
                                                          expected_max, 0)[:, None]),
                            0).sum(axis=1)
    assert np.allclose(explorer.running_sum, expected_sum, atol=1e-12)
    grid = explorer.weights
    assert np.all(np.isnan(grid[~causal_mask(16)]))  # the future: grey
    assert np.all(np.isneginf(grid[causal_mask(16) & ~seen]))  # not read: white
    assert np.all((grid[allowed] > 0) & (grid[allowed] <= 1))
    rows = np.isfinite(expected_max)  # each row's largest seen score is exp(0) = 1
    assert np.allclose(np.nanmax(np.where(allowed, grid, np.nan)[rows], axis=1), 1)


def test_the_window_and_the_memory_bar(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 30, 4, 5
    explorer.step.value = explorer.step.max
    _, Q, K, V = lesson12.sweep_case(30)
    expected = scaled_dot_product_attention(Q, K, V, mask=sliding_window_mask(30, 5))[0]
    assert np.abs(explorer.output - expected).max() <= 1e-12
    assert np.all(np.isnan(explorer.weights[~sliding_window_mask(30, 5)]))
    assert explorer.memory == {"plain": 900, "tiled": 120, "band": 150}
    assert explorer.artists.mem.value_text[0][1].get_text() == "13%"


def test_a_block_that_raises_the_max_is_counted(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 24, 6, 0
    explorer.step.value = 2
    S = lesson12.sweep_case(24)[0]
    c = causal_mask(24)
    before = np.where(c & (np.arange(24) < 6), S, -np.inf).max(axis=1)
    after = np.where(c & (np.arange(24) < 12), S, -np.inf).max(axis=1)
    rose = int(np.sum(np.isfinite(after) & (after > before)))
    assert explorer.rescaled == rose > 0
    assert f"the max rose in {rose} rows" in explorer.message


@pytest.mark.parametrize("n, block, window, step, needle", [
    (1, 1, 0, 1, "acc / l equals plain attention"),
    (5, 48, 0, 1, "longer than the text"),
    (10, 3, 48, 2, "covers all 10 tokens"),
    (48, 1, 1, 48, "acc / l equals plain attention"),
    (12, 4, 0, 0, "No key read yet"),
    (10**6, -5, -1, 10**6, ""),
])
def test_any_setting_gives_a_message_and_a_picture(explorer, n, block, window,
                                                   step, needle):
    drawn = explorer.draw_count
    explorer.n.value, explorer.block.value = n, block
    explorer.window.value, explorer.step.value = window, step
    assert explorer.last_error is None and explorer.draw_count > drawn
    assert needle in explorer.message and explorer.picture.value
    assert 1 <= explorer.n.value <= lesson12.MAX_N
    assert 0 <= explorer.step.value <= explorer.step.max
    assert explorer.weights.shape == (explorer.n.value,) * 2


def test_changing_n_or_block_keeps_the_step_in_range(explorer):
    explorer.n.value, explorer.block.value = 40, 2
    explorer.step.value = 20
    explorer.block.value = 10
    assert explorer.step.max == 4 and explorer.step.value == 4
    assert explorer.last_error is None


def test_no_html_widgets_and_dom_classes(explorer):
    # the only HTML widget is the message line's fixed stylesheet
    assert [w.value for w in _walk(explorer) if isinstance(w, widgets.HTML)] == [
        MESSAGE_STYLE]
    for name in ("n", "block", "window", "step"):
        assert f"attn-{name}" in getattr(explorer, name)._dom_classes
    assert "tiling_explorer" in repr(explorer)


def test_factory_clamps_odd_arguments():
    ex = W.tiling_explorer(n="x", block=None, window=-3, step=float("nan"))
    assert ex.last_error is None and ex.n.value == 24 and ex.window.value == 0
    ex.close()


def test_the_sum_axis_stays_put_while_stepping(explorer):
    # the l axis is fixed per setting (the largest sum of any step), so the
    # bars do not seem to shrink when the axis would otherwise grow
    explorer.n.value, explorer.block.value, explorer.window.value = 24, 6, 0
    limits, sums = set(), []
    for step in range(explorer.step.max + 1):
        explorer.step.value = step
        limits.add(explorer.artists.sum.ax.get_xlim())
        sums.append(explorer.running_sum.max())
    assert len(limits) == 1
    (lo, hi), = limits
    assert lo == 0.0 and hi >= max(sums)


@pytest.mark.parametrize("n, block, window, step, said, not_said", [
    (1, 1, 0, 1, "The one block read", "1 blocks"),
    (12, 1, 0, 4, "(key 3)", "keys 3 to 3"),
    (12, 1, 0, 6, "the max rose in no row", "in 0 rows"),
    (24, 6, 0, 2, "(keys 6 to 11)", "rows, whose old sum and"),
])
def test_the_message_is_written_for_people(explorer, n, block, window, step, said,
                                           not_said):
    explorer.n.value, explorer.block.value = n, block
    explorer.window.value, explorer.step.value = window, step
    assert said in explorer.message and not_said not in explorer.message


def test_the_title_counts_blocks_and_keys_in_words(explorer):
    assert lesson12.plural(1, "block") == "1 block"
    assert lesson12.plural(4, "block") == "4 blocks"
    assert lesson12.key_range(3, 3) == "key 3"
    assert lesson12.key_range(3, 5) == "keys 3 to 5"
    explorer.n.value, explorer.block.value, explorer.window.value = 1, 1, 0
    explorer.step.value = 1
    title = explorer.artists.grid.title.get_text()
    assert title == "after 1 of 1 block, 1 key per block, causal", title
    explorer.n.value, explorer.block.value, explorer.window.value = 20, 6, 5
    explorer.step.value = 0
    title = explorer.artists.grid.title.get_text()
    assert title == "no block read yet, 6 keys per block, window 5", title


def test_no_band_bar_without_a_window(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 20, 5, 0
    explorer.step.value = 1
    assert explorer.memory["band"] is None
    shown = [t.get_text() for t in explorer.artists.mem.row_text if t.get_visible()]
    assert not any("band" in t for t in shown)
    explorer.window.value = 4
    shown = [t.get_text() for t in explorer.artists.mem.row_text if t.get_visible()]
    assert "band n\u00b7w" in shown
    assert "window 4" in explorer.artists.grid.title.get_text()


def test_keys_not_read_yet_are_coloured_and_framed(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 24, 6, 0
    explorer.step.value = 2
    assert lesson12.NOT_READ.lower() not in ("#ffffff", "#fff", "white")
    assert explorer.artists.grid.unread.get_visible()
    x0, _ = explorer.artists.grid.unread.get_xy()
    assert x0 == 12 - 0.5
    explorer.step.value = explorer.step.max
    assert not explorer.artists.grid.unread.get_visible()


def test_a_minus_infinite_max_is_an_arrow_not_a_bar(explorer):
    # with a window, rows whose allowed keys are not read yet have m = -inf:
    # an arrow at the left edge, no bar of 0, and the title says what it means
    explorer.n.value, explorer.block.value, explorer.window.value = 24, 6, 4
    explorer.step.value = 2
    unread = np.flatnonzero(np.isneginf(explorer.running_max))
    assert unread.size and explorer.last_error is None
    marks = explorer.artists.max.marks.get_offsets()
    assert sorted(np.asarray(marks)[:, 1].astype(int)) == unread.tolist()
    assert "\u2212\u221e" in explorer.artists.max.title.get_text()
    explorer.window.value = 0
    explorer.step.value = 2
    assert len(explorer.artists.max.marks.get_offsets()) == 0
    assert "\u221e" not in explorer.artists.max.title.get_text()


@pytest.mark.parametrize("n, block, window, said, not_said", [
    (1, 5, 0, "one block holds the one key", "all 1 keys"),
    (1, 1, 3, "covers the one token", "all 1 tokens"),
    (2, 5, 0, "all 2 keys", "the one key"),
])
def test_one_key_is_not_all_1_keys(explorer, n, block, window, said, not_said):
    explorer.n.value, explorer.block.value, explorer.window.value = n, block, window
    assert said in explorer.message and not_said not in explorer.message


def test_the_last_block_counts_its_rescaled_rows(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 24, 6, 0
    explorer.step.value = explorer.step.max
    rose = explorer.rescaled
    assert rose > 0
    assert f"the max rose in {rose} rows" in explorer.message
    assert "All 4 blocks read" in explorer.message


def test_the_text_alternative_tells_block_window_and_rows(explorer):
    explorer.n.value, explorer.block.value, explorer.window.value = 8, 3, 2
    explorer.step.value = 1
    alt = explorer.alt
    assert "block 1 of 3 read (keys 0 to 2" in alt and "a window of 2" in alt
    assert "3 keys per block" in alt and "plain 64, tiled 24, band 16" in alt
    for i in range(8):  # every row's m and l, -inf in words
        assert f"query {i}: m " in alt
    assert "m −∞, l 0" in alt
    explorer.step.value = 0
    assert "no block read yet" in explorer.alt


def test_a_first_allowed_key_is_not_counted_as_a_rescaling(explorer):
    # window 4, blocks of 6, block 2 (keys 6 to 11): rows 6 to 11 read their
    # first allowed key (their max was -inf: nothing to rescale); only rows
    # with a finite old max whose max rose were rescaled
    explorer.n.value, explorer.block.value, explorer.window.value = 24, 6, 4
    explorer.step.value = 2
    S = lesson12.sweep_case(24)[0]
    band = sliding_window_mask(24, 4)
    before = np.where(band & (np.arange(24) < 6), S, -np.inf).max(axis=1)
    after = np.where(band & (np.arange(24) < 12), S, -np.inf).max(axis=1)
    first = int(np.sum(np.isneginf(before) & np.isfinite(after)))
    rose = int(np.sum(np.isfinite(before) & (after > before)))
    assert (first, rose) == (explorer.first_read, explorer.rescaled) == (6, 3)
    said = "first allowed key read in 6 rows"
    assert said in explorer.message and "the max rose in 3 rows" in explorer.message
    assert "max rose in 9 rows" not in explorer.message
    assert said in explorer.alt and "the max rose in 3 rows" in explorer.alt


def test_one_row_reading_its_first_allowed_key_is_singular(explorer):
    # n 2, blocks of 1, window 1: block 2 (key 1) is row 1's first allowed key
    explorer.n.value, explorer.block.value, explorer.window.value = 2, 1, 1
    explorer.step.value = 2
    assert explorer.first_read == 1
    assert "first allowed key read in 1 row (its max was -inf" in explorer.message
