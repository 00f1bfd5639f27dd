"""Training lesson 13's attention-only GPT in plain numpy: the forward pass,
its backward pass written out, AdamW, the copying data, and a training loop
that calls back every few hundred steps (the lesson's "train it yourself"
cell and ``tools/train_induction.py --numpy``).

The model is GPT-2's layout without the MLP (``data/induction/``): token and
learned position embeddings, pre-LayerNorm blocks of causal multi-head
attention (``attn.c_attn`` holds W_Q, W_K, W_V side by side, ``attn.c_proj``
is W_O, both with biases), a final LayerNorm and the tied unembedding. In
the notation of the series (row vectors, rows are queries)::

    h = wte[ids] + wpe[:n]                           (batch, n_tokens, d_model)
    a = ln_1(h);  Q K V = a W_QKV + b_QKV             each (batch, heads, n, d_head)
    A = softmax(Q K^T / sqrt(d_head) + causal mask)   (batch, heads, n, n)
    h = h + concat_heads(A V) W_O + b_O               once per layer
    logits = ln_f(h) wte^T                           (batch, n_tokens, vocab)

The parameters are a dict of arrays under GPT-2's tensor names without
``transformer.`` (``"wte.weight"``, ``"h.0.attn.c_attn.weight"`` ``(d_model,
3 d_model)``, ...); :func:`save` writes them as a folder that
:func:`helpers.models.gpt.load` and ``transformers`` open (the MLP and
``ln_2`` it lacks are written as zeros and as the identity). The loss is
ordinary next-token cross-entropy: nothing here looks at an attention
pattern, and the heads are named afterwards, by measurement.

The data (:func:`markov_windows`, :func:`repeat_window`): in-context Markov
chains, each window a walk on a small random alphabet arranged in a cycle,
so that a head that finds the current word earlier and reads what came
after it helps most (the word before it says something too); after the phase
change, plain repeats join in.
:data:`RECIPE` is the live recipe: it grows a previous-token head in layer 0
and an induction head in layer 1 (data/README.md, induction/, numpy pilots).
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path

import numpy as np

from helpers.models.layers import layer_norm_backward, layer_norm_cached
from helpers.models.repeats import (
    copy_losses,
    markov_windows,
    prefix_matching,
    previous_token,
    repeat_window,
    repeated_ids,
)
from helpers.runtime.timing import blas_threads

__all__ = ["CONFIG", "PROBE_SEEDS", "RECIPE", "init_params", "forward", "AdamW",
           "loss_and_grads", "learning_rate", "markov_windows", "repeat_window",
           "training_batch", "probe_scores", "train", "save", "as_model", "tokenizer",
           "symbols", "write_tokenizer"]

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {"n_layer": 2, "n_head": 2, "n_embd": 64, "n_positions": 256,
          "vocab_size": 128}
EPS = 1e-5  # LayerNorm's epsilon, as in GPT-2
#: The probes of the training log: ``<|endoftext|>``, 0-23 random words, then
#: 8-20 random words written twice (never the lesson's or the bar's seeds).
PROBE_SEEDS = range(424200, 424216)

#: The live recipe: every setting of :func:`train`.
RECIPE = {
    "seed": 1313,
    "steps": 16000,      # at most (the run ends phase2_steps after phase 2 starts)
    "batch": 16,
    "window": 64,        # ids per window (63 predictions)
    "lr": 3e-3,
    "warmup": 100,       # steps of a linear warm-up to lr
    "decay_from": None,  # then a cosine to final_lr * lr at the last step
    #                      (None: where phase 2 starts)
    "final_lr": 0.1,
    "betas": (0.9, 0.98),
    "weight_decay": 0.01,
    "clip": 1.0,         # global gradient norm
    "wpe_std": 0.01,     # the position embeddings' initial scale
    "alphabet": (6, 24),  # words per Markov window
    "follow": 0.7,       # chance that a word is followed by its successor
    #                      (or ((from_step, chance), ...): a schedule)
    "phase2_from": None,  # from here: a share of plain repeats, chains tighter;
    #   None: phase2_after steps after the phase change, when the probes'
    #   second copy first costs less than half the first
    "phase2_after": 1500,
    "phase2_steps": 3000,
    "phase2_repeats": 0.5,
    "phase2_follow": 0.9,
}
#: How often the training loop looks for the phase change (probes), in steps.
CHECK_EVERY = 250

# -- the model --------------------------------------------------------------------
def init_params(config=None, seed: int = 0, dtype=np.float32,
                wpe_std: float = 0.01) -> dict:
    """GPT-2's initialisation: embeddings and ``c_attn`` N(0, 0.02) (positions
    N(0, ``wpe_std``)), ``c_proj`` N(0, 0.02 / sqrt(2 n_layer)), biases 0,
    LayerNorm gains 1."""
    c = dict(CONFIG, **(config or {}))
    d, V, L = c["n_embd"], c["vocab_size"], c["n_layer"]
    rng = np.random.default_rng(seed)
    p = {"wte.weight": rng.normal(0, 0.02, (V, d)),
         "wpe.weight": rng.normal(0, wpe_std, (c["n_positions"], d))}
    for i in range(L):
        p[f"h.{i}.ln_1.weight"], p[f"h.{i}.ln_1.bias"] = np.ones(d), np.zeros(d)
        p[f"h.{i}.attn.c_attn.weight"] = rng.normal(0, 0.02, (d, 3 * d))
        p[f"h.{i}.attn.c_attn.bias"] = np.zeros(3 * d)
        p[f"h.{i}.attn.c_proj.weight"] = rng.normal(0, 0.02 / math.sqrt(2 * L), (d, d))
        p[f"h.{i}.attn.c_proj.bias"] = np.zeros(d)
    p["ln_f.weight"], p["ln_f.bias"] = np.ones(d), np.zeros(d)
    return {k: v.astype(dtype) for k, v in p.items()}


def _shape(params):
    return (sum(k.endswith("ln_1.weight") for k in params),
            params["wte.weight"].shape[1])


def forward(params, ids, n_heads: int = 2, keep: bool = False):
    """Logits ``(batch, n_tokens, vocab)`` of ids ``(batch, n_tokens)``
    (``logits[:, t]`` predicts token ``t + 1``). With ``keep=True`` returns
    ``(logits, cache)``, where ``cache["attention"]`` is a list of ``(batch,
    heads, n, n)`` patterns, one per layer, and the rest is what
    :func:`loss_and_grads` needs for the backward pass."""
    n_layer, d = _shape(params)
    ids = np.asarray(ids)
    B, T = ids.shape
    H, dh = n_heads, d // n_heads
    dt = params["wte.weight"].dtype
    mask = np.where(np.tri(T, dtype=bool), 0.0, -np.inf).astype(dt)  # (T, T)
    scale = 1.0 / math.sqrt(dh)
    h = params["wte.weight"][ids] + params["wpe.weight"][:T]  # (B, T, d)
    layers = []
    for i in range(n_layer):
        p = f"h.{i}."
        # a: the normalised residual (B, T, d); qkv: (B, T, 3 d)
        a, ln = layer_norm_cached(h, params[p + "ln_1.weight"], params[p + "ln_1.bias"])
        qkv = a @ params[p + "attn.c_attn.weight"] + params[p + "attn.c_attn.bias"]
        q, k, v = qkv.reshape(B, T, 3, H, dh).transpose(2, 0, 3, 1, 4)  # (B, H, T, dh)
        s = (q @ k.swapaxes(-1, -2)) * dt.type(scale) + mask  # (B, H, T, T)
        s -= s.max(axis=-1, keepdims=True)
        P = np.exp(s)
        P /= P.sum(axis=-1, keepdims=True)  # (B, H, T, T) the weights
        y = (P @ v).transpose(0, 2, 1, 3).reshape(B, T, d)  # (B, T, d)
        h = h + y @ params[p + "attn.c_proj.weight"] + params[p + "attn.c_proj.bias"]
        #                                                  h: the residual, (B, T, d)
        layers.append((a, ln, q, k, v, P, y))
    af, lnf = layer_norm_cached(h, params["ln_f.weight"], params["ln_f.bias"])
    logits = af @ params["wte.weight"].T  # (B, T, vocab)
    if not keep:
        return logits
    return logits, {"ids": ids, "layers": layers, "final": (af, lnf),
                    "attention": [x[5] for x in layers], "scale": scale}


def cross_entropy(logits, targets):
    """Mean next-token loss and its gradient: logits ``(batch, n, vocab)``,
    targets ``(batch, n)`` ints -> ``(loss, d logits)``."""
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=-1, keepdims=True)
    N = targets.size
    flat = targets.reshape(-1)
    zf = z.reshape(N, -1)
    loss = float(np.mean(np.log(s.reshape(N)) - zf[np.arange(N), flat]))
    g = (e / s).reshape(N, -1)
    g[np.arange(N), flat] -= 1.0
    g /= N
    return loss, g.reshape(logits.shape)


def loss_and_grads(params, ids, n_heads: int = 2):
    """Cross-entropy of windows ``ids`` ``(batch, n_tokens + 1)`` (inputs
    ``ids[:, :-1]``, targets ``ids[:, 1:]``) and its gradient with respect to
    every parameter, written out layer by layer in reverse.
    Returns ``(loss, grads)``, grads shaped like params."""
    ids = np.asarray(ids)
    x, targets = ids[:, :-1], ids[:, 1:]
    logits, c = forward(params, x, n_heads, keep=True)
    loss, dlogits = cross_entropy(logits, targets)
    B, T = x.shape
    n_layer, d = _shape(params)
    H, dh = n_heads, d // n_heads
    N, V = B * T, params["wte.weight"].shape[0]
    wte = params["wte.weight"]
    g = {}
    af, lnf = c["final"]
    dl = dlogits.reshape(N, V)
    g["wte.weight"] = dl.T @ af.reshape(N, d)  # the tied unembedding
    dh_ = (dl @ wte).reshape(B, T, d)
    dh_, g["ln_f.weight"], g["ln_f.bias"] = layer_norm_backward(
        dh_, params["ln_f.weight"], lnf)
    scale = wte.dtype.type(c["scale"])
    for i in reversed(range(n_layer)):
        p = f"h.{i}."
        a, ln, q, k, v, P, y = c["layers"][i]
        flat = dh_.reshape(N, d)
        g[p + "attn.c_proj.weight"] = y.reshape(N, d).T @ flat
        g[p + "attn.c_proj.bias"] = flat.sum(axis=0)
        dz = (flat @ params[p + "attn.c_proj.weight"].T).reshape(B, T, H, dh)
        dz = dz.transpose(0, 2, 1, 3)  # (batch, heads, n, d_head)
        dqkv = np.empty((3, B, H, T, dh), dtype=dz.dtype)  # Q, K, V fused
        np.matmul(P.swapaxes(-1, -2), dz, out=dqkv[2])
        dP = dz @ v.swapaxes(-1, -2)
        ds = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
        ds *= scale
        np.matmul(ds, k, out=dqkv[0])
        np.matmul(ds.swapaxes(-1, -2), q, out=dqkv[1])
        dqkv = dqkv.transpose(1, 3, 0, 2, 4).reshape(N, 3 * d)
        g[p + "attn.c_attn.weight"] = a.reshape(N, d).T @ dqkv
        g[p + "attn.c_attn.bias"] = dqkv.sum(axis=0)
        da = (dqkv @ params[p + "attn.c_attn.weight"].T).reshape(B, T, d)
        dx, g[p + "ln_1.weight"], g[p + "ln_1.bias"] = layer_norm_backward(
            da, params[p + "ln_1.weight"], ln)
        dh_ = dh_ + dx
    flat = dh_.reshape(N, d)
    onehot = np.zeros((N, V), dtype=flat.dtype)  # faster than np.add.at
    onehot[np.arange(N), x.reshape(-1)] = 1.0
    g["wte.weight"] += onehot.T @ flat
    g["wpe.weight"] = np.zeros_like(params["wpe.weight"])
    g["wpe.weight"][:T] = dh_.sum(axis=0)
    return loss, g


# -- the optimiser ----------------------------------------------------------------
class AdamW:
    """AdamW as in ``torch.optim.AdamW`` (decoupled weight decay on every
    parameter, bias-corrected moments, eps 1e-8), with global gradient-norm
    clipping. ``step(params, grads, lr)`` changes ``params`` in place."""

    def __init__(self, params, betas=(0.9, 0.98), weight_decay=0.01, clip=1.0):
        self.b1, self.b2 = betas
        self.wd, self.clip, self.t = weight_decay, clip, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params, grads, lr):
        self.t += 1
        if self.clip:
            norm = math.sqrt(sum(float(np.vdot(x, x)) for x in grads.values()))
            if norm > self.clip:
                f = self.clip / (norm + 1e-6)
                grads = {k: x * f for k, x in grads.items()}
        c1, c2 = 1 - self.b1**self.t, 1 - self.b2**self.t
        for k, p in params.items():
            m, v, gr = self.m[k], self.v[k], grads[k]
            p *= 1 - lr * self.wd
            m *= self.b1
            m += (1 - self.b1) * gr
            v *= self.b2
            v += (1 - self.b2) * gr * gr
            p -= (lr / c1) * m / (np.sqrt(v / c2) + 1e-8)


def learning_rate(step: int, recipe) -> float:
    """The learning rate at ``step`` (from 0): a linear warm-up to ``lr``,
    constant, then from ``decay_from`` a cosine to ``final_lr * lr`` at the
    last step."""
    r = recipe
    lr = r["lr"] * min(1.0, (step + 1) / max(1, r["warmup"]))
    decay = r["phase2_from"] if r["decay_from"] is None else r["decay_from"]
    if decay is not None and step >= decay:
        t = (step - decay) / max(1, r["steps"] - decay)
        f = r["final_lr"]
        lr *= f + (1 - f) / 2 * (1 + math.cos(math.pi * t))
    return lr


# -- the data -----------------------------------------------------------------------
def _at(step, setting):
    """A setting that may change during training: a number, or ``((from_step,
    value), ...)`` in order of steps, the last one reached applies."""
    if not isinstance(setting, (tuple, list)):
        return setting
    return [v for s, v in setting if s <= step][-1]


def training_batch(rng, step: int, recipe, vocab: int = 128) -> np.ndarray:
    """The windows of one step, ``(batch, window)`` ids: Markov chains, and
    from ``phase2_from`` on a share ``phase2_repeats`` of plain repeats with
    the chains following their cycle ``phase2_follow`` of the time."""
    r = recipe
    B, T = r["batch"], r["window"]
    late = r["phase2_from"] is not None and step >= r["phase2_from"]
    follow = r["phase2_follow"] if late else _at(step, r["follow"])
    out = markov_windows(rng, B, T, vocab, r["alphabet"], follow)
    if late and r["phase2_repeats"]:
        for b in np.flatnonzero(rng.random(B) < r["phase2_repeats"]):
            out[b] = repeat_window(rng, T, vocab)
    return out


# -- measuring on the probes --------------------------------------------------------
def probe_scores(params, n_heads: int = 2, seeds=PROBE_SEEDS, vocab: int = 128):
    """On the probes (one per seed, in one padded batch: a causal model never
    sees the padding): ``{"copy1", "copy2"}`` the mean first- and second-copy
    loss, ``"prev"``, ``"pm"`` every head's previous-token and prefix-matching
    score ``(n_layers, n_heads)`` (:mod:`helpers.analysis.induction`)."""
    probes = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        L, prefix = int(rng.integers(8, 21)), int(rng.integers(0, 24))
        probes.append((*repeated_ids(vocab, L, prefix, seed), L))
    n_max = max(len(p[0]) for p in probes)
    ids = np.zeros((len(probes), n_max), dtype=np.int64)
    for b, (x, _, _) in enumerate(probes):
        ids[b, : len(x)] = x
    logits, c = forward(params, ids, n_heads, keep=True)
    A = np.stack(c["attention"], axis=1)  # (probes, layers, heads, n, n)
    z = logits.astype(np.float64)
    z -= z.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    copies, prev, pm = [], [], []
    for b, (x, start, L) in enumerate(probes):
        n = len(x)
        nll = -logp[b, np.arange(n - 1), x[1:]]
        copies.append(copy_losses(nll, start, L))
        prev.append(previous_token(A[b, :, :, :n, :n]))
        pm.append(prefix_matching(A[b, :, :, :n, :n], start, L))
    c1, c2 = np.mean(copies, axis=0)
    return {"copy1": float(c1), "copy2": float(c2),
            "prev": np.mean(prev, axis=0), "pm": np.mean(pm, axis=0)}


# -- the training loop --------------------------------------------------------------
@blas_threads()  # one BLAS thread: faster for these small matrices, busy machine or not
def train(recipe=None, *, callback=None, every: int = 250, params=None,
          config=None, stop=None, **changes):
    """Train from the seeded recipe (:data:`RECIPE`, with ``recipe`` and any
    keyword ``changes`` on top, e.g. ``steps=200``). Every ``every`` steps
    and after the last, the probes are measured (:func:`probe_scores`) and a
    row is added to the log; ``callback(row)`` then gets that dict (``step``,
    ``seconds``, ``train_loss``, ``copy1_loss``, ``copy2_loss``, ``prev``,
    ``pm``, ``lr``, and ``steps``, ``phase2_from``, ``phase_change_step`` as
    known by then), e.g. a live monitor's ``update``. ``stop()``, if given,
    is asked before each step; when True, the run ends there with a last row.

    With ``phase2_from=None`` the loop looks at the probes every
    :data:`CHECK_EVERY` steps; the first time the second copy costs less
    than half the first (the phase change), phase 2 is set to start
    ``phase2_after`` steps later and to last ``phase2_steps``, within
    ``steps`` at most (phase 2 takes the last ``phase2_steps`` if the phase
    change comes late or never). The data never looks at an attention
    pattern, only at the probes' loss.

    Returns ``(params, log, recipe)``: the log is the list of rows, the
    recipe has the steps as run and ``phase_change_step``; the same recipe
    and seed give the same weights on the same machine.
    """
    r = dict(RECIPE, **(recipe or {}), **changes)
    cfg = dict(CONFIG, **(config or {}))
    H, V = cfg["n_head"], cfg["vocab_size"]
    if params is None:
        params = init_params(cfg, seed=r["seed"], wpe_std=r["wpe_std"])
    opt = AdamW(params, r["betas"], r["weight_decay"], r["clip"])
    rng = np.random.default_rng(r["seed"] + 1)
    log, running, start = [], [], time.perf_counter()
    adaptive = r["phase2_from"] is None
    r["phase_change_step"] = None
    if adaptive:  # until the phase change: phase 2 as late as it may be
        r["phase2_from"] = max(0, r["steps"] - r["phase2_steps"])

    def measure(step, s=None):
        s = s or probe_scores(params, H, vocab=V)
        row = {"step": step, "seconds": round(time.perf_counter() - start, 2),
               "train_loss": float(np.mean(running)) if running else float("nan"),
               "copy1_loss": s["copy1"], "copy2_loss": s["copy2"],
               "prev": s["prev"], "pm": s["pm"], "lr": learning_rate(step, r),
               "steps": r["steps"], "phase2_from": r["phase2_from"],
               "phase_change_step": r["phase_change_step"]}
        running.clear()
        log.append(row)
        if callback is not None:
            callback(row)

    step = 0
    while step < r["steps"] and not (stop is not None and stop()):
        s = None
        if adaptive and r["phase_change_step"] is None and step % CHECK_EVERY == 0:
            s = probe_scores(params, H, vocab=V)
            if step and s["copy2"] < 0.5 * s["copy1"]:
                r["phase_change_step"] = step
                r["phase2_from"] = min(r["phase2_from"], step + r["phase2_after"])
                r["steps"] = r["phase2_from"] + r["phase2_steps"]
        if step % every == 0:
            measure(step, s)
        loss, grads = loss_and_grads(params, training_batch(rng, step, r, V), H)
        opt.step(params, grads, learning_rate(step, r))
        running.append(loss)
        step += 1
    measure(step)  # the last step, or where stop() ended the run
    return params, log, r


# -- the folder ---------------------------------------------------------------------
def symbols(n: int = 127) -> list[str]:
    """The model's ``n`` words: English nouns of 3-6 letters from
    ``data/lexicon.csv``, in the file's order."""
    words = []
    lexicon = (ROOT / "data" / "lexicon.csv").read_text(encoding="utf-8")
    for line in lexicon.splitlines():
        cols = line.split(",")
        if not line or line.startswith("#") or len(cols) < 3:
            continue
        w = cols[0]
        if cols[1] == "en" and cols[2] == "noun" and w.isalpha() and 3 <= len(w) <= 6:
            if w not in words:
                words.append(w)
    if len(words) < n:
        raise ValueError(f"data/lexicon.csv has only {len(words)} nouns of 3-6 letters")
    return words[:n]


def write_tokenizer(path, vocab_size: int = 128) -> None:
    """``tokenizer.json``: :func:`tokenizer`, saved."""
    tokenizer(vocab_size).save(str(path))


def tokenizer(vocab_size: int = 128):
    """The word-level tokenizer: id 0 ``<|endoftext|>``, ids 1.. the
    :func:`symbols`, words split on whitespace."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = {"<|endoftext|>": 0}
    for i, w in enumerate(symbols(vocab_size - 1), start=1):
        vocab[w] = i
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<|endoftext|>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    tok.add_special_tokens(["<|endoftext|>"])
    return tok


def as_model(params, config=None):
    """The trained ``params`` as a :class:`helpers.models.gpt.GPT`, no files
    written: everything lesson 13 does with ``data/induction/``'s model."""
    from helpers.models import gpt

    cfg = dict(CONFIG, **(config or {}))
    return gpt.GPT(gpt2_tensors(params), hf_config(cfg), tokenizer(cfg["vocab_size"]))


def hf_config(config=None) -> dict:
    """``config.json`` in the Hugging Face GPT-2 layout."""
    c = dict(CONFIG, **(config or {}))
    return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
            "vocab_size": c["vocab_size"], "n_positions": c["n_positions"],
            "n_embd": c["n_embd"], "n_layer": c["n_layer"], "n_head": c["n_head"],
            "n_inner": None, "activation_function": "gelu_new",
            "layer_norm_epsilon": EPS, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
            "attn_pdrop": 0.0, "scale_attn_weights": True,
            "tie_word_embeddings": True, "bos_token_id": 0, "eos_token_id": 0,
            "torch_dtype": "float32", "initializer_range": 0.02}


def gpt2_tensors(params) -> dict:
    """GPT-2's tensors (``transformer.`` names, float32), the unused MLP as
    zeros and ``ln_2`` as the identity."""
    n_layer, d = _shape(params)
    out = {f"transformer.{k}": v for k, v in params.items()}
    for i in range(n_layer):
        p = f"transformer.h.{i}."
        out[p + "ln_2.weight"], out[p + "ln_2.bias"] = np.ones(d), np.zeros(d)
        out[p + "mlp.c_fc.weight"], out[p + "mlp.c_fc.bias"] = np.zeros(
            (d, 4 * d)), np.zeros(4 * d)
        out[p + "mlp.c_proj.weight"], out[p + "mlp.c_proj.bias"] = np.zeros(
            (4 * d, d)), np.zeros(d)
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in out.items()}


LOG_COLUMNS = ("step", "seconds", "train_loss", "copy1_loss", "copy2_loss")


def write_log(path, log) -> None:
    """``training_log.csv``: one row per measurement, ``prev_L_H`` and
    ``pm_L_H`` per head (``helpers.analysis.induction.training_log`` reads it)."""
    nl, nh = log[0]["prev"].shape
    heads = [f"{la}_{hd}" for la in range(nl) for hd in range(nh)]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow([*LOG_COLUMNS, *(f"prev_{x}" for x in heads),
                    *(f"pm_{x}" for x in heads)])
        for row in log:
            w.writerow([row["step"], round(row["seconds"]),
                        *(round(row[c], 4) for c in LOG_COLUMNS[2:]),
                        *(round(float(x), 4) for x in row["prev"].ravel()),
                        *(round(float(x), 4) for x in row["pm"].ravel())])


def _probe_losses(model, ablate=()):
    """Mean (first, second) copy loss of a loaded model on the probes."""
    pairs = []
    for seed in PROBE_SEEDS:
        rng = np.random.default_rng(seed)
        L, prefix = int(rng.integers(8, 21)), int(rng.integers(0, 24))
        ids, start = repeated_ids(model.vocab_size, L, prefix, seed)
        nll = model.run(ids, ablate=ablate).loss_per_position()
        pairs.append(copy_losses(nll, start, L))
    return np.mean(pairs, axis=0)


def save(params, folder, log=None, recipe=None, seconds=None, config=None) -> dict:
    """Write ``folder`` in ``data/induction/``'s layout: ``config.json``,
    ``model.safetensors`` (GPT-2 names), ``tokenizer.json``,
    ``training_log.csv`` (when ``log`` is given) and ``report.json``, whose
    ``induction_head`` (the best prefix matcher of layer 1 or later) and
    ``previous_token_heads`` (layer-0 heads scoring at least 0.3, else the
    best) are named by measurement on the probes, with the second copy's loss
    with each head ablated. Returns the report."""
    from safetensors.numpy import save_file

    from helpers.models import gpt

    cfg = dict(CONFIG, **(config or {}))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(gpt2_tensors(params), str(folder / "model.safetensors"),
              metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(hf_config(cfg), indent=1) + "\n")
    write_tokenizer(folder / "tokenizer.json", cfg["vocab_size"])
    if log:
        write_log(folder / "training_log.csv", log)
    model = gpt._load.__wrapped__(folder.resolve())  # never a cached older copy
    s = probe_scores(params, cfg["n_head"], vocab=cfg["vocab_size"])
    prev, pm = s["prev"], s["pm"]
    late = np.unravel_index(pm[1:].argmax(), pm[1:].shape)
    ind = (int(late[0]) + 1, int(late[1]))
    prev_heads = [(0, h) for h in range(cfg["n_head"]) if prev[0, h] >= 0.3]
    prev_heads = prev_heads or [(0, int(prev[0].argmax()))]
    c1, c2 = _probe_losses(model)
    ratios = {f"{la} {hd}": round(float(_probe_losses(model, {(la, hd)})[1] / c2), 3)
              for la in range(cfg["n_layer"]) for hd in range(cfg["n_head"])}
    report = {
        "recipe": {k: list(v) if isinstance(v, tuple) else v
                   for k, v in (recipe or {}).items()},
        "trainer": "numpy (helpers.models.gpt_training)",
        "train_seconds": None if seconds is None else round(seconds),
        "steps": (recipe or {}).get("steps"), "threads": 1,
        "parameters": int(sum(v.size for v in params.values())),
        "induction_head": list(ind),
        "induction_prefix_matching": round(float(pm[ind]), 4),
        "previous_token_heads": [list(x) for x in prev_heads],
        "previous_token_scores": [round(float(prev[x]), 4) for x in prev_heads],
        "probe_first_copy_loss": round(float(c1), 4),
        "probe_second_copy_loss": round(float(c2), 4),
        "second_copy_loss_without_induction_head":
            round(float(_probe_losses(model, {ind})[1]), 4),
        "second_copy_loss_without_previous_token_heads":
            round(float(_probe_losses(model, set(prev_heads))[1]), 4),
        "second_copy_loss_ratio_with_each_head_ablated": ratios,
        "prefix_matching": [[round(float(x), 4) for x in row] for row in pm],
        "previous_token": [[round(float(x), 4) for x in row] for row in prev],
    }
    (folder / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    return report
