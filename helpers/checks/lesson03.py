"""Lesson 03: the checkers of one score, the score grid and a chemistry head."""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _fmt,
    _close,
    _first_match,
    _call,
    _as_array,
    _require_shape,
    _checker,
    _nonfinite,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_scores", "check_one_score", "check_chemistry_head"]


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
        result, _ = _call(fn, name, ("E", "W_Q", "W_K"), E, W_Q, W_K)
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


@_checker("one score q_i . k_j")
def check_one_score(fn, name):
    """Check ``fn(Q, K, i, j) -> float``: query i's score for key j."""
    Q = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0], [2.0, 1.0, 0.0]])
    K = np.array([[0.5, 1.0, 1.0], [2.0, 0.0, -0.5], [1.0, 1.0, 1.0]])
    rng = np.random.default_rng(_SEED)
    cases = [(Q, K, 0, 1), (Q, K, 1, 0), (Q, K, 2, 2),
             (rng.standard_normal((4, 2)), rng.standard_normal((4, 2)), 3, 1)]
    for q, k, i, j in cases:
        expected = float(q[i] @ k[j])
        result, _ = _call(fn, name, ("Q", "K", "i", "j"), q, k, i, j)
        got = _as_array(result, f"What {name} returns")
        if got.shape == q[i].shape:
            raise _Fail(
                f"For i = {i}, j = {j} you returned a vector {_fmt(got)}: the "
                "entry-by-entry products. Add them up: Q[i] @ K[j]."
            )
        if got.size != 1:
            raise _Fail(f"{name} should return one number, not shape {got.shape}.")
        value = float(got.reshape(()))
        if math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-9):
            continue
        where = (f"For i = {i}, j = {j} you returned {value:.4g}, expected "
                 f"{expected:.4g}")
        named = [
            (float(q[j] @ k[i]), "you swapped the roles: that is query j's score "
             "for key i. The query comes from row i of Q, the key from row j of K"),
            (expected / math.sqrt(q.shape[1]), "you divided by sqrt(d_k); the raw "
             "score has no scaling (that is lesson 04)"),
            (float(q[i] @ q[j]), "you used Q twice; the key is row j of K"),
            (float(k[i] @ k[j]), "you used K twice; the query is row i of Q"),
            (float((q @ k.T)[j, i]), "you read the grid Q K^T at [j, i]; rows are "
             "queries, so it is [i, j]"),
        ]
        for wrong, why in named:
            if math.isclose(value, wrong, rel_tol=1e-6, abs_tol=1e-9):
                raise _Fail(f"{where}: {why}.")
        raise _Fail(f"{where}. The score is Q[i] @ K[j].")
    return f"{name} gives Q[i] . K[j] on {len(cases)} cases (rows = queries)."


# Sentences for the chemistry head: in each, 'mole' has one or more chemistry
# clues, and distractors from its other fields (animal, body) or none.
CHEMISTRY_SENTENCES = (
    "the cat knocked over a mole of salt and some oxygen",  # animal distractor
    "the doctor measured one mole of acid",  # body distractor
    "the shrew and the mole met a chemist",
    "one mole of carbon dioxide",
    "in the lab we weighed one mole",  # weak clues: lab and weighed are 0.5
)


def _field_of(vec, names):
    """The strongest meaning field of a feature row (or None)."""
    from helpers.world import lexicon

    fields = [f for f in lexicon.FIELDS if f != "ambiguous"]
    best = max(fields, key=lambda f: vec[names.index(f)])
    return best if vec[names.index(best)] > 0 else None


def _key_reads(W_K, names):
    """The meaning field whose row of W_K is largest (or None if all <= 0)."""
    from helpers.world import lexicon

    fields = list(lexicon.FIELDS)
    best = max(fields, key=lambda f: W_K[names.index(f)].max())
    return best if W_K[names.index(best)].max() > 0 else None


# mole's best chemistry clue must get at least this many times the weight of
# every other token (mole itself included): the largest weight alone is no
# answer when the row is flat (a score lead of ln 2 = 0.69 at least).
CLUE_LEAD = 2.0


def _weak_head_message(sentence, a, tokens, best_clue, rival):
    """Why a head whose largest weight is right is still too weak to count."""
    low, high = float(a.min()), float(a.max())
    if high < 1.5 * low:
        what = (f"mole's row is almost uniform (every weight between {low:.3f} "
                f"and {high:.3f}): its query is too weak to pick anything out")
    else:
        what = ("mole only leans towards the chemistry words: the query is too "
                "weak for a clear choice")
    return (
        f"In '{sentence}' the largest weight is on a chemistry word, but {what}. "
        f"'{tokens[best_clue]}' gets {a[best_clue]:.3f}, not even {CLUE_LEAD:g} "
        f"times the {a[rival]:.3f} of '{tokens[rival]}'; a head that looks at "
        f"chemistry gives its best clue at least {CLUE_LEAD:g} times the weight "
        "of any other word. Make the scores differ by more: a larger W_Q entry at "
        "'ambiguous' (or a larger W_K entry at 'chemistry')."
    )


@_checker("a head that makes 'mole' look at chemistry words")
def check_chemistry_head(fn, name):
    """Check ``fn() -> (W_Q, W_K)``, each (D_MODEL, d_k): in every sentence of
    CHEMISTRY_SENTENCES, 'mole''s largest weight lands on a chemistry word and
    its best clue gets at least CLUE_LEAD times the weight of any non-clue."""
    from helpers.world import lexicon

    result, _ = _call(fn, name, ())
    if isinstance(result, np.ndarray) or not isinstance(result, (tuple, list)) \
            or len(result) != 2:
        raise _Fail(f"{name} should return two matrices: `return W_Q, W_K`.")
    W_Q = _as_array(result[0], "W_Q")
    W_K = _as_array(result[1], "W_K")
    D = lexicon.D_MODEL
    names = list(lexicon.FEATURES)
    for what, W in (("W_Q", W_Q), ("W_K", W_K)):
        if W.ndim != 2:
            raise _Fail(f"{what} should be a matrix (D_MODEL, d_k); yours has "
                        f"shape {W.shape}.")
        if W.shape[0] != D:
            extra = (" You left out the position columns: E has "
                     f"{len(names)} feature columns plus {D - len(names)} position "
                     "columns; leave the position rows at zero."
                     if W.shape[0] == len(names) else "")
            raise _Fail(f"{what} needs one row per column of E, {D} rows; yours "
                        f"has {W.shape[0]}.{extra}")
    if W_Q.shape[1] != W_K.shape[1]:
        raise _Fail(
            f"d_k mismatch: W_Q gives queries of length {W_Q.shape[1]}, W_K keys of "
            f"length {W_K.shape[1]}. A query is compared with a key by a dot "
            "product, so both need the same d_k."
        )
    if W_Q.shape[1] == 0:
        raise _Fail("d_k is 0: give W_Q and W_K at least one column.")
    if _nonfinite(W_Q) or _nonfinite(W_K):
        raise _Fail("Your W_Q or W_K contains NaN or inf.")
    d_k = W_Q.shape[1]
    chem = names.index("chemistry")
    leads = []
    for sentence in CHEMISTRY_SENTENCES:
        emb = lexicon.embed(sentence)
        t = emb.tokens.index("mole")
        Q, K = emb.E @ W_Q, emb.E @ W_K
        a = softmax(Q[t] @ K.T / math.sqrt(d_k))
        clues = [j for j, tok in enumerate(emb.tokens)
                 if j != t and emb.E[j, chem] > 0]
        best_clue = max(clues, key=lambda j: a[j])
        top = float(a.max())
        if a[best_clue] >= top - 1e-9 and a[t] < a[best_clue] - 1e-6:
            rival = max((j for j in range(len(a)) if j not in clues),
                        key=lambda j: a[j])
            if a[best_clue] >= CLUE_LEAD * a[rival]:
                leads.append(float(a[best_clue]) / max(float(a[rival]), 1e-300))
                continue
            raise _Fail(_weak_head_message(sentence, a, emb.tokens, best_clue,
                                           rival))
        reads = _key_reads(W_K, names)
        hint = ""
        if reads != "chemistry":
            hint = (f" Your W_K reads mostly the '{reads}' row" if reads else
                    " Your W_K has no positive entry in a meaning-field row")
            hint += ("; the keys should read the 'chemistry' column of E "
                     f"(row F.index('chemistry') = {chem} of W_K).")
        if np.ptp(a) < 1e-6:
            raise _Fail(
                f"In '{sentence}' 'mole' gives every token the same weight "
                f"({top:.2f}): its query scores all keys alike.{hint} Give W_Q a "
                "non-zero entry in a row that 'mole' has (e.g. its 'ambiguous' "
                "flag) and W_K one in the 'chemistry' row."
            )
        winner = int(np.argmax(a))
        if winner != t and a[winner] > a[t] + 1e-6 and winner not in clues:
            field = _field_of(emb.E[winner, :len(names)], names)
            what = f"the {field} word" if field else "the word"
            raise _Fail(
                f"In '{sentence}' 'mole' attends most to {what} "
                f"'{emb.tokens[winner]}' ({a[winner]:.2f}), not to a chemistry "
                f"clue (best: '{emb.tokens[best_clue]}', {a[best_clue]:.2f})."
                + (hint or " Your W_K reads the 'chemistry' row, but other rows "
                   "too: keep only the chemistry entry (and a negative one for "
                   "'mole' itself).")
            )
        if hint:
            raise _Fail(
                f"In '{sentence}' 'mole' attends to itself ({a[t]:.2f}) at "
                f"least as much as to its best chemistry clue "
                f"'{emb.tokens[best_clue]}' ({a[best_clue]:.2f}).{hint}"
            )
        raise _Fail(
            f"In '{sentence}' 'mole' attends to itself ({a[t]:.2f}) at least "
            f"as much as to its best chemistry clue '{emb.tokens[best_clue]}' "
            f"({a[best_clue]:.2f}). 'mole' itself has chemistry 0.5, as much "
            "as a weak clue like 'weighed'. Let its key lose what the clues "
            "gain: a negative W_K entry in a row only 'mole' has (the "
            "'ambiguous' flag)."
        )
    least = min(leads)
    lead = f"at least {least:.1f} times" if least < 1000 else "over 1,000 times"
    return (
        f"in all {len(CHEMISTRY_SENTENCES)} sentences 'mole' puts its largest "
        "weight on a chemistry word, never on itself or on an animal or body "
        f"word; its best clue gets {lead} the weight of any other word."
    )
