"""helpers.models.gpt, lesson 11's small GPT in numpy: against transformers, invariants.

The reference numbers (tests/data/gpt_reference.npz) come from
``transformers.GPT2LMHeadModel`` loading data/gpt/ as shipped
(tools/make_gpt_reference.py, run in a throwaway torch environment). When
data/gpt/model.safetensors is missing the model tests skip; when it no longer
has the sha256 recorded in the reference, the comparisons skip and say how to
remake the file. The pure functions (top_k_probabilities, repeated_sequence,
prefix_matching_scores, the missing-model error) never need the model.

GPT_TEST_FOLDER / GPT_TEST_REFERENCE point at another model folder /
reference file (used while developing against a checkpoint).
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path

import numpy as np
import pytest

from helpers.models import gpt

ROOT = Path(__file__).resolve().parent.parent
FOLDER = Path(os.environ.get("GPT_TEST_FOLDER") or gpt.FOLDER)
REFERENCE = Path(os.environ.get("GPT_TEST_REFERENCE")
                 or ROOT / "tests" / "data" / "gpt_reference.npz")
REMAKE = "build/gpt/venv/bin/python tools/make_gpt_reference.py"
LONG_TEXT = ("HAMLET.\nTo be, or not to be, that is the question:\nWhether 'tis "
             "nobler in the mind to suffer\nThe slings and arrows of outrageous "
             "fortune,\n") * 6


@pytest.fixture(scope="module")
def model():
    if not (FOLDER / "model.safetensors").is_file():
        pytest.skip(f"no {FOLDER / 'model.safetensors'}: "
                    "python3 tools/train_gpt.py makes it")
    return gpt.load(FOLDER)


@pytest.fixture(scope="module")
def reference(model):
    if not REFERENCE.is_file():
        pytest.skip(f"no {REFERENCE}: `{REMAKE}` makes it")
    ref = dict(np.load(REFERENCE))
    sha = hashlib.sha256((FOLDER / "model.safetensors").read_bytes()).hexdigest()
    if str(ref["model_sha256"]) != sha:  # data/gpt ships: a stale reference is a bug
        pytest.fail(f"{FOLDER / 'model.safetensors'} changed since {REFERENCE.name} "
                    f"was made (sha256 {sha[:12]}, reference "
                    f"{str(ref['model_sha256'])[:12]}): remake it with `{REMAKE}`")
    return ref


@pytest.fixture(scope="module")
def scores(model):
    return gpt.head_scores(model)


# --- the same numbers as transformers' GPT2LMHeadModel ------------------------


@pytest.mark.parametrize("k", [0, 1, 2])
def test_matches_transformers(model, reference, k):
    run = model.run(str(reference["texts"][k]))
    n, rows = len(run.ids), reference[f"rows_{k}"]
    np.testing.assert_array_equal(run.ids, reference[f"ids_{k}"])  # BOS 0 first
    assert run.logits.dtype == run.attention.dtype == run.hidden.dtype == np.float32
    assert run.hidden.shape == (model.n_layers + 1, n, model.d_model)
    np.testing.assert_allclose(run.logits[rows], reference[f"logits_{k}"],
                               rtol=0, atol=1e-3)
    # every position, through its loss and its most likely next token
    np.testing.assert_allclose(run.loss_per_position(), reference[f"nll_{k}"],
                               rtol=0, atol=1e-3)
    top2 = np.sort(run.logits, axis=-1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-3  # no near-tie
    np.testing.assert_array_equal(run.logits.argmax(-1)[clear],
                                  reference[f"argmax_{k}"][clear])
    r, c = np.tril_indices(n)
    np.testing.assert_allclose(run.attention[..., r, c], reference[f"attention_{k}"],
                               rtol=0, atol=1e-5)
    # [0] embeddings, [l + 1] after block l; the last is before ln_f (HF's is after)
    np.testing.assert_allclose(run.hidden[:, rows], reference[f"hidden_{k}"],
                               rtol=1e-5, atol=1e-4)  # BOS's residual reaches ~250


def test_ablation_matches_transformers(model, reference):
    text = str(reference["texts"][0])
    heads = {tuple(p) for p in reference["ablate_heads"]}
    logits = model.run(text, ablate=heads).logits
    np.testing.assert_allclose(logits, reference["ablate_logits"], rtol=0, atol=1e-3)
    assert np.abs(logits - model.run(text).logits).max() > 1e-2  # it did something


@pytest.mark.parametrize("cache", [True, False])
def test_greedy_generation_matches_transformers(model, reference, cache):
    g = model.generate(str(reference["greedy_prompt"]), len(reference["greedy_ids"]),
                       temperature=0, cache=cache)
    np.testing.assert_array_equal(g.new_ids, reference["greedy_ids"])
    assert g.text == str(reference["greedy_prompt"]) + g.new_text


# --- invariants ---------------------------------------------------------------


def test_attention_rows_sum_to_one_and_nothing_above_the_diagonal(model):
    A = model.run(LONG_TEXT, max_tokens=60).attention
    n = A.shape[-1]
    assert A.shape == (model.n_layers, model.n_heads, n, n)
    np.testing.assert_allclose(A.sum(axis=-1), 1.0, rtol=0, atol=1e-5)
    assert np.all(A[..., np.triu_indices(n, k=1)[0], np.triu_indices(n, k=1)[1]] == 0.0)
    assert A.min() >= 0.0


def test_later_tokens_never_change_earlier_logits(model):
    ids = np.random.default_rng(11).integers(1, model.vocab_size, size=40)
    ids[0] = gpt.BOS
    a = model.run(ids)
    ids[25:] = (ids[25:] + 7) % (model.vocab_size - 1) + 1
    b = model.run(ids)
    np.testing.assert_allclose(a.logits[:25], b.logits[:25], rtol=0, atol=1e-6)
    np.testing.assert_allclose(a.attention[..., :25, :25], b.attention[..., :25, :25],
                               rtol=0, atol=1e-7)
    assert np.abs(a.logits[25:] - b.logits[25:]).min(axis=-1).max() > 0


def _same_generation(model, prompt, n_tokens, **kw):
    g, h = (model.generate(prompt, n_tokens, cache=c, **kw) for c in (True, False))
    np.testing.assert_array_equal(g.new_ids, h.new_ids)
    # float32: the two paths add in different orders; logits reach ~15, so the
    # rounding differences are ~1e-5 (relative ~1e-6)
    np.testing.assert_allclose(g.logits, h.logits, rtol=1e-5, atol=1e-5)
    assert g.logits.shape == (n_tokens, model.vocab_size) and len(g.new_ids) == n_tokens
    return g


def test_kv_cache_equals_recomputation_when_sampling(model):
    prompt = "KING.\nWhat say you, lords?"
    g = _same_generation(model, prompt, 24, temperature=0.9, top_k=50, seed=3)
    again = model.generate(prompt, 24, temperature=0.9, top_k=50, seed=3)
    np.testing.assert_array_equal(g.new_ids, again.new_ids)  # seeded


def test_kv_cache_equals_recomputation_across_the_context_boundary(model):
    prompt = model.decode(model.encode(LONG_TEXT)[:121])
    n_prompt = len(model.run(prompt).ids)
    assert 115 <= n_prompt <= model.context - 2, n_prompt
    g = _same_generation(model, prompt, 20, temperature=1.0, seed=5)
    # after the context fills, the model sees BOS + the recent half and carries on
    ids = list(model.run(prompt).ids) + list(g.new_ids)
    t = model.context - n_prompt + 1                     # first step past the context
    seen = [gpt.BOS] + ids[:n_prompt + t][-(model.context // 2 - 1):]
    np.testing.assert_allclose(g.logits[t], model.run(np.array(seen)).logits[-1],
                               rtol=0, atol=1e-5)


# --- sampling probabilities (hand-worked) -------------------------------------


def test_top_k_probabilities_by_hand():
    e = math.e
    np.testing.assert_allclose(gpt.top_k_probabilities([1.0, 2.0, 3.0], k=2),
                               [0.0, 1 / (1 + e), e / (1 + e)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(  # T = 0.5 doubles the logits: [2, 4, 6]
        gpt.top_k_probabilities([1.0, 2.0, 3.0], k=2, temperature=0.5),
        [0.0, 1 / (1 + e**2), e**2 / (1 + e**2)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gpt.top_k_probabilities([1.0, 2.0, 3.0]),
                               [0.09003057, 0.24472847, 0.66524096], rtol=0, atol=1e-8)
    np.testing.assert_allclose(gpt.top_k_probabilities([1.0, 3.0, 3.0, 2.0], k=1),
                               [0.0, 0.5, 0.5, 0.0], rtol=0, atol=1e-12)  # ties kept
    assert gpt.top_k_probabilities([1.0, 2.0, 3.0], k=2)[0] == 0.0        # exactly


def test_top_k_probabilities_sum_to_one():
    z = np.random.default_rng(0).normal(0, 3, size=2048).astype(np.float32)
    for k, t in [(None, 1.0), (1, 1.0), (40, 0.7), (2048, 2.0), (5000, 1.0)]:
        p = gpt.top_k_probabilities(z, k=k, temperature=t)
        assert p.shape == (2048,) and p.min() >= 0
        assert math.isclose(p.sum(), 1.0, abs_tol=1e-9)
        assert np.count_nonzero(p) == (2048 if k is None or k >= 2048 else k)
    np.testing.assert_allclose(gpt.top_k_probabilities(z, k=2048),
                               gpt.top_k_probabilities(z), rtol=0, atol=0)


# --- head finding ----------------------------------------------------------------


def test_repeated_sequence():
    s = gpt.repeated_sequence(2048, 10, seed=4)
    assert s.shape == (21,) and s[0] == gpt.BOS
    np.testing.assert_array_equal(s[1:11], s[11:])
    assert s[1:].min() >= 1 and s.max() < 2048
    np.testing.assert_array_equal(s, gpt.repeated_sequence(2048, 10, seed=4))
    assert not np.array_equal(s, gpt.repeated_sequence(2048, 10, seed=5))


def test_prefix_matching_scores_on_a_hand_built_pattern():
    L = 4
    n = 1 + 2 * L
    perfect, previous, partial = (np.zeros((n, n)) for _ in range(3))
    for j in range(L - 1):                       # query 1 + L + j, second copy
        q = 1 + L + j
        perfect[q, 2 + j] = 1.0                  # the token after its first occurrence
        previous[q, q - 1] = 1.0                 # a previous-token head
        partial[q, 2 + j], partial[q, 0] = 0.2 * (j + 1), 1 - 0.2 * (j + 1)
    assert gpt.prefix_matching_scores(perfect, L) == 1.0
    assert gpt.prefix_matching_scores(previous, L) == 0.0
    assert math.isclose(gpt.prefix_matching_scores(partial, L), 0.4)  # mean of .2 .4 .6
    stacked = np.stack([[perfect, previous, partial]] * 2)        # (2, 3, n, n)
    np.testing.assert_allclose(gpt.prefix_matching_scores(stacked, L),
                               [[1.0, 0.0, 0.4]] * 2)


def test_head_scores_and_named_heads(model, scores):
    assert set(scores) == {"previous_token", "first_token", "induction"}
    for s in scores.values():
        assert s.shape == (model.n_layers, model.n_heads)
        assert 0.0 <= s.min() and s.max() <= 1.0
    for name, (layer, head) in model.heads.items():
        s = scores[name]
        assert s[layer, head] == s.max(), name
    A = model.run(gpt.PROBE_TEXT).attention[1, 3]     # one head, by hand
    n = A.shape[0]
    assert math.isclose(scores["previous_token"][1, 3],
                        np.mean([A[i, i - 1] for i in range(1, n)]), rel_tol=1e-5)


# --- input handling ----------------------------------------------------------------


def test_long_text_keeps_bos_and_the_last_tokens(model):
    ids = model.encode(LONG_TEXT)
    assert len(ids) + 1 > model.context
    run = model.run(LONG_TEXT)
    assert len(run.ids) == model.context and run.ids[0] == gpt.BOS
    assert run.n_cut == len(ids) + 1 - model.context
    np.testing.assert_array_equal(run.ids[1:], ids[-(model.context - 1):])
    short = model.run(LONG_TEXT, max_tokens=16)
    assert len(short.ids) == 16 and short.n_cut == len(ids) + 1 - 16
    np.testing.assert_array_equal(short.ids[1:], ids[-15:])
    assert model.run("To be").n_cut == 0
    assert run.tokens == [model.piece(i) for i in run.ids]
    assert run.tokens[0] == "<|endoftext|>"


@pytest.mark.parametrize("ids, message", [
    ([0, 5, -1], "token ids must be in 0..2047"),
    ([0, 2048], "token ids must be in 0..2047"),
    ([], "need 1 to 128 token ids, got 0"),
    (np.ones(129, dtype=int), "need 1 to 128 token ids, got 129"),
])
def test_bad_ids_raise_a_clear_value_error(model, ids, message):
    with pytest.raises(ValueError, match=message):
        model.run(ids)


def test_missing_model_folder(tmp_path):
    with pytest.raises(gpt.ModelNotAvailable, match="model.safetensors") as info:
        gpt.load(tmp_path / "nowhere")
    assert "tools/train_gpt.py" in str(info.value)
    (tmp_path / "config.json").write_text("{}")
    lacks = "lacks model.safetensors, tokenizer.json"
    with pytest.raises(gpt.ModelNotAvailable, match=lacks):
        gpt.load(tmp_path)


@pytest.mark.parametrize("bad", [dict(temperature=0), dict(temperature=-1.0),
                                 dict(k=0, temperature=1.0)])
def test_top_k_probabilities_refuses_a_meaningless_setting(bad):
    with pytest.raises(ValueError, match="must be"):
        gpt.top_k_probabilities(np.array([1.0, 2.0, 3.0]), **bad)


# --- top-p (nucleus) sampling, greedy decoding, the public cached step --------


def test_top_p_keeps_the_nucleus_by_hand():
    z = np.log([0.5, 0.3, 0.15, 0.05])
    # the mass before each token, most likely first: 0, 0.5, 0.8, 0.95
    np.testing.assert_allclose(gpt.top_k_probabilities(z, top_p=0.7),
                               [0.625, 0.375, 0.0, 0.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gpt.top_k_probabilities(z, top_p=0.5),
                               [1.0, 0.0, 0.0, 0.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gpt.top_k_probabilities(z, top_p=0.9),
                               [0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0.0],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(gpt.top_k_probabilities(z, top_p=1.0),
                               [0.5, 0.3, 0.15, 0.05], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gpt.top_k_probabilities(z, top_p=0.01),
                               [1.0, 0.0, 0.0, 0.0], rtol=0, atol=1e-12)  # top kept
    # the order of the vocabulary does not matter; ties with the last kept stay
    np.testing.assert_allclose(gpt.top_k_probabilities(z[::-1], top_p=0.7),
                               [0.0, 0.0, 0.375, 0.625], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gpt.top_k_probabilities(np.log([0.4, 0.3, 0.3]),
                                                       top_p=0.5),
                               [0.4, 0.3, 0.3], rtol=0, atol=1e-12)
    # after top-k and the temperature: k = 3 of 4, then the nucleus of those
    q = gpt.top_k_probabilities(z, k=3, top_p=0.6)   # (0.526, 0.316, 0.158)
    np.testing.assert_allclose(q, [0.625, 0.375, 0.0, 0.0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("top_p", [0.0, -0.5, 1.5])
def test_top_p_refuses_a_meaningless_setting(top_p):
    with pytest.raises(ValueError, match="top_p must be in"):
        gpt.top_k_probabilities([1.0, 2.0], top_p=top_p)


def test_top_p_generation_draws_only_from_the_nucleus(model):
    prompt = "KING.\nWhat say you, lords?"
    g = _same_generation(model, prompt, 12, temperature=0.8, top_p=0.5, seed=2)
    for logits, token in zip(g.logits, g.new_ids):
        assert gpt.top_k_probabilities(logits, None, 0.8, 0.5)[token] > 0


def test_greedy_picks_the_most_likely_token_every_step(model):
    g = model.generate("ANTONY.\nI come to bury Caesar, not to praise", 16,
                       temperature=0)
    np.testing.assert_array_equal(g.new_ids, g.logits.argmax(axis=-1))


def test_prefill_and_decode_step_give_the_runs_logits(model):
    ids = model.run("To be, or not to be, that is the question").ids
    logits, cache = model.prefill(ids[:5])
    np.testing.assert_allclose(logits, model.run(ids[:5]).logits[-1], atol=1e-4)
    assert len(cache) == model.n_layers
    assert all(K.shape == V.shape == (model.n_heads, 5, model.d_head)
               for K, V in cache)
    full = model.run(ids).logits
    for pos in range(5, len(ids)):
        before = [K.copy() for K, _ in cache]
        logits, new = model.decode_step(ids[pos], pos, cache)
        np.testing.assert_allclose(logits, full[pos], rtol=0, atol=1e-4)
        assert all(np.array_equal(K, b) for (K, _), b in zip(cache, before))  # kept
        assert new[0][0].shape == (model.n_heads, pos + 1, model.d_head)
        cache = new


def test_decode_timings_are_per_token_and_refuse_too_long_prompts(model):
    t = gpt.decode_timings(model, (8, 16), steps=2, repeats=1)
    assert list(t["n"]) == [8, 16]
    for key in ("prefill", "cached", "recompute"):
        assert t[key].shape == (2,) and (t[key] > 0).all()
    with pytest.raises(ValueError, match="fit the context"):
        gpt.decode_timings(model, (model.context,), steps=1, repeats=1)


def test_decode_timings_time_prefill_and_recompute_the_same_way(model, monkeypatch):
    """Issue 46: the prefill column was one call per length, recompute a mean
    of steps calls, so recompute at n = 16 could read below the prefill of 16.
    Now each column is the mean of ``steps`` calls timed on their own."""
    lengths = []
    real = model.prefill
    monkeypatch.setattr(model, "prefill", lambda ids: lengths.append(len(ids)) or
                        real(ids))
    gpt.decode_timings(model, (8,), steps=3, repeats=2)
    # 1 cache for the steps, then 3 + 3 calls, each warm-up + 2 rounds = 3 times
    assert lengths.count(8) == 1 + 3 * 3
    assert [lengths.count(n) for n in (9, 10, 11)] == [3, 3, 3]


def test_every_lesson_11_figure_has_its_own_text_alternative():
    """Issue 43: each figure of gptplots sets fig.alt from its numbers."""
    from helpers.figures import gptplots

    step = np.arange(0, 500, 100)
    log = {"step": step, "train_loss": np.linspace(5, 2, 5),
           "val_loss": np.linspace(5, 3, 5), "copy1_loss": np.full(5, 7.0),
           "copy2_loss": np.linspace(7, 2, 5), "prefix_matching": np.linspace(0, .5, 5)}
    grid = np.arange(24).reshape(4, 6) / 24
    figs = [
        gptplots.training_curves(log),
        gptplots.loss_curves({"a": [3.0, 2.0, 1.0], "b": [3.0, 2.5, 2.2]}),
        gptplots.loss_by_position({"whole": np.r_[np.full(4, 7.0), np.ones(4)]}, 4),
        gptplots.head_scores({"previous_token": grid}, chance={"previous_token": 0.04}),
        gptplots.row_weights({"layer 0 head 0": np.array([0.1, 0.6, 0.9])},
                             chance=0.04),
        gptplots.decode_times({"n": np.array([16, 64]), "prefill": np.array([2.0, 5.0]),
                               "cached": np.array([0.7, 0.8]),
                               "recompute": np.array([2.0, 5.0])}),
    ]
    alts = [f.alt for f in figs]
    assert all(isinstance(a, str) and len(a) >= 20 for a in alts), alts
    assert len(set(alts)) == len(alts)
    assert "layer 3 head 5 0.958" in alts[3] and "chance 0.04" in alts[3]
    assert "rows above 0.5 67%" in alts[4]
    assert "second copy" in alts[2] and "1 on the second" in alts[2]
