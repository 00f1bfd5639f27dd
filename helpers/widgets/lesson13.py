"""Lesson 13: watch a head copy, and what happens without it.

:func:`induction_explorer` runs lesson 13's small attention-only model
(``data/induction/``) on the words in the box. The model knows 127 words
(``.vocabulary``, also listed under the picture); the box takes any text:
words it does not know are left out, counted and named in the message. A
button writes a new random sequence repeated twice, after 20 random words
(where the trained induction head is a textbook one). The picture shows

* the chosen head's pattern (rows are queries, columns keys, the masked
  future grey); wherever a query's word occurred before, the key right after
  that earlier occurrence is framed: where an induction head would look;
* the loss on every token, with the model whole and with the chosen head
  ablated (its output set to zero);
* the most likely next words after the last word, with and without that
  head (whole: plain near-black; ablated: hatched orange, in both panels;
  the colours of lesson 13's one scheme, ``inductionplots.SCHEME``).

Typed words are looked up lowercased, without punctuation. The model was
trained on 64-token texts; past about position 55 its layer-0 head learned
to stop looking one back, so a word whose earlier occurrence sits at or
after 55 is not copied: the message says so, and the loss panel shades the
words it predicts for them (``induction_parts``).
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from helpers.figures.inductionplots import SCHEME
from helpers.widgets.kit import Explorer, State, display_label, fit_dropdown, text_width
from helpers.widgets import induction_parts as parts
from helpers.widgets.panels import Bars, FastHeatmap
from helpers.widgets.policy import WEIGHT_SCALE

MAX_SHOWN = 32  # tokens drawn (the model reads up to its context)
TOP_SHOWN = 5  # next words in the bar panel
BOS_LABEL = "\u27e8bos\u27e9"  # ⟨bos⟩
SEEN_COLOUR = "#d62728"  # a query label whose word came before
WHOLE, ABLATED = SCHEME["whole model"]["color"], SCHEME["ablated"]["color"]
HOLDS = parts.HOLDS
random_text = parts.random_text


class _InductionExplorer(Explorer):
    kind = "induction_explorer"
    guess_first = True  # "Guess first", then Reveal (guess.py)
    figsize = (11.0, 4.8)

    #: run: the model's Run of the whole text; loss: (n - 1,) nats, intact;
    #: loss_ablated: the same with the chosen head ablated; top: [(word,
    #: p intact, p ablated), ...] after the last word; stripe: (n_shown,) key
    #: of the induction stripe per shown query (-1: none); unknown: the words
    #: left out
    shows = {"run": None, "loss": None, "loss_ablated": None, "top": (),
             "stripe": None, "unknown": (), "late": ()}

    def __init__(self, text, head):
        from helpers.analysis import induction

        self.model, self.unavailable = parts.shared_model()
        self.induction_head, self.previous_heads = induction.copying_heads()
        n_layers = self.model.n_layers if self.model is not None else 2
        n_heads = self.model.n_heads if self.model is not None else 4
        self._clicks = 0
        if text is None:
            text = random_text(self.model, 13) if self.model is not None else ""
        self.text = widgets.Textarea(value=str(text), description="Words:", rows=2,
                                     layout=widgets.Layout(width="46em"),
                                     style={"description_width": "initial"})
        self.text.add_class("attn-sentence")
        self.sentence = self.text
        options = []
        for la in range(n_layers):
            for hd in range(n_heads):
                name = f"layer {la} head {hd}"
                if (la, hd) == self.induction_head:
                    name += " (copies most)"
                elif (la, hd) in self.previous_heads:
                    name += " (previous token)"
                options.append((name, (la, hd)))
        values = [v for _, v in options]
        if head is None or tuple(head) not in values:
            head = self.induction_head if self.induction_head in values else values[0]
        self.head = fit_dropdown(options, "Head:", value=tuple(head))
        label = "New random repeat"
        self.new = widgets.Button(description=label,
                                  layout=widgets.Layout(width=text_width(len(label))))
        self.new.add_class("attn-generate")
        self.new.on_click(self._on_new)
        words = ", ".join(html.escape(w) for w in self.vocabulary)
        self.words = widgets.HTML(
            value=f"<details><summary>The model's {len(self.vocabulary)} words "
                  f"(any other word is left out)</summary><p style='max-width:60em'>"
                  f"{words}</p></details>",
            description="Vocabulary:", style={"description_width": "initial"})
        super().__init__([self.text, widgets.HBox([self.head, self.new])])
        self.children = (*self.children, self.words)

    @property
    def vocabulary(self) -> list[str]:
        """The words the model knows (``<|endoftext|>`` left out), sorted."""
        if self.model is None:
            return []
        return sorted(self.model.piece(i) for i in range(1, self.model.vocab_size))

    # -- drawing -----------------------------------------------------------
    def _build(self, art):
        art.heat = FastHeatmap(art, [0.085, 0.17, 0.37, 0.71],
                               cbar_rect=[0.465, 0.17, 0.01, 0.71],
                               rows=MAX_SHOWN, cols=MAX_SHOWN)
        # a white frame on a black one: >= 3:1 against any cell of the map
        art.frames_under = art.add(PatchCollection([], facecolor="none",
                                                   edgecolor="black", linewidth=2.6))
        art.frames = art.add(PatchCollection([], facecolor="none",
                                             edgecolor="white", linewidth=1.0))
        art.heat.ax.add_collection(art.frames_under)
        art.heat.ax.add_collection(art.frames)
        art.key = art.text(0.01, 0.985, ha="left", va="top", fontsize=8, s=(
            "Red query label: its word came before. Framed (white on black): the "
            "key after that earlier occurrence, where an induction head looks."))
        art.loss_ax = la = art.fig.add_axes([0.58, 0.56, 0.4, 0.27])
        la.set_ylabel("loss (nats)", fontsize=9)
        la.tick_params(labelsize=8)
        la.set_xlabel("position of the predicted word", fontsize=9)
        art.line = art.add(Line2D([], [], color=WHOLE, marker=".", lw=1.4))
        art.line_ablated = art.add(Line2D([], [], color=ABLATED, marker="x", ms=3,
                                          lw=1.2, ls="--"))
        la.add_line(art.line)
        la.add_line(art.line_ablated)
        art.beyond = art.add(la.axvspan(HOLDS + 0.5, HOLDS + 1.0, facecolor="none",
                                        edgecolor="0.6", hatch="..", lw=0,
                                        zorder=0))
        art.beyond_text = art.text(0, 0.97, ax=la, ha="left", va="top", fontsize=7,
                                   transform=la.get_xaxis_transform(),
                                   s="", color="0.2")
        art.loss_title = art.text(0.5, 1.22, ax=la, ha="center", va="bottom",
                                  fontsize=10)
        art.bars = Bars(art, [0.7, 0.12, 0.26, 0.27], rows=TOP_SHOWN, series=2,
                        colours=(WHOLE, ABLATED), xlabel="probability", room=0.12,
                        title_size=10)
        for r in art.bars.bars[1]:  # ablated: hatched, not by colour alone
            r.set_facecolor(ABLATED)
            r.set_edgecolor("black")
            r.set_linewidth(0.5)
            r.set_hatch("////")
            r._attn_colour = ABLATED  # Bars.update keeps this black edge
        bar_whole = Rectangle((0, 0), 1, 1, facecolor=WHOLE)
        bar_cut = Rectangle((0, 0), 1, 1, facecolor=ABLATED, hatch="////",
                            edgecolor="black")
        la.legend([(art.line, bar_whole), (art.line_ablated, bar_cut)],
                  ["whole model", "this head ablated"], ncol=2, fontsize=8,
                  loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False,
                  handler_map={tuple: HandlerTuple(ndivide=None, pad=0.6)})

    def _compute(self):
        from helpers.analysis import induction

        head = tuple(self.head.value)
        if self.model is None:
            return State(empty=True, placeholder="Lesson 13's model is not available",
                         notes=[self.unavailable])
        text = "" if self.text.value is None else str(self.text.value)
        ids, unknown, typed = parts.read_words(self.model, text)
        notes = []
        if unknown:
            notes.append(parts.unknown_note(unknown, typed, len(self.vocabulary)))
        cap = self.model.context
        if len(ids) > cap:
            notes.append(f"The model reads at most {cap} tokens: the first "
                         f"{len(ids) - cap} words were cut.")
            ids = np.concatenate([[0], ids[len(ids) - cap + 1 :]])
        if len(ids) < 2:
            notes.append("Type some words (or press New random repeat): the model "
                         "predicts each next word.")
            return State(empty=True, placeholder="Type a few words", notes=notes,
                         unknown=unknown)
        run = self.model.run(ids)
        cut = self.model.run(ids, ablate={head})
        loss, loss_ab = run.loss_per_position(), cut.loss_per_position()
        p, p_ab = run.probs(), cut.probs()
        order = np.argsort(-p, kind="stable")[:TOP_SHOWN]
        top = [(self.model.piece(i), float(p[i]), float(p_ab[i])) for i in order]
        n = len(ids)
        shown = min(n, MAX_SHOWN)
        lo = n - shown
        # the pattern shows the last MAX_SHOWN tokens: its title and alt say
        # which positions (no note: the default picture is clean)
        late = parts.late_copies(ids)
        if len(late):
            notes.append(parts.late_note(late))
        stripe = induction.stripe_keys(ids)[lo:] - lo
        stripe[stripe < 0] = -1
        tokens = [self.model.piece(i) for i in ids[lo:]]
        labels = [BOS_LABEL if t == "<|endoftext|>" else display_label(t)[0]
                  for t in tokens]
        A = run.attention[head[0], head[1], lo:, lo:]
        return State(tokens=tokens, labels=labels, weights=A, notes=notes, run=run,
                     loss=loss, loss_ablated=loss_ab, top=top, stripe=stripe,
                     unknown=unknown, late=late, _head=head, _lo=lo)

    def _paint(self, art, s):
        data = np.array(s.weights, dtype=float)
        data[np.triu(np.ones(data.shape, dtype=bool), k=1)] = np.nan
        repeat = [SEEN_COLOUR if k >= 0 else "black" for k in s.stripe]
        la, hd = s._head
        where = (f", positions {s._lo}-{s._lo + len(s.labels) - 1}" if s._lo
                 else "")
        art.heat.update(data, s.labels, s.labels, xlabel="key", ylabel="query",
                        title=f"layer {la} head {hd} (rows = queries{where})",
                        row_colours=repeat, **WEIGHT_SCALE)
        frames = [Rectangle((k - 0.5, q - 0.5), 1, 1)
                  for q, k in enumerate(s.stripe) if k >= 0]
        art.frames_under.set_paths(frames)
        art.frames.set_paths(frames)
        n = len(s.loss)
        x = np.arange(1, n + 1)
        art.line.set_data(x, s.loss)
        art.line_ablated.set_data(x, s.loss_ablated)
        art.loss_ax.set_xlim(0.5, n + 0.5)
        art.loss_ax.set_ylim(0, 10.0)
        past = len(s.late) > 0  # words whose earlier occurrence is at/after 55
        art.beyond.set_visible(past)
        art.beyond_text.set_visible(past)
        if past:  # x = the predicted word's position: query + 1
            x0, x1 = s.late[0] + 0.5, min(s.late[-1] + 1.5, n + 0.5)
            art.beyond.set_x(x0)
            art.beyond.set_width(x1 - x0)
            right = x0 > 0.55 * n  # the label inside the axes, never clipped
            art.beyond_text.set_x(x1 if right else x0)
            art.beyond_text.set_ha("right" if right else "left")
            art.beyond_text.set_text(f"copies of words at {HOLDS}+ " if right
                                     else f" copies of words at {HOLDS}+")
        text = "loss on each word"
        if n >= 2:
            text += (f": mean {np.mean(s.loss[1:]):.2f}, "
                     f"{np.mean(s.loss_ablated[1:]):.2f} ablated")
        art.loss_title.set_text(text)
        last = s.labels[-1]
        art.bars.update(np.array([[p for _, p, _ in s.top], [q for _, _, q in s.top]]),
                        [display_label(w)[0] for w, _, _ in s.top],
                        title=f"next word after '{last}': whole (upper), ablated",
                        fmt="{:.2f}")
        return ("induction", n)

    def _picture_name(self) -> str:
        return "Lesson 13 explorer"

    def _describe(self, s) -> str:
        """Which query rows find their word earlier, the head's weight on the
        key after that occurrence, the loss whole and ablated, the next word,
        and which copies lean on positions past the previous-token head."""
        return parts.describe(s, self._picture_name())

    # -- the button ----------------------------------------------------------
    def _on_new(self, button=None):
        if self.model is None:
            self._set_message(self.unavailable)
            return
        try:
            self._clicks += 1
            self.text.value = random_text(self.model, 13 + self._clicks)
        except Exception as exc:  # never escape a widget callback
            self.last_error = exc
            self._set_message(f"Could not make a sequence ({type(exc).__name__}).")


def induction_explorer(text=None, head=None):
    """Lesson 13: a copying head at work, and the model without it.

    ``.text`` (also ``.sentence``) holds the words; ``.head`` picks the head
    drawn and ablated, ``(layer, head)`` (by default the layer-1 head whose
    ablation costs most, from ``data/induction/report.json``); ``.new``
    writes a random repeated sequence. Shows ``.weights`` (the head's pattern
    on the last ``MAX_SHOWN`` tokens), ``.loss`` and ``.loss_ablated``
    (every token's loss, whole and without the head), ``.top`` (the next
    words with both probabilities), ``.stripe`` (per query, the key an
    induction head would look at) and ``.unknown`` (the words left out);
    ``.vocabulary`` lists the 127 words the model knows (also shown under
    the picture, in ``.words``).
    """
    return _InductionExplorer(text, head)
