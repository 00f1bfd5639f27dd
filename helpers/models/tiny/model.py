"""The tiny attention model of lesson 09: forward and backward pass in plain numpy.

The model (row-vector convention, rows are queries, columns are keys)::

    X0 = embeddings + positions          lexicon.embed(...).E (sense model)
                                         or tok_emb[ids] + positions (learned)
    for each layer (one or two):
        Q, K, V = X W_Q, X W_K, X W_V    one set per head
        A = softmax(Q K^T / sqrt(d_k))   core: scaled_dot_product_attention
        X = X + concat_h(A V) W_O        residual update E' = E + dE
    logits = X W_out + b_out

Numpy only. The data it reads come from ``helpers.models.tiny.corpus``;
training is ``helpers.models.tiny.training``, the weights file
``helpers.models.tiny.weights``; ``helpers.models.tiny`` gathers all of them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from helpers.world import lexicon
from helpers.attention import scaled_dot_product_attention, softmax, softmax_backward
from helpers.models.tiny.corpus import (
    CLASSES,
    GRAMMAR,
    SENSE_LABELS,
    SenseBatch,
    encode_next,
    encode_sense,
    tokenize,
)
from helpers.world.positions import N_POS_DIMS, positional_encoding


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


def positions(n: int, d_model: int) -> np.ndarray:
    """``(n, d_model)`` position rows: zeros, except the last
    ``N_POS_DIMS`` columns, which hold
    ``positional_encoding(n)`` (the same clock hands as lesson 1)."""
    out = np.zeros((n, d_model))
    out[:, d_model - N_POS_DIMS:] = positional_encoding(n)
    return out


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
    #                                                   Xq (B, n_q, d), n_q = n or 1
    Q = _project(Xq, W_Q)                                   # (B, h, n_q, d_k)
    K, V = _project(X, W_K), _project(X, W_V)  # (B, h, n, d_k), (B, h, n, d_v)
    H, A = scaled_dot_product_attention(Q, K, V, mask=mask)  # the core
    #                                          H (B, h, n_q, d_v), A (B, h, n_q, n)
    h, n_q, d_v = H.shape[1:]
    merged = np.swapaxes(H, 1, 2).reshape(B, n_q, h * d_v)  # (B, n_q, h d_v)
    Y = Xq + merged @ W_O                                   # (B, n_q, d)
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
    X = np.asarray(X0, dtype=np.float64)                    # (B, n, d_model)
    B, n, _ = X.shape
    lengths = np.full(B, n) if lengths is None else np.asarray(lengths)
    qi = None if query_index is None else np.asarray(query_index)
    full_mask = _attention_mask(n, lengths, causal)         # (B, 1, n or 1, n) bool
    caches = []
    last = meta["n_layers"] - 1
    for layer in range(meta["n_layers"]):
        q = qi if layer == last else None
        mask = full_mask if q is None else _attention_mask(n, lengths, causal, q)
        X, c = _layer_forward(X, *(params[f"{m}.{layer}"] for m in
                                   ("W_Q", "W_K", "W_V", "W_O")), mask, q)
        caches.append(c)
    return X, {"layers": caches, "weights": [c[6] for c in caches]}


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
# Using a trained model
# ---------------------------------------------------------------------------


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
