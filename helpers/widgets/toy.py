"""The toy world the explorers of lessons 00-09 share: the lessons' example
sentences and their hand-built heads (``helpers.world.heads``). Explorer modules
import these from ``helpers.widgets.kit``."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from helpers.world import heads


def toy_sentence(key: str) -> str:
    """An example sentence of the lessons (``heads.CURRICULUM_SENTENCES``)."""
    return str(heads.CURRICULUM_SENTENCES[key])


@lru_cache(maxsize=None)
def toy_head(name: str):
    """The hand-built head ``heads.<name>()``, built once."""
    return getattr(heads, name)()


def project(head, E):
    """Q, K, V of ``head`` for embeddings ``E`` (n, D_MODEL), row-vector
    convention: ``Q = E W_Q``, ``K = E W_K``, ``V = E W_V``."""
    return E @ head.W_Q, E @ head.W_K, E @ head.W_V


def value_up(head, values):
    """Values in embedding space: ``values @ W_up`` when the head has one."""
    W_up = getattr(head, "W_up", None)
    if W_up is None:
        return values
    return values @ np.asarray(W_up)
