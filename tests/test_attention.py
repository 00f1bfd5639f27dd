"""Tests of helpers/attention/core.py: hand-worked cases, invariants, extremes.

Conventions (DESIGN.md): rows are queries, columns are keys; a boolean mask is
True where a query may attend.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from helpers.attention import (
    causal_mask,
    cross_attention,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
)

RNG_SEED = 20240601


@pytest.fixture
def rng():
    return np.random.default_rng(RNG_SEED)


@pytest.fixture
def strict():
    """Any numpy floating-point problem or any warning fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            yield


def random_heads(rng, h, d_model, d_k, d_v, d_out=None, dtype=np.float64):
    d_out = d_model if d_out is None else d_out
    W_Q = rng.standard_normal((h, d_model, d_k)).astype(dtype)
    W_K = rng.standard_normal((h, d_model, d_k)).astype(dtype)
    W_V = rng.standard_normal((h, d_model, d_v)).astype(dtype)
    W_O = rng.standard_normal((h * d_v, d_out)).astype(dtype)
    return W_Q, W_K, W_V, W_O


# ---------------------------------------------------------------- softmax ---


def test_softmax_2x2_by_hand():
    # Row 0: scores [0, ln 3] -> exp = [1, 3], total 4 -> [1/4, 3/4].
    # Row 1: scores [ln 2, ln 2] are equal -> [1/2, 1/2].
    x = np.array([[0.0, math.log(3)], [math.log(2), math.log(2)]])
    np.testing.assert_allclose(softmax(x), [[0.25, 0.75], [0.5, 0.5]], rtol=1e-12)


def test_softmax_three_values_by_hand():
    # scores [1, 2, 3]: exp = [e, e^2, e^3]; divide by e^3 -> [e^-2, e^-1, 1],
    # total 1 + 1/e + 1/e^2 = 1.5032147...; weights [0.0900306, 0.2447285,
    # 0.6652410].
    np.testing.assert_allclose(
        softmax(np.array([1.0, 2.0, 3.0])),
        [0.09003057, 0.24472847, 0.66524096],
        atol=1e-8,
    )


def test_softmax_axis_zero_normalises_columns():
    # Column 0 holds [0, ln 3] -> [1/4, 3/4]; column 1 holds [5, 5] -> halves.
    x = np.array([[0.0, 5.0], [math.log(3), 5.0]])
    np.testing.assert_allclose(softmax(x, axis=0), [[0.25, 0.5], [0.75, 0.5]])


def test_softmax_rows_sum_to_one_and_shift_invariant(rng):
    x = rng.standard_normal((4, 5, 7)) * 10
    w = softmax(x)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    assert (w > 0).all()
    np.testing.assert_allclose(softmax(x + 123.0), w, rtol=1e-10)


def test_softmax_does_not_modify_its_input(rng):
    x = rng.standard_normal((3, 4))
    before = x.copy()
    softmax(x)
    np.testing.assert_array_equal(x, before)


def test_softmax_extreme_scores_no_overflow(strict):
    # Naive exp(1e4) overflows to inf and inf/inf is NaN. After subtracting
    # the max the row is [0, -2e4, -1e4] -> exp = [1, 0, 0]. The underflow to 0
    # is the intended weight and must not raise even under errstate("raise").
    w = softmax(np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]]))
    np.testing.assert_array_equal(w[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(w[1], [1 / 3, 1 / 3, 1 / 3])


def test_softmax_minus_inf_gives_exact_zero(strict):
    # [-inf, 0, ln 3]: the -inf column gets exactly 0, the rest [1/4, 3/4].
    w = softmax(np.array([-np.inf, 0.0, math.log(3)]))
    assert w[0] == 0.0
    np.testing.assert_allclose(w[1:], [0.25, 0.75])


def test_softmax_all_minus_inf_row_is_zeros_not_nan(strict):
    x = np.array([[-np.inf, -np.inf], [0.0, 0.0]])
    w = softmax(x)
    np.testing.assert_array_equal(w, [[0.0, 0.0], [0.5, 0.5]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_keeps_dtype(dtype):
    assert softmax(np.zeros((2, 3), dtype=dtype)).dtype == dtype


def test_softmax_integers_become_float():
    w = softmax(np.array([0, 0]))
    assert w.dtype == np.float64
    np.testing.assert_array_equal(w, [0.5, 0.5])


def test_softmax_empty_and_bad_input():
    assert softmax(np.zeros((0, 3))).shape == (0, 3)
    with pytest.raises(ValueError, match="dtype"):
        softmax(np.array(["a", "b"]))


# ------------------------------------------------------------ causal mask ---


def test_causal_mask_by_hand():
    expected = np.array([[True, False, False], [True, True, False], [True, True, True]])
    m = causal_mask(3)
    assert m.dtype == bool
    np.testing.assert_array_equal(m, expected)
    assert causal_mask(0).shape == (0, 0)
    np.testing.assert_array_equal(causal_mask(1), [[True]])


@pytest.mark.parametrize("bad", [-1, 2.5])
def test_causal_mask_rejects_bad_n(bad):
    with pytest.raises(ValueError, match="n"):
        causal_mask(bad)


# --------------------------------------------- scaled dot-product attention ---


def test_two_token_attention_by_hand():
    # d_k = 4, so the default scale is 1/sqrt(4) = 1/2.
    # Q = K = [[1, 1, 0, 0], [0, 0, 0, 0]]
    # raw scores Q K^T = [[2, 0], [0, 0]] -> scaled [[1, 0], [0, 0]]
    # row 0: softmax([1, 0]) = [e/(1+e), 1/(1+e)] = [0.7310586, 0.2689414]
    # row 1: softmax([0, 0]) = [0.5, 0.5]
    # V = [[10, 0], [0, 10]] -> output = 10 * weights.
    Q = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    V = np.array([[10.0, 0.0], [0.0, 10.0]])
    out, w = scaled_dot_product_attention(Q, Q, V)
    e = math.e
    expected_w = np.array([[e / (1 + e), 1 / (1 + e)], [0.5, 0.5]])
    np.testing.assert_allclose(w, expected_w, rtol=1e-12)
    np.testing.assert_allclose(out, 10 * expected_w, rtol=1e-12)
    np.testing.assert_allclose(w[0], [0.7310586, 0.2689414], atol=1e-7)


def test_explicit_scale_gives_exact_fractions():
    # scale = 1: one query q = [ln 3, 0] against keys e1, e2 -> scores
    # [ln 3, 0] -> weights [3/4, 1/4]; values [4, 0] and [0, 8]
    # -> output 3/4*[4, 0] + 1/4*[0, 8] = [3, 2].
    q = np.array([[math.log(3), 0.0]])
    K = np.eye(2)
    V = np.array([[4.0, 0.0], [0.0, 8.0]])
    out, w = scaled_dot_product_attention(q, K, V, scale=1.0)
    np.testing.assert_allclose(w, [[0.75, 0.25]], rtol=1e-12)
    np.testing.assert_allclose(out, [[3.0, 2.0]], rtol=1e-12)


def test_causal_attention_by_hand():
    # All scores equal (Q = 0), causal mask on 3 tokens: query i spreads its
    # weight evenly over keys 0..i:
    # [[1, 0, 0], [1/2, 1/2, 0], [1/3, 1/3, 1/3]]; V = [[3], [6], [9]]
    # -> outputs [3, (3+6)/2, (3+6+9)/3] = [3, 4.5, 6].
    Q = np.zeros((3, 2))
    K = np.ones((3, 2))
    V = np.array([[3.0], [6.0], [9.0]])
    out, w = scaled_dot_product_attention(Q, K, V, mask=causal_mask(3))
    third = 1 / 3
    np.testing.assert_allclose(
        w, [[1, 0, 0], [0.5, 0.5, 0], [third, third, third]], rtol=1e-12
    )
    np.testing.assert_allclose(out, [[3.0], [4.5], [6.0]], rtol=1e-12)


def test_default_scale_is_one_over_sqrt_dk(rng):
    Q, K, V = (rng.standard_normal((5, 16)) for _ in range(3))
    _, w_default = scaled_dot_product_attention(Q, K, V)
    _, w_explicit = scaled_dot_product_attention(Q, K, V, scale=0.25)
    np.testing.assert_allclose(w_default, w_explicit, rtol=1e-12)
    np.testing.assert_allclose(w_default, softmax(Q @ K.T / 4), rtol=1e-12)


def test_rows_sum_to_one_and_masked_weights_exactly_zero(rng):
    n = 6
    Q, K, V = (rng.standard_normal((n, 8)) * 3 for _ in range(3))
    mask = rng.random((n, n)) < 0.6
    mask[:, 0] = True  # every query keeps at least one key
    out, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    assert (w[~mask] == 0.0).all()
    assert (w[mask] > 0).all()
    np.testing.assert_allclose(out, w @ V, rtol=1e-12)


def test_permuting_tokens_permutes_the_output(rng):
    n = 7
    Q, K, V = (rng.standard_normal((n, 5)) for _ in range(3))
    perm = rng.permutation(n)
    out, w = scaled_dot_product_attention(Q, K, V)
    out_p, w_p = scaled_dot_product_attention(Q[perm], K[perm], V[perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-10)
    np.testing.assert_allclose(w_p, w[perm][:, perm], rtol=1e-10)
    # Shuffling only the key/value pairs changes nothing for the queries.
    out_kv, w_kv = scaled_dot_product_attention(Q, K[perm], V[perm])
    np.testing.assert_allclose(out_kv, out, rtol=1e-10)
    np.testing.assert_allclose(w_kv, w[:, perm], rtol=1e-10)


def test_self_attention_permutation_through_multi_head(rng):
    n, d_model = 6, 8
    E = rng.standard_normal((n, d_model))
    Ws = random_heads(rng, 3, d_model, 4, 2)
    perm = rng.permutation(n)
    dE, w = multi_head_attention(E, *Ws)
    dE_p, w_p = multi_head_attention(E[perm], *Ws)
    np.testing.assert_allclose(dE_p, dE[perm], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_p, w[:, perm][:, :, perm], rtol=1e-10)


@pytest.mark.parametrize("extreme", [1e4, -1e4])
def test_extreme_scores_no_nan_no_warning(strict, extreme):
    # scale = 1 and one-hot vectors put the extreme value straight into the
    # scores: query 0 vs key 0 scores `extreme`, every other score is 0.
    Q = np.array([[extreme, 0.0], [0.0, 0.0]])
    K = np.eye(2)
    V = np.array([[1.0], [2.0]])
    out, w = scaled_dot_product_attention(Q, K, V, scale=1.0)
    assert np.isfinite(out).all() and np.isfinite(w).all()
    expected_row0 = [1.0, 0.0] if extreme > 0 else [0.0, 1.0]
    np.testing.assert_array_equal(w[0], expected_row0)
    np.testing.assert_allclose(w[1], [0.5, 0.5])


def test_huge_scores_float32(strict):
    # 1e4 * 1e4 would overflow float32 in exp; after the max shift it is 0.
    Q = np.array([[100.0, 0.0]], dtype=np.float32)
    K = np.array([[100.0, 0.0], [-100.0, 0.0]], dtype=np.float32)
    _out, w = scaled_dot_product_attention(Q, K, K, scale=1.0)
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w, [[1.0, 0.0]])


def test_fully_masked_row_gives_zeros_no_nan_no_warning(strict, rng):
    Q, K, V = (rng.standard_normal((3, 4)) for _ in range(3))
    mask = np.array([[True, True, False], [False, False, False], [True] * 3])
    out, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    np.testing.assert_array_equal(w[1], 0.0)
    np.testing.assert_array_equal(out[1], 0.0)
    assert np.isfinite(w).all() and np.isfinite(out).all()
    np.testing.assert_allclose(w[[0, 2]].sum(axis=-1), 1.0)
    assert w[0, 2] == 0.0


def test_minus_inf_score_weight_exactly_zero(strict):
    # scale = 1; key 1 has a -inf coordinate that meets the query's 1, so its
    # score is -inf; key 0 scores 0 -> weights [1, 0].
    Q = np.array([[1.0]])
    K = np.array([[0.0], [-np.inf]])
    V = np.array([[5.0], [7.0]])
    out, w = scaled_dot_product_attention(Q, K, V, scale=1.0)
    np.testing.assert_array_equal(w, [[1.0, 0.0]])
    np.testing.assert_array_equal(out, [[5.0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_is_kept(dtype, rng):
    Q, K, V = (rng.standard_normal((4, 3)).astype(dtype) for _ in range(3))
    out, w = scaled_dot_product_attention(Q, K, V, mask=causal_mask(4))
    assert out.dtype == dtype and w.dtype == dtype
    E = rng.standard_normal((4, 6)).astype(dtype)
    Ws = random_heads(rng, 2, 6, 3, 3, dtype=dtype)
    dE, w = multi_head_attention(E, *Ws, mask=causal_mask(4))
    assert dE.dtype == dtype and w.dtype == dtype
    out, w = cross_attention(E[:2], E, Ws[0][0], Ws[1][0], Ws[2][0])
    assert out.dtype == dtype and w.dtype == dtype


def test_inputs_are_not_modified(rng):
    Q, K, V = (rng.standard_normal((4, 3)) for _ in range(3))
    copies = [a.copy() for a in (Q, K, V)]
    scaled_dot_product_attention(Q, K, V, mask=causal_mask(4))
    for a, b in zip((Q, K, V), copies):
        np.testing.assert_array_equal(a, b)


def test_batch_dims_equal_per_item_loop(rng):
    b, n, d = 3, 5, 4
    Q, K, V = (rng.standard_normal((b, n, d)) for _ in range(3))
    mask = causal_mask(n)
    out, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    assert out.shape == (b, n, d) and w.shape == (b, n, n)
    for i in range(b):
        out_i, w_i = scaled_dot_product_attention(Q[i], K[i], V[i], mask=mask)
        np.testing.assert_allclose(out[i], out_i, rtol=1e-12)
        np.testing.assert_allclose(w[i], w_i, rtol=1e-12)


def test_batch_dims_broadcast(rng):
    # Q has batch (2, 1), K and V batch (3,): result batch (2, 3).
    Q = rng.standard_normal((2, 1, 4, 5))
    K = rng.standard_normal((3, 6, 5))
    V = rng.standard_normal((3, 6, 2))
    out, w = scaled_dot_product_attention(Q, K, V)
    assert out.shape == (2, 3, 4, 2) and w.shape == (2, 3, 4, 6)
    for i in range(2):
        for j in range(3):
            o, a = scaled_dot_product_attention(Q[i, 0], K[j], V[j])
            np.testing.assert_allclose(out[i, j], o, rtol=1e-12)
            np.testing.assert_allclose(w[i, j], a, rtol=1e-12)


def test_mask_with_extra_batch_dims_broadcasts(rng):
    Q, K, V = (rng.standard_normal((3, 2)) for _ in range(3))
    masks = np.stack([causal_mask(3), np.ones((3, 3), dtype=bool)])
    _out, w = scaled_dot_product_attention(Q, K, V, mask=masks)
    assert w.shape == (2, 3, 3)
    np.testing.assert_allclose(
        w[0], scaled_dot_product_attention(Q, K, V, mask=masks[0])[1]
    )
    np.testing.assert_allclose(w[1], scaled_dot_product_attention(Q, K, V)[1])


def test_bad_shapes_name_the_shapes():
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(5, 6\)"):
        scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 6)), np.ones((5, 2)))
    with pytest.raises(ValueError, match=r"\(5, 4\).*\(6, 2\)"):
        scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((6, 2)))
    with pytest.raises(ValueError, match=r"\(4,\)"):
        scaled_dot_product_attention(np.ones(4), np.ones((5, 4)), np.ones((5, 2)))
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(3, 3\)"):
        scaled_dot_product_attention(
            np.ones((3, 4)),
            np.ones((3, 4)),
            np.ones((3, 2)),
            mask=np.ones((2, 2), bool),
        )
    with pytest.raises(ValueError, match="boolean"):
        scaled_dot_product_attention(
            np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 2)), mask=np.ones((3, 3))
        )
    with pytest.raises(ValueError, match=r"\(2, 3, 4\).*\(4, 3, 4\)"):
        scaled_dot_product_attention(
            np.ones((2, 3, 4)), np.ones((4, 3, 4)), np.ones((4, 3, 2))
        )


# ------------------------------------------------------ multi-head attention ---


def test_single_head_multi_head_equals_scaled_dot_product(rng):
    n, d_model, d_k, d_v = 5, 6, 3, 4
    E = rng.standard_normal((n, d_model))
    W_Q, W_K, W_V, W_O = random_heads(rng, 1, d_model, d_k, d_v)
    mask = causal_mask(n)
    dE, w = multi_head_attention(E, W_Q, W_K, W_V, W_O, mask=mask)
    out, a = scaled_dot_product_attention(E @ W_Q[0], E @ W_K[0], E @ W_V[0], mask=mask)
    assert w.shape == (1, n, n)
    np.testing.assert_allclose(w[0], a, rtol=1e-12)
    np.testing.assert_allclose(dE, out @ W_O, rtol=1e-10)
    # With W_O = identity the update is the head's output itself.
    dE_id, _ = multi_head_attention(E, W_Q, W_K, W_V, np.eye(d_v), mask=mask)
    np.testing.assert_allclose(dE_id, out, rtol=1e-12)


def test_multi_head_is_sum_of_per_head_updates(rng):
    n, d_model, h, d_k, d_v = 6, 8, 3, 4, 2
    E = rng.standard_normal((n, d_model))
    W_Q, W_K, W_V, W_O = random_heads(rng, h, d_model, d_k, d_v)
    dE, w = multi_head_attention(E, W_Q, W_K, W_V, W_O)
    assert dE.shape == (n, d_model) and w.shape == (h, n, n)
    total = np.zeros((n, d_model))
    concat = []
    for i in range(h):
        out_i, a_i = scaled_dot_product_attention(E @ W_Q[i], E @ W_K[i], E @ W_V[i])
        np.testing.assert_allclose(w[i], a_i, rtol=1e-12)
        W_up = W_O[i * d_v : (i + 1) * d_v]  # head i's value-up block
        total += out_i @ W_up
        concat.append(out_i)
    np.testing.assert_allclose(dE, total, rtol=1e-10, atol=1e-12)
    # The paper's form: concatenate the heads, multiply by W_O.
    np.testing.assert_allclose(dE, np.concatenate(concat, axis=1) @ W_O, rtol=1e-10)


def test_multi_head_by_hand_two_heads():
    # d_model = 2, one-dimensional heads (d_k = d_v = 1), so scale = 1.
    # E = [[1, 0], [0, 1]].
    # Head 0: W_Q = W_K = [[ln 3], [0]], so q = k = [ln 3, 0];
    #   scores q k^T = [[ln3^2, 0], [0, 0]].  Use instead W_Q = [[1],[0]],
    #   W_K = [[ln 3], [0]]: q = [1, 0], k = [ln 3, 0]
    #   -> scores [[ln 3, 0], [0, 0]] -> A0 = [[3/4, 1/4], [1/2, 1/2]].
    #   W_V = [[4], [8]] -> v = [4, 8] -> head 0 output [[5], [6]].
    # Head 1: W_Q = W_K = 0 -> uniform A1; W_V = [[0], [2]] -> v = [0, 2]
    #   -> head 1 output [[1], [1]].
    # W_O = [[1, 0], [0, 1]]: dE = [[5, 1], [6, 1]].
    E = np.eye(2)
    W_Q = np.array([[[1.0], [0.0]], [[0.0], [0.0]]])
    W_K = np.array([[[math.log(3)], [0.0]], [[0.0], [0.0]]])
    W_V = np.array([[[4.0], [8.0]], [[0.0], [2.0]]])
    W_O = np.eye(2)
    dE, w = multi_head_attention(E, W_Q, W_K, W_V, W_O)
    np.testing.assert_allclose(w[0], [[0.75, 0.25], [0.5, 0.5]], rtol=1e-12)
    np.testing.assert_allclose(w[1], 0.5, rtol=1e-12)
    np.testing.assert_allclose(dE, [[5.0, 1.0], [6.0, 1.0]], rtol=1e-12)


def test_multi_head_batch_equals_loop(rng):
    b, n, d_model, h = 3, 4, 6, 2
    E = rng.standard_normal((b, n, d_model))
    Ws = random_heads(rng, h, d_model, 3, 3)
    mask = causal_mask(n)
    dE, w = multi_head_attention(E, *Ws, mask=mask)
    assert dE.shape == (b, n, d_model) and w.shape == (b, h, n, n)
    for i in range(b):
        dE_i, w_i = multi_head_attention(E[i], *Ws, mask=mask)
        np.testing.assert_allclose(dE[i], dE_i, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(w[i], w_i, rtol=1e-12)


def test_multi_head_causal_masked_weights_zero(rng):
    n = 5
    E = rng.standard_normal((n, 4))
    _, w = multi_head_attention(E, *random_heads(rng, 3, 4, 2, 2), mask=causal_mask(n))
    upper = ~causal_mask(n)
    assert (w[:, upper] == 0.0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


def test_multi_head_bad_shapes_name_the_shapes(rng):
    E = np.ones((4, 6))
    W_Q, W_K, W_V, W_O = random_heads(rng, 2, 6, 3, 3)
    with pytest.raises(ValueError, match=r"\(4, 5\)"):
        multi_head_attention(np.ones((4, 5)), W_Q, W_K, W_V, W_O)
    with pytest.raises(ValueError, match=r"\(6, 3\)"):
        multi_head_attention(E, W_Q[0], W_K, W_V, W_O)
    with pytest.raises(ValueError, match=r"\(5, 6\)"):
        multi_head_attention(E, W_Q, W_K, W_V, np.ones((5, 6)))
    with pytest.raises(ValueError, match=r"\(3, 6, 3\)"):
        multi_head_attention(E, W_Q, W_K, np.ones((3, 6, 3)), W_O)
    with pytest.raises(ValueError, match=r"\(6,\)"):
        multi_head_attention(np.ones(6), W_Q, W_K, W_V, W_O)


# --------------------------------------------------------- cross-attention ---


def test_cross_attention_non_square(rng):
    n_q, n_s, d_q, d_s, d_k, d_v = 2, 5, 3, 4, 6, 7
    Xq = rng.standard_normal((n_q, d_q))
    Xs = rng.standard_normal((n_s, d_s))
    W_Q = rng.standard_normal((d_q, d_k))
    W_K = rng.standard_normal((d_s, d_k))
    W_V = rng.standard_normal((d_s, d_v))
    out, w = cross_attention(Xq, Xs, W_Q, W_K, W_V)
    assert w.shape == (n_q, n_s)
    assert out.shape == (n_q, d_v)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)  # each query row sums to 1
    ref_out, ref_w = scaled_dot_product_attention(Xq @ W_Q, Xs @ W_K, Xs @ W_V)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12)
    # A mask over the source: query 0 may not see source tokens 3 and 4.
    mask = np.ones((n_q, n_s), dtype=bool)
    mask[0, 3:] = False
    _, w_m = cross_attention(Xq, Xs, W_Q, W_K, W_V, mask=mask)
    assert (w_m[0, 3:] == 0).all()
    np.testing.assert_allclose(w_m.sum(axis=1), 1.0)


def test_cross_attention_by_hand():
    # One query token attends over a 3-token source; scale = 1/sqrt(1) = 1.
    # X_query = [[1]], W_Q = [[1]] -> q = 1.
    # X_source = [[0], [ln 2], [0]], W_K = [[1]] -> keys [0, ln 2, 0]
    # -> scores [0, ln 2, 0] -> exp [1, 2, 1] / 4 = [1/4, 1/2, 1/4].
    # W_V = [[4]] -> values [0, 4 ln 2, 0] -> output 2 ln 2.
    out, w = cross_attention(
        np.array([[1.0]]),
        np.array([[0.0], [math.log(2)], [0.0]]),
        np.array([[1.0]]),
        np.array([[1.0]]),
        np.array([[4.0]]),
    )
    np.testing.assert_allclose(w, [[0.25, 0.5, 0.25]], rtol=1e-12)
    np.testing.assert_allclose(out, [[2 * math.log(2)]], rtol=1e-12)


def test_cross_attention_batch_equals_loop(rng):
    Xq = rng.standard_normal((2, 3, 4))
    Xs = rng.standard_normal((2, 5, 4))
    W_Q, W_K, W_V = (rng.standard_normal((4, 2)) for _ in range(3))
    out, w = cross_attention(Xq, Xs, W_Q, W_K, W_V)
    assert w.shape == (2, 3, 5)
    for i in range(2):
        o, a = cross_attention(Xq[i], Xs[i], W_Q, W_K, W_V)
        np.testing.assert_allclose(out[i], o, rtol=1e-12)
        np.testing.assert_allclose(w[i], a, rtol=1e-12)


def test_cross_attention_bad_shapes_name_the_shapes():
    Xq, Xs = np.ones((2, 3)), np.ones((5, 4))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4, 6\)"):
        cross_attention(Xq, Xs, np.ones((4, 6)), np.ones((4, 6)), np.ones((4, 6)))
    with pytest.raises(ValueError, match=r"\(5, 4\).*\(3, 6\)"):
        cross_attention(Xq, Xs, np.ones((3, 6)), np.ones((3, 6)), np.ones((4, 6)))
    with pytest.raises(ValueError, match=r"\(3,\)"):
        cross_attention(
            np.ones(3), Xs, np.ones((3, 6)), np.ones((4, 6)), np.ones((4, 6))
        )
