"""The two synthetic tasks of the tiny model (lesson 09), from seeded generators.

* task (a), word sense: sentences containing "bank" or "mole"; topic words
  ("river", "cash", "shrew", "carbon", "biopsy", ...) at varying positions
  and distances, among neutral distractor words, decide the sense. The
  sentences use only lexicon words.
* task (b), next word: a small grammar whose verb must agree with a subject
  several words back ("the moles near the cat dig .").

Also here: turning sentences into the arrays the model reads
(``encode_sense`` -> :class:`SenseBatch`, ``encode_next`` -> :class:`NextBatch`).
The model itself is ``helpers.models.tiny.model``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from helpers.world import heads, lexicon

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
#: sits in town, as in ``helpers.world.heads.SENSES``: "road" and "drove" count).
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


def grammar_words() -> list[str]:
    """Every word of the grammar (its vocabulary, without specials)."""
    g = GRAMMAR
    words = set(g["det_sg"] + g["det_pl"] + g["prep"] + g["adverb"] + ["."])
    for pair in g["noun"] + g["verb"]:
        words.update(pair)
    return sorted(words)


# ---------------------------------------------------------------------------
# Tokens, embeddings, batches
# ---------------------------------------------------------------------------


def tokenize(text) -> list[str]:
    """Lowercase tokens, exactly as everywhere else (``helpers.world.lexicon``)."""
    if text is None:
        return []
    return list(lexicon.tokenize(str(text)))


def build_vocab(sentences) -> list[str]:
    """``<pad>``, ``<unk>``, then every word seen, sorted."""
    words = {t for s in sentences for t in s} - set(SPECIALS)
    return list(SPECIALS) + sorted(words)


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
