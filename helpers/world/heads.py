"""Hand-built attention heads for the toy world of ``helpers.world.lexicon``.

Before we let training find ``W_Q``, ``W_K`` and ``W_V`` (lesson 9), we write
them by hand, so that every number means something. Because every column
of ``E`` has a name (``lexicon.feature_names()``), a matrix can say "copy the
``noun`` column into query slot 0" and we can read it.

Shapes (rows are tokens, row-vector convention, as in lesson 03):

* ``E`` : ``(n_tokens, D_MODEL)``, from ``lexicon.embed``;
* ``W_Q``, ``W_K`` : ``(D_MODEL, d_k)``, so ``Q = E @ W_Q`` is ``(n, d_k)``;
* ``W_V`` : ``(D_MODEL, d_v)`` ("value-down") and ``W_up`` : ``(d_v, D_MODEL)``
  ("value-up"), so that ``dE = A (E W_V) W_up`` lives in embedding space and
  ``E' = E + dE``.

The pattern is ``A = softmax(Q K^T / sqrt(d_k))``: rows are queries, columns
are keys. The heads are scaled so that patterns are clear but not one-hot.

The heads
---------
``adjective_head()``       nouns look for the adjectives just before them.
``sense_head()``           ambiguous words ("bank", "mole") look for the topic
                           words that fix their meaning.
``previous_token_head()``  every token looks at the token before it.
``alignment_head()``       cross-attention: French words look for the English
                           word with the same meaning.

Also here: ``CURRICULUM_SENTENCES`` (re-exported from ``helpers.world.sentences``),
``SENSES`` and ``nearest_sense`` (which meaning of "bank"/"mole" a vector
is closest to; it, ``sense_name`` and ``sense_verdict`` report a tie as a
tie), ``run_head`` (embed + one head) and ``stack_heads`` (all heads at once
for ``attention.multi_head_attention``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from helpers.attention import scaled_dot_product_attention
from helpers.world.lexicon import (
    D_MODEL,
    FEATURES,
    FIELDS,
    N_POS_DIMS,
    POS_AMPLITUDE,
    POS_PERIODS,
    POS_TAGS,
    _features_part,
    cosine,
    embed,
    make_vector,
)
from helpers.world.sentences import CURRICULUM_SENTENCES

__all__ = [
    "Head",
    "HeadRun",
    "CURRICULUM_SENTENCES",
    "SENSE_CLUES",
    "SENSES",
    "adjective_head",
    "sense_head",
    "previous_token_head",
    "alignment_head",
    "all_heads",
    "stack_heads",
    "run_head",
    "CONTENT_FIELDS",
    "read_features",
    "write_features",
    "nearest_sense",
    "nearest_senses",
    "sense_name",
    "sense_verdict",
]

Head = namedtuple("Head", ["name", "W_Q", "W_K", "W_V", "description", "W_up"])
Head.__doc__ = """A hand-built head.

name : str
W_Q, W_K : (D_MODEL, d_k)   query and key projections
W_V : (D_MODEL, d_v)        value-down
description : str          what the head looks for, in words
W_up : (d_v, D_MODEL)       value-up: dE = A (E W_V) W_up
"""

HeadRun = namedtuple("HeadRun", ["tokens", "E", "weights", "dE", "unknown"])
HeadRun.__doc__ = """Result of ``run_head``: tokens, E (n, D_MODEL), weights A
(n, n; rows = queries), dE (n, D_MODEL) and the unknown words."""

_F = {name: i for i, name in enumerate(FEATURES)}
_P0 = len(FEATURES)  # first positional column of E

#: The semantic fields the sense head treats as topic clues.
SENSE_CLUES: tuple[str, ...] = (
    "water", "nature", "town", "money", "animal", "chemistry", "body",
)

#: Fields a value may carry (all semantic fields except ``ambiguous``).
CONTENT_FIELDS = tuple(f for f in FIELDS if f != "ambiguous")


def _sense(fields: str) -> np.ndarray:
    vec = make_vector("noun", fields)
    vec.setflags(write=False)
    return vec


#: The meanings of the ambiguous words, as vectors over FEATURES.
#: The money sort of bank sits in town; the river sort in nature.
SENSES: dict[str, dict[str, np.ndarray]] = {
    "bank": {
        "river": _sense("place;water;nature"),
        "money": _sense("place;money;town"),
    },
    "mole": {
        "animal": _sense("animal"),
        "chemistry": _sense("chemistry"),
        "skin": _sense("body"),
    },
}


# --------------------------------------------------------------------------
# small builders
# --------------------------------------------------------------------------
def read_features(names, scale: float = 1.0) -> np.ndarray:
    """(D_MODEL, len(names)): column k copies feature ``names[k]`` (times
    ``scale``); ``E @ read_features(names)`` reads those features of every
    row. A head's ``W_Q``, ``W_K`` or ``W_V`` built by hand."""
    W = np.zeros((D_MODEL, len(names)))
    for k, name in enumerate(names):
        W[_F[name], k] = scale
    return W


def _pos_block(phi_per_pair, weight_per_pair) -> np.ndarray:
    """(N_POS_DIMS, N_POS_DIMS) map that turns each (sin, cos) pair by phi.

    Positions are ``A (sin t_i, cos t_i)`` with ``t_i = 2 pi i / T``. A key
    keeps its pair as it is; a query pair multiplied by this block becomes
    ``A (sin(t_i - phi), cos(t_i - phi))``, so that the query-key dot product
    of that pair is ``A^2 cos(t_i - t_j - phi)`` (times ``weight``).
    """
    M = np.zeros((N_POS_DIMS, N_POS_DIMS))
    for k, (phi, w) in enumerate(zip(phi_per_pair, weight_per_pair)):
        c, s = np.cos(phi), np.sin(phi)
        M[2 * k: 2 * k + 2, 2 * k: 2 * k + 2] = w * np.array([[c, s], [-s, c]])
    return M


def write_features(names, scale: float = 1.0) -> np.ndarray:
    """(len(names), D_MODEL): slot k writes into feature ``names[k]`` (times
    ``scale``); the transpose of :func:`read_features`. A head's ``W_up``."""
    return read_features(names, scale).T.copy()


# --------------------------------------------------------------------------
# the heads
# --------------------------------------------------------------------------
def adjective_head(strength: float = 4.0, order: float = 1.0) -> Head:
    """Nouns look for the adjectives in front of them ("creature" -> "fluffy", "blue").

    ``d_k = 3``:

    * slot 0, meaning: a noun's query is ``strength`` ("I want an
      adjective"), an adjective's key is 1 ("I am an adjective"). Words
      that are not nouns ask nothing: their row of ``A`` is spread evenly
      (apart from the position slots);
    * slots 1-2, order: the period-7 positional pair, turned by a quarter
      turn, adds ``order * sin(2 pi (i - j) / 7)`` to the scaled score:
      positive for keys 1 to 3 tokens *before* the query, negative for keys
      1 to 3 tokens *after* it (the pattern repeats every 7 tokens; it is
      a mild nudge, the meaning slot does most of the work). So "creature"
      prefers "fluffy" and "blue" (before it) to "verdant" (after it).
      Without positions the three adjectives tie.

    Value: a token hands over its semantic fields (``d_v`` = 23), written
    back into the same columns: after ``E' = E + dE`` "creature" carries
    ``colour`` and ``texture``, i.e. "fluffy blue creature".
    """
    d_k = 3
    sqrt_dk = np.sqrt(d_k)
    W_Q = np.zeros((D_MODEL, d_k))
    W_K = np.zeros((D_MODEL, d_k))
    W_Q[_F["noun"], 0] = strength * sqrt_dk
    W_K[_F["adjective"], 0] = 1.0
    k7 = POS_PERIODS.index(7)
    rows = slice(_P0 + 2 * k7, _P0 + 2 * k7 + 2)
    # the quarter turn: query (s, c) -> (-c, s); dot with key (s', c') is
    # A^2 sin(t_i - t_j)
    W_Q[rows, 1:3] = order * sqrt_dk / POS_AMPLITUDE**2 * np.array(
        [[0.0, 1.0], [-1.0, 0.0]]
    )
    W_K[rows, 1:3] = np.eye(2)
    W_V = read_features(CONTENT_FIELDS)
    W_up = write_features(CONTENT_FIELDS)
    return Head(
        "adjective", W_Q, W_K, W_V,
        "nouns look for the adjectives just before them", W_up,
    )


def sense_head(strength: float = 4.0, update: float = 2.0) -> Head:
    """Ambiguous words look for the topic words that fix their meaning.

    ``d_k = 7``, one slot per topic clue in ``SENSE_CLUES`` (water, nature,
    town, money, animal, chemistry, body):

    * query: a word asks for the topics it belongs to. "bank" is half
      water, nature, town and money, so it asks for all four; "mole" asks
      for animal, chemistry and body;
    * key: a word offers its topics; an ``ambiguous`` word subtracts 1 from
      every slot ("don't ask me, I'm unsure myself"), so "bank" does not
      answer its own question;
    * the scores are scaled so that one shared clue of weight 0.5 x 1
      (e.g. bank's water x river's water) adds ``strength / 2`` to the
      softmax input: "river" (water and nature) gets ``strength``;
    * value: the topic fields, written back by ``W_up`` (times ``update``).

    "I swam across the river ... bank": "river" offers water + nature and
    wins. "I drove across the road ... bank": no money word at all, but
    "road" (and a little "drove") belong to the built world (``town``),
    where the money sort of bank lives, so bank' moves towards money.
    """
    d_k = len(SENSE_CLUES)
    g = np.sqrt(strength * np.sqrt(d_k))  # score scale split over Q and K
    W_Q = read_features(SENSE_CLUES, g)
    W_K = read_features(SENSE_CLUES, g)
    # "ambiguous" is 0.5 in the table, so -2 g per slot takes 1 off each slot
    W_K[_F["ambiguous"], :] = -2 * g
    W_V = read_features(SENSE_CLUES)
    W_up = write_features(SENSE_CLUES, update)
    return Head(
        "sense", W_Q, W_K, W_V,
        "ambiguous words look for topic words that settle their meaning", W_up,
    )


def previous_token_head(strength: float = 8.0, update: float = 0.5) -> Head:
    """Every token looks at the token just before it (uses positions only).

    ``d_k = N_POS_DIMS = 8``. The key of token ``j`` is its position pairs
    as they are. The query of token ``i`` turns every pair back by one step
    (``2 pi / T`` for period ``T``), so it describes position ``i - 1``.
    The dot product is ``0.25 * sum_T cos(2 pi (i - 1 - j) / T)``, largest
    exactly when ``j = i - 1`` (tested for sentences of up to 128 tokens);
    ``strength`` is the softmax input at ``j = i - 1`` (the others get
    less): about 0.9 of the weight on the previous token in a short
    sentence, about 0.6 at 64 tokens. Token 0 has no previous token; it
    mostly looks at itself, the position nearest to "one before the start".

    Value: the previous token's semantic fields, added at half strength,
    so in "river bank flows" the word "bank" picks up "river"'s water.
    Without positions (``embed(..., positions=False)``) this head sees
    nothing and spreads its attention evenly.
    """
    d_k = N_POS_DIMS
    W_Q = np.zeros((D_MODEL, d_k))
    W_K = np.zeros((D_MODEL, d_k))
    steps = [2 * np.pi / T for T in POS_PERIODS]
    scale = strength * np.sqrt(d_k) / (POS_AMPLITUDE**2 * len(POS_PERIODS))
    W_Q[_P0:, :] = _pos_block(steps, [scale] * len(POS_PERIODS))
    W_K[_P0:, :] = np.eye(N_POS_DIMS)
    W_V = read_features(CONTENT_FIELDS)
    W_up = write_features(CONTENT_FIELDS, update)
    return Head(
        "previous token", W_Q, W_K, W_V,
        "every token looks at the token before it", W_up,
    )


def alignment_head(strength: float = 2.0, position: float = 0.3) -> Head:
    """Cross-attention: a French word looks for the English word that means the same.

    Use with ``cross_attention(E_fr, E_en, W_Q, W_K, W_V)``: queries from
    the French sentence (the translation being written), keys and values
    from the English source. Query and key both copy the shared meaning
    columns (part of speech and semantic fields, not the ``french`` flag),
    so "chat" (noun, animal) matches "cat" (noun, animal) better than "mat"
    (noun, home). A little position similarity (``position``) breaks ties
    between repeated words: the second "le" picks the second "the".

    Value: the English word's features (``d_v = len(FEATURES)``), with
    ``W_up`` the identity, so the output row of "chat" is mostly "cat".
    """
    shared = POS_TAGS + CONTENT_FIELDS
    d_k = len(shared) + N_POS_DIMS
    g = np.sqrt(strength * np.sqrt(d_k))
    W_Q = np.zeros((D_MODEL, d_k))
    W_Q[:, : len(shared)] = read_features(shared, g)
    W_K = W_Q.copy()
    gp = np.sqrt(position * np.sqrt(d_k) / (4 * POS_AMPLITUDE**2))
    W_Q[_P0:, len(shared):] = gp * np.eye(N_POS_DIMS)
    W_K[_P0:, len(shared):] = gp * np.eye(N_POS_DIMS)
    W_V = read_features(FEATURES)
    W_up = write_features(FEATURES)
    return Head(
        "alignment", W_Q, W_K, W_V,
        "French words look for the English word with the same meaning", W_up,
    )


def all_heads() -> list[Head]:
    """The three self-attention heads: adjective, sense, previous token."""
    return [adjective_head(), sense_head(), previous_token_head()]


# --------------------------------------------------------------------------
# using heads
# --------------------------------------------------------------------------
def stack_heads(heads):
    """Pack heads for ``attention.multi_head_attention``.

    Returns ``(W_Q, W_K, W_V, W_O)`` with ``W_Q, W_K: (h, D_MODEL, d_k)``,
    ``W_V: (h, D_MODEL, d_v)`` and ``W_O: (h * d_v, D_MODEL)``, where
    ``d_k`` and ``d_v`` are the largest over the heads. ``W_O`` is the
    value-up matrices stacked on top of each other: block ``h`` (rows
    ``h*d_v .. (h+1)*d_v``) is head ``h``'s ``W_up``.

    Smaller heads are padded with zero columns. Padding changes the
    ``1/sqrt(d_k)`` of the softmax, so each padded ``W_Q`` is multiplied
    by ``sqrt(d_k / d_k_head)``: every head keeps exactly its own pattern.
    """
    heads = list(heads)
    if not heads:
        raise ValueError("stack_heads needs at least one head")
    d_k = max(h.W_Q.shape[1] for h in heads)
    d_v = max(h.W_V.shape[1] for h in heads)
    n = len(heads)
    W_Q = np.zeros((n, D_MODEL, d_k))
    W_K = np.zeros((n, D_MODEL, d_k))
    W_V = np.zeros((n, D_MODEL, d_v))
    W_O = np.zeros((n * d_v, D_MODEL))
    for i, h in enumerate(heads):
        dk_h, dv_h = h.W_Q.shape[1], h.W_V.shape[1]
        W_Q[i, :, :dk_h] = h.W_Q * np.sqrt(d_k / dk_h)
        W_K[i, :, :dk_h] = h.W_K
        W_V[i, :, :dv_h] = h.W_V
        W_O[i * d_v: i * d_v + dv_h] = h.W_up
    return W_Q, W_K, W_V, W_O


def run_head(head: Head, text_or_tokens, positions: bool = True, mask=None,
             lexicon=None) -> HeadRun:
    """Embed a sentence and run one head on it.

    ``A = softmax(Q K^T / sqrt(d_k))`` with ``Q = E W_Q``, ``K = E W_K``,
    then ``dE = A (E W_V) W_up`` of shape ``(n, D_MODEL)``.
    """
    tokens, E, unknown = embed(text_or_tokens, positions=positions,
                               lexicon=lexicon)
    out, A = scaled_dot_product_attention(E @ head.W_Q, E @ head.W_K,
                                          E @ head.W_V, mask=mask)
    return HeadRun(tokens, E, A, out @ head.W_up, unknown)


def nearest_sense(word: str, vector):
    """Which sense of ``word`` ("bank" or "mole") is ``vector`` nearest to?

    ``vector`` has length ``len(FEATURES)`` or ``D_MODEL`` (positional
    columns are ignored). Returns ``(best sense, {sense: cosine})``; the
    best sense is ``"tie"`` when several are equally near (:func:`sense_name`).
    """
    if word not in SENSES:
        raise KeyError(f"no senses for {word!r}; known: {sorted(SENSES)}")
    v = np.asarray(vector, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"expected one vector, got shape {v.shape}")
    v = _features_part(v)  # drops the position columns; checks the length
    sims = {name: cosine(v, s) for name, s in SENSES[word].items()}
    return sense_name(sims), sims


def nearest_senses(sims, tol: float = 1e-9) -> list:
    """The senses of ``sims`` ({sense: cosine}) within ``tol`` of the
    largest cosine, in their order: one name, or several when they tie."""
    top = max(sims.values())
    return [name for name, c in sims.items() if top - c < tol]


def sense_name(sims, tol: float = 1e-9) -> str:
    """The nearest sense of ``sims`` ({sense: cosine}), or ``"tie"`` when
    several are equally near (never a winner picked by dictionary order)."""
    best = nearest_senses(sims, tol)
    return best[0] if len(best) == 1 else "tie"


def sense_verdict(sims, tol: float = 1e-9) -> str:
    """``'river (0.87)'``; ``'tie (0.79 each)'`` when every sense is equally
    near, ``'tie: a = b (0.60)'`` when some of them are."""
    best, top = nearest_senses(sims, tol), max(sims.values())
    if len(best) == 1:
        return f"{best[0]} ({top:.2f})"
    if len(best) == len(sims):
        return f"tie ({top:.2f} each)"
    return f"tie: {' = '.join(best)} ({top:.2f})"
