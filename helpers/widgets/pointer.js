// Point at any number (issue 51): the front end of helpers/widgets/pointer.py.
// The explorer sends a map of the panels it drew (boxes in PNG pixels,
// labels, values as text); this code, with no round trip to Python, shows a
// role="tooltip" read-out under the pointer (or a tap), outlines the cell's
// row and column, makes each panel one Tab stop read cell by cell with the
// keys (ARIA grid pattern, aria-activedescendant), and picks a query (click
// its label, or Enter on a cell) through the "selected" trait. No CDN, no
// build step; the same code in ipywidgets 7.7 and 8.
const RING = "2px solid #000";        // black ring with a white one inside:
const HALO = "inset 0 0 0 2px #fff, 0 0 0 1px #fff";  // >= 3:1 on any colour
let serial = 0;

function attach(model, el) {
  const uid = "attn-pt-" + (++serial) + "-" + Math.floor(Math.random() * 1e6);
  let root = null, img = null, layer = null, tip = null, tries = 0;
  let grids = [];            // one focusable role=grid element per panel
  let marks = {};            // outline boxes: row, col, cell, pick
  let last = null;           // the last pointer position (client x, y)
  let cursor = { p: 0, r: 0, c: 0 };  // the keyboard's cell
  let flip = 0;              // two cells, so that each move is a new one
  const panels = () => ((model.get("panels") || {}).panels || []);
  const fresh = () => {
    const size = (model.get("panels") || {}).size || [0, 0];
    return img && img.naturalWidth > 0 && img.naturalWidth === size[0]
      && img.naturalHeight === size[1];
  };
  // the picture's scale and its top-left corner inside the layer: shown
  // below its own pixels (object-fit: contain, placed left top)
  const geometry = () => {
    const s = Math.min(img.clientWidth / img.naturalWidth,
                       img.clientHeight / img.naturalHeight) || 1;
    return s;
  };
  const nouns = (P) => P.kind === "bars" ? null : [P.row_noun, P.col_noun];
  // several grids (heads): each read-out starts with the panel's name
  const named = () => panels().filter((P) => P.kind === "grid").length > 1;
  const hidden = () => model.get("guessing") && !model.get("revealed");
  const lined = (P) => model.get("lines") && P.kind === "grid";
  // a row's strongest column: [column, text] (or null)
  const strongest = (P, r) => {
    let best = null;
    P.values[r].forEach((t, c) => {
      const v = parseFloat(t);
      if (!Number.isNaN(v) && (best === null || v > best[2])) best = [c, t, v];
    });
    return best;
  };
  const guessAt = (p, r) => (model.get("guesses") || []).find(
    (g) => g[0] === p && g[1] === r);
  const text = (P, r, c) => {
    const g = guessAt(panels().indexOf(P), r);
    const mine = g && g[2] === c ? (g[3] ? `, your guess, ${g[3]}` : ", your guess") : "";
    const v = hidden() && P.kind === "grid" ? "hidden, Enter or a click marks your guess"
      : P.values[r][c];
    const head = named() && P.kind === "grid" && P.name ? P.name + ", " : "";
    if (P.kind === "bars") {
      const which = P.cols.length > 1 ? `, ${P.cols[c]}` : "";
      return `${head}'${P.rows[r]}'${which}: ${v}`;
    }
    const [rn, cn] = nouns(P);
    return `${head}${rn} '${P.rows[r]}' → ${cn} '${P.cols[c]}': ${v}${mine}`;
  };

  const box = (style) => {
    const d = document.createElement("div");
    Object.assign(d.style, { position: "absolute", display: "none",
      boxSizing: "border-box", pointerEvents: "none" }, style);
    layer.appendChild(d);
    return d;
  };
  const place = (d, x0, y0, x1, y1) => {
    const s = geometry();
    Object.assign(d.style, { display: "block", left: (x0 * s - 2) + "px",
      top: (y0 * s - 2) + "px", width: ((x1 - x0) * s + 4) + "px",
      height: ((y1 - y0) * s + 4) + "px" });
  };
  const hide = (...ds) => ds.forEach((d) => { if (d) d.style.display = "none"; });

  // the rectangle of one cell (image pixels) and of its row and column bands
  const cellBox = (P, r, c) => {
    const [x0, y0, x1, y1] = P.box;
    const n = P.rows.length, m = P.cols.length;
    const h = (y1 - y0) / n;
    if (P.kind === "bars") {
      const sub = 0.8 * h / m;
      return [x0, y0 + r * h + 0.1 * h + c * sub, x1, y0 + r * h + 0.1 * h + (c + 1) * sub];
    }
    const w = (x1 - x0) / m;
    return [x0 + c * w, y0 + r * h, x0 + (c + 1) * w, y0 + (r + 1) * h];
  };
  const rowBand = (P, r) => {
    const [x0, y0, x1, y1] = P.box, h = (y1 - y0) / P.rows.length;
    return [P.labels_x0, y0 + r * h, x1, y0 + (r + 1) * h];
  };
  const colBand = (P, c) => {
    const [x0, y0, x1] = P.box, w = (x1 - x0) / P.cols.length;
    return [x0 + c * w, y0, x0 + (c + 1) * w, P.labels_y1];
  };

  // where an image point falls: {p, r, c} in a cell, {p, r, label: "row"}
  // on a row's label, {p, c, label: "col"} on a column's label, or null
  const hit = (x, y) => {
    const ps = panels();
    for (let p = 0; p < ps.length; p++) {
      const P = ps[p], [x0, y0, x1, y1] = P.box;
      const n = P.rows.length, m = P.cols.length;
      if (lined(P) && x >= x0 && x < x1 && y >= y0 && y < y1) {  // the head view
        const k = (y - y0) / (y1 - y0);
        if (x < (x0 + x1) / 2) return { p, r: Math.min(n - 1, Math.floor(k * n)), label: "row" };
        return { p, c: Math.min(m - 1, Math.floor(k * m)), label: "col" };
      }
      if (y >= y0 && y < y1 && x >= P.labels_x0 && x < x1) {
        const r = Math.min(n - 1, Math.max(0, Math.floor((y - y0) / (y1 - y0) * n)));
        if (x < x0) return { p, r, label: "row" };
        if (P.kind === "bars") {
          const f = ((y - y0) / (y1 - y0) * n) - r;
          const c = Math.min(m - 1, Math.max(0, Math.floor((f - 0.1) / 0.8 * m)));
          return { p, r, c };
        }
        return { p, r, c: Math.min(m - 1, Math.floor((x - x0) / (x1 - x0) * m)) };
      }
      if (P.kind === "grid" && x >= x0 && x < x1 && y >= y1 && y <= P.labels_y1) {
        return { p, c: Math.min(m - 1, Math.floor((x - x0) / (x1 - x0) * m)),
                 label: "col" };
      }
    }
    return null;
  };

  // below the point (x, y), or above ``over`` (the cell's top; the point
  // itself by default) where the window would cut it off: a short screen,
  // the playground at 720p, fills the window with the picture
  const showTip = (words, x, y, over) => {
    tip.textContent = words;
    tip.style.display = "block";
    const wide = layer.clientWidth;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = Math.max(0, Math.min(x + 14, wide - w - 2)) + "px";
    const low = layer.getBoundingClientRect().top + y + 16 + h > window.innerHeight - 2;
    tip.style.top = (low ? (over === undefined ? y : over) - h - 8 : y + 16) + "px";
  };
  const clear = () => hide(tip, marks.row, marks.col, marks.cell);

  // what the pointer (or a tap) is over: read-out and outlines
  const show = (h, x, y) => {
    if (!h || !fresh()) { clear(); return; }
    const P = panels()[h.p];
    if (h.label === "row") {
      if (lined(P)) hide(marks.row, marks.col, marks.cell);
      else { place(marks.row, ...rowBand(P, h.r)); hide(marks.col, marks.cell); }
      const picked = same(h.p, h.r) ? " (picked: click to clear)" : (
        P.kind === "grid" ? " (click to pick)" : "");
      const b = lined(P) && !hidden() ? strongest(P, h.r) : null;
      const most = b ? ` looks most at '${P.cols[b[0]]}': ${b[1]}` : "";
      showTip(`${P.kind === "grid" ? P.row_noun + " " : ""}'${P.rows[h.r]}'${most}${picked}`,
              x, y);
      return;
    }
    if (h.label === "col") {
      if (lined(P)) hide(marks.row, marks.col, marks.cell);
      else { place(marks.col, ...colBand(P, h.c)); hide(marks.row, marks.cell); }
      showTip(`${P.col_noun} '${P.cols[h.c]}'`, x, y);
      return;
    }
    place(marks.row, ...rowBand(P, h.r));
    if (P.kind === "grid") place(marks.col, ...colBand(P, h.c)); else hide(marks.col);
    place(marks.cell, ...cellBox(P, h.r, h.c));
    showTip(text(P, h.r, h.c), x, y);
  };
  const local = (ev) => {
    const r = img.getBoundingClientRect(), s = geometry();
    return [(ev.clientX - r.left) / s, (ev.clientY - r.top) / s,
            ev.clientX - r.left, ev.clientY - r.top];
  };
  const onMove = (ev) => {
    if (!fresh()) return;
    last = ev;
    const [x, y, lx, ly] = local(ev);
    show(hit(x, y), lx, ly);
  };
  const same = (p, r) => {
    const s = model.get("selected") || [];
    return s.length === 2 && s[0] === p && s[1] === r;
  };
  const select = (p, r) => {
    model.set("selected", same(p, r) || p === null ? [] : [p, r]);
    model.save_changes();
    drawPick();
  };
  let marks_sent = 0;
  const mark = (p, r, c) => {  // a guess: Python keeps it and scores it
    model.set("mark", [p, r, c, ++marks_sent]);
    model.save_changes();
  };
  const onClick = (ev) => {
    if (!fresh()) return;
    const [x, y, lx, ly] = local(ev);
    const h = hit(x, y);
    const grid = h && panels()[h.p].kind === "grid";
    if (grid && model.get("guessing") && h.label === undefined) mark(h.p, h.r, h.c);
    else if (grid && h.label === "row") select(h.p, h.r);
    show(h, lx, ly);
  };
  // the head view: each grid as two columns of tokens joined by lines
  const SVG = "http://www.w3.org/2000/svg";
  let sheets = [];
  const drawLines = () => {
    sheets.forEach((d) => d.remove());
    sheets = [];
    if (!model.get("lines") || !fresh()) return;
    const s = geometry(), sel = model.get("selected") || [];
    const focused = grids.indexOf(document.activeElement);
    panels().forEach((P, p) => {
      if (P.kind !== "grid") return;
      const [x0, y0, x1, y1] = P.box, w = (x1 - x0) * s, h = (y1 - y0) * s;
      const n = P.rows.length, m = P.cols.length;
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("width", w); svg.setAttribute("height", h);
      svg.setAttribute("aria-hidden", "true");
      Object.assign(svg.style, { position: "absolute", left: (x0 * s) + "px",
        top: (y0 * s) + "px", background: "#fff", pointerEvents: "none",
        outline: "1px solid #777" });
      const font = Math.max(9, Math.min(12, 0.8 * h / Math.max(n, m)));
      const room = Math.min(0.32 * w, 7 + 0.62 * font * Math.max(
        ...P.rows.map((t) => t.length), ...P.cols.map((t) => t.length)));
      const yq = (i) => (i + 0.5) * h / n, yk = (j) => (j + 0.5) * h / m;
      const add = (tag, attrs, text) => {
        const e = document.createElementNS(SVG, tag);
        Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
        if (text !== undefined) e.textContent = text;
        svg.appendChild(e);
        return e;
      };
      const only = sel.length === 2 && sel[0] === p ? sel[1] : null;
      for (let i = 0; i < n; i++) {
        if (only !== null && i !== only) continue;
        for (let j = 0; j < m; j++) {
          const v = parseFloat(P.values[i][j]);
          if (!(v > 0.005)) continue;
          add("line", { x1: room, y1: yq(i), x2: w - room, y2: yk(j),
            stroke: "#1f3f8f", "stroke-opacity": Math.min(1, 0.1 + v),
            "stroke-width": 0.6 + 4 * Math.min(v, 1) });
        }
      }
      if (focused === p) {  // the keys' cell: one black line
        add("line", { x1: room, y1: yq(cursor.r), x2: w - room, y2: yk(cursor.c),
          stroke: "#000", "stroke-width": 3 });
      }
      const label = (x, y, t, anchor, bold) => add("text", { x, y,
        "font-size": font, "text-anchor": anchor, "dominant-baseline": "middle",
        "font-family": "sans-serif", "font-weight": bold ? "bold" : "normal",
        fill: "#000" }, t);
      P.rows.forEach((t, i) => label(room - 3, yq(i), t, "end", i === only));
      P.cols.forEach((t, j) => label(w - room + 3, yk(j), t, "start", false));
      layer.insertBefore(svg, layer.firstChild);
      sheets.push(svg);
    });
  };
  // the guess: covers over the grids' colours, a ring on each marked cell
  let covers = [], rings = [];
  const drawGuess = () => {
    const ps = fresh() ? panels() : [];
    covers.forEach((d) => d.remove()); rings.forEach((d) => d.remove());
    covers = []; rings = [];
    if (!model.get("guessing")) return;
    if (hidden()) {
      ps.forEach((P) => {
        if (P.kind !== "grid") return;
        const d = box({ background: "#e4e4e4", border: "1px solid #555",
          color: "#333", font: "bold 18px sans-serif", display: "flex",
          alignItems: "center", justifyContent: "center" });
        d.textContent = "?";
        place(d, ...P.box);
        d.style.display = "flex";
        covers.push(d);
      });
    }
    (model.get("guesses") || []).forEach((g) => {
      const P = ps[g[0]];
      if (!P || g[1] >= P.rows.length || g[2] >= P.cols.length) return;
      const d = box({ border: "3px solid #000", boxShadow: HALO, background: "#fff",
        color: "#000", font: "bold 12px sans-serif", display: "flex",
        alignItems: "center", justifyContent: "center", opacity: "0.92" });
      d.textContent = g[3] === "right" ? "✓" : g[3] === "wrong" ? "✗" : "●";
      const b = cellBox(P, g[1], g[2]);
      place(d, ...b);
      d.style.display = "flex";
      rings.push(d);
    });
    tip.parentNode.appendChild(tip);  // the read-out stays on top
  };
  const drawPick = () => {
    const s = model.get("selected") || [];
    const ps = panels();
    if (s.length === 2 && fresh() && ps[s[0]] && s[1] < ps[s[0]].rows.length
        && !lined(ps[s[0]])) {  // (the head view marks it by its lines alone)
      place(marks.pick, ...rowBand(ps[s[0]], s[1]));
    } else hide(marks.pick);
  };

  // ---- keys: each panel one role=grid, cells named by activedescendant
  const gridName = (P) => {
    const what = P.kind === "grid" ? `grid of ${P.rows.length} ${P.row_noun} rows`
      + ` by ${P.cols.length} ${P.col_noun} columns`
      : `chart of ${P.rows.length} bars`;
    return `${P.name}: ${what}. Arrow keys read the cells, Page Up and Page Down`
      + ` go to the other panels${P.kind === "grid" ? ", Enter picks a row" : ""},`
      + " Escape leaves.";
  };
  const makeGrid = (p) => {
    const g = document.createElement("div");
    g.setAttribute("role", "grid");
    g.tabIndex = 0;
    g.className = "attn-grid";
    Object.assign(g.style, { position: "absolute", pointerEvents: "none",
      boxSizing: "border-box", outline: "none" });
    const row = document.createElement("div");
    row.setAttribute("role", "row");
    const cells = [0, 1].map((k) => {
      const c = document.createElement("div");
      c.setAttribute("role", "gridcell");
      c.id = `${uid}-g${p}-c${k}`;
      Object.assign(c.style, { position: "absolute", width: "1px", height: "1px",
        overflow: "hidden", clip: "rect(0 0 0 0)", whiteSpace: "nowrap" });
      row.appendChild(c);
      return c;
    });
    g.appendChild(row);
    g._row = row; g._cells = cells;
    g.addEventListener("keydown", (ev) => onKey(ev, g));
    g.addEventListener("focus", () => { g.style.outline = "2px solid #1558b0";
      cursor.p = grids.indexOf(g); clampCursor(); moveTo(); });
    g.addEventListener("blur", () => { g.style.outline = "none";
      hide(marks.cell, tip, marks.row, marks.col); });
    layer.appendChild(g);
    return g;
  };
  const clampCursor = () => {
    const P = panels()[cursor.p];
    if (!P) return;
    cursor.r = Math.max(0, Math.min(cursor.r, P.rows.length - 1));
    cursor.c = Math.max(0, Math.min(cursor.c, P.cols.length - 1));
  };
  const moveTo = () => {
    const g = grids[cursor.p], P = panels()[cursor.p];
    if (!g || !P || !fresh()) return;
    flip = 1 - flip;
    const cell = g._cells[flip];
    const words = text(P, cursor.r, cursor.c);
    cell.textContent = words + (same(cursor.p, cursor.r) ? ", picked" : "");
    cell.setAttribute("aria-colindex", String(cursor.c + 1));
    g._row.setAttribute("aria-rowindex", String(cursor.r + 1));
    g._cells[1 - flip].textContent = "";
    g.setAttribute("aria-activedescendant", cell.id);
    const b = cellBox(P, cursor.r, cursor.c), s = geometry();
    if (lined(P)) { drawLines(); hide(marks.cell, marks.row, marks.col);
      showTip(words, b[2] * s, b[3] * s, b[1] * s); return; }
    place(marks.cell, ...b);
    place(marks.row, ...rowBand(P, cursor.r));
    if (P.kind === "grid") place(marks.col, ...colBand(P, cursor.c)); else hide(marks.col);
    showTip(words, b[2] * s, b[3] * s, b[1] * s);
  };
  const onKey = (ev, g) => {
    if (ev.key === "Tab") return;  // Tab still leaves
    ev.stopPropagation();          // no key reaches JupyterLab
    const P = panels()[cursor.p];
    if (!P) return;
    const n = P.rows.length, m = P.cols.length, ctrl = ev.ctrlKey || ev.metaKey;
    let moved = true;
    switch (ev.key) {
      case "ArrowRight": cursor.c = Math.min(m - 1, cursor.c + 1); break;
      case "ArrowLeft": cursor.c = Math.max(0, cursor.c - 1); break;
      case "ArrowDown": cursor.r = Math.min(n - 1, cursor.r + 1); break;
      case "ArrowUp": cursor.r = Math.max(0, cursor.r - 1); break;
      case "Home": cursor.c = 0; if (ctrl) cursor.r = 0; break;
      case "End": cursor.c = m - 1; if (ctrl) cursor.r = n - 1; break;
      case "PageUp": case "PageDown": {
        const k = cursor.p + (ev.key === "PageUp" ? -1 : 1);
        if (k >= 0 && k < grids.length) { grids[k].focus(); }
        moved = false; break;
      }
      case "Enter": case " ":
        if (P.kind === "grid" && model.get("guessing")) mark(cursor.p, cursor.r, cursor.c);
        else if (P.kind === "grid") select(cursor.p, cursor.r);
        break;
      case "Escape": {
        const s = model.get("selected") || [];
        if (s.length) { select(null, null); break; }
        g.blur();
        if (root) { root.tabIndex = -1; root.focus(); }
        moved = false; break;
      }
      default: return;  // other keys: kept in the explorer by Access
    }
    ev.preventDefault();
    if (moved) moveTo();
  };

  // ---- building and following every redraw
  const layout = () => {
    if (!layer || !img) return;
    const s = geometry();
    Object.assign(layer.style, { left: img.offsetLeft + "px", top: img.offsetTop + "px",
      width: img.clientWidth + "px", height: img.clientHeight + "px" });
    const ps = fresh() ? panels() : [];
    while (grids.length > ps.length) grids.pop().remove();
    while (grids.length < ps.length) grids.push(makeGrid(grids.length));
    ps.forEach((P, p) => {
      const g = grids[p], [x0, y0, x1, y1] = P.box;
      Object.assign(g.style, { left: (x0 * s) + "px", top: (y0 * s) + "px",
        width: ((x1 - x0) * s) + "px", height: ((y1 - y0) * s) + "px" });
      g.setAttribute("aria-label", gridName(P));
      g.setAttribute("aria-rowcount", String(P.rows.length));
      g.setAttribute("aria-colcount", String(P.cols.length));
    });
    drawPick();
    drawLines();
    drawGuess();
  };
  const follow = () => {
    layout();
    const active = grids.indexOf(document.activeElement);
    if (active >= 0) { cursor.p = active; clampCursor(); moveTo(); }
    else if (last && tip.style.display !== "none") onMove(last);
    else clear();
  };
  const build = () => {
    img = root.querySelector("img.attn-picture, .attn-picture img");
    if (!img) return false;
    const parent = img.parentElement;
    if (getComputedStyle(parent).position === "static") parent.style.position = "relative";
    layer = document.createElement("div");
    layer.className = "attn-pointer-layer";
    Object.assign(layer.style, { position: "absolute", pointerEvents: "none",
      overflow: "visible", zIndex: "2" });
    img.insertAdjacentElement("afterend", layer);
    marks.row = box({ border: RING, boxShadow: HALO });
    marks.col = box({ border: RING, boxShadow: HALO });
    marks.cell = box({ border: "3px solid #000", boxShadow: HALO });
    marks.pick = box({ border: "3px dashed #000", boxShadow: HALO });
    tip = document.createElement("div");
    tip.setAttribute("role", "tooltip");
    tip.id = uid + "-tip";
    tip.className = "attn-readout";
    Object.assign(tip.style, { position: "absolute", display: "none",
      pointerEvents: "none", background: "#1f1f1f", color: "#fff",
      font: "13px/1.3 sans-serif", padding: "3px 6px", borderRadius: "3px",
      whiteSpace: "nowrap", zIndex: "3" });
    layer.appendChild(tip);
    img.addEventListener("pointermove", onMove);
    img.addEventListener("pointerdown", (ev) => { if (ev.pointerType !== "mouse") onMove(ev); });
    img.addEventListener("click", onClick);
    img.addEventListener("pointerleave", () => { last = null; clear(); });
    img.addEventListener("load", follow);
    if (window.ResizeObserver) new ResizeObserver(() => layout()).observe(img);
    layout();
    return true;
  };
  const find = () => {
    root = el.closest(".attn-explorer");
    if (!root || !build()) {
      if (tries++ < 200) setTimeout(find, 50);
      return;
    }
  };
  model.on("change:panels", follow);
  model.on("change:selected", () => { drawPick(); drawLines(); });
  const guessChanged = () => {
    drawGuess();
    const active = grids.indexOf(document.activeElement);
    if (active >= 0) moveTo();
  };
  model.on("change:guessing", guessChanged);
  model.on("change:revealed", guessChanged);
  model.on("change:guesses", guessChanged);
  model.on("change:lines", () => { drawLines(); drawGuess(); });
  find();
}
export default { render({ model, el }) { attach(model, el); } };
