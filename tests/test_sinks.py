"""Lesson 12's attention-sink helpers (helpers/analysis/sinks.py): the masked
forward pass is lesson 11's GPT when the mask is causal, the masks and the
loss by hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.models import gpt
from helpers.attention import causal_mask, sliding_window_mask
from helpers.analysis import sinks


@pytest.fixture(scope="module")
def model():
    return gpt.load()


def test_with_the_causal_mask_it_is_the_gpt(model):
    ids = sinks.held_out_windows(model, 1, 40)[0]
    logits, attention = sinks.run_with_mask(model, ids, causal_mask(40))
    run = model.run(ids)
    assert np.allclose(logits, run.logits, atol=1e-4)
    assert np.allclose(attention, run.attention, atol=1e-6)
    assert np.allclose(sinks.next_token_loss(logits, ids), run.loss_per_position(),
                       atol=1e-4)


def test_a_window_hides_what_it_should(model):
    ids = sinks.held_out_windows(model, 1, 24)[0]
    mask = sinks.keep_mask(24, 5, keep=range(2))
    _, A = sinks.run_with_mask(model, ids, mask)
    assert np.all(A[..., ~mask] == 0)
    assert np.allclose(A.sum(axis=-1), 1)
    assert np.all(A[..., 20, :2].sum(axis=-1) > 0)  # the kept first tokens


def test_keep_mask_by_hand():
    m = sinks.keep_mask(6, 2, keep=[0])
    assert m.astype(int).tolist() == [
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0],
        [1, 0, 1, 1, 0, 0],
        [1, 0, 0, 1, 1, 0],
        [1, 0, 0, 0, 1, 1],
    ]
    assert np.array_equal(sinks.keep_mask(6, 2), sliding_window_mask(6, 2))
    assert np.array_equal(sinks.keep_mask(6, 6, keep=[0, 1]), causal_mask(6))


def test_next_token_loss_by_hand():
    # two equal logits: each next token has probability 1/2, loss ln 2
    logits = np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 9.0]])
    assert np.allclose(sinks.next_token_loss(logits, [0, 1, 0]), [np.log(2)] * 2)
    # a sure prediction costs nothing, the unlikely one ln(1 + e^10)
    logits = np.array([[10.0, 0.0], [0.0, 0.0]])
    assert np.allclose(sinks.next_token_loss(logits, [0, 0]), [np.log1p(np.exp(-10))])
    assert np.allclose(sinks.next_token_loss(logits, [0, 1]), [np.log1p(np.exp(10))])


def test_first_token_share_by_hand():
    A = np.zeros((1, 2, 3, 3))
    A[0, 0] = [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]]
    A[0, 1] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert np.allclose(sinks.first_token_share(A, [1, 2]), [[0.35, 0.0]])


def test_held_out_windows(model):
    W = sinks.held_out_windows(model, 3)
    assert W.shape == (3, model.context)
    text = sinks.PASSAGE.read_text(encoding="utf-8")
    assert np.array_equal(W.ravel(), model.encode(text)[:3 * model.context])
    with pytest.raises(ValueError, match="at most"):
        sinks.held_out_windows(model, 10**4)


def test_one_mask_per_layer_and_per_head(model):
    """A list of masks is one per layer; the same mask in every layer is the
    one-mask run; keep_in keeps the columns only where it is told to."""
    ids = sinks.held_out_windows(model, 1, 30)[0]
    window = sinks.keep_mask(30, 6)
    one = sinks.run_with_mask(model, ids, window)
    listed = sinks.run_with_mask(model, ids, [window] * model.n_layers)
    assert np.allclose(one[0], listed[0]) and np.allclose(one[1], listed[1])
    with pytest.raises(ValueError, match="one mask per layer"):
        sinks.run_with_mask(model, ids, [window])
    masks = sinks.keep_in(model, 30, 6, range(2), {(1, 5), 2})
    _, A = sinks.run_with_mask(model, ids, masks)
    first = A[..., 20:, :2].sum(axis=-1).min(axis=-1)   # (layers, heads)
    assert np.all(first[1, 5] > 0) and np.all(first[2] > 0)
    assert np.all(first[[0, 3]] == 0) and np.all(first[1, :5] == 0)


def test_kept_share_by_hand():
    A = np.zeros((1, 1, 3, 3))
    A[0, 0] = [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]]
    assert np.allclose(sinks.kept_share(A, [1, 2], [0, 1]), [[(1.0 + 0.5) / 2]])
    assert np.allclose(sinks.kept_share(A, [2], range(1)), [[0.2]])


def test_the_sink_figure_names_two_heads_and_where_the_loss_axis_starts():
    from helpers.figures import scaleplots

    full = np.zeros((4, 6))
    full[1, 5], full[0, 4] = 0.120, 0.101
    window = np.zeros((4, 6))
    window[1, 5], window[0, 4] = 0.35, 0.278
    fig = scaleplots.sink_heads(full, window, {"no layer": 4.48, "both": 3.87},
                                chance_full=0.043, chance_window=0.111,
                                full_loss=3.67)
    assert "most in layer 1 head 5 (0.35), then layer 0 head 4 (0.278)" in fig.alt
    assert "most in layer 1 head 5 (0.12), then layer 0 head 4 (0.101)" in fig.alt
    # the bars start at 3.67 - 0.3, rounded: the axis is not from 0, and says so
    assert "on an axis that starts at 3.4, not 0" in fig.alt
    assert "axis from 3.4" in fig.axes[2].get_xlabel()
    assert fig.axes[2].get_xlim()[0] == pytest.approx(3.4)
