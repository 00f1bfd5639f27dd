"""Lesson 08: the toy picture world for cross-attention on an image.

A multimodal model lets the words of a caption ask questions of a picture:
the caption words are the queries, the picture's patches the keys and
values, and the call is the same ``cross_attention`` as for a translation.
This module builds a picture the notebook can make itself and puts both
sides into one space of named features:

* :func:`make_picture`: a seeded 96 x 96 picture, six shapes (circles,
  squares, triangles; red, green, blue) on a light background, each shape
  centred in a cell of a 4 x 4 layout, together with the generator's own
  label map (which shape painted each pixel);
* :func:`patches`: the picture cut into an 8 x 8 grid of 12-pixel patches,
  numbered row by row (patch ``j`` is in grid row ``j // 8``, column
  ``j % 8``);
* :func:`patch_features`: one feature vector per patch, ``F`` of shape
  ``(n_patches, D_MODEL)``, with readable names (:data:`FEATURES`): the share
  of the patch's pixels of each colour (read from the pixels), the share
  covered by each shape (read from the label map) and which half of the
  picture it lies in. A real model's vision encoder learns features like
  these from millions of pictures; here they are given, so that every
  number can be read;
* :func:`embed_caption`: caption words in the same feature space, ``E`` of
  shape ``(n_words, D_MODEL)``: "red" is the red feature, "circle" the
  circle feature; words that name nothing in the picture ("a", "the",
  "on", or any word outside :data:`VOCABULARY`) are all zeros, so they ask
  for nothing and look at every patch equally;
* :func:`picture_head`: a hand-built head ``(W_Q, W_K, W_V)``.

Rows are queries (caption words), columns are keys (patches)::

    picture = make_picture()
    F = patch_features(picture)                     # (64, 10)
    caption = embed_caption("a red circle")         # E: (3, 10)
    head = picture_head()
    out, A = cross_attention(caption.E, F, head.W_Q, head.W_K, head.W_V)
    A.shape                                         # (3, 64): n_words x n_patches
    patch_grid(A[1])                                # "red" as an (8, 8) map
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from helpers.world.tokens import tokenize

__all__ = [
    "BACKGROUND", "COLOURS", "D_MODEL", "FEATURES", "FUNCTION_WORDS", "GRID",
    "N_PATCHES", "PATCH", "POSITIONS", "SHAPES", "SIZE", "VOCABULARY", "Picture",
    "embed_caption", "make_picture", "patch_features", "patch_grid", "patches",
    "picture_head",
]

SIZE = 96  # the picture is SIZE x SIZE pixels
PATCH = 12  # a patch is PATCH x PATCH pixels
GRID = SIZE // PATCH  # 8 x 8 patches
N_PATCHES = GRID * GRID  # 64
CELL = SIZE // 4  # shapes sit in a 4 x 4 layout of 24-pixel cells (2 x 2 patches)

BACKGROUND = (0.96, 0.95, 0.91)
COLOURS = {"red": (0.86, 0.18, 0.16), "green": (0.16, 0.62, 0.24),
           "blue": (0.17, 0.35, 0.84)}
SHAPES = ("circle", "square", "triangle")
POSITIONS = ("left", "right", "top", "bottom")
#: The named features of a patch and of a caption word, in this order.
FEATURES = tuple(COLOURS) + SHAPES + POSITIONS
D_MODEL = len(FEATURES)  # 10

#: Caption words that name a feature (plurals name the same one).
VOCABULARY = {**{f: f for f in FEATURES}, **{s + "s": s for s in SHAPES}}
#: Words a caption needs that name nothing in the picture: no query.
FUNCTION_WORDS = frozenset(
    "a an the and or on in at of is are with to there this one two some its "
    "picture image shape shapes".split())

#: The hand-built head's gain: after the 1/sqrt(d_k) scaling a word's score
#: for a patch is GAIN times the share of the word's feature in the patch.
GAIN = 8.0


@dataclass(frozen=True)
class Picture:
    """A toy picture: ``pixels`` (SIZE, SIZE, 3) RGB in [0, 1], ``labels``
    (SIZE, SIZE) ints (0: background, k: ``SHAPES[k - 1]``), ``objects``:
    one ``(colour, shape, cell_row, cell_col)`` per shape (4 x 4 cells)."""

    pixels: np.ndarray
    labels: np.ndarray
    objects: tuple
    seed: int


def _shape_mask(shape: str, cy: float, cx: float) -> np.ndarray:
    """(SIZE, SIZE) bool: the pixels (centres at i + 0.5) of one shape."""
    y, x = np.mgrid[0:SIZE, 0:SIZE] + 0.5
    dy, dx = y - cy, x - cx
    if shape == "circle":
        return dy ** 2 + dx ** 2 <= 9.5 ** 2
    if shape == "square":
        return (np.abs(dy) < 8) & (np.abs(dx) < 8)
    top, base, half = -9.0, 8.0, 10.0  # a triangle pointing up
    return (dy >= top) & (dy <= base) & (np.abs(dx) <= half * (dy - top) / (base - top))


def make_picture(seed: int = 8) -> Picture:
    """A seeded picture of six shapes: every colour twice, every shape twice,
    and no two shapes alike (the six pairs left when one colour-shape pairing
    per colour is left out), each in its own cell of the 4 x 4 layout."""
    rng = np.random.default_rng(seed)
    left_out = rng.permutation(len(SHAPES))  # colour i never gets shape left_out[i]
    pairs = [(c, s) for i, c in enumerate(COLOURS) for k, s in enumerate(SHAPES)
             if k != left_out[i]]
    pairs = [pairs[k] for k in rng.permutation(len(pairs))]
    cells = rng.choice(16, size=len(pairs), replace=False)
    pixels = np.empty((SIZE, SIZE, 3))
    pixels[:] = BACKGROUND
    labels = np.zeros((SIZE, SIZE), dtype=int)
    objects = []
    for (colour, shape), cell in zip(pairs, cells):
        r, c = divmod(int(cell), 4)
        mask = _shape_mask(shape, (r + 0.5) * CELL, (c + 0.5) * CELL)
        pixels[mask] = COLOURS[colour]
        labels[mask] = SHAPES.index(shape) + 1
        objects.append((colour, shape, r, c))
    return Picture(pixels, labels, tuple(objects), seed)


def patches(image: np.ndarray) -> np.ndarray:
    """Cut an (SIZE, SIZE, ...) array into patches, numbered row by row:
    (N_PATCHES, PATCH, PATCH, ...). Works for the pixels and the label map."""
    a = np.asarray(image)
    rest = a.shape[2:]
    a = a.reshape(GRID, PATCH, GRID, PATCH, *rest)
    return np.moveaxis(a, 2, 1).reshape(N_PATCHES, PATCH, PATCH, *rest)


def colour_shares(pixels: np.ndarray) -> np.ndarray:
    """(..., 3) pixels -> (len(COLOURS),) share of the pixels whose nearest
    colour (background or one of COLOURS) is each colour."""
    palette = np.array([BACKGROUND, *COLOURS.values()])
    flat = np.asarray(pixels, dtype=float).reshape(-1, 3)
    nearest = np.argmin(((flat[:, None, :] - palette[None]) ** 2).sum(-1), axis=1)
    return np.array([np.mean(nearest == k + 1) for k in range(len(COLOURS))])


def patch_features(picture: Picture) -> np.ndarray:
    """``F`` (N_PATCHES, D_MODEL): each patch's named features (FEATURES).

    Colours: share of the patch's pixels of that colour (from the pixels).
    Shapes: share of its pixels inside that shape (from the label map).
    Positions: 1 if the patch lies in that half of the picture, else 0.
    """
    px, lab = patches(picture.pixels), patches(picture.labels)
    colours = np.array([colour_shares(p) for p in px])
    shapes = np.stack([(lab == k + 1).mean(axis=(1, 2))
                       for k in range(len(SHAPES))], axis=1)
    row, col = np.divmod(np.arange(N_PATCHES), GRID)
    left, top = (col < GRID // 2).astype(float), (row < GRID // 2).astype(float)
    where = np.stack([left, 1 - left, top, 1 - top], axis=1)
    return np.hstack([colours, shapes, where])


def patch_grid(row) -> np.ndarray:
    """One value per patch (N_PATCHES,) -> the (GRID, GRID) map of the
    picture: patch ``j`` goes to grid row ``j // GRID``, column ``j % GRID``."""
    return np.asarray(row, dtype=float).reshape(GRID, GRID)


def embed_caption(text) -> SimpleNamespace:
    """Caption words in the patches' feature space.

    ``text``: a string (cut with ``helpers.world.tokens.tokenize``) or a list of
    words. Returns ``tokens`` (lowercase words), ``E`` (n_words, D_MODEL):
    a word of VOCABULARY is 1 on its feature, every other word all zeros;
    ``asks`` (n_words,) bool, True where a word names a feature;
    ``function`` (words of FUNCTION_WORDS) and ``outside`` (words that are
    neither, in order, without repeats).
    """
    tokens = tokenize(text) if isinstance(text, str) else [str(t).lower()
                                                          for t in text]
    E = np.zeros((len(tokens), D_MODEL))
    for i, word in enumerate(tokens):
        if word in VOCABULARY:
            E[i, FEATURES.index(VOCABULARY[word])] = 1.0
    function = [w for w in dict.fromkeys(tokens) if w in FUNCTION_WORDS]
    outside = [w for w in dict.fromkeys(tokens)
               if w not in VOCABULARY and w not in FUNCTION_WORDS]
    return SimpleNamespace(tokens=list(tokens), E=E, asks=E.any(axis=1),
                           function=function, outside=outside)


def picture_head() -> SimpleNamespace:
    """The hand-built head: ``W_Q`` = GAIN * sqrt(d_k) * I, ``W_K`` = ``W_V``
    = I, all (D_MODEL, D_MODEL), so d_k = d_v = D_MODEL. A word's scaled
    score for a patch is GAIN times the patch's share of the word's feature
    ("red" scores 8 on an all-red patch, 0 on one with no red); a value is
    the patch's own features, so a word's output is the average feature
    vector of the patches it looks at."""
    eye = np.eye(D_MODEL)
    return SimpleNamespace(W_Q=GAIN * np.sqrt(D_MODEL) * eye, W_K=eye.copy(),
                           W_V=eye.copy(),
                           description="Caption words look for the patches "
                                       "that have their feature")
