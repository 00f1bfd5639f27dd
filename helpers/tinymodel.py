"""A tiny attention model, trained in plain numpy, backward pass written out.

Lessons 1-8 use hand-built matrices; this module shows where real ones come
from. Everything here is small enough to read and fast enough to train in a
few seconds on a laptop.

The model (row-vector convention, rows are queries, columns are keys)::

    X0 = embeddings + positions          lexicon.embed(...).E (sense model)
                                         or tok_emb[ids] + positions (learned)
    for each layer (one or two):
        Q, K, V = X W_Q, X W_K, X W_V    one set per head
        A = softmax(Q K^T / sqrt(d_k))   core: scaled_dot_product_attention
        X = X + concat_h(A V) W_O        residual update E' = E + dE
    logits = X W_out + b_out

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

Run ``python -m helpers.tinymodel`` to retrain the sense model from its seed
and rewrite ``data/tinymodel_weights.npz`` (byte for byte the same file).
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections import namedtuple
from pathlib import Path

import numpy as np

from helpers import heads, lexicon
from helpers.attention import scaled_dot_product_attention, softmax, softmax_backward

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
]

DEFAULT_WEIGHTS = Path(__file__).resolve().parent.parent / "data" / (
    "tinymodel_weights.npz"
)

PAD, UNK = "<pad>", "<unk>"
SPECIALS = (PAD, UNK)

# ---------------------------------------------------------------------------
# Task (a): word sense
# ---------------------------------------------------------------------------

#: The senses of each ambiguous word, in the order the model outputs them.
SENSE_LABELS = {word: list(heads.SENSES[word]) for word in lexicon.ambiguous_words()}
TARGET_WORDS = tuple(SENSE_LABELS)
#: All output classes of the sense model, as (word, sense) pairs.
CLASSES = [(w, s) for w, senses in SENSE_LABELS.items() for s in senses]

#: Topic words: seeing one of these settles the sense. Every word is in the
#: lexicon, with the semantic field the sense lives in (the money sort of bank
#: sits in town, as in ``helpers.heads.SENSES``: "road" and "drove" count).
TOPIC_WORDS = {
    ("bank", "river"): {
        "noun": "river water lake boat fish beach sea coast waves island".split(),
        "verb": "swam swim flowed".split(),
    },
    ("bank", "money"): {
        "noun": ("money cash coins account deposit loan dollars salary wallet "
                 "card rent road street car").split(),
        "verb": "paid deposited spent drove saved".split(),
    },
    ("mole", "animal"): {
        "noun": ("shrew animal rabbit mouse fox creature snake owl pet "
                 "hamster").split(),
        "verb": [],
    },
    ("mole", "chemistry"): {
        "noun": ("chemistry carbon dioxide oxygen gas acid atoms molecules gram "
                 "experiment lab element").split(),
        "verb": [],
    },
    ("mole", "skin"): {
        "noun": ("skin doctor biopsy face arm nose hand nurse medicine hair "
                 "dentist").split(),
        "verb": [],
    },
}

#: Neutral frames around a topic word: the same frames for every sense, so
#: the frame words never tell the senses apart.
NOUN_FRAMES = ["near the {}", "with the {}", "about the {}", "by the {}",
               "and the {}", "after the {}", "of the {}", "in the {}"]
VERB_FRAMES = ["where we {}", "after they {}", "and she {}", "because i {}"]

#: Neutral pieces: they never decide the sense (the distractors).
OPENERS = [
    "i saw", "we looked at", "she talked about", "he walked to", "they found",
    "you liked", "my friend liked", "everyone knew", "i went to", "we got to",
    "she went to", "he asked about", "i thought about", "they left",
]
AMBIGUOUS_PHRASES = [
    "the {}", "a {}", "that {}", "this {}", "the old {}", "the big {}",
    "the small {}", "the other {}", "the same {}", "a different {}",
]
FILLERS = [
    "yesterday", "on monday", "again", "at noon", "with a friend", "after lunch",
    "for a while", "today", "very slowly", "last week", "in the morning",
    "and then left", "before dinner", "it seemed", "once more",
    "to get there", "on the other side", "this time", "with my brother",
    "because of that", "where i live",
]

SenseExample = namedtuple(
    "SenseExample", "tokens target_index word sense topic_positions"
)
SenseExample.__doc__ = (
    "One sentence of task (a): tokens, the position of the ambiguous word, "
    "the word, its sense, and the positions of the topic words."
)


def _topic_phrase(rng, word, sense):
    topics = TOPIC_WORDS[(word, sense)]
    n_noun, n_verb = len(topics["noun"]), len(topics["verb"])
    k = rng.integers(n_noun + n_verb)
    if k < n_noun:
        frame = NOUN_FRAMES[rng.integers(len(NOUN_FRAMES))]
        return frame.format(topics["noun"][k]).split()
    frame = VERB_FRAMES[rng.integers(len(VERB_FRAMES))]
    return frame.format(topics["verb"][k - n_noun]).split()


def make_sense_corpus(n: int, seed: int = 0):
    """Generate ``n`` word-sense sentences from a seeded generator.

    Each sentence is built from chunks: an opener ("we looked at"), the
    ambiguous phrase ("the old bank"), one or two topic phrases of a single
    sense ("near the river"), placed before and/or after it, and zero to
    three neutral fillers ("yesterday", "on the other side") in random
    slots, so the topic words sit at varying positions and distances. All
    words come from the lexicon; only the topic words tell the senses apart.

    Returns a list of :class:`SenseExample`.
    """
    rng = np.random.default_rng(seed)
    examples = []
    for _ in range(n):
        word = TARGET_WORDS[rng.integers(len(TARGET_WORDS))]
        senses = SENSE_LABELS[word]
        sense = senses[rng.integers(len(senses))]
        opener = OPENERS[rng.integers(len(OPENERS))].split()
        amb = AMBIGUOUS_PHRASES[rng.integers(len(AMBIGUOUS_PHRASES))]
        core = opener + amb.format(word).split()
        n_topic = 1 if rng.random() < 0.6 else 2
        topic_chunks = [_topic_phrase(rng, word, sense) for _ in range(n_topic)]
        if n_topic == 2:
            before, after = topic_chunks[:1], topic_chunks[1:]
        elif rng.random() < 0.35:
            before, after = topic_chunks, []
        else:
            before, after = [], topic_chunks
        chunks = before + [core] + after
        for _ in range(rng.integers(0, 4)):
            filler = FILLERS[rng.integers(len(FILLERS))].split()
            chunks.insert(rng.integers(len(chunks) + 1), filler)
        tokens = [t for chunk in chunks for t in chunk]
        topic_set = set(sum(TOPIC_WORDS[(word, sense)].values(), []))
        target = tokens.index(word)
        topic_positions = tuple(i for i, t in enumerate(tokens) if t in topic_set)
        examples.append(SenseExample(tokens, target, word, sense, topic_positions))
    return examples


def corpus_words() -> set[str]:
    """Every word the sense corpus can contain (all are in the lexicon)."""
    words = set(TARGET_WORDS)
    for group in (OPENERS, AMBIGUOUS_PHRASES, FILLERS, NOUN_FRAMES, VERB_FRAMES):
        for piece in group:
            words.update(piece.replace("{}", " ").split())
    for topics in TOPIC_WORDS.values():
        for ws in topics.values():
            words.update(ws)
    return words


# ---------------------------------------------------------------------------
# Task (b): next word on a small grammar
# ---------------------------------------------------------------------------

GRAMMAR = {
    "det_sg": ["the", "a", "one", "that"],
    "det_pl": ["the", "two", "some", "those"],
    "noun": [("mole", "moles"), ("cat", "cats"), ("dog", "dogs"),
             ("bird", "birds"), ("frog", "frogs")],
    "prep": ["near", "by", "under", "behind"],
    "verb": [("digs", "dig"), ("sleeps", "sleep"), ("runs", "run"),
             ("sings", "sing"), ("eats", "eat")],
    "adverb": ["quickly", "loudly", "today", "again"],
}


def make_grammar_corpus(n: int, seed: int = 0):
    """Generate ``n`` sentences of the grammar ``DET NOUN [PREP DET NOUN] VERB
    [ADVERB] .`` in which the verb agrees in number with the *first* noun.

    The noun inside the optional prepositional phrase has a random number,
    so the nearest noun is often the wrong one to agree with: to predict the
    verb, the last token has to look back at the subject.
    Returns a list of token lists.
    """
    rng = np.random.default_rng(seed)
    g = GRAMMAR
    out = []
    for _ in range(n):
        plural = rng.random() < 0.5
        num = int(plural)
        dets = g["det_pl"] if plural else g["det_sg"]
        toks = [dets[rng.integers(len(dets))], g["noun"][rng.integers(5)][num]]
        if rng.random() < 0.7:
            p2 = int(rng.random() < 0.5)
            dets2 = g["det_pl"] if p2 else g["det_sg"]
            toks += [g["prep"][rng.integers(4)], dets2[rng.integers(4)],
                     g["noun"][rng.integers(5)][p2]]
        toks.append(g["verb"][rng.integers(5)][num])
        if rng.random() < 0.5:
            toks.append(g["adverb"][rng.integers(4)])
        toks.append(".")
        out.append(toks)
    return out


# ---------------------------------------------------------------------------
# Tokens, embeddings, batches
# ---------------------------------------------------------------------------


def tokenize(text) -> list[str]:
    """Lowercase tokens, exactly as everywhere else (``helpers.lexicon``)."""
    if text is None:
        return []
    return list(lexicon.tokenize(str(text)))


def build_vocab(sentences) -> list[str]:
    """``<pad>``, ``<unk>``, then every word seen, sorted."""
    words = {t for s in sentences for t in s} - set(SPECIALS)
    return list(SPECIALS) + sorted(words)


def positions(n: int, d_model: int) -> np.ndarray:
    """``(n, d_model)`` position rows: zeros, except the last
    ``lexicon.N_POS_DIMS`` columns, which hold
    ``lexicon.positional_encoding(n)`` (the same clock hands as lesson 1)."""
    out = np.zeros((n, d_model))
    out[:, d_model - lexicon.N_POS_DIMS:] = lexicon.positional_encoding(n)
    return out


def _pad_rows(rows, width):
    """Stack ``(n_i, d)`` arrays into ``(B, width, d)`` with zero padding."""
    d = rows[0].shape[1] if rows else lexicon.D_MODEL
    out = np.zeros((len(rows), max(width, 1), d))
    for b, r in enumerate(rows):
        out[b, : len(r)] = r
    return out


def embed_sentences(token_lists):
    """Lexicon embeddings ``E`` (features + positions) of several sentences,
    zero-padded: returns ``(X0 (B, n, D_MODEL), lengths (B,))``."""
    rows = [lexicon.embed(list(t)).E for t in token_lists]
    lengths = np.array([len(t) for t in token_lists], dtype=np.int64)
    return _pad_rows(rows, int(lengths.max(initial=0))), lengths


SenseBatch = namedtuple("SenseBatch", "X0 lengths target label allowed")
SenseBatch.__doc__ = (
    "Task (a) as arrays: lexicon embeddings X0 (B, n, D_MODEL), sentence "
    "lengths, the ambiguous word's position, the class index (into CLASSES) "
    "and which classes are allowed (that word's senses)."
)
NextBatch = namedtuple("NextBatch", "ids lengths next_ids valid")
NextBatch.__doc__ = (
    "Task (b) as arrays: token ids (B, n), lengths, for every prefix the id "
    "of the word that follows, and which prefixes have a next word."
)


def encode_sense(examples) -> SenseBatch:
    """Turn :class:`SenseExample` s into a :class:`SenseBatch`."""
    X0, lengths = embed_sentences([e.tokens for e in examples])
    target = np.array([e.target_index for e in examples], dtype=np.int64)
    label = np.array([CLASSES.index((e.word, e.sense)) for e in examples],
                     dtype=np.int64)
    allowed = np.array([[w == e.word for w, _ in CLASSES] for e in examples],
                       dtype=bool).reshape(-1, len(CLASSES))
    return SenseBatch(X0, lengths, target, label, allowed)


def encode_next(sentences, vocab) -> NextBatch:
    """Padded ids plus, for every prefix, the id of the word that follows."""
    index = {w: i for i, w in enumerate(vocab)}
    unk = index[UNK]
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    ids = np.zeros((len(sentences), max(int(lengths.max(initial=0)), 1)),
                   dtype=np.int64)
    for b, s in enumerate(sentences):
        ids[b, : len(s)] = [index.get(t, unk) for t in s]
    next_ids = np.zeros_like(ids)
    next_ids[:, :-1] = ids[:, 1:]
    valid = np.arange(ids.shape[1])[None, :] < (lengths[:, None] - 1)
    return NextBatch(ids, lengths, next_ids, valid)


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


def array_names(params) -> list[str]:
    """Names of the trainable arrays in ``params`` (everything but "meta")."""
    return [k for k in params if k != "meta"]


def init_params(n_out, *, vocab=None, d_model=None, n_heads=1, d_k=4, d_v=4,
                n_layers=1, seed=0):
    """Random starting weights from a seeded generator.

    Without ``vocab`` the model reads the lexicon's embeddings (``d_model =
    lexicon.D_MODEL``, not trained): that is the sense model. With ``vocab``
    it learns its own token embeddings ``tok_emb (len(vocab), d_model)``:
    that is the next-word model. Returns a dict of float64 arrays plus
    ``"meta"`` (sizes, vocabulary, seed).
    """
    if n_layers not in (1, 2):
        raise ValueError(f"n_layers must be 1 or 2, got {n_layers}")
    rng = np.random.default_rng(seed)
    if d_model is None:
        d_model = lexicon.D_MODEL if vocab is None else 16
    if vocab is None and d_model != lexicon.D_MODEL:
        raise ValueError(f"lexicon embeddings have d_model={lexicon.D_MODEL}")
    d, h = d_model, n_heads
    p = {}
    if vocab is not None:
        p["tok_emb"] = rng.normal(0.0, 1.0, (len(vocab), d))
    for layer in range(n_layers):
        p[f"W_Q.{layer}"] = rng.normal(0.0, d**-0.5, (h, d, d_k))
        p[f"W_K.{layer}"] = rng.normal(0.0, d**-0.5, (h, d, d_k))
        p[f"W_V.{layer}"] = rng.normal(0.0, d**-0.5, (h, d, d_v))
        p[f"W_O.{layer}"] = rng.normal(0.0, (h * d_v) ** -0.5, (h * d_v, d))
    p["W_out"] = rng.normal(0.0, d**-0.5, (d, n_out))
    p["b_out"] = np.zeros(n_out)
    p["meta"] = {
        "embedding": "lexicon" if vocab is None else "learned",
        "vocab": None if vocab is None else list(vocab),
        "d_model": d, "n_heads": h, "d_k": d_k, "d_v": d_v,
        "n_layers": n_layers, "seed": seed,
    }
    return p


def embed_ids(params, ids):
    """Learned embeddings plus positions: ``tok_emb[ids] + positions``."""
    return params["tok_emb"][ids] + positions(ids.shape[1], params["meta"]["d_model"])


def _attention_mask(n, lengths, causal, query_index=None):
    """Boolean mask (B, 1, n_query, n): padding keys off, plus the causal
    mask. With ``query_index`` there is one query per sentence, at that
    position."""
    keys = np.arange(n)
    mask = (keys[None, :] < lengths[:, None])[:, None, None, :]  # (B, 1, 1, n)
    if causal:
        if query_index is None:
            mask = mask & np.tril(np.ones((n, n), dtype=bool))
        else:
            mask = mask & (keys[None, :] <= query_index[:, None])[:, None, None, :]
    return mask


def _project(X, W):
    """``X (B, n, d) @ W (h, d, k)`` for all heads in one matrix product."""
    B, n, d = X.shape
    h, _, k = W.shape
    W2 = np.swapaxes(W, 0, 1).reshape(d, h * k)
    return np.swapaxes((X.reshape(B * n, d) @ W2).reshape(B, n, h, k), 1, 2)


def _layer_forward(X, W_Q, W_K, W_V, W_O, mask, query_index=None):
    """One attention layer with a residual connection, ``X (B, n, d)``.

    Normally every token asks (``Xq = X``). With ``query_index (B,)`` only
    that token of each sentence asks: when a loss needs one position only,
    there is no point in computing the other rows of ``A``.
    """
    B = X.shape[0]
    Xq = X if query_index is None else X[np.arange(B), query_index][:, None, :]
    Q, K, V = _project(Xq, W_Q), _project(X, W_K), _project(X, W_V)
    H, A = scaled_dot_product_attention(Q, K, V, mask=mask)  # the core
    h, n_q, d_v = H.shape[1:]
    merged = np.swapaxes(H, 1, 2).reshape(B, n_q, h * d_v)
    Y = Xq + merged @ W_O
    return Y, (X, Xq, query_index, Q, K, V, A, merged)


def forward(params, X0, lengths=None, causal=False, query_index=None):
    """Run the attention layers on embeddings ``X0 (B, n, d_model)``.

    ``lengths`` marks padding (keys past a sentence's end get weight 0);
    ``causal=True`` adds the causal mask. With ``query_index (B,)`` the last
    layer computes only that row of each sentence (output ``(B, 1, d)``).
    Returns ``(X_out, cache)``; ``cache["weights"]`` is one ``(B, h, n_query,
    n)`` attention pattern per layer, the rest is for the backward pass.
    """
    meta = params["meta"]
    X = np.asarray(X0, dtype=np.float64)
    B, n, _ = X.shape
    lengths = np.full(B, n) if lengths is None else np.asarray(lengths)
    qi = None if query_index is None else np.asarray(query_index)
    full_mask = _attention_mask(n, lengths, causal)
    caches = []
    last = meta["n_layers"] - 1
    for layer in range(meta["n_layers"]):
        q = qi if layer == last else None
        mask = full_mask if q is None else _attention_mask(n, lengths, causal, q)
        X, c = _layer_forward(X, *(params[f"{m}.{layer}"] for m in
                                   ("W_Q", "W_K", "W_V", "W_O")), mask, q)
        caches.append(c)
    return X, {"layers": caches, "weights": [c[6] for c in caches]}


# --- backward pieces (shown in the notebook) --------------------------------


def attention_backward(Q, K, V, A, dH, scale):
    """Backward pass of ``H = softmax(scale * Q K^T) V`` (one step at a time).

    Given ``dH = dL/dH`` returns ``(dQ, dK, dV)``:

    * through ``H = A V``:        ``dA = dH V^T``,  ``dV = A^T dH``
    * through the softmax:        ``dS = softmax_backward(A, dA)``
    * through ``S = scale Q K^T``: ``dQ = scale dS K``,  ``dK = scale dS^T Q``
    """
    dA = dH @ np.swapaxes(V, -1, -2)
    dV = np.swapaxes(A, -1, -2) @ dH
    dS = softmax_backward(A, dA)
    dQ = scale * (dS @ K)
    dK = scale * (np.swapaxes(dS, -1, -2) @ Q)
    return dQ, dK, dV


def _layer_backward(dY, cache, W_Q, W_K, W_V, W_O):
    """Backward through one layer: returns dX and the four weight gradients."""
    X, Xq, query_index, Q, K, V, A, merged = cache
    B, n, d = X.shape
    h, _, d_k = W_Q.shape
    n_q = Xq.shape[1]
    dY2 = dY.reshape(B * n_q, d)
    # Y = Xq + merged W_O   (merged = the heads' A V side by side)
    dW_O = merged.reshape(B * n_q, -1).T @ dY2
    dH = np.swapaxes((dY2 @ W_O.T).reshape(B, n_q, h, -1), 1, 2)  # (B, h, n_q, d_v)
    dQ, dK, dV = attention_backward(Q, K, V, A, dH, 1.0 / np.sqrt(d_k))

    def through_projection(Xs, dP, W):  # P = Xs W  ->  dW, dXs
        k = W.shape[2]
        rows = Xs.shape[1]
        dP2 = np.swapaxes(dP, 1, 2).reshape(B * rows, h * k)  # heads side by side
        dW = (Xs.reshape(B * rows, d).T @ dP2).reshape(d, h, k)
        dXs = dP2 @ np.swapaxes(W, 0, 1).reshape(d, h * k).T
        return np.swapaxes(dW, 0, 1), dXs.reshape(B, rows, d)

    dW_Q, dXq = through_projection(Xq, dQ, W_Q)
    dW_K, dX_k = through_projection(X, dK, W_K)
    dW_V, dX_v = through_projection(X, dV, W_V)
    dXq += dY  # the residual path
    dX = dX_k + dX_v
    if query_index is None:
        dX += dXq
    else:
        dX[np.arange(B), query_index] += dXq[:, 0]
    return dX, (dW_Q, dW_K, dW_V, dW_O)


def _backward_layers(params, cache, dX):
    """Gradients of all layer weights; returns ``(grads, dX0)``."""
    grads = {}
    for layer in reversed(range(params["meta"]["n_layers"])):
        names = [f"{m}.{layer}" for m in ("W_Q", "W_K", "W_V", "W_O")]
        dX, layer_grads = _layer_backward(
            dX, cache["layers"][layer], *(params[k] for k in names)
        )
        grads.update(zip(names, layer_grads))
    return grads, dX


def _embedding_grad(params, ids, dX0):
    """Scatter-add the gradient of each token position into its table row."""
    V, d = params["tok_emb"].shape
    flat, g = ids.ravel(), dX0.reshape(-1, d)
    return np.stack([np.bincount(flat, weights=g[:, j], minlength=V)
                     for j in range(d)], axis=1)


def _sense_logits(params, X, target, allowed):
    rows = X[np.arange(X.shape[0]), target]  # (B, d) at the ambiguous word
    logits = rows @ params["W_out"] + params["b_out"]
    return rows, np.where(allowed, logits, -np.inf)


def loss_and_grads(params, batch, l2=0.0, need_grads=True, causal=True):
    """Mean cross-entropy (plus ``l2/2 * sum W^2`` over the ``W_`` matrices)
    and its gradient with respect to every array in ``params``.

    ``batch`` is a :class:`SenseBatch` (task a: one prediction per sentence,
    at the ambiguous word, over that word's senses only) or a
    :class:`NextBatch` (task b: one prediction per prefix, causal mask).
    Returns ``(loss, grads)`` with ``grads`` a dict like ``params`` (None if
    ``need_grads`` is False). ``causal=False`` drops the causal mask of task
    (b), so that each prefix may peek at the words after it (lesson 11's
    "without the mask the model cheats"); the backward pass is the same.
    """
    sense = isinstance(batch, SenseBatch)
    X0 = batch.X0 if sense else embed_ids(params, batch.ids)
    if sense:  # only the ambiguous word's row matters for the loss
        X, cache = forward(params, X0, batch.lengths, query_index=batch.target)
        rows, logits = _sense_logits(params, X, np.zeros_like(batch.target),
                                     batch.allowed)
        p = softmax(logits)
        B = len(batch.label)
        loss = -np.mean(np.log(p[np.arange(B), batch.label]))
        dlogits = p  # d loss / d logits = (p - one_hot) / B
        dlogits[np.arange(B), batch.label] -= 1.0
        dlogits /= B
    else:
        X, cache = forward(params, X0, batch.lengths, causal=causal)
        logits = X @ params["W_out"] + params["b_out"]  # (B, n, vocab)
        p = softmax(logits)
        count = batch.valid.sum()
        nxt = batch.next_ids[..., None]
        picked = np.take_along_axis(p, nxt, -1)[..., 0]
        loss = -np.sum(np.log(np.where(batch.valid, picked, 1.0))) / count
        dlogits = p
        np.put_along_axis(dlogits, nxt, np.take_along_axis(p, nxt, -1) - 1.0, -1)
        dlogits *= batch.valid[..., None] / count
    decayed = [k for k in array_names(params) if k.startswith("W_")]
    if l2:
        loss += 0.5 * l2 * sum(np.sum(params[k] ** 2) for k in decayed)
    if not need_grads:
        return float(loss), None
    d = X.shape[-1]
    grads = {}
    if sense:
        grads["W_out"] = rows.T @ dlogits
        grads["b_out"] = dlogits.sum(axis=0)
        dX = (dlogits @ params["W_out"].T)[:, None, :]  # (B, 1, d)
    else:
        grads["W_out"] = X.reshape(-1, d).T @ dlogits.reshape(-1, dlogits.shape[-1])
        grads["b_out"] = dlogits.sum(axis=(0, 1))
        dX = dlogits @ params["W_out"].T
    layer_grads, dX0 = _backward_layers(params, cache, dX)
    grads.update(layer_grads)
    if not sense:
        grads["tok_emb"] = _embedding_grad(params, batch.ids, dX0)
    for k in decayed:
        grads[k] = grads[k] + l2 * params[k]
    return float(loss), {k: grads[k] for k in array_names(params)}


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


def train(params, batch, *, steps, lr=0.03, l2=0.0, batch_size=None, seed=0,
          callback=None, every=10, causal=True):
    """Adam on ``loss_and_grads``; changes ``params`` in place.

    ``batch_size=None`` uses the whole batch every step; otherwise sentences
    are drawn with a seeded generator. ``callback(step, loss, params)`` is
    called every ``every`` steps and after the last one (that is where a
    notebook updates its progress bar and loss curve).
    ``causal`` is passed on to ``loss_and_grads`` (task b only).
    Returns the list of losses, one per step.
    """
    rng = np.random.default_rng(seed)
    names = array_names(params)
    m = {k: np.zeros_like(params[k]) for k in names}
    v = {k: np.zeros_like(params[k]) for k in names}
    b1, b2, eps = 0.9, 0.999, 1e-8
    B = len(batch.lengths)
    history = []
    for step in range(1, steps + 1):
        if batch_size is None or batch_size >= B:
            sub = batch
        else:
            pick = np.sort(rng.choice(B, size=batch_size, replace=False))
            sub = type(batch)(*(a[pick] for a in batch))
        loss, grads = loss_and_grads(params, sub, l2=l2, causal=causal)
        history.append(loss)
        for k in names:
            m[k] = b1 * m[k] + (1 - b1) * grads[k]
            v[k] = b2 * v[k] + (1 - b2) * grads[k] ** 2
            m_hat = m[k] / (1 - b1**step)
            v_hat = v[k] / (1 - b2**step)
            params[k] -= lr * m_hat / (np.sqrt(v_hat) + eps)
        if callback is not None and (step % every == 0 or step == steps):
            callback(step, loss, params)
    return history


def evaluate_sense(params, examples):
    """Accuracy and attention check on :class:`SenseExample` s.

    Returns a dict with ``accuracy`` (fraction of sentences whose most likely
    sense is right) and ``topic_attention`` (fraction whose ambiguous word's
    most-attended key, in the last layer averaged over heads, is a topic
    word), plus the per-sentence ``predicted`` classes and ``top_key``.
    """
    batch = encode_sense(examples)
    X, cache = forward(params, batch.X0, batch.lengths)
    _, logits = _sense_logits(params, X, batch.target, batch.allowed)
    predicted = np.argmax(logits, axis=1)
    A = cache["weights"][-1].mean(axis=1)  # (B, n, n), heads averaged
    rows = A[np.arange(len(examples)), batch.target]  # (B, n)
    top_key = np.argmax(rows, axis=1)
    on_topic = [k in e.topic_positions for k, e in zip(top_key, examples)]
    return {
        "accuracy": float(np.mean(predicted == batch.label)),
        "topic_attention": float(np.mean(on_topic)),
        "predicted": predicted,
        "top_key": top_key,
    }


def next_word_probs(params, tokens):
    """For every prefix of ``tokens``, the probabilities of the next word
    (shape ``(n, vocab)``), all computed in one causal pass; also returns the
    attention weights (one ``(h, n, n)`` array per layer)."""
    batch = encode_next([list(tokens)], params["meta"]["vocab"])
    X, cache = forward(params, embed_ids(params, batch.ids), causal=True)
    probs = softmax(X[0] @ params["W_out"] + params["b_out"])
    return probs, [w[0] for w in cache["weights"]]


def evaluate_next(params, sentences):
    """Next-word figures on grammar sentences.

    ``agreement``: at the prefix just before the verb, how often the model
    gives more probability to verbs of the right number (singular "digs"
    after "the mole ...", plural "dig" after "the moles ..."), however many
    words stand between. ``loss``: mean cross-entropy over every prefix.
    """
    vocab = params["meta"]["vocab"]
    batch = encode_next(sentences, vocab)
    loss, _ = loss_and_grads(params, batch, need_grads=False)
    X, _ = forward(params, embed_ids(params, batch.ids), batch.lengths, causal=True)
    p = softmax(X @ params["W_out"] + params["b_out"])
    index = {w: i for i, w in enumerate(vocab)}
    sg = [index[s] for s, _ in GRAMMAR["verb"]]
    pl = [index[q] for _, q in GRAMMAR["verb"]]
    hits = []
    for b, s in enumerate(sentences):
        verb_at = next(i for i, w in enumerate(s) if index.get(w) in sg + pl)
        t = verb_at - 1  # the prefix that ends just before the verb
        says_plural = p[b, t, pl].sum() > p[b, t, sg].sum()
        hits.append(bool(says_plural) == (index[s[verb_at]] in pl))
    return {"loss": float(loss), "agreement": float(np.mean(hits))}


def prefix_table(params, tokens, k=3):
    """Rows ``(prefix, true next word, [(word, prob), ...top k])`` for every
    prefix of ``tokens`` (the last token has no next word to predict)."""
    vocab = params["meta"]["vocab"]
    probs, _ = next_word_probs(params, tokens)
    rows = []
    for t in range(len(tokens) - 1):
        top = np.argsort(-probs[t], kind="stable")[:k]
        rows.append((" ".join(tokens[: t + 1]), tokens[t + 1],
                     [(vocab[i], float(probs[t, i])) for i in top]))
    return rows


def train_next_model(steps=200, n_sentences=600, seed=0, callback=None, every=10):
    """A small next-word model on the grammar (task b), trained from seeds:
    learned 16-wide embeddings, one layer of two heads, causal mask.

    Returns ``(params, history, held-out sentences)``."""
    sentences = make_grammar_corpus(n_sentences, seed)
    vocab = build_vocab([grammar_words()])
    params = init_params(len(vocab), vocab=vocab, d_model=16, n_heads=2, d_k=4,
                         d_v=4, seed=seed)
    history = train(params, encode_next(sentences, vocab), steps=steps, lr=0.03,
                    batch_size=32, seed=seed + 1, callback=callback, every=every)
    return params, history, make_grammar_corpus(300, seed + 1000)


def grammar_words() -> list[str]:
    """Every word of the grammar (its vocabulary, without specials)."""
    g = GRAMMAR
    words = set(g["det_sg"] + g["det_pl"] + g["prep"] + g["adverb"] + ["."])
    for pair in g["noun"] + g["verb"]:
        words.update(pair)
    return sorted(words)


# ---------------------------------------------------------------------------
# The shipped sense model
# ---------------------------------------------------------------------------

#: Everything that fixes the shipped model; ``python -m helpers.tinymodel``
#: uses exactly these settings.
SENSE_SETTINGS = {
    "corpus_seed": 2024, "n_train": 400, "test_seed": 7, "n_test": 600,
    "init_seed": 0, "n_heads": 1, "d_k": 4, "d_v": 4, "n_layers": 1,
    "steps": 300, "lr": 0.03, "l2": 3e-3, "batch_size": 32, "train_seed": 1,
}


def train_sense_model(settings=None, callback=None, every=10):
    """Train the sense model from its seeds. Returns ``(params, history,
    seconds)``; same settings, same weights. ``seconds`` is the wall-clock
    time of the training loop (the corpus is generated and embedded first)."""
    s = dict(SENSE_SETTINGS, **(settings or {}))
    batch = encode_sense(make_sense_corpus(s["n_train"], s["corpus_seed"]))
    params = init_params(len(CLASSES), n_heads=s["n_heads"], d_k=s["d_k"],
                         d_v=s["d_v"], n_layers=s["n_layers"], seed=s["init_seed"])
    params["meta"]["settings"] = s
    params["meta"]["classes"] = [f"{w}:{c}" for w, c in CLASSES]
    start = time.perf_counter()
    history = train(params, batch, steps=s["steps"], lr=s["lr"], l2=s["l2"],
                    batch_size=s["batch_size"], seed=s["train_seed"],
                    callback=callback, every=every)
    return params, history, time.perf_counter() - start


def held_out_sense(settings=None):
    """The held-out sentences for the sense model (never trained on)."""
    s = dict(SENSE_SETTINGS, **(settings or {}))
    return make_sense_corpus(s["n_test"], s["test_seed"])


# ---------------------------------------------------------------------------
# Saving and loading
# ---------------------------------------------------------------------------

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def save_params(params, path):
    """Write ``params`` to an ``.npz`` file that ``np.load`` reads.

    Unlike ``np.savez`` the zip entries get a fixed date, so the same
    weights always give the same bytes (retraining leaves git clean).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.asarray(params[k], dtype=np.float64) for k in array_names(params)}
    arrays["meta"] = np.array(json.dumps(params["meta"], sort_keys=True))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arrays[name], allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())


def load_params(path):
    """Read a file written by :func:`save_params`."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"no tiny-model weights at {path}; run `python -m helpers.tinymodel` "
            "from the repository root to create them"
        )
    with np.load(path, allow_pickle=False) as f:
        params = {k: f[k] for k in f.files if k != "meta"}
        params["meta"] = json.loads(str(f["meta"]))
    return params


def load_trained(path=None):
    """The shipped sense model (``data/tinymodel_weights.npz``)."""
    return load_params(DEFAULT_WEIGHTS if path is None else path)


SensePrediction = namedtuple(
    "SensePrediction",
    "tokens unknown target_index target_word sense_labels probs weights",
)
SensePrediction.__doc__ = (
    "What the sense model says about one sentence: its tokens, the words the "
    "lexicon does not know, the position and spelling of the ambiguous word "
    "(None if there is none), that word's sense labels and their "
    "probabilities, and the attention weights (n_heads, n, n) of the last "
    "layer (rows are queries, columns are keys)."
)


def predict_sense(params, text) -> SensePrediction:
    """Predict the sense of the first "bank" or "mole" in ``text``.

    Words the lexicon does not know get its fallback vector (as in every
    lesson) and are listed in ``unknown``; they still take part in the
    attention. Without a target word, ``target_index`` is None, ``probs`` is
    empty and the pattern is still computed. Empty text gives empty arrays.
    """
    h = params["meta"]["n_heads"]
    emb = lexicon.embed(tokenize(text))
    tokens, n = list(emb.tokens), len(emb.tokens)
    if n == 0:
        return SensePrediction([], [], None, None, [], np.zeros(0), np.zeros((h, 0, 0)))
    X, cache = forward(params, emb.E[None])
    weights = cache["weights"][-1][0]
    target = next((i for i, t in enumerate(tokens) if t in SENSE_LABELS), None)
    if target is None:
        return SensePrediction(tokens, list(emb.unknown), None, None, [],
                               np.zeros(0), weights)
    word = tokens[target]
    cols = [i for i, (w, _) in enumerate(CLASSES) if w == word]
    logits = X[0, target] @ params["W_out"][:, cols] + params["b_out"][cols]
    return SensePrediction(tokens, list(emb.unknown), target, word,
                           list(SENSE_LABELS[word]), softmax(logits), weights)


def main(argv=None):
    """Retrain the sense model from its seed and write the weights file."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--out", default=str(DEFAULT_WEIGHTS))
    args = parser.parse_args(argv)
    params, history, seconds = train_sense_model()
    save_params(params, args.out)
    result = evaluate_sense(params, held_out_sense())
    print(f"trained {len(history)} steps in {seconds:.2f} s, final loss "
          f"{history[-1]:.4f}")
    print(f"held-out accuracy {result['accuracy']:.1%}; the most-attended key "
          f"is a topic word in {result['topic_attention']:.1%} of held-out "
          "sentences")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
