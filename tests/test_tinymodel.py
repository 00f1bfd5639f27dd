"""Tests of helpers.models.tiny: gradients, corpus, shipped weights, prediction API."""

import numpy as np
import pytest

from helpers.world import lexicon
from helpers.models import tiny as tm
from helpers.attention import multi_head_attention, scaled_dot_product_attention

EPS = 1e-6
TOL = 1e-6


def numeric_grad(f, x):
    """Central finite differences of the scalar f() with respect to array x."""
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        old = x[i]
        x[i] = old + EPS
        plus = f()
        x[i] = old - EPS
        minus = f()
        x[i] = old
        g[i] = (plus - minus) / (2 * EPS)
    return g


def rel_error(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(a) + np.linalg.norm(b), 1e-300)


def _check_all_grads(params, batch, l2):
    _, grads = tm.loss_and_grads(params, batch, l2=l2)
    assert set(grads) == set(tm.array_names(params))
    for name in tm.array_names(params):
        num = numeric_grad(
            lambda: tm.loss_and_grads(params, batch, l2=l2, need_grads=False)[0],
            params[name],
        )
        assert np.linalg.norm(num) > 0, f"{name}: gradient is zero, test is vacuous"
        err = rel_error(grads[name], num)
        assert err < TOL, f"{name}: relative error {err:.2e}"


@pytest.mark.parametrize("n_layers,n_heads", [(1, 1), (1, 2), (2, 2)])
def test_sense_gradients_match_finite_differences(n_layers, n_heads):
    params = tm.init_params(len(tm.CLASSES), n_heads=n_heads, d_k=3, d_v=2,
                            n_layers=n_layers, seed=3)
    # sentences of different lengths: padding and the query-row shortcut
    batch = tm.encode_sense(tm.make_sense_corpus(4, seed=5))
    assert len(set(batch.lengths)) > 1
    _check_all_grads(params, batch, l2=0.01)


@pytest.mark.parametrize("n_layers", [1, 2])
def test_next_word_gradients_match_finite_differences(n_layers):
    vocab = tm.build_vocab([tm.grammar_words()])
    params = tm.init_params(len(vocab), vocab=vocab, d_model=10, n_heads=2, d_k=3,
                            d_v=2, n_layers=n_layers, seed=4)
    sentences = tm.make_grammar_corpus(3, seed=1) + [["the", "zebra", "runs", "."]]
    _check_all_grads(params, tm.encode_next(sentences, vocab), l2=0.01)


def test_softmax_backward_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5))
    g = rng.normal(size=(3, 5))

    def loss():
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return np.sum(g * e / e.sum(axis=-1, keepdims=True))

    s = np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)
    assert rel_error(tm.softmax_backward(s, g), numeric_grad(loss, x)) < TOL
    # rows of the gradient sum to zero (softmax ignores a constant shift)
    np.testing.assert_allclose(tm.softmax_backward(s, g).sum(axis=-1), 0, atol=1e-12)


def test_attention_backward_matches_finite_differences():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    G = rng.normal(size=(4, 2))  # dL/dH for L = sum(G * H)
    scale = 1 / np.sqrt(3)

    def loss():
        return np.sum(G * scaled_dot_product_attention(Q, K, V)[0])

    A = scaled_dot_product_attention(Q, K, V)[1]
    dQ, dK, dV = tm.attention_backward(Q, K, V, A, G, scale)
    for got, arr in ((dQ, Q), (dK, K), (dV, V)):
        assert rel_error(got, numeric_grad(loss, arr)) < TOL


def test_forward_agrees_with_core_multi_head_attention():
    params = tm.init_params(len(tm.CLASSES), n_heads=2, d_k=3, d_v=2, seed=0)
    E = lexicon.embed("we swam near the bank").E
    X, cache = tm.forward(params, E[None])
    dE, weights = multi_head_attention(E, params["W_Q.0"], params["W_K.0"],
                                       params["W_V.0"], params["W_O.0"])
    np.testing.assert_allclose(X[0], E + dE, atol=1e-12)
    np.testing.assert_allclose(cache["weights"][0][0], weights, atol=1e-12)
    # the one-query shortcut used in training gives the same row
    Xq, cq = tm.forward(params, E[None], query_index=np.array([4]))
    np.testing.assert_allclose(Xq[0, 0], X[0, 4], atol=1e-12)
    np.testing.assert_allclose(cq["weights"][0][0, :, 0], weights[:, 4], atol=1e-12)


def test_padding_does_not_change_a_sentence():
    params = tm.init_params(len(tm.CLASSES), n_heads=2, seed=0)
    examples = tm.make_sense_corpus(6, seed=9)
    batch = tm.encode_sense(examples)
    X, cache = tm.forward(params, batch.X0, batch.lengths)
    for b, e in enumerate(examples):
        alone, c1 = tm.forward(params, lexicon.embed(e.tokens).E[None])
        n = len(e.tokens)
        np.testing.assert_allclose(X[b, :n], alone[0], atol=1e-12)
        np.testing.assert_allclose(cache["weights"][0][b, :, :n, :n],
                                   c1["weights"][0][0], atol=1e-12)
        assert np.all(cache["weights"][0][b, :, :, n:] == 0)  # padding gets nothing


def test_causal_model_never_looks_ahead():
    params, _, _ = tm.train_next_model(steps=2)
    tokens = "the moles near the cat dig .".split()
    probs, weights = tm.next_word_probs(params, tokens)
    assert np.all(np.triu(weights[0], k=1) == 0)
    # the prediction after a prefix ignores what follows it
    probs_short, _ = tm.next_word_probs(params, tokens[:3])
    np.testing.assert_allclose(probs[:3], probs_short, atol=1e-12)
    np.testing.assert_allclose(probs.sum(axis=1), 1)


def test_sense_corpus_is_seeded_and_well_formed():
    a = tm.make_sense_corpus(50, seed=11)
    assert a == tm.make_sense_corpus(50, seed=11)
    assert a != tm.make_sense_corpus(50, seed=12)
    lex = lexicon.load_lexicon()
    assert all(w in lex for w in tm.corpus_words())
    for e in a:
        assert e.tokens[e.target_index] == e.word
        assert e.sense in tm.SENSE_LABELS[e.word]
        assert e.topic_positions, "every sentence has a topic word"
        assert e.target_index not in e.topic_positions
    # topic words sit both before and after the ambiguous word, near and far
    offsets = {p - e.target_index for e in tm.make_sense_corpus(300, 0)
               for p in e.topic_positions}
    assert min(offsets) <= -5 and max(offsets) >= 8
    # every sense occurs
    assert {(e.word, e.sense) for e in a} == set(tm.CLASSES)


def test_only_topic_words_tell_senses_apart():
    """A neutral word occurs with every sense; a topic word with one only."""
    seen = {}
    for e in tm.make_sense_corpus(3000, seed=1):
        for i, t in enumerate(e.tokens):
            if i not in e.topic_positions and t not in tm.TARGET_WORDS:
                seen.setdefault(t, set()).add((e.word, e.sense))
    frequent = [t for t, senses in seen.items() if len(senses) < 5]
    assert not frequent, f"neutral words tied to a sense: {frequent}"


def test_grammar_agrees_with_first_noun():
    plural_verbs = {p for _, p in tm.GRAMMAR["verb"]}
    plural_nouns = {p for _, p in tm.GRAMMAR["noun"]}
    for s in tm.make_grammar_corpus(200, seed=3):
        verb = next(w for w in s if any(w in pair for pair in tm.GRAMMAR["verb"]))
        assert (s[1] in plural_nouns) == (verb in plural_verbs)
        assert s[-1] == "."


def test_encode_next_builds_every_prefix():
    vocab = tm.build_vocab([tm.grammar_words()])
    batch = tm.encode_next([["the", "cat", "runs", "."], ["two", "dogs", "run",
                                                        "loudly", "."]], vocab)
    assert batch.valid.sum() == 3 + 4
    assert [vocab[i] for i in batch.next_ids[0, :3]] == ["cat", "runs", "."]


def test_shipped_weights_give_the_stated_figures():
    params = tm.load_trained()
    result = tm.evaluate_sense(params, tm.held_out_sense())
    assert result["accuracy"] >= 0.95
    assert result["topic_attention"] >= 0.90


def test_retraining_reproduces_the_shipped_weights(tmp_path):
    """Same figures everywhere: the last bits of a matrix product depend on the
    CPU's BLAS kernel, so the shipped weights are matched to 1e-12, not bit for
    bit. A real change to the model or its training moves weights by far more."""
    out = tmp_path / "w.npz"
    params, history, _ = tm.train_sense_model()
    tm.save_params(params, out)
    shipped = tm.load_trained()
    again = tm.load_params(out)
    assert again["meta"] == shipped["meta"]
    for name in tm.array_names(shipped):
        np.testing.assert_allclose(again[name], shipped[name], rtol=0, atol=1e-12,
                                   err_msg=name)


def test_retraining_twice_on_one_machine_gives_the_same_bytes(tmp_path):
    """Same bytes on the same machine: nothing in training is left to chance."""
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for path in paths:
        params, _, _ = tm.train_sense_model()
        tm.save_params(params, path)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_a_real_change_is_caught_by_the_tolerance():
    """The 1e-12 tolerance is not a blank cheque: one step less training fails it."""
    steps = tm.SENSE_SETTINGS["steps"] - 1
    params, _, _ = tm.train_sense_model({"steps": steps})
    shipped = tm.load_trained()
    worst = max(float(np.max(np.abs(params[k] - shipped[k])))
                for k in tm.array_names(shipped))
    assert worst > 1e-6


def test_predict_sense_reads_the_topic_word():
    params = tm.load_trained()
    cases = {
        "I swam across the river to get to the other bank": ("bank", "river"),
        "she paid the cash into her account at the bank": ("bank", "money"),
        "American shrew mole": ("mole", "animal"),
        "one mole of carbon dioxide": ("mole", "chemistry"),
        "take a biopsy of the mole": ("mole", "skin"),
    }
    for text, (word, sense) in cases.items():
        pred = tm.predict_sense(params, text)
        assert pred.target_word == word
        assert pred.tokens[pred.target_index] == word
        assert pred.sense_labels == tm.SENSE_LABELS[word]
        assert pred.sense_labels[int(np.argmax(pred.probs))] == sense, text
        assert pred.probs.shape == (len(pred.sense_labels),)
        np.testing.assert_allclose(pred.probs.sum(), 1)
        n = len(pred.tokens)
        assert pred.weights.shape == (params["meta"]["n_heads"], n, n)
        np.testing.assert_allclose(pred.weights.sum(axis=-1), 1)


def test_predict_sense_edge_cases():
    params = tm.load_trained()
    h = params["meta"]["n_heads"]
    empty = tm.predict_sense(params, "")
    assert empty.tokens == [] and empty.target_index is None
    assert empty.probs.shape == (0,) and empty.weights.shape == (h, 0, 0)
    assert tm.predict_sense(params, "   ").target_index is None
    none = tm.predict_sense(params, "the cat sat")
    assert none.target_index is None and none.target_word is None
    assert none.sense_labels == [] and none.weights.shape == (h, 3, 3)
    odd = tm.predict_sense(params, "the zorbly bank 🙂 near the river!!")
    assert odd.unknown == ["zorbly", "🙂"]
    assert odd.target_word == "bank" and odd.tokens[odd.target_index] == "bank"
    # first target word wins
    both = tm.predict_sense(params, "the mole by the bank")
    assert both.target_word == "mole" and both.target_index == 1


def test_load_trained_names_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m tools.make_tinymodel"):
        tm.load_trained(tmp_path / "nope.npz")


def test_next_model_learns_agreement():
    params, history, held_out = tm.train_next_model()
    assert history[-1] < history[0]
    # held out means unseen: no test sentence is one the model trained on
    train = {tuple(x) for x in tm.make_grammar_corpus(600, 0)}
    assert held_out and not train & {tuple(x) for x in held_out}
    assert tm.evaluate_next(params, held_out)["agreement"] >= 0.9
