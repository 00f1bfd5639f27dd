"""Lesson 05: the checkers of the update E + (A V) W_up."""

from __future__ import annotations


import numpy as np

from helpers.attention import softmax
from helpers.checks._core import (
    _SEED,
    _Fail,
    _close,
    _first_match,
    _call,
    _as_array,
    _require_shape,
    _unpack_pair,
    _checker,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_update", "check_delta_row", "check_chemistry_values"]


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
            result, _ = _call(fn, name, ("E", "A", "V", "W_up"), E, A, V, W_up)
        except _Fail as fail:
            if "could not be broadcast" not in str(fail):
                raise
            raise _Fail(
                f"{fail.args[0].split('. ')[0]}. E is {E.shape} but A @ V is "
                f"{(n, d_v)}: bring the weighted values back up to embedding "
                "space with @ W_up before adding them to E."
            ) from None
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


# ------------------------------------------------------------- warm-up ---


@_checker("one row of dE")
def check_delta_row(fn, name):
    """Check ``fn(a, V, W_up) -> a @ V @ W_up``: one token's update.

    ``a`` (n,) is that token's row of A, ``V`` (n, d_v), ``W_up`` (d_v, d_model).
    """
    rng = np.random.default_rng(_SEED + 5)
    for n, d_v, d in ((4, 2, 5), (3, 3, 6), (5, 2, 3)):
        a = softmax(rng.standard_normal(n) * 2)
        V = rng.standard_normal((n, d_v))
        W_up = rng.standard_normal((d_v, d))
        expected = a @ V @ W_up
        result, _ = _call(fn, name, ("a", "V", "W_up"), a, V, W_up)
        got = _as_array(result, f"What {name} returns")
        if got.shape == (d_v,):
            raise _Fail(
                f"Your row has {d_v} numbers, like a row of V: that is the weighted "
                "sum a @ V, still in the small value space. Bring it up to "
                "embedding space with @ W_up."
            )
        if got.shape in ((n, d_v), (n, d)):
            raise _Fail(
                f"Your result has shape {got.shape}, one row per key: you weighted "
                "each value row but did not add them up. The update is ONE row, "
                "the sum over keys: a @ V (then @ W_up)."
            )
        _require_shape(got, (d,), "dE_i",
                       "One token's update is one row, d_model wide.")
        if _close(got, expected):
            continue
        found = _first_match(
            got,
            {
                "unweighted": V.sum(axis=0) @ W_up,
                "mean": V.mean(axis=0) @ W_up,
            },
        )
        if found == "unweighted":
            raise _Fail("You added the value rows without their weights: multiply "
                        "row j of V by a[j] first (that is what a @ V does).")
        if found == "mean":
            raise _Fail("You averaged the value rows equally: the attention weights "
                        "a say how much of each row to take, use a @ V.")
        raise _Fail(
            f"Your row differs from a @ V @ W_up (largest difference "
            f"{np.max(np.abs(got - expected)):.3g})."
        )
    return (f"{name} computes dE_i = a V W_up: weights times value rows, "
            "summed, then up.")


# ------------------------------------------------------------- stretch ---

# Sentences in which "mole" means the chemist's unit, and sentences in which it
# does not: a value side that writes chemistry whatever it reads fails the latter.
CHEMISTRY_SENTENCES = (
    "the chemist weighed one mole of carbon in grams",
    "a mole of salt weighs about fifty grams",
)
OTHER_MOLE_SENTENCES = (
    "the mole dug a tunnel under the muddy garden",
    "the doctor looked at the mole on her skin",
)


def _mole_after(text, W_V, W_up):
    """mole's embedding before and after one head with the sense head's
    pattern and the given value side."""
    from helpers.world.heads import run_head, sense_head

    run = run_head(sense_head(), text)
    i = run.tokens.index("mole")
    dE = run.weights @ (run.E @ W_V) @ W_up
    return run.E[i], run.E[i] + dE[i], dE[i]


# In a chemistry sentence, mole's cosine to its chemistry sense must beat its
# next-nearest sense by at least this much: "just nearer" is no answer.
SENSE_LEAD = 0.1


@_checker("a value side (W_V, W_up) that moves 'mole' towards chemistry")
def check_chemistry_values(fn, name):
    """Check ``fn(features, d_model) -> (W_V, W_up)``.

    The pattern is the sense head's. The value side passes: in chemistry
    sentences "mole" ends nearest its chemistry sense, by at least SENSE_LEAD
    in cosine, and its cosine to it rises; in an animal and a skin sentence
    its chemistry cosine does not rise (by more than 0.02).
    """
    from helpers.world.heads import nearest_sense
    from helpers.world.lexicon import D_MODEL, FEATURES

    result, _ = _call(fn, name, ("features", "d_model"), FEATURES, D_MODEL)
    W_V, W_up = _unpack_pair(result, name, "W_V", "W_up")
    if W_V.ndim != 2 or W_V.shape[0] != D_MODEL:
        raise _Fail(
            f"W_V has shape {W_V.shape}; value-down reads an embedding, so it is "
            f"(d_model, d_v) = ({D_MODEL}, d_v) for a d_v of your choice."
        )
    d_v = W_V.shape[1]
    if W_up.shape == (D_MODEL, d_v) and d_v != D_MODEL:
        raise _Fail(
            f"W_up has shape {W_up.shape}: it is transposed. Value-up takes the "
            f"d_v numbers back to embedding space: shape (d_v, d_model) = "
            f"({d_v}, {D_MODEL})."
        )
    _require_shape(W_up, (d_v, D_MODEL), "W_up",
                   "Value-up: (d_v, d_model), d_v as in your W_V.")
    if not (np.isfinite(W_V).all() and np.isfinite(W_up).all()):
        raise _Fail("W_V or W_up holds NaN or infinity; use ordinary numbers.")
    chem = FEATURES.index("chemistry")
    leads = []
    for text in CHEMISTRY_SENTENCES:
        before, after, dE = _mole_after(text, W_V, W_up)
        _, cos_before = nearest_sense("mole", before)
        best, cos_after = nearest_sense("mole", after)
        gain = cos_after["chemistry"] - cos_before["chemistry"]
        rival = max((s for s in cos_after if s != "chemistry"),
                    key=lambda s: cos_after[s])
        lead = cos_after["chemistry"] - cos_after[rival]
        if best == "chemistry" and gain > 0.01 and lead >= SENSE_LEAD:
            leads.append(lead)
            continue
        if best == "chemistry" and dE[chem] > 1e-9:
            raise _Fail(
                f"In '{text}' 'mole' ends only just nearer chemistry than "
                f"'{rival}' (cosines {cos_after['chemistry']:.3f} and "
                f"{cos_after[rival]:.3f}): the update points the right way but "
                "is too weak to settle the sense. A head that moves 'mole' "
                f"leaves chemistry ahead by at least {SENSE_LEAD}: write the "
                "chemistry feature with a weight of about 1 or more."
            )
        if dE[chem] < -1e-9:
            raise _Fail(
                f"In '{text}' your update SUBTRACTS from mole's chemistry feature "
                f"(dE there is {dE[chem]:.2f}), so 'mole' moves away from chemistry: "
                "a sign is flipped in W_V or W_up."
            )
        others = np.abs(dE[: len(FEATURES)]).copy()
        others[chem] = 0
        top = FEATURES[int(np.argmax(others))]
        if abs(dE[chem]) < 1e-9:
            what = (f"it writes mostly into '{top}'" if others.max() > 1e-9
                    else "it is zero")
            raise _Fail(
                f"In '{text}' your update does not touch mole's 'chemistry' feature "
                f"({what}). W_V should READ the chemistry feature of the words mole "
                "looks at, and W_up WRITE it into the chemistry column."
            )
        raise _Fail(
            f"In '{text}' your update adds to chemistry, but 'mole' ends nearest "
            f"'{best}' (chemistry cosine {cos_before['chemistry']:.2f} -> "
            f"{cos_after['chemistry']:.2f}): the update also writes other features "
            f"(most: '{top}') or is too weak. Read and write only the chemistry "
            "feature, with a weight of about 1 or more."
        )
    for text in OTHER_MOLE_SENTENCES:
        before, after, _ = _mole_after(text, W_V, W_up)
        _, cos_before = nearest_sense("mole", before)
        best, cos_after = nearest_sense("mole", after)
        if cos_after["chemistry"] - cos_before["chemistry"] > 0.02:
            raise _Fail(
                f"In '{text}' there is no chemistry, yet your head pushes 'mole' "
                f"towards chemistry (cosine {cos_before['chemistry']:.2f} -> "
                f"{cos_after['chemistry']:.2f}): it writes chemistry whatever the "
                "words it looks at say. W_V must read the chemistry feature of those "
                "words (a column of W_V that is 1 at 'chemistry'), so that nothing "
                "is written when they have none."
            )
    return (f"{name}: 'mole' becomes chemistry in {len(CHEMISTRY_SENTENCES)} "
            f"chemistry sentences (ahead of its other senses by at least "
            f"{min(leads):.2f} in cosine) and stays itself in "
            f"{len(OTHER_MOLE_SENTENCES)} others.")
