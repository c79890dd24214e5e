// query_pad.js — QueryPad: drag the query (and the keys and values) on a 2-D plane.
// Everything on screen is recomputed here from the model's inputs with attn_math.js,
// so the figure responds with no kernel; the Python side computes the same with attn_core.

const PAD = { size: 300, range: 2.5, margin: 16 };

function padGeometry() {
  const half = PAD.size / 2;
  const unit = (half - PAD.margin) / PAD.range;
  return {
    px: (x) => half + x * unit,
    py: (y) => half - y * unit,
    toData: (X, Y) => [(X - half) / unit, (half - Y) / unit],
  };
}

function arrowHead(x1, y1, x2, y2, size = 9) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const p = (da) => `${x2 - size * Math.cos(a + da)},${y2 - size * Math.sin(a + da)}`;
  return `${x2},${y2} ${p(0.4)} ${p(-0.4)}`;
}

// Tick labels sit in the margin along the bottom and left edges, not on the axes,
// so no handle at (2, 0) or (0, 2) covers them.
function drawGrid(svg, g) {
  const grid = svgEl("g", { class: "abh-grid" }, svg);
  const edge = PAD.size - PAD.margin;
  for (let v = -2; v <= 2; v++) {
    const cls = v === 0 ? "abh-axis" : "abh-gridline";
    svgEl("line", { x1: g.px(v), y1: g.py(-PAD.range), x2: g.px(v), y2: g.py(PAD.range), class: cls }, grid);
    svgEl("line", { x1: g.px(-PAD.range), y1: g.py(v), x2: g.px(PAD.range), y2: g.py(v), class: cls }, grid);
    svgEl("text", { x: g.px(v), y: edge + 12, class: "abh-tick" }, grid).textContent = v;
    svgEl("text", { x: PAD.margin / 2, y: g.py(v) + 4, class: "abh-tick" }, grid).textContent = v;
  }
}

// Label placement: each label goes beyond its point, away from the origin, LABEL.gap px plus
// the label's half-extent that way (wider sideways than up or down: LABEL.dx, LABEL.dy).
// A spot is taken when within LABEL.w × LABEL.h of a placed label, within LABEL.point px of
// another vector's handle or tip, within LABEL.line px of an arrow's shaft, or off the plane:
// then turn the direction by ±45°, ±90°, ..., then try again LABEL.far px out.
const LABEL = { gap: 10, far: 24, dx: 7, dy: 4, w: 20, h: 16, point: 22, line: 7 };

function toSegment([x, y], [ax, ay], [bx, by]) {
  const [dx, dy] = [bx - ax, by - ay];
  const len2 = dx * dx + dy * dy;
  const t = len2 ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2)) : 0;
  return Math.hypot(x - ax - t * dx, y - ay - t * dy);
}

function isFree(p, owner, placed, { points, origin, shafts }) {
  const inside = (v) => v > LABEL.w / 2 && v < PAD.size - LABEL.w / 2;
  return inside(p[0]) && inside(p[1])
    && !placed.some(([a, b]) => Math.abs(a - p[0]) < LABEL.w && Math.abs(b - p[1]) < LABEL.h)
    && !points.some(({ at: [a, b], id }) => id !== owner && Math.hypot(a - p[0], b - p[1]) < LABEL.point)
    && !shafts.some((tip) => toSegment(p, origin, tip) < LABEL.line);
}

function labelSpot({ tip, id, gap = LABEL.gap }, placed, obstacles) {
  const { origin } = obstacles;
  const base = Math.hypot(tip[0] - origin[0], tip[1] - origin[1]) > 4
    ? Math.atan2(tip[1] - origin[1], tip[0] - origin[0]) : -Math.PI / 4;
  const spot = (r, da) => {
    const [c, s] = [Math.cos(base + da), Math.sin(base + da)];
    const d = r + LABEL.dx * Math.abs(c) + LABEL.dy * Math.abs(s);
    return [tip[0] + d * c, tip[1] + d * s];
  };
  for (const r of [gap, LABEL.far]) {
    for (const k of [0, 1, -1, 2, -2, 3, -3, 4]) {
      const p = spot(r, (k * Math.PI) / 4);
      if (isFree(p, id, placed, obstacles)) return p;
    }
  }
  return spot(gap, 0);
}

/**
 * Place labels [{node, tip, id, gap?}] in order, each clear of those before it and of the obstacles:
 * {origin, points: [{at, id}] handle centres and arrow tips, shafts: arrow tips (from origin)}.
 * A label ignores the point with its own id (the handle it names).
 */
function placeLabels(labels, obstacles) {
  const placed = [];
  for (const label of labels) {
    const [x, y] = labelSpot(label, placed, obstacles);
    setAttrs(label.node, { x: x.toFixed(1), y: y.toFixed(1) });
    placed.push([x, y]);
  }
}

function makeArrow(layer, colour, cls, label) {
  const g = svgEl("g", { class: cls }, layer);
  const line = svgEl("line", { stroke: colour }, g);
  const head = svgEl("polygon", { fill: colour }, g);
  const text = svgEl("text", { class: "abh-vlabel", fill: colour }, g);
  text.textContent = label;
  return { g, line, head, text };
}

function placeArrow(a, g, v) {
  const [x1, y1, x2, y2] = [g.px(0), g.py(0), g.px(v[0]), g.py(v[1])];
  setAttrs(a.line, { x1, y1, x2, y2 });
  setAttrs(a.head, { points: Math.hypot(x2 - x1, y2 - y1) > 4 ? arrowHead(x1, y1, x2, y2) : "" });
}

function makeHandle(layer, shape, colour, target, name) {
  const attrs = { class: "abh-handle", tabindex: 0, role: "slider", "aria-label": name };
  const node = shape === "rect"
    ? svgEl("rect", { ...attrs, width: 12, height: 12, fill: "white", stroke: colour }, layer)
    : svgEl("circle", { ...attrs, r: shape === "big" ? 9 : 7, fill: colour, stroke: "white" }, layer);
  node.dataset.kind = target.kind;
  node.dataset.index = target.index;
  return node;
}

function buildTable(panel, n) {
  const table = htmlEl("table", { cls: "abh-table" }, panel);
  const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
  for (const h of ["", "q·k (내적)", "cos θ", "score", "weight (가중치)"]) htmlEl("th", { text: h }, head);
  const body = htmlEl("tbody", {}, table);
  const rows = [];
  for (let j = 0; j < n; j++) {
    const tr = htmlEl("tr", {}, body);
    const name = htmlEl("td", { cls: "abh-keyname" }, tr);
    htmlEl("span", { cls: "abh-swatch", attrs: { style: `background:${OKABE_ITO[j % 7]}` } }, name);
    htmlEl("span", { text: `k${j + 1}` }, name);
    const cells = ["dot", "cos", "score"].map((r) =>
      htmlEl("td", { cls: "abh-num", attrs: { "data-role": r, "data-index": j } }, tr));
    const wcell = htmlEl("td", { cls: "abh-barcell" }, tr);
    const bar = htmlEl("span", { cls: "abh-bar", attrs: { style: `background:${OKABE_ITO[j % 7]}` } }, wcell);
    const w = htmlEl("span", { cls: "abh-num", attrs: { "data-role": "weight", "data-index": j } }, wcell);
    rows.push({ dot: cells[0], cos: cells[1], score: cells[2], bar, w });
  }
  return rows;
}

function render({ model, el }) {
  const g = padGeometry();
  const root = htmlEl("div", { cls: "abh-fig abh-querypad" }, el);
  const svg = svgEl("svg", {
    viewBox: `0 0 ${PAD.size} ${PAD.size}`, width: PAD.size, height: PAD.size,
    class: "abh-plane", tabindex: 0, role: "application",
    "aria-label": "Query pad: drag q, the keys k or the values v; arrow keys move the selected vector",
  }, root);
  drawGrid(svg, g);
  const arrows = svgEl("g", {}, svg);
  const handles = svgEl("g", {}, svg);
  const panel = htmlEl("div", { cls: "abh-panel" }, root);
  const readout = htmlEl("div", { cls: "abh-readout" }, panel);
  const qText = htmlEl("span", { cls: "abh-num", attrs: { "data-role": "query" } }, readout);
  const oText = htmlEl("span", { cls: "abh-num", attrs: { "data-role": "output" } }, readout);
  const scaleText = htmlEl("span", { cls: "abh-num abh-dim", attrs: { "data-role": "scale" } }, readout);
  const tableHolder = htmlEl("div", {}, panel);
  const controls = htmlEl("div", { cls: "abh-controls" }, panel);
  const scaleBox = checkbox(controls, "scale by 1/√dₖ (스케일)", model.get("scaled"));
  const temp = slider(controls, "temperature T (온도)", { min: 0.1, max: 5, step: 0.05, value: model.get("temperature") });
  htmlEl("div", { cls: "abh-hint", text: "Drag q (black), a key k (dot) or a value v (square). Tab to a vector, then arrow keys (Shift: fine)." }, panel);

  let parts = null;
  let selected = { kind: "query", index: 0 };

  function vectorsOf(kind) {
    return kind === "query" ? [model.get("query")] : model.get(kind === "key" ? "key_vectors" : "value_vectors");
  }

  function build(n) {
    arrows.replaceChildren();
    handles.replaceChildren();
    tableHolder.replaceChildren();
    const keyArrows = [], keyHandles = [], valueHandles = [], valueLabels = [];
    for (let j = 0; j < n; j++) {
      const c = OKABE_ITO[j % 7];
      keyArrows.push(makeArrow(arrows, c, "abh-key", `k${j + 1}`));
      valueLabels.push(svgEl("text", { class: "abh-vlabel", fill: c }, arrows));
      valueLabels[j].textContent = `v${j + 1}`;
      valueHandles.push(makeHandle(handles, "rect", c, { kind: "value", index: j }, `value v${j + 1}`));
      keyHandles.push(makeHandle(handles, "dot", c, { kind: "key", index: j }, `key k${j + 1}`));
    }
    const out = makeArrow(arrows, "#555", "abh-output", "o");
    const q = makeArrow(arrows, "#000", "abh-query", "q");
    const qHandle = makeHandle(handles, "big", "#000", { kind: "query", index: 0 }, "query q");
    parts = { n, keyArrows, keyHandles, valueHandles, valueLabels, out, q, qHandle, rows: buildTable(tableHolder, n) };
  }

  function paint() {
    const q = model.get("query"), K = model.get("key_vectors"), V = model.get("value_vectors");
    if (!parts || parts.n !== K.length) build(K.length);
    const scaled = model.get("scaled"), T = model.get("temperature");
    const r = attend(q, K, V, { scale: scaled ? null : 1, temperature: T });
    placeArrow(parts.q, g, q);
    setAttrs(parts.qHandle, { cx: g.px(q[0]), cy: g.py(q[1]) });
    placeArrow(parts.out, g, r.output);
    K.forEach((k, j) => {
      placeArrow(parts.keyArrows[j], g, k);
      setAttrs(parts.keyHandles[j], { cx: g.px(k[0]), cy: g.py(k[1]) });
      setAttrs(parts.valueHandles[j], { x: g.px(V[j][0]) - 6, y: g.py(V[j][1]) - 6 });
      const row = parts.rows[j];
      setText(row.dot, fmt(r.dots[j], 3));
      setText(row.cos, fmt(r.cosines[j], 3));
      setText(row.score, fmt(r.scores[j], 3));
      setText(row.w, fmt(r.weights[j], 3));
      row.bar.style.width = `${(80 * r.weights[j]).toFixed(1)}px`;
    });
    const at = (v) => [g.px(v[0]), g.py(v[1])];
    const labels = [
      { node: parts.q.text, tip: at(q), id: "q" },
      ...K.map((k, j) => ({ node: parts.keyArrows[j].text, tip: at(k), id: `k${j}` })),
      { node: parts.out.text, tip: at(r.output), id: "o" },
      ...V.map((v, j) => ({ node: parts.valueLabels[j], tip: at(v), id: `v${j}`, gap: 13 })), // squares: wider
    ];
    const shafts = labels.filter(({ id }) => id[0] !== "v").map(({ tip }) => tip);
    placeLabels(labels, { origin: at([0, 0]), shafts, points: labels.map(({ tip, id }) => ({ at: tip, id })) });
    setText(qText, `q = (${fmt(q[0], 3)}, ${fmt(q[1], 3)})`);
    setText(oText, `o = Σ w·v = (${fmt(r.output[0], 3)}, ${fmt(r.output[1], 3)})`);
    setText(scaleText, scaled ? `scale 1/√${q.length} = ${fmt(r.scale, 3)}` : "scale 1 (off)");
    scaleBox.checked = scaled;
    temp.input.value = T;
    setText(temp.out, fmt(T, 2));
  }

  function moveTo(target, x, y) {
    const snap = (v) => Math.round(Math.min(PAD.range, Math.max(-PAD.range, v)) * 100) / 100;
    const p = [snap(x), snap(y)];
    if (target.kind === "query") {
      model.set("query", p);
    } else {
      const name = target.kind === "key" ? "key_vectors" : "value_vectors";
      const list = model.get(name).map((v) => v.slice());
      list[target.index] = p;
      model.set(name, list);
    }
    save(model);
  }

  let dragging = null;
  function onDown(e) {
    const t = e.target.closest(".abh-handle");
    if (!t) return;
    dragging = { kind: t.dataset.kind, index: Number(t.dataset.index) };
    selected = dragging;
    svg.setPointerCapture(e.pointerId);
    t.focus({ preventScroll: true });
    e.preventDefault();
  }
  function onMove(e) {
    if (!dragging) return;
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    moveTo(dragging, ...g.toData(pt.x, pt.y));
  }
  function onUp(e) {
    dragging = null;
    if (svg.hasPointerCapture(e.pointerId)) svg.releasePointerCapture(e.pointerId);
  }
  function onKey(e) {
    const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[e.key];
    if (!d) return;
    const t = e.target.closest?.(".abh-handle");
    if (t) selected = { kind: t.dataset.kind, index: Number(t.dataset.index) };
    const step = e.shiftKey ? 0.01 : 0.1;
    const v = vectorsOf(selected.kind)[selected.index];
    moveTo(selected, v[0] + d[0] * step, v[1] + d[1] * step);
    e.preventDefault();
  }
  svg.addEventListener("pointerdown", onDown);
  svg.addEventListener("pointermove", onMove);
  svg.addEventListener("pointerup", onUp);
  svg.addEventListener("pointercancel", onUp);
  svg.addEventListener("keydown", onKey);
  scaleBox.addEventListener("change", () => { model.set("scaled", scaleBox.checked); save(model); });
  temp.input.addEventListener("input", () => { model.set("temperature", Number(temp.input.value)); save(model); });

  const off = onChanges(model, ["query", "key_vectors", "value_vectors", "scaled", "temperature"], paint);
  paint();
  return () => off();
}

export default { render };
