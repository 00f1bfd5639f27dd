"""The input widgets explorers share: text boxes, dropdowns sized to their
options, and the token picker that follows the sentence."""

from __future__ import annotations

import ipywidgets as widgets

from helpers.world import lexicon
from helpers.widgets.engine import display_label


def text_width(n_chars: int, pad: float = 3.0) -> str:
    """A CSS width for a control showing ``n_chars`` characters: about 0.62 em
    a character, plus ``pad`` em for padding (and a dropdown's arrow)."""
    return f"{0.62 * n_chars + pad:.1f}em"


def fit_dropdown(options, description="", **kwargs):
    """A ``Dropdown`` wide enough for its description and its longest option
    (no "laye" for "layer 0"): the description takes its own width, the box
    about 0.62 em per character of the longest option plus 3 em for the
    arrow and padding. ``options`` as for ``widgets.Dropdown``."""
    texts = [o[0] if isinstance(o, tuple) else o for o in options]
    longest = max((len(str(t)) for t in texts), default=0)
    return widgets.Dropdown(options=options, description=description,
                            layout=widgets.Layout(width=text_width(
                                len(description) + longest, pad=4.0)),
                            style={"description_width": "initial"}, **kwargs)


def text_box(value, description="Sentence:", width="34em"):
    return widgets.Text(value=value, description=description,
                        layout=widgets.Layout(width=width),
                        style={"description_width": "initial"})


def sentence_box(value, description="Sentence:"):
    """The explorer's main text box (DOM class ``attn-sentence``)."""
    box = text_box(value, description)
    box.add_class("attn-sentence")
    return box


def _default_index(tokens) -> int:
    """The token an explorer picks when the learner has not chosen one: the
    first ambiguous word (bank, mole), else the first noun, else the last."""
    ambiguous = lexicon.ambiguous_words()
    for i, t in enumerate(tokens):
        if t in ambiguous:
            return i
    try:
        table = lexicon.load_lexicon()
        for i, t in enumerate(tokens):
            if t in table and table.info(t).get("pos") == "noun":
                return i
    except Exception:
        pass
    return max(len(tokens) - 1, 0)


class TokenPicker:
    """Keeps a ``Dropdown`` of token positions in step with the sentence."""

    def __init__(self, description="Token:"):
        self.widget = widgets.Dropdown(options=[], description=description,
                                       layout=widgets.Layout(width="16em"),
                                       style={"description_width": "initial"})
        self._tokens = []

    def sync(self, explorer, tokens):
        """Offer the tokens; keep the chosen word if it is still there.
        Returns the chosen index (None when there are no tokens)."""
        dd = self.widget
        old_tokens, old = self._tokens, dd.value
        if not tokens:
            choice = None
        elif old is not None and old < len(tokens) and (
            not old_tokens or (old < len(old_tokens) and old_tokens[old] == tokens[old])
            or old_tokens == tokens
        ):
            choice = old
        elif old is not None and old < len(old_tokens) and old_tokens[old] in tokens:
            choice = tokens.index(old_tokens[old])
        else:
            choice = _default_index(tokens)
        options = [(f"{i}: {display_label(t)[0]}", i) for i, t in enumerate(tokens)]
        with explorer.quietly():
            if list(dd.options) != options:
                dd.options = options
            if dd.value != choice:
                dd.value = choice
        self._tokens = list(tokens)
        return choice


def choose_token(explorer, token):
    """Select a token given as an index or as a word (first occurrence)."""
    if token is None or not explorer.tokens:
        return
    if isinstance(token, str):
        word = token.lower()
        index = explorer.tokens.index(word) if word in explorer.tokens else None
    else:
        index = min(max(int(token), 0), len(explorer.tokens) - 1)
    if index is not None:
        explorer.token.value = index
