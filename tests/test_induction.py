"""Lesson 13: the hand-built circuit, the scores that find heads, and the
shipped induction model against the bar of its issue.

The model bar (``test_the_shipped_model_*``) is measured by
``tools/measure_induction.py``, on sequences no other file uses (seeds
515000-515039): BOS, 0-23 random tokens, then 8-20 random tokens
written twice, drawn from ids 1 .. vocab_size - 1.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from helpers.analysis import circuits, induction
from tools import measure_induction as bar
from helpers.attention import causal_mask, softmax

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "induction_reference.npz"


# -- the hand-built circuit --------------------------------------------------------
def _hand_repeat(seed, L=8):
    rng = np.random.default_rng(seed)
    r = 1 + rng.permutation(len(circuits.HAND_VOCAB) - 1)[:L]
    return np.concatenate([[0], r, r])


def test_hand_circuit_layout_and_shapes():
    W = circuits.build_circuit(vocab_size=5, n_positions=7)
    lay = W["layout"]
    assert lay.d_model == 3 * 5 + 7
    assert W["W_Q0"].shape == (lay.d_model, 7) and W["W_V0"].shape == (lay.d_model, 5)
    assert W["W_O1"].shape == (5, lay.d_model) and W["W_U"].shape == (lay.d_model, 5)
    E = circuits.embed(W, [0, 3, 3])
    # one-hot token, one-hot position: exactly two ones per row
    assert E.sum(axis=1).tolist() == [2, 2, 2] and E[1, 3] == 1 and E[2, 5 + 2] == 1


def test_hand_previous_token_head_is_the_sub_diagonal():
    W = circuits.build_circuit()
    run = circuits.run_circuit(W, _hand_repeat(0))
    n = len(run.ids)
    i = np.arange(1, n)
    assert np.all(run.A0[i, i - 1] > 0.999)
    assert run.A0[0, 0] == pytest.approx(1.0)  # the first token sees only itself
    assert np.allclose(run.A0.sum(axis=1), 1.0) and np.all(run.A0[~causal_mask(n)] == 0)
    # layer 0 writes the previous token into the 'previous' subspace
    lay = W["layout"]
    written = run.E1[1:, lay.previous].argmax(axis=1)
    assert written.tolist() == run.ids[:-1].tolist()


def test_hand_circuit_copies_the_second_copy_and_ablation_breaks_it():
    W = circuits.build_circuit()
    L = 8
    for seed in range(5):
        ids = _hand_repeat(seed, L)
        run = circuits.run_circuit(W, ids)
        first, second = induction.copy_losses(run.loss_per_position(), 1, L)
        assert second < 0.01 and first > 2.0
        assert induction.prefix_matching(run.A1, 1, L) > 0.99
        uniform = np.log(len(circuits.HAND_VOCAB))
        for head in ("previous", "induction"):
            cut = circuits.run_circuit(W, ids, ablate=(head,))
            assert (
                induction.copy_losses(cut.loss_per_position(), 1, L)[1] > 0.8 * uniform
            )


def test_hand_circuit_rejects_bad_ids():
    W = circuits.build_circuit(n_positions=4)
    with pytest.raises(ValueError, match="positions"):
        circuits.run_circuit(W, [0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="token ids"):
        circuits.run_circuit(W, [0, 99])


# -- scores ------------------------------------------------------------------
def test_prefix_matching_by_hand():
    # BOS, 1 prefix token, then a b c a b c: start 2, length 3
    n = 8
    A = np.zeros((n, n))
    A[np.arange(n), np.arange(n)] = 1.0
    A[5, 3] = A[6, 4] = 1.0  # queries a, b of the second copy -> b, c of the first
    A[5, 5] = A[6, 6] = 0.0
    assert induction.prefix_matching(A, 2, 3) == pytest.approx(1.0)
    A[6, 4], A[6, 6] = 0.5, 0.5
    assert induction.prefix_matching(A, 2, 3) == pytest.approx(0.75)
    stacked = np.stack([A, np.eye(n)])
    assert induction.prefix_matching(stacked, 2, 3).tolist() == pytest.approx([0.75, 0])


def test_chance_levels_match_uniform_heads():
    n, start, L = 1 + 5 + 2 * 9, 6, 9
    uniform = np.where(causal_mask(n), 1.0, 0.0)
    uniform /= uniform.sum(axis=1, keepdims=True)
    assert induction.prefix_matching(uniform, start, L) == pytest.approx(
        induction.chance_prefix_matching(start, L)
    )
    prev = induction.previous_token(uniform)
    assert prev == pytest.approx(np.mean(1.0 / (np.arange(1, n) + 1)))


def test_copy_losses_leave_out_each_copys_first_token():
    loss = np.arange(20, dtype=float)  # loss[t] predicts token t + 1
    first, second = induction.copy_losses(loss, 3, 5)
    assert first == np.mean([3, 4, 5, 6]) and second == np.mean([8, 9, 10, 11])


def test_repeated_ids():
    ids, start = induction.repeated_ids(50, 6, 3, seed=1)
    assert ids[0] == 0 and start == 4 and len(ids) == 16
    assert ids[start : start + 6].tolist() == ids[start + 6 :].tolist()
    assert ids[1:].min() >= 1 and ids.max() < 50


# -- the shipped model ---------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    return induction.load()


@pytest.fixture(scope="module")
def report():
    return induction.report()


def test_the_shipped_model_is_small_and_attention_only(model):
    folder = induction.FOLDER
    assert (folder / "model.safetensors").stat().st_size < 5 * 2**20
    assert 2 <= model.n_layers <= 4 and model.d_model <= 256 and model.context >= 64
    for b in model.blocks:
        assert not b["mlp.c_fc.weight"].any() and not b["mlp.c_proj.weight"].any()
        assert not b["mlp.c_proj.bias"].any()
    assert model.piece(0) == "<|endoftext|>"
    words = [model.piece(i) for i in range(1, model.vocab_size)]
    assert all(w.isalpha() for w in words) and len(set(words)) == len(words)


@pytest.mark.parametrize("prefix", [0, 5, 11, 17, 23])
def test_the_shipped_model_copies_at_every_prefix(model, prefix):
    first, second = bar.copy_losses(model, prefix)
    assert second <= 0.3 * first, (prefix, first, second)


def test_the_shipped_model_has_the_heads_its_report_names(model, report):
    """The issue's bar: the best prefix-matching head is in layer 1 or later,
    scores at least 0.3 and is the one report.json names; a layer-0 head has
    a previous-token score of at least 0.4, and every named one does."""
    prev, pm = bar.head_scores(model)
    best = np.unravel_index(pm.argmax(), pm.shape)
    assert best[0] >= 1 and pm[best] >= 0.3, pm
    assert tuple(report["induction_head"]) == tuple(int(i) for i in best)
    named = [tuple(h) for h in report["previous_token_heads"]]
    assert named and all(la == 0 and prev[la, hd] >= 0.4 for la, hd in named), prev


def test_the_induction_heads_key_reads_the_previous_token_head(model, report):
    """K-composition (lesson 13, optional section): the induction head's key
    reads a named previous-token head above the 95th percentile of random
    matrices; its query does not."""
    ind = tuple(report["induction_head"])
    base = np.percentile(induction.k_composition_baseline(model, samples=50), 95)
    prev_heads = [tuple(h) for h in report["previous_token_heads"]]
    assert max(induction.composition(model, ind, h, "K") for h in prev_heads) > base
    assert all(induction.composition(model, ind, h, "Q") < base for h in prev_heads)


@pytest.mark.parametrize("prefix", [0, 5, 11, 17, 23])
def test_ablating_the_named_heads_breaks_copying(model, report, prefix):
    """The bar at every prefix (measured: the induction head x2.4-6.6, the
    previous-token head x4.3-13.3; ``python -m tools.measure_induction``)."""
    _, base = bar.copy_losses(model, prefix)
    ind = {tuple(report["induction_head"])}
    assert bar.copy_losses(model, prefix, ablate=ind)[1] >= 2.0 * base
    prev = {tuple(h) for h in report["previous_token_heads"]}
    assert bar.copy_losses(model, prefix, ablate=prev)[1] >= 1.5 * base


def test_it_matches_the_current_word_not_the_one_before(model):
    """After "A B ... A", B is likely whether or not the word before the
    second A is the word before the first: an induction head matches A."""
    rng = np.random.default_rng(515100)
    same, other = [], []
    for _ in range(40):
        w = rng.integers(1, model.vocab_size, size=30)
        text = np.concatenate([[0], w[:10], w[10:13], w[13:25], w[10:12]])
        same.append(model.run(text).probs()[w[12]])
        text[-2] = w[29]
        other.append(model.run(text).probs()[w[12]])
    assert np.mean(other) >= 0.3 and np.mean(other) >= 0.5 * np.mean(same)


def test_direct_logit_attribution_adds_up(model):
    ids, start = induction.repeated_ids(model.vocab_size, 12, 4, seed=3)
    dla = induction.direct_logit_attribution(model, ids)
    assert np.allclose(
        dla["per_part"].sum(axis=0) + dla["bias"], dla["logit"], atol=1e-3
    )
    run = model.run(ids)
    t = np.arange(len(ids) - 1)
    assert np.allclose(dla["logit"], run.logits[t, ids[1:]], atol=1e-3)
    # on the second copy, the named induction head carries the correct token
    second = np.arange(start + 12, start + 23)
    means = dla["per_part"][:, second].mean(axis=1)
    la, hd = induction.report()["induction_head"]
    assert dla["names"][int(means.argmax())] == f"L{la} H{hd}"


def test_composition_scores_are_scale_free():
    W_Q = np.arange(12.0).reshape(4, 3)
    a = induction._k_comp(W_Q, W_Q + 1, W_Q - 2, W_Q.T)
    b = induction._k_comp(3 * W_Q, W_Q + 1, 5 * (W_Q - 2), W_Q.T)
    assert a == pytest.approx(b)


def test_numpy_equals_transformers(model, report):
    if not REFERENCE.exists():
        pytest.fail(
            "tests/data/induction_reference.npz is missing: "
            "build/gpt/venv/bin/python tools/make_induction_reference.py"
        )
    ref = np.load(REFERENCE)
    sha = hashlib.sha256((induction.FOLDER / "model.safetensors").read_bytes())
    assert str(ref["model_sha256"]) == sha.hexdigest(), (
        "data/induction changed: remake the reference with "
        "tools/make_induction_reference.py"
    )
    head = tuple(report["induction_head"])  # the reference ablates this head
    k = 0
    while f"ids_{k}" in ref:
        ids = ref[f"ids_{k}"]
        assert np.abs(model.run(ids).logits - ref[f"logits_{k}"]).max() <= 1e-4
        cut = model.run(ids, ablate={head}).logits
        assert np.abs(cut - ref[f"ablated_{k}"]).max() <= 1e-4
        k += 1
    assert k >= 3


def test_training_log_and_report(report):
    log = induction.training_log()
    assert log["step"][0] == 0 and np.all(np.diff(log["step"]) > 0)
    assert report["train_seconds"] <= 30 * 60
    la, hd = report["induction_head"]
    # the log's last row agrees with the report's measurement on the same probes
    assert log[f"pm_{la}_{hd}"][-1] == pytest.approx(
        report["induction_prefix_matching"], abs=1e-3
    )
    # the phase change: a plateau, then the second copy falls below half the first
    ratio = log["copy2_loss"] / log["copy1_loss"]
    assert ratio[0] > 0.9 and ratio[-1] < 0.5
    json.dumps(report)


def test_softmax_import_is_the_series_one():
    # the circuit's patterns come from helpers.attention: rows sum to 1
    W = circuits.build_circuit()
    run = circuits.run_circuit(W, _hand_repeat(3))
    assert np.allclose(run.A1.sum(axis=1), 1.0)
    assert np.allclose(softmax(run.logits).sum(axis=1), 1.0)


# -- path ablation, the OV and QK circuits, the in-context-learning score -----------
def _repeats(model, n=6, prefix=20, L=12):
    return [induction.repeated_ids(model.vocab_size, L, prefix, s)
            for s in range(100, 100 + n)]


def _named(report):
    return tuple(report["induction_head"]), tuple(report["previous_token_heads"][0])


def test_path_ablation_of_no_path_is_the_model(model):
    ids, _ = induction.repeated_ids(model.vocab_size, 12, 20, 100)
    run, same = model.run(ids), induction.path_ablation(model, ids, paths="")
    assert np.array_equal(run.logits, same.logits)
    cut = induction.path_ablation(model, ids, paths="K")
    assert np.array_equal(cut.attention[0], run.attention[0])  # layer 0 untouched


def test_the_key_path_carries_the_previous_token_head(model, report):
    """K-composition in the model's behaviour: without the previous-token
    head in layer 1's keys the stripe goes and the copy with it; without it
    in the queries the stripe stays."""
    ind, prev = _named(report)
    stripe, second = {}, {}
    for paths in ("", "Q", "K", "V"):
        runs = [(induction.path_ablation(model, s, prev, paths), st)
                for s, st in _repeats(model)]
        stripe[paths] = np.mean([induction.prefix_matching(r.attention[ind], st, 12)
                                 for r, st in runs])
        second[paths] = np.mean([
            induction.copy_losses(r.loss_per_position(), st, 12)[1] for r, st in runs])
    assert min(stripe[""], stripe["Q"], stripe["V"]) > 0.8 and stripe["K"] < 0.1
    assert second["K"] > 10 * second[""] and second["Q"] < 3 * second[""]


def test_diagonal_share_by_hand():
    assert induction.diagonal_share(np.eye(4)) == 1.0
    M = np.eye(4)
    M[2] = [0, 1, 0, 0]  # row 2 (the 2nd after <|endoftext|>'s) looks elsewhere
    assert induction.diagonal_share(M) == pytest.approx(2 / 3)


def test_the_induction_head_copies_and_matches_in_its_weights(model, report):
    ind, prev = _named(report)
    ov, qk = induction.ov_circuit(model, ind), induction.qk_circuit(model, ind, prev)
    assert ov.shape == qk.shape == (model.vocab_size, model.vocab_size)
    assert np.allclose(ov.mean(axis=1), 0, atol=1e-4)
    assert induction.diagonal_share(ov) > 0.9 and induction.diagonal_share(qk) > 0.9


def test_markov_text_walks_a_small_cycle():
    a, b = induction.markov_text(128, 64, 5), induction.markov_text(128, 64, 5)
    assert np.array_equal(a, b) and a[0] == 0 and len(a) == 64
    assert 1 <= a[1:].min() and a.max() < 128 and 6 <= len(set(a[1:])) <= 24


def test_icl_score_by_hand():
    # token 10 is column 9 (4 and 2: mean 3), token 50 column 49 (1 and 3: mean 2)
    losses = np.array([[5.0] * 9 + [4.0] + [3.0] * 39 + [1.0],
                       [5.0] * 9 + [2.0] + [3.0] * 39 + [3.0]])
    assert induction.icl_score(losses) == pytest.approx(2.0 - 3.0)


def test_the_model_learns_in_context_on_unseen_texts(model):
    texts = [induction.markov_text(model.vocab_size, 64, 900000 + s) for s in range(60)]
    losses = np.array([model.run(t).loss_per_position() for t in texts])
    assert induction.icl_score(losses) < -0.8


def test_repeated_ids_distinct_draws_every_word_once():
    for seed in range(20):
        ids, start = induction.repeated_ids(128, 12, 20, seed, distinct=True)
        words = ids[1:start + 12]
        assert len(set(words.tolist())) == 32 and words.min() >= 1
        assert np.array_equal(ids[start:start + 12], ids[start + 12:])


def test_mean_ablation_is_the_run_itself_with_the_heads_own_output():
    model = induction.load()
    ids, _ = induction.repeated_ids(model.vocab_size, 8, 10, 3)
    # the mean over one text, the text itself: nothing changes
    same = induction.mean_ablation(model, ids, (1, 0), [ids])
    assert np.allclose(same.logits, model.run(ids).logits)
    # zero output is zero-ablation
    nothing = np.zeros((len(ids), model.d_head))
    zero = induction._replaced_run(model, ids, (1, 0), nothing)[0]
    assert np.allclose(zero.logits, model.run(ids, ablate={(1, 0)}).logits)
    assert induction.head_output(model, ids, (1, 0)).shape == (len(ids), model.d_head)


def test_ratio_interval_brackets_the_ratio_of_means():
    intact = np.array([1.0, 1.0, 1.0, 1.0])
    ratio, low, high = induction.ratio_interval(3 * intact, intact)
    assert (ratio, low, high) == pytest.approx((3.0, 3.0, 3.0))  # no spread, no width
    rng = np.random.default_rng(1)
    intact = rng.uniform(0.5, 1.5, 200)
    ablated = 5 * intact + rng.normal(0, 1.0, 200)
    ratio, low, high = induction.ratio_interval(ablated, intact)
    assert ratio == pytest.approx(ablated.mean() / intact.mean())
    assert low < ratio < high and high - low < 0.5
    few = induction.ratio_interval(ablated[:20], intact[:20])
    assert few[2] - few[1] > high - low              # fewer texts, a wider interval
    with pytest.raises(ValueError, match="same texts"):
        induction.ratio_interval(ablated[:3], intact[:4])


def test_the_phase_change_figure_shows_the_training_loss_and_both_layer0_heads():
    """Lesson 13's section 5: the small first step (a hand-over between the two
    layer-0 heads, the training loss stepping down) is in the figure and its
    text alternative, told from the log's numbers."""
    from helpers.figures import inductionplots

    step = np.arange(5) * 250
    log = {"step": step, "train_loss": np.array([np.nan, 4.6, 4.2, 3.9, 3.5]),
           "copy1_loss": np.full(5, 4.8),
           "copy2_loss": np.array([4.8, 4.5, 4.4, 2.0, 1.0]),
           "prev_0_0": np.array([0.09, 0.12, 0.07, 0.3, 0.4]),
           "prev_0_1": np.array([0.09, 0.15, 0.23, 0.22, 0.21]),
           "pm_1_0": np.array([0.03, 0.03, 0.04, 0.3, 0.5]),
           "pm_1_1": np.full(5, 0.03)}
    fig = inductionplots.phase_change(log, (0, 0), (1, 0), other_head=(1, 1),
                                      other_prev=(0, 1), step_of_change=750)
    left, right = fig.axes[:2]
    assert "training loss" in [line.get_label() for line in left.lines]
    labels = [line.get_label() for line in right.lines]
    assert "previous token, layer 0 head 1" in labels
    assert "training loss 4.6 at step 250, 3.5 at the end" in fig.alt
    assert ("previous token, layer 0 head 1: 0.09 at step 0, highest 0.23 at "
            "step 500") in fig.alt
