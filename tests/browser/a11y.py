"""What the browser tests check for every learner (issue 43): the text
alternatives of the output images, an axe-core audit of the output areas,
and an explorer driven by the keyboard alone.

- :func:`image_alts` / :func:`alt_problems`: every ``<img>`` in an output area
  has a real text alternative: at least :data:`MIN_ALT` characters, not a
  placeholder ("image", "png", the ``text/plain`` ``<Figure ...>``), and the
  images of one page mostly distinct (:data:`MIN_DISTINCT`).
- :func:`axe_audit`: axe-core (the ``axe-playwright-python`` pip package
  ships it; nothing comes from a CDN) over the output areas only;
  :func:`serious` keeps the violations a test fails on (serious, critical).
- :func:`keyboard_problems`: every control of an explorer gets the keys a
  learner presses on it (arrow keys on dropdowns, buttons, sliders and
  checkboxes; Enter, Escape and arrows in text boxes); a key has escaped when
  the focus left the explorer or JupyterLab added, removed or moved to
  another cell. A dropdown must change its value on ArrowDown (ArrowUp at
  its last option). Tab from the last control and Shift+Tab from the first
  must leave the explorer.
"""

from __future__ import annotations

import re
import time
from collections import Counter

MIN_ALT = 20
MIN_DISTINCT = 0.8  # of a page's image alts, at least this share distinct
#: Text that only says "a picture is here".
PLACEHOLDER = re.compile(
    r"^\s*(image|picture|figure|graph|plot|chart|png|img|untitled|alt|"
    r"heatmap|a heatmap|<.*>|.*\.(png|jpe?g|svg))\s*\.?\s*$",
    re.IGNORECASE)

#: ``() => [{alt, src, explorer}]``: every output image, in page order.
JS_IMAGES = """() => {
  const out = [];
  const sel = '.jp-OutputArea-output img, .jp-OutputArea img, .voila-output img,'
              + ' .attn-explorer img';
  for (const img of new Set(document.querySelectorAll(sel))) {
    if (img.getAttribute('role') === 'presentation'
        || img.getAttribute('aria-hidden') === 'true') continue;
    out.push({alt: img.getAttribute('alt'),
              explorer: !!img.closest('.attn-explorer'),
              cell: (() => { const c = img.closest('.jp-Cell');
                             if (!c) return -1;
                             return [...c.parentNode.children].indexOf(c); })()});
  }
  return out;
}"""


def image_alts(page):
    """Every output image on ``page``: dicts with ``alt`` (None when the
    attribute is missing), ``explorer`` and ``cell`` (its cell's index)."""
    return page.evaluate(JS_IMAGES)


def alt_problem(alt):
    """Why ``alt`` is not a real text alternative, or None."""
    if alt is None:
        return "no alt attribute"
    text = " ".join(alt.split())
    if len(text) < MIN_ALT:
        return f"alt of {len(text)} characters: {text!r}"
    if PLACEHOLDER.match(text):
        return f"placeholder alt {text!r}"
    return None


def alt_counts(images):
    """``(with a real alt, all)``."""
    good = sum(alt_problem(i["alt"]) is None for i in images)
    return good, len(images)


def alt_problems(name, images):
    """What is wrong with a page's images: each image without a real alt, and
    too many repeated alts (fewer than MIN_DISTINCT distinct)."""
    out = []
    for k, img in enumerate(images):
        why = alt_problem(img["alt"])
        if why:
            out.append(f"{name}: image {k + 1} (cell {img['cell']}): {why}")
    alts = [" ".join((i["alt"] or "").split()) for i in images if i["alt"]]
    if len(alts) >= 3:
        distinct = len(set(alts))
        if distinct < MIN_DISTINCT * len(alts):
            twice = [a[:60] for a, n in Counter(alts).most_common(3) if n > 1]
            out.append(f"{name}: only {distinct} distinct alts among {len(alts)} "
                       f"images (repeated: {twice})")
    return out


# -- axe-core ----------------------------------------------------------------
_AXE = []


def _axe():
    if not _AXE:
        from axe_playwright_python.sync_playwright import Axe

        _AXE.append(Axe())
    return _AXE[0]


def axe_available():
    try:
        _axe()
    except ImportError:
        return False
    return True


#: The parts of a page the audit looks at: the output areas (JupyterLab's own
#: chrome is JupyterLab's business; it states that it does not conform).
OUTPUTS = [[".jp-OutputArea"]]


def axe_audit(page, include=None):
    """axe-core's violations inside ``include`` (default: the output areas)
    as a list of ``{id, impact, help, nodes: [target, ...]}``."""
    context = {"include": include or OUTPUTS}
    options = {"resultTypes": ["violations"]}
    response = _axe().run(page, context=context, options=options).response
    out = []
    for v in response.get("violations", []):
        out.append({"id": v["id"], "impact": v.get("impact"), "help": v["help"],
                    "nodes": [" ".join(map(str, n.get("target", [])))
                              for n in v.get("nodes", [])]})
    return out


def serious(violations):
    return [v for v in violations if v["impact"] in ("serious", "critical")]


def violation_counts(violations):
    """``{rule: number of elements}``."""
    counts = Counter()
    for v in violations:
        counts[f"{v['id']} ({v['impact']})"] += len(v["nodes"])
    return dict(counts)


def violation_lines(name, violations):
    return [f"{name}: axe {v['id']} ({v['impact']}): {v['help']}: "
            f"{len(v['nodes'])} element(s), e.g. {v['nodes'][:2]}"
            for v in violations]


# -- the keyboard ------------------------------------------------------------
#: ``([root, i]) => ...`` where the focus is and what the notebook looks like.
JS_WHERE = """(root) => {
  const a = document.activeElement;
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const nb = panel && panel.content && panel.content.widgets ? panel.content : null;
  return {inside: !!a && root.contains(a),
          focus: a ? a.tagName.toLowerCase() + (typeof a.className === 'string'
                     ? '.' + a.className.split(/\\s+/).slice(0, 2).join('.') : '')
                   : 'nothing',
          cells: nb ? nb.widgets.length : null,
          active: nb ? nb.activeCellIndex : null,
          mode: nb ? nb.mode : null};
}"""

#: ``root => [{kind, sel}]``: the explorer's controls a learner can focus,
#: each with a selector unique under ``root`` (``data-attn-key`` set here).
JS_CONTROLS = """(root) => {
  const shown = (el) => el.getClientRects().length > 0
                        && getComputedStyle(el).visibility !== 'hidden';
  const sel = 'select, button, input, textarea, [role=slider], .noUi-handle,'
              + ' [contenteditable=true], summary, a[href], [tabindex]';
  const out = [];
  let n = 0;
  for (const el of root.querySelectorAll(sel)) {
    if (!shown(el) || el.disabled || el.type === 'hidden') continue;
    if (el.matches('.noUi-handle') && el.querySelector('[role=slider]')) continue;
    if (el.getAttribute('tabindex') === '-1') continue;
    let kind = el.tagName.toLowerCase();
    if (kind === 'input') kind = ['checkbox', 'number', 'range'].includes(el.type)
                                  ? el.type : 'text';
    if (el.matches('[role=slider], .noUi-handle')) kind = 'slider';
    if (el.isContentEditable) kind = 'readout';
    if (!['select', 'button', 'input', 'textarea'].includes(el.tagName.toLowerCase())
        && !['slider', 'readout'].includes(kind)) kind = 'other';
    el.dataset.attnKey = String(n);
    out.push({kind, sel: `[data-attn-key="${n}"]`});
    n += 1;
  }
  return out;
}"""

#: The keys pressed on each kind of control.
KEYS = {"select": ("ArrowDown", "ArrowUp"),
        "button": ("ArrowDown", "ArrowUp"),
        "slider": ("ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft"),
        "checkbox": ("ArrowDown",),
        "number": ("ArrowDown", "ArrowUp"),
        "range": ("ArrowDown",),
        "text": ("ArrowDown", "Enter", "Escape"),
        "textarea": ("ArrowDown", "Escape"),
        "readout": ("ArrowDown", "Escape")}


def _escaped(before, after):
    """Why a key escaped, comparing two :data:`JS_WHERE`, or None."""
    if not after["inside"]:
        return f"focus left the explorer (now on {after['focus']})"
    if after["cells"] != before["cells"]:
        return f"the notebook went from {before['cells']} to {after['cells']} cells"
    if after["active"] != before["active"]:
        return (f"the active cell moved from {before['active']} to "
                f"{after['active']}")
    return None


def keyboard_problems(page, explorer, name, pause=0.15):
    """Press the keys of :data:`KEYS` on every control of ``explorer`` (a
    locator); return ``(problems, presses)``. Each problem names the control,
    the key and how it escaped, or a dropdown that ArrowDown did not change."""
    problems, presses = [], 0
    explorer.scroll_into_view_if_needed()
    root = explorer.element_handle()
    controls = explorer.evaluate(JS_CONTROLS)
    for c in controls:
        el = explorer.locator(c["sel"]).first
        if not el.count():
            continue
        for key in KEYS.get(c["kind"], ("ArrowDown",)):
            try:
                el.focus(timeout=60_000)
            except Exception:  # redrawn meanwhile
                break
            before = page.evaluate(JS_WHERE, root)
            if not before["inside"]:
                problems.append(f"{name}: a {c['kind']} cannot take the focus")
                break
            value = el.evaluate("e => e.value") if c["kind"] == "select" else None
            if c["kind"] == "select" and key == "ArrowDown":
                last = el.evaluate("e => e.selectedIndex === e.options.length - 1")
                key = "ArrowUp" if last else key
            page.keyboard.press(key)
            presses += 1
            time.sleep(pause)
            after = page.evaluate(JS_WHERE, root)
            why = _escaped(before, after)
            if why:
                problems.append(f"{name}: {key} on a {c['kind']}: {why}")
                # put things back for the next key: focus the control again
                continue
            if c["kind"] == "select" and key in ("ArrowDown", "ArrowUp") \
                    and el.evaluate("e => e.options.length") > 1:
                now = el.evaluate("e => e.value")
                if now == value:
                    problems.append(f"{name}: {key} on a dropdown did not change it")
    if controls:
        for sel, key in ((controls[-1]["sel"], "Tab"),
                         (controls[0]["sel"], "Shift+Tab")):
            el = explorer.locator(sel).first
            if not el.count():
                continue
            el.focus()
            page.keyboard.press(key)
            presses += 1
            time.sleep(pause)
            where = page.evaluate(JS_WHERE, root)
            if where["inside"]:
                problems.append(f"{name}: {key} did not leave the explorer "
                                f"(focus on {where['focus']})")
    return problems, presses


#: ``root => [problem]``: controls without an accessible name, and controls
#: whose focus shows no outline or ring (checked on each, focused).
JS_NAMES = """(root) => {
  const out = [];
  const sel = 'select, button, input, textarea, [role=slider]';
  for (const el of root.querySelectorAll(sel)) {
    if (!el.getClientRects().length || el.type === 'hidden') continue;
    const id = el.id;
    const byFor = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
    const named = (el.getAttribute('aria-label') || '').trim()
      || (el.getAttribute('aria-labelledby') || '').trim()
      || (el.title || '').trim()
      || (byFor && byFor.textContent.trim())
      || (el.closest('label') && el.closest('label').textContent.trim())
      || (el.tagName === 'BUTTON' && el.textContent.trim());
    const role = el.getAttribute('role');
    const what = el.tagName.toLowerCase() + (role ? `[${role}]` : '');
    if (!named) out.push(`${what} has no accessible name`);
    el.focus();
    if (document.activeElement === el) {
      const s = getComputedStyle(el);
      const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0)
                   || (s.boxShadow && s.boxShadow !== 'none');
      if (!ring) out.push(`${what} (${named || ''}) shows no focus outline`);
      el.blur();
    }
  }
  return out;
}"""


def name_problems(explorer, name):
    """Controls of ``explorer`` without an accessible name or a visible focus."""
    return [f"{name}: {p}" for p in explorer.evaluate(JS_NAMES)]
