"""Lesson 10's measurements on the pretrained model (helpers.models.pretrained).

* :func:`reference_differences`: how far this numpy model is from the stored
  outputs of the reference implementation;
* :func:`same_offset_score`: the position-only baseline for a head that is
  said to follow a relation (verb -> object);
* :func:`sense_gap`: which sense's centroid a word's vector is nearer, layer
  by layer, with leave-one-out centroids;
* :func:`parked_weight`: how much weight each head's word pieces put on
  ``[CLS]``, on ``[SEP]`` and on a full stop, sentence by sentence.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers.models.pretrained import PretrainedModel, unit_rows

__all__ = ["parked_weight", "reference_differences", "same_offset_score", "sense_gap"]

PARKING = ("[CLS]", "[SEP]", ".")

REFERENCE = (Path(__file__).resolve().parents[2] / "tests" / "data"
             / "pretrained_reference.npz")


def same_offset_score(model: PretrainedModel, examples) -> np.ndarray:
    """The position-only baseline of :func:`relation_score`: ``(L, h)``.

    For each ``(sentence, query_word, key_word)`` triple with the key ``d``
    pieces after the query, the mean weight every *other* word piece of the
    sentence gives the piece ``d`` after it ([CLS] and [SEP] neither ask nor
    are asked); averaged over the triples. A head that only used position
    would score the same here as in :func:`relation_score`.
    """
    total = np.zeros((model.n_layers, model.n_heads))
    for text, query, key in examples:
        run = model.run(text)
        i, j = run.tokens.index(query), run.tokens.index(key)
        n, d = len(run.tokens), j - i
        others = [a for a in range(1, n - 1) if 0 < a + d < n - 1 and a != i]
        if others:
            total += run.attention[:, :, others, [a + d for a in others]].mean(-1)
    return total / len(examples)


def reference_differences(model: PretrainedModel, path=None) -> dict:
    """Largest differences from the stored reference outputs.

    ``tests/data/pretrained_reference.npz`` holds what transformers' own
    ``BertModel`` computed on three sentences (tools/make_pretrained_reference.py).
    Returns ``{"sentences": 3, "hidden": max |diff|, "attention": max |diff|}``
    over those sentences, the hidden states it stored and every head.
    """
    path = Path(path) if path else REFERENCE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: it comes with the repository.")
    ref = np.load(path)
    out = {"sentences": len(ref["sentences"]), "hidden": 0.0, "attention": 0.0}
    for k, text in enumerate(ref["sentences"]):
        run = model.run(str(text))
        hidden = run.hidden[ref["hidden_layers"]]
        for name, ours in (("hidden", hidden), ("attention", run.attention)):
            diff = float(np.abs(ours - ref[f"{name}_{k}"]).max())
            out[name] = max(out[name], diff)
    return out


def sense_gap(vectors: np.ndarray, senses, leave_one_out: bool = True) -> np.ndarray:
    """Cosine to sense 0's centroid minus cosine to sense 1's, per vector and layer.

    vectors : (m, L + 1, d), e.g. from :func:`word_vectors`; senses : (m,) in {0, 1}.
    Returns float64 ``(m, L + 1)``; above 0 means "nearer sense 0". With
    ``leave_one_out`` a vector's own sense centroid is the mean of the *other*
    vectors of that sense, so no vector is judged against itself.
    """
    V = np.asarray(vectors, np.float64)
    senses = np.asarray(senses)
    counts = np.array([(senses == s).sum() for s in (0, 1)], float)
    if (V.ndim != 3 or senses.shape != V.shape[:1]
            or (counts < 1 + leave_one_out).any()):
        raise ValueError(f"vectors (m, L+1, d) and senses (m,) with at least "
                         f"{1 + leave_one_out} of each sense; got {V.shape}, "
                         f"{senses.shape}")
    sums = np.stack([V[senses == s].sum(0) for s in (0, 1)], axis=1)  # (L+1, 2, d)
    gap = np.zeros(V.shape[:2])
    for k in range(len(V)):
        own = np.eye(2)[senses[k]][:, None] * leave_one_out   # take v_k out of its sum
        centroids = (sums - own * V[k][:, None]) / (counts - own[:, 0])[:, None]
        u = unit_rows(V[k])[:, None, :] * unit_rows(centroids)
        cos = u.sum(-1)                                        # (L+1, 2)
        gap[k] = cos[:, 0] - cos[:, 1]
    return gap


def parked_weight(runs) -> dict:
    """Per sentence and head, the mean weight a word piece puts on each of
    ``PARKING``: ``{"[CLS]": (n_runs, L, h), "[SEP]": ..., ".": ...}``.

    The askers are the word pieces between ``[CLS]`` and ``[SEP]`` that are
    not punctuation; a sentence without a full stop gives NaN for ".".
    Average over axis 0 (``np.nanmean``) for a head's mean over sentences.
    """
    from helpers.models.pretrained import PUNCTUATION

    out = {key: [] for key in PARKING}
    for run in runs:
        A = np.asarray(run.attention, np.float64)
        n = A.shape[-1]
        askers = [k for k in range(1, n - 1) if run.tokens[k] not in PUNCTUATION]
        rows = A[..., askers, :]                                   # (L, h, q, n)
        for key in PARKING:
            keys = [k for k, tok in enumerate(run.tokens) if tok == key]
            weight = rows[..., keys].sum(-1).mean(-1) if keys else np.full(A.shape[:2],
                                                                           np.nan)
            out[key].append(weight)
    return {key: np.stack(value) for key, value in out.items()}
