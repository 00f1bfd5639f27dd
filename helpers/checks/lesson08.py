"""Lesson 08: the checkers of cross-attention (weights' shape, the core
exercise, a word's map on the picture, padded source tokens)."""

from __future__ import annotations

import math

import numpy as np

from helpers.world import images
from helpers.attention import (
    cross_attention,
    scaled_dot_product_attention,
    softmax,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _close_nan_as_zero,
    _call,
    _unpack_pair,
    _require_shape,
    _as_array,
    _checker,
    _whole_numbers,
)
from helpers.checks._scale import name_the_divisor
from helpers.checks._weights import _diagnose_weights

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = [
    "check_cross_attention",
    "check_cross_shape",
    "check_padded_cross",
    "check_word_heatmap",
]


def _cross_data(seed, n_q, n_s, d_q, d_s, d_k=2, d_v=3):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n_q, d_q)),
        rng.standard_normal((n_s, d_s)),
        rng.standard_normal((d_q, d_k)),
        rng.standard_normal((d_s, d_k)),
        rng.standard_normal((d_s, d_v)),
    )


@_checker("cross-attention")
def check_cross_attention(fn, name):
    """Check ``fn(X_query, X_source, W_Q, W_K, W_V) -> (output, weights)``."""
    cases = [
        # d_k = 3, width 4, d_v = 6, 5 tokens: every size a learner might divide
        # the scores by is a different number (sqrt(d_k) 1.73, d_k 3, sqrt of the
        # width 2, the width 4, sqrt(d_v) 2.45, sqrt(n) 2.24, ...).
        ("5 query and 5 source tokens", _cross_data(_SEED, 5, 5, 4, 4, d_k=3, d_v=6)),
        ("3 query and 5 source tokens", _cross_data(_SEED + 1, 3, 5, 4, 4)),
        (
            "3 query tokens (d=4), 5 source tokens (d=6)",
            _cross_data(_SEED + 2, 3, 5, 4, 6),
        ),
    ]
    for label, arrays in cases:
        Xq, Xs, W_Q, W_K, W_V = arrays
        n_q, n_s = Xq.shape[0], Xs.shape[0]
        Q, K, V = Xq @ W_Q, Xs @ W_K, Xs @ W_V
        expected_out, expected_w = scaled_dot_product_attention(Q, K, V)
        result, _ = _call(fn, name, ("X_query", "X_source", "W_Q", "W_K", "W_V"),
                          *arrays)
        got_out, got_w = _unpack_pair(result, name, "output", "weights")
        if (got_w.shape != expected_w.shape and got_out.shape == expected_w.shape
                and got_w.shape == expected_out.shape):
            raise _Fail("You returned (weights, output); return them the other way "
                        "round: (output, weights).")
        if got_w.shape != expected_w.shape:
            hint = "That is (n_query, n_source): one row per query token."
            if got_w.shape == (n_s, n_q):
                hint += (
                    " Yours is (n_source, n_query): the roles are swapped (or you "
                    "computed K Q^T). Queries come from X_query @ W_Q; keys and "
                    "values from X_source."
                )
            elif got_w.shape in ((n_q, n_q), (n_s, n_s)):
                hint += (
                    " Yours is square: queries and keys come from the same "
                    "sequence. Keys come from X_source @ W_K."
                )
            _require_shape(got_w, expected_w.shape, f"For {label}, weights", hint)
        if not _close(got_w, expected_w):
            extra = {}
            if n_q == n_s and Xq.shape[1] == Xs.shape[1]:
                extra["swapped"] = scaled_dot_product_attention(
                    Xs @ W_Q, Xq @ W_K, Xq @ W_V
                )[1]
                extra["swapped_message"] = (
                    "The roles are swapped: your queries come from X_source and "
                    "your keys from X_query. Queries: X_query @ W_Q; keys and "
                    "values: X_source @ W_K, X_source @ W_V."
                )
            if Xq.shape[1] == Xs.shape[1]:
                self_w = softmax((Xq @ W_Q) @ (Xq @ W_K).T / math.sqrt(W_Q.shape[1]))
                if self_w.shape == expected_w.shape:
                    extra["self"] = self_w
                    extra["self_message"] = (
                        "Your keys come from X_query: that is self-attention. "
                        "Keys and values come from the other sequence, X_source."
                    )
            if n_q <= n_s:
                extra["masked"] = scaled_dot_product_attention(
                    Q, K, V, mask=np.tril(np.ones((n_q, n_s), dtype=bool))
                )[1]
                extra["masked_message"] = (
                    "You applied a causal mask. Cross-attention usually has no "
                    "mask: every query may look at the whole source."
                )
            extra["after"] = softmax(Q @ K.T) / math.sqrt(Q.shape[-1])
            extra["after_message"] = (
                "You divided by sqrt(d_k) after the softmax, so your rows sum to "
                "less than 1. Divide the scores before it: softmax(Q K^T / sqrt(d_k)).")
            scale = name_the_divisor(got_w, Q @ K.T, _divisors(Xq, Xs, Q, V))
            if scale:
                raise _Fail(scale)
            _diagnose_weights(got_w, Q, K, None, expected_w, label, extra)
        if got_out.shape != expected_out.shape:
            if got_out.shape == (n_q, Xs.shape[1]) and _close(got_out, expected_w @ Xs):
                raise _Fail("Your weights are right, but the output is weights @ "
                            "X_source: the values are V = X_source @ W_V.")
            _require_shape(
                got_out,
                expected_out.shape,
                f"For {label}, output",
                "That is (n_query, d_v): one update per query token.",
            )
        if not _close(got_out, expected_out):
            if (
                Xq.shape == Xs.shape
                and W_V.shape[0] == Xq.shape[1]
                and _close(got_out, expected_w @ (Xq @ W_V))
            ):
                raise _Fail(
                    "Your weights are right, but the values come from X_query. "
                    "Values come from the source: V = X_source @ W_V."
                )
            if n_q == n_s and _close(got_out, expected_w.T @ V):
                raise _Fail("Your weights are right, but the output uses them "
                            "transposed (weights.T @ V): output = weights @ V, one "
                            "row per query.")
            raise _Fail(
                f"For {label} your weights are right but the output is not "
                "weights @ (X_source @ W_V)."
            )
    return (
        f"{name} matches the reference on {len(cases)} cases, including "
        "sequences of different lengths and widths."
    )


def _divisors(Xq, Xs, Q, V):
    """What a learner might divide the scores by, the right one first (see
    :func:`helpers.checks._scale.name_the_divisor`)."""
    d_k, n_q, n_s = Q.shape[-1], Xq.shape[0], Xs.shape[0]
    d_q, d_s, d_v = Xq.shape[1], Xs.shape[1], V.shape[-1]
    r = math.sqrt(d_k)
    fix = (f"d_k = Q.shape[-1] = {d_k} is the width of the queries and keys: "
           f"divide by sqrt({d_k}) = {r:.4g}.")

    def wrong(value, text):
        return (value, text, f"You divided the scores by {text}. {fix}")

    length = "a number of tokens; d_k is a width, not a length"
    return [
        (r, "sqrt(d_k)"),
        (1, ""),
        (d_k, "d_k itself, without the square root"),
        wrong(math.sqrt(d_q), f"sqrt({d_q}) = {math.sqrt(d_q):.4g}, the square root "
              "of X_query's width (the model width)"),
        wrong(d_q, f"{d_q}, X_query's width (the model width)"),
        wrong(math.sqrt(d_s), f"sqrt({d_s}) = {math.sqrt(d_s):.4g}, the square root "
              "of X_source's width"),
        wrong(d_s, f"{d_s}, X_source's width"),
        wrong(math.sqrt(d_v), f"sqrt({d_v}) = {math.sqrt(d_v):.4g}, the square root "
              "of the values' width d_v"),
        wrong(d_v, f"{d_v}, the values' width d_v"),
        wrong(math.sqrt(n_s), f"sqrt({n_s}) = {math.sqrt(n_s):.4g}, the square root "
              f"of {length}"),
        wrong(math.sqrt(n_q), f"sqrt({n_q}) = {math.sqrt(n_q):.4g}, the square root "
              f"of {length}"),
        wrong(n_s, f"{n_s}, {length}"),
    ]


# ------------------------------------------------------------- warm-up ---


@_checker("the shape of the cross-attention weights")
def check_cross_shape(fn, name):
    """Check ``fn(n_query, n_source) -> (n_query, n_source)``."""
    sizes = ((4, 6), (7, 3), (5, 5))
    answers = [_call(fn, name, ("n_query", "n_source"), *size)[0] for size in sizes]
    if all(repr(a) == repr(answers[0]) for a in answers):
        raise _Fail(f"{name} returns {answers[0]!r:.40} whatever the sizes: a number "
                    "typed in by hand. Build the shape from n_query and n_source.")
    for n_q, n_s in sizes:
        result, _ = _call(fn, name, ("n_query", "n_source"), n_q, n_s)
        if isinstance(result, (int, float, np.integer, np.floating)):
            raise _Fail(f"{name} returned one number, {result!r:.20}; a shape is a "
                        "pair of whole numbers (rows, columns), like (3, 5).")
        try:
            got = _whole_numbers(result)
        except (TypeError, ValueError):
            raise _Fail(f"{name} should return a shape, a pair of whole numbers like "
                        f"(3, 5); got {result!r:.80}.")
        if got == (n_q, n_s):
            continue
        if got == (n_s, n_q):
            raise _Fail(
                f"For {n_q} query tokens and {n_s} source tokens you answered "
                f"{got}: rows and columns are swapped. Rows are queries (the "
                "sentence being written), columns are keys (the source)."
            )
        if len(got) != 2:
            raise _Fail(f"You answered {got}, {len(got)} number(s): the weights are a "
                        "grid, so their shape is a pair (rows, columns).")
        if len(got) == 2 and got[0] == got[1]:
            raise _Fail(
                f"You answered a square {got}: in cross-attention the two sentences "
                "can have different lengths, one row per query token and one column "
                "per source token."
            )
        if got in ((n_q * n_s, 1), (1, n_q * n_s)):
            raise _Fail(f"You answered {got}: that is the number of weights laid out "
                        "in one line. The grid has one row per query token and one "
                        "column per source token.")
        if abs(got[0] - n_q) <= 1 and abs(got[1] - n_s) <= 1:
            raise _Fail(f"For {n_q} query and {n_s} source tokens you answered {got}: "
                        "off by one. The shape is exactly (n_query, n_source), with "
                        "nothing added or taken away.")
        raise _Fail(f"For {n_q} query and {n_s} source tokens expected "
                    f"({n_q}, {n_s}), got {got}.")
    return f"{name}: one row per query token, one column per source token."


# ------------------------------------------------------------- stretch ---


@_checker("cross-attention with padded source tokens masked")
def check_padded_cross(fn, name):
    """Check ``fn(X_query, X_source, W_Q, W_K, W_V, source_is_real)
    -> (output, weights)``: padding keys (source columns) get weight 0."""
    cases = [
        ("3 query, 5 source tokens (last 3 padding)",
         _cross_data(_SEED + 3, 3, 5, 4, 4, d_k=3, d_v=6),
         np.array([1, 1, 0, 0, 0], bool)),
        ("4 query, 4 source tokens (last 1 padding)",
         _cross_data(_SEED + 4, 4, 4, 4, 6), np.array([1, 1, 1, 0], bool)),
    ]
    for label, arrays, real in cases:
        Xq, Xs, W_Q, W_K, W_V = arrays
        n_q, n_s = Xq.shape[0], Xs.shape[0]
        Q, K, V = Xq @ W_Q, Xs @ W_K, Xs @ W_V
        mask = np.broadcast_to(real[None, :], (n_q, n_s))
        expected_out, expected_w = scaled_dot_product_attention(Q, K, V, mask=mask)
        names = ("X_query", "X_source", "W_Q", "W_K", "W_V", "source_is_real")
        result, _ = _call(fn, name, names, *arrays, real)
        got_out, got_w = _unpack_pair(result, name, "output", "weights")
        _require_shape(got_w, expected_w.shape, f"For {label} the weights",
                       "(n_query, n_source): one row per query token.")
        if not _close(got_w, expected_w):
            _, plain_w = scaled_dot_product_attention(Q, K, V)
            scores = Q @ K.T / math.sqrt(K.shape[-1])
            extra = {
                "nomask": plain_w,
                "nomask_message": "Your weights still reach the padding columns: "
                "padding keys must get weight 0. Build a mask that is True for real "
                "source tokens, one row per query: np.broadcast_to(source_is_real, "
                "(n_query, n_source)), and put -inf where it is False.",
                "inverted": softmax(np.where(~mask, scores, -np.inf)),
                "inverted_message": "Your mask is inverted: the weights sit on the "
                "padding and the real tokens get 0. True in source_is_real means "
                "'may attend'.",
            }
            n_min = min(n_q, n_s)
            rows = np.zeros(n_q, bool)
            rows[:n_min] = real[:n_min]
            with np.errstate(all="ignore"):
                on_queries = scaled_dot_product_attention(
                    Q, K, V, mask=np.broadcast_to(rows[:, None], (n_q, n_s)))[1]
            extra["queries"] = on_queries
            extra["queries_message"] = (
                "You masked ROWS (queries) instead of COLUMNS (keys): padding is in "
                "the source, so its columns must get weight 0 in every row. Use "
                "source_is_real[None, :], not source_is_real[:, None]."
            )
            with np.errstate(all="ignore"):
                both = scaled_dot_product_attention(
                    Q, K, V, mask=mask & rows[:, None])[1]
            extra["both"] = both
            extra["both_message"] = (
                "Your padding columns are right, but you also masked query rows: "
                "padding is only in the source, so every query row attends to the "
                "real source tokens. Mask the columns alone: "
                "np.broadcast_to(source_is_real, (n_query, n_source)).")
            lower = np.tril(np.ones((n_q, n_s), dtype=bool))
            extra["causal"] = softmax(np.where(mask & lower, scores, -np.inf))
            extra["causal_message"] = (
                "You applied a causal mask as well as the padding mask. "
                "Cross-attention has no causal mask: every query may look at the "
                "whole source. Mask the padding columns alone.")
            extra["causal_only"] = softmax(np.where(lower, scores, -np.inf))
            extra["causal_only_message"] = (
                "You applied a causal mask instead of the padding mask. "
                "Cross-attention has no causal mask: mask the padding columns, "
                "np.where(source_is_real[None, :], S, -np.inf).")
            extra["zero"] = softmax(np.where(mask, scores, 0.0))
            extra["zero_message"] = (
                "The padding scores are 0 instead of -inf: exp(0) = 1, so the padding "
                "still gets weight. Use np.where(source_is_real[None, :], S, -np.inf).")
            for key in ("queries", "both", "causal", "causal_only", "nomask",
                        "inverted", "zero"):
                if _close_nan_as_zero(got_w, extra[key]):
                    raise _Fail(extra[key + "_message"])
            scale = name_the_divisor(got_w, Q @ K.T, _divisors(Xq, Xs, Q, V), mask=mask)
            if scale:
                raise _Fail(scale)
            _diagnose_weights(got_w, Q, K, mask, expected_w, label)
        _require_shape(got_out, expected_out.shape, f"For {label} the output",
                       "(n_query, d_v).")
        if not _close(got_out, expected_out):
            raise _Fail(f"For {label} your weights are right but the output is not "
                        "weights @ V, with V = X_source @ W_V.")
    return (f"{name} gives the padding columns weight 0 and every row still sums "
            "to 1.")


# ------------------------------------------- a word's map on the picture ---


def _picture_weights():
    """``A`` (3, 64) of the caption "a red circle" on lesson 08's picture."""
    picture = images.make_picture()
    head = images.picture_head()
    caption = images.embed_caption("a red circle")
    return cross_attention(caption.E, images.patch_features(picture), head.W_Q,
                           head.W_K, head.W_V)[1]


def _map_mistakes(got, A, i, n_rows, n_cols):
    """The named mistake whose result ``got`` equals, or None."""
    row = A[i]
    right = row.reshape(n_rows, n_cols)
    named = [
        (row.reshape(n_cols, n_rows).T,
         "You filled the map column by column (order='F', or reshape(n_cols, "
         "n_rows).T). The patches are numbered row by row: patch j sits in row "
         "j // n_cols, column j % n_cols, which is what A[i].reshape(n_rows, n_cols) "
         "does."),
        (right[::-1], "Your map is upside down: row 0 of the map is the top row of "
         "patches, as imshow draws it. Do not flip it."),
        (right[:, ::-1], "Your map is mirrored left to right: column 0 is the "
         "leftmost patch. Do not flip it."),
        (softmax(right.ravel()).reshape(n_rows, n_cols),
         "You applied a softmax again: A's rows are already softmaxed and sum to 1. "
         "The map is the weights themselves."),
    ]
    named += [(A[k].reshape(n_rows, n_cols),
               f"That is the row of word {k}, not of word {i}: take A[i], the i-th "
               "row (rows are the caption words).") for k in range(len(A)) if k != i]
    for value, message in named:
        if _close(got, value):
            return message
    flat = got.ravel()
    if flat.size == row.size and np.all(np.isfinite(flat)) and flat.any():
        ratio = flat / np.where(row == 0, np.nan, row)
        ratio = ratio[np.isfinite(ratio)]
        if ratio.size and np.allclose(ratio, ratio[0], rtol=1e-6) and not np.isclose(
                ratio[0], 1.0):
            return (f"Your numbers are the weights times {ratio[0]:.3g} (rescaled): "
                    "keep the weights as they are; the colour scale of the picture "
                    "does the rest.")
    return None


@_checker("a word's map on the picture")
def check_word_heatmap(fn, name):
    """Check ``fn(A, i, n_rows, n_cols) -> A[i].reshape(n_rows, n_cols)``."""
    rng = np.random.default_rng(_SEED + 8)
    cases = [("3 words, a 2 x 3 grid of patches, word 1",
              softmax(rng.standard_normal((3, 6)) * 2), 1, 2, 3),
             ("4 words, a 3 x 4 grid of patches, word 2",
              softmax(rng.standard_normal((4, 12)) * 2), 2, 3, 4),
             ("the caption 'a red circle' on the 8 x 8 picture, word 1 ('red')",
              _picture_weights(), 1, 8, 8)]
    for label, A, i, n_rows, n_cols in cases:
        names = ("A", "i", "n_rows", "n_cols")
        try:
            result, _ = _call(fn, name, names, A, i, n_rows, n_cols)
        except _Fail as fail:
            text = str(fail)
            if "reshape" in text and "size" in text:
                text = text.split(" Run it on a small example")[0]
                raise _Fail(f"{text} For {label}: a column A[:, i] has one number "
                            "per word; a word's weights are its ROW, A[i], one "
                            "number per patch.") from None
            raise
        got = _as_array(result, f"What {name} returns")
        n_words, n_patches = A.shape
        if got.shape != (n_rows, n_cols):
            hints = {
                (n_cols, n_rows): "Rows and columns are swapped: the map is n_rows "
                "patches high and n_cols wide, reshape(n_rows, n_cols).",
                (n_patches,): "That is the row as it is: lay it out as the grid, "
                "reshape(n_rows, n_cols).",
                (n_words,): "That is a column, one number per word: a word's weights "
                "are its row, A[i].",
                A.shape: "That is all of A: take word i's row first, A[i].",
            }
            _require_shape(got, (n_rows, n_cols), f"For {label}, the map",
                           hints.get(got.shape, "One number per patch, laid out as "
                                     "the patch grid."))
        if not _close(got, A[i].reshape(n_rows, n_cols)):
            message = _map_mistakes(got, A, i, n_rows, n_cols)
            raise _Fail(message or f"For {label} the map differs from word {i}'s row "
                        "of A laid out row by row (A[i].reshape(n_rows, n_cols)).")
    return (f"{name} lays a word's row of A out on the patch grid, row by row, in "
            f"all {len(cases)} cases.")
