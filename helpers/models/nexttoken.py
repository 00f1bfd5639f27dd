"""From the last vector to the next token (lesson 11), in the toy world.

Two pieces of machinery, numpy only, that return numbers (the notebook draws):

1. **The toy bridge.** Lesson 01 ended with "Therefore, the murderer was" and
   the remark that the last vector, the one of "was", must absorb its context
   before it can predict the next word. ``predict_next`` does exactly that:
   one hand-built head updates ``E' = E + dE`` (lesson 05), and the
   *unembedding* turns the last row ``E'_last`` into one logit per candidate
   word, then softmax turns the logits into probabilities.
2. **Without the mask the model cheats.** ``cheat_experiment`` trains the
   next-word model of ``helpers.models.tiny`` twice, on the same text from the
   same seeds, once with the causal mask (lesson 06) and once without, and
   measures both honestly: each next token predicted from its prefix only,
   the way generation has to work.

Weight tying
------------
The unembedding used here is the embedding table itself, transposed. Let
``T`` be the ``(n_vocab, D_MODEL)`` table of the candidate words (their
lexicon rows; the positional columns are 0, because a word's row does not
depend on where it will stand). Then::

    logits = E'_last @ T.T          (n_vocab,)
    logit_w = E'_last . T_w          one dot product per word w

So a word scores high when its own embedding points the same way as the
last vector: the features the context wrote into ``E'_last`` vote for the
words that have those features. GPT-2 uses the same trick ("tied"
embeddings, ``run.logits = ln_f(h) @ wte.T`` in ``helpers.models.gpt``), and it
saves a whole second ``(vocab, d_model)`` matrix.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from helpers.world import lexicon
from helpers.models import tiny as tm
from helpers.attention import causal_mask, softmax
from helpers.world.heads import (
    CONTENT_FIELDS,
    Head,
    read_features,
    run_head,
    write_features,
)

__all__ = [
    "DEFAULT_VOCAB",
    "NO_CLUE_SENTENCES",
    "Prediction",
    "subject_head",
    "unembedding",
    "predict_next",
    "CHEAT_SETTINGS",
    "CheatRun",
    "CheatResult",
    "cheat_experiment",
    "generate",
]

#: The candidate next words (all in the toy table), in readable groups:
#: suspects' first names, other people, the people of a crime story, crime
#: words that are not people, verbs, adjectives, and unrelated things.
DEFAULT_VOCAB: tuple[str, ...] = (
    "tom", "anna", "john", "mary",
    "butler", "man", "woman", "friend", "teacher",
    "thief", "killer", "murderer", "detective", "victim",
    "suspect", "police", "crime",
    "arrested", "caught", "killed", "is",
    "guilty", "innocent", "happy", "tired",
    "cat", "money", "house", "river",
)

#: The lesson's sentence with the clue taken away: a plain man, or no one.
NO_CLUE_SENTENCES: dict[str, str] = {
    "man": "Therefore, the man was",
    "nobody": "Therefore, it was",
}

_F = {name: i for i, name in enumerate(lexicon.FEATURES)}


# --------------------------------------------------------------------------
# 1. the toy bridge
# --------------------------------------------------------------------------
def subject_head(strength: float = 4.0, update: float = 2.0) -> Head:
    """Verbs look for the nouns of their sentence: who or what it is about.

    ``d_k = 1``: a verb's query is ``strength`` ("who is this about?"), a
    noun's key is 1 ("I am a thing or a person"), so the scaled score of a
    verb for a noun is ``strength`` and 0 for every other word. In
    "Therefore, the murderer was" the verb "was" puts about 0.95 of its
    attention on "murderer" (``e^4 / (e^4 + 3)``). Words that are not verbs
    ask nothing: their attention is spread evenly.

    Value: what the noun is, ``noun`` plus its semantic fields (``d_v`` =
    24), written back into the same columns times ``update``. So ``E'`` of
    "was" still says ``verb`` and now also ``noun, person, crime``: the
    sentence is about a criminal person. "Therefore" has no semantic field
    in the toy table (it is just an adverb), so this head has nothing to take
    from it; a trained model would learn that it announces a conclusion.
    """
    W_Q = np.zeros((lexicon.D_MODEL, 1))
    W_K = np.zeros((lexicon.D_MODEL, 1))
    W_Q[_F["verb"], 0] = strength  # sqrt(d_k) = 1
    W_K[_F["noun"], 0] = 1.0
    carried = ("noun",) + CONTENT_FIELDS
    return Head("subject", W_Q, W_K, read_features(carried), "verbs look for the "
                "nouns of their sentence (who or what it is about)",
                write_features(carried, update))


def unembedding(vocab=None) -> tuple[list[str], np.ndarray]:
    """The tied unembedding: ``(words, T)`` with ``T`` of shape
    ``(n_vocab, D_MODEL)``, row ``k`` the toy table's row of ``words[k]``
    (positional columns 0). ``vocab`` is a list of words, None for
    ``DEFAULT_VOCAB``, or ``"all"`` for every word of the table.
    A word the table does not know raises ``ValueError``: there is no row
    to score it with."""
    lex = lexicon.load_lexicon()
    if vocab is None:
        words = list(DEFAULT_VOCAB)
    elif isinstance(vocab, str) and vocab == "all":
        words = list(lex.words)
    elif isinstance(vocab, str):
        raise ValueError(f"vocab must be a list of words or 'all', got {vocab!r}")
    else:
        words = [str(w) for w in vocab]
    if not words:
        raise ValueError("the vocabulary is empty: give at least one word")
    missing = [w for w in words if w not in lex]
    if missing:
        raise ValueError(f"not in the toy table, so the unembedding has no row "
                         f"for them: {missing}")
    if len(set(words)) != len(words):
        raise ValueError("the vocabulary lists a word twice")
    T = lexicon.embed(words, positions=False, lexicon=lex).E
    return words, T


@dataclass
class Prediction:
    """What ``predict_next`` computed for one text.

    tokens : list[str]            the tokens, one per row
    E, dE : (n_tokens, D_MODEL)   embeddings and the head's update
    weights : (n_tokens, n_tokens) the head's pattern A (rows = queries, causal)
    last : (D_MODEL,)             E'_last = E[-1] + dE[-1]
    table : (n_vocab, D_MODEL)    T, the candidates' rows (the unembedding)
    logits : (n_vocab,)           last @ table.T
    base_logits : (n_vocab,)      E[-1] @ table.T, before attention
    probs : (n_vocab,)            softmax(logits), sums to 1
    vocab : list[str]             the candidate words, in table order
    unknown : list[str]           tokens of the text the table does not know
    """

    tokens: list
    E: np.ndarray
    dE: np.ndarray
    weights: np.ndarray
    last: np.ndarray
    table: np.ndarray
    logits: np.ndarray
    base_logits: np.ndarray
    probs: np.ndarray
    vocab: list
    unknown: list = field(default_factory=list)

    def top(self, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` most likely words ``[(word, prob), ...]``, best first.
        Words with equal probability keep their vocabulary order: the toy
        table gives "thief" and "killer" the same row, hence the same
        probability."""
        order = np.argsort(-self.probs, kind="stable")[: max(int(k), 0)]
        return [(self.vocab[i], float(self.probs[i])) for i in order]


def predict_next(text, head: Head | None = None, vocab=None) -> Prediction:
    """Predict the word after ``text`` with one head and the tied unembedding.

    ``E = lexicon.embed(text).E``; the head (default ``subject_head()``)
    gives ``dE = A (E W_V) W_up`` with the causal mask (a token reads only
    itself and the tokens before it, as in every GPT); then
    ``last = E[-1] + dE[-1]``, ``logits = last @ T.T`` with ``T`` the rows of
    the candidate words (see ``unembedding``; the module docstring says why
    each logit is a dot product with a word's row) and ``probs =
    softmax(logits)``. Text with no tokens raises ``ValueError``.
    """
    tokens = lexicon.tokenize(text) if isinstance(text, str) else list(text)
    if not tokens:
        raise ValueError("predict_next needs at least one token, got empty text")
    head = subject_head() if head is None else head
    run = run_head(head, tokens, mask=causal_mask(len(tokens)))
    words, T = unembedding(vocab)
    last = run.E[-1] + run.dE[-1]
    logits = last @ T.T
    return Prediction(list(run.tokens), run.E, run.dE, run.weights, last, T,
                      logits, run.E[-1] @ T.T, softmax(logits), words,
                      list(run.unknown))


# --------------------------------------------------------------------------
# 2. without the mask the model cheats
# --------------------------------------------------------------------------
#: Everything that fixes the experiment (the defaults of ``cheat_experiment``).
CHEAT_SETTINGS = {
    "n_sentences": 2000, "held_out": 0.15, "window": 16, "steps": 400,
    "lr": 0.03, "l2": 1e-3, "batch_size": 32, "d_model": 16, "n_heads": 2,
    "d_k": 4, "d_v": 4, "prompt": "the moles near the cat", "n_generate": 20,
    "temperature": 0.5,
}


@dataclass
class CheatRun:
    """One training run of ``cheat_experiment``.

    causal : bool          trained with the causal mask?
    losses : list[float]   training loss of every step (cross-entropy on
                           that step's batch of windows, without the l2 term)
    train_loss : float     final loss on all training windows, under the
                           conditions it was trained in (mask or not)
    honest_loss : float    held-out loss WITH the causal mask: every next
                           token predicted from its prefix only
    peek_loss : float      held-out loss WITHOUT the mask (peeking allowed)
    generated : list[str]  the prompt's continuation, token by token
                           (sampled, seeded; see ``generate``)
    seconds : float        wall-clock time of the training loop
    params : dict          the trained weights (``helpers.models.tiny`` layout)
    """

    causal: bool
    losses: list
    train_loss: float
    honest_loss: float
    peek_loss: float
    generated: list
    seconds: float
    params: dict = field(repr=False)

    @property
    def text(self) -> str:
        """The generated tokens joined by spaces."""
        return " ".join(self.generated)


@dataclass
class CheatResult:
    """``masked`` and ``unmasked``: two :class:`CheatRun` s of the same model
    on the same data; ``prompt`` (tokens), ``vocab``, ``settings`` used."""

    masked: CheatRun
    unmasked: CheatRun
    prompt: list
    vocab: list
    settings: dict


def _windows(tokens, window):
    """Cut a token stream into non-overlapping windows of ``window`` tokens
    (the last, shorter piece is dropped)."""
    return [tokens[i: i + window] for i in range(0, len(tokens) - window + 1, window)]


def generate(params, prompt, n_tokens: int, window: int, temperature: float = 1.0,
             seed: int = 0) -> list[str]:
    """Generate ``n_tokens`` tokens, one at a time: run the model on the last
    ``window`` tokens (its context size), pick the next token, append it,
    repeat. Returns only the new tokens.

    ``temperature > 0`` samples from ``softmax(logits / temperature)`` with
    a seeded generator (``seed``); ``temperature = 0`` is greedy (argmax).
    Sampling is the safer choice for printed results: in this grammar many
    next words are equally likely ("cat" or "dog"), and greedy choices
    between near-ties can flip on another CPU, a uniform draw almost never
    lands that close to a boundary. The last position has no future to peek
    at, so a model trained without the mask gets no help here.
    """
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    vocab = params["meta"]["vocab"]
    rng = np.random.default_rng(seed)
    tokens = list(prompt)
    new = []
    for _ in range(int(n_tokens)):
        probs, _ = tm.next_word_probs(params, tokens[-window:])
        if temperature == 0:
            k = int(np.argmax(probs[-1]))
        else:
            p = softmax(np.log(np.maximum(probs[-1], 1e-300)) / temperature)
            k = min(int(np.searchsorted(np.cumsum(p), rng.random() * p.sum())),
                    len(vocab) - 1)
        tokens.append(vocab[k])
        new.append(vocab[k])
    return new


def _penalty(params, l2):
    """The weight-decay term ``l2/2 * sum W^2`` that ``helpers.models.tiny`` adds."""
    return 0.5 * l2 * sum(float(np.sum(params[k] ** 2))
                          for k in tm.array_names(params) if k.startswith("W_"))


def _text_tokens(text, n_sentences, seed):
    """The token stream: the grammar corpus by default, else ``text``
    split on spaces (a string) or a list of tokens."""
    if text is None:
        sentences = tm.make_grammar_corpus(n_sentences, seed)
        return [t for s in sentences for t in s]
    tokens = text.split() if isinstance(text, str) else [str(t) for t in text]
    return tokens


def cheat_experiment(text=None, steps: int | None = None, seed: int = 0,
                     **settings) -> CheatResult:
    """Train the same one-layer model twice, with and without the causal mask.

    ``text``: space-separated tokens ("the cat sleeps . the dogs run ."),
    or None for ``CHEAT_SETTINGS["n_sentences"]`` sentences of the tiny
    model's grammar (``tiny.make_grammar_corpus(n, seed)``). The first
    85 % of the tokens are cut into windows of 16 for training, the rest
    is held out. Both runs start from ``tiny.init_params(..., seed)``
    and see the same batches (``tiny.train(..., seed=seed + 1)``): the
    mask is the only difference. ``steps`` (default 400) and the other
    ``CHEAT_SETTINGS`` keys may be overridden as keywords.

    Without the mask, the prediction at position ``i`` may attend to token
    ``i + 1``, the very word it has to predict, so the training loss falls
    close to 0. Measured honestly (``honest_loss``: causal mask, prefix
    only) and asked to generate, where the next word does not exist yet,
    that model fails; the masked one does what its training loss promised.
    """
    unknown = set(settings) - set(CHEAT_SETTINGS)
    if unknown:
        raise TypeError(f"unknown settings {sorted(unknown)}; known: "
                        f"{sorted(CHEAT_SETTINGS)}")
    s = dict(CHEAT_SETTINGS, **settings)
    if steps is not None:
        s["steps"] = int(steps)
    tokens = _text_tokens(text, s["n_sentences"], seed)
    prompt = s["prompt"].split() if isinstance(s["prompt"], str) else list(s["prompt"])
    cut = int(round(len(tokens) * (1 - s["held_out"])))
    train_w = _windows(tokens[:cut], s["window"])
    held_w = _windows(tokens[cut:], s["window"])
    if not train_w or not held_w:
        raise ValueError(f"the text is too short: it needs at least "
                         f"{s['window']} tokens for training and {s['window']} "
                         f"held out ({len(tokens)} tokens given)")
    vocab = tm.build_vocab([tokens, prompt])
    train_b, held_b = tm.encode_next(train_w, vocab), tm.encode_next(held_w, vocab)
    runs = {}
    for causal in (True, False):
        params = tm.init_params(len(vocab), vocab=vocab, d_model=s["d_model"],
                                n_heads=s["n_heads"], d_k=s["d_k"], d_v=s["d_v"],
                                seed=seed)
        # tm.train reports the objective, cross-entropy + l2/2 sum W^2; keep
        # the penalty of the weights each step starts from (the callback
        # sees them right after an update) to report the cross-entropy.
        penalty = [_penalty(params, s["l2"])]
        start = time.perf_counter()
        losses = tm.train(params, train_b, steps=s["steps"], lr=s["lr"], l2=s["l2"],
                          batch_size=s["batch_size"], seed=seed + 1, causal=causal,
                          callback=lambda _s, _l, p: penalty.append(
                              _penalty(p, s["l2"])), every=1)
        seconds = time.perf_counter() - start

        def loss(batch, mask, p=params):
            return tm.loss_and_grads(p, batch, need_grads=False, causal=mask)[0]

        runs[causal] = CheatRun(
            causal, [float(x - q) for x, q in zip(losses, penalty)],
            loss(train_b, causal),
            loss(held_b, True), loss(held_b, False),
            generate(params, prompt, s["n_generate"], s["window"],
                     s["temperature"], seed), seconds, params)
    return CheatResult(runs[True], runs[False], prompt, vocab, s)
