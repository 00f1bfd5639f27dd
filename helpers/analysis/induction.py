"""Finding an induction head by measurement (lesson 13).

Everything here works on any model of :mod:`helpers.models.gpt` (lesson 11's
Shakespeare GPT, or lesson 13's small attention-only model in
``data/induction/``) and returns numbers; :mod:`helpers.figures.inductionplots`
draws them.

The test text is a random sequence written twice: ``<|endoftext|>``, then
``prefix`` random tokens, then ``length`` random tokens ``r``, then ``r``
again (:func:`repeated_ids`). Only copying can predict the second copy. Of
each copy, the first token is a surprise whatever the model does, so the
copy losses (:func:`copy_losses`) average the other ``length - 1``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from helpers.models import gpt
from helpers.models.layers import layer_norm
from helpers.models.repeats import (  # the sequences and scores training needs too
    chance_prefix_matching,
    copy_losses,
    prefix_matching,
    previous_token,
    repeated_ids,
)

__all__ = [
    "FOLDER",
    "chance_prefix_matching",
    "copy_losses",
    "copying_heads",
    "diagonal_share",
    "icl_score",
    "markov_text",
    "ov_circuit",
    "ratio_interval",
    "path_ablation",
    "qk_circuit",
    "direct_logit_attribution",
    "head_outputs",
    "composition",
    "k_composition",
    "k_composition_baseline",
    "load",
    "prefix_matching",
    "previous_token",
    "repeated_ids",
    "stripe_keys",
    "report",
    "training_log",
]

FOLDER = Path(__file__).resolve().parents[2] / "data" / "induction"


# -- the model and its files ---------------------------------------------------
def load(path=None) -> gpt.GPT:
    """Lesson 13's attention-only model from ``data/induction/`` (or ``path``)."""
    return gpt.load(path or FOLDER)


@functools.lru_cache(maxsize=2)
def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def report(path=None) -> dict:
    """``report.json``: the training recipe and the heads named by measurement
    (``induction_head``: ``[layer, head]``; ``previous_token_heads``)."""
    return dict(_read_json(Path(path or FOLDER) / "report.json"))


def training_log(path=None) -> dict:
    """``training_log.csv`` as ``{column: (n_rows,) array}``: ``step``,
    ``train_loss``, ``copy1_loss``, ``copy2_loss``, and per head ``prev_L_H``
    and ``pm_L_H`` (previous-token and prefix-matching scores)."""
    lines = (Path(path or FOLDER) / "training_log.csv").read_text().split()
    names = lines[0].split(",")
    rows = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    return {name: rows[:, k] for k, name in enumerate(names)}


# -- the test text ----------------------------------------------------------------
def copying_heads(path=None):
    """``(copying head, previous-token heads)`` from ``report.json``: the head
    of layer 1 or later whose ablation costs the second copy most, and the
    layer-0 heads named there; ``((1, 0), [(0, 0)])`` without a report."""
    try:
        rep = report(path)
        ratios = rep["second_copy_loss_ratio_with_each_head_ablated"]
        late = [tuple(int(x) for x in k.split()) for k in ratios if int(k.split()[0])]
        best = max(late, key=lambda h: ratios[f"{h[0]} {h[1]}"])
        return best, [tuple(h) for h in rep["previous_token_heads"]]
    except (OSError, KeyError, ValueError):
        return (1, 0), [(0, 0)]


def stripe_keys(ids) -> np.ndarray:
    """For each query ``q`` of ``ids`` ``(n,)``: the key right after the most
    recent earlier occurrence of ``ids[q]`` (where an induction head looks),
    or -1 when the token has not occurred before. ``(n,)`` ints."""
    ids = np.asarray(ids)
    last, out = {}, np.full(len(ids), -1)
    for q, t in enumerate(ids):
        if int(t) in last:
            out[q] = last[int(t)] + 1
        last[int(t)] = q
    return out


# -- scores that find heads --------------------------------------------------------
# -- K-composition ---------------------------------------------------------------
def _head_maps(model: gpt.GPT, layer: int, head: int):
    """``W_Q, W_K, W_V`` ``(d_model, d_head)`` with ``ln_1``'s gain folded in,
    and ``W_O`` ``(d_head, d_model)``: the head's slice of ``attn.c_proj``."""
    w = model.head_weights(layer, head)
    g = model.blocks[layer]["ln_1.weight"][:, None]
    s = slice(head * model.d_head, (head + 1) * model.d_head)
    W_O = model.blocks[layer]["attn.c_proj.weight"][s]
    return g * w["W_Q"], g * w["W_K"], g * w["W_V"], W_O


def _ratio(M, A, B) -> float:
    """``|M| / (|A| |B|)`` in Frobenius norms: how much of the two factors
    survives in their product ``M``."""
    norm = np.linalg.norm
    return float(norm(M) / (norm(A) * norm(B)))


def _compose(kind, reader, writer) -> float:
    """The composition score of ``kind`` ("Q", "K" or "V") for a reader's and a
    writer's ``(W_Q, W_K, W_V, W_O)``: the reader's query, key or value reads
    the writer's output ``y W_OV`` through ``W_OV W_QK``, ``W_QK W_OV^T`` or
    ``W_OV W_OV'``."""
    W_Q, W_K, W_V2, W_O2 = reader
    W_OV = writer[2] @ writer[3]
    R = W_V2 @ W_O2 if kind == "V" else W_Q @ W_K.T
    M = R @ W_OV.T if kind == "K" else W_OV @ R
    return _ratio(M, R, W_OV)


def _k_comp(W_Q, W_K, W_V, W_O) -> float:
    """K-composition of a reader ``(W_Q, W_K)`` with a writer ``(W_V, W_O)``."""
    return _compose("K", (W_Q, W_K, None, None), (None, None, W_V, W_O))


def composition(model: gpt.GPT, reader, writer, kind: str = "K") -> float:
    """How much head ``reader``'s queries (``kind="Q"``), keys (``"K"``) or
    values (``"V"``) read what head ``writer`` wrote (Elhage et al. 2021):
    ``|M| / (|reader's matrix| |W_OV|)`` in Frobenius norms, with ``M =
    W_QK W_OV^T`` for K, ``W_OV W_QK`` for Q and ``W_OV W_OV'`` for V, where
    ``W_QK = W_Q W_K^T`` and ``W_OV = W_V W_O`` are ``(d_model, d_model)``
    (LayerNorm gains folded in, its centring and scaling left out). Heads
    are ``(layer, head)``."""
    return _compose(kind, _head_maps(model, *reader), _head_maps(model, *writer))


def k_composition(model: gpt.GPT, reader, writer) -> float:
    """:func:`composition` of the keys: ``|W_QK W_OV^T| / (|W_QK| |W_OV|)``."""
    return composition(model, reader, writer, "K")


def k_composition_baseline(
    model: gpt.GPT, samples: int = 200, seed: int = 0, kind: str = "K"
):
    """The same score (:func:`composition`, of ``kind``) for random matrices
    of the model's head shapes: what composition looks like by chance.
    Returns ``(samples,)`` scores."""
    rng = np.random.default_rng(seed)
    d, dh = model.d_model, model.d_head

    def head():
        W_Q, W_K, W_V = (rng.normal(size=(d, dh)) for _ in range(3))
        return W_Q, W_K, W_V, rng.normal(size=(dh, d))

    return np.array([_compose(kind, head(), head()) for _ in range(samples)])


# -- what each head writes ---------------------------------------------------------
def head_outputs(model: gpt.GPT, ids, ablate=()) -> dict:
    """Run ``ids`` and split the final residual stream into its parts.

    Returns ``{"parts": (n_parts, n, d_model), "names": [...], "run": Run}``:
    the embeddings (token + position), each head's output through its slice
    of ``W_O`` (named ``"L0 H1"``), each layer's ``W_O`` bias and MLP. The
    parts add up to ``run.hidden[-1]``.
    """
    run = model.run(ids, ablate=ablate)
    ablate = {(int(a), int(b)) for a, b in ablate}
    n = len(run.ids)
    parts = [model.wte[run.ids] + model.wpe[:n]]
    names = ["embeddings"]
    for layer, b in enumerate(model.blocks):
        h = run.hidden[layer]
        v = model.qkv(layer, h)[2]
        z = run.attention[layer] @ v  # (heads, n, d_head)
        W_O = b["attn.c_proj.weight"]
        for hd in range(model.n_heads):
            s = slice(hd * model.d_head, (hd + 1) * model.d_head)
            on = (layer, hd) not in ablate
            parts.append(z[hd] @ W_O[s] if on else np.zeros((n, model.d_model)))
            names.append(f"L{layer} H{hd}")
        after_attn = h + sum(parts[-model.n_heads :]) + b["attn.c_proj.bias"]
        parts.append(np.broadcast_to(b["attn.c_proj.bias"], (n, model.d_model)))
        names.append(f"L{layer} bias")
        parts.append(run.hidden[layer + 1] - after_attn)
        names.append(f"L{layer} MLP")
    return {"parts": np.stack(parts), "names": names, "run": run}


def direct_logit_attribution(model: gpt.GPT, ids, positions=None) -> dict:
    """Split the logit of the correct next token into what each part of the
    residual stream adds (direct logit attribution).

    The final LayerNorm's scale is taken from the full residual and held
    fixed, so the logit is a sum over parts: for part ``c`` at position t,
    ``((c_t - mean(c_t)) / sigma_t * gamma) . wte[next token]``, plus the
    LayerNorm's bias term. Returns ``{"names", "per_part": (n_parts, m),
    "bias": (m,), "logit": (m,)}`` for the ``m`` positions asked
    (default: all but the last); ``per_part.sum(0) + bias == logit``.
    """
    h = head_outputs(model, ids)
    run, parts = h["run"], h["parts"]
    n = len(run.ids)
    t = np.arange(n - 1) if positions is None else np.asarray(positions)
    target = run.ids[t + 1]
    gamma, beta = model.ln_f
    resid = run.hidden[-1][t]
    sigma = np.sqrt(resid.var(axis=-1) + gpt.LAYER_NORM_EPS)  # (m,)
    c = parts[:, t]  # (n_parts, m, d)
    c = (c - c.mean(axis=-1, keepdims=True)) / sigma[:, None] * gamma
    U = model.wte[target]  # (m, d)
    per_part = (c * U).sum(axis=-1)
    bias = U @ beta
    logit = (layer_norm(resid, gamma, beta) * U).sum(axis=-1)
    return {"names": h["names"], "per_part": per_part, "bias": bias, "logit": logit}


# -- path ablation: which input of layer 1 reads the previous-token head -------------
def path_ablation(model: gpt.GPT, ids, writer=(0, 0), paths="K", reader: int = 1):
    """Run ``ids`` with head ``writer``'s output removed from the input of
    layer ``reader``'s queries, keys or values only (``paths``: any of
    ``"Q"``, ``"K"``, ``"V"``), and left everywhere else (the residual stream
    itself, so its direct effect on the logits stays). ``paths=""`` is the
    intact model. Returns the :class:`helpers.models.gpt.Run`."""
    from helpers.attention import causal_mask, scaled_dot_product_attention

    ids = np.asarray(ids, dtype=np.int64)
    n, (wl, wh) = len(ids), writer
    mask = causal_mask(n)
    h = model.wte[ids] + model.wpe[:n]
    hidden, attention, written = [h], [], np.zeros_like(h)
    for layer, b in enumerate(model.blocks):
        q, k, v = model.qkv(layer, h)
        if layer == reader and paths:
            cut = model.qkv(layer, h - written)
            q, k, v = (cut[i] if x in paths else m for i, (x, m) in
                       enumerate(zip("QKV", (q, k, v))))
        out, A = scaled_dot_product_attention(q, k, v, mask=mask)
        attention.append(A)
        if layer == wl:
            s = slice(wh * model.d_head, (wh + 1) * model.d_head)
            written = out[wh] @ b["attn.c_proj.weight"][s]
        h = model.finish(layer, h, out)
        hidden.append(h)
    return gpt.Run(ids=ids, tokens=[model.piece(i) for i in ids],
                   logits=model.unembed(h), attention=np.stack(attention),
                   hidden=np.stack(hidden))


def head_output(model: gpt.GPT, ids, head) -> np.ndarray:
    """Head ``(layer, head)``'s output on ``ids``: ``(n, d_head)``, what it
    hands to ``attn.c_proj`` (zero-ablation sets this to 0)."""
    return _replaced_run(model, ids, head, None)[1]


def mean_ablation(model: gpt.GPT, ids, head, texts):
    """Run ``ids`` with head ``(layer, head)``'s output replaced by its mean
    over ``texts`` (position by position; each text as long as ``ids``), not
    by zero: the head still writes what it writes on average, only not what
    it found in this text. Returns the :class:`helpers.models.gpt.Run`."""
    mean = np.mean([head_output(model, t, head) for t in texts], axis=0)
    return _replaced_run(model, ids, head, mean)[0]


def _replaced_run(model, ids, head, value):
    """``(run, output)``: the forward pass with head ``head``'s output
    replaced by ``value`` ``(n, d_head)`` (None: left as it is), and the
    head's own output before any replacement."""
    from helpers.attention import causal_mask, scaled_dot_product_attention

    ids = np.asarray(ids, dtype=np.int64)
    n, (hl, hh) = len(ids), head
    mask = causal_mask(n)
    h = model.wte[ids] + model.wpe[:n]
    hidden, attention, own = [h], [], None
    for layer in range(len(model.blocks)):
        q, k, v = model.qkv(layer, h)
        out, A = scaled_dot_product_attention(q, k, v, mask=mask)
        attention.append(A)
        if layer == hl:
            own = out[hh].copy()
            if value is not None:
                out = out.copy()
                out[hh] = value
        h = model.finish(layer, h, out)
        hidden.append(h)
    run = gpt.Run(ids=ids, tokens=[model.piece(i) for i in ids],
                  logits=model.unembed(h), attention=np.stack(attention),
                  hidden=np.stack(hidden))
    return run, own


# -- the induction head's circuits, read from the weights ----------------------------
def _token_inputs(model: gpt.GPT, layer: int, written=None) -> np.ndarray:
    """``(vocab, d_model)``: each token's embedding (plus the mean position of
    a 64-token window, or ``written``, what a head writes for each token) as
    block ``layer``'s LayerNorm hands it to the heads."""
    b = model.blocks[layer]
    x = model.wte + model.wpe[:64].mean(axis=0) if written is None else written
    return layer_norm(x, b["ln_1.weight"], b["ln_1.bias"])


def ov_circuit(model: gpt.GPT, head) -> np.ndarray:
    """The OV circuit ``W_E W_OV W_U`` of ``head`` ``(layer, head)``:
    ``(vocab, vocab)``, row = the token attended to, column = the logit it
    raises (each row centred). LayerNorms folded in: the token's embedding
    through ``ln_1``, the head's output through ``ln_f``'s gain."""
    layer, hd = head
    W_Q, W_K, W_V, W_O = _head_maps(model, layer, hd)
    x = _token_inputs(model, layer)
    g = model.blocks[layer]["ln_1.weight"]
    out = (x / g) @ W_V @ W_O  # _head_maps folded the gain into W_V
    M = (out * model.ln_f[0]) @ model.wte.T
    return M - M.mean(axis=1, keepdims=True)


def qk_circuit(model: gpt.GPT, head, writer=(0, 0)) -> np.ndarray:
    """The full QK circuit of ``head`` through ``writer`` (the previous-token
    head): ``(vocab, vocab)``, row = the query's token, column = the token
    ``writer`` wrote into the key's position (the key's previous token), the
    score the query gives that key. Each row centred."""
    layer, hd = head
    W_Q, W_K, _, _ = _head_maps(model, layer, hd)
    g = model.blocks[layer]["ln_1.weight"]
    _, _, W_V0, W_O0 = _head_maps(model, *writer)
    written = _token_inputs(model, writer[0]) @ W_V0 @ W_O0  # what writer adds
    q = _token_inputs(model, layer) / g @ W_Q
    # the key position's own residual is the rest of its input: its mean
    rest = model.wte.mean(axis=0) + model.wpe[:64].mean(axis=0)
    k = _token_inputs(model, layer, written + rest) / g @ W_K
    M = q @ k.T / np.sqrt(model.d_head)
    return M - M.mean(axis=1, keepdims=True)


def diagonal_share(M: np.ndarray) -> float:
    """Share of rows (token 0, ``<|endoftext|>``, left out) whose largest
    entry is on the diagonal: the copying score of an OV circuit, the
    matching score of a QK circuit."""
    M = np.asarray(M)[1:, 1:]
    return float(np.mean(M.argmax(axis=1) == np.arange(len(M))))


# -- in-context learning --------------------------------------------------------------
def markov_text(vocab_size: int, n: int = 64, seed: int = 0, alphabet=(6, 24),
                follow: float = 0.65) -> np.ndarray:
    """A text like the training texts, from a seed of its own: ``<|endoftext|>``,
    then ``n - 1`` words walking a random cycle through 6-24 random words,
    jumping to a random word of the set ``1 - follow`` of the time. ``(n,)``."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(alphabet[0], alphabet[1] + 1))
    words = 1 + rng.permutation(vocab_size - 1)[:k]
    place, out = int(rng.integers(k)), [gpt.BOS]
    for _ in range(n - 1):
        out.append(int(words[place]))
        place = (place + 1) % k if rng.random() < follow else int(rng.integers(k))
    return np.array(out, dtype=np.int64)


def icl_score(losses: np.ndarray, early: int = 10, late: int = 50) -> float:
    """In-context-learning score (Olsson et al. 2022): the mean loss on
    token ``late`` minus that on token ``early``; ``losses`` ``(texts,
    n - 1)`` from ``loss_per_position()``, so token t is column ``t - 1``.
    Negative: later tokens are cheaper, the context helps."""
    losses = np.atleast_2d(losses)
    return float(losses[:, late - 1].mean() - losses[:, early - 1].mean())


def ratio_interval(ablated, intact, level: float = 0.95, resamples: int = 2000,
                   seed: int = 0) -> tuple[float, float, float]:
    """``(ratio, low, high)``: ``mean(ablated) / mean(intact)`` over the same
    texts (one loss per text in each, ``(texts,)``) and its ``level``
    interval, from ``resamples`` seeded resamples of the texts (bootstrap:
    a text drawn is drawn for both means)."""
    ablated, intact = np.asarray(ablated, float), np.asarray(intact, float)
    if ablated.shape != intact.shape or ablated.ndim != 1 or len(ablated) < 2:
        raise ValueError("need one loss per text, the same texts, at least two")
    n = len(intact)
    pick = np.random.default_rng(seed).integers(0, n, (resamples, n))  # texts drawn
    ratios = ablated[pick].mean(axis=1) / intact[pick].mean(axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(ablated.mean() / intact.mean()), float(low), float(high)
