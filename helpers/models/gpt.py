"""A small GPT, trained on Shakespeare's plays, run in plain numpy (lesson 11).

The model is exactly GPT-2, only small: 4 blocks of 6 attention heads,
``d_model = 192`` (``d_head = 32``), a context of 128 tokens, learned position
embeddings, pre-LayerNorm blocks, a tanh-GELU MLP of 768 units, and a tied
unembedding (the logits are the last vector's dot products with every row of
the token table). Its byte-level BPE has 2,048 tokens; id 0,
``<|endoftext|>``, separated the plays in training and starts every text
here. ``tools/train_gpt.py`` trained it; the files in ``data/gpt/`` are the
Hugging Face GPT-2 layout, so ``transformers.GPT2LMHeadModel`` loads the same
folder.

One block, in the notation of the series (row vectors, rows are queries)::

    x = ln_1(h)                              (n, d_model)
    Q, K, V = x W_Q + b_Q, x W_K + b_K, ...   per head (n, d_head)
    A = softmax(Q K^T / sqrt(d_head) + causal mask)    (n, n)
    h = h + concat_heads(A V) W_O + b_O      the residual update E' = E + dE
    h = h + gelu(ln_2(h) W_1 + b_1) W_2 + b_2
    logits = ln_f(h) @ wte.T                 (n, vocab): tied unembedding

Every attention step goes through :func:`helpers.attention.
scaled_dot_product_attention` with :func:`helpers.attention.causal_mask`.

Usage (the contract the lesson and the tests rely on)::

    from helpers.models import gpt
    model = gpt.load()
    run = model.run("To be, or not to be")
    run.tokens, run.ids, run.logits, run.attention, run.hidden
    model.generate("ROMEO.\\n", 40, temperature=0.8, top_k=40, seed=0)
    model.heads     # heads named by measurement (head_scores)
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from helpers.attention import causal_mask, scaled_dot_product_attention, softmax
from helpers.models.layers import layer_norm  # eps 1e-5 by default, GPT-2's

__all__ = [
    "BOS",
    "GPT",
    "Generation",
    "ModelNotAvailable",
    "Run",
    "bits_per_char",
    "head_scores",
    "load",
    "prefix_matching_scores",
    "repeated_sequence",
    "decode_timings",
    "top_k_probabilities",
    "training_log",
    "training_report",
]

FOLDER = Path(__file__).resolve().parents[2] / "data" / "gpt"
BOS = 0  # <|endoftext|>
LAYER_NORM_EPS = 1e-5
# The passage on which heads are scored: the opening of Twelfth Night, a
# play the model never saw in training (public domain).
PROBE_TEXT = (
    "DUKE.\nIf music be the food of love, play on;\nGive me excess of it, that, "
    "surfeiting,\nThe appetite may sicken and so die.\nThat strain again, it had "
    "a dying fall:\nO, it came o'er my ear like the sweet sound\nThat breathes "
    "upon a bank of violets,\nStealing and giving odour. Enough; no more:\n"
)
PROBE_SEED, PROBE_LENGTH, PROBE_COUNT = 2024, 40, 8


class ModelNotAvailable(RuntimeError):
    """The model files are missing (one-sentence message)."""


def gelu(x: np.ndarray) -> np.ndarray:
    """GPT-2's GELU (tanh form): ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    u = x * x  # in place below: this runs on (n, 4 d_model)
    u *= np.float32(0.044715)
    u += np.float32(1.0)
    u *= x
    u *= np.float32(0.7978845608)  # sqrt(2 / pi)
    np.tanh(u, out=u)
    u += np.float32(1.0)
    u *= x
    u *= np.float32(0.5)
    return u


def top_k_probabilities(logits, k=None, temperature: float = 1.0,
                        top_p=None) -> np.ndarray:
    """Next-token probabilities for sampling: ``softmax(logits / T)`` over the
    ``k`` largest logits only (the rest get exactly 0), then, with ``top_p``,
    over the nucleus only. ``(vocab,)`` in and out.

    ``temperature`` must be > 0: below 1 it sharpens, above 1 it flattens.
    ``k=None`` keeps every token. Ties at the k-th logit are all kept.
    ``top_p`` in (0, 1] (nucleus sampling): going from the most likely token
    down, keep each token while the tokens *before* it hold less than
    ``top_p`` of the probability, then renormalise. The top token is always
    kept, and so are ties with the last one kept. Example:
    p = (0.5, 0.3, 0.15, 0.05) with ``top_p=0.7`` keeps the first two
    (0.5 < 0.7 before the second, 0.8 before the third): (0.625, 0.375, 0, 0).
    """
    if not float(temperature) > 0:
        raise ValueError(
            f"temperature must be > 0, got {temperature} "
            "(generate takes temperature=0 to mean greedy)"
        )
    if k is not None and int(k) < 1:
        raise ValueError(f"k must be at least 1 (or None for every token), got {k}")
    if top_p is not None and not 0 < float(top_p) <= 1:
        raise ValueError(f"top_p must be in (0, 1] (or None for no cut), got {top_p}")
    z = np.asarray(logits, dtype=np.float64) / float(temperature)
    if k is not None and int(k) < z.shape[-1]:
        kth = np.partition(z, -int(k), axis=-1)[..., -int(k), None]
        z = np.where(z >= kth, z, -np.inf)
    p = softmax(z, axis=-1)
    if top_p is not None and float(top_p) < 1:
        p = _nucleus(p, float(top_p))
    return p


def _nucleus(p: np.ndarray, top_p: float) -> np.ndarray:
    """``(vocab,)`` probabilities restricted to the top-p nucleus, renormalised."""
    ordered = np.sort(p)[::-1]
    before = np.cumsum(ordered) - ordered  # the mass of the tokens ahead of each
    smallest_kept = ordered[before < top_p].min()
    kept = np.where(p >= smallest_kept, p, 0.0)
    return kept / kept.sum()


@dataclass
class Run:
    """One forward pass. ``n`` tokens, BOS first when built from text."""

    ids: np.ndarray  # (n,) token ids
    tokens: list  # n strings (each token's text)
    logits: np.ndarray  # (n, vocab): logits[t] predicts ids[t + 1]
    attention: np.ndarray  # (n_layers, n_heads, n, n): rows = queries, causal
    hidden: np.ndarray  # (n_layers + 1, n, d_model): embeddings, then each block
    n_cut: int = 0  # tokens dropped from the front of a long text

    def probs(self, t: int = -1) -> np.ndarray:
        """Next-token probabilities after prefix ``ids[: t + 1]``: ``(vocab,)``."""
        return softmax(self.logits[t].astype(np.float64))

    def loss_per_position(self) -> np.ndarray:
        """``(n - 1,)`` nats: ``-log p(ids[t + 1] | ids[: t + 1])`` for each t."""
        z = self.logits[:-1].astype(np.float64)
        z = z - z.max(axis=-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        return -logp[np.arange(len(self.ids) - 1), self.ids[1:]]


@dataclass
class Generation:
    """What :meth:`GPT.generate` made."""

    prompt: str
    new_ids: np.ndarray  # (n_tokens,)
    new_text: str
    logits: np.ndarray  # (n_tokens, vocab): the logits each new token was drawn from
    seconds: float

    @property
    def text(self) -> str:
        return self.prompt + self.new_text


class GPT:
    """The small GPT of lesson 11 (weights: a dict of GPT-2 tensor names)."""

    def __init__(self, tensors: dict, config: dict, tokenizer):
        self.n_layers = int(config["n_layer"])
        self.n_heads = int(config["n_head"])
        self.d_model = int(config["n_embd"])
        self.d_head = self.d_model // self.n_heads
        self.context = int(config["n_positions"])
        self.vocab_size = int(config["vocab_size"])
        self.tokenizer = tokenizer
        t = {
            k.removeprefix("transformer."): np.asarray(v, dtype=np.float32)
            for k, v in tensors.items()
        }
        self.wte, self.wpe = t["wte.weight"], t["wpe.weight"]
        self.ln_f = (t["ln_f.weight"], t["ln_f.bias"])
        self.blocks = [
            {
                name: t[f"h.{i}.{name}"]
                for name in (
                    "ln_1.weight",
                    "ln_1.bias",
                    "attn.c_attn.weight",
                    "attn.c_attn.bias",
                    "attn.c_proj.weight",
                    "attn.c_proj.bias",
                    "ln_2.weight",
                    "ln_2.bias",
                    "mlp.c_fc.weight",
                    "mlp.c_fc.bias",
                    "mlp.c_proj.weight",
                    "mlp.c_proj.bias",
                )
            }
            for i in range(self.n_layers)
        ]
        self._pieces = [
            tokenizer.decode([i], skip_special_tokens=False)
            for i in range(self.vocab_size)
        ]
        self._heads = None

    def __repr__(self):
        n = (
            self.wte.size
            + self.wpe.size
            + sum(w.size for b in self.blocks for w in b.values())
        )
        n += sum(w.size for w in self.ln_f)
        return (
            f"GPT: {self.n_layers} layers x {self.n_heads} heads, "
            f"d_model {self.d_model}, "
            f"context {self.context}, vocabulary {self.vocab_size:,}, {n:,} parameters"
        )

    # -- tokens ----------------------------------------------------------------
    def encode(self, text: str) -> np.ndarray:
        """Token ids of ``text`` (no BOS): ``(n,)``."""
        return np.array(self.tokenizer.encode(str(text)).ids, dtype=np.int64)

    def decode(self, ids) -> str:
        return self.tokenizer.decode([int(i) for i in ids])

    def piece(self, i: int) -> str:
        """The text of token ``i`` (``" the"``, ``"\\n"``, ``"<|endoftext|>"``)."""
        return self._pieces[int(i)]

    def _ids(self, text_or_ids, max_tokens=None):
        """BOS + ids of a text, or the ids as given; keeps the last ``cap``."""
        if isinstance(text_or_ids, str):
            ids = np.concatenate([[BOS], self.encode(text_or_ids)]).astype(np.int64)
            cap = min(self.context, max_tokens or self.context)
            n_cut = max(0, len(ids) - cap)
            if n_cut:  # keep BOS, drop the oldest tokens after it
                ids = np.concatenate([[BOS], ids[1 + n_cut :]])
            return ids, n_cut
        ids = np.asarray(text_or_ids, dtype=np.int64).reshape(-1)
        if len(ids) == 0 or len(ids) > self.context:
            raise ValueError(f"need 1 to {self.context} token ids, got {len(ids)}")
        if ids.min() < 0 or ids.max() >= self.vocab_size:
            raise ValueError(f"token ids must be in 0..{self.vocab_size - 1}")
        return ids, 0

    # -- the forward pass ------------------------------------------------------
    def _qkv(self, b, h):
        """``(n, d_model)`` residual -> Q, K, V, each ``(heads, n, d_head)``."""
        x = layer_norm(h, b["ln_1.weight"], b["ln_1.bias"])  # (n, d_model)
        qkv = x @ b["attn.c_attn.weight"] + b["attn.c_attn.bias"]  # (n, 3 d_model)
        n = h.shape[0]
        q, k, v = qkv.reshape(n, 3, self.n_heads, self.d_head).transpose(1, 2, 0, 3)
        return q, k, v  # each (heads, n, d_head)

    def _finish(self, b, h, out, ablate_heads):
        """Add the attention update and the MLP update to the residual ``h``."""
        if ablate_heads:
            out = out.copy()
            out[list(ablate_heads)] = 0.0
        n = h.shape[0]
        h = (
            h
            + out.transpose(1, 0, 2).reshape(n, self.d_model) @ b["attn.c_proj.weight"]
            + b["attn.c_proj.bias"]
        )  # (n, d_model): the heads side by side, through W_O
        x = layer_norm(h, b["ln_2.weight"], b["ln_2.bias"])  # (n, d_model)
        m = gelu(x @ b["mlp.c_fc.weight"] + b["mlp.c_fc.bias"])  # (n, 4 d_model)
        return h + m @ b["mlp.c_proj.weight"] + b["mlp.c_proj.bias"]  # (n, d_model)

    def unembed(self, h: np.ndarray) -> np.ndarray:
        """Residual ``(..., d_model)`` -> logits ``(..., vocab)``: ln_f(h) @ wte.T."""
        return layer_norm(h, *self.ln_f) @ self.wte.T

    def run(self, text_or_ids, ablate=None, max_tokens=None) -> Run:
        """Every layer on a text (BOS added, the last ``context`` tokens kept)
        or on a list of ids. ``ablate``: ``{(layer, head), ...}`` whose outputs
        are set to zero before ``attn.c_proj``."""
        ids, n_cut = self._ids(text_or_ids, max_tokens)
        n = len(ids)
        ablate = {(int(la), int(hd)) for la, hd in (ablate or ())}
        mask = causal_mask(n)  # (n, n)
        h = self.wte[ids] + self.wpe[:n]  # (n, d_model)
        hidden, attention = [h], []
        for i, b in enumerate(self.blocks):
            q, k, v = self._qkv(b, h)  # each (heads, n, d_head)
            out, A = scaled_dot_product_attention(q, k, v, mask=mask)
            attention.append(A)  # A (heads, n, n), out (heads, n, d_head)
            h = self._finish(b, h, out, {hd for la, hd in ablate if la == i})
            hidden.append(h)
        return Run(
            ids=ids,
            tokens=[self.piece(i) for i in ids],
            logits=self.unembed(h),
            attention=np.stack(attention),
            hidden=np.stack(hidden),
            n_cut=n_cut,
        )

    def head_weights(self, layer: int, head: int) -> dict:
        """One head's ``W_Q, W_K, W_V`` ``(d_model, d_head)``, biases ``(d_head,)``."""
        b, d, s = (
            self.blocks[layer],
            self.d_model,
            slice(head * self.d_head, (head + 1) * self.d_head),
        )
        W, c = b["attn.c_attn.weight"], b["attn.c_attn.bias"]
        return {
            f"W_{x}": W[:, j * d : (j + 1) * d][:, s].copy()
            for j, x in enumerate("QKV")
        } | {f"b_{x}": c[j * d : (j + 1) * d][s].copy() for j, x in enumerate("QKV")}

    def attention_input(self, run: Run, layer: int) -> np.ndarray:
        """``ln_1(run.hidden[layer])``, ``(n, d_model)``: what ``W_Q, W_K`` multiply."""
        b = self.blocks[layer]
        return layer_norm(run.hidden[layer], b["ln_1.weight"], b["ln_1.bias"])

    # -- generation --------------------------------------------------------------
    def qkv(self, layer: int, h: np.ndarray):
        """Block ``layer``'s queries, keys and values of the residual rows ``h``
        ``(n, d_model)`` (its LayerNorm first): Q, K, V, each ``(heads, n, d_head)``."""
        return self._qkv(self.blocks[layer], np.asarray(h, dtype=np.float32))

    def finish(self, layer: int, h: np.ndarray, out: np.ndarray) -> np.ndarray:
        """The rest of block ``layer``: the heads' outputs ``out`` ``(heads, n,
        d_head)`` through ``W_O`` added to the residual ``h`` ``(n, d_model)``,
        then the MLP's update added. Returns the new residual ``(n, d_model)``."""
        return self._finish(self.blocks[layer], h, out, ())

    def prefill(self, ids) -> tuple[np.ndarray, list]:
        """The prompt ``ids`` ``(n,)`` through every layer, keeping K and V:
        ``(logits of the last token (vocab,), cache)``, where ``cache[layer] =
        (K, V)``, each ``(heads, n, d_head)`` (lesson 11's KV cache)."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        n, mask = len(ids), causal_mask(len(ids))
        h = self.wte[ids] + self.wpe[:n]  # (n, d_model)
        cache = []
        for b in self.blocks:
            q, k, v = self._qkv(b, h)
            out, _ = scaled_dot_product_attention(q, k, v, mask=mask)
            cache.append((k, v))
            h = self._finish(b, h, out, ())
        return self.unembed(h[-1]), cache

    def decode_step(self, token: int, pos: int, cache: list) -> tuple[np.ndarray, list]:
        """One new ``token`` at position ``pos`` with the KV cache of the
        ``pos`` tokens before it: ``(logits (vocab,), the cache one row
        longer)``. The cache given is left as it is."""
        h = self.wte[[int(token)]] + self.wpe[[int(pos)]]  # (1, d_model)
        new = []
        for b, (K, V) in zip(self.blocks, cache):
            q, k, v = self._qkv(b, h)
            K, V = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
            new.append((K, V))  # each (heads, pos + 1, d_head)
            out, _ = scaled_dot_product_attention(q, K, V)  # all cached keys: earlier
            h = self._finish(b, h, out, ())
        return self.unembed(h[0]), new

    def generate(
        self,
        prompt: str,
        n_tokens: int,
        temperature: float = 1.0,
        top_k=None,
        seed: int = 0,
        cache: bool = True,
        top_p=None,
    ) -> Generation:
        """Continue ``prompt`` by ``n_tokens`` tokens, one at a time.

        Each token is drawn from :func:`top_k_probabilities` of the last
        logits (``top_k`` and ``top_p`` cut the tail; ``temperature=0`` picks
        the most likely token: greedy decoding), with
        ``np.random.default_rng(seed)``. With ``cache=True`` earlier keys and
        values are kept (each step costs ~n); without, every step runs the
        whole text again (~n^2); both give the same tokens. When the text
        reaches the context, the model sees its last ``context // 2``
        tokens (after BOS) and carries on, in both modes alike.
        """
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        ids = list(self._ids(prompt)[0])
        new, all_logits, kv = [], [], None
        for _ in range(int(n_tokens)):
            if len(ids) > self.context:  # keep BOS + the recent half
                ids = [BOS] + ids[-(self.context // 2 - 1) :]
                kv = None
            if cache and kv is not None:
                logits, kv = self.decode_step(ids[-1], len(ids) - 1, kv)
            elif cache:
                logits, kv = self.prefill(np.array(ids))
            else:
                logits = self.run(np.array(ids)).logits[-1]
            if temperature == 0:
                token = int(np.argmax(logits))
            else:
                p = top_k_probabilities(logits, top_k, temperature, top_p)
                token = int(rng.choice(len(p), p=p))
            all_logits.append(logits)
            new.append(token)
            ids.append(token)
        new = np.array(new, dtype=np.int64)
        return Generation(
            prompt=str(prompt),
            new_ids=new,
            new_text=self.decode(new),
            logits=np.array(all_logits).reshape(len(new), self.vocab_size),
            seconds=time.perf_counter() - start,
        )

    # -- heads found by measurement ------------------------------------------------
    @property
    def heads(self) -> dict:
        """``{"previous_token": (layer, head), "first_token": ..., "induction": ...}``:
        the best-scoring head of each kind (:func:`head_scores`)."""
        if self._heads is None:
            self._heads = {
                name: tuple(int(i) for i in np.unravel_index(s.argmax(), s.shape))
                for name, s in head_scores(self).items()
            }
        return dict(self._heads)


def repeated_sequence(vocab_size: int, length: int, seed: int) -> np.ndarray:
    """BOS, then ``length`` random token ids (never BOS), then the same again:
    ``(1 + 2 * length,)``. Text of this kind can only be predicted by copying."""
    r = np.random.default_rng(seed).integers(1, vocab_size, size=length)
    return np.concatenate([[BOS], r, r]).astype(np.int64)


def prefix_matching_scores(attention: np.ndarray, length: int, start: int = 1):
    """On a repeated sequence (:func:`repeated_sequence`: first copy at
    ``start``): how much each head attends from a token of the second copy to
    the token that *followed* its first occurrence. attention (..., n, n) ->
    (...,): the mean weight of query ``start + L + j`` on key ``start + j + 1``,
    over ``j = 0 .. L - 2``."""
    j = np.arange(length - 1)
    return attention[..., start + length + j, start + j + 1].mean(axis=-1)


def head_scores(model: GPT) -> dict:
    """Score every head, ``{kind: (n_layers, n_heads)}``:

    * ``previous_token``: mean weight on the token just before, on ``PROBE_TEXT``;
    * ``first_token``: mean weight on the first token (BOS), same text, rows 1..;
    * ``induction``: prefix-matching score (:func:`prefix_matching_scores`),
      averaged over ``PROBE_COUNT`` seeded repeated random sequences.
    """
    A = model.run(PROBE_TEXT).attention  # (L, H, n, n)
    i = np.arange(1, A.shape[-1])
    scores = {
        "previous_token": A[..., i, i - 1].mean(axis=-1),
        "first_token": A[..., i, 0].mean(axis=-1),
    }
    pm = [
        prefix_matching_scores(
            model.run(
                repeated_sequence(model.vocab_size, PROBE_LENGTH, PROBE_SEED + s)
            ).attention,
            PROBE_LENGTH,
        )
        for s in range(PROBE_COUNT)
    ]
    scores["induction"] = np.mean(pm, axis=0)
    return scores


def decode_timings(model: GPT, lengths, steps: int = 8, repeats: int = 10,
                   seed: int = 0) -> dict:
    """What generating costs, in milliseconds, for prompts of each length ``n``
    in ``lengths`` (``n + steps <= model.context``): ``{"n": (m,), "prefill":
    the whole prompt through the model once with the KV cache, "cached": one
    decode step with the cache, "recompute": one new token without a cache,
    the whole text again for its last logits only (``prefill``'s work)}``.

    The prompts are seeded random token ids, BOS first, passed as ids (never
    decoded and encoded again, which can change their number). Each column
    is a mean of ``steps`` calls timed on their own (the prefill repeated).
    After a warm-up, every call is repeated in ``repeats`` rounds (each round
    goes through all of them) and its best time is kept, with one BLAS thread
    (:mod:`helpers.runtime.timing`): a busy moment of the machine then spoils one
    call of one round, not a whole figure.
    """
    from helpers.runtime.timing import one_blas_thread

    rng = np.random.default_rng(seed)
    calls = []  # (length index, kind, fn): one prefill, then one call per step
    for j, n in enumerate(lengths):
        n = int(n)
        if not 1 <= n <= model.context - steps:
            raise ValueError(f"n + steps must fit the context of {model.context}")
        ids = np.concatenate([[BOS], rng.integers(1, model.vocab_size, n - 1)])
        new = rng.integers(1, model.vocab_size, steps)
        cache = model.prefill(ids)[1]
        for t, token in enumerate(new):  # every kind: steps calls, their mean kept
            calls.append((j, 0, lambda ids=ids: model.prefill(ids)))
            calls.append((j, 1, lambda a=(token, n + t, cache): model.decode_step(*a)))
            calls.append((j, 2, lambda x=np.concatenate([ids, new[:t + 1]]):
                          model.prefill(x)[0]))
            cache = model.decode_step(token, n + t, cache)[1]
    best = np.full(len(calls), np.inf)
    with one_blas_thread():
        for _, _, fn in calls:  # warm-up
            fn()
        for _ in range(int(repeats)):
            for k, (_, _, fn) in enumerate(calls):
                start = time.perf_counter()
                fn()
                best[k] = min(best[k], time.perf_counter() - start)
    out = {"n": np.array([int(n) for n in lengths])}
    for c, kind in enumerate(("prefill", "cached", "recompute")):
        out[kind] = np.array([1e3 * np.mean([b for (jj, cc, _), b in zip(calls, best)
                                             if jj == j and cc == c])
                              for j in range(len(lengths))])
    return out


def bits_per_char(model: GPT, text: str) -> float:
    """The model's surprise on ``text``, in bits per character: total nats over
    every token, divided by the number of characters, divided by ln 2.

    The text is tokenised once, ``<|endoftext|>`` first, so every token is
    predicted; windows of ``model.context`` tokens move by half a context and
    each scores only tokens no earlier window scored (so every token after the
    first window has at least half a context before it). Characters, not
    tokens, make models with different tokenizers comparable.
    """
    ids = np.concatenate([[BOS], model.encode(text)]).astype(np.int64)
    total, scored, start, stride = 0.0, 0, 0, model.context // 2
    while scored < len(ids) - 1:
        window = ids[start : start + model.context]
        nll = model.run(window).loss_per_position()
        total += float(nll[scored - start :].sum())
        scored = start + len(window) - 1
        start += stride
    return total / max(1, len(text)) / np.log(2)


def training_log(path=None) -> dict:
    """``data/gpt/training_log.csv`` as ``{column: (n_rows,) array}``, plus
    ``prefix_matching``: the best head's prefix-matching score at each row."""
    folder = Path(path or FOLDER)
    lines = (folder / "training_log.csv").read_text(encoding="utf-8").split()
    names = lines[0].split(",")
    rows = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    log = {name: rows[:, k] for k, name in enumerate(names)}
    pm = [k for k, name in enumerate(names) if name.startswith("pm_")]
    log["prefix_matching"] = rows[:, pm].max(axis=1)
    return log


def training_report(path=None) -> dict:
    """``data/gpt/report.json``: the corpus split, the training time and the
    bits per character of the model and of two baselines."""
    return json.loads(
        (Path(path or FOLDER) / "report.json").read_text(encoding="utf-8")
    )


@functools.lru_cache(maxsize=4)
def _load(folder: Path) -> GPT:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    files = [folder / f for f in ("config.json", "model.safetensors", "tokenizer.json")]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise ModelNotAvailable(
            f"{folder} lacks {', '.join(missing)}: the small GPT ships "
            "in data/gpt/ (python3 tools/train_gpt.py remakes it)."
        )
    config = json.loads(files[0].read_text(encoding="utf-8"))
    return GPT(load_file(str(files[1])), config, Tokenizer.from_file(str(files[2])))


def load(path=None) -> GPT:
    """The small GPT from ``data/gpt/`` (or ``path``), loaded once per folder."""
    return _load(Path(path or FOLDER).expanduser().resolve())
