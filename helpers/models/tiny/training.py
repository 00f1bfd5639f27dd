"""Training the tiny model (lesson 09): Adam on ``loss_and_grads``, and the
seeded recipes of the shipped sense model and the next-word model."""

from __future__ import annotations

import time

import numpy as np

from helpers.models.tiny.model import array_names, init_params, loss_and_grads
from helpers.models.tiny.corpus import (
    CLASSES,
    build_vocab,
    encode_next,
    encode_sense,
    grammar_words,
    make_grammar_corpus,
    make_sense_corpus,
)
from helpers.runtime.timing import blas_threads


@blas_threads()  # one BLAS thread: faster for these small matrices, busy machine or not
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


def train_next_model(steps=200, n_sentences=600, seed=0, callback=None, every=10):
    """A small next-word model on the grammar (task b), trained from seeds:
    learned 16-wide embeddings, one layer of two heads, causal mask.

    Returns ``(params, history, held-out sentences)``: 300 generated
    sentences less any that also occur in training (a tiny grammar repeats
    some), so that none of them was seen."""
    sentences = make_grammar_corpus(n_sentences, seed)
    vocab = build_vocab([grammar_words()])
    params = init_params(len(vocab), vocab=vocab, d_model=16, n_heads=2, d_k=4,
                         d_v=4, seed=seed)
    history = train(params, encode_next(sentences, vocab), steps=steps, lr=0.03,
                    batch_size=32, seed=seed + 1, callback=callback, every=every)
    seen = {tuple(x) for x in sentences}
    test = [x for x in make_grammar_corpus(300, seed + 1000) if tuple(x) not in seen]
    return params, history, test

#: Everything that fixes the shipped model; ``python -m tools.make_tinymodel``
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
