"""Tests of helpers/checks.py.

Every checker gets: a correct implementation (-> True and one success line),
the exercise stub (-> False and "not done yet"), and one wrong implementation
per classic mistake (-> False and a diagnosis that names the mistake).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from helpers import checks
from helpers.checks import lesson09
from helpers.attention import (
    causal_mask,
    cross_attention,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
)


def run(checker, fn, capsys):
    """Run a checker; it must not raise or warn. Returns (result, printed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = checker(fn)
    out = capsys.readouterr()
    assert out.err == ""
    return result, out.out


def assert_success(checker, fn, capsys):
    result, printed = run(checker, fn, capsys)
    assert result is True, printed
    assert printed.startswith("Correct:"), printed
    assert printed.count("\n") == 1, printed  # exactly one line


def assert_diagnosis(checker, fn, capsys, *needles):
    result, printed = run(checker, fn, capsys)
    assert result is False, printed
    assert printed.startswith("Not quite:"), printed
    for needle in needles:
        assert needle.lower() in printed.lower(), (needle, printed)
    return printed


# ---------------------------------------------------------- learner helpers ---


def naive_softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def my_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return A @ V, A


# --------------------------------------------------------------- framework ---


def stub_raise(*args, **kwargs):
    raise NotImplementedError("Your turn")


def stub_none(*args, **kwargs):
    return None


def stub_ellipsis(*args, **kwargs):
    ...
    return ...


ALL_CHECKERS = [
    checks.check_cosine,
    checks.check_softmax,
    checks.check_scores,
    checks.check_attention,
    checks.check_update,
    checks.check_causal_mask,
    checks.check_multi_head,
    checks.check_cross_attention,
    checks.check_softmax_backward,
]


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("stub", [stub_raise, stub_none, stub_ellipsis])
def test_stub_is_not_done_yet(checker, stub, capsys):
    result, printed = run(checker, stub, capsys)
    assert result is False
    assert printed.startswith("Not done yet"), printed
    assert printed.count("\n") == 1


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
def test_exceptions_are_reported_not_raised(checker, capsys):
    def broken(*args, **kwargs):
        raise KeyError("oops, a typo")

    printed = assert_diagnosis(checker, broken, capsys, "KeyError", "oops, a typo")
    assert "Traceback" not in printed


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
def test_garbage_return_is_reported(checker, capsys):
    assert_diagnosis(checker, lambda *a, **k: "hello", capsys)


@pytest.mark.parametrize("checker", ALL_CHECKERS, ids=lambda c: c.__name__)
def test_passing_a_result_instead_of_a_function(checker, capsys):
    assert_diagnosis(checker, np.zeros(3), capsys, "pass your function itself")


# ------------------------------------------------------------------ cosine ---


def test_cosine_correct(capsys):
    assert_success(
        checks.check_cosine,
        lambda a, b: a @ b / (np.linalg.norm(a) * np.linalg.norm(b)),
        capsys,
    )


@pytest.mark.parametrize(
    ("wrong", "needle"),
    [
        (lambda a, b: a @ b, "plain dot product"),
        (lambda a, b: a @ b / (a @ a * (b @ b)), "squared lengths"),
        (lambda a, b: a @ b / np.linalg.norm(a), "only one of the two lengths"),
        (
            lambda a, b: a * b / (np.linalg.norm(a) * np.linalg.norm(b)),
            "add the products",
        ),
    ],
)
def test_cosine_mistakes(wrong, needle, capsys):
    assert_diagnosis(checks.check_cosine, wrong, capsys, needle)


# ----------------------------------------------------------------- softmax ---


def test_softmax_correct(capsys):
    assert_success(checks.check_softmax, naive_softmax, capsys)
    assert_success(checks.check_softmax, softmax, capsys)


def softmax_axis0(x):
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def softmax_axis1(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def softmax_no_max(x):
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_global_max(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_no_keepdims(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1)


def softmax_whole(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def softmax_in_place(x):
    x -= np.max(x, axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


def softmax_returns_sums(x):
    return np.exp(x).sum(axis=-1)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (softmax_axis0, ["wrong axis", "columns sum to 1", "axis=-1"]),
        (softmax_axis1, ["axis 1", "axis=-1"]),
        (softmax_no_max, ["overflow", "subtract", "maximum"]),
        (softmax_global_max, ["whole array", "each row's own maximum"]),
        (softmax_no_keepdims, ["ValueError", "keepdims=True"]),
        (softmax_whole, ["whole array sums to 1"]),
        (softmax_in_place, ["in place"]),
        (softmax_returns_sums, ["shape", "sums"]),
        (
            lambda x: np.exp(x - x.max(axis=-1, keepdims=True)),
            ["divide by the row sums"],
        ),
    ],
)
def test_softmax_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_softmax, wrong, capsys, *needles)


# ------------------------------------------------------------------ scores ---


def test_scores_correct(capsys):
    assert_success(
        checks.check_scores, lambda E, W_Q, W_K: (E @ W_Q) @ (E @ W_K).T, capsys
    )


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (lambda E, W_Q, W_K: (E @ W_K) @ (E @ W_Q).T, ["transpose", "K Q^T"]),
        (
            lambda E, W_Q, W_K: (E @ W_Q).T @ (E @ W_K),
            ["shape (4, 4)", "(3, 3)", "Q^T K"],
        ),
        (lambda E, W_Q, W_K: (E @ W_Q) * (E @ W_K), ["shape", "element by element"]),
        (
            lambda E, W_Q, W_K: (E @ W_Q) @ (E @ W_K).T / np.sqrt(W_Q.shape[1]),
            ["sqrt(d_k)", "raw scores"],
        ),
        (lambda E, W_Q, W_K: E @ E.T, ["projections are missing"]),
        (lambda E, W_Q, W_K: softmax((E @ W_Q) @ (E @ W_K).T), ["softmax"]),
    ],
)
def test_scores_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_scores, wrong, capsys, *needles)


# --------------------------------------------------------------- attention ---


def test_attention_correct(capsys):
    assert_success(checks.check_attention, my_attention, capsys)
    assert_success(checks.check_attention, scaled_dot_product_attention, capsys)


def attention_no_scale(Q, K, V, mask=None):
    S = Q @ K.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return A @ V, A


def attention_kq(Q, K, V, mask=None):
    S = K @ Q.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return A @ V, A


def attention_video(Q, K, V, mask=None):
    S = K @ Q.T / np.sqrt(Q.shape[-1])
    A = softmax(S, axis=0)  # columns sum to 1, keys are rows
    return A.T @ V, A


def attention_axis0(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    A = softmax(S, axis=0)
    return A @ V, A


def attention_multiply_mask(Q, K, V, mask=None):
    A = softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
    if mask is not None:
        A = A * mask
    return A @ V, A


def attention_ignores_mask(Q, K, V, mask=None):
    return my_attention(Q, K, V)


def attention_inverted_mask(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = softmax(S)
    return A @ V, A


def attention_nan_row(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = naive_softmax(S)  # -inf - (-inf) = NaN on a fully masked row
    return A @ V, A


def attention_big_negative(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -1e9)
    A = softmax(S)
    return A @ V, A


def attention_no_max(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = softmax_no_max(S)
    return A @ V, A


def attention_swapped_return(Q, K, V, mask=None):
    out, A = my_attention(Q, K, V, mask)
    return A, out


def attention_no_mask_param(Q, K, V):
    return my_attention(Q, K, V)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (attention_no_scale, ["forgot", "sqrt(d_k)"]),
        (attention_kq, ["K Q^T instead of Q K^T"]),
        (attention_video, ["transpose", "keys as rows"]),
        (attention_axis0, ["wrong axis", "columns sum to 1"]),
        (
            attention_multiply_mask,
            [
                "rows sum to [",
                "not 1",
                "multiplied the weights by 0 after softmax",
                "-inf",
            ],
        ),
        (attention_ignores_mask, ["ignored the mask"]),
        (attention_inverted_mask, ["wrong way round"]),
        (attention_nan_row, ["fully masked row", "NaN"]),
        (attention_big_negative, ["fully masked row", "all-zero", "big negative"]),
        (attention_no_max, ["large scores", "overflow", "maximum"]),
        (attention_swapped_return, ["(weights, output)", "other order"]),
        (attention_no_mask_param, ["TypeError", "mask=None"]),
        (lambda Q, K, V, mask=None: my_attention(Q, K, V, mask)[1], ["two", "output"]),
        (
            lambda Q, K, V, mask=None: (V, my_attention(Q, K, V, mask)[1]),
            ["output", "weights @ V"],
        ),
    ],
)
def test_attention_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_attention, wrong, capsys, *needles)


def test_attention_transposed_output(capsys):
    def wrong(Q, K, V, mask=None):
        _, A = my_attention(Q, K, V, mask)
        return A.T @ V, A

    assert_diagnosis(checks.check_attention, wrong, capsys, "transposed", "weights @ V")


# ------------------------------------------------------------------ update ---


def test_update_correct(capsys):
    assert_success(checks.check_update, lambda E, A, V, W_up: E + A @ V @ W_up, capsys)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (lambda E, A, V, W_up: A @ V @ W_up, ["without adding E"]),
        (lambda E, A, V, W_up: E + A.T @ V @ W_up, ["A transposed"]),
        (lambda E, A, V, W_up: E + V @ A @ W_up, ["wrong order", "A @ V"]),
        (lambda E, A, V, W_up: E + V @ W_up, ["weighted mix"]),
        (lambda E, A, V, W_up: E + (A * V) @ W_up, ["element by element"]),
        (lambda E, A, V, W_up: A @ V, ["d_v wide", "@ W_up"]),
        (lambda E, A, V, W_up: E, ["unchanged"]),
        (lambda E, A, V, W_up: E + A @ V, ["A @ V is", "@ W_up"]),
    ],
)
def test_update_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_update, wrong, capsys, *needles)


def test_update_in_place(capsys):
    def wrong(E, A, V, W_up):
        E += A @ V @ W_up
        return E

    assert_diagnosis(checks.check_update, wrong, capsys, "in place")


# ------------------------------------------------------------- causal mask ---


def test_causal_mask_correct(capsys):
    assert_success(
        checks.check_causal_mask, lambda n: np.tril(np.ones((n, n), bool)), capsys
    )
    assert_success(
        checks.check_causal_mask,
        lambda n: np.arange(n)[:, None] >= np.arange(n),
        capsys,
    )


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (
            lambda n: np.triu(np.ones((n, n), bool)),
            ["wrong triangle", "upper", "future"],
        ),
        (lambda n: np.tril(np.ones((n, n), bool), k=-1), ["diagonal", "itself"]),
        (lambda n: ~np.tril(np.ones((n, n), bool)), ["wrong way round"]),
        (
            lambda n: np.tril(np.ones((n, n))),
            ["dtype float64", "boolean", "astype(bool)"],
        ),
        (lambda n: np.ones((n, n), bool), ["nothing is masked"]),
        (lambda n: np.tril(np.ones((n, n + 1), bool)), ["shape", "(4, 4)", "(4, 5)"]),
    ],
)
def test_causal_mask_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_causal_mask, wrong, capsys, *needles)


# -------------------------------------------------------------- multi-head ---


def my_multi_head(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V, mask=mask)
    return heads.transpose(1, 0, 2).reshape(n, h * d_v) @ W_O, A


def multi_head_loop(E, W_Q, W_K, W_V, W_O, mask=None):
    d_v = W_V.shape[2]
    dE = np.zeros((E.shape[0], W_O.shape[1]))
    patterns = []
    for i in range(W_Q.shape[0]):
        out, A = my_attention(E @ W_Q[i], E @ W_K[i], E @ W_V[i], mask)
        dE += out @ W_O[i * d_v : (i + 1) * d_v]
        patterns.append(A)
    return dE, np.stack(patterns)


def test_multi_head_correct(capsys):
    assert_success(checks.check_multi_head, my_multi_head, capsys)
    assert_success(checks.check_multi_head, multi_head_loop, capsys)
    assert_success(checks.check_multi_head, multi_head_attention, capsys)


def multi_head_merge_no_transpose(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V, mask=mask)
    return heads.reshape(n, h * d_v) @ W_O, A


def multi_head_split_no_transpose(E, W_Q, W_K, W_V, W_O, mask=None):
    h, d_model, d_k = W_Q.shape
    n, d_v = E.shape[0], W_V.shape[2]

    def fused(W, d):
        return (E @ W.transpose(1, 0, 2).reshape(d_model, h * d)).reshape(h, n, d)

    heads, A = scaled_dot_product_attention(
        fused(W_Q, d_k), fused(W_K, d_k), fused(W_V, d_v), mask=mask
    )
    return heads.reshape(n, h * d_v) @ W_O, A


def multi_head_no_w_o(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V, mask=mask)
    return heads.transpose(1, 0, 2).reshape(n, h * d_v), A


def multi_head_mean(E, W_Q, W_K, W_V, W_O, mask=None):
    dE, A = my_multi_head(E, W_Q, W_K, W_V, W_O, mask)
    return dE / W_Q.shape[0], A


def multi_head_no_scale(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    heads, A = scaled_dot_product_attention(
        E @ W_Q, E @ W_K, E @ W_V, mask=mask, scale=1.0
    )
    return heads.transpose(1, 0, 2).reshape(n, h * d_v) @ W_O, A


def multi_head_one_pattern(E, W_Q, W_K, W_V, W_O, mask=None):
    dE, A = my_multi_head(E, W_Q, W_K, W_V, W_O, mask)
    return dE, A.mean(axis=0)


def multi_head_multiply_mask(E, W_Q, W_K, W_V, W_O, mask=None):
    h, n, d_v = W_Q.shape[0], E.shape[0], W_V.shape[2]
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    A = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1]))
    if mask is not None:
        A = A * mask
    return (A @ V).transpose(1, 0, 2).reshape(n, h * d_v) @ W_O, A


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (multi_head_merge_no_transpose, ["reshape", "transpose first"]),
        (multi_head_split_no_transpose, ["split", "reshape", "transpose"]),
        (multi_head_no_w_o, ["(5, 6)", "(5, 4)", "W_O"]),
        (multi_head_mean, ["averaged"]),
        (multi_head_no_scale, ["sqrt(d_k)"]),
        (multi_head_one_pattern, ["(2, 5, 5)", "(5, 5)", "every head"]),
        (multi_head_multiply_mask, ["multiplied the weights by 0 after softmax"]),
        (lambda *a, **k: my_multi_head(*a, **k)[0], ["two", "dE, weights"]),
    ],
)
def test_multi_head_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_multi_head, wrong, capsys, *needles)


# --------------------------------------------------------- cross-attention ---


def my_cross(X_query, X_source, W_Q, W_K, W_V):
    return my_attention(X_query @ W_Q, X_source @ W_K, X_source @ W_V)


def test_cross_attention_correct(capsys):
    assert_success(checks.check_cross_attention, my_cross, capsys)
    assert_success(checks.check_cross_attention, cross_attention, capsys)


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(Xs @ W_Q, Xq @ W_K, Xq @ W_V),
            ["roles are swapped", "X_query @ W_Q"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(Xq @ W_Q, Xq @ W_K, Xs @ W_V),
            ["keys come from X_query"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(Xq @ W_Q, Xs @ W_K, Xq @ W_V),
            ["values come from X_query"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: attention_kq(Xq @ W_Q, Xs @ W_K, Xs @ W_V),
            ["K Q^T"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: attention_no_scale(
                Xq @ W_Q, Xs @ W_K, Xs @ W_V
            ),
            ["sqrt(d_k)"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: my_attention(
                Xq @ W_Q, Xs @ W_K, Xs @ W_V, causal_mask(len(Xq))
            ),
            ["causal mask", "no mask"],
        ),
        (
            lambda Xq, Xs, W_Q, W_K, W_V: attention_axis0(Xq @ W_Q, Xs @ W_K, Xs @ W_V),
            ["wrong axis"],
        ),
    ],
)
def test_cross_attention_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_cross_attention, wrong, capsys, *needles)


def test_cross_attention_swapped_roles_named_on_non_square(capsys):
    # Only the non-square cases: the swap shows up as a transposed shape.
    def wrong(Xq, Xs, W_Q, W_K, W_V):
        if len(Xq) == len(Xs):
            return my_cross(Xq, Xs, W_Q, W_K, W_V)
        return my_attention(Xs @ W_Q, Xq @ W_K, Xq @ W_V)

    assert_diagnosis(
        checks.check_cross_attention,
        wrong,
        capsys,
        "(3, 5)",
        "(5, 3)",
        "roles are swapped",
    )


# -------------------------------------------------------- softmax backward ---


def softmax_backward(s, g):
    return s * (g - np.sum(g * s, axis=-1, keepdims=True))


def softmax_backward_jacobian(s, g):
    s2 = np.atleast_2d(s)
    g2 = np.atleast_2d(g)
    J = np.einsum("bi,ij->bij", s2, np.eye(s2.shape[1])) - np.einsum(
        "bi,bj->bij", s2, s2
    )
    return np.einsum("bij,bj->bi", J, g2).reshape(np.shape(s))


def test_softmax_backward_correct(capsys):
    assert_success(checks.check_softmax_backward, softmax_backward, capsys)
    assert_success(checks.check_softmax_backward, softmax_backward_jacobian, capsys)


def test_softmax_backward_reference_matches_finite_differences():
    rng = np.random.default_rng(7)
    x, g = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(
        lesson09._finite_difference(x, g), softmax_backward(softmax(x), g), atol=1e-7
    )


@pytest.mark.parametrize(
    ("wrong", "needles"),
    [
        (lambda s, g: s * g, ["second term", "diag(s) - s s^T"]),
        (lambda s, g: s * (1 - s) * g, ["only the diagonal"]),
        (
            lambda s, g: s * (g - np.sum(g * s, axis=0, keepdims=True)),
            ["wrong axis", "transposed"],
        ),
        (
            lambda s, g: (
                s * (g - g @ s.T)
                if s.ndim == 2 and len(s) == s.shape[1]
                else softmax_backward(s, g)
            ),
            ["transposed", "own dot product"],
        ),
        (lambda s, g: -softmax_backward(s, g), ["wrong sign"]),
        (lambda s, g: softmax_backward(s, g)[..., :-1], ["shape"]),
    ],
)
def test_softmax_backward_mistakes(wrong, needles, capsys):
    assert_diagnosis(checks.check_softmax_backward, wrong, capsys, *needles)
