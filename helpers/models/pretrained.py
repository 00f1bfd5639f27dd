"""A real pretrained transformer, all-MiniLM-L6-v2, run in plain numpy (lesson 10).

all-MiniLM-L6-v2 (sentence-transformers) is a small BERT-style encoder:
6 layers of 12 attention heads, ``d_model = 384``, ``d_k = 32``, a GELU MLP
of 1,536 units, LayerNorm (eps 1e-12), 30,522 word pieces, 22.7 million
parameters. Its published ``model.safetensors`` and ``tokenizer.json`` are
read with the ``safetensors`` (numpy API) and ``tokenizers`` libraries: no
deep-learning framework is needed.

Every attention step goes through :func:`helpers.attention.
scaled_dot_product_attention`, the function of lesson 04, with the 12 heads
as a leading batch dimension.

Usage (the contract the lesson and the tests rely on)::

    from helpers.models import pretrained
    model = pretrained.load()        # or load("folder/with/the/two/files")
    run = model.run("The boat drifted to the river bank.")
    run.tokens      # list[str]: word pieces, "[CLS]" first and "[SEP]" last
    run.hidden      # (n_layers + 1, n, d_model): embeddings, then each layer
    run.attention   # (n_layers, n_heads, n, n): rows = queries, sum to 1
    model.n_layers, model.n_heads, model.d_model

Where the files come from: :func:`load` without a path asks
``huggingface_hub`` for them, which downloads them once (about 90 MB, with a
progress bar) into its usual cache and afterwards reads them from there. It
honours ``HF_HUB_OFFLINE=1`` and ``HF_HUB_CACHE``. The weights' sha256 is
checked on every load.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from helpers.attention import causal_mask, scaled_dot_product_attention
from helpers.models.layers import layer_norm

__all__ = [
    "MAX_TOKENS",
    "MODEL_ID",
    "ModelNotAvailable",
    "PretrainedModel",
    "Run",
    "erf",
    "gelu",
    "head_scores",
    "load",
    "nearest_centroid",
    "project_2d",
    "relation_score",
    "word_vectors",
]

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_BYTES = 90_868_376
# The model has 512 learned positions; a sentence is cut to this many word
# pieces ([CLS] and [SEP] included) unless run() is given a smaller cap.
MAX_TOKENS = 512
LAYER_NORM_EPS = 1e-12


class ModelNotAvailable(RuntimeError):
    """The model files could not be found or downloaded (one-sentence message)."""


# --- the two functions numpy lacks ------------------------------------------

# Abramowitz & Stegun, Handbook of Mathematical Functions, formula 7.1.26:
# erf(x) = 1 - (a1 t + ... + a5 t^5) exp(-x^2), t = 1 / (1 + p x), x >= 0,
# with an absolute error below 1.5e-7 for every x.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erf(x) -> np.ndarray:
    """The error function, elementwise (numpy has none).

    Uses the Abramowitz & Stegun approximation 7.1.26 (absolute error below
    1.5e-7 for all real ``x``). Shape and float dtype of ``x`` are kept.
    """
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    z = np.abs(x)
    t = 1.0 / (1.0 + _AS_P * z)
    poly = _AS_A[4]
    for a in _AS_A[3::-1]:
        poly = poly * t + a
    with np.errstate(under="ignore"):
        tail = poly * t * np.exp(-z * z)
    return np.copysign(1.0 - tail, x).astype(x.dtype, copy=False)


def gelu(x) -> np.ndarray:
    """Exact GELU, ``x * Phi(x) = x * (1 + erf(x / sqrt(2))) / 2``, elementwise.

    The erf is the Abramowitz & Stegun approximation 7.1.26 (see :func:`erf`),
    so the result is within ``1e-7 * |x|`` of the exact GELU. Written with
    in-place operations on a few scratch arrays: the MLP applies it to
    ``(n_tokens, 1536)`` values in every layer.
    """
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    dt = x.dtype.type
    # Phi(x) = 1 - c for x >= 0 and c for x < 0, with c = erfc(|x| / sqrt(2)) / 2,
    # so x Phi(x) = max(x, 0) - |x| c for every x.
    a = np.abs(x)
    z = a * dt(np.sqrt(0.5))
    t = z * dt(_AS_P)
    t += dt(1.0)
    np.reciprocal(t, out=t)
    # c = (a1 t + ... + a5 t^5) exp(-z^2) / 2, Horner's rule in place
    c = t * dt(0.5 * _AS_A[4])
    for coef in _AS_A[3::-1]:
        c += dt(0.5 * coef)
        c *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    with np.errstate(under="ignore"):
        np.exp(z, out=z)
    c *= z
    c *= a
    out = np.maximum(x, dt(0.0))
    out -= c
    return out


# --- the result of one forward pass ------------------------------------------


@dataclass
class Run:
    """What :meth:`PretrainedModel.run` returns for one sentence.

    tokens : list[str], n word pieces, ``"[CLS]"`` first and ``"[SEP]"`` last
    ids : (n,) int, the word pieces' rows in the embedding table
    hidden : (n_layers + 1, n, d_model) float32; ``hidden[0]`` is the
        embedding output (word piece + position + segment, then LayerNorm),
        ``hidden[l]`` the output of layer ``l`` and so the input of layer
        ``l + 1``'s attention (``hidden[l]`` feeds layer index ``l``)
    attention : (n_layers, n_heads, n, n) float32, rows = queries, columns =
        keys, every row sums to 1
    message : str, empty, or a sentence saying the text was cut to the cap
    """

    tokens: list
    ids: np.ndarray
    hidden: np.ndarray
    attention: np.ndarray
    message: str = ""
    n_cut: int = field(default=0)


# --- the model ---------------------------------------------------------------


class PretrainedModel:
    """all-MiniLM-L6-v2's weights, prepared once for fast numpy forward passes.

    Build it with :func:`load`. Every weight matrix is stored transposed into
    the row-vector convention of the lessons (``y = x @ W + b`` with ``W`` of
    shape ``(d_in, d_out)``), contiguous and float32, and the query, key and
    value projections of a layer are fused into one ``(d_model, 3 d_model)``
    matrix, so that one product gives Q, K and V of all 12 heads.
    """

    def __init__(self, tensors: dict, tokenizer, max_tokens: int = MAX_TOKENS):
        def get(name):
            return np.ascontiguousarray(tensors[name], dtype=np.float32)

        def linear(prefix):  # torch stores (d_out, d_in): transpose once
            W = np.ascontiguousarray(get(prefix + ".weight").T)
            return W, get(prefix + ".bias")

        self.word_embeddings = get("embeddings.word_embeddings.weight")
        self.position_embeddings = get("embeddings.position_embeddings.weight")
        # one segment only: row 0 of the token-type table joins every token
        self.type_embedding = get("embeddings.token_type_embeddings.weight")[0].copy()
        types = tensors["embeddings.token_type_embeddings.weight"]
        self.n_segments = int(types.shape[0])
        # the file's "pooler" (one more 384 x 384 layer) is never used here
        self.n_pooler = sum(int(np.size(v)) for k, v in tensors.items()
                            if k.startswith("pooler."))
        self.embedding_norm = (get("embeddings.LayerNorm.weight"),
                               get("embeddings.LayerNorm.bias"))
        self.d_model = int(self.word_embeddings.shape[1])
        self.n_layers = 0
        while f"encoder.layer.{self.n_layers}.attention.self.query.weight" in tensors:
            self.n_layers += 1
        self.n_heads = 12
        self.d_k = self.d_model // self.n_heads
        self.layers = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            qkv = ("query", "key", "value")
            parts = [linear(f"{p}attention.self.{n}") for n in qkv]
            self.layers.append({
                "W_QKV": np.ascontiguousarray(np.concatenate([w for w, _ in parts], 1)),
                "b_QKV": np.concatenate([b for _, b in parts]),
                "W_O": linear(p + "attention.output.dense"),
                "norm1": (get(p + "attention.output.LayerNorm.weight"),
                          get(p + "attention.output.LayerNorm.bias")),
                "W_in": linear(p + "intermediate.dense"),
                "W_out": linear(p + "output.dense"),
                "norm2": (get(p + "output.LayerNorm.weight"),
                          get(p + "output.LayerNorm.bias")),
            })
        self.tokenizer = tokenizer
        self.max_tokens = int(min(max_tokens, self.position_embeddings.shape[0]))
        self.cls_id = tokenizer.token_to_id("[CLS]")
        self.sep_id = tokenizer.token_to_id("[SEP]")

    def __repr__(self):
        return (f"PretrainedModel({MODEL_ID}: {self.n_layers} layers x "
                f"{self.n_heads} heads, d_model={self.d_model}, d_k={self.d_k})")

    def parameter_counts(self) -> dict:
        """How many learned numbers each part holds: ``{part: count}``.

        Parts: the word-piece table ``E`` (30,522 x 384), the position and
        segment tables with their LayerNorm, and, summed over all blocks,
        attention (``W_Q, W_K, W_V, W_O`` and biases), MLP (two matrices and
        biases) and the blocks' LayerNorms. The values add up to the model's
        parameters, counting the published file's "pooler", a last layer
        that this lesson never uses.
        """
        size = lambda parts: sum(int(np.size(a)) for a in parts)  # noqa: E731
        blocks = {"attention": 0, "MLP": 0, "LayerNorm in the blocks": 0}
        for L in self.layers:
            blocks["attention"] += size([L["W_QKV"], L["b_QKV"], *L["W_O"]])
            blocks["MLP"] += size([*L["W_in"], *L["W_out"]])
            blocks["LayerNorm in the blocks"] += size([*L["norm1"], *L["norm2"]])
        other = size([self.position_embeddings, *self.embedding_norm])
        return {"word-piece embeddings": int(self.word_embeddings.size),
                "positions, segments, their LayerNorm":
                    other + self.n_segments * self.d_model, **blocks,
                "pooler (unused here)": self.n_pooler}

    # -- tokens ---------------------------------------------------------------

    def tokenize(self, text: str, max_tokens: int | None = None):
        """Word pieces of ``text``: ``(tokens, ids, n_cut)``.

        ``[CLS]`` comes first and ``[SEP]`` last. A text longer than
        ``max_tokens`` word pieces (default ``model.max_tokens``) keeps its
        first ones and its ``[SEP]``; ``n_cut`` says how many were dropped.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        cap = self.max_tokens if max_tokens is None else int(max_tokens)
        if not 2 <= cap <= self.max_tokens:
            raise ValueError(f"max_tokens must be between 2 and {self.max_tokens}, "
                             f"got {max_tokens!r}")
        enc = self.tokenizer.encode(text)
        tokens, ids = list(enc.tokens), list(enc.ids)
        n_cut = max(0, len(ids) - cap)
        if n_cut:
            tokens = tokens[:cap - 1] + [tokens[-1]]
            ids = ids[:cap - 1] + [ids[-1]]
        return tokens, np.asarray(ids, dtype=np.intp), n_cut

    # -- the forward pass -----------------------------------------------------

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """(n,) word-piece ids -> (n, d_model): word + position + segment, LayerNorm."""
        n = len(ids)
        x = self.word_embeddings[ids]  # (n, d_model)
        x += self.position_embeddings[:n]
        x += self.type_embedding
        return layer_norm(x, *self.embedding_norm, LAYER_NORM_EPS)

    def layer(self, i: int, x: np.ndarray, mask=None):
        """Layer ``i`` on ``x`` (n, d_model): returns ``(new x, weights (h, n, n))``.

        ``mask`` (bool ``(n, n)``, optional) is passed to the attention: with
        :func:`~helpers.attention.causal_mask` each query sees only itself and
        earlier keys, as in a decoder (the weights were trained without it).

        One block of the post-LayerNorm BERT encoder::

            Q, K, V = split(x @ W_QKV + b_QKV)          # all heads in one product
            heads, A = scaled_dot_product_attention(Q, K, V)   # lesson 04
            x = LayerNorm(x + concat(heads) @ W_O + b_O)        # residual
            x = LayerNorm(x + GELU(x @ W_in + b_in) @ W_out + b_out)   # MLP
        """
        L = self.layers[i]
        n, h, d_k = x.shape[0], self.n_heads, self.d_k
        qkv = x @ L["W_QKV"]  # (n, 3 d_model)
        qkv += L["b_QKV"]
        # (n, 3 d_model) -> (3, h, n, d_k): Q, K and V with the heads in front
        qkv = qkv.reshape(n, 3, h, d_k).transpose(1, 2, 0, 3)
        heads, weights = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], mask=mask)
        # heads (h, n, d_k), weights (h, n, n)
        merged = heads.transpose(1, 0, 2).reshape(n, h * d_k)  # (n, d_model)
        W, b = L["W_O"]
        update = merged @ W  # (n, d_model)
        update += b
        update += x
        x = layer_norm(update, *L["norm1"], LAYER_NORM_EPS)  # (n, d_model)
        W, b = L["W_in"]
        inner = x @ W  # (n, d_mlp)
        inner += b
        inner = gelu(inner)
        W, b = L["W_out"]
        update = inner @ W  # (n, d_model)
        update += b
        update += x
        return layer_norm(update, *L["norm2"], LAYER_NORM_EPS), weights

    def run(self, text: str, max_tokens: int | None = None,
            causal: bool = False) -> Run:
        """Tokenize ``text`` and run all layers; see :class:`Run`.

        ``causal=True`` applies a causal mask in every layer (a thought
        experiment: the trained model has none).
        """
        tokens, ids, n_cut = self.tokenize(text, max_tokens)
        n = len(ids)
        hidden = np.empty((self.n_layers + 1, n, self.d_model), dtype=np.float32)
        attention = np.empty((self.n_layers, self.n_heads, n, n), dtype=np.float32)
        x = hidden[0] = self.embed(ids)
        mask = causal_mask(n) if causal else None
        for i in range(self.n_layers):
            x, attention[i] = self.layer(i, x, mask)
            hidden[i + 1] = x
        message = ""
        if n_cut:
            message = (f"The text has {n + n_cut} word pieces; only the first "
                       f"{n - 1} and [SEP] were used.")
        return Run(tokens, ids, hidden, attention, message, n_cut)

    # -- one head's weights, for the exercise of lesson 10 ---------------------

    def head_weights(self, layer: int, head: int):
        """Head ``head`` of layer ``layer``: ``(W_Q, b_Q, W_K, b_K)`` (copies).

        ``W_Q, W_K`` have shape ``(d_model, d_k)`` and ``b_Q, b_K`` shape
        ``(d_k,)``, so that for the layer's input ``x = run.hidden[layer]``::

            Q = x @ W_Q + b_Q;  K = x @ W_K + b_K
            softmax(Q K^T / sqrt(d_k)) == run.attention[layer, head]
        """
        if not 0 <= layer < self.n_layers or not 0 <= head < self.n_heads:
            raise IndexError(f"layer must be in 0..{self.n_layers - 1} and head in "
                             f"0..{self.n_heads - 1}, got layer={layer}, head={head}")
        L, d = self.layers[layer], self.d_model
        cols_q = slice(head * self.d_k, (head + 1) * self.d_k)
        cols_k = slice(d + head * self.d_k, d + (head + 1) * self.d_k)
        return (L["W_QKV"][:, cols_q].copy(), L["b_QKV"][cols_q].copy(),
                L["W_QKV"][:, cols_k].copy(), L["b_QKV"][cols_k].copy())


# --- analysis used by lesson 10 ----------------------------------------------


def word_vectors(model: PretrainedModel, sentences, word: str) -> np.ndarray:
    """The vector of ``word`` in each sentence, after every layer.

    Returns float32 ``(len(sentences), n_layers + 1, d_model)``: entry
    ``[s, l]`` is ``run.hidden[l]`` at the first word piece of sentence ``s``
    equal to ``word`` (lower case, as the tokenizer writes it). Raises
    ``ValueError`` naming the word pieces when a sentence lacks the word.
    """
    word = word.lower()
    out = []
    for text in sentences:
        run = model.run(text)
        if word not in run.tokens:
            raise ValueError(f"{word!r} is not one word piece of {text!r}; its word "
                             f"pieces are {run.tokens}")
        out.append(run.hidden[:, run.tokens.index(word)])
    return np.stack(out) if out else np.zeros((0, model.n_layers + 1, model.d_model),
                                              np.float32)


def unit_rows(v: np.ndarray) -> np.ndarray:
    """``v`` with every row (last axis) scaled to length 1."""
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray):
    """Cosine of each vector to each centroid, and the index of the nearest.

    vectors : (..., d);  centroids : (k, d).
    Returns ``(cosines (..., k), nearest (...,) int)``.
    """
    v = unit_rows(np.asarray(vectors, np.float64))
    cos = v @ unit_rows(np.asarray(centroids, np.float64)).T
    return cos, np.argmax(cos, axis=-1)


def project_2d(vectors: np.ndarray) -> np.ndarray:
    """Principal-component projection of ``(m, d)`` vectors to ``(m, 2)``.

    The two directions along which the vectors (centred on their mean) vary
    most; each axis is signed so that its largest coordinate is positive, so
    the picture does not flip between machines.
    """
    X = np.asarray(vectors, np.float64)
    X = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X, full_matrices=False)
    coords = X @ Vt[:2].T
    if coords.shape[1] < 2:
        coords = np.pad(coords, ((0, 0), (0, 2 - coords.shape[1])))
    flip = np.sign(coords[np.argmax(np.abs(coords), axis=0), [0, 1]])
    return coords * np.where(flip == 0, 1, flip)


PUNCTUATION = set(".,;:!?'\"()-")


def head_scores(runs) -> dict:
    """Measured scores of every head over a list of runs: ``{name: (L, h)}``.

    * ``"previous token"``: mean weight a word piece gives the one just
      before it (queries 2..n-2: neither [CLS] nor [SEP] asks);
    * ``"next token"``: mean weight on the word piece just after it
      (queries 1..n-3, so the next one is never [SEP]);
    * ``"no-op"``: mean weight a word piece puts on [CLS], [SEP] and
      punctuation together, the places a head "parks" attention when it has
      nothing to do.

    Each score is averaged over the queries, then over the runs; 1 is the
    most a score can be.
    """
    totals = {"previous token": 0.0, "next token": 0.0, "no-op": 0.0}
    for run in runs:
        A = run.attention.astype(np.float64)
        n = A.shape[-1]
        i = np.arange(2, n - 1)
        totals["previous token"] += A[..., i, i - 1].mean(-1)
        j = np.arange(1, n - 2)
        totals["next token"] += A[..., j, j + 1].mean(-1)
        parks = [k for k, tok in enumerate(run.tokens)
                 if tok in ("[CLS]", "[SEP]") or tok in PUNCTUATION]
        words = [k for k in range(1, n - 1) if k not in parks]
        totals["no-op"] += A[..., words, :][..., parks].sum(-1).mean(-1)
    return {name: total / len(runs) for name, total in totals.items()}


def relation_score(model: PretrainedModel, examples) -> np.ndarray:
    """Mean weight from one word to another, for every head: ``(L, h)``.

    ``examples`` are ``(sentence, query_word, key_word)`` triples, for
    example ``("The keys to the cabinet are here.", "are", "keys")`` for "a
    verb looks at its subject". The first word piece equal to each word is
    used; a head whose score is high follows that relation.
    """
    total = np.zeros((model.n_layers, model.n_heads))
    for text, query, key in examples:
        run = model.run(text)
        for w in (query, key):
            if w not in run.tokens:
                raise ValueError(f"{w!r} is not one word piece of {text!r}: "
                                 f"{run.tokens}")
        total += run.attention[:, :, run.tokens.index(query), run.tokens.index(key)]
    return total / len(examples)


# --- where the files come from -----------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "").strip().upper()
    return value in {"1", "ON", "YES", "TRUE"}


def project_cache() -> Path:
    """The project's own model cache, where ``make test-model`` puts its
    offline copy: ``$XDG_CACHE_HOME/attention-notebooks/hub`` (by default
    ``~/.cache/attention-notebooks/hub``), a huggingface_hub cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention-notebooks" / "hub"


def _from_hub() -> Path:
    """Folder holding both files: from huggingface_hub's cache (downloaded
    once), or else from the project's own cache (:func:`project_cache`)."""
    try:
        from huggingface_hub import hf_hub_download
        try:
            paths = [Path(hf_hub_download(MODEL_ID, name))
                     for name in (WEIGHTS_FILE, TOKENIZER_FILE)]
        except Exception:
            if not project_cache().is_dir():
                raise
            paths = [Path(hf_hub_download(MODEL_ID, name, cache_dir=project_cache(),
                                          local_files_only=True))
                     for name in (WEIGHTS_FILE, TOKENIZER_FILE)]
    except Exception as exc:  # no network, offline without a copy, hub down, ...
        how = ("HF_HUB_OFFLINE is set and there is no copy in the cache"
               if _offline() else "no copy in the cache, and the download failed: "
               + type(exc).__name__)
        raise ModelNotAvailable(
            f"The pretrained model {MODEL_ID} is not available ({how}): run "
            "load() once with an internet connection, or pass load() a folder "
            f"that holds {WEIGHTS_FILE} and {TOKENIZER_FILE}."
        ) from None
    if paths[0].parent != paths[1].parent:
        raise ModelNotAvailable(f"{paths} are not in one folder")  # pragma: no cover
    return paths[0].parent


@functools.lru_cache(maxsize=4)
def _load(folder: Path) -> PretrainedModel:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    weights, tok_file = folder / WEIGHTS_FILE, folder / TOKENIZER_FILE
    for f in (weights, tok_file):
        if not f.is_file():
            raise ModelNotAvailable(f"{f} does not exist: the folder passed to load() "
                                    f"must hold {WEIGHTS_FILE} and {TOKENIZER_FILE}.")
    size = weights.stat().st_size
    if size != WEIGHTS_BYTES or _sha256(weights) != WEIGHTS_SHA256:
        raise ModelNotAvailable(
            f"{weights} is not the published all-MiniLM-L6-v2 weights (size {size:,} "
            f"bytes or sha256 differs): delete it and run load() again.")
    tokenizer = Tokenizer.from_file(str(tok_file))
    tokenizer.no_padding()      # the file pads every text to 128 word pieces
    tokenizer.no_truncation()   # ... and cuts at 128; run() has its own cap
    return PretrainedModel(load_file(str(weights)), tokenizer)


def load(path=None) -> PretrainedModel:
    """all-MiniLM-L6-v2, ready to :meth:`~PretrainedModel.run`.

    path : a folder with ``model.safetensors`` and ``tokenizer.json``; by
        default ``huggingface_hub`` provides them (one download of about
        90 MB into its cache, then offline; ``HF_HUB_OFFLINE=1`` honoured).

    The weights' size and sha256 are checked. If the files cannot be had,
    :class:`ModelNotAvailable` says in one sentence what to do. The model is
    loaded once per folder and then shared.
    """
    folder = _from_hub() if path is None else Path(path).expanduser()
    return _load(folder.resolve())
