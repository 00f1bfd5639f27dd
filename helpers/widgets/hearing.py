"""What a screen reader hears when an explorer changes.

Every change a learner makes is announced once, briefly, in the explorer's
live region (``helpers.widgets.access``: a polite ``role="status"`` region
beside the message line): what changed and the new headline number, e.g.
"Target word: bank. 'bank' now looks most at 'river', 0.57." The picture's
alt text holds the full description; the announcement does not repeat it,
and the alt sent to the page does not repeat the message line (which is a
live region too).

A training panel (lessons 09 and 13) announces its start, each quarter of
its steps and its end (:func:`watch_training`).
"""

from __future__ import annotations

import numpy as np

from helpers.figures import alt as alt_text


def control_name(change) -> str:
    """The control a change came from, with its new value, in words:
    "Temperature: 0.5", "Target word: bank", "sentence" for a text box
    ("" when unknown)."""
    if not change:
        return ""
    owner = change.get("owner") if isinstance(change, dict) else getattr(
        change, "owner", None)
    new = change.get("new") if isinstance(change, dict) else getattr(
        change, "new", None)
    name = str(getattr(owner, "description", "") or "").rstrip(": ").strip()
    if isinstance(new, str) and len(new) > 30 or type(owner).__name__ in (
            "Text", "Textarea"):
        return f"{name or 'Text'} changed"
    label = getattr(owner, "label", None)  # a dropdown: the option's words
    if isinstance(label, str) and label:
        new = label.split(": ", 1)[1] if label.split(": ", 1)[0].isdigit() \
            and ": " in label else label
    if isinstance(new, float):
        new = alt_text.number(round(new, 6))
    if isinstance(new, str):
        new = alt_text.spoken(new)
    return f"{name}: {new}" if name else f"now {new}"


def _query(explorer, tokens):
    """The query row the explorer is about (its target or chosen token), or
    None."""
    for name in ("target", "query", "selected"):
        value = getattr(explorer, name, None)
        if isinstance(value, (int, np.integer)) and 0 <= value < len(tokens):
            return int(value)
    return None


def headline(explorer, state) -> str:
    """The new headline number of ``state``: where the explorer's query
    looks ("'bank' now looks most at 'river', 0.57"), else the grid's
    strongest cell; flat rows and ties said as such (never over-claiming)."""
    if state is None or getattr(state, "empty", False):
        return getattr(state, "placeholder", "") or "Nothing to show"
    W = np.asarray(getattr(state, "weights", np.zeros((0, 0))), dtype=float)
    tokens = list(getattr(state, "tokens", []))
    keys = list(getattr(state, "source_tokens", None) or tokens)
    if W.ndim == 3 and W.size:  # several heads: the first
        W = W[0]
    i = _query(explorer, tokens)
    if W.ndim == 1 and W.size:
        row, who = W, alt_text.token_name(tokens, i) if i is not None else "The row"
    elif W.ndim == 2 and W.size:
        lead = ""
        if i is None or i >= W.shape[0]:  # no query chosen: the strongest cell
            shown = np.where(np.isfinite(W), W, -np.inf)
            if not np.isfinite(shown).any():
                return "No cells"
            i = int(np.unravel_index(int(np.argmax(shown)), W.shape)[0])
            lead = "Strongest: "
        row, who = W[i], lead + alt_text.token_name(tokens, i)
    else:
        return ""
    best = alt_text.strongest(row, keys)
    if best.startswith("spread out"):
        return f"{who} now spreads its weight out, all near " + \
            best.split("all near ")[1].split(" (")[0]
    if " tie at " in best:
        names, value = best.rsplit(" tie at ", 1)
        return f"{who} now looks equally at {names}, {value} each"
    label, _, value = best.rpartition(" ")
    return f"{who} now looks most at {label}, {value}"


def announcement(explorer, state, change) -> str:
    """One short sentence for the live region after ``change`` (an ipywidgets
    change dict; None at the first picture: nothing is announced then).
    An explorer may give its own headline with ``_headline(state)``."""
    if change is None:
        return ""
    own = getattr(explorer, "_headline", None)
    try:
        line = own(state) if own is not None else headline(explorer, state)
    except Exception:  # the announcement must never break a redraw
        line = ""
    what = control_name(change)
    text = ". ".join(t.rstrip(".") for t in (what, line) if t)
    return alt_text.clip(text + "." if text else "", 240)


def heard(explorer, state, described: str) -> None:
    """After an explorer draws: ``.announcement`` for the change that led
    here (cleared, so a redraw alone says nothing new), and what its page
    hears, the alt without the message line (a live region of its own)."""
    explorer.announcement = announcement(
        explorer, state, getattr(explorer, "_last_change", None))
    explorer._last_change = None
    access = getattr(explorer, "access", None)
    if access is not None:
        # a guess or a picked query is what the picture now says, not a passing
        # message: the page's alt carries it (guess.py, pointer.py)
        asked = (getattr(explorer, "guessing", False) or getattr(explorer, "revealed",
                                                               False)
                 or getattr(explorer, "picked", None) is not None)
        access.alt = (explorer.alt if asked and explorer.message else described)
        if explorer.announcement:
            access.announce = explorer.announcement


def watch_training(monitor) -> None:
    """Announce a training panel's progress: ``monitor.access.progress``
    follows its bar (the progress bar's ARIA values), and its live region
    says when training starts, at each quarter, and when it ends, with the
    numbers its label shows."""
    access, bar = getattr(monitor, "access", None), monitor.bar
    if access is None:
        return
    said = set()

    def follow(change=None):
        step, total = int(bar.value), max(int(bar.max), 1)
        if step == 0:  # not started, or a new run: say it all again
            said.clear()
        quarter = min(4, 4 * step // total)
        if step > 0 and quarter not in said:
            said.add(quarter)
            label = str(getattr(monitor.label, "value", "") or "")
            if quarter == 4:
                access.announce = (f"Training finished: step {step} of {total}"
                                   + (f", {label}" if label else "") + ".")
            elif quarter == 0:
                access.announce = f"Training started: {total} steps."
            else:
                access.announce = (f"Training {25 * quarter}% done: step {step} "
                                   f"of {total}" + (f", {label}" if label else "")
                                   + ".")

    def progress(change=None):
        access.progress = [int(bar.value), max(int(bar.max), 1)]

    # the monitors set the bar, then the label: the label's change speaks,
    # so the announcement carries the new step's numbers
    bar.observe(progress, names=["value", "max"])
    monitor.label.observe(follow, names="value")
    progress()
