"""How large an explorer is shown: its picture at its own pixels, its
controls and message line, and the stylesheet each explorer carries
(messages that wrap, focus outlines, controls that grow in projection
mode). Used by ``helpers.widgets.base.Explorer``."""

from __future__ import annotations

import ipywidgets as widgets

from helpers.figures import style
from helpers.widgets.access import FOCUS_CSS


#: A Label cuts a long line with an ellipsis ("... the last picture i…"); this
#: stylesheet (fixed text, no user input in it) lets the message line wrap.
#: Each explorer carries its own copy, so it wraps wherever it is shown.
#: It also scales the controls of an explorer in projection mode (DOM class
#: ``attn-projector``, ``helpers.figures.style.projector()``) with its picture: the
#: ipywidgets sizes (font, line height, widths, slider handle) are CSS
#: variables, the same in ipywidgets 7.7 and 8, and widths given in em follow
#: the font.
def _projector_css(scale):
    px = lambda v: f"{v * scale:.1f}px"  # noqa: E731
    sel = ".attn-projector"
    return (f"{sel} {{ --jp-widgets-font-size: {px(13)}; "
            f"--jp-widgets-inline-height: {px(28)}; "
            f"--jp-widgets-inline-label-width: {px(80)}; "
            f"--jp-widgets-inline-width: {px(300)}; "
            f"--jp-widgets-inline-width-short: {px(148)}; "
            f"--jp-widgets-inline-width-tiny: {px(48)}; "
            f"--jp-widgets-slider-handle-size: {px(16)}; "
            f"--jp-widgets-slider-track-thickness: {px(4)}; "
            f"font-size: {px(13)}; }}"
            f" {sel} .widget-label, {sel} .widget-readout, {sel} input,"
            f" {sel} select, {sel} textarea, {sel} button, {sel} .widget-html-content"
            f" {{ font-size: {px(13)} !important; }}"
            f" {sel} .widget-label, {sel} .widget-readout"
            f" {{ line-height: {px(28)} !important; }}"
            # a short screen (a 720p projector): text boxes of several lines
            # show two, and scroll, so that the picture keeps its room
            f" @media (max-height: 820px) {{ {sel} textarea"
            f" {{ max-height: {px(13 * 1.2 * 2 + 10)} !important; }} }}")


MESSAGE_STYLE = ("<style>.widget-label.attn-message { white-space: normal !important;"
                 " overflow: visible !important; text-overflow: clip !important;"
                 " height: auto !important; line-height: 1.4 !important;"
                 " word-break: normal !important; overflow-wrap: normal !important; }"
                 + FOCUS_CSS + _projector_css(style.PROJECTOR.scale) + "</style>")


def picture_layout():
    """The layout of an explorer's picture: shown at its own pixel size,
    never stretched to the cell's width (an ipywidgets box is a flex column
    that stretches its children), only scaled down to the cell's width."""
    return widgets.Layout(width="auto", height="auto", max_width="100%",
                          align_self="flex-start", object_fit="contain",
                          object_position="left top")


def controls_height(controls) -> float:
    """About how many pixels high ``controls`` are drawn at the normal sizes
    (ipywidgets: a row of inputs is 28 px and 4 px of margins; a text area
    about 17 px a line): rows of a VBox add up, an HBox is as high as its
    highest child. An estimate, checked in the browser test."""
    total = 0.0
    for w in controls:
        if isinstance(w, widgets.HBox):
            total += max([controls_height([c]) for c in w.children] or [0.0])
        elif isinstance(w, widgets.Box):
            total += controls_height(w.children)
        elif isinstance(w, widgets.Textarea):
            total += 17.0 * (w.rows or 2) + 14.0
        elif isinstance(w, widgets.HTML):  # a stylesheet takes no room
            if not w.value.lstrip().startswith("<style"):
                text = w.value
                lines = 1 + sum(text.count(tag) for tag in ("\n", "<br", "<tr",
                                                            "<li", "<p"))
                total += 18.0 * lines + 8.0
        else:
            total += 32.0
    return total


def png_size(png):
    """(width, height) of PNG bytes, or None."""
    png = bytes(png or b"")
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
