"""Lesson 12's math (helpers/attention/core.py): tiled attention equals plain
attention, grouped-query attention equals multi-head attention when every
query head has its own K/V head, RoPE scores depend only on the offset, the
sliding-window mask is a causal band, and the KV-cache calculator gives the
published figures."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.attention import (
    causal_mask,
    grouped_query_attention,
    kv_cache_bytes,
    local_attention,
    multi_head_attention,
    rope,
    scaled_dot_product_attention,
    sliding_window_mask,
    tiled_attention,
)

RNG = np.random.default_rng(20240612)


def _qkv(n, d_k=8, d_v=5, n_q=None, scale=1.0):
    rng = np.random.default_rng(n * 31 + d_k)
    return (rng.standard_normal((n if n_q is None else n_q, d_k)) * scale,
            rng.standard_normal((n, d_k)) * scale, rng.standard_normal((n, d_v)))


# --- tiled attention ----------------------------------------------------------

@pytest.mark.parametrize("n, block", [(1, 1), (7, 3), (10, 4), (33, 8), (50, 64),
                                      (64, 64), (65, 16), (100, 7)])
@pytest.mark.parametrize("causal", [False, True])
def test_tiled_equals_plain_attention(n, block, causal):
    Q, K, V = _qkv(n)
    mask = causal_mask(n) if causal else None
    expected = scaled_dot_product_attention(Q, K, V, mask=mask)[0]
    got = tiled_attention(Q, K, V, block=block, causal=causal)
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() <= 1e-12


def test_tiled_with_large_scores_and_the_max_rising_late():
    """Scores of several hundred: without the running max exp would overflow;
    the largest score of every row sits in the last block."""
    n = 40
    Q, K, V = _qkv(n, scale=12.0)
    K[-3:] *= 4.0
    for causal in (False, True):
        mask = causal_mask(n) if causal else None
        with np.errstate(over="raise", invalid="raise"):
            got = tiled_attention(Q, K, V, block=6, causal=causal)
        expected = scaled_dot_product_attention(Q, K, V, mask=mask)[0]
        assert np.abs(got - expected).max() <= 1e-12


def test_tiled_keeps_batches_and_float32():
    Q = RNG.standard_normal((2, 3, 20, 4)).astype(np.float32)
    K = RNG.standard_normal((2, 3, 20, 4)).astype(np.float32)
    V = RNG.standard_normal((1, 3, 20, 6)).astype(np.float32)
    got = tiled_attention(Q, K, V, block=7, causal=True)
    expected = scaled_dot_product_attention(Q, K, V, mask=causal_mask(20))[0]
    assert got.dtype == np.float32 and got.shape == (2, 3, 20, 6)
    assert np.allclose(got, expected, atol=1e-5)


def test_tiled_with_fewer_keys_than_queries_and_no_keys():
    Q, K, V = _qkv(5, n_q=9)
    assert np.abs(tiled_attention(Q, K, V, block=2)
                  - scaled_dot_product_attention(Q, K, V)[0]).max() <= 1e-12
    out = tiled_attention(Q[:3], np.zeros((0, 8)), np.zeros((0, 5)), block=4)
    assert out.shape == (3, 5) and np.all(out == 0)


def test_tiled_never_builds_the_n_by_n_matrix():
    """Peak memory while it runs stays far below one (n, n) float64 matrix."""
    import tracemalloc

    n = 1024
    Q, K, V = _qkv(n, d_k=4, d_v=4)
    tracemalloc.start()
    got = tiled_attention(Q, K, V, block=16, causal=True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < n * n * 8 / 8  # an eighth of the (n, n) pattern's 8 MiB
    tracemalloc.start()
    scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))
    _, plain_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert plain_peak >= n * n * 8  # plain attention does hold it
    assert np.abs(got - scaled_dot_product_attention(
        Q, K, V, mask=causal_mask(n))[0]).max() <= 1e-12


@pytest.mark.parametrize("block", [0, -3, 2.5])
def test_tiled_rejects_bad_blocks(block):
    Q, K, V = _qkv(4)
    with pytest.raises(ValueError, match="block"):
        tiled_attention(Q, K, V, block=block)


# --- grouped-query attention ----------------------------------------------------

def _weights(h, g, d_model=12, d_k=4, d_v=3, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((h, d_model, d_k)),
            rng.standard_normal((g, d_model, d_k)),
            rng.standard_normal((g, d_model, d_v)),
            rng.standard_normal((h * d_v, d_model)))


def test_gqa_with_g_equal_h_is_multi_head_attention():
    E = RNG.standard_normal((7, 12))
    W_Q, W_K, W_V, W_O = _weights(4, 4)
    for mask in (None, causal_mask(7)):
        dE, w = grouped_query_attention(E, W_Q, W_K, W_V, W_O, mask=mask)
        dE2, w2 = multi_head_attention(E, W_Q, W_K, W_V, W_O, mask=mask)
        assert np.abs(dE - dE2).max() <= 1e-12 and np.abs(w - w2).max() <= 1e-12


@pytest.mark.parametrize("h, g", [(6, 2), (4, 1), (8, 4)])
def test_gqa_equals_mha_with_the_shared_heads_copied(h, g):
    """Query head i uses K/V head i // (h // g): copying the shared heads into
    a full multi-head layer gives the same result."""
    E = RNG.standard_normal((5, 12))
    W_Q, W_K, W_V, W_O = _weights(h, g, seed=h + g)
    group = np.arange(h) // (h // g)
    dE, w = grouped_query_attention(E, W_Q, W_K, W_V, W_O, mask=causal_mask(5))
    dE2, w2 = multi_head_attention(E, W_Q, W_K[group], W_V[group], W_O,
                                   mask=causal_mask(5))
    assert np.abs(dE - dE2).max() <= 1e-12 and np.abs(w - w2).max() <= 1e-12
    assert w.shape == (h, 5, 5)
    # heads of one group share their keys: with the same W_Q they attend alike
    W_Q_same = np.repeat(W_Q[:1], h, axis=0)
    _, w3 = grouped_query_attention(E, W_Q_same, W_K, W_V, W_O)
    assert np.allclose(w3[0], w3[h // g - 1])


def test_gqa_rejects_heads_that_do_not_split():
    W_Q, W_K, W_V, W_O = _weights(6, 4)
    with pytest.raises(ValueError, match="h % g"):
        grouped_query_attention(np.zeros((3, 12)), W_Q, W_K, W_V, W_O)


# --- rotary position embeddings ---------------------------------------------------

def test_rope_scores_depend_only_on_the_offset():
    Q, K, _ = _qkv(12, d_k=16)
    base = rope(Q) @ rope(K).T
    for shift in (1, 7, 1000, 123456):
        p = np.arange(12) + shift
        moved = rope(Q, p) @ rope(K, p).T
        assert np.abs(moved - base).max() <= 1e-10


def test_rope_one_query_and_key_at_many_positions():
    """The same q at m and k at n: the score is a function of m - n alone."""
    q, k = RNG.standard_normal((2, 1, 8))
    for offset in (0, 3, -5):
        scores = [(rope(q, [m + offset]) @ rope(k, [m]).T).item()
                  for m in (0, 4, 50, 999)]
        assert np.ptp(scores) <= 1e-10
    ahead = (rope(q, [3]) @ rope(k, [0]).T).item()
    behind = (rope(q, [0]) @ rope(k, [3]).T).item()
    assert abs(ahead - behind) > 1e-3  # the sign of the offset matters


def test_rope_preserves_lengths_and_position_zero():
    X = RNG.standard_normal((9, 10))
    assert np.allclose(np.linalg.norm(rope(X), axis=-1), np.linalg.norm(X, axis=-1),
                       atol=1e-12)
    assert np.array_equal(rope(X)[0], X[0])  # angle 0: nothing turns


def test_rope_hand_worked_two_dimensional_example():
    """d = 2: one pair, theta = base**0 = 1 radian per position."""
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    got = rope(X, positions=[0, np.pi / 2, np.pi])
    assert np.allclose(got, [[1, 0], [0, 1], [0, -2]], atol=1e-12)
    # d = 4, position 1: pair 0 turns by 1 radian, pair 1 by 100**(-2/4) = 0.1
    x = np.array([[1.0, 0.0, 1.0, 0.0]])
    got = rope(x, positions=[1], base=100.0)
    assert np.allclose(got, [[np.cos(1), np.sin(1), np.cos(0.1), np.sin(0.1)]])


def test_rope_angles_are_float64_far_into_a_text():
    """Shifting every position by 100,000 leaves the scores equal within 1e-9
    (float32 angles would move them by about 1e-3), float32 inputs included."""
    rng = np.random.default_rng(3)
    Q, K = rng.standard_normal((2, 16, 64))
    p = np.arange(16)
    base = rope(Q, p) @ rope(K, p).T
    far = rope(Q, p + 100_000) @ rope(K, p + 100_000).T
    assert np.abs(far - base).max() <= 1e-9
    q32, k32 = Q.astype(np.float32), K.astype(np.float32)
    near32 = rope(q32, p).astype(float) @ rope(k32, p).astype(float).T
    far = p + 100_000
    far32 = rope(q32, far).astype(float) @ rope(k32, far).astype(float).T
    assert np.abs(far32 - near32).max() <= 1e-4  # only float32's own rounding


def test_rope_batches_float32_and_rejects_odd_d():
    X = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    got = rope(X)
    assert got.dtype == np.float32 and got.shape == X.shape
    assert np.allclose(got[1, 2], rope(X[1, 2].astype(float)), atol=1e-5)
    with pytest.raises(ValueError, match="even"):
        rope(np.zeros((3, 5)))


# --- sliding-window mask --------------------------------------------------------

def test_sliding_window_hand_worked_mask():
    expected = np.array([[1, 0, 0, 0, 0],
                         [1, 1, 0, 0, 0],
                         [1, 1, 1, 0, 0],
                         [0, 1, 1, 1, 0],
                         [0, 0, 1, 1, 1]], dtype=bool)
    got = sliding_window_mask(5, 3)
    assert got.dtype == bool and np.array_equal(got, expected)
    assert np.array_equal(sliding_window_mask(4, 1), np.eye(4, dtype=bool))


@pytest.mark.parametrize("n", [1, 6, 20])
def test_a_window_as_wide_as_the_text_is_the_causal_mask(n):
    for w in (n, n + 1, 10 * n):
        assert np.array_equal(sliding_window_mask(n, w), causal_mask(n))


def test_each_row_sees_w_keys_and_layers_reach_further():
    n, w = 30, 4
    M = sliding_window_mask(n, w)
    assert list(M.sum(axis=1)) == [min(i + 1, w) for i in range(n)]
    # stacking: L layers of a width-w window reach (w - 1) * L tokens back
    reach = np.eye(n, dtype=int)
    for layers in range(1, 5):
        reach = (M.astype(int) @ reach > 0).astype(int)
        assert reach[-1].sum() == min(n, (w - 1) * layers + 1)


@pytest.mark.parametrize("w", [0, -1, 1.5])
def test_sliding_window_rejects_bad_widths(w):
    with pytest.raises(ValueError, match="window"):
        sliding_window_mask(5, w)


# --- the KV-cache calculator ------------------------------------------------------

def test_kv_cache_of_real_models():
    gpt3 = kv_cache_bytes(n_layers=96, n_kv_heads=96, d_head=128, bytes_per_value=2)
    assert gpt3 == 4_718_592 and round(gpt3 / 1e6, 1) == 4.7
    llama = kv_cache_bytes(n_layers=32, n_kv_heads=8, d_head=128)  # fp16 default
    assert llama == 128 * 1024
    # with all 32 heads cached (no GQA) Llama-3-8B would need 4 times as much
    assert kv_cache_bytes(32, 32, 128) == 4 * llama
    # lesson 11's small GPT: 4 layers x 6 heads x d_head 32 in float32
    assert kv_cache_bytes(4, 6, 32, bytes_per_value=4) == 6 * 1024


@pytest.mark.parametrize("n, w, block", [(1, 1, 1), (10, 3, 4), (37, 5, 8),
                                         (40, 64, 16), (65, 1, 7)])
def test_local_attention_equals_the_masked_plain_attention(n, w, block):
    Q, K, V = _qkv(n)
    expected = scaled_dot_product_attention(Q, K, V, mask=sliding_window_mask(n, w))[0]
    got = local_attention(Q, K, V, w, block=block)
    assert np.abs(got - expected).max() <= 1e-12


# --- lesson 12's figures say what they show -----------------------------------

def test_every_lesson_12_figure_sets_a_distinct_text_alternative():
    import matplotlib.pyplot as plt

    from helpers.figures import scaleplots

    figs = [
        scaleplots.memory_and_time([256, 512], [0.6, 1.9], [0.6, 2.1], [0.4, 1.5],
                                   [0.4, 0.8]),
        scaleplots.window_reach([sliding_window_mask(8, 3),
                                 sliding_window_mask(8, 3).astype(int)
                                 @ sliding_window_mask(8, 3).astype(int) > 0], 3),
        scaleplots.sink_heads(np.full((4, 6), 0.01), np.eye(4, 6) * 0.35,
                              {"no layer": 4.48, "layer 1 alone": 3.98},
                              chance_full=0.043, chance_window=0.111, full_loss=3.67),
    ]
    alts = [fig.alt for fig in figs]
    assert all(isinstance(a, str) and len(a) >= 20 for a in alts)
    assert len(set(alts)) == len(alts)
    assert "plain: 0.6 at 256 to 1.9 at 512" in alts[0]
    assert "after 2 layers the last token (7) reaches 5 tokens, keys 3 to 7" in alts[1]
    assert "most in layer 0 head 0 (0.35)" in alts[2]
    assert "layer 1 alone 3.98" in alts[2]
    assert "dashed line at 3.67" in alts[2]
    for fig in figs:
        plt.close(fig)
