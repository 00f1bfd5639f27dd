"""Screen fitting: how large an explorer's picture is shown on the screen it is on.

:class:`ScreenFit` is a mixin of :class:`helpers.widgets.base.Explorer`; an
explorer gets all of it by inheriting, nothing to call. The rule (issue 39,
numbers in :mod:`helpers.figures.style`): the picture is shown at its own pixels,
scaled down only where the explorer would be taller than the window's
notebook area; in projection mode, and on a page that asked for it
(:meth:`ScreenFit.fit_screen`, the playground), the picture is drawn for the
room the front end measures (``access.room``, :mod:`helpers.widgets.access`).

Its state, every attribute set in :meth:`ScreenFit._init_screen`:

* ``chrome_px``: the window's pixels taken by the bars around the notebook;
* ``_controls_px``: the height of the controls at the normal sizes;
* ``_room_px``: the picture's room as the front end measured it (None: not
  measured, or back at the normal sizes);
* ``_screen_dpi``: the resolution drawn for that room (None: the sizes');
* ``_for_screen``: the page asked to draw for the screen (``fit_screen``);
* ``_growing``: the controls whose height may change (HTML, text areas;
  their heights are part of the key below);
* ``_fitted``: what the last fit was made for; the fit is skipped while
  that stays the same (it runs on every update, that is every keystroke).
"""

from __future__ import annotations

import ipywidgets as widgets

from helpers.figures import style
from helpers.widgets.sizing import controls_height, png_size


def _growing(controls):
    """The widgets in ``controls`` whose drawn height may change: HTML
    (its text) and text areas (their rows)."""
    found = []
    for w in controls:
        if isinstance(w, widgets.Box):
            found += _growing(w.children)
        elif isinstance(w, (widgets.HTML, widgets.Textarea)):
            found.append(w)
    return found


class ScreenFit:
    """The explorer's size on the screen (module docstring). Needs
    ``.picture``, ``.access``, ``.figure``, ``_state``, ``_new_figure()``
    and ``_draw_now()`` from the explorer."""

    def _init_screen(self, controls):
        """Set the screen state (called once, first thing in
        ``Explorer.__init__``, before the figure is made)."""
        self._controls = tuple(controls)
        self._growing = _growing(self._controls)
        self.chrome_px = style.SCREEN_CHROME_PX
        self._controls_px = 0.0
        self._room_px = None
        self._screen_dpi = None
        self._for_screen = False
        self._fitted = None
        self._room_waiting = False  # a room told before the first picture

    def _fit_key(self):
        """What the fit depends on: when it is the same as at the last fit,
        :meth:`_fit_screen` has nothing to do."""
        return (style.current(), self.chrome_px, self._room_px, self._screen_dpi,
                self._for_screen, tuple(controls_height([w]) for w in self._growing))

    def _fit_screen(self):
        """The one sizing rule, for every explorer: its picture is shown at
        its own pixels (:func:`picture_layout`), scaled down only where the
        explorer would otherwise be taller than the window's notebook area
        (the window less ``chrome_px``, the bars around the notebook: a
        ``max-height`` of the picture, from the height of its controls and
        message line at the current sizes). In projection mode the
        explorer carries the DOM class ``attn-projector``: its controls grow
        with its picture (:data:`MESSAGE_STYLE`). Nothing is done when
        nothing it depends on changed since the last fit (:meth:`_fit_key`)."""
        key = self._fit_key()
        if key == self._fitted:
            return
        sizes = style.current()
        self._controls_px = controls_height(self._controls)  # an HTML may grow
        reserve = self.chrome_px + sizes.scale * (self._controls_px
                                                  + style.MESSAGE_PX)
        height = f"max({style.MIN_PICTURE_PX}px, calc(100vh - {reserve:.0f}px))"
        room = self._room_px
        if room:  # drawn for the screen: the front end measured the room
            height = f"{max(style.MIN_PICTURE_PX, room):.0f}px"
        if self.picture.layout.max_height != height:
            self.picture.layout.max_height = height
        if sizes is style.PROJECTOR:
            self.add_class("attn-projector")
            self._draw_for_screen()  # its text grows as far as the screen allows
        else:
            self.remove_class("attn-projector")
            if self._screen_dpi and not self._for_screen:  # back to the normal sizes
                self._screen_dpi = self._room_px = None
                self.picture.layout.max_height = height
        self._fitted = self._fit_key()

    def fit_screen(self, chrome_px, draw_for_screen=False):
        """Fit a page whose bars around the explorer take ``chrome_px``
        pixels of the window's height (the playground's title and menu).
        With ``draw_for_screen`` the picture is also drawn for the screen it
        is on: the front end tells the room the picture has (``access.room``)
        and the picture is drawn at the resolution that fills it, between
        :data:`helpers.figures.style.MIN_SCREEN_DPI` (labels of 9 px or more) and
        ``MAX_SCREEN_DPI``, so that a short screen shows it at its own
        pixels instead of scaling it down, and a large one uses its room."""
        self.chrome_px = float(chrome_px)
        self._fit_screen()
        if draw_for_screen:
            self._for_screen = True
            self._draw_for_screen()

    def _draw_for_screen(self):
        """From now on, draw the picture for the room the front end tells
        (projection mode does this in a lesson too: the picture, and so its
        text, is drawn as large as the notebook area allows)."""
        if self.access is not None and not self.access.measure:
            self.access.observe(self._room_changed, names="room")
            self.access.measure = True

    def _dpi(self):
        """The resolution to draw at: the current sizes', or the screen's."""
        return self._screen_dpi or style.current().explorer_dpi

    def _room_changed(self, change=None):
        """The front end told the room the picture has (``access.room``):
        draw for it, then answer with ``access.fitted`` (the room handled),
        which the front end shows as ``data-attn-fit="done"`` on the
        explorer. A room told before the first picture exists is handled
        right after that picture is drawn (``_room_waiting``, read by the
        draw), so no order of page switches, resizes and draws leaves a
        picture undrawn for its room."""
        room = list(self.access.room) if self.access is not None else []
        if not (self._for_screen or style.current() is style.PROJECTOR):
            self._room_done(room)  # a lesson's explorer at the normal sizes
            return
        size = png_size(self.picture.value)
        if len(room) != 2 or min(room) <= 0:
            self._room_done(room)
            return
        if size is None:  # nothing drawn yet: after the first picture
            self._room_waiting = True
            return
        self._room_waiting = False
        self._room_px = room[1]
        self._fit_screen()
        dpi = self.figure.dpi * min(room[0] / size[0], room[1] / size[1]) * 0.98
        dpi = min(max(dpi, style.MIN_SCREEN_DPI), style.MAX_SCREEN_DPI)
        if abs(dpi - self.figure.dpi) >= 0.03 * self.figure.dpi:
            self._screen_dpi = round(dpi, 1)
            self._new_figure()
            if self._state is not None:
                self._draw_now()
        self._room_done(room)

    def _room_done(self, room):
        if self.access is not None and list(self.access.fitted) != room:
            self.access.fitted = room
