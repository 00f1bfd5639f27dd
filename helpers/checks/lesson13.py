"""Lesson 13: the checkers of the induction-head exercises.

* warm-up: the prefix-matching score of a head (:func:`check_prefix_matching_score`);
* core: the query and key maps of the hand-built induction head
  (:func:`check_induction_qk`);
* stretch: ablate a head of the trained model and measure what it costs
  (:func:`check_ablation_ratio`).
"""

from __future__ import annotations

import numpy as np

from helpers.analysis import circuits, induction
from helpers.attention import causal_mask, softmax
from helpers.checks._core import _SEED, _Fail, _as_array, _call, _checker, _close

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = ["check_prefix_matching_score", "check_induction_qk", "check_ablation_ratio"]


# ------------------------------------------ warm-up: the prefix-matching score ---
def _random_patterns(shape_lead, n, seed):
    """Causal attention patterns ``(*shape_lead, n, n)`` with uneven rows, so
    that every wrong diagonal gives another number."""
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=2.0, size=(*shape_lead, n, n))
    return softmax(np.where(causal_mask(n), z, -np.inf))


def _prefix_mistakes(A, start, L):
    """The scores that the usual mistakes give, ``{diagnosis: value}``."""
    j = np.arange(L - 1)
    q = start + L + j
    k = np.arange(L)
    diag = np.stack(
        [np.diagonal(a, offset=-(L - 1)) for a in A.reshape(-1, *A.shape[-2:])]
    )
    return {
        "you scored the key start + j, the earlier occurrence of the same "
        "token: that is a duplicate-token score. An induction head attends to "
        "the token that FOLLOWED the earlier occurrence, key start + j + 1": A[
            ..., q, start + j
        ].mean(-1),
        "you scored the key start + j + 2, one past the token that followed "
        "the earlier occurrence: use key start + j + 1": A[..., q, start + j + 2].mean(
            -1
        ),
        "you averaged the whole diagonal A[i, i - (length - 1)], including the "
        "queries of the prefix and of the first copy, where nothing has "
        "repeated yet: keep only the queries of the second copy, start + length "
        "+ j for j = 0 .. length - 2": diag.mean(-1).reshape(A.shape[:-2]),
        "you read A[key, query]: rows are queries and columns are keys, so the "
        "weight of query start + length + j on key start + j + 1 is "
        "A[start + length + j, start + j + 1]": A[..., start + j + 1, q].mean(-1),
        "you included j = length - 1, the last query of the second copy; its "
        "'next token' key start + length is the second copy's own first token. "
        "Use j = 0 .. length - 2": A[..., start + L + k, start + k + 1].mean(-1),
        "you summed the weights over j: the score is their MEAN (divide by "
        "length - 1, or use .mean(axis=-1))": A[..., q, start + j + 1].sum(-1),
        "you took the largest weight over j: the score is their mean, "
        ".mean(axis=-1)": A[..., q, start + j + 1].max(-1),
        "you took the median of the weights over j: the score is their mean, "
        ".mean(axis=-1)": np.median(A[..., q, start + j + 1], axis=-1),
        "you skipped j = 0: the first query of the second copy, start + "
        "length, counts too (its key is start + 1); use j = 0 .. length - 2": A[
            ..., q[1:], start + j[1:] + 1
        ].mean(-1),
        "your indices start one early, at start - 1: the first copy's first "
        "token is at start, so the queries are start + length + j and the keys "
        "start + j + 1": A[..., q - 1, start + j].mean(-1),
        "your queries are one early (start + length + j - 1), with the right "
        "keys: the query is the token X seen again, start + length + j, and "
        "its key the one after X's first occurrence, start + j + 1": A[
            ..., q - 1, start + j + 1
        ].mean(-1),
        "your queries are one late (start + length + j + 1): the query is the "
        "token X seen again, start + length + j, and its key the one after X's "
        "first occurrence, start + j + 1": A[..., q + 1, start + j + 1].mean(-1),
    }


def _works_with_one_axis_less(fn, A, start, L) -> bool:
    """Whether ``fn`` gives the right scores for ``A``, one pattern or a
    stack with one axis less than the case that failed."""
    try:
        got = np.asarray(fn(A.copy(), start, L), dtype=float)
    except Exception:
        return False
    expected = induction.prefix_matching(A, start, L)
    return got.size == expected.size and _close(got.reshape(expected.shape), expected)


@_checker("the prefix-matching score")
def check_prefix_matching_score(fn, name):
    """Check ``fn(A, start, length)`` -> ``induction.prefix_matching(A,
    start, length)``, for one pattern ``(n, n)`` and for several ``(h, n,
    n)`` and ``(layers, h, n, n)`` (one score per pattern)."""
    cases = [
        ((), 1 + 3 + 2 * 6, 4, 6, _SEED),
        ((), 1 + 2 * 5, 1, 5, _SEED + 1),
        ((3,), 1 + 2 + 2 * 7, 3, 7, _SEED + 2),
        ((2, 2), 1 + 3 + 2 * 5, 4, 5, _SEED + 3),  # (layers, heads, n, n)
    ]
    for lead, n, start, L, seed in cases:
        A = _random_patterns(lead, n, seed)
        try:
            result, _ = _call(fn, name, ("A", "start", "length"), A, start, L)
        except _Fail:
            if lead and _works_with_one_axis_less(fn, A[0], start, L):
                raise _Fail(
                    f"Your {name} works for A of shape {A[0].shape} but fails for "
                    f"shape {A.shape}: A[rows, cols] or A[:, rows, cols] indexes "
                    "fixed axes. Index the last two, A[..., rows, cols], so that "
                    "every pattern is scored at once, whatever axes come before "
                    "(no loop over heads needed)."
                ) from None
            raise
        got = _as_array(result, f"What your {name} returns")
        expected = induction.prefix_matching(A, start, L)
        if got.shape != expected.shape:
            if lead and got.size == 1:
                one = float(got.reshape(()))
                if np.isclose(one, expected[0], rtol=1e-6, atol=1e-9):
                    why = ("you scored only the first head (A[0]): index the "
                           "last two axes, A[..., rows, cols]")
                elif np.isclose(one, expected.mean(), rtol=1e-6, atol=1e-9):
                    why = "you averaged over the heads too"
                else:
                    why = "that is not one score per head"
                raise _Fail(
                    f"For A of shape {A.shape} your {name} returned one "
                    f"number: {why}. Average over j only (the last index), so "
                    f"that each pattern gets its own score, shape {expected.shape}."
                )
            raise _Fail(
                f"For A of shape {A.shape} your {name} returned shape "
                f"{got.shape}; expected {expected.shape} (one score per "
                "pattern)."
            )
        if _close(got, expected):
            continue
        for why, value in _prefix_mistakes(A, start, L).items():
            if _close(got, value) and not np.allclose(value, 0.0):
                raise _Fail(f"With start={start}, length={L}: {why}.")
        if np.allclose(got, 0.0):
            raise _Fail(
                f"With start={start}, length={L} every score you gave is 0: "
                "the weights you read lie above the diagonal, where the causal "
                "mask leaves zeros (a key after its query), as reading "
                "A[key, query] would. Rows are queries: the weight of query "
                "start + length + j on key start + j + 1 is "
                "A[..., start + length + j, start + j + 1]."
            )
        raise _Fail(
            f"With start={start}, length={L} your {name} gave "
            f"{np.round(got, 4)}; expected {np.round(expected, 4)}: the mean "
            "of A[start + length + j, start + j + 1] over j = 0 .. length - 2."
        )
    return (
        "for each query of the second copy, the weight on the token after "
        "its earlier occurrence, averaged."
    )


# ---------------------------------------------- core: the induction head's QK ---
def _probe(W, seeds=range(3), L=8):
    """Second-copy loss and prefix matching of the circuit ``W``."""
    losses, pms = [], []
    V = W["layout"].V
    for s in seeds:
        rng = np.random.default_rng(_SEED + s)
        r = 1 + rng.permutation(V - 1)[:L]
        ids = np.concatenate([[0], r, r])
        run = circuits.run_circuit(W, ids)
        losses.append(induction.copy_losses(run.loss_per_position(), 1, L)[1])
        pms.append(induction.prefix_matching(run.A1, 1, L))
    return float(np.mean(losses)), float(np.mean(pms))


@_checker("the induction head's query and key maps")
def check_induction_qk(fn, name):
    """Check ``fn(layout, sharpness) -> (W_Q, W_K)``, each ``(d_model, V)``:
    the query reads the token subspace, the key reads the previous-token
    subspace, and matching tokens score ``sharpness``."""
    W = circuits.build_circuit()
    lay = W["layout"]
    result, _ = _call(fn, name, ("layout", "sharpness"), lay, circuits.SHARPNESS)
    if not (isinstance(result, tuple | list) and len(result) == 2):
        raise _Fail(
            f"Your {name} should return two matrices, (W_Q, W_K); it "
            f"returned {type(result).__name__}."
        )
    W_Q, W_K = (_as_array(m, f"{name}'s {x}") for m, x in zip(result, ("W_Q", "W_K")))
    want = (lay.d_model, lay.V)
    for M, x in ((W_Q, "W_Q"), (W_K, "W_K")):
        if M.shape != want:
            hint = (
                " That is the transpose: here vectors are rows, x @ W_Q."
                if M.shape == want[::-1]
                else ""
            )
            raise _Fail(
                f"Your {x} has shape {M.shape}; it maps a residual vector "
                f"(d_model = {lay.d_model}) to the head's {lay.V} "
                f"dimensions, so (d_model, V) = {want}.{hint}"
            )
    QK = W_Q @ W_K.T  # (d, d): which query coordinates meet which key ones
    names = ("token", "position", "previous", "output")
    blocks = {
        (a, b): np.abs(QK[getattr(lay, a), getattr(lay, b)]).sum()
        for a in names
        for b in names
    }
    M = QK[lay.token, lay.previous]
    sharp = circuits.SHARPNESS
    eye = np.eye(lay.V)
    if not np.allclose(M, sharp * eye, rtol=1e-4, atol=1e-4 * sharp):
        _qk_diagnosis(blocks, M, sharp, lay, (W_K @ W_Q.T)[lay.token, lay.previous])
    # the block the spec asks for is right; anything else must do no harm
    extra = [ab for ab, v in blocks.items()
             if ab != ("token", "previous") and v > 1e-4 * sharp]
    trial = dict(W, W_Q1=W_Q, W_K1=W_K)
    loss, pm = _probe(trial)
    ref_loss, ref_pm = _probe(W)
    if pm < 0.9 or loss > ref_loss + 0.05:
        if extra:
            named = "; ".join(f"the query's {a} block to the key's {b} block"
                              for a, b in extra)
            raise _Fail(
                f"The token -> previous block is right (sharpness times the "
                f"identity), but W_Q @ W_K.T also connects {named}. That extra "
                f"term moves the attention: the second copy costs {loss:.3f} "
                f"nats (the reference: {ref_loss:.3f}), prefix matching "
                f"{pm:.2f}. Leave every other block of W_Q and W_K at zero."
            )
        raise _Fail(
            f"The circuit runs, but on a repeated sequence the second copy "
            f"costs {loss:.3f} nats (the reference: {ref_loss:.3f}) with a "
            f"prefix-matching score of {pm:.2f}."
        )
    note = ""
    if extra:
        note = (" (Your maps also connect other blocks; on these texts that "
                "changes nothing.)")
    return (
        f"the head's query 'my token is X' meets the key 'my previous token was "
        f"X': prefix matching {pm:.2f}, second copy {loss:.3f} nats.{note}"
    )


def _qk_diagnosis(blocks, M, sharp, lay, M_swapped):
    """Raise the message for a token -> previous block that is not
    ``sharp`` times the identity: say what the maps do instead
    (``M_swapped``: the same block with the two maps' order swapped)."""
    biggest = max(blocks, key=blocks.get)
    if blocks[biggest] == 0:
        raise _Fail(
            "W_Q @ W_K.T is all zero: the head scores every key the same "
            "and spreads each row evenly. Put an identity into the right "
            "rows of each map."
        )
    if blocks[("token", "previous")] == 0 or biggest != ("token", "previous"):
        if biggest == ("previous", "token") and np.allclose(
                M_swapped, sharp * np.eye(lay.V), rtol=1e-4, atol=1e-4 * sharp):
            raise _Fail(
                "Query and key are swapped: either their order is swapped (you "
                "returned (W_K, W_Q)), or your query reads layout.previous and "
                "your key layout.token. Return W_Q first, reading layout.token, "
                "then W_K, reading layout.previous."
            )
        if biggest == ("token", "token"):
            raise _Fail(
                "Your key reads the token subspace, so the head finds the "
                "earlier occurrence of the SAME token and copies it: it "
                "predicts the current token again. The key must read "
                "layout.previous, what the previous-token head wrote there."
            )
        if biggest == ("previous", "token"):
            raise _Fail(
                "Query and key are swapped: your query reads 'the token before "
                "me' and your key reads 'my token'. The query asks with the "
                "current token (layout.token); the key answers with "
                "layout.previous."
            )
        if biggest == ("previous", "previous"):
            raise _Fail(
                "Both maps read layout.previous: the head matches tokens whose "
                "PREVIOUS tokens agree, one step behind. The query must read the "
                "current token, layout.token."
            )
        raise _Fail(
            f"W_Q @ W_K.T connects the {biggest[0]} subspace of the query to "
            f"the {biggest[1]} subspace of the key. The query reads "
            "layout.token, the key reads layout.previous."
        )
    if np.allclose(M, M[0, 0]) and lay.V > 1:
        raise _Fail(
            "Every token matches every token equally (all of W_Q @ W_K.T's "
            "block is the same number): use identities, so that token X "
            "meets 'previous token was X' only."
        )
    diagonal = np.allclose(M, np.diag(np.diag(M)))
    if diagonal and np.allclose(np.diag(M), 1.0):
        raise _Fail(
            f"The right tokens match, but a match scores only 1, so the "
            f"softmax stays soft and the copy is blurred. Multiply one of "
            f"the identities by sharpness ({sharp:g})."
        )
    d = np.diag(M)
    if diagonal and np.allclose(d, -sharp):
        raise _Fail(
            f"The right tokens match, but with the wrong sign: a match scores "
            f"{d[0]:g}, so the head attends AWAY from the token after the "
            f"earlier X. Use +sharpness ({sharp:g}), not -sharpness."
        )
    if diagonal and np.allclose(d, d[0]):
        hint = (" You multiplied both maps by sharpness: multiply one only."
                if np.isclose(d[0], sharp**2) else
                " Put sharpness on one map and a plain identity on the other "
                "(or sqrt(sharpness) on both).")
        raise _Fail(
            f"The right tokens match, but a match scores {d[0]:g}; the spec "
            f"says it scores sharpness ({sharp:g}), exactly.{hint}"
        )
    raise _Fail(
        "W_Q @ W_K.T's token -> previous block should be sharpness times the "
        f"identity; yours has entries from {M.min():.3g} to {M.max():.3g}."
    )


# ------------------------------------------------- stretch: ablate and measure ---
class _Guarded:
    """The model, as the learner's function sees it: ``run(ids, ablate=...)``
    names the usual slip, ``ablate=head`` (a bare pair, no braces), instead
    of the generic TypeError it would raise."""

    def __init__(self, model):
        self._model = model

    def __getattr__(self, key):
        return getattr(self._model, key)

    def run(self, ids, ablate=None, **kwargs):
        if (isinstance(ablate, tuple | list) and len(ablate) == 2
                and all(isinstance(x, int | np.integer) for x in ablate)):
            la, hd = (int(x) for x in ablate)
            raise TypeError(
                f"ablate takes a set of (layer, head) pairs: ablate={{({la}, "
                f"{hd})}}, with braces; ablate=({la}, {hd}) is a bare pair")
        if (isinstance(ablate, set | frozenset) and ablate
                and all(isinstance(x, int | np.integer) for x in ablate)):
            raise TypeError(
                f"ablate takes a set of (layer, head) pairs, but yours is "
                f"{sorted(int(x) for x in ablate)}, plain numbers: set(head) "
                "takes the pair apart. Write ablate={head}, with braces")
        return self._model.run(ids, ablate=ablate, **kwargs)


@_checker("the ablation ratio")
def check_ablation_ratio(fn, name):
    """Check ``fn(model, ids, start, length, head)``: the second copy's mean
    loss with ``head`` ablated, divided by the loss without (both over the
    copy's last ``length - 1`` tokens, as :func:`induction.copy_losses`)."""
    try:
        model = induction.load()
    except Exception as exc:
        raise _Fail(f"the lesson's model could not be loaded ({exc}).") from None
    rep = induction.report()
    heads = [tuple(rep["induction_head"]), (0, 1)]  # (0, 1): swapping it shows
    for k, (head, L) in enumerate(zip(heads, (10, 9))):  # not the notebook's L = 12
        ids, start = induction.repeated_ids(model.vocab_size, L, 5 + k, _SEED + k)
        result, _ = _call(
            fn,
            name,
            ("model", "ids", "start", "length", "head"),
            _Guarded(model),
            ids,
            start,
            L,
            head,
        )
        got = _as_array(result, f"What your {name} returns")
        if got.size != 1:
            raise _Fail(f"Your {name} returned shape {got.shape}; return one number.")
        got = float(got.reshape(()))
        if np.isnan(got):
            raise _Fail(
                f"For head {head} your {name} gave nan, the mean of an empty "
                f"slice: with start={start} and length={L} (this test's "
                f"{len(ids)} tokens), loss[start + length : start + 2 * length "
                "- 1] is not empty, so your slice uses other numbers. Use the "
                "arguments start and length, not the notebook's own start and L."
            )
        base = model.run(ids).loss_per_position()
        cut = model.run(ids, ablate={head}).loss_per_position()
        b1, b2 = induction.copy_losses(base, start, L)
        c1, c2 = induction.copy_losses(cut, start, L)
        expected = c2 / b2
        if abs(got - expected) <= 1e-4 * max(1.0, abs(expected)):
            continue
        la, hd = head
        swapped = (
            model.run(ids, ablate={(hd, la)}).loss_per_position()
            if hd < model.n_layers and la < model.n_heads
            else None
        )
        tries = [
            (
                b2 / c2,
                "that is the ratio upside down: divide the loss WITH the head "
                "ablated by the loss without it (ablating a useful head makes "
                "the ratio larger than 1)",
            ),
            (
                c1 / b1,
                "that is the FIRST copy: the second copy is "
                "loss[start + length : start + 2 * length - 1]",
            ),
            (c2 - b2, "that is a difference; return the ratio"),
            (
                np.log(c2 / b2),
                "that is the log of the ratio; return the ratio itself",
            ),
            (
                np.log(c2) / np.log(b2),
                "that divides the logs of the losses; divide the losses",
            ),
            (
                cut.mean() / base.mean(),
                "that is the ratio over the whole text; take the second copy "
                "only, loss[start + length : start + 2 * length - 1]",
            ),
            (
                (cut[start + L : start + 2 * L - 1]
                 / base[start + L : start + 2 * L - 1]).mean(),
                "that is the mean of the per-token ratios; divide the mean "
                "ablated loss by the mean intact loss",
            ),
            (
                induction.copy_losses(
                    model.run(ids, ablate={(la, h) for h in range(model.n_heads)})
                    .loss_per_position(), start, L)[1] / b2,
                "you ablated every head of the layer; ablate only the one head, "
                "model.run(ids, ablate={head})",
            ),
            (
                cut[start + L - 1 : start + 2 * L - 1].mean()
                / base[start + L - 1 : start + 2 * L - 1].mean(),
                "you included the second copy's first token, which no model can "
                "predict (it is random): start the slice at start + length",
            ),
        ]
        tries += [
            (
                cut[start + L - 1 : start + 2 * L - 2].mean()
                / base[start + L - 1 : start + 2 * L - 2].mean(),
                "your slice starts one token early, at start + length - 1, and "
                "so ends one early too: loss[t] predicts token t + 1, so the "
                "second copy's tokens after its first are loss[start + length : "
                "start + 2 * length - 1]",
            ),
            (
                cut[start + L + 1 : start + 2 * L].mean()
                / base[start + L + 1 : start + 2 * L].mean(),
                "your slice starts one token late, at start + length + 1: "
                "loss[t] predicts token t + 1, so loss[start + length] is the "
                "second copy's second token, the first one a model can predict; "
                "take loss[start + length : start + 2 * length - 1]",
            ),
            (
                cut[start + L : start + 2 * L - 2].mean()
                / base[start + L : start + 2 * L - 2].mean(),
                "your slice ends one token early, at start + 2 * length - 2: "
                "the second copy's last prediction is loss[start + 2 * length "
                "- 2], so take loss[start + length : start + 2 * length - 1]",
            ),
            (
                cut[start + 12 : start + 23].mean()
                / base[start + 12 : start + 23].mean(),
                f"you used length 12 (the notebook's L?), but this test's length "
                f"is {L}: use the argument length",
            ),
            (
                c2 / c1,
                "that is the ablated run's second copy over its own first copy; "
                "divide the ablated second copy by the INTACT second copy",
            ),
        ]
        if swapped is not None:
            tries.append(
                (
                    induction.copy_losses(swapped, start, L)[1] / b2,
                    "you ablated (head, layer): model.run(ids, ablate={(layer, "
                    "head)}) takes the layer first",
                )
            )
        for value, why in tries:
            if abs(got - value) <= 1e-6 * max(1.0, abs(value)):
                raise _Fail(f"For head {head}: {why}.")
        raise _Fail(
            f"For head {head} your {name} gave {got:.4f}; expected "
            f"{expected:.4f} (second copy {c2:.3f} nats ablated, {b2:.3f} "
            "intact)."
        )
    return (
        "the second copy's loss with a head removed, over the loss with it: "
        "large for the induction head, about 1 for a head it does not need."
    )
