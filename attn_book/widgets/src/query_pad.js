// query_pad.js — QueryPad: drag the query (and the keys and values) on a 2-D plane.
// Everything on screen is recomputed here from the model's inputs with attn_math.js,
// so the figure responds with no kernel; the Python side computes the same with attn_core.

import { attend, fmt, OKABE_ITO, rotary } from "./attn_math.js";
import {
  boundCheckbox,
  htmlEl,
  liveRegion,
  onChanges,
  onDrag,
  pointAttrs,
  setAttrs,
  setText,
  slider,
  spoken,
  svgEl,
  temperatureSlider,
  translator,
  update,
} from "./dom.js";
import { arrowHead, HANDLE, PAD, padGeometry, placeLabels } from "./query_pad_layout.js";

/**
 * The traits of query_pad.py's QueryPad that this file reads.
 * @typedef {object} QueryPadModel
 * @property {number[]} query - q, shape (2,)
 * @property {number[][]} key_vectors - K, shape (S, 2)
 * @property {number[][]} value_vectors - V, shape (S, 2)
 * @property {boolean} scaled - multiply q·k by 1/√dₖ
 * @property {number} temperature - T > 0
 * @property {string[]} show - the parts shown beyond q·k and cos θ:
 *   "weights", "scale", "temperature", "values" (chapter 1 shows none of them)
 * @property {number} query_position - m, the query's position (only with key_positions)
 * @property {number[] | null} key_positions - n of each key; null: no positions (no RoPE)
 */

const INPUTS = [
  "query",
  "key_vectors",
  "value_vectors",
  "scaled",
  "temperature",
  "show",
  "query_position",
  "key_positions",
];
const MAX_POSITION = 12; // as query_pad.py's MAX_POSITION

// Tick labels sit in the margin along the bottom and left edges, not on the axes,
// so no handle at (2, 0) or (0, 2) covers them.
function drawGrid(svg, g) {
  const grid = svgEl("g", { class: "abh-grid" }, svg);
  const edge = PAD.size - PAD.margin;
  const [lo, hi] = [g.py(-PAD.range), g.py(PAD.range)];
  for (let v = -2; v <= 2; v++) {
    const cls = v === 0 ? "abh-axis" : "abh-gridline";
    svgEl("line", { x1: g.px(v), y1: lo, x2: g.px(v), y2: hi, class: cls }, grid);
    svgEl(
      "line",
      { x1: g.px(-PAD.range), y1: g.py(v), x2: g.px(PAD.range), y2: g.py(v), class: cls },
      grid,
    );
    svgEl("text", { x: g.px(v), y: edge + 12, class: "abh-tick" }, grid).textContent = v;
    svgEl("text", { x: PAD.margin / 2, y: g.py(v) + 4, class: "abh-tick" }, grid).textContent = v;
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

// The query is a ring drawn above everything: its inside shows the key or value under it, but
// a press anywhere on it (centre or ring) grabs q. Values sit above keys. A handle hidden
// under another stays reachable with Tab and the arrow keys.
function makeHandle(layer, kind, colour, index, name, t) {
  const attrs = { class: "abh-handle", ...pointAttrs(name, t) };
  const side = HANDLE.valueSquare;
  const node = {
    query: () =>
      svgEl(
        "circle",
        {
          ...attrs,
          r: HANDLE.queryRing,
          fill: "none",
          stroke: colour,
          "stroke-width": HANDLE.queryStroke,
          "pointer-events": "all",
        },
        layer,
      ),
    key: () =>
      svgEl("circle", { ...attrs, r: HANDLE.keyDot, fill: colour, stroke: "white" }, layer),
    value: () =>
      svgEl("rect", { ...attrs, width: side, height: side, fill: "white", stroke: colour }, layer),
  }[kind]();
  node.dataset.kind = kind;
  node.dataset.index = index;
  return node;
}

function placeHandle(node, g, v) {
  if (node.tagName === "rect") {
    const half = HANDLE.valueSquare / 2;
    setAttrs(node, { x: g.px(v[0]) - half, y: g.py(v[1]) - half });
  } else {
    setAttrs(node, { cx: g.px(v[0]), cy: g.py(v[1]) });
  }
}

// Columns of the table: [role, header, the part of `show` it needs (null: always)]. With
// positions (chapter 6) θ is RoPE's angle step, so the cosine's header names q and k instead.
const columnsOf = (t, shown) => [
  ["dot", t("q·k (내적)"), null],
  ["cos", shown.has("positions") ? t("cos ∠(q, k)") : t("cos θ"), null],
  ["score", t("score"), "scale"],
  ["weight", t("weight (가중치)"), "weights"],
  ["offset", t("n − m"), "positions"],
];

function buildTable(panel, n, shown, t) {
  const columns = columnsOf(t, shown).filter(([, , part]) => part === null || shown.has(part));
  const table = htmlEl("table", { cls: "abh-table" }, panel);
  const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
  for (const h of ["", ...columns.map(([, header]) => header)]) htmlEl("th", { text: h }, head);
  const body = htmlEl("tbody", {}, table);
  return Array.from({ length: n }, (_, j) => {
    const tr = htmlEl("tr", {}, body);
    const name = htmlEl("td", { cls: "abh-keyname" }, tr);
    const swatch = `background:${OKABE_ITO[j % 7]}`;
    htmlEl("span", { cls: "abh-swatch", attrs: { style: swatch } }, name);
    htmlEl("span", { text: `k${j + 1}` }, name);
    const row = {};
    for (const [role] of columns) {
      const attrs = { "data-role": role, "data-index": j };
      if (role === "offset") {
        row.offset = htmlEl("td", { cls: "abh-num", attrs }, tr);
        continue;
      }
      if (role !== "weight") {
        row[role] = htmlEl("td", { cls: "abh-num", attrs }, tr);
        continue;
      }
      const cell = htmlEl("td", { cls: "abh-barcell" }, tr);
      row.bar = htmlEl("span", { cls: "abh-bar", attrs: { style: swatch } }, cell);
      row.weight = htmlEl("span", { cls: "abh-num", attrs }, cell);
    }
    return row;
  });
}

/** The plane's layers, every vector's arrow, handle and label, and the table's rows. */
function buildParts(layers, tableHolder, n, shown, t) {
  for (const layer of [layers.arrows, layers.handles, tableHolder]) layer.replaceChildren();
  const { arrows, handles } = layers;
  const keyArrows = [],
    keyHandles = [],
    valueHandles = [],
    valueLabels = [];
  for (let j = 0; j < n; j++) {
    const c = OKABE_ITO[j % 7];
    keyArrows.push(makeArrow(arrows, c, "abh-key", `k${j + 1}`));
    keyHandles.push(makeHandle(handles, "key", c, j, t("key k{j}", { j: j + 1 }), t));
  }
  // Drawn after the keys, so a value on a key (v3 = k3 = (1, 1)) is on top and grabbed first.
  for (let j = 0; j < n && shown.has("values"); j++) {
    const c = OKABE_ITO[j % 7];
    valueLabels.push(svgEl("text", { class: "abh-vlabel", fill: c }, arrows));
    valueLabels[j].textContent = `v${j + 1}`;
    valueHandles.push(makeHandle(handles, "value", c, j, t("value v{j}", { j: j + 1 }), t));
  }
  // With positions: the vectors before their turn, thin and dashed, under everything.
  const ghosts = shown.has("positions")
    ? Array.from({ length: n + 1 }, (_, j) => {
        const c = j < n ? OKABE_ITO[j % 7] : "#000";
        const a = makeArrow(arrows, c, "abh-ghost", "");
        setAttrs(a.line, { "stroke-dasharray": "3 3", "stroke-width": 1, opacity: 0.6 });
        setAttrs(a.head, { opacity: 0 });
        arrows.prepend(a.g);
        return a;
      })
    : [];
  const out = shown.has("values") ? makeArrow(arrows, "#555", "abh-output", "o") : null;
  const q = makeArrow(arrows, "#000", "abh-query", "q");
  const qHandle = makeHandle(handles, "query", "#000", 0, t("query q"), t);
  const rows = buildTable(tableHolder, n, shown, t);
  return { n, keyArrows, keyHandles, valueHandles, valueLabels, out, q, qHandle, rows, ghosts };
}

function paintRows(rows, r) {
  rows.forEach((row, j) => {
    setText(row.dot, fmt(r.dots[j], 3));
    setText(row.cos, fmt(r.cosines[j], 3));
    if (row.score) setText(row.score, fmt(r.scores[j], 3));
    if (!row.weight) return;
    setText(row.weight, fmt(r.weights[j], 3));
    row.bar.style.width = `${(80 * r.weights[j]).toFixed(1)}px`;
  });
}

function paintOffsets(rows, offsets) {
  rows.forEach((row, j) => {
    if (row.offset) setText(row.offset, String(offsets[j]).replace("-", "−"));
  });
}

function paintLabels(parts, g, { q, K, V, output }) {
  const at = (v) => [g.px(v[0]), g.py(v[1])];
  const labels = [
    { node: parts.q.text, tip: at(q), id: "q" },
    ...K.map((k, j) => ({ node: parts.keyArrows[j].text, tip: at(k), id: `k${j}` })),
  ];
  if (parts.out) {
    labels.push({ node: parts.out.text, tip: at(output), id: "o" });
    V.forEach((v, j) => {
      labels.push({ node: parts.valueLabels[j], tip: at(v), id: `v${j}`, gap: 13 }); // squares
    });
  }
  const shafts = labels.filter(({ id }) => id[0] !== "v").map(({ tip }) => tip);
  const points = labels.map(({ tip, id }) => ({ at: tip, id }));
  const spots = placeLabels(labels, { origin: at([0, 0]), shafts, points });
  spots.forEach(([x, y], i) => {
    setAttrs(labels[i].node, { x: x.toFixed(1), y: y.toFixed(1) });
  });
}

function paintPlane(parts, g, v) {
  if (parts.ghosts.length) {
    v.plainK.forEach((k, j) => {
      placeArrow(parts.ghosts[j], g, k);
    });
    placeArrow(parts.ghosts[v.plainK.length], g, v.plainQ);
  }
  placeArrow(parts.q, g, v.q);
  placeHandle(parts.qHandle, g, v.q);
  if (parts.out) placeArrow(parts.out, g, v.output);
  v.K.forEach((k, j) => {
    placeArrow(parts.keyArrows[j], g, k);
    placeHandle(parts.keyHandles[j], g, k);
    if (parts.out) placeHandle(parts.valueHandles[j], g, v.V[j]);
  });
  paintLabels(parts, g, v);
}

function buildPanel(model, root, t) {
  const panel = htmlEl("div", { cls: "abh-panel" }, root);
  const readout = htmlEl("div", { cls: "abh-readout" }, panel);
  const num = (role, cls = "abh-num") =>
    htmlEl("span", { cls, attrs: { "data-role": role } }, readout);
  const text = { q: num("query"), o: num("output"), scale: num("scale", "abh-num abh-dim") };
  const tableHolder = htmlEl("div", {}, panel);
  const controls = htmlEl("div", { cls: "abh-controls" }, panel);
  const scaleBox = boundCheckbox(model, controls, "scaled", t("scale by 1/√dₖ (스케일)"));
  const temp = temperatureSlider(model, controls);
  const positions = htmlEl("div", { cls: "abh-controls abh-positions" }, panel);
  const hint = htmlEl("div", { cls: "abh-hint" }, panel);
  return { text, tableHolder, scaleBox, temp, positions, hint };
}

/**
 * The position controls (RoPE): a slider for m and one for each key's n, and two buttons
 * that move every word one place, which leaves every n − m, and so every weight, unchanged.
 */
function buildPositions(model, holder, n, t) {
  holder.replaceChildren();
  const range = { min: 0, max: MAX_POSITION, step: 1 };
  const m = slider(holder, t("query position m (위치)"), { ...range, value: 0 });
  m.input.addEventListener("input", () => update(model, "query_position", Number(m.input.value)));
  const keys = Array.from({ length: n }, (_, j) => {
    const s = slider(holder, t("k{j} position n{j}", { j: j + 1 }), { ...range, value: 0 });
    s.input.addEventListener("input", () => {
      const list = model.get("key_positions").slice();
      list[j] = Number(s.input.value);
      update(model, "key_positions", list);
    });
    return s;
  });
  const shift = (by) => {
    model.set("query_position", model.get("query_position") + by);
    update(
      model,
      "key_positions",
      model.get("key_positions").map((p) => p + by),
    );
  };
  const button = (text, by) => {
    const b = htmlEl("button", { cls: "abh-button", text, attrs: { type: "button" } }, holder);
    b.addEventListener("click", () => shift(by));
    return b;
  };
  const left = button(t("◀ every word one place back"), -1);
  const right = button(t("every word one place on ▶"), 1);
  const show = () => {
    const mm = model.get("query_position"),
      ns = model.get("key_positions");
    m.input.value = mm;
    setText(m.out, String(mm));
    keys.forEach((s, j) => {
      s.input.value = ns[j];
      setText(s.out, String(ns[j]));
    });
    const all = [mm, ...ns];
    left.disabled = Math.min(...all) <= 0;
    right.disabled = Math.max(...all) >= MAX_POSITION;
  };
  return { show };
}

/** What a screen reader hears after a change: the moved vector, the weights, the output. */
function spokenState(moved, r, shown, t) {
  const keys = r.dots.map((_, j) => `k${j + 1}`);
  const parts = [`${moved.name} = (${fmt(moved.v[0], 2)}, ${fmt(moved.v[1], 2)})`];
  if (shown.has("weights"))
    parts.push(t("weights {weights}", { weights: spoken(keys, r.weights) }));
  else parts.push(`q·k ${spoken(keys, r.dots)}`, `cos θ ${spoken(keys, r.cosines)}`);
  if (shown.has("values"))
    parts.push(t("output o = ({x}, {y})", { x: fmt(r.output[0], 3), y: fmt(r.output[1], 3) }));
  return `${parts.join("; ")}.`;
}

function showParts(panel, shown, t) {
  const toggle = (node, on) => node.toggleAttribute("hidden", !on);
  toggle(panel.text.o, shown.has("values"));
  toggle(panel.text.scale, shown.has("scale"));
  toggle(panel.scaleBox.wrap, shown.has("scale"));
  toggle(panel.temp.wrap, shown.has("temperature"));
  toggle(panel.positions, shown.has("positions"));
  const hint = shown.has("values")
    ? t(
        "Drag q (black ring, centre or edge), a key k (dot) or a value v (square). Or Tab to " +
          "any vector, one hidden under another too, then arrow keys (Shift: fine).",
      )
    : t(
        "Drag q (black ring, centre or edge), a key k (dot). Or Tab to any vector, one hidden " +
          "under another too, then arrow keys (Shift: fine).",
      );
  const turned = t(
    "Arrows are turned by their positions (1 radian each); dashed: before the turn.",
  );
  setText(panel.hint, shown.has("positions") ? `${hint} ${turned}` : hint);
}

/** @param {{model: import("./dom.js").Model, el: HTMLElement}} ctx (traits: QueryPadModel) */
function render({ model, el }) {
  const t = translator(model);
  const g = padGeometry();
  const root = htmlEl("div", { cls: "abh-fig abh-querypad" }, el);
  const svg = svgEl(
    "svg",
    {
      viewBox: `0 0 ${PAD.size} ${PAD.size}`,
      width: PAD.size,
      height: PAD.size,
      class: "abh-plane",
      tabindex: 0,
      role: "application",
      "aria-label": t(
        "Query pad: drag q, a key k or a value v; arrow keys move the selected vector",
      ),
    },
    root,
  );
  drawGrid(svg, g);
  const layers = { arrows: svgEl("g", {}, svg), handles: svgEl("g", {}, svg) };
  const panel = buildPanel(model, root, t);
  const say = liveRegion(root);
  let parts = null,
    shape = "";
  let selected = { kind: "query", index: 0 };

  let positionControls = null;

  function paint() {
    const plainQ = model.get("query"),
      plainK = model.get("key_vectors"),
      V = model.get("value_vectors");
    const shown = new Set(model.get("show"));
    const ns = model.get("key_positions");
    const m = model.get("query_position");
    if (ns !== null && ns !== undefined) shown.add("positions");
    if (shape !== `${plainK.length} ${[...shown].sort()}`) {
      shape = `${plainK.length} ${[...shown].sort()}`;
      parts = buildParts(layers, panel.tableHolder, plainK.length, shown, t);
      showParts(panel, shown, t);
      positionControls = shown.has("positions")
        ? buildPositions(model, panel.positions, plainK.length, t)
        : null;
    }
    const on = shown.has("positions");
    const q = on ? rotary([plainQ], [m])[0] : plainQ; // R(mθ) q, θ = 1 radian
    const K = on ? rotary(plainK, ns) : plainK; // row j turned by n_j θ
    const scaled = model.get("scaled");
    const r = attend(q, K, V, { scale: scaled ? null : 1, temperature: model.get("temperature") });
    paintPlane(parts, g, { q, K, V, output: r.output, plainQ, plainK });
    paintRows(parts.rows, r);
    if (on) {
      paintOffsets(
        parts.rows,
        ns.map((n) => n - m),
      );
      positionControls.show();
    }
    const plain = `q = (${fmt(plainQ[0], 3)}, ${fmt(plainQ[1], 3)})`;
    const turnedQ = { q: plain, m, x: fmt(q[0], 3), y: fmt(q[1], 3) };
    setText(panel.text.q, on ? t("{q} at m = {m}, turned: ({x}, {y})", turnedQ) : plain);
    setText(panel.text.o, `o = Σ w·v = (${fmt(r.output[0], 3)}, ${fmt(r.output[1], 3)})`);
    setText(
      panel.text.scale,
      scaled
        ? t("scale 1/√{d} = {scale}", { d: q.length, scale: fmt(r.scale, 3) })
        : t("scale 1 (off)"),
    );
    panel.scaleBox.show();
    panel.temp.show();
    const moved = vectorsOf(selected.kind)[selected.index] ?? q;
    const label = selected.kind === "query" ? "q" : `${selected.kind[0]}${selected.index + 1}`;
    say(spokenState({ name: label, v: moved }, r, shown, t));
  }

  const traitOf = { query: "query", key: "key_vectors", value: "value_vectors" };
  const vectorsOf = (kind) => (kind === "query" ? [model.get("query")] : model.get(traitOf[kind]));

  // The position (in radians, θ = 1) a vector is turned by; 0 for values or without positions.
  function angleOf(target) {
    const ns = model.get("key_positions");
    if (ns === null || ns === undefined || target.kind === "value") return 0;
    return target.kind === "query" ? model.get("query_position") : ns[target.index];
  }
  const turn = (v, a) => rotary([v], [a])[0];
  const turnedOf = (target) => turn(vectorsOf(target.kind)[target.index], angleOf(target));

  // (x, y) is where the reader puts the (turned) vector: store it turned back by its angle.
  function moveTo(target, x, y) {
    const snap = (v) => Math.round(Math.min(PAD.range, Math.max(-PAD.range, v)) * 100) / 100;
    const a = angleOf(target);
    const [c, s] = [Math.cos(a), Math.sin(a)];
    const p = [snap(c * x + s * y), snap(-s * x + c * y)]; // R(−a) (x, y)
    if (target.kind === "query") return update(model, "query", p);
    const list = vectorsOf(target.kind).map((v) => v.slice());
    list[target.index] = p;
    update(model, traitOf[target.kind], list);
  }

  const targetOf = (node) => ({ kind: node.dataset.kind, index: Number(node.dataset.index) });
  onDrag(svg, ".abh-handle", {
    start: (node) => (selected = targetOf(node)),
    move: (target, X, Y) => moveTo(target, ...g.toData(X, Y)),
  });
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  svg.addEventListener("keydown", (e) => {
    const d = ARROWS[e.key];
    if (!d) return;
    const node = e.target.closest?.(".abh-handle");
    if (node) selected = targetOf(node);
    const step = e.shiftKey ? 0.01 : 0.1;
    const v = turnedOf(selected);
    moveTo(selected, v[0] + d[0] * step, v[1] + d[1] * step);
    e.preventDefault();
  });

  const off = onChanges(model, INPUTS, paint);
  paint();
  return () => off();
}

export default { render };
