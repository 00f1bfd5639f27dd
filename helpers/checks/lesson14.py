"""Lesson 14: the checkers of the fixed-size-memory exercises.

* warm-up: the memory of a hybrid model for one sequence
  (:func:`check_hybrid_bytes`): KV cache of the full-attention layers plus
  the fixed state of the others;
* core: one recurrent step of linear attention (:func:`check_linear_step`),
  checked step by step from the right state, then over a whole sequence
  against ``linear_attention(..., causal=True)``;
* stretch: one step of the (gated) delta rule (:func:`check_delta_step`),
  then a whole sequence against ``delta_rule``.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np

from helpers.attention import delta_rule, linear_attention
from helpers.checks._core import (
    _SEED,
    _Fail,
    _as_array,
    _call,
    _checker,
    _close,
    _nonfinite,
)

from helpers.checks._lesson14_hybrid import hybrid_mistakes, reference_hybrid_bytes

__all__ = ["check_hybrid_bytes", "check_linear_step", "check_delta_step"]


# ------------------------------------------ warm-up: a hybrid's memory ---

#: (n_tokens, n_layers, interval, n_kv_heads, d_head, n_state_heads, d_k, d_v,
#: bytes_per_value): the first gives every named mistake its own number; the
#: second is Qwen3-Next-80B-A3B at 262,144 tokens (its config.json); the
#: third has 2 full and 4 state layers (unequal counts, so that counting
#: every layer twice is not the same number as doubling the total); the
#: last has n_layers not divisible by interval (10 // 4 = 2 full layers), so
#: that n_layers / interval (2.5) is caught.
HYBRID_CASES = (
    (100, 8, 4, 2, 6, 3, 5, 7, 4),
    (262_144, 48, 4, 2, 256, 32, 128, 128, 2),
    (10, 6, 3, 1, 4, 2, 3, 3, 1),
    (100, 10, 4, 2, 6, 3, 5, 7, 4),
)


@_checker("the memory of a hybrid model")
def check_hybrid_bytes(fn, name):
    """Check ``fn(n_tokens, n_layers, interval, n_kv_heads, d_head,
    n_state_heads, d_k, d_v, bytes_per_value) -> bytes`` for one sequence."""
    arg_names = ("n_tokens", "n_layers", "interval", "n_kv_heads", "d_head",
                 "n_state_heads", "d_k", "d_v", "bytes_per_value")
    first = None  # the first case answered wrong: (label, got, expected, whys)
    for case in HYBRID_CASES:
        result, _ = _call(fn, name, arg_names, *case)
        got = _as_array(result, f"What your {name} returns")
        if got.size != 1:
            raise _Fail(f"Your {name} returned an array of shape {got.shape}; "
                        "return one number, the bytes of one sequence.")
        got = float(got.reshape(()))
        expected = reference_hybrid_bytes(*case)
        if got == expected:
            continue
        label = ", ".join(f"{a}={v:,}" for a, v in zip(arg_names, case))
        whys = [why for wrong, why in hybrid_mistakes(*case)
                if wrong is not None and wrong != expected
                and math.isclose(got, wrong, rel_tol=1e-9)]
        if len(whys) == 1:  # one mistake gives this number: name it
            raise _Fail(f"For {label} you gave {got:,.6g}: {whys[0]}. "
                        f"Expected {expected:,}.")
        first = first or (label, got, expected, whys)  # two give it: read on
    if first:
        label, got, expected, whys = first
        if whys:
            raise _Fail(f"For {label} you gave {got:,.6g}: {whys[0]}. "
                        f"Expected {expected:,}.")
        raise _Fail(f"For {label} you gave {got:,.6g}; expected {expected:,}: "
                    "2 x (n_layers // interval) x n_kv_heads x d_head x bytes x "
                    "n_tokens for the cache, plus (the other layers) x "
                    "n_state_heads x d_k x d_v x bytes for the state.")
    q3 = reference_hybrid_bytes(*HYBRID_CASES[1])
    return (f"{name} gives {q3 / 2**30:.2f} GiB for Qwen3-Next-80B-A3B at 262,144 "
            "tokens, of which the state of its 36 Gated DeltaNet layers is 36 MiB at "
            "every length.")


# ------------------------------- core: one step of linear attention ---

def reference_linear_step(S, z, q, k, v):
    """Write first, then read: S + k^T v, z + k, o = q S' / (q . z')."""
    S_new = S + np.outer(k, v)
    z_new = z + k
    return (q @ S_new) / (q @ z_new), S_new, z_new


def _linear_wrong(S, z, q, k, v):
    S_new, z_new = S + np.outer(k, v), z + k
    return {
        "you forgot the normaliser: divide the read-out q S_new by q . z_new (the "
        "same weights as the parallel form, whose rows sum to 1)":
            ((q @ S_new), S_new, z_new),
        "you read the state before writing this token: update S and z first, "
        "then read, so that the token sees itself (the diagonal of the causal "
        "mask)": ((q @ S) / (q @ z) if q @ z else q @ S, S_new, z_new),
        "you read before writing, and without the normaliser: update S and z "
        "first, then o = q S_new / (q . z_new)": (q @ S, S_new, z_new),
        "the normaliser z was not updated: z_new = z + k":
            ((q @ S_new) / (q @ z_new), S_new, z),
        "the normaliser z was not updated, and the read divides by the old z: "
        "z_new = z + k, then o = q S_new / (q . z_new)":
            ((q @ S_new) / (q @ z), S_new, z),
        "you divided by the sum of q, not by q . z_new": (
            (q @ S_new) / q.sum(), S_new, z_new),
        "you divided by k . z_new: the normaliser is read with the query, "
        "o = q S_new / (q . z_new)": ((q @ S_new) / (k @ z_new), S_new, z_new),
        "phi was applied again to q and k: they are already features (through "
        "phi); use them as they are": _twice_phi(S, z, q, k, v),
        "you divided by z_new . z_new: the normaliser is read with the query, "
        "o = q S_new / (q . z_new)": ((q @ S_new) / (z_new @ z_new), S_new, z_new),
        "you divided by the sum of z_new: the normaliser is the query's dot "
        "product with it, q . z_new": ((q @ S_new) / z_new.sum(), S_new, z_new),
        "you divided by q . q: the normaliser is q . z_new, the query against "
        "the sum of the keys": ((q @ S_new) / (q @ q), S_new, z_new),
        "z sums the keys, not the queries: z_new = z + k":
            ((q @ S_new) / (q @ (z + q)), S_new, z + q),
        "you wrote the query into the state: the state stores keys, "
        "S_new = S + np.outer(k, v)":
            ((q @ (S + np.outer(q, v))) / (q @ z_new), S + np.outer(q, v), z_new),
        "you read with the key k: the read uses the query, "
        "o = q S_new / (q . z_new)": ((k @ S_new) / (k @ z_new), S_new, z_new),
        "S_new lost the old state: add the new pair to it, "
        "S_new = S + np.outer(k, v)":
            ((q @ np.outer(k, v)) / (q @ z_new), np.outer(k, v), z_new),
        "z_new lost the old sum: z_new = z + k": ((q @ S_new) / (q @ k), S_new, k),
    }


def _linear_square_slips(S, z, q, k, v):
    """Slips that raise an error when d != d_v and run when d == d_v."""
    S_new, z_new = S + np.outer(k, v), z + k
    o = q @ S_new / (q @ z_new)
    return {
        "S_new @ q puts the state first: the query is a row, o = q @ S_new / "
        "(q @ z_new)": (S_new @ q / (q @ z_new), S_new, z_new),
        "k.T @ v: for a 1-D row k.T is k itself, so that is the dot product "
        "k . v (one number), not the outer product k^T v; use np.outer(k, v), "
        "shape (d, d_v)": (q @ (S + k @ v) / (q @ z_new), S + k @ v, z_new),
        "k * v multiplies element by element: the state needs the outer "
        "product k^T v, np.outer(k, v), shape (d, d_v)":
            (q @ (S + k * v) / (q @ z_new), S + k * v, z_new),
        "you divided element by element by z_new: the normaliser is one "
        "number, q @ z_new": (q @ S_new / z_new, S_new, z_new),
        "you divided element by element by q * z_new: the normaliser is their "
        "dot product, one number, q @ z_new": (q @ S_new / (q * z_new), S_new, z_new),
        "z sums the keys, not the values: z_new = z + k":
            (q @ S_new / (q @ (z + v)), S_new, z + v),
        "z_new = z + v: z sums the keys, z_new = z + k": (o, S_new, z + v),
    }


def _linear_probe():
    """Nonzero square inputs (d = d_v = 3): (args, their named slips)."""
    rng = np.random.default_rng(_SEED + 3)
    S, q, k = rng.uniform(0.2, 1.0, (3, 3)), *rng.uniform(0.2, 1.5, (2, 3))
    z, v = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    args = (S, z, q, k, v)
    with np.errstate(all="ignore"):
        return args, {**_linear_wrong(*args), **_linear_square_slips(*args)}


def _phi(x):
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))


def _twice_phi(S, z, q, k, v):
    return reference_linear_step(S, z, _phi(q), _phi(k), v)


def _unpack_three(result, name, shapes, names):
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        raise _Fail(f"Your {name} should return three things: ({', '.join(names)}).")
    got = [np.shape(r) if isinstance(r, (np.ndarray, list, tuple, float, int))
           else None for r in result]
    if got != list(shapes) and sorted(map(str, got)) == sorted(map(str, shapes)):
        order = [names[shapes.index(g)] for g in got]
        raise _Fail(f"Your {name} returned ({', '.join(order)}), in the wrong order: "
                    f"return ({', '.join(names)}).")
    out = []
    for value, shape, what in zip(result, shapes, names):
        arr = _as_array(value, f"{what} (what your {name} returns)").astype(float)
        if arr.shape != shape:
            if what == "S_new" and arr.shape == shape[::-1]:
                raise _Fail(f"Your S_new has shape {arr.shape}, expected {shape}: "
                            "the outer product is transposed. The state is "
                            "k^T v, (d_k, 1) @ (1, d_v): np.outer(k, v), keys "
                            "along the rows.")
            raise _Fail(f"Your {what} has shape {arr.shape}, expected {shape}.")
        out.append(arr)
    return out


def _steps(seed, n, d, d_v, positive=True):
    rng = np.random.default_rng(seed)
    Q, K = rng.standard_normal((2, n, d))
    if positive:  # the features phi(q), phi(k) of elu + 1 are all positive
        Q, K = np.where(Q > 0, Q + 1, np.exp(Q)), np.where(K > 0, K + 1, np.exp(K))
    return Q, K, rng.standard_normal((n, d_v))


_IN_PLACE = re.compile(r"changed its input (\w+) in place")


#: What each step exercise's messages suggest: its arguments, a new state
#: written without changing S, and the outer products it needs.
_SHAPES = ("S is (d_k, d_v), k (d_k,), v (d_v,); a read is a row times the "
           "state, {read}, shape (d_v,); a write is an outer product, "
           "np.outer(k, v), shape (d_k, d_v) (for a 1-D row k.T is k itself, "
           "so k.T @ v is a dot product).")
_LINEAR_STEP = {"args": ("S", "z", "q", "k", "v"),
                "S": "S_new = S + np.outer(k, v)", "z": "z_new = z + k",
                "outer": "np.outer(k, v), not np.outer(v, k)",
                "probe": lambda: _linear_probe(),
                "shapes": _SHAPES.format(read="q @ S_new") + " z and k are "
                          "(d_k,); the normaliser q @ z_new is one number."}
_DELTA_STEP = {"args": ("S", "k", "v", "beta", "alpha"),
               "S": "S_new = alpha * (S - beta * np.outer(k, old)) + ...",
               "outer": "np.outer(k, old) to erase and np.outer(k, v) to write, "
                        "not np.outer(old, k) or np.outer(v, k)",
               "probe": lambda: _delta_probe(),
               "shapes": _SHAPES.format(read="old = k @ S")}


def _matches(got, wrong) -> bool:
    """Whether the learner's result ``got`` equals the slip's ``wrong`` (one
    array, or a tuple of arrays), shape and values."""
    try:
        if isinstance(wrong, tuple):
            return (isinstance(got, (tuple, list)) and len(got) == len(wrong)
                    and all(_close(np.asarray(g, float), w)
                            for g, w in zip(got, wrong)))
        return _close(np.asarray(got, float), wrong)
    except Exception:  # the learner's result may be anything
        return False


def _slip(fn, probe):
    """Run ``fn`` on the ``probe()``'s inputs and name the slip it makes
    there (None when it matches none or raises)."""
    args, slips = probe()
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = fn(*args)
    except Exception:  # the learner's code: any error means "no diagnosis"
        return None
    return next((why for why, wrong in slips.items() if _matches(got, wrong)), None)


def _named(fn, got, wrongs, probe):
    """The slip ``got`` matches among ``wrongs``; when it matches several
    (an empty state hides the erase, and z = 0 the normaliser), the one the
    function makes on the ``probe``'s inputs, which hold something."""
    named = [why for why, wrong in wrongs.items() if _matches(got, wrong)]
    if not named:
        return None
    # always ask the probe: at the first token z_new equals k, so a slip can
    # match one name here and be another (q . z_new by z_new . z_new)
    again = _slip(fn, probe)
    if again in named:
        return again
    return named[0] if len(named) == 1 and again is None and not _slip_free(
        fn, probe) else None


def _slip_free(fn, probe) -> bool:
    """Whether ``fn`` runs on the probe's inputs and its result matches no
    named slip (so the one name matched at this step is not its slip)."""
    args, _ = probe()
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            fn(*args)
    except Exception:  # the learner's code: an error tells nothing here
        return False
    return True


def _call_step(fn, name, args, d, d_v, words=_LINEAR_STEP):
    """``_call`` with the step exercise's ``words`` for what can go wrong
    before a result: an input changed in place (``S += ...``); a signature
    without the exercise's arguments; an outer product transposed,
    np.outer(v, k) or np.outer(k @ S, k), which cannot be added to S; and
    any other error of shapes, named by running the function again with
    d = d_v (``words["probe"]``), where ``k.T @ v``, ``S @ k`` or a division
    by the vector z_new run and show which slip they are."""
    try:
        return _call(fn, name, words["args"], *args)[0]
    except _Fail as exc:
        text = str(exc)
        m = _IN_PLACE.search(text)
        if m:
            arg = m.group(1)
            new = words.get(arg, f"a new array instead of changing {arg}")
            raise _Fail(f"Your {name} changed its input {arg} in place (for "
                        f"example with `{arg} += ...`). Work on a new array: "
                        f"`{new}`.") from None
        if f"raised TypeError: {name}() " in text and "argument" in text:
            raise _Fail(f"Your {name} does not take the exercise's arguments "
                        f"({', '.join(words['args'])}), in that order"
                        + (", with alpha=1.0 as in its first line" if "alpha" in
                           words["args"] else "") + ": the checker passes all "
                        f"{len(words['args'])}.") from None
        if "could not be broadcast" in text and any(
                f"({a},{b}) ({b},{a})" in text.replace(" ,", ",")
                for a, b in ((d, d_v), (d_v, d))):
            raise _Fail(f"Your {name} raised ValueError: an outer product is "
                        f"transposed, shape ({d_v}, {d}), and cannot be added to S, "
                        f"({d}, {d_v}). The state is k^T v, keys along the rows: "
                        f"{words['outer']}.") from None
        shapes = any(key in text for key in ("matmul", "could not be broadcast",
                                             "not aligned", "shapes"))
        why = _slip(fn, words["probe"]) if shapes else None
        if why:
            raise _Fail(f"Your {name} raised ValueError: two shapes do not fit. "
                        "Run with d_k = d_v, where the shapes happen to fit, it "
                        f"shows the slip: {why}.") from None
        if shapes:
            raise _Fail(f"Your {name} raised ValueError: two shapes do not fit "
                        f"({'a matrix product' if 'matmul' in text else 'shapes'}"
                        f"). {words['shapes']}") from None
        raise


@_checker("one step of linear attention")
def check_linear_step(fn, name):
    """Check ``fn(S, z, q, k, v) -> (o, S_new, z_new)``: ``q`` and ``k`` are
    features (already through phi), ``S`` (d, d_v), ``z`` (d,); every step
    starts from the right state, and the outputs of a whole sequence must be
    causal linear attention."""
    d, d_v, n = 3, 2, 5
    Q, K, V = _steps(_SEED, n, d, d_v)
    S, z, outs = np.zeros((d, d_v)), np.zeros(d), []
    for t in range(n):
        args = (S, z, Q[t], K[t], V[t])
        result = _call_step(fn, name, args, d, d_v)
        got = _unpack_three(result, name, ((d_v,), (d, d_v), (d,)),
                            ("o", "S_new", "z_new"))
        want = reference_linear_step(*args)
        if all(_close(g, w) for g, w in zip(got, want)):
            S, z = want[1], want[2]
            outs.append(want[0])
            continue
        step = f"At token {t}"
        if any(_nonfinite(g) for g in got):
            raise _Fail(f"{step} your result has NaN or inf: at the first token "
                        "z is still 0, so dividing by q . z before the update "
                        "divides by 0. Write first, then read.")
        with np.errstate(all="ignore"):
            wrongs = _linear_wrong(*args)
        why = _named(fn, got, wrongs, _linear_probe)
        if why:
            raise _Fail(f"{step}: {why}.")
        if _close(got[1], want[1]) and _close(got[2], want[2]):
            with np.errstate(all="ignore"):
                ratio = (args[2] @ want[1]) / got[0]
            if np.all(np.isfinite(ratio)) and np.allclose(ratio, ratio[0], rtol=1e-6):
                raise _Fail(f"{step}: S_new and z_new are right, but the normaliser "
                            f"is not: you divided q @ S_new by {ratio[0]:.4g}, where "
                            f"q @ z_new is {args[2] @ want[2]:.4g}. The normaliser "
                            "is the query's dot product with the updated z, one "
                            "number.")
        for i, what in ((1, "S_new"), (2, "z_new"), (0, "o")):  # the state first
            g, w = got[i], want[i]
            if not _close(g, w):
                raise _Fail(f"{step}: {what} is off by up to {np.abs(g - w).max():.3g}:"
                            " S_new = S + np.outer(k, v), z_new = z + k, o = q @ "
                            "S_new / (q @ z_new).")
    ident = np.array(outs)
    if not _close(ident, linear_attention(Q, K, V, causal=True,
                                          feature_map=lambda x: x)):  # pragma: no cover
        raise _Fail("Step by step your outputs are not causal linear attention.")
    return (f"{name} writes k^T v into the state, then reads; over {n} tokens "
            "it gives exactly linear_attention(..., causal=True).")


# ------------------------------------- stretch: one delta-rule step ---

def reference_delta_step(S, k, v, beta, alpha=1.0):
    """Read what S holds for k, erase a share beta of it, forget by alpha,
    write beta v."""
    old = k @ S
    return alpha * (S - beta * np.outer(k, old)) + beta * np.outer(k, v)


def _delta_wrong(S, k, v, beta, alpha):
    old = k @ S
    return {
        "the sign is wrong: the old value is SUBTRACTED, S - beta k^T (k S), "
        "so that what the key reads becomes the new value":
            alpha * (S + beta * np.outer(k, old)) + beta * np.outer(k, v),
        "the old value was not subtracted: that is linear attention's update, "
        "which adds the new pair to whatever the key already reads":
            alpha * S + beta * np.outer(k, v),
        "beta is missing from the erase: S - beta k^T (k S)":
            alpha * (S - np.outer(k, old)) + beta * np.outer(k, v),
        "beta is missing from the write: + beta k^T v":
            alpha * (S - beta * np.outer(k, old)) + np.outer(k, v),
        "beta is missing: it scales both the erase and the write":
            alpha * (S - np.outer(k, old)) + np.outer(k, v),
        "the gate alpha multiplies only the old state (after the erase), not "
        "the new write: alpha (S - beta k^T (k S)) + beta k^T v":
            alpha * (S - beta * np.outer(k, old) + beta * np.outer(k, v)),
        "the gate alpha is missing: multiply the erased old state by alpha":
            S - beta * np.outer(k, old) + beta * np.outer(k, v),
        "the gate alpha multiplies S but not the erase: alpha (S - beta k^T (k S)) "
        "+ beta k^T v, the whole erased state times alpha":
            alpha * S - beta * np.outer(k, old) + beta * np.outer(k, v),
        "the gate is 1 - alpha: alpha is the share of the old state KEPT, "
        "alpha (S - beta k^T (k S)) + beta k^T v":
            (1 - alpha) * (S - beta * np.outer(k, old)) + beta * np.outer(k, v),
        "beta and alpha are swapped: beta scales the erase and the write, "
        "alpha the old state, alpha (S - beta k^T (k S)) + beta k^T v":
            beta * (S - alpha * np.outer(k, old)) + alpha * np.outer(k, v),
        "you erased np.outer(k, v), the new value: the erase removes what the "
        "key reads now, old = k @ S, then the write adds v":
            alpha * (S - beta * np.outer(k, v)) + beta * np.outer(k, v),
        "you erased a share beta of the whole state: the delta rule erases only "
        "what the key reads, beta k^T (k S)":
            alpha * (S - beta * S) + beta * np.outer(k, v),
        "the old state S itself is missing: you returned only the change; "
        "S_new = alpha * (S - beta * np.outer(k, old)) + beta * np.outer(k, v)":
            alpha * (-beta * np.outer(k, old)) + beta * np.outer(k, v),
    }


def _delta_square_slips(S, k, v, beta, alpha):
    """Slips that raise an error when d_k != d_v and run when d_k == d_v."""
    old = k @ S
    write = beta * np.outer(k, v)
    dot = ("k.T @ v: for a 1-D row k.T is k itself, so that is the dot product "
           "k . v (one number), not the outer product k^T v; write with "
           "np.outer(k, v) and erase with np.outer(k, old)")
    return {
        "S @ k reads the state with the key on the wrong side: what the state "
        "holds for k is old = k @ S, shape (d_v,) (the key is a row, as q is in "
        "q @ S)": alpha * (S - beta * np.outer(k, S @ k)) + write,
        dot: alpha * (S - beta * np.outer(k, old)) + beta * (k @ v),
        dot + " (both times)": alpha * (S - beta * (k @ old)) + beta * (k @ v),
        "the erase k.T @ old is the dot product k . old (one number): erase "
        "the outer product, np.outer(k, old)":
            alpha * (S - beta * (k @ old)) + write,
        "the erase needs what the state holds for k: np.outer(k, k @ S), not "
        "np.outer(k, k)": alpha * (S - beta * np.outer(k, k)) + write,
        "k * v multiplies element by element: the write is the outer product "
        "np.outer(k, v), shape (d_k, d_v)":
            alpha * (S - beta * np.outer(k, old)) + beta * (k * v),
        "k * old multiplies element by element: the erase is the outer "
        "product np.outer(k, old), shape (d_k, d_v)":
            alpha * (S - beta * (k * old)) + write,
    }


def _delta_probe():
    """Nonzero square inputs (d_k = d_v = 3): (args, their named slips)."""
    rng = np.random.default_rng(_SEED + 5)
    k = rng.standard_normal(3)
    args = (rng.standard_normal((3, 3)), k / np.linalg.norm(k),
            rng.standard_normal(3), 0.6, 0.8)
    return args, {**_delta_wrong(*args), **_delta_square_slips(*args)}


@_checker("one step of the delta rule")
def check_delta_step(fn, name):
    """Check ``fn(S, k, v, beta, alpha) -> S_new``: ``S`` (d_k, d_v), ``k``
    (d_k,), ``v`` (d_v,), numbers ``beta`` and ``alpha``; then a whole
    sequence against ``delta_rule``."""
    d, d_v, n = 3, 2, 6
    rng = np.random.default_rng(_SEED + 14)
    K = rng.standard_normal((n, d))
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    V = rng.standard_normal((n, d_v))
    betas, alphas = rng.uniform(0.3, 0.9, n), rng.uniform(0.6, 0.95, n)
    S = np.zeros((d, d_v))
    for t in range(n):
        args = (S, K[t], V[t], float(betas[t]), float(alphas[t]))
        result = _call_step(fn, name, args, d, d_v, words=_DELTA_STEP)
        if isinstance(result, tuple) and len(result) and not np.isscalar(result[0]):
            raise _Fail(f"Your {name} returned {len(result)} things; return S_new "
                        f"alone, one array of shape {(d, d_v)}.")
        got = _as_array(result, f"What your {name} returns").astype(float)
        if got.shape == (d_v, d):
            raise _Fail(f"Your S_new has shape {got.shape}, expected {(d, d_v)}: the "
                        "outer products are transposed; the state is k^T v, "
                        "np.outer(k, v), keys along the rows.")
        if got.shape != (d, d_v):
            raise _Fail(f"Your S_new has shape {got.shape}, expected {(d, d_v)}.")
        want = reference_delta_step(*args)
        if _close(got, want):
            S = want
            continue
        step = f"At token {t} (beta = {betas[t]:.2f}, alpha = {alphas[t]:.2f})"
        if t == 0:
            step += ", starting from S = 0"
        why = _named(fn, got, _delta_wrong(*args), _delta_probe)
        if why:
            raise _Fail(f"{step}: {why}.")
        raise _Fail(f"{step}: S_new is off by up to {np.abs(got - want).max():.3g}: "
                    "old = k @ S; S_new = alpha * (S - beta * np.outer(k, old)) + "
                    "beta * np.outer(k, v).")
    whole = delta_rule(K, K, V, betas, alphas)[1]
    if not _close(S, whole):  # pragma: no cover
        raise _Fail("Step by step your state is not the delta rule's.")
    # the overwrite, in words: the same key twice with beta = 1
    k, v1, v2 = np.array([1.0, 0.0, 0.0]), np.array([2.0, 0.0]), np.array([5.0, 0.0])
    S1 = _as_array(fn(np.zeros((3, 2)), k, v1, 1.0, 1.0), "S").astype(float)
    S2 = _as_array(fn(S1, k, v2, 1.0, 1.0), "S").astype(float)
    return (f"{name} reads, erases and writes; the same key written with 2, then 5, "
            f"reads back {float((k @ S2)[0]):g} (linear attention would read 7).")
