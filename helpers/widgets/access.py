"""What makes an explorer usable without a mouse or without sight.

An explorer carries one invisible :class:`Access` widget (an ``anywidget``:
a few lines of front-end code, shipped inside this file, no CDN). In the
browser it finds the explorer's box (DOM class ``attn-explorer``) and:

- keeps every key pressed inside the explorer there, except Tab, so that an
  arrow key on a dropdown or a slider, or Enter in a text box, changes the
  control and never reaches JupyterLab's notebook shortcuts (which would
  move to another cell, or insert one). Lumino's
  ``data-lm-suppress-shortcuts`` is not enough: the focused control itself
  matches the notebook's shortcut selector. Tab and Shift+Tab still leave;
- gives the picture (``attn-picture``) its text alternative, ``alt``, which
  the explorer sets from the numbers it draws, every time it draws;
- makes the message line a polite live region (a screen reader reads a new
  message when it appears) and names each slider handle after its label.

Without ``anywidget`` (an old environment) the explorer works as before:
``make_access()`` returns None and only the text alternative in Python
(``explorer.alt``) remains. anywidget works with ipywidgets 7.7 (Colab) and
8, in JupyterLab, Voila, Colab and VS Code.
"""

from __future__ import annotations

_ESM = r"""
// What a screen reader hears (issue 51 part 6), kept apart from the rest:
// the announcement of each change in a live region of its own, sliders'
// rounded aria-valuetext, named number read-outs, no element named "null",
// and a training panel's progress bar.
function hearing(model, root) {
  const round = (v) => {
    const x = Number(v);
    return Number.isFinite(x) ? String(Number(x.toFixed(6))) : String(v);
  };
  let say = root.querySelector(":scope .attn-announce");
  if (!say) {
    say = document.createElement("div");
    say.className = "attn-announce";
    say.setAttribute("role", "status");
    say.setAttribute("aria-live", "polite");
    say.setAttribute("aria-atomic", "true");
    root.appendChild(say);
  }
  const text = model.get("announce") || "";
  if (say.dataset.said !== text) { say.dataset.said = text; say.textContent = text; }
  root.querySelectorAll(".widget-slider, .jupyter-widget-slider,"
                        + " .widget-hslider, .widget-vslider").forEach((box) => {
    const label = box.querySelector(".widget-label");
    const name = label ? label.textContent.replace(/:\s*$/, "").trim() : "";
    const readout = box.querySelector(".widget-readout");
    box.querySelectorAll("[role=slider], .noUi-handle, .ui-slider-handle")
      .forEach((h) => {
        const now = h.getAttribute("aria-valuenow");
        if (now === null) return;
        // the read-out shows the widget's value with its own rounding; the
        // slider library's aria-valuenow may be rounded otherwise (1.2 for
        // 1.15) and its valuetext unrounded (0.15000000000000002)
        const shown = readout ? readout.textContent.trim() : "";
        const number = shown !== "" && Number.isFinite(Number(shown));
        const text = shown || round(now);
        if (number && h.getAttribute("aria-valuenow") !== shown) {
          h.setAttribute("aria-valuenow", shown);
        }
        if (h.getAttribute("aria-valuetext") !== text) {
          h.setAttribute("aria-valuetext", text);
        }
      });
    if (readout && name && readout.getAttribute("aria-label") !== name + " value") {
      readout.setAttribute("aria-label", name + " value");
    }
  });
  root.querySelectorAll("[aria-label='null'], [aria-label=''], [title='null']")
    .forEach((e) => { e.removeAttribute("aria-label"); e.removeAttribute("title"); });
  root.querySelectorAll("label, .widget-label").forEach((e) => {
    if (e.textContent.trim() === "null") e.setAttribute("aria-hidden", "true");
  });
  const progress = model.get("progress") || [];
  if (progress.length === 2) {
    const bar = root.querySelector(".widget-progress, .jupyter-widget-progress,"
                                   + " .progress, progress");
    if (bar) {
      bar.setAttribute("role", "progressbar");
      bar.setAttribute("aria-label", "Training progress");
      bar.setAttribute("aria-valuemin", "0");
      bar.setAttribute("aria-valuemax", String(progress[1]));
      bar.setAttribute("aria-valuenow", String(progress[0]));
      bar.setAttribute("aria-valuetext",
                       `step ${progress[0]} of ${progress[1]}`);
    }
  }
}

function attach(model, el) {
  let tries = 0;
  let root = null;
  const apply = () => {
    if (!root) return;
    const img = root.querySelector("img.attn-picture, .attn-picture img");
    if (img) { img.alt = model.get("alt") || ""; }
    if (img && model.get("measure") && !img.dataset.attnRoom) {
      // a new picture may move the message line: measure again (it settles:
      // Python draws again only for a change of 3% or more)
      img.dataset.attnRoom = "1";
      img.addEventListener("load", onResize);
    }
    const msg = root.querySelector(".attn-message");
    if (msg && !msg.hasAttribute("aria-live")) {
      msg.setAttribute("role", "status");
      msg.setAttribute("aria-live", "polite");
    }
    root.querySelectorAll(".widget-slider, .jupyter-widget-slider,"
                          + " .widget-hslider, .widget-vslider").forEach((box) => {
      const label = box.querySelector(".widget-label");
      const name = label ? label.textContent.replace(/:\s*$/, "").trim() : "";
      box.querySelectorAll("[role=slider], .noUi-handle, .ui-slider-handle")
        .forEach((h) => {
          if (name && !h.getAttribute("aria-label")) h.setAttribute("aria-label", name);
        });
    });
    hearing(model, root);
  };
  // The room the picture has on this screen (an explorer that draws for
  // the screen: the playground): the window's height below the explorer's
  // top less its controls and message, and the explorer's width. Sent
  // when the explorer is shown and when the window is resized.
  let sent = null;
  const measure = () => {
    if (!root || !model.get("measure") || !root.isConnected) return;
    const r = root.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return;  // a hidden page
    const img = root.querySelector("img.attn-picture, .attn-picture img");
    const shown = img ? img.getBoundingClientRect().height : 0;
    // in JupyterLab the notebook area scrolls: the room is its height
    // (JupyterLab 4: .jp-WindowedPanel-outer; JupyterLab 3: the .jp-Notebook
    // itself, when it scrolls; Voila's page has a .jp-Notebook too, but the
    // window scrolls there)
    const nb = root.closest(".jp-Notebook");
    const area = root.closest(".jp-WindowedPanel-outer")
      || (nb && nb.scrollHeight > nb.clientHeight + 1
          && /auto|scroll/.test(getComputedStyle(nb).overflowY) ? nb : null);
    const top = r.top + (window.scrollY || 0);
    const high = area ? area.clientHeight - 24 : window.innerHeight - top - 8;
    // the width the explorer may take: its box is as wide as its content
    // where a flex row holds it (the playground's page), so the room is
    // measured to the right edge of the notebook area or the window
    const right = area ? area.getBoundingClientRect().right - 24
      : document.documentElement.clientWidth - 16;
    const room = [Math.floor(Math.max(root.clientWidth, right - r.left)),
                  Math.floor(high - (r.height - shown))];
    if (sent && Math.abs(sent[0] - room[0]) < 8
        && Math.abs(sent[1] - room[1]) < 8) return;
    sent = room;
    root.dataset.attnFit = "waiting";
    model.set("room", room);
    model.save_changes();
    markFit();
  };
  // Python answers with the room it has drawn for ("fitted"): the explorer
  // then carries data-attn-fit="done" (the playground's test waits for it)
  const markFit = () => {
    if (!root || !sent) return;
    const f = model.get("fitted") || [];
    if (f.length === 2 && f[0] === sent[0] && f[1] === sent[1]) {
      root.dataset.attnFit = "done";
    }
  };
  model.on("change:fitted", markFit);
  let resizing = null;
  const onResize = () => {
    if (!root || !root.isConnected) {
      window.removeEventListener("resize", onResize);
      return;
    }
    clearTimeout(resizing);
    resizing = setTimeout(measure, 250);
  };
  const find = () => {
    root = el.closest(".attn-explorer");
    if (!root) {
      if (tries++ < 200) setTimeout(find, 50);
      return;
    }
    if (!root.dataset.attnKeys) {
      root.dataset.attnKeys = "kept";
      root.addEventListener("keydown", (event) => {
        if (event.key !== "Tab") event.stopPropagation();
      });
      // a slider moved by keys or pointer: its aria-valuetext follows
      new MutationObserver(() => hearing(model, root)).observe(root, {
        subtree: true, attributes: true, childList: true,
        attributeFilter: ["aria-valuenow", "aria-valuetext"],
        characterData: true});
    }
    apply();
    // controls drawn later (a slider's handle) get their names too
    setTimeout(() => { apply(); measure(); }, 300);
    if (model.get("measure")) {
      window.addEventListener("resize", onResize);
      // a page shown again, a control that grew: measure whenever the
      // explorer's box changes size, whatever the order of events
      if (window.ResizeObserver) new ResizeObserver(onResize).observe(root);
    }
  };
  model.on("change:alt", apply);
  model.on("change:announce", () => { if (root) hearing(model, root); });
  model.on("change:progress", () => { if (root) hearing(model, root); });
  find();
}
export default { render({ model, el }) { attach(model, el); } };
"""


#: Where the focus is, on every control of an explorer (and of the
#: playground's menu): a 2 px dark blue outline (at least 3:1 against white
#: and the controls' grey borders), drawn for text boxes and dropdowns
#: whenever they have the focus, for buttons and slider handles when the
#: keyboard put it there (``:focus-visible``: a mouse click draws none).
def focus_css(color="#1558b0"):
    ring = f"outline: 2px solid {color} !important; outline-offset: 1px !important;"
    out = []
    for root in (".attn-explorer", ".attn-playground"):
        out += [f"{root} input:focus", f"{root} select:focus",
                f"{root} textarea:focus", f"{root} [contenteditable=true]:focus",
                f"{root} button:focus-visible", f"{root} .noUi-handle:focus",
                f"{root} [role=slider]:focus", f"{root} .ui-slider-handle:focus"]
    return ", ".join(out) + " { " + ring + " }"


#: The stylesheet's focus rules (``helpers.widgets.base.MESSAGE_STYLE``
#: carries them in every explorer).
FOCUS_CSS = focus_css() + (
    # the announcement region: read, not shown
    " .attn-announce { position: absolute !important; width: 1px; height: 1px;"
    " overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }"
    # a picture scaled down to its box (max-width 100%) keeps no side margin:
    # with ipywidgets' 2 px margins it overflowed by 4 px, and its box showed
    # a horizontal scrollbar (lesson 07's wide picture)
    " .attn-explorer img.attn-picture, .attn-explorer .attn-picture img"
    " { box-sizing: border-box; margin-left: 0 !important;"
    " margin-right: 0 !important; }")


def make_access(alt: str = ""):
    """A new :class:`Access` widget, or None without anywidget."""
    cls = _access_class()
    return None if cls is None else cls(alt=alt)


def live_monitor_parts(monitor) -> None:
    """Give a live training monitor (lessons 09 and 13) its parts, as
    attributes: ``.bar`` (a progress bar up to ``monitor.n_steps``),
    ``.label``, ``.image`` (the live picture), ``.access`` (this module's
    widget: the picture's alt text, keys kept in the box; None without
    anywidget), ``.widget`` (the box to display) and ``._handles``."""
    import ipywidgets as widgets

    monitor.bar = widgets.IntProgress(value=0, min=0, max=monitor.n_steps,
                                      description="step 0")
    monitor.label = widgets.Label("not started")
    monitor.image = widgets.Image(format="png")
    monitor.image.add_class("attn-picture")
    monitor.access = make_access()
    extra = () if monitor.access is None else (monitor.access,)
    if monitor.access is not None:
        monitor.access.layout.display = "none"
    monitor.widget = widgets.VBox([widgets.HBox([monitor.bar, monitor.label]),
                                   monitor.image, *extra])
    monitor.widget.add_class("attn-explorer")
    monitor._handles = []
    from helpers.widgets import hearing  # progress and the end announced

    hearing.watch_training(monitor)


_CLASSES = {}


def widget_class(name, build):
    """The front-end widget class ``build(anywidget, traitlets)`` makes,
    made once per ``name`` and shared (this module's :class:`Access`,
    ``pointer.Pointer``); None without anywidget (an old environment)."""
    if name not in _CLASSES:
        try:
            import anywidget
            import traitlets
        except ImportError:
            _CLASSES[name] = None
        else:
            _CLASSES[name] = build(anywidget, traitlets)
    return _CLASSES[name]


def _access_class():
    return widget_class("Access", _build_access)


def _build_access(anywidget, traitlets):
    class Access(anywidget.AnyWidget):
        """Keys kept in the explorer, the picture's alt text, a live message."""

        _esm = _ESM
        alt = traitlets.Unicode("").tag(sync=True)
        #: measure the room the picture has (set by the explorer) ...
        measure = traitlets.Bool(False).tag(sync=True)
        #: ... and the front end's answer: [width, height] in CSS pixels
        room = traitlets.List([]).tag(sync=True)
        #: ... and the room the explorer has drawn for (its answer)
        fitted = traitlets.List([]).tag(sync=True)
        #: what the live region says after a change (``helpers.widgets.hearing``)
        announce = traitlets.Unicode("").tag(sync=True)
        #: a training panel's [step, of steps]: its progress bar's ARIA values
        progress = traitlets.List([]).tag(sync=True)

    Access.__module__ = __name__
    return Access
