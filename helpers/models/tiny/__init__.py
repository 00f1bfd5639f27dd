"""A tiny attention model, trained in plain numpy, backward pass written out.

Lessons 1-8 use hand-built matrices; this module shows where real ones come
from. Everything here is small enough to read and fast enough to train in a
few seconds on a laptop.

Two synthetic tasks, both generated from a seeded generator (no download):

* task (a), word sense: sentences containing "bank" or "mole"; topic words
  ("river", "cash", "shrew", "carbon", "biopsy", ...) at varying positions
  and distances, among neutral distractor words, decide the sense. The
  model reads the lexicon's embeddings (so it has a vector for every word
  of the series, and unknown words are handled as everywhere else) and
  predicts the sense at the ambiguous word's position.
* task (b), next word: a small grammar whose verb must agree with a subject
  several words back ("the moles near the cat dig ."); learned embeddings,
  causal mask, a prediction for every prefix at once.

This package is lesson 09's model (``from helpers.models import tiny as
tm``); its ``__init__`` gathers the pieces under that one name: the model in
``model`` (numpy only; its equations are in that module's docstring), the
corpora and batches in ``corpus``, training in ``training`` and the weights
file in ``weights``. Run ``python -m tools.make_tinymodel`` to retrain the
sense model from its seed and rewrite ``data/tinymodel_weights.npz`` (the
same arrays; on one machine, the same bytes twice).
"""

from __future__ import annotations

from helpers.models.tiny.model import (
    array_names,
    attention_backward,
    embed_ids,
    evaluate_next,
    evaluate_sense,
    forward,
    init_params,
    loss_and_grads,
    next_word_probs,
    positions,
    predict_sense,
    prefix_table,
    SensePrediction,
    softmax_backward,
)
from helpers.models.tiny.corpus import (
    AMBIGUOUS_PHRASES,
    CLASSES,
    FILLERS,
    GRAMMAR,
    NOUN_FRAMES,
    OPENERS,
    PAD,
    SENSE_LABELS,
    SPECIALS,
    TARGET_WORDS,
    TOPIC_WORDS,
    UNK,
    VERB_FRAMES,
    NextBatch,
    SenseBatch,
    SenseExample,
    build_vocab,
    corpus_words,
    embed_sentences,
    encode_next,
    encode_sense,
    grammar_words,
    make_grammar_corpus,
    make_sense_corpus,
    tokenize,
)
from helpers.models.tiny.weights import (
    DEFAULT_WEIGHTS,
    load_params,
    load_trained,
    save_params,
)
from helpers.models.tiny.training import (
    SENSE_SETTINGS,
    held_out_sense,
    train,
    train_next_model,
    train_sense_model,
)

__all__ = [
    "SENSE_LABELS",
    "CLASSES",
    "TARGET_WORDS",
    "SenseExample",
    "SensePrediction",
    "make_sense_corpus",
    "make_grammar_corpus",
    "build_vocab",
    "encode_sense",
    "encode_next",
    "tokenize",
    "positions",
    "init_params",
    "forward",
    "loss_and_grads",
    "softmax_backward",
    "attention_backward",
    "train",
    "train_next_model",
    "grammar_words",
    "corpus_words",
    "held_out_sense",
    "embed_sentences",
    "evaluate_sense",
    "evaluate_next",
    "prefix_table",
    "train_sense_model",
    "save_params",
    "load_params",
    "load_trained",
    "predict_sense",
    "next_word_probs",
    "array_names",
    "DEFAULT_WEIGHTS",
    "SENSE_SETTINGS",
    # also used by lessons and tests under this name
    "AMBIGUOUS_PHRASES",
    "FILLERS",
    "GRAMMAR",
    "NOUN_FRAMES",
    "OPENERS",
    "PAD",
    "SPECIALS",
    "TOPIC_WORDS",
    "UNK",
    "VERB_FRAMES",
    "NextBatch",
    "SenseBatch",
    "embed_ids",
]
