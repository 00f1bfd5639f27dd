"""Exercise checkers: run a learner's function against the reference.

Each ``check_*`` function takes the learner's function, runs it on several
small cases (fixed numbers, seeded random numbers), compares the results with
:mod:`helpers.attention` and returns ``True`` or ``False``. It prints exactly
one line when everything is right, or a diagnosis naming the mistake and what
to do about it. It never raises: anything the learner's code raises is caught
and reported in plain words, so "Run All" carries on. A function that is still
the exercise stub (raises ``NotImplementedError`` or returns ``None`` or
``...``) gets a friendly "not done yet".

Usage in a notebook::

    from helpers import checks
    checks.check_softmax(my_softmax);
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from helpers.attention import causal_mask, scaled_dot_product_attention, softmax

__all__ = [
    "check_attention",
    "check_causal_mask",
    "check_cosine",
    "check_cross_attention",
    "check_multi_head",
    "check_scores",
    "check_softmax",
    "check_softmax_backward",
    "check_update",
]

_SEED = 1234
RTOL = 1e-5
ATOL = 1e-7


class _Stub(Exception):
    """The learner's function is still the exercise stub."""


class _Fail(Exception):
    """A diagnosed mistake; the message is shown to the learner."""


# ------------------------------------------------------------------ basics ---


def _fmt(a, precision: int = 3) -> str:
    """Short plain-text rendering of a small array."""
    a = np.asarray(a)
    if a.dtype == bool:
        return np.array2string(a.astype(int), separator=" ")
    return np.array2string(
        a, precision=precision, suppress_small=True, separator=" ", max_line_width=90
    )


def _close(got, expected) -> bool:
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return False
    try:
        return bool(np.allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=False))
    except TypeError:
        return False


def _close_nan_as_zero(got, expected) -> bool:
    """Like :func:`_close` but reads NaN in ``got`` as 0 (for diagnosis only)."""
    got = np.asarray(got)
    if got.shape != np.shape(expected):
        return False
    return _close(np.nan_to_num(got, nan=0.0, posinf=0.0, neginf=0.0), expected)


def _first_match(got, candidates: dict):
    """Name of the first candidate array that ``got`` equals, else None."""
    for name, value in candidates.items():
        if value is not None and _close(got, value):
            return name
    return None


def _copy_args(args):
    return tuple(
        np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args
    )


_EXC_HINTS = (
    (
        "is out of bounds for array of dimension",
        "An axis number that exists for a grid does not exist for a single row; "
        "use axis=-1 (the last axis) so it works for any number of dimensions.",
    ),
    (
        "could not be broadcast",
        "Two arrays' shapes do not fit together; when you "
        "divide by a sum or subtract a max, keep the summed axis with keepdims=True.",
    ),
    (
        "matmul",
        "A matrix product's inner sizes do not match; print the shapes of "
        "both sides (A @ B needs A.shape[-1] == B.shape[-2]).",
    ),
    ("shapes", "Print the shapes of the arrays involved to see which one is off."),
    (
        "unexpected keyword argument 'mask'",
        "Give your function a mask=None parameter, as in the exercise's first line.",
    ),
)


def _call(fn, name: str, *args, **kwargs):
    """Call the learner's function on copies of ``args``.

    Returns ``(result, warnings_seen, args_after)``. Raises ``_Stub`` for the
    exercise stub and ``_Fail`` (with the exception's type and message) for
    anything else the function raises.
    """
    args_in = _copy_args(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn", under="ignore"):
            try:
                result = fn(*args_in, **kwargs)
            except NotImplementedError:
                raise _Stub() from None
            except Exception as exc:  # the learner's code: report, never raise
                text = str(exc).strip() or "(no message)"
                message = f"Your {name} raised {type(exc).__name__}: {text}. "
                for key, hint in _EXC_HINTS:
                    if key in text:
                        message += hint
                        break
                else:
                    message += (
                        "Run it on a small example in a cell of its own to see where."
                    )
                raise _Fail(message) from None
    if result is None or result is Ellipsis:
        raise _Stub()
    if (
        isinstance(result, tuple)
        and result
        and all(r is None or r is Ellipsis for r in result)
    ):
        raise _Stub()
    seen = [str(w.message) for w in caught]
    return result, seen, args_in


def _as_array(value, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except Exception:
        arr = None
    if (
        arr is None
        or arr.dtype == object
        or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool)
    ):
        raise _Fail(
            f"{what} should be a numpy array of numbers, but it is "
            f"{type(value).__name__}: {value!r:.80}."
        )
    return arr


def _unpack_pair(result, name: str, first: str, second: str):
    if isinstance(result, np.ndarray) or not isinstance(result, (tuple, list)):
        shape = getattr(result, "shape", None)
        extra = f" (an array of shape {shape})" if shape is not None else ""
        raise _Fail(
            f"Your {name} returned one thing{extra}; it should return two, "
            f"({first}, {second}), e.g. `return {first}, {second}`."
        )
    if len(result) != 2:
        raise _Fail(
            f"Your {name} returned {len(result)} things; it should return two: "
            f"({first}, {second})."
        )
    return (
        _as_array(result[0], f"The first thing you return ({first})"),
        _as_array(result[1], f"The second thing you return ({second})"),
    )


def _unchanged(before, after, name: str, arg: str):
    if isinstance(before, np.ndarray) and not np.array_equal(
        before, after, equal_nan=True
    ):
        raise _Fail(
            f"Your {name} changed its input {arg} in place (for example with "
            f"`{arg} -= ...`). Work on a new array instead: `z = {arg} - ...`."
        )


def _require_shape(got, expected_shape, what: str, hint: str = ""):
    if got.shape != tuple(expected_shape):
        raise _Fail(
            f"{what} should have shape {tuple(expected_shape)}, but yours has "
            f"shape {got.shape}.{(' ' + hint) if hint else ''}"
        )


def _checker(title: str):
    """Wrap a check body: printing, stubs and never raising."""

    def decorate(body):
        @functools.wraps(body)
        def wrapper(fn) -> bool:
            name = getattr(fn, "__name__", "function")
            if not callable(fn):
                print(
                    f"Not quite: pass your function itself, e.g. "
                    f"{body.__name__}(my_function), not the result of calling it "
                    f"(you passed something of type {type(fn).__name__})."
                )
                return False
            try:
                success = body(fn, name)
            except _Stub:
                print(
                    f"Not done yet: {name} is still the exercise stub (it raises "
                    f"NotImplementedError or returns nothing). Write {title} in "
                    f"it, run that cell, then run this check again."
                )
                return False
            except _Fail as fail:
                print(f"Not quite: {fail}")
                return False
            except Exception as exc:  # a surprise inside the checker itself
                print(
                    f"Not quite: checking {name} hit an unexpected problem "
                    f"({type(exc).__name__}: {exc}). Look at what your function "
                    f"returns for a small example."
                )
                return False
            print(f"Correct: {success}")
            return True

        return wrapper

    return decorate


def _nonfinite(arr) -> bool:
    return bool(arr.size) and not bool(np.isfinite(arr).all())


def _overflow(seen) -> bool:
    return any("overflow" in s or "invalid value" in s for s in seen)


# ------------------------------------------------------------------ cosine ---


@_checker("the cosine similarity")
def check_cosine(fn, name):
    """Check ``fn(a, b) -> float``, the cosine similarity of two vectors."""
    cases = [
        (np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])),
        (np.array([1.0, 0.0]), np.array([0.0, 2.0])),  # orthogonal: 0
        (np.array([2.0, -1.0, 0.5]), np.array([-4.0, 2.0, -1.0])),  # opposite: -1
        (np.array([3.0, 4.0]), np.array([3.0, 4.0])),  # the same: 1
        (
            np.random.default_rng(_SEED).standard_normal(8) * 5,
            np.random.default_rng(_SEED + 1).standard_normal(8) * 0.1,
        ),
    ]
    for a, b in cases:
        result, _, (a_after, b_after) = _call(fn, name, a, b)
        _unchanged(a, a_after, name, "a")
        _unchanged(b, b_after, name, "b")
        got = _as_array(result, f"What {name} returns")
        dot = float(a @ b)
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        expected = dot / (na * nb)
        if got.shape == a.shape:
            raise _Fail(
                f"{name} returned a vector of shape {got.shape}, not one number. "
                "Multiplying a * b works element by element; add the products up "
                "(np.dot(a, b) or a @ b) before dividing."
            )
        if got.size != 1:
            raise _Fail(
                f"{name} should return one number, but returned an array of "
                f"shape {got.shape}."
            )
        value = float(got.reshape(()))
        if math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-9):
            continue
        where = f"For a = {_fmt(a)} and b = {_fmt(b)} you returned {value:.4g}"
        where += f", expected {expected:.4g}"
        if math.isclose(value, dot, rel_tol=1e-6, abs_tol=1e-9):
            raise _Fail(
                f"{where}: that is the plain dot product. Divide it by the two "
                "lengths, np.linalg.norm(a) * np.linalg.norm(b)."
            )
        if math.isclose(value, dot / (na**2 * nb**2), rel_tol=1e-6, abs_tol=1e-9):
            raise _Fail(
                f"{where}: you divided by the squared lengths. The length is the "
                "square root of a @ a (np.linalg.norm does it for you)."
            )
        if math.isclose(value, dot / na, rel_tol=1e-6, abs_tol=1e-9) or math.isclose(
            value, dot / nb, rel_tol=1e-6, abs_tol=1e-9
        ):
            raise _Fail(
                f"{where}: you divided by only one of the two lengths; divide by both."
            )
        raise _Fail(f"{where}. Cosine = (a . b) / (|a| |b|).")
    return (
        f"{name} gives 1 for the same direction, -1 for opposite, 0 for "
        f"orthogonal, and matches the reference on {len(cases)} cases."
    )


# ----------------------------------------------------------------- softmax ---


@_checker("softmax")
def check_softmax(fn, name):
    """Check ``fn(x)``: softmax over the last axis, stable for large scores."""
    rng = np.random.default_rng(_SEED)
    cases = [
        ("a row of scores [1, 2, 3]", np.array([1.0, 2.0, 3.0])),
        ("a 3 x 4 grid", rng.standard_normal((3, 4)) * 2),
        ("a batch of shape (2, 3, 4)", rng.standard_normal((2, 3, 4))),
        ("scores with -inf", np.array([[0.0, -np.inf, math.log(3)], [1.0, 1.0, 1.0]])),
        ("large scores", np.array([[1e4, 0.0, -1e4], [1000.0, 1001.0, 1002.0]])),
    ]
    for label, x in cases:
        expected = softmax(x)
        result, seen, (x_after,) = _call(fn, name, x)
        _unchanged(x, x_after, name, "x")
        got = _as_array(result, f"What {name} returns")
        if got.shape != x.shape:
            hint = "softmax returns one weight per score: the same shape as its input."
            if got.shape == x.shape[:-1] or got.ndim == 0:
                hint += " It looks like you returned the sums; divide by them instead."
            raise _Fail(
                f"For {label} (shape {x.shape}) you returned shape {got.shape}. {hint}"
            )
        if _nonfinite(got) or (_overflow(seen) and not _close(got, expected)):
            if label == "large scores":
                if (
                    x.ndim == 2
                    and np.isfinite(got[0]).all()
                    and not np.isfinite(got[1]).all()
                ):
                    raise _Fail(
                        "On large scores the second row became NaN: you subtracted "
                        "the maximum of the whole array. Subtract each row's own "
                        "maximum: np.max(x, axis=-1, keepdims=True)."
                    )
                raise _Fail(
                    f"On large scores {_fmt(x[0])} you got {_fmt(got[0])}: np.exp "
                    "overflows (exp(10000) is inf, and inf / inf is NaN). Subtract "
                    "each row's maximum before exp: x - np.max(x, axis=-1, "
                    "keepdims=True); it changes nothing mathematically."
                )
            raise _Fail(f"For {label} your output contains NaN or inf: {_fmt(got)}.")
        if _close(got, expected):
            continue
        sums = got.sum(axis=-1)
        if x.ndim >= 2 and _close(got, softmax(x, axis=0)):
            raise _Fail(
                f"Softmax over the wrong axis: for {label} your columns sum to 1, "
                f"but each row should (your row sums: {_fmt(sums)}). Use "
                "axis=-1 (the last axis) with keepdims=True."
            )
        if x.ndim == 3 and _close(got, softmax(x, axis=1)):
            raise _Fail(
                f"Softmax over axis 1 for {label}: use axis=-1 (the last axis), so "
                "it works for any number of dimensions."
            )
        e = np.exp(x - x.max())
        if _close(got, e / e.sum()):
            raise _Fail(
                f"For {label} the whole array sums to 1, but each row should. "
                "Sum over the last axis only: np.sum(e, axis=-1, keepdims=True)."
            )
        if _close(got / got.sum(axis=-1, keepdims=True), expected):
            raise _Fail(
                f"For {label} your rows are in the right proportions but sum to "
                f"{_fmt(sums)}, not 1: divide by the row sums."
            )
        with np.errstate(all="ignore"):
            if _close(got, x / x.sum(axis=-1, keepdims=True)):
                raise _Fail(
                    f"For {label} you divided the scores by their sum without "
                    "taking exp first: softmax is exp(x) / sum(exp(x))."
                )
        raise _Fail(
            f"For {label} {_fmt(x)} you returned {_fmt(got)}, expected "
            f"{_fmt(expected)}."
        )
    return (
        f"{name} matches the reference on {len(cases)} cases (a row, a grid, a "
        "batch, -inf entries and scores of 1e4)."
    )


# ------------------------------------------------------------------ scores ---


def _qk_data(seed, n=4, d_model=5, d_k=3):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, d_model))
    W_Q = rng.standard_normal((d_model, d_k))
    W_K = rng.standard_normal((d_model, d_k))
    return E, W_Q, W_K


@_checker("the score grid Q K^T")
def check_scores(fn, name):
    """Check ``fn(E, W_Q, W_K) -> Q K^T`` (raw scores, rows = queries)."""
    cases = [_qk_data(_SEED), _qk_data(_SEED + 1, n=6, d_model=4, d_k=2)]
    for E, W_Q, W_K in cases:
        d_k = W_Q.shape[1]
        Q, K = E @ W_Q, E @ W_K
        expected = Q @ K.T
        result, _, after = _call(fn, name, E, W_Q, W_K)
        for arg, before, now in zip(("E", "W_Q", "W_K"), (E, W_Q, W_K), after):
            _unchanged(before, now, name, arg)
        got = _as_array(result, f"What {name} returns")
        if got.shape != expected.shape:
            hint = "One score per (query, key) pair: n_tokens x n_tokens."
            if got.shape == (d_k, d_k):
                hint += " It looks like you computed Q^T K; use Q @ K.T."
            elif got.shape == Q.shape:
                hint += (
                    " It looks like you multiplied element by element (Q * K); "
                    "use the matrix product Q @ K.T."
                )
            _require_shape(got, expected.shape, "The score grid", hint)
        if _close(got, expected):
            continue
        if _nonfinite(got):
            raise _Fail(f"Your scores contain NaN or inf: {_fmt(got)}.")
        found = _first_match(
            got,
            {
                "transposed": expected.T,
                "scaled": expected / math.sqrt(d_k),
                "softmax": softmax(expected),
                "softmax_scaled": softmax(expected / math.sqrt(d_k)),
                "no_weights": E @ E.T,
                "only_q": Q @ Q.T,
                "only_k": K @ K.T,
            },
        )
        messages = {
            "transposed": "Your grid is the transpose of the expected one: you "
            "computed K Q^T (or swapped W_Q and W_K). Rows are queries: "
            "S = (E @ W_Q) @ (E @ W_K).T.",
            "scaled": "You divided by sqrt(d_k). This exercise wants the raw "
            "scores Q K^T; the scaling comes in lesson 04.",
            "softmax": "You applied softmax: this exercise wants the raw scores "
            "Q K^T, before any softmax.",
            "softmax_scaled": "You returned the attention pattern (scaled and "
            "softmaxed). This exercise wants the raw scores Q K^T.",
            "no_weights": "You computed E E^T: the projections are missing. Make "
            "Q = E @ W_Q and K = E @ W_K first.",
            "only_q": "You used Q for both sides; the keys are K = E @ W_K.",
            "only_k": "You used K for both sides; the queries are Q = E @ W_Q.",
        }
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"Your scores differ from Q K^T (largest difference "
            f"{np.max(np.abs(got - expected)):.3g}). Expected {_fmt(expected)}, "
            f"got {_fmt(got)}."
        )
    return f"{name} computes Q K^T with rows = queries on {len(cases)} cases."


# --------------------------------------------------------------- attention ---


_ATTN_WEIGHT_MESSAGES = {
    "kq": "Your weights come from K Q^T instead of Q K^T (each row of the "
    "weights should be one query's scores against all keys). Use Q @ K.T.",
    "video": "Your weights are the transpose of the expected ones: keys as rows, "
    "queries as columns (the video-style picture). In code rows are queries: "
    "use Q @ K.T and softmax over the last axis.",
    "noscale": "You forgot to divide the scores by sqrt(d_k) before the softmax "
    "(d_k = Q.shape[-1]).",
    "dk": "You divided the scores by d_k; divide by sqrt(d_k) instead.",
    "axis0": "Softmax over the wrong axis: your columns sum to 1, but each row "
    "(one query) should. Use softmax(..., axis=-1).",
    "ignored": "You ignored the mask: the weights where mask is False should be "
    "exactly 0. Set those scores to -np.inf before the softmax: "
    "np.where(mask, scores, -np.inf).",
    "inverted": "Your mask is the wrong way round: True means 'may attend', so "
    "the scores to block are where mask is False: np.where(mask, scores, "
    "-np.inf).",
    "mask_t": "You used the mask transposed (mask.T): mask[i, j] already says "
    "whether query i (row) may attend to key j (column).",
}


def _attention_candidates(Q, K, scale_ok=True, mask=None):
    d_k = Q.shape[-1]
    s = Q @ np.swapaxes(K, -1, -2)
    r = math.sqrt(d_k)

    def masked(scores, m):
        if m is None:
            return scores
        return np.where(m, scores, -np.inf)

    cands = {
        "noscale": softmax(masked(s, mask)),
        "dk": softmax(masked(s / d_k, mask)),
        "axis0": softmax(masked(s / r, mask), axis=-2),
    }
    if s.shape[-1] == s.shape[-2]:
        st = np.swapaxes(s, -1, -2)
        cands["kq"] = softmax(masked(st / r, mask))
        cands["video"] = np.swapaxes(softmax(masked(s / r, mask)), -1, -2)
    if mask is not None:
        cands["ignored"] = softmax(s / r)
        cands["inverted"] = softmax(np.where(mask, -np.inf, s / r))
        if mask.shape[-1] == mask.shape[-2]:
            cands["mask_t"] = softmax(
                np.where(np.swapaxes(mask, -1, -2), s / r, -np.inf)
            )
    return cands


def _diagnose_weights(got_w, Q, K, mask, expected_w, label, extra=None):
    """Raise _Fail naming the mistake in ``got_w`` (which is wrong)."""
    if mask is not None and got_w.shape == expected_w.shape:
        # multiplied by 0 after softmax: rows no longer sum to 1
        after = softmax(Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])) * mask
        if _close(got_w, after):
            sums = got_w.sum(axis=-1)
            raise _Fail(
                f"Your rows sum to {_fmt(sums, 2)}, not 1: it looks like you "
                "multiplied the weights by 0 after softmax. Put -inf in the "
                "scores before softmax instead: np.where(mask, scores, -np.inf)."
            )
        dead = ~np.asarray(mask).any(axis=-1)
        dead = np.broadcast_to(dead, expected_w.shape[:-1])
        if dead.any():
            rows_got = got_w[dead]
            if not np.isfinite(rows_got).all():
                raise _Fail(
                    "A fully masked row (a query with no allowed key) became NaN: "
                    "its max is -inf and -inf - (-inf) is NaN. Such a row should "
                    "be all zeros: replace a -inf row max by 0 before subtracting "
                    "(m = np.where(np.isfinite(m), m, 0)), and divide only where "
                    "the sum is > 0, or use helpers.attention.softmax."
                )
            if _close(got_w[~dead], expected_w[~dead]):
                raise _Fail(
                    f"A fully masked row (a query with no allowed key) should get "
                    f"all-zero weights, but yours is {_fmt(rows_got[0], 2)}. If you "
                    "used a big negative number instead of -inf, that row turned "
                    "uniform; use -np.inf and make an all -inf row give zeros."
                )
    if got_w.shape == expected_w.shape and not np.isfinite(got_w).all():
        if mask is not None and (~np.asarray(mask)).any():
            pass  # handled by the candidate search below (NaN read as 0)
        else:
            raise _Fail(
                f"For {label} your weights contain NaN or inf: {_fmt(got_w, 2)}. "
                "On large scores np.exp overflows; subtract each row's maximum "
                "before exp (or use helpers.attention.softmax)."
            )
    cands = _attention_candidates(Q, K, mask=mask)
    if extra:
        cands.update(extra)
    for key, value in cands.items():
        if value is not None and _close_nan_as_zero(got_w, value):
            if key in _ATTN_WEIGHT_MESSAGES:
                raise _Fail(_ATTN_WEIGHT_MESSAGES[key])
            raise _Fail(extra[key + "_message"] if key + "_message" in extra else key)
    if not np.isfinite(got_w).all():
        raise _Fail(f"For {label} your weights contain NaN or inf: {_fmt(got_w, 2)}.")
    sums = got_w.sum(axis=-1)
    if not np.allclose(sums, expected_w.sum(axis=-1), atol=1e-6):
        raise _Fail(
            f"For {label} your rows of weights sum to {_fmt(sums, 2)}; each row "
            "(one query) should sum to 1 (0 for a fully masked row)."
        )
    raise _Fail(
        f"For {label} your weights differ from softmax(Q K^T / sqrt(d_k)): "
        f"expected {_fmt(expected_w, 2)}, got {_fmt(got_w, 2)}."
    )


@_checker("scaled dot-product attention")
def check_attention(fn, name):
    """Check ``fn(Q, K, V, mask=None) -> (output, weights)``."""
    rng = np.random.default_rng(_SEED)
    n, d_k, d_v = 4, 4, 3
    Q, K, V = rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k)), None
    V = rng.standard_normal((n, d_v))
    Qn = rng.standard_normal((3, d_k))  # 3 queries
    Kn = rng.standard_normal((5, d_k))  # 5 keys
    Vn = rng.standard_normal((5, 2))
    dead = np.array(
        [[True, False, True, False], [False] * 4, [True] * 4, [False, True, True, True]]
    )
    cases = [
        ("4 tokens, no mask", Q, K, V, None),
        ("3 queries and 5 keys", Qn, Kn, Vn, None),
        ("large scores", Q * 60, K * 60, V, None),
        ("a causal mask", Q, K, V, causal_mask(n)),
        ("a mask with a fully masked row", Q, K, V, dead),
    ]
    for label, q, k, v, mask in cases:
        expected_out, expected_w = scaled_dot_product_attention(q, k, v, mask=mask)
        if mask is None:
            result, _, after = _call(fn, name, q, k, v)
        else:
            result, _, after = _call(fn, name, q, k, v, mask=mask)
        for arg, before, now in zip("QKV", (q, k, v), after):
            _unchanged(before, now, name, arg)
        got_out, got_w = _unpack_pair(result, name, "output", "weights")
        if (
            got_out.shape == expected_w.shape
            and got_w.shape == expected_out.shape
            and _close(got_out, expected_w)
        ):
            raise _Fail(
                "You returned (weights, output); return them in the other order: "
                "`return output, weights`."
            )
        if got_w.shape != expected_w.shape:
            hint = "That is (n_queries, n_keys): one row per query, one column per key."
            if got_w.shape == expected_w.shape[::-1]:
                hint += " Yours is transposed: use Q @ K.T, not K @ Q.T."
            _require_shape(got_w, expected_w.shape, f"For {label}, weights", hint)
        if not _close(got_w, expected_w):
            _diagnose_weights(got_w, q, k, mask, expected_w, label)
        if got_out.shape != expected_out.shape:
            _require_shape(
                got_out,
                expected_out.shape,
                f"For {label}, output",
                "That is (n_queries, d_v): output = weights @ V.",
            )
        if not _close(got_out, expected_out):
            if _nonfinite(got_out):
                raise _Fail(
                    f"For {label} your weights are right but the output has NaN: "
                    "output = weights @ V."
                )
            if got_w.shape[0] == got_w.shape[1] and _close(got_out, expected_w.T @ v):
                raise _Fail(
                    "Your weights are right but the output uses them transposed: "
                    "output = weights @ V (row i mixes the values with query i's "
                    "weights)."
                )
            raise _Fail(
                f"For {label} your weights are right but the output is not "
                f"weights @ V: expected {_fmt(expected_out)}, got {_fmt(got_out)}."
            )
    return (
        f"{name} matches the reference on {len(cases)} cases (square and 3 x 5, "
        "large scores, a causal mask, a fully masked row)."
    )


# ------------------------------------------------------------------ update ---


@_checker("the update E + (A V) W_up")
def check_update(fn, name):
    """Check ``fn(E, A, V, W_up) -> E + (A @ V) @ W_up``.

    Shapes: ``E`` (n, d_model), ``A`` (n, n), ``V = E W_V`` (n, d_v),
    ``W_up`` (d_v, d_model). The first case has n = d_v, so a product in the
    wrong order or element by element still runs and can be named.
    """
    rng = np.random.default_rng(_SEED)
    cases = []
    for n, d, d_v in ((3, 5, 3), (4, 6, 2), (3, 4, 2)):
        E = rng.standard_normal((n, d))
        A = softmax(rng.standard_normal((n, n)) * 2)
        V = rng.standard_normal((n, d_v))
        W_up = rng.standard_normal((d_v, d))
        cases.append((E, A, V, W_up))
    for E, A, V, W_up in cases:
        n, d = E.shape
        d_v = V.shape[1]
        expected = E + A @ V @ W_up
        try:
            result, _, after = _call(fn, name, E, A, V, W_up)
        except _Fail as fail:
            if "could not be broadcast" not in str(fail):
                raise
            raise _Fail(
                f"{fail.args[0].split('. ')[0]}. E is {E.shape} but A @ V is "
                f"{(n, d_v)}: bring the weighted values back up to embedding "
                "space with @ W_up before adding them to E."
            ) from None
        for arg, before, now in zip(("E", "A", "V", "W_up"), (E, A, V, W_up), after):
            _unchanged(before, now, name, arg)
        got = _as_array(result, f"What {name} returns")
        if got.shape == (n, d_v) and d_v != d:
            raise _Fail(
                f"Your result has shape {got.shape}: it is d_v wide, like V. "
                "The weighted values A @ V still live in the small value space; "
                "bring them back up to embedding space with @ W_up before adding E."
            )
        _require_shape(
            got,
            expected.shape,
            "E'",
            "It is the same shape as E: one updated row per token.",
        )
        if _close(got, expected):
            continue
        found = _first_match(
            got,
            {
                "no_e": A @ V @ W_up,
                "at": E + A.T @ V @ W_up,
                "no_a": E + V @ W_up,
                "only_e": E,
                "order": E + V @ A @ W_up if n == d_v else None,
                "elementwise": E + (A * V) @ W_up if n == d_v else None,
            },
        )
        messages = {
            "no_e": "You returned dE = (A @ V) @ W_up without adding E: the update "
            "is added to the embeddings, E' = E + (A @ V) @ W_up.",
            "at": "You used A transposed: row i of A holds query i's weights, so "
            "the weighted values are A @ V (not A.T @ V).",
            "no_a": "You added every token's own value (V @ W_up): each token should "
            "receive the weighted mix A @ V of the values.",
            "only_e": "You returned E unchanged: add (A @ V) @ W_up.",
            "order": "The product is in the wrong order: V @ A instead of A @ V. "
            "Row i of A @ V mixes the value rows with query i's weights.",
            "elementwise": "You multiplied A and V element by element (A * V); "
            "the weighted sum is the matrix product A @ V.",
        }
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"Your E' differs from E + (A @ V) @ W_up (largest difference "
            f"{np.max(np.abs(got - expected)):.3g})."
        )
    return f"{name} computes E + (A V) W_up on {len(cases)} cases."


# ------------------------------------------------------------- causal mask ---


@_checker("the causal mask")
def check_causal_mask(fn, name):
    """Check ``fn(n) -> bool (n, n)``, True on and below the diagonal."""
    sizes = (4, 5, 2, 1)
    for n in sizes:
        expected = causal_mask(n)
        result, _, _ = _call(fn, name, n)
        got = _as_array(result, f"What {name}({n}) returns")
        _require_shape(
            got, (n, n), f"{name}({n})", "One row per query, one column per key."
        )
        values = got.astype(bool) if got.dtype != bool else got
        if got.dtype == bool or np.isin(got, (0, 1)).all():
            found = _first_match(
                values.astype(float),
                {
                    "ok": expected.astype(float),
                    "upper": np.triu(np.ones((n, n))),
                    "strict_lower": np.tril(np.ones((n, n)), k=-1),
                    "inverted": np.triu(np.ones((n, n)), k=1),
                    "all": np.ones((n, n)),
                },
            )
        else:
            found = None
        if found == "ok" and got.dtype != bool:
            raise _Fail(
                f"The pattern is right, but {name} returns dtype {got.dtype}; a mask "
                "must be boolean (True = may attend). Convert with .astype(bool)."
            )
        if found == "ok":
            continue
        if n == 1 and found is None and not values.all():
            raise _Fail(
                f"{name}(1) is {_fmt(got)}: a single token must be allowed to "
                "attend to itself, so the answer is [[True]]."
            )
        messages = {
            "upper": "Wrong triangle: you kept the upper triangle, so each token "
            "sees the tokens after it (the future). Rows are queries: keep "
            "j <= i, the lower triangle (np.tril).",
            "strict_lower": "You left out the diagonal: a token may attend to "
            "itself. Use np.tril(...) with k=0 (the default), or j <= i.",
            "inverted": "Your mask is the wrong way round: True should mean 'may "
            "attend' (on and below the diagonal), but you marked the blocked "
            "cells.",
            "all": "Everything is True: nothing is masked. Keep only j <= i.",
        }
        if found in messages and n > 1:
            raise _Fail(f"{messages[found]} For n = {n} you returned\n{_fmt(got)}")
        raise _Fail(
            f"For n = {n} expected\n{_fmt(expected)}\nbut got\n{_fmt(got)}\n"
            "(1 = True = may attend; row = query, column = key)."
        )
    return f"{name} is True on and below the diagonal for n = 1, 2, 4 and 5."


# -------------------------------------------------------------- multi-head ---


def _mh_data(seed, n=5, d_model=6, h=2, d_k=3, d_v=2):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, d_model))
    W_Q = rng.standard_normal((h, d_model, d_k))
    W_K = rng.standard_normal((h, d_model, d_k))
    W_V = rng.standard_normal((h, d_model, d_v))
    W_O = rng.standard_normal((h * d_v, d_model))
    return E, W_Q, W_K, W_V, W_O


def _mh_reference(
    E, W_Q, W_K, W_V, W_O, mask=None, split_wrong=False, merge_wrong=False
):
    """Per-head reference, optionally with the classic reshape mistakes."""
    h, d_model, d_k = W_Q.shape
    d_v = W_V.shape[2]
    n = E.shape[0]
    if split_wrong:
        # fused projection (n, h*d) split by reshape without the transpose
        def split(W, d):
            fused = E @ W.transpose(1, 0, 2).reshape(d_model, h * d)
            return fused.reshape(h, n, d)

        Q, K, V = split(W_Q, d_k), split(W_K, d_k), split(W_V, d_v)
    else:
        Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    if merge_wrong:
        merged = heads.reshape(n, h * d_v)
    else:
        merged = heads.transpose(1, 0, 2).reshape(n, h * d_v)
    return merged @ W_O, weights, heads


@_checker("multi-head attention")
def check_multi_head(fn, name):
    """Check ``fn(E, W_Q, W_K, W_V, W_O, mask=None) -> (dE, weights (h, n, n))``."""
    cases = [
        ("5 tokens, 2 heads", _mh_data(_SEED), None),
        (
            "4 tokens, 3 heads, causal mask",
            _mh_data(_SEED + 1, n=4, h=3),
            causal_mask(4),
        ),
    ]
    for label, arrays, mask in cases:
        E, W_Q, W_K, W_V, W_O = arrays
        h, n, d_v, d_model = W_Q.shape[0], E.shape[0], W_V.shape[2], W_O.shape[1]
        dE, weights, heads = _mh_reference(*arrays, mask=mask)
        if mask is None:
            result, _, after = _call(fn, name, *arrays)
        else:
            result, _, after = _call(fn, name, *arrays, mask=mask)
        for arg, before, now in zip(("E", "W_Q", "W_K", "W_V", "W_O"), arrays, after):
            _unchanged(before, now, name, arg)
        got_dE, got_w = _unpack_pair(result, name, "dE", "weights")
        if got_w.shape != weights.shape:
            hint = "That is (h, n, n): one n x n pattern per head."
            if got_w.shape == (n, n):
                hint += " You returned a single pattern; keep every head's."
            _require_shape(got_w, weights.shape, f"For {label}, weights", hint)
        split_dE, split_w, _ = _mh_reference(*arrays, mask=mask, split_wrong=True)
        if not _close(got_w, weights):
            if _close_nan_as_zero(got_w, split_w):
                raise _Fail(
                    "Your heads got mixed up: it looks like you split a fused "
                    "(n, h*d_k) projection with .reshape(h, n, d_k). Reshape to "
                    "(n, h, d_k) first, then .transpose(1, 0, 2) to (h, n, d_k)."
                )
            if got_w.shape[0] == h and _close(got_w[::-1], weights) and h > 1:
                raise _Fail(
                    "Your heads are in the wrong order: weights[i] should be "
                    "head i's pattern (W_Q[i], W_K[i])."
                )
            _diagnose_weights(got_w, E @ W_Q, E @ W_K, mask, weights, label)
        if got_dE.shape != dE.shape:
            hint = "That is (n, d_model): the heads' outputs concatenated, times W_O."
            if got_dE.shape == (n, h * d_v):
                hint += (
                    " Yours looks like the concatenation without W_O: multiply by W_O."
                )
            elif got_dE.shape == (h, n, d_v):
                hint += (
                    " Yours is the per-head outputs: merge them with "
                    ".transpose(1, 0, 2).reshape(n, h * d_v), then @ W_O."
                )
            elif got_dE.shape == (h, n, d_model):
                hint += " Yours keeps one update per head: add them up over the heads."
            _require_shape(got_dE, dE.shape, f"For {label}, dE", hint)
        if _close(got_dE, dE):
            continue
        merged_wrong = heads.reshape(n, h * d_v) @ W_O
        blocks = [W_O[i * d_v : (i + 1) * d_v] for i in range(h)]
        found = _first_match(
            got_dE,
            {
                "merge": merged_wrong,
                "mean": dE / h,
                "concat_order": np.concatenate(list(heads[::-1]), axis=1) @ W_O,
                "plus_e": dE + E,
                "one_head": heads[0] @ blocks[0],
                "last_head": heads[-1] @ blocks[-1],
            },
        )
        messages = {
            "merge": "Your patterns are right, but the heads were merged with "
            ".reshape(n, h * d_v) straight from (h, n, d_v): that scrambles "
            "tokens and heads. Transpose first: heads.transpose(1, 0, 2)"
            ".reshape(n, h * d_v).",
            "mean": "You averaged the heads' updates; they are added: "
            "dE = sum over heads (the concatenation times W_O does that).",
            "concat_order": "The heads are concatenated in the wrong order: "
            "head 0 first, matching W_O's first block of rows.",
            "plus_e": "You returned E + dE; this function returns only the update dE.",
            "one_head": "Only head 0 contributes to your dE; add every head's update.",
            "last_head": "Only the last head contributes to your dE (a loop that "
            "overwrites instead of adding?); add every head's update.",
        }
        if found:
            raise _Fail(messages[found])
        if _nonfinite(got_dE):
            raise _Fail(f"For {label} your dE contains NaN or inf.")
        raise _Fail(
            f"For {label} your weights are right but dE differs from "
            f"concat(heads) @ W_O (largest difference "
            f"{np.max(np.abs(got_dE - dE)):.3g})."
        )
    return (
        f"{name} matches the per-head reference on {len(cases)} cases "
        "(patterns, merge order, W_O, a causal mask)."
    )


# --------------------------------------------------------- cross-attention ---


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
        ("4 query and 4 source tokens", _cross_data(_SEED, 4, 4, 4, 4)),
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
        result, _, after = _call(fn, name, *arrays)
        for arg, before, now in zip(
            ("X_query", "X_source", "W_Q", "W_K", "W_V"), arrays, after
        ):
            _unchanged(before, now, name, arg)
        got_out, got_w = _unpack_pair(result, name, "output", "weights")
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
            _diagnose_weights(got_w, Q, K, None, expected_w, label, extra)
        if got_out.shape != expected_out.shape:
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
            raise _Fail(
                f"For {label} your weights are right but the output is not "
                "weights @ (X_source @ W_V)."
            )
    return (
        f"{name} matches the reference on {len(cases)} cases, including "
        "sequences of different lengths and widths."
    )


# -------------------------------------------------------- softmax backward ---


def _softmax_backward(s, g):
    return s * (g - np.sum(g * s, axis=-1, keepdims=True))


def _finite_difference(x, g, eps=1e-6):
    """Numerical dL/dx for L = sum(g * softmax(x)), one entry at a time."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (np.sum(g * softmax(up)) - np.sum(g * softmax(down))) / (2 * eps)
    return grad


@_checker("the softmax backward pass")
def check_softmax_backward(fn, name):
    """Check ``fn(s, g) -> dL/dx`` with ``s = softmax(x)`` row-wise, ``g = dL/ds``."""
    rng = np.random.default_rng(_SEED)
    cases = [
        ("one row of 4", rng.standard_normal(4), rng.standard_normal(4)),
        ("a 3 x 5 grid", rng.standard_normal((3, 5)), rng.standard_normal((3, 5))),
        ("a 4 x 4 grid", rng.standard_normal((4, 4)) * 2, rng.standard_normal((4, 4))),
    ]
    for label, x, g in cases:
        s = softmax(x)
        expected = _softmax_backward(s, g)
        numeric = _finite_difference(x, g)
        result, _, (s_after, g_after) = _call(fn, name, s, g)
        _unchanged(s, s_after, name, "s")
        _unchanged(g, g_after, name, "g")
        got = _as_array(result, f"What {name} returns")
        _require_shape(got, x.shape, "dL/dx", "It has the same shape as the scores x.")
        if _close(got, expected):
            continue
        axis0 = matmul = None
        if x.ndim == 2:
            axis0 = s * (g - np.sum(g * s, axis=0, keepdims=True))
            if x.shape[0] == x.shape[1]:
                matmul = s * (g - g @ s.T)
        cands = {
            "missing": s * g,
            "diag": s * (1 - s) * g,
            "axis0": axis0,
            "matmul": matmul,
            "sign": s * (np.sum(g * s, axis=-1, keepdims=True) - g),
        }
        messages = {
            "missing": "You kept only the first term, s * g. The Jacobian of "
            "softmax is diag(s) - s s^T, so there is a second term: "
            "dL/dx = s * (g - sum(g * s, axis=-1, keepdims=True)).",
            "diag": "You used only the diagonal s(1 - s) of the Jacobian; the "
            "off-diagonal entries -s_i s_j matter too: "
            "dL/dx = s * (g - sum(g * s, axis=-1, keepdims=True)).",
            "axis0": "The sum in the second term runs over the wrong axis (a "
            "transposed Jacobian-vector product): each row is its own softmax, "
            "so sum g * s over the last axis (axis=-1, keepdims=True).",
            "sign": "Your result has the wrong sign: dL/dx = s * (g - sum(g * s)).",
            "matmul": "The second term mixes rows: g @ s.T (a transposed "
            "product) pairs row i of g with every row of s. Each row needs its "
            "own dot product: (g * s).sum(axis=-1, keepdims=True).",
        }
        found = _first_match(got, cands)
        if found:
            raise _Fail(messages[found])
        raise _Fail(
            f"For {label} your gradient differs from the finite-difference one by "
            f"up to {np.max(np.abs(got - numeric)):.3g}: expected {_fmt(numeric)}, "
            f"got {_fmt(got)}."
        )
    return f"{name} matches the finite-difference gradient on {len(cases)} cases."
