"""Lesson 14: facts in a fixed-size memory, and which ones it gives back.

:func:`memory_explorer` stores "name = room" facts in one of four memories
(softmax attention's KV cache, linear attention, the delta rule, the gated
delta rule) and asks for every name's room. The learner types facts (the
same name twice is an overwrite: the later room is the right answer), sets
N, the number of facts in the context (random readable facts fill up after
the typed ones, and only the first N typed are used; "New random facts"
draws others), picks the memory, and sets beta, the share of the old value
the delta rules replace at each write (learned per token in real models;
the slider is greyed out for the two memories without it).

Left: what the memory holds. For a fixed state, the ``d_k x d_v`` matrix S
(16 x 16, the same size for any N); for softmax attention the cache itself,
one row of key and value per fact (it grows with N). Right: one bar per
name asked, how close the read-back is to the right room's vector (cosine);
a failed recall is marked ``✗`` in its label (with the room it gave and the
right one), a recalled one ``✓``: not by colour alone. A read-back as near
to two rooms as to each other (softmax attention averages a name written
twice; linear attention adds the two rooms) is a tie, no recall:
``✗ Ada → 3 = 9 (tie)``.

Facts are keyed on the text as typed: two names the font cannot draw are
still two names (their drawn labels are made distinct, ``?? (2)``), and the
message says why a name is drawn as ``?``. A piece it cannot read
("Ann=4 Bob=5", a comma missing) is named in the message, never stored.
"""

from __future__ import annotations


import ipywidgets as widgets
import numpy as np

from helpers.world import recall as R
from helpers.widgets.kit import (Explorer, State, clamp_int, display_label,
                                 fit_dropdown, has_glyph)
from helpers.widgets.memory_parts import (D, MAX_N, beta_value, count_of,
                                          fact_labels, fact_vectors, filler,
                                          read_facts, spoken_label, state_words,
                                          undrawn_note)
from helpers.widgets.panels import Bars, FastHeatmap

MAX_BARS = 24  # names shown in the bar panel
GATE = 0.9
MEMORY_OPTIONS = (("softmax attention (KV cache)", "softmax"),
                  ("linear attention, \u03c6 = identity (S = sum of k^T v)", "linear"),
                  ("delta rule", "delta"),
                  (f"gated delta rule (alpha = {GATE:g})", "gated"))
DEFAULT_FACTS = "Ada=3, Ben=7, Cleo=12, Ada=9"
OK, FAIL = ("\u2713", "\u2717") if has_glyph("\u2713") and has_glyph("\u2717") \
    else ("ok", "X")
#: Squared distances closer than this are a tie. Larger than recall's own
#: tolerance: softmax attention gives the other facts' keys weights of about
#: e^-15, which move a name-written-twice's two distances apart by ~1e-7.
TIE_TOL = 1e-6


class _MemoryExplorer(Explorer):
    kind = "memory_explorer"
    figsize = (11.0, 5.2)
    narrates = True

    #: facts: [(name, room)] in the context, in order; memory: its key;
    #: state: what the memory holds ((D, D), or (N, 2 D) for softmax);
    #: answers: {name: (room read back, right room, cosine)}; recalled,
    #: asked: counts; state_numbers: numbers the memory holds
    shows = {"facts": [], "memory_kind": "", "state": None, "answers": {},
             "recalled": 0, "asked": 0, "state_numbers": 0, "beta_used": None}

    def __init__(self, facts, memory, n, seed, beta=1.0):
        self.seed = int(clamp_int(seed, 0, 10**6, 0))
        values = [v for _, v in MEMORY_OPTIONS]
        #: notes on what the call asked for and could not have; kept until
        #: the learner changes that control
        self._start_notes = {}
        if memory not in values:
            self._start_notes["memory"] = (
                f"Unknown memory {display_label(memory, 20)[0]!r}: showing the "
                f"delta rule (one of {', '.join(values)}).")
        n_used = clamp_int(n, 1, MAX_N, 12)
        try:
            n_ok = int(n) == n_used
        except (TypeError, ValueError, OverflowError):
            n_ok = False
        if not n_ok:
            self._start_notes["n"] = (f"N = {display_label(n, 20)[0]} is not a "
                                      f"number from 1 to {MAX_N}: N = {n_used}.")
        beta_used = beta_value(beta)
        if beta_used is None:
            beta_used = 1.0
            self._start_notes["beta"] = (f"beta = {display_label(beta, 20)[0]} is "
                                         "not a number from 0.1 to 1: beta = 1.")
        self.sentence = widgets.Text(value=str(facts), description="Facts:",
                                     layout=widgets.Layout(width="30em"),
                                     style={"description_width": "initial"})
        self.sentence.add_class("attn-sentence")
        self.memory = fit_dropdown(list(MEMORY_OPTIONS), "Memory:",
                                   value=memory if memory in values else "delta")
        self.n = widgets.IntSlider(value=n_used, min=1, max=MAX_N,
                                   description="N facts:",
                                   style={"description_width": "initial"})
        self.beta = widgets.FloatSlider(
            value=beta_used, min=0.1, max=1.0, step=0.1, readout_format=".1f",
            description="\u03b2 (delta rules):",
            tooltip="Share of the old value the delta rule replaces at each write",
            style={"description_width": "initial"})
        for key, w in (("memory", self.memory), ("n", self.n), ("beta", self.beta)):
            w.observe(lambda _, key=key: self._start_notes.pop(key, None),
                      names="value")  # before the explorer's own observer
        self.again = widgets.Button(description="New random facts",
                                    tooltip="Draw other random facts to fill up to N",
                                    layout=widgets.Layout(width="auto"))
        self.again.on_click(self._redraw_random)
        super().__init__([widgets.HBox([self.sentence, self.memory]),
                          widgets.HBox([self.n, self.beta, self.again])])

    def _redraw_random(self, _=None):
        self.seed += 1
        self.refresh()

    def _build(self, art):
        art.heat = FastHeatmap(art, [0.1, 0.14, 0.36, 0.74],
                               cbar_rect=[0.47, 0.14, 0.01, 0.74],
                               clabel="stored number", rows=MAX_N, cols=2 * D)
        art.bars = Bars(art, [0.72, 0.14, 0.25, 0.74], rows=MAX_BARS,
                        xlabel="cosine of read-back and right room", room=0.2)

    def _compute(self):
        typed, notes = read_facts(self.sentence.value)
        n = clamp_int(self.n.value, 1, MAX_N, 12)
        kind = self.memory.value if self.memory.value in dict(
            (v, k) for k, v in MEMORY_OPTIONS) else "delta"
        beta = beta_value(self.beta.value)
        if beta is None:  # e.g. beta.value = nan: the slider cannot show it
            shown = display_label(self.beta.value, 20)[0]
            with self.quietly():
                self.beta.value = 1.0
            notes.append(f"\u03b2 = {shown} is not a number from 0.1 to 1: the "
                         "slider is set to \u03b2 = 1.")
            beta = 1.0
        uses_beta = kind in ("delta", "gated")
        self.beta.disabled = not uses_beta
        facts = list(typed[:n])
        notes[:0] = list(self._start_notes.values())
        if not typed:
            notes.append(("No fact could be read" if str(self.sentence.value).strip()
                          else "No facts typed")
                         + f" (write name=room, separated by commas): {n} random "
                         + ("fact." if n == 1 else "facts."))
        if len(typed) > n:
            notes.append(f"{len(typed)} facts typed: N = {n} uses the first {n}"
                         + (f" (move N up to {min(len(typed), MAX_N)} for more)."
                            if n < MAX_N else f"; N is at most {MAX_N}."))
        facts += filler({f for f, _ in facts}, n - len(facts), self.seed)
        if not facts:  # pragma: no cover - n >= 1 always fills
            return State(empty=True, placeholder="Type facts like Ada=3")
        names, rooms = [f for f, _ in facts], [r for _, r in facts]
        _, K, _ = fact_vectors(names, 1000 + self.seed)
        distinct_rooms, V, room_vec = fact_vectors(rooms, 2000 + self.seed)
        asked = list(dict.fromkeys(names))
        right = {}
        for name, room in facts:
            right[name] = room  # the later fact overwrites
        Q = np.array([K[names.index(a)] for a in asked])
        memory = {"gated": "delta"}.get(kind, kind)
        out, S = R.read_back(memory, K, V, Q, beta=beta,
                             alpha=GATE if kind == "gated" else None)
        table = np.array([room_vec[r] for r in distinct_rooms])
        dist = ((out[:, None, :] - table[None]) ** 2).sum(-1)
        want_i = np.array([distinct_rooms.index(right[a]) for a in asked])
        ok = R._nearest_is(dist, want_i, tol=TIE_TOL)  # a tie is no recall
        norms = np.linalg.norm(out, axis=1)
        answers, ties = {}, {}
        for i, a in enumerate(asked):
            want = room_vec[right[a]]
            cos = float(out[i] @ want / norms[i]) if norms[i] > 1e-12 else 0.0
            near = [r for r, d_ in zip(distinct_rooms, dist[i])
                    if d_ <= dist[i].min() + TIE_TOL]
            if len(near) > 1:
                ties[a] = near
            got = " = ".join(near) if len(near) > 1 else near[0]
            answers[a] = (right[a] if ok[i] else got, right[a], cos)
        hits = int(ok.sum())
        twice = len(names) - len(asked)
        size = S.size
        what = (f"a cache of {S.shape[0]} rows x {2 * D} numbers" if kind == "softmax"
                else f"a state of {D} x {D} = {D * D} numbers")
        notes.insert(0, f"{hits} of {count_of(len(asked), 'name')} recalled from "
                     f"{count_of(len(facts), 'fact')}; the memory holds {what}"
                     + (f" ({size:,} numbers)." if kind == "softmax" else ".")
                     + ((" 1 fact repeats a name" if twice == 1 else
                         f" {twice} facts repeat a name")
                        + ": the later room is right." if twice else ""))
        lab = fact_labels(names + rooms)
        notes += undrawn_note(names + rooms)
        if ties:
            notes.insert(1, "A tie is no recall: " + "; ".join(
                f"{lab[a]} reads back as near to room " + " as to room ".join(
                    lab[r] for r in near) for a, near in list(ties.items())[:3])
                + (f"; and {len(ties) - 3} more" if len(ties) > 3 else "") + ".")
        if len(asked) > MAX_BARS:
            notes.append(f"Showing the first {MAX_BARS} of {len(asked)} names.")
        # tokens: the rows of the grid drawn (a state's key dimensions, or
        # the cache's facts); the names asked are the keys of .answers
        rows = names if kind == "softmax" else [str(i) for i in range(D)]
        return State(tokens=rows, weights=np.asarray(S, dtype=float), notes=notes,
                     facts=facts, memory_kind=kind, state=S, answers=answers,
                     recalled=hits, asked=len(asked), state_numbers=size,
                     beta_used=beta if uses_beta else None,
                     _names=names, _n=len(facts), _ties=ties, _lab=lab)

    def _paint(self, art, s):
        S = np.asarray(s.state, dtype=float)
        lim = max(1.0, float(np.abs(S).max()))
        lim = float(np.ceil(lim))
        if s.memory_kind == "softmax":
            rows, cols = [s._lab[a] for a in s._names], [f"k{j}" for j in range(D)] + \
                [f"v{j}" for j in range(D)]
            title = f"the KV cache: {S.shape[0]} rows of key | value (grows with N)"
            xl, yl = "key numbers | value numbers", "fact"
        else:
            rows, cols = [str(i) for i in range(D)], [str(j) for j in range(D)]
            title = f"the state S: {D} x {D} numbers, whatever N"
            xl, yl = "value dimension", "key dimension"
        rows = [r if i % max(1, len(rows) // 16) == 0 else ""
                for i, r in enumerate(rows)]
        k1 = art.heat.update(S, rows, cols, title=title, xlabel=xl, ylabel=yl,
                             vmin=-lim, vmax=lim)
        shown = list(s.answers.items())[:MAX_BARS]
        labels = [self._bar_label(s, a, g, w) for a, (g, w, _) in shown]
        values = [c for _, (_, _, c) in shown]
        k2 = art.bars.update(values, labels, title=f"recalled {s.recalled} of "
                             f"{s.asked} ({FAIL} = failed)", xlim=(-1.0, 1.0))
        return ("memory", s.memory_kind, S.shape, lim) + tuple(k1 or ()) + \
            tuple(k2 or ())

    @staticmethod
    def _bar_label(s, a, g, w):
        lab = s._lab
        if a in s._ties:  # "✗ Ada → 3 = 9 (tie)"
            return (f"{FAIL} {lab[a]} \u2192 "
                    + " = ".join(lab[r] for r in s._ties[a]) + " (tie)")
        if g == w:
            return f"{OK} {lab[a]} \u2192 {lab[g]}"
        return f"{FAIL} {lab[a]} \u2192 {lab[g]} (is {lab[w]})"

    def _csv_table(self):
        """For ``save``: the grid drawn, and beside it each name's answer."""
        return super()._csv_table(beside=(
            ["name", "room read back", "right room", "cosine"],
            [[a, g, w, round(c, 6)] for a, (g, w, c) in self.answers.items()]))

    def _picture_name(self):
        return "Memory explorer"

    def _describe(self, s):
        name = dict((v, k) for k, v in MEMORY_OPTIONS)[s.memory_kind]
        if s.beta_used is not None:
            name += f", \u03b2 = {s.beta_used:.1f},"
        held = (f"a cache of {s.state.shape[0]} rows × {2 * D} numbers" if
                s.memory_kind == "softmax" else
                f"a state of {D} × {D} numbers")
        lab = {t: spoken_label(t, label) for t, label in s._lab.items()}
        failed = [(f"{lab[a]} gave a tie, room "
                   + " = room ".join(lab[r] for r in s._ties[a]) + f", not {lab[w]}")
                  if a in s._ties else f"{lab[a]} gave {lab[g]} instead of {lab[w]}"
                  for a, (g, w, _) in s.answers.items() if g != w]
        text = (f"{self._picture_name()}: {name} holds {held} for {s._n} facts. "
                f"Recalled {s.recalled} of {s.asked} names")
        if failed:
            text += (f"; failed ({FAIL}): " + "; ".join(failed[:8])
                     + (f"; and {len(failed) - 8} more" if len(failed) > 8 else ""))
        return text + ". " + state_words(s)

    def _headline(self, s):  # what the live region says (widgets.hearing)
        return s.placeholder if s.empty else f"Recalled {s.recalled} of {s.asked} names"

    def _summary(self):
        s = self._state
        return ("<memory_explorer>" if s is None else
                f"<memory_explorer: {s.memory_kind}, N={s._n}, recalled "
                f"{s.recalled} of {s.asked}>")


def memory_explorer(facts=DEFAULT_FACTS, memory="delta", n=12, seed=0, beta=1.0):
    """Lesson 14: store "name=room" facts in a memory and ask for every name.

    ``.sentence`` is the text box labelled "Facts:" (the facts as typed, one
    string: every explorer's text box has this name); ``.memory``
    ("softmax", "linear", "delta", "gated"); ``.n`` (facts in the context,
    1-64; random facts fill up after the typed ones; only the first N typed
    are used); ``.beta`` (the delta rules' beta, 0.1-1; a value the slider
    cannot show, such as nan, is set back to 1 and said) and the button "New
    random facts". Read-outs: ``.facts``, the context as a list of (name,
    room) pairs (not the text); ``.state``, what the memory holds;
    ``.answers`` {name: (room read back, right room, cosine)};
    ``.recalled`` of ``.asked``.
    """
    return _MemoryExplorer(facts, memory, n, seed, beta)
