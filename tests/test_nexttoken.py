"""Tests of helpers.models.nexttoken: the toy bridge from the last vector to a next
word (tied unembedding), and "without the mask the model cheats"."""

import re

import numpy as np
import pytest

from helpers.world import heads, lexicon
from helpers.models import nexttoken as nt
from helpers.models import tiny as tm

MURDER = heads.CURRICULUM_SENTENCES["murderer"]
CRIME_PEOPLE = {"thief", "killer", "murderer", "detective", "victim"}


def _top_set(pred, tol=1e-12):
    """Every word that shares the highest probability."""
    return {w for w, p in zip(pred.vocab, pred.probs) if p > pred.probs.max() - tol}


def _fields(word):
    v = lexicon.load_lexicon().vector(word)
    return {f for f, x in zip(lexicon.FEATURES, v) if x > 0}


# --------------------------------------------------------------------------
# the toy bridge
# --------------------------------------------------------------------------
def test_the_default_vocabulary_is_in_the_table_and_has_names_and_suspects():
    lex = lexicon.load_lexicon()
    assert all(w in lex for w in nt.DEFAULT_VOCAB)
    assert {"tom", "anna", "butler"} | CRIME_PEOPLE <= set(nt.DEFAULT_VOCAB)
    assert len(set(nt.DEFAULT_VOCAB)) == len(nt.DEFAULT_VOCAB)


def test_was_attends_to_murderer_and_absorbs_crime_and_person():
    pred = nt.predict_next(MURDER)
    assert pred.tokens == ["therefore", "the", "murderer", "was"]
    # hand-worked: score 4 for the only noun, 0 for the rest
    np.testing.assert_allclose(pred.weights[-1, 2], np.e**4 / (np.e**4 + 3), atol=1e-12)
    np.testing.assert_allclose(np.triu(pred.weights, 1), 0)  # causal
    np.testing.assert_allclose(pred.weights.sum(axis=1), 1)
    F = {f: i for i, f in enumerate(lexicon.FEATURES)}
    for f in ("noun", "person", "crime"):
        np.testing.assert_allclose(pred.dE[-1, F[f]], 2 * pred.weights[-1, 2],
                                   atol=1e-12)
    assert pred.last[F["verb"]] == 1.0  # "was" keeps being a verb
    np.testing.assert_allclose(pred.last, pred.E[-1] + pred.dE[-1])


def test_with_the_clue_a_crime_person_is_on_top():
    pred = nt.predict_next(MURDER)
    assert _top_set(pred) == CRIME_PEOPLE
    best = pred.probs.max()
    others = [p for w, p in zip(pred.vocab, pred.probs) if w not in CRIME_PEOPLE]
    assert best > 3 * max(others)  # a clear lead, not a knife edge
    assert pred.top(1)[0][0] in CRIME_PEOPLE
    # before attention, "was" alone votes for verbs
    best_base = np.flatnonzero(pred.base_logits == pred.base_logits.max())
    base_top = {pred.vocab[i] for i in best_base}
    assert base_top <= {w for w in pred.vocab if "verb" in _fields(w)}


def test_with_every_word_of_the_table_the_top_words_are_still_crime_people():
    pred = nt.predict_next(MURDER, vocab="all")
    assert len(pred.vocab) == len(lexicon.load_lexicon())
    for word, _ in pred.top(10):
        assert {"crime", "person"} <= _fields(word), word


@pytest.mark.parametrize("text", list(nt.NO_CLUE_SENTENCES.values()))
def test_without_the_clue_the_prediction_changes(text):
    clue, plain = nt.predict_next(MURDER), nt.predict_next(text)
    assert _top_set(plain) != _top_set(clue)
    assert plain.top(1)[0][0] != clue.top(1)[0][0]
    i, j = plain.vocab.index("thief"), plain.vocab.index("tom")
    assert clue.probs[i] > 3 * clue.probs[j]
    assert plain.probs[i] <= plain.probs[j] + 1e-12  # the thief lost its lead
    assert plain.probs[i] < clue.probs[i] / 2


def test_man_makes_every_person_tie_and_it_makes_verbs_win():
    man = nt.predict_next(nt.NO_CLUE_SENTENCES["man"])
    people = {w for w in man.vocab if {"noun", "person"} <= _fields(w)}
    assert _top_set(man) == people
    nobody = nt.predict_next(nt.NO_CLUE_SENTENCES["nobody"])
    np.testing.assert_allclose(nobody.dE[-1], 0, atol=1e-12)  # no noun to read
    assert _top_set(nobody) == {w for w in nobody.vocab if "verb" in _fields(w)}


@pytest.mark.parametrize("text", [MURDER, "the cat sat on the mat", "was"])
def test_logits_are_dot_products_with_the_table_rows_and_probs_sum_to_1(text):
    pred = nt.predict_next(text)
    for k, word in enumerate(pred.vocab):
        row = lexicon.embed([word], positions=False).E[0]
        np.testing.assert_allclose(pred.table[k], row)
        np.testing.assert_allclose(pred.logits[k], float(pred.last @ row), atol=1e-12)
    np.testing.assert_allclose(pred.table[:, len(lexicon.FEATURES):], 0)
    np.testing.assert_allclose(pred.probs.sum(), 1.0, atol=1e-12)
    assert np.all(pred.probs > 0)
    np.testing.assert_allclose(np.log(pred.probs) - np.log(pred.probs[0]),
                               pred.logits - pred.logits[0], atol=1e-9)


def test_top_is_sorted_and_keeps_vocabulary_order_in_ties():
    pred = nt.predict_next(MURDER)
    top = pred.top(7)
    probs = [p for _, p in top]
    assert probs == sorted(probs, reverse=True)
    assert [w for w, _ in top[:5]] == ["thief", "killer", "murderer", "detective",
                                      "victim"]
    assert pred.top(0) == []


def test_another_head_and_vocab_can_be_passed():
    pred = nt.predict_next(MURDER, head=heads.previous_token_head(update=2.0),
                           vocab=["tom", "thief", "cat", "arrested"])
    assert pred.vocab == ["tom", "thief", "cat", "arrested"]
    assert pred.top(1)[0][0] == "thief"


def test_bad_input_says_what_is_wrong():
    with pytest.raises(ValueError, match="empty"):
        nt.predict_next("  ,. ")
    with pytest.raises(ValueError, match="zorbling"):
        nt.predict_next(MURDER, vocab=["tom", "zorbling"])
    with pytest.raises(ValueError, match="twice"):
        nt.predict_next(MURDER, vocab=["tom", "tom"])


# --------------------------------------------------------------------------
# without the mask the model cheats
# --------------------------------------------------------------------------
def test_unmasked_gradients_match_finite_differences():
    """The new path: loss_and_grads(..., causal=False), padding included."""
    vocab = tm.build_vocab([tm.grammar_words()])
    params = tm.init_params(len(vocab), vocab=vocab, d_model=10, n_heads=2, d_k=3,
                            d_v=2, seed=4)
    sentences = tm.make_grammar_corpus(3, seed=1) + [["the", "cats", "run", "."]]
    batch = tm.encode_next(sentences, vocab)
    assert len(set(batch.lengths)) > 1
    _, grads = tm.loss_and_grads(params, batch, l2=0.01, causal=False)
    _, masked = tm.loss_and_grads(params, batch, l2=0.01, causal=True)
    eps = 1e-6
    for name in tm.array_names(params):
        x = params[name]
        num = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            old = x[i]
            x[i] = old + eps
            plus = tm.loss_and_grads(params, batch, l2=0.01, need_grads=False,
                                     causal=False)[0]
            x[i] = old - eps
            minus = tm.loss_and_grads(params, batch, l2=0.01, need_grads=False,
                                      causal=False)[0]
            x[i] = old
            num[i] = (plus - minus) / (2 * eps)
        err = np.linalg.norm(grads[name] - num) / (
            np.linalg.norm(grads[name]) + np.linalg.norm(num))
        assert err < 1e-6, f"{name}: relative error {err:.2e}"
    # the switch matters: attention weights' gradients differ without the mask
    assert not np.allclose(grads["W_Q.0"], masked["W_Q.0"])


def test_causal_true_is_todays_behaviour():
    vocab = tm.build_vocab([tm.grammar_words()])
    params = tm.init_params(len(vocab), vocab=vocab, d_model=8, seed=2)
    batch = tm.encode_next(tm.make_grammar_corpus(5, seed=3), vocab)
    default = tm.loss_and_grads(params, batch)
    explicit = tm.loss_and_grads(params, batch, causal=True)
    assert default[0] == explicit[0]
    for k in default[1]:
        np.testing.assert_array_equal(default[1][k], explicit[1][k])


@pytest.fixture(scope="module")
def lesson_run():
    """The experiment exactly as the lesson runs it (about 3 s)."""
    return nt.cheat_experiment()


def test_without_the_mask_the_training_loss_falls_far_lower(lesson_run):
    m, u = lesson_run.masked, lesson_run.unmasked
    assert m.causal and not u.causal
    assert len(m.losses) == len(u.losses) == nt.CHEAT_SETTINGS["steps"]
    assert u.train_loss < 0.1 < 1.5 < m.train_loss
    assert u.train_loss < m.train_loss / 10
    assert np.mean(u.losses[-20:]) < np.mean(m.losses[-20:]) / 10
    assert u.peek_loss < 0.1  # peeking works on new text too: not memorising


def test_measured_honestly_the_unmasked_model_is_the_bad_one(lesson_run):
    m, u = lesson_run.masked, lesson_run.unmasked
    assert m.honest_loss < 2.0
    assert u.honest_loss > m.honest_loss + 3
    uniform = np.log(len(lesson_run.vocab))
    assert u.honest_loss > uniform  # worse than guessing
    assert abs(m.honest_loss - m.train_loss) < 0.2  # the masked loss was honest


def _grammatical(sentence):
    """DET NOUN [PREP DET NOUN] VERB [ADVERB] . with verb-subject agreement."""
    g = tm.GRAMMAR
    sg_nouns = {s for s, _ in g["noun"]}
    pl_nouns = {p for _, p in g["noun"]}
    det = "(?:" + "|".join(set(g["det_sg"]) | set(g["det_pl"])) + ")"
    noun = "(?:" + "|".join(sg_nouns | pl_nouns) + ")"
    verb = "(?:" + "|".join(w for pair in g["verb"] for w in pair) + ")"
    pattern = (rf"{det} ({noun})(?: (?:{'|'.join(g['prep'])}) {det} {noun})?"
               rf" ({verb})(?: (?:{'|'.join(g['adverb'])}))? \.")
    found = re.fullmatch(pattern, " ".join(sentence))
    if not found:
        return False
    subject, v = found.group(1), found.group(2)
    return (subject in pl_nouns) == (v in {p for _, p in g["verb"]})


def test_only_the_masked_model_generates_sentences(lesson_run):
    m, u = lesson_run.masked, lesson_run.unmasked
    for run in (m, u):
        assert len(run.generated) == nt.CHEAT_SETTINGS["n_generate"]
        assert set(run.generated) <= set(lesson_run.vocab) - set(tm.SPECIALS)
    text = lesson_run.prompt + m.generated
    ends = [i for i, t in enumerate(text) if t == "."]
    sentences = [text[a + 1: b + 1] for a, b in zip([-1] + ends, ends)]
    assert len(sentences) >= 3 and all(_grammatical(s) for s in sentences)
    assert "." not in u.generated  # it never finishes a sentence


def test_same_seed_same_numbers():
    a = nt.cheat_experiment(steps=25, n_generate=8)
    b = nt.cheat_experiment(steps=25, n_generate=8)
    for ra, rb in ((a.masked, b.masked), (a.unmasked, b.unmasked)):
        assert ra.losses == rb.losses
        assert (ra.train_loss, ra.honest_loss, ra.peek_loss) == (
            rb.train_loss, rb.honest_loss, rb.peek_loss)
        assert ra.generated == rb.generated
    c = nt.cheat_experiment(steps=25, n_generate=8, seed=1)
    assert c.masked.losses != a.masked.losses
    # the mask is the only difference: same start, same first batch
    assert a.masked.losses[0] != a.unmasked.losses[0]
    np.testing.assert_allclose(a.masked.losses[0], a.unmasked.losses[0], rtol=0.1)


def test_greedy_generation_and_bad_settings():
    run = nt.cheat_experiment(steps=5, n_generate=4).masked
    g1 = nt.generate(run.params, ["the"], 4, 16, temperature=0)
    g2 = nt.generate(run.params, ["the"], 4, 16, temperature=0, seed=9)
    assert g1 == g2 and len(g1) == 4  # greedy ignores the seed
    with pytest.raises(ValueError, match="temperature"):
        nt.generate(run.params, ["the"], 2, 16, temperature=-1)
    with pytest.raises(TypeError, match="unknown settings"):
        nt.cheat_experiment(stepz=3)
    with pytest.raises(ValueError, match="too short"):
        nt.cheat_experiment(text="the cat sleeps .")


def test_own_text_is_split_on_spaces():
    text = " ".join(" ".join(s) for s in tm.make_grammar_corpus(200, seed=5))
    res = nt.cheat_experiment(text=text, steps=10, n_generate=3)
    assert "." in res.vocab and res.vocab[:2] == list(tm.SPECIALS)
    assert len(res.masked.generated) == 3
