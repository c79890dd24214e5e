// scaling_explorer.js — ScalingExplorer: redraws tables computed in Python (no randomness here).

import { fmt } from "./attn_math.js";
import {
  htmlEl,
  liveRegion,
  onChanges,
  setText,
  setTitle,
  slider,
  svgEl,
  translator,
  update,
} from "./dom.js";

/**
 * The traits of scaling_explorer.py's ScalingExplorer that this file reads.
 * @typedef {object} ScalingRow - one d_k: {d_k, edges, raw: Stats, scaled: Stats}
 * @property {number} d_k
 * @property {number[]} edges - histogram bin edges, shape (B + 1,), the same for every d_k,
 *   covering every score at the largest d_k
 * @property {{std: number, hist: number[], max_weight: number, entropy: number,
 *   grad: number}} raw - scale 1
 * @property {{std: number, hist: number[], max_weight: number, entropy: number,
 *   grad: number}} scaled - scale 1/√d_k
 * @typedef {object} ScalingExplorerModel
 * @property {number} d_k - one of dims
 * @property {number[]} dims - the d_k of the slider's stops and of the curves' points
 * @property {ScalingRow[]} table - one row per entry of dims
 * @property {number} n_keys - S, keys per softmax
 * @property {number} n_samples - queries per d_k
 */

const RAW = "#D55E00"; // Okabe–Ito vermillion: without 1/√d_k
const SCALED = "#0072B2"; // Okabe–Ito blue: with 1/√d_k
const HIST = { w: 360, h: 170, left: 30, bottom: 24 };
const LINE = { w: 300, h: 170, left: 36, bottom: 28 };

/** Each histogram as one filled staircase (hundreds of bins, under a pixel each). */
function drawBars(svg, row, x, y) {
  for (const [name, colour] of [
    ["scaled", SCALED],
    ["raw", RAW],
  ]) {
    const opacity = name === "raw" ? 0.55 : 0.8;
    const steps = row[name].hist.map(
      (f, i) =>
        `L${x(row.edges[i]).toFixed(2)},${y(f).toFixed(2)}H${x(row.edges[i + 1]).toFixed(2)}`,
    );
    const d = `M${x(row.edges[0])},${y(0)}${steps.join("")}V${y(0)}Z`;
    svgEl("path", { d, fill: colour, "fill-opacity": opacity, stroke: colour }, svg);
  }
}

/** The histogram of the raw and scaled scores over edges shared by every d_k (none clipped). */
function drawHistogram(svg, row, title) {
  svg.replaceChildren();
  const edges = row.edges,
    n = edges.length - 1;
  const [lo, hi] = [edges[0], edges[n]];
  const base = HIST.h - HIST.bottom;
  const peak = Math.max(...row.raw.hist, ...row.scaled.hist, 0.05);
  const x = (v) => HIST.left + ((v - lo) / (hi - lo)) * (HIST.w - HIST.left - 10);
  const y = (f) => base - (f / peak) * (base - 24);
  setTitle(svgEl("text", { x: 4, y: 12, class: "abh-title" }, svg), title);
  drawBars(svg, row, x, y);
  svgEl("line", { x1: HIST.left, x2: HIST.w - 10, y1: base, y2: base, class: "abh-axis" }, svg);
  for (const v of [lo, lo / 2, 0, hi / 2, hi]) {
    svgEl("text", { x: x(v), y: base + 14, class: "abh-tick" }, svg).textContent = fmt(v, 0);
  }
}

function drawAxes(svg, table, x, y, hi, t) {
  const base = y(0);
  svgEl("line", { x1: LINE.left, x2: LINE.w - 10, y1: base, y2: base, class: "abh-axis" }, svg);
  svgEl("line", { x1: LINE.left, x2: LINE.left, y1: y(hi), y2: base, class: "abh-axis" }, svg);
  for (const v of [0, hi / 2, hi]) {
    svgEl("text", { x: LINE.left - 16, y: y(v) + 4, class: "abh-tick" }, svg).textContent = fmt(
      v,
      1,
    );
  }
  table.forEach((r, i) => {
    if (i % 2 === 0)
      svgEl("text", { x: x(i), y: base + 14, class: "abh-tick" }, svg).textContent = r.d_k;
  });
  svgEl("text", { x: (LINE.w + LINE.left) / 2, y: base + 26, class: "abh-tick" }, svg).textContent =
    t("dₖ");
}

/** One statistic against d_k, raw and scaled, with the current d_k marked. */
function drawCurve(svg, table, key, label, current, hi, t) {
  svg.replaceChildren();
  const base = LINE.h - LINE.bottom,
    top = 20;
  const x = (i) => LINE.left + (i / (table.length - 1)) * (LINE.w - LINE.left - 10);
  const y = (v) => base - (v / hi) * (base - top);
  setTitle(svgEl("text", { x: 4, y: 12, class: "abh-title" }, svg), label);
  drawAxes(svg, table, x, y, hi, t);
  for (const [name, stroke] of [
    ["raw", RAW],
    ["scaled", SCALED],
  ]) {
    const points = table.map((r, i) => `${x(i)},${y(r[name][key])}`).join(" ");
    svgEl("polyline", { points, fill: "none", stroke, "stroke-width": 2 }, svg);
    const at = { cx: x(current), cy: y(table[current][name][key]) };
    svgEl("circle", { ...at, r: 5, fill: stroke, stroke: "white", "data-role": "current" }, svg);
  }
}

const STATS = ["std", "max_weight", "entropy", "grad"];
function buildStats(holder, t) {
  const HEADERS = [
    "",
    t("std of scores"),
    t("largest weight"),
    t("entropy (nats)"),
    t("gradient |J|"),
  ];
  const table = htmlEl("table", { cls: "abh-table" }, holder);
  const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
  for (const h of HEADERS) htmlEl("th", { text: h }, head);
  const body = htmlEl("tbody", {}, table);
  const rows = {};
  for (const [name, colour, label] of [
    ["raw", RAW, "q·k"],
    ["scaled", SCALED, "q·k / √dₖ"],
  ]) {
    const tr = htmlEl("tr", {}, body);
    const td = htmlEl("td", { cls: "abh-keyname" }, tr);
    htmlEl("span", { cls: "abh-swatch", attrs: { style: `background:${colour}` } }, td);
    htmlEl("span", { text: label }, td);
    rows[name] = STATS.map((r) =>
      htmlEl("td", { cls: "abh-num", attrs: { "data-role": `${name}-${r}` } }, tr),
    );
  }
  return rows;
}

function noteText(row, S, t) {
  const fields = {
    S,
    uniform: fmt(1 / S, 3),
    log: fmt(Math.log(S), 3),
    largest: fmt(row.raw.max_weight, 3),
  };
  return row.raw.max_weight > 0.8
    ? t(
        "{S} keys: uniform weights would be {uniform} each, entropy log {S} = {log}. Without " +
          "scaling, the largest weight is {largest}: softmax is saturated and its gradient small.",
        fields,
      )
    : t(
        "{S} keys: uniform weights would be {uniform} each, entropy log {S} = {log}. Without " +
          "scaling, the largest weight is {largest}: softmax is not yet saturated.",
        fields,
      );
}

/**
 * @param {{model: import("./dom.js").Model, el: HTMLElement}} ctx
 *   the model's traits: ScalingExplorerModel
 */
function render({ model, el }) {
  const t = translator(model);
  const root = htmlEl("div", { cls: "abh-fig abh-scaling" }, el);
  const left = htmlEl("div", { cls: "abh-panel" }, root);
  const controls = htmlEl("div", { cls: "abh-controls" }, left);
  const dims = model.get("dims"); // the slider's stops are the curves' points
  const stop = { min: 0, max: dims.length - 1, step: 1, value: dims.indexOf(model.get("d_k")) };
  const dk = slider(controls, t("dₖ (키 차원)"), stop);
  const box = (w, h, parent) =>
    svgEl("svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h }, parent);
  const hist = box(HIST.w, HIST.h, left);
  const stats = buildStats(left, t);
  const note = htmlEl("div", { cls: "abh-caption" }, left);
  const right = htmlEl("div", { cls: "abh-panel" }, root);
  const [maxSvg, entSvg] = [box(LINE.w, LINE.h, right), box(LINE.w, LINE.h, right)];
  const say = liveRegion(root);

  function paint() {
    const table = model.get("table"),
      d = model.get("d_k"),
      S = model.get("n_keys");
    const i = Math.max(0, model.get("dims").indexOf(d));
    const row = table[i];
    dk.input.value = i;
    setText(dk.out, String(d));
    const title = t("distribution of the scores ({S} keys × {n} queries)", {
      S,
      n: model.get("n_samples"),
    });
    drawHistogram(hist, row, title);
    for (const name of ["raw", "scaled"]) {
      STATS.forEach((key, m) => {
        setText(stats[name][m], fmt(row[name][key], 3));
      });
    }
    setText(note, noteText(row, S, t));
    drawCurve(maxSvg, table, "max_weight", t("largest weight vs dₖ"), i, 1, t);
    drawCurve(entSvg, table, "entropy", t("entropy (nats) vs dₖ"), i, Math.log(S), t);
    const stat = (name) =>
      t("largest weight {w}, entropy {H}", {
        w: fmt(row[name].max_weight, 3),
        H: fmt(row[name].entropy, 3),
      });
    say(
      t("dₖ = {d}: without scaling {raw}; scaled {scaled}.", {
        d,
        raw: stat("raw"),
        scaled: stat("scaled"),
      }),
    );
  }

  dk.input.addEventListener("input", () =>
    update(model, "d_k", model.get("dims")[Number(dk.input.value)]),
  );
  const off = onChanges(model, ["d_k", "table"], paint);
  paint();
  return () => off();
}

export default { render };
