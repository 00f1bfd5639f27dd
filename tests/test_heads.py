"""Tests of helpers/world/heads.py: the hand-built heads do what the lessons say."""

import numpy as np
import pytest

from helpers.attention import (
    cross_attention,
    multi_head_attention,
    scaled_dot_product_attention,
)
from helpers.world import lexicon
from helpers.world.heads import (
    CURRICULUM_SENTENCES,
    SENSES,
    adjective_head,
    alignment_head,
    all_heads,
    nearest_sense,
    previous_token_head,
    run_head,
    sense_head,
    stack_heads,
)
from helpers.world.lexicon import D_MODEL, FEATURES, embed, load_lexicon

HEADS = {
    "adjective": adjective_head(),
    "sense": sense_head(),
    "previous token": previous_token_head(),
}

#: Which query should attend most to which keys, per head and sentence:
#: ``{case: (head name, sentence key, query word, expected key words)}``.
#: The expected keys are the maxima of the query's row (tests check this).
KEY_CASES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "creature": ("adjective", "creature", "creature", ("fluffy", "blue")),
    "forest": ("adjective", "creature", "forest", ("verdant",)),
    "bank_river": ("sense", "bank_river", "bank", ("river",)),
    "bank_money": ("sense", "bank_money", "bank", ("road",)),
    "bank_deposit": ("sense", "bank_deposit", "bank", ("paid", "cash", "account")),
    "river_bank": ("sense", "river_bank", "bank", ("river",)),
    "mole_animal": ("sense", "mole_animal", "mole", ("shrew",)),
    "mole_chemistry": ("sense", "mole_chemistry", "mole", ("carbon", "dioxide")),
    "mole_skin": ("sense", "mole_skin", "mole", ("biopsy",)),
}



def attend(head, sentence, positions=True):
    """tokens, E, A, dE for one head, computed with helpers.attention."""
    tokens, E, _ = embed(sentence, positions=positions)
    out, A = scaled_dot_product_attention(E @ head.W_Q, E @ head.W_K,
                                          E @ head.W_V)
    return tokens, E, A, out @ head.W_up


def test_head_shapes():
    for head in list(HEADS.values()) + [alignment_head()]:
        d_k = head.W_Q.shape[1]
        d_v = head.W_V.shape[1]
        assert head.W_Q.shape == (D_MODEL, d_k)
        assert head.W_K.shape == (D_MODEL, d_k)
        assert head.W_V.shape == (D_MODEL, d_v)
        assert head.W_up.shape == (d_v, D_MODEL)
        assert head.description


def test_curriculum_sentences_constant():
    assert CURRICULUM_SENTENCES["creature"] == (
        "a fluffy blue creature roamed the verdant forest")
    for key in ("bank_river", "bank_money", "mole_animal", "mole_chemistry",
                "mole_skin", "river_bank", "murderer", "translation_en",
                "translation_fr"):
        assert embed(CURRICULUM_SENTENCES[key]).unknown == []


@pytest.mark.parametrize("case", sorted(KEY_CASES))
def test_expected_keys_are_the_maxima_of_the_row(case):
    head_name, sentence_key, query, expected = KEY_CASES[case]
    tokens, _, A, _ = attend(HEADS[head_name], CURRICULUM_SENTENCES[sentence_key])
    row = A[tokens.index(query)]
    top = {tokens[j] for j in np.argsort(-row)[: len(expected)]}
    assert top == set(expected), dict(zip(tokens, row.round(3)))
    # crisp but not one-hot: the expected keys win clearly, yet no weight is 1
    expected_weight = sum(row[tokens.index(w)] for w in expected)
    assert expected_weight > 0.4
    assert row.max() < 0.95
    assert np.isclose(row.sum(), 1.0)


def test_creature_row_by_hand():
    tokens, _, A, dE = attend(HEADS["adjective"], CURRICULUM_SENTENCES["creature"])
    row = dict(zip(tokens, A[3]))
    assert tokens[3] == "creature"
    # the two adjectives before "creature" take most of the weight ...
    assert row["fluffy"] + row["blue"] > 0.8
    # ... and the adjective after it ("verdant") is clearly less attractive
    assert row["verdant"] < 0.5 * min(row["fluffy"], row["blue"])
    # after E' = E + dE "creature" carries colour and texture
    assert dE[3, FEATURES.index("colour")] > 0.4
    assert dE[3, FEATURES.index("texture")] > 0.4


def test_adjective_head_without_positions_still_finds_the_adjectives():
    tokens, _, A, _ = attend(HEADS["adjective"], CURRICULUM_SENTENCES["creature"],
                             positions=False)
    row = A[3]
    # without order information the three adjectives tie
    adjectives = [tokens.index(w) for w in ("fluffy", "blue", "verdant")]
    assert np.allclose(row[adjectives], row[adjectives[0]])
    assert set(np.argsort(-row)[:3]) == set(adjectives)


def test_semantic_heads_ignore_positions():
    n_feat = len(FEATURES)
    for head in (HEADS["sense"], alignment_head()):
        assert np.all(head.W_V[n_feat:] == 0)
    head = HEADS["sense"]
    assert np.all(head.W_Q[n_feat:] == 0) and np.all(head.W_K[n_feat:] == 0)
    for key in ("bank_river", "mole_chemistry"):
        _, _, A_on, _ = attend(head, CURRICULUM_SENTENCES[key])
        _, _, A_off, _ = attend(head, CURRICULUM_SENTENCES[key], positions=False)
        assert np.allclose(A_on, A_off)


@pytest.mark.parametrize(
    "word, sentence_key, sense",
    [
        ("bank", "bank_river", "river"),
        ("bank", "bank_money", "money"),
        ("bank", "bank_deposit", "money"),
        ("bank", "river_bank", "river"),
        ("mole", "mole_animal", "animal"),
        ("mole", "mole_chemistry", "chemistry"),
        ("mole", "mole_skin", "skin"),
    ],
)
def test_sense_head_update_moves_towards_the_right_sense(word, sentence_key,
                                                         sense):
    tokens, E, _, dE = attend(HEADS["sense"], CURRICULUM_SENTENCES[sentence_key])
    i = tokens.index(word)
    # before: the same distance to every sense (the vector mixes them)
    _, before = nearest_sense(word, E[i])
    assert np.allclose(list(before.values()), before[sense])
    # after E' = E + dE: nearest to the right sense, by a clear margin
    best, after = nearest_sense(word, E[i] + dE[i])
    assert best == sense, after
    others = [c for name, c in after.items() if name != sense]
    assert after[sense] > max(others) + 0.1, after


def test_previous_token_head_on_long_sentences():
    words = load_lexicon().words
    rng = np.random.default_rng(0)
    for n in (2, 8, 64, 128):
        sentence = list(rng.choice(words, size=n))
        tokens, _, A, _ = attend(HEADS["previous token"], sentence)
        i = np.arange(1, n)
        assert np.array_equal(A[1:].argmax(axis=1), i - 1), n
        # clear but not one-hot
        assert A[i, i - 1].min() > 0.4
        assert A[i, i - 1].max() < 0.95


def test_previous_token_head_needs_positions():
    _, _, A, _ = attend(HEADS["previous token"], "the black cat sleeps",
                        positions=False)
    assert np.allclose(A, 0.25)


def test_previous_token_value_river_bank():
    tokens, _, _, dE = attend(HEADS["previous token"],
                              CURRICULUM_SENTENCES["river_bank"])
    assert dE[tokens.index("bank"), FEATURES.index("water")] > 0.3


def test_alignment_head_each_french_word_finds_its_translation():
    head = alignment_head()
    lex = load_lexicon()
    fr, X_fr, _ = embed(CURRICULUM_SENTENCES["translation_fr"])
    en, X_en, _ = embed(CURRICULUM_SENTENCES["translation_en"])
    _, A = cross_attention(X_fr, X_en, head.W_Q, head.W_K, head.W_V)
    assert A.shape == (len(fr), len(en))
    for i, word in enumerate(fr):
        translation = lex.info(word)["gloss"].split(" ")[0].rstrip(",")
        assert en[A[i].argmax()] == translation, (word, A[i].round(2))
        assert A[i].max() < 0.95
    # the two "le" pick the "the" in the same place
    assert A[0].argmax() == 0 and A[5].argmax() == 5
    # the word order swap: chat -> cat (2), noir -> black (1)
    assert A[1].argmax() == 2 and A[2].argmax() == 1


def test_stack_heads_matches_separate_heads():
    heads = all_heads()
    W_Q, W_K, W_V, W_O = stack_heads(heads)
    h = len(heads)
    assert W_Q.shape[0] == h and W_Q.shape[1] == D_MODEL
    assert W_O.shape == (h * W_V.shape[2], D_MODEL)
    sentence = CURRICULUM_SENTENCES["bank_river"]
    E = embed(sentence).E
    dE, weights = multi_head_attention(E, W_Q, W_K, W_V, W_O)
    assert weights.shape == (h, E.shape[0], E.shape[0])
    total = np.zeros_like(E)
    for k, head in enumerate(heads):
        run = run_head(head, sentence)
        assert np.allclose(weights[k], run.weights)
        total += run.dE
    assert np.allclose(dE, total)


def test_stack_heads_needs_heads():
    with pytest.raises(ValueError):
        stack_heads([])


def test_senses_and_nearest_sense():
    assert set(SENSES) == {"bank", "mole"}
    assert tuple(SENSES) == lexicon.ambiguous_words()  # one source: the lexicon
    assert set(SENSES["bank"]) == {"river", "money"}
    assert set(SENSES["mole"]) == {"animal", "chemistry", "skin"}
    best, sims = nearest_sense("bank", SENSES["bank"]["money"])
    assert best == "money" and sims["money"] == pytest.approx(1.0)
    with pytest.raises(KeyError):
        nearest_sense("cat", SENSES["bank"]["money"])
    with pytest.raises(ValueError):
        nearest_sense("bank", np.ones(3))


# Everyday sentences (not the lessons' own) whose only clues are ordinary
# money, chemistry, skin, animal or river words (issue 13).
EVERYDAY_SENSES = [
    ("bank", "money",
     "The bank raised its interest rates again, so our loan costs more."),
    ("bank", "money", "I asked the bank for a credit card with a lower fee."),
    ("bank", "money", "My savings account at the bank pays very little interest."),
    ("bank", "river", "We sat on the grassy bank of the stream and watched the ducks."),
    ("bank", "river", "We had a picnic on the muddy bank of the river after the rain."),
    ("mole", "chemistry", "A mole of carbon weighs twelve grams."),
    ("mole", "chemistry", "The chemist weighed one mole of salt and it was 58 grams."),
    ("mole", "chemistry",
     "The scientist measured the mass of one mole of gas in grams."),
    ("mole", "skin",
     "The mole on his cheek has grown, so he is seeing a dermatologist."),
    ("mole", "skin",
     "The doctor looked at the mole on my arm and said the skin was healthy."),
    ("mole", "animal", "The mole dug a long tunnel under the lawn."),
    ("mole", "animal", "The mole came out of its burrow in the field at night."),
]


@pytest.mark.parametrize("word, sense, sentence", EVERYDAY_SENSES)
def test_sense_head_resolves_everyday_clue_words(word, sense, sentence):
    tokens, E, _, dE = attend(HEADS["sense"], sentence)
    assert embed(sentence).unknown == []
    i = tokens.index(word)
    best, after = nearest_sense(word, E[i] + dE[i])
    assert best == sense, after
    others = [c for name, c in after.items() if name != sense]
    assert after[sense] > max(others) + 0.1, after


def test_sense_head_without_clues_stays_undecided():
    # no topic word at all: bank' keeps the same distance to both senses
    tokens, E, _, dE = attend(HEADS["sense"], "we went to the bank")
    i = tokens.index("bank")
    _, after = nearest_sense("bank", E[i] + dE[i])
    assert after["river"] == pytest.approx(after["money"], abs=0.05), after
