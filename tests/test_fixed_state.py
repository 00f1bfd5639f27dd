"""Lesson 14's math (helpers/attention/fixed_state.py, re-exported by
helpers.attention): hand-worked numbers first, then invariants on seeded
random inputs."""

import numpy as np
import pytest

from helpers import attention
from helpers.attention import (delta_rule, elu_plus_one, linear_attention,
                               linear_attention_recurrent, state_bytes)


def identity(x):
    return x


def relu(x):
    return np.maximum(x, 0.0) + 1e-3  # kept positive, so rows have sums


def test_re_exported_from_attention():
    for name in ("linear_attention", "linear_attention_recurrent", "delta_rule"):
        assert name in attention.__all__
        assert getattr(attention, name).__module__ == "helpers.attention.fixed_state"


# ------------------------------------------------------------- hand-worked ---

def test_elu_plus_one_by_hand():
    got = elu_plus_one([0.0, 1.0, -1.0, 3.0, -800.0])
    assert np.allclose(got, [1.0, 2.0, np.exp(-1.0), 4.0, 0.0])
    assert np.all(elu_plus_one(np.linspace(-30, 30, 101)) > 0)


def test_linear_attention_by_hand():
    Q = np.array([[1.0, 0.0], [1.0, 1.0]])
    K = np.array([[1.0, 0.0], [0.0, 1.0]])
    V = np.array([[1.0, 2.0], [3.0, 4.0]])
    # phi(Q) phi(K)^T = [[1, 0], [1, 1]]; rows /1 and /2; times V
    got = linear_attention(Q, K, V, causal=True, feature_map=identity)
    assert np.allclose(got, [[1.0, 2.0], [2.0, 3.0]])
    # not causal: the first row also sees key 1, with weight 0
    assert np.allclose(linear_attention(Q, K, V, feature_map=identity),
                       [[1.0, 2.0], [2.0, 3.0]])
    # no normaliser: the plain sums
    assert np.allclose(linear_attention(Q, K, V, feature_map=identity,
                                        normalize=False), [[1.0, 2.0], [4.0, 6.0]])
    # elu + 1 by default: phi(Q) = [[2, 1], [2, 2]], phi(K) = [[2, 1], [1, 2]]
    A = np.array([[5.0, 4.0], [6.0, 6.0]])
    assert np.allclose(linear_attention(Q, K, V), (A / A.sum(1, keepdims=True)) @ V)


def test_recurrent_by_hand_and_its_state():
    Q = np.array([[1.0, 0.0], [1.0, 1.0]])
    K = np.array([[1.0, 0.0], [0.0, 1.0]])
    V = np.array([[1.0, 2.0], [3.0, 4.0]])
    out, S = linear_attention_recurrent(Q, K, V, feature_map=identity)
    assert np.allclose(out, [[1.0, 2.0], [2.0, 3.0]])
    assert np.allclose(S, K.T @ V)  # the sum of every k^T v


def test_delta_rule_overwrites_and_linear_attention_adds():
    K = np.array([[1.0, 0.0], [1.0, 0.0]])        # the same key twice
    V = np.array([[2.0], [5.0]])                  # first 2, then 5
    out, S = delta_rule(K, K, V, beta=np.ones(2))
    assert np.allclose(out, [[2.0], [5.0]]) and np.allclose(S, [[5.0], [0.0]])
    lin, S_lin = linear_attention_recurrent(K, K, V, feature_map=identity,
                                            normalize=False)
    assert np.allclose(lin, [[2.0], [7.0]]) and np.allclose(S_lin, [[7.0], [0.0]])


def test_delta_rule_beta_and_gate_by_hand():
    K = np.array([[1.0, 0.0], [1.0, 0.0]])
    V = np.array([[2.0], [5.0]])
    # beta 1/2: S1 = 1, then 1 - 0.5 * 1 + 0.5 * 5 = 3
    assert np.allclose(delta_rule(K, K, V, beta=[0.5, 0.5])[0], [[1.0], [3.0]])
    # orthogonal keys, the second step halves what was there
    K2, V2 = np.eye(2), np.array([[2.0], [3.0]])
    out, S = delta_rule(np.array([[1.0, 0.0], [1.0, 0.0]]), K2, V2, beta=[1, 1],
                        alpha=[1.0, 0.5])
    assert np.allclose(S, [[1.0], [3.0]]) and np.allclose(out, [[2.0], [1.0]])
    # alpha = 1 everywhere is plain DeltaNet
    rng = np.random.default_rng(0)
    Q, K, V = rng.standard_normal((3, 7, 4))
    beta = rng.uniform(0, 1, 7)
    assert np.allclose(delta_rule(Q, K, V, beta)[0],
                       delta_rule(Q, K, V, beta, alpha=np.ones(7))[0])


def test_delta_rule_recalls_d_k_orthogonal_pairs_exactly():
    rng = np.random.default_rng(1)
    d = 8
    K = np.linalg.qr(rng.standard_normal((d, d)))[0]  # orthonormal rows
    V = rng.standard_normal((d, 3))
    out, S = delta_rule(K, K, V, beta=np.ones(d))
    assert np.allclose(K @ S, V)                   # every pair read back exactly


def test_state_bytes_by_hand():
    assert state_bytes(36, 32, 128, 128) == 36 * 32 * 128 * 128 * 2


# ------------------------------------------------- against loops, invariants ---

def _loop_reference(Q, K, V, causal, phi, normalize):
    """Per query, the sum over the keys it sees: no matrices at all."""
    n = len(Q)
    out = np.zeros((n, V.shape[1]))
    for i in range(n):
        keys = range(i + 1) if causal else range(n)
        w = np.array([phi(Q[i]) @ phi(K[j]) for j in keys])
        if normalize:
            w = w / w.sum()
        out[i] = w @ V[list(keys)]
    return out


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("phi", [None, relu, np.exp], ids=["elu1", "relu", "exp"])
def test_linear_attention_equals_the_loop(causal, normalize, phi):
    rng = np.random.default_rng(2)
    Q, K, V = rng.standard_normal((3, 9, 5))
    ref = _loop_reference(Q, K, V, causal, phi or elu_plus_one, normalize)
    assert np.allclose(linear_attention(Q, K, V, causal=causal, feature_map=phi,
                                        normalize=normalize), ref)


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("phi", [None, relu], ids=["elu1", "relu"])
def test_recurrent_equals_parallel_causal(normalize, phi):
    rng = np.random.default_rng(3)
    Q, K, V = rng.standard_normal((3, 12, 6))
    out, S = linear_attention_recurrent(Q, K, V, feature_map=phi, normalize=normalize)
    assert np.allclose(out, linear_attention(Q, K, V, causal=True, feature_map=phi,
                                             normalize=normalize))
    f = phi or elu_plus_one
    assert np.allclose(S, f(K).T @ V) and S.shape == (6, 6)


def test_the_state_does_not_grow_with_n():
    rng = np.random.default_rng(4)
    for n in (3, 30, 300):
        Q, K, V = rng.standard_normal((3, n, 4))
        assert linear_attention_recurrent(Q, K, V)[1].shape == (4, 4)
        assert delta_rule(Q, K, V, np.full(n, 0.5))[1].shape == (4, 4)


def test_feature_map_of_other_width():
    rng = np.random.default_rng(5)
    Q, K, V = rng.standard_normal((3, 6, 3))

    def pairs(x):  # d_phi = 2 d
        return np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], axis=-1) + 0.1

    out, S = linear_attention_recurrent(Q, K, V, feature_map=pairs)
    assert S.shape == (6, 3)
    assert np.allclose(out, linear_attention(Q, K, V, causal=True, feature_map=pairs))


def _delta_loop(Q, K, V, beta, alpha):
    S = np.zeros((K.shape[1], V.shape[1]))
    out = []
    for t in range(len(K)):
        k = K[t][None, :]
        S = alpha[t] * (S - beta[t] * k.T @ (k @ S)) + beta[t] * k.T @ V[t][None, :]
        out.append(Q[t] @ S)
    return np.array(out), S


def test_heads_broadcast_like_one_head_each():
    rng = np.random.default_rng(6)
    h, n, d = 3, 10, 4
    Q, K, V = rng.standard_normal((3, h, n, d))
    beta, alpha = rng.uniform(0, 1, n), rng.uniform(0.5, 1, n)
    lin = linear_attention(Q, K, V, causal=True)
    rec, S = linear_attention_recurrent(Q, K, V)
    dq, Sd = delta_rule(Q, K, V, beta, alpha)
    assert lin.shape == rec.shape == dq.shape == (h, n, d)
    assert S.shape == Sd.shape == (h, d, d)
    for i in range(h):
        assert np.allclose(lin[i], linear_attention(Q[i], K[i], V[i], causal=True))
        assert np.allclose(rec[i], lin[i])
        ref_out, ref_S = _delta_loop(Q[i], K[i], V[i], beta, alpha)
        assert np.allclose(dq[i], ref_out) and np.allclose(Sd[i], ref_S)
    # a gate per head: (h, n)
    betas = rng.uniform(0, 1, (h, n))
    per_head = delta_rule(Q, K, V, betas)[0]
    for i in range(h):
        assert np.allclose(per_head[i], _delta_loop(Q[i], K[i], V[i], betas[i],
                                                    np.ones(n))[0])


def test_float32_stays_float32_and_no_exp_of_scores():
    rng = np.random.default_rng(7)
    Q, K, V = (rng.standard_normal((3, 8, 4)) * 60).astype(np.float32)
    # scores of about 60 * 60 * 4: exp would overflow; phi(q).phi(k) does not
    out = linear_attention(Q, K, V, causal=True)
    assert out.dtype == np.float32 and np.all(np.isfinite(out))
    assert linear_attention_recurrent(Q, K, V)[0].dtype == np.float32


def test_bad_shapes_are_told():
    with pytest.raises(ValueError, match="same width"):
        linear_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="one number per token"):
        delta_rule(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), beta=[1.0])


# ------------------------------------------------------------- the figures ---

def _figures(shift=0.0):
    from helpers.figures import fixedplots as F

    n = [64, 128, 256]
    Ns = [4, 8, 16, 32]
    rng = np.random.default_rng(int(round(shift * 100)))
    A = rng.random((3, 3))
    A /= A.sum(1, keepdims=True)
    return {
        "cost": F.cost_curves(n, [1.0 + shift, 2, 8], [1.5, 1.8, 2.5], [1, 4, 16],
                              [1, 2, 4]),
        "decode": F.decode_steps(n, [0.1 + shift, 0.2, 0.4], [0.1] * 3, [1, 2, 4],
                                 [0.5] * 3),
        "patterns": F.two_patterns(["a", "b", "c"], A, A[::-1]),
        "recall": F.recall_curves(Ns, {"softmax": [1.0] * 4,
                                       "linear": [1, 0.95, 0.85 - shift, 0.5]}, d_k=16),
        "position": F.recall_by_position(np.arange(4), {"delta": [0.4 + shift, 0.6,
                                                                  0.9, 1.0]}, N=4),
        "gate": F.gate_forgetting(np.arange(4), {1.0: [0.4, 0.6, 0.9, 1.0],
                                                 0.8: [0.1 + shift, 0.3, 0.8, 1]}, N=4),
        "copy": F.copy_curves([8, 16, 32], {"softmax": [1, 1, 1],
                                            "delta": [0.9 - shift, 0.6, 0.4]}, d=16),
    }


def test_every_figure_sets_a_distinct_alt_from_its_numbers():
    first, second = _figures(), _figures(0.05)
    for name, fig in first.items():
        assert fig.alt and len(fig.alt) >= 20 and any(c.isdigit() for c in fig.alt)
        assert fig.alt != second[name].alt, name
    assert len({f.alt for f in first.values()}) == len(first)
    assert "below 90% from N = 16" in first["recall"].alt
    assert "never below 90%" in first["recall"].alt
    assert "faster from n = 128" in first["cost"].alt


# ---------------------------------------------------- optional: QK-norm ---

@pytest.mark.parametrize("qk_norm", [False, True])
def test_qknorm_gradients_match_finite_differences(qk_norm):
    from helpers.models import qknorm

    params, A = qknorm.init(d=4, seed=3)
    params = [p + 0.1 * np.random.default_rng(i).standard_normal(p.shape)
              for i, p in enumerate(params)]
    X, target = qknorm.batch(np.random.default_rng(4), A, size=5, n=6)
    _, grads, _, _ = qknorm.loss_and_grads(params, X, target, qk_norm)
    eps = 1e-6
    for i, p in enumerate(params):
        if not qk_norm and i >= 2:
            assert not grads[i].any()          # the gains are unused without the norm
            continue
        for idx in list(np.ndindex(p.shape))[:6]:
            plus = [q.copy() for q in params]
            minus = [q.copy() for q in params]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            fd = (qknorm.loss_and_grads(plus, X, target, qk_norm)[0]
                  - qknorm.loss_and_grads(minus, X, target, qk_norm)[0]) / (2 * eps)
            assert abs(fd - grads[i][idx]) < 1e-6 * max(1.0, abs(fd))


def test_qknorm_holds_the_logits_at_a_high_learning_rate():
    from helpers.models import qknorm

    plain = qknorm.train(0.3, qk_norm=False)
    normed = qknorm.train(0.3, qk_norm=True)
    assert plain["max_logit"][-50:].mean() > 10 * normed["max_logit"][-50:].mean()
    assert plain["entropy"][-50:].mean() < 0.1 < normed["entropy"][-50:].mean()
    assert plain["loss"][-50:].mean() > normed["loss"][-50:].mean()


# ------------------------------------------------------ the recall tasks ---

def test_recall_by_hand_and_a_tie_is_a_miss():
    from helpers.world import recall

    V = np.eye(3)
    hits, err = recall.recall(np.array([[1.0, 0, 0], [0, 0.4, 0.6], [0, 0.5, 0.5]]), V)
    # row 0 exact; row 1 nearer room 2 than room 1; row 2 halfway: a tie, no recall
    assert hits.tolist() == [True, False, False]
    assert np.allclose(err, [0.0, np.sqrt(0.36 + 0.36), np.sqrt(0.5)])


def test_memories_on_orthogonal_keys():
    from helpers.world import recall

    K = np.eye(8)
    V = recall.unit_vectors(8, 8, seed=5)
    for memory in ("softmax", "linear", "delta"):
        out, _ = recall.read_back(memory, K, V, K)
        assert np.allclose(out, V, atol=1e-6) or memory == "softmax", memory
        assert recall.recall(out, V)[0].all(), memory


def test_overwrite_keeps_the_new_room_only_with_the_delta_rule():
    from helpers.world import recall

    assert recall.overwrite_accuracy("delta", [1], trials=5)[0] == 1.0
    assert recall.overwrite_accuracy("linear", [1], trials=5)[0] == 0.0   # a tie
    assert recall.overwrite_accuracy("softmax", [1], trials=5)[0] == 0.0  # an average


def test_copy_and_recall_curves_fall_for_fixed_states_only():
    from helpers.world import recall

    acc, _, by_pos = recall.recall_curve("softmax", [4, 32], trials=5)
    assert acc.tolist() == [1.0, 1.0] and len(by_pos[1]) == 32
    assert recall.recall_curve("linear", [64], trials=5)[0][0] < 0.5
    assert recall.copy_accuracy("softmax", [64], trials=3)[0] == 1.0
    assert recall.copy_accuracy("delta", [64], trials=3)[0] < 0.5


def test_per_context_is_the_curve_split_by_context():
    from helpers.world import recall

    # the same seeded contexts: the mean of the per-context shares is the
    # curve's point, for recall and for the overwrite test, beta passed on
    for kw in ({}, {"beta": 0.3}):
        shares = recall.per_context("delta", 8, trials=12, **kw)
        assert shares.shape == (12,) and np.all((shares >= 0) & (shares <= 1))
        assert np.isclose(shares.mean(),
                          recall.recall_curve("delta", [8], trials=12, **kw)[0][0])
        over = recall.per_context("delta", 8, "overwrite", trials=12, **kw)
        assert np.isclose(over.mean(),
                          recall.overwrite_accuracy("delta", [8], trials=12, **kw)[0])
    with pytest.raises(ValueError, match="unknown task"):
        recall.per_context("linear", 4, "copy")


def test_a_smaller_beta_erases_less():
    from helpers.world import recall

    # beta = 0.5, a unit key written twice: the first write stores 0.5 v1; the
    # second erases half of that and adds 0.5 v2, leaving 0.25 v1 + 0.5 v2
    k = np.array([[1.0, 0, 0, 0]])
    V = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    out, _ = recall.read_back("delta", np.vstack([k, k]), V, k, beta=0.5)
    assert np.allclose(out, [[0.25, 0.5, 0, 0]])
    # and on random keys a smaller beta recalls more at N = 16 (the lesson's sweep)
    assert (recall.recall_curve("delta", [16], trials=20, beta=0.3)[0][0]
            > recall.recall_curve("delta", [16], trials=20, beta=1.0)[0][0])


def test_orthogonal_position_keys_copy_d_letters_exactly_and_no_more():
    from helpers.world import recall

    for memory in ("linear", "delta"):
        assert recall.copy_accuracy(memory, [8, 16], keys="orthogonal",
                                    trials=3).tolist() == [1.0, 1.0]
        assert recall.copy_accuracy(memory, [16], trials=3)[0] < 1.0  # random keys
    with pytest.raises(ValueError, match="at most d = 16"):
        recall.copy_accuracy("linear", [17], keys="orthogonal")
    with pytest.raises(ValueError, match="random"):
        recall.copy_accuracy("linear", [4], keys="sorted")


def test_longer_keys_lift_elu_plus_one_off_chance():
    from helpers.world import recall

    unit = recall.recall_curve("linear elu+1", [4], trials=40)[0][0]
    long = recall.recall_curve("linear elu+1", [4], trials=40, key_length=8.0)[0][0]
    assert unit < 0.4 < 0.7 < long


def test_a_reset_at_the_document_boundary_is_a_fresh_state():
    from helpers.world import recall

    # alpha = 0 at the second document's first token wipes what came before:
    # the same recall as the second document alone; without it, worse
    reset = recall.two_documents(32, 8, reset=True, trials=20)
    kept = recall.two_documents(32, 8, reset=False, trials=20)
    fresh = []
    for t in range(20):
        _, _, K, V = recall.facts(40, seed=1000 * t + 40)
        out, _ = recall.read_back("delta", K[32:], V[32:], K[32:])
        dist = ((out[:, None, :] - V[None]) ** 2).sum(-1)
        fresh.append(recall._nearest_is(dist, np.arange(32, 40)))
    assert reset == float(np.mean(fresh)) and kept < reset


def test_elu_plus_one_is_never_negative_and_underflows_to_zero():
    assert elu_plus_one(np.array([-1000.0]))[0] == 0.0
    assert (elu_plus_one(np.linspace(-800, 5, 50)) >= 0).all()
