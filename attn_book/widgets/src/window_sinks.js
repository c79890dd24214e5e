// window_sinks.js — WindowSinks: query t's row of weights under a sliding window of W keys,
// with gpt-oss's sink and a sigmoid gate, and the ring buffer of W slots holding the keys.
// Everything is recomputed here (attn_math.windowStep) from the vectors the Python side sends.

import { fmt, windowStep } from "./attn_math.js";
import {
  boundCheckbox,
  boundSlider,
  htmlEl,
  liveRegion,
  onChanges,
  onDrag,
  setAttrs,
  setText,
  setTitle,
  svgEl,
  translator,
  update,
} from "./dom.js";

/**
 * The traits of window_sinks.py's WindowSinks that this file reads.
 * @typedef {object} WindowSinksModel
 * @property {string[]} tokens - n tokens
 * @property {number[][]} query_vectors - (n, E)
 * @property {number[][]} key_vectors - (n, E)
 * @property {number[][]} value_vectors - (n, Ev)
 * @property {number} step - the current token t, 0 … n − 1
 * @property {number} window - W, 1 … n
 * @property {boolean} sink - join the sink logit to the row's softmax
 * @property {number} sink_logit - z
 * @property {boolean} gate - multiply the output by σ(gate_logit)
 * @property {number} gate_logit - g
 */

const INPUTS = ["step", "window", "sink", "sink_logit", "gate", "gate_logit"];
const BAR = "#0072B2"; // Okabe–Ito blue: a key's weight
const SINK = "#D55E00"; // Okabe–Ito vermillion: the sink's share
const WRITTEN = "#E69F00"; // Okabe–Ito orange: the slot just written
const MASKED = "#e8e8e8"; // a key the query does not see
const WIDTH = 360; // viewBox width: drawn at about its own size on a 360 px phone
const PAD = 8;
const CHART = { top: 34, height: 80 }; // the bars' area; weight 1 is `height` px tall
const BASE = CHART.top + CHART.height; // the bars' baseline
const RING = { top: 210, height: 44 }; // the slots' boxes

/** A centred label's x, moved in so that its `half` width stays inside the drawing. */
const within = (x, half) => Math.min(Math.max(x, PAD + half), WIDTH - PAD - half);

/**
 * A column's state ("아직 안 씀", "윈도우 밖") or number, on one line, or on two, cut at its
 * first space, when it has words that would run into the next column's (48 px): the lower
 * line stays where one line would be, just above the axis.
 */
function setStacked(node, value) {
  const cut = value.indexOf(" ");
  if (cut < 0 || value.length <= 4) {
    if (node.firstElementChild) node.replaceChildren();
    setText(node, value);
    return;
  }
  const x = node.getAttribute("x");
  const line = (part, dy) => {
    const span = svgEl("tspan", { x, dy });
    span.textContent = part;
    return span;
  };
  node.replaceChildren(line(value.slice(0, cut), "-1.2em"), line(value.slice(cut + 1), "1.2em"));
}

const text = (parent, attrs, value = "") => {
  const node = svgEl("text", attrs, parent);
  node.textContent = value;
  return node;
};

/** The columns of the bar chart: one per token and one for the sink. Drawn once per n. */
function buildChart(svg, tokens, t) {
  const n = tokens.length;
  const colW = Math.min(48, Math.floor((WIDTH - 2 * PAD) / (n + 1)));
  const fs = Math.max(9, Math.min(13, colW / 3.4)); // three Hangul syllables fit a column
  const x0 = PAD;
  const band = svgEl("rect", { y: CHART.top - 16, height: CHART.height + 54, rx: 4 }, svg);
  setAttrs(band, { fill: BAR, "fill-opacity": 0.08, stroke: BAR, "stroke-opacity": 0.5 });
  const bandLabel = text(svg, { y: BASE + 52, class: "abh-label", fill: BAR });
  const title = text(svg, { x: PAD, y: 12, class: "abh-title" });
  const columns = tokens.map((token, j) => {
    const x = x0 + j * colW;
    const hit = svgEl(
      "rect",
      { x, y: CHART.top - 16, width: colW, height: CHART.height + 54 },
      svg,
    );
    setAttrs(hit, { fill: "transparent", class: "abh-column", "data-index": j, cursor: "pointer" });
    const ghost = svgEl(
      "rect",
      { x: x + 6, y: CHART.top, width: colW - 12, height: CHART.height },
      svg,
    );
    setAttrs(ghost, { fill: MASKED, "pointer-events": "none" });
    const bar = svgEl(
      "rect",
      { x: x + 6, width: colW - 12, fill: BAR, "pointer-events": "none" },
      svg,
    );
    const value = text(svg, {
      x: x + colW / 2,
      class: "abh-label abh-num",
      "pointer-events": "none",
    });
    const label = text(
      svg,
      {
        x: x + colW / 2,
        y: BASE + 16,
        class: "abh-token",
        "text-anchor": "middle",
        style: `font-size:${fs}px`,
        "pointer-events": "none",
      },
      token,
    );
    const pos = text(
      svg,
      { x: x + colW / 2, y: BASE + 30, class: "abh-label", "pointer-events": "none" },
      t("p {j}", { j }),
    );
    return { x, hit, ghost, bar, value, label, pos };
  });
  const sx = x0 + n * colW + 4;
  const sink = {
    bar: svgEl("rect", { x: sx + 6, width: colW - 12, fill: SINK }, svg),
    value: text(svg, { x: sx + colW / 2, class: "abh-label abh-num" }),
    label: text(svg, { x: sx + colW / 2, y: BASE + 16, class: "abh-label" }, t("sink")),
    logit: text(svg, { x: sx + colW / 2, y: BASE + 30, class: "abh-label abh-num" }),
  };
  svgEl("line", { x1: PAD, x2: sx + colW, y1: BASE, y2: BASE, class: "abh-axis" }, svg);
  return { n, colW, band, bandLabel, title, columns, sink };
}

/** The ring buffer's W slots, the ghost of the key evicted and the wrap-around arrow. */
function buildRing(svg, window, t) {
  const slotW = Math.min(56, Math.floor((WIDTH - 2 * PAD) / window));
  const title = text(svg, { x: PAD, y: RING.top - 10, class: "abh-title" });
  const slots = Array.from({ length: window }, (_, j) => {
    const x = PAD + j * slotW;
    const box = svgEl(
      "rect",
      { x: x + 2, y: RING.top, width: slotW - 4, height: RING.height, rx: 4 },
      svg,
    );
    const token = text(svg, {
      x: x + slotW / 2,
      y: RING.top + 19,
      class: "abh-token",
      "text-anchor": "middle",
    });
    const pos = text(svg, { x: x + slotW / 2, y: RING.top + 36, class: "abh-label abh-num" });
    text(
      svg,
      { x: x + slotW / 2, y: RING.top + RING.height + 14, class: "abh-label" },
      t("slot {j}", { j }),
    );
    return { x, box, token, pos };
  });
  const gy = RING.top + RING.height + 24; // the evicted key's ghost, under its slot
  const ghost = svgEl("g", { "pointer-events": "none" }, svg);
  const ghostBox = svgEl(
    "rect",
    { y: gy, width: slotW - 4, height: 30, rx: 4, fill: "none" },
    ghost,
  );
  setAttrs(ghostBox, { stroke: SINK, "stroke-dasharray": "4 3", "stroke-width": 1.5 });
  const ghostText = text(ghost, {
    y: gy + 19,
    class: "abh-token abh-evicted",
    "text-anchor": "middle",
  });
  const ghostNote = text(ghost, { y: gy + 44, class: "abh-label" });
  const wrapY = RING.top + RING.height + 80; // "wraps": from the last slot back to slot 0
  const [right, mid] = [PAD + window * slotW - 2, RING.top + RING.height / 2];
  const wrap = svgEl("path", { fill: "none", stroke: "#777", "stroke-width": 1.2 }, svg);
  setAttrs(wrap, { d: `M${right} ${mid} h4 V${wrapY} H${PAD - 4} V${mid} h4 l-4 -4 m4 4 l-4 4` });
  const wrapText = { x: within((PAD + right) / 2, 80), y: wrapY + 14, class: "abh-label" };
  text(svg, wrapText, t("after slot {last}, back to slot 0", { last: window - 1 }));
  return { window, slotW, title, slots, ghost, ghostBox, ghostText, ghostNote, height: wrapY + 20 };
}

function spokenRow(tokens, r) {
  const seen = tokens.map((tok, j) => (r.visible[j] ? `${tok} ${fmt(r.weights[j], 3)}` : null));
  return seen.filter(Boolean).join(", ");
}

/** @param {{model: import("./dom.js").Model & WindowSinksModel, el: HTMLElement}} ctx */
function render({ model, el }) {
  const tokens = model.get("tokens");
  const n = tokens.length;
  const t = translator(model);
  const fig = htmlEl("div", { cls: "abh-fig abh-window" }, el);
  const controls = htmlEl("div", { cls: "abh-controls" }, fig);
  const stepSlider = boundSlider(
    model,
    controls,
    "step",
    t("token t"),
    { min: 0, max: n - 1, step: 1 },
    (step) => `${step} (${tokens[step]})`,
  );
  const windowSlider = boundSlider(
    model,
    controls,
    "window",
    t("window W"),
    { min: 1, max: n, step: 1 },
    (w) => (w === n ? t("{W} (full causal)", { W: w }) : String(w)),
  );
  const sinkBox = boundCheckbox(model, controls, "sink", t("sink"));
  const sinkSlider = boundSlider(
    model,
    controls,
    "sink_logit",
    t("sink logit z"),
    { min: -4, max: 4, step: 0.1 },
    (z) => fmt(z, 1),
  );
  const gateBox = boundCheckbox(model, controls, "gate", t("gate"));
  const gateSlider = boundSlider(
    model,
    controls,
    "gate_logit",
    t("gate logit g"),
    { min: -4, max: 4, step: 0.1 },
    (g) => fmt(g, 1),
  );
  // The token slider's value names its word ("5 (샀다)"): the figures' Hangul font before
  // the monospace one of .abh-num, which has no Hangul.
  stepSlider.out.style.fontFamily = '"ABH Hangul", ui-monospace, "DejaVu Sans Mono", monospace';
  const svg = svgEl("svg", { role: "img", width: WIDTH }, fig);
  svg.setAttribute(
    "aria-label",
    t("Query t's weights over the keys under a sliding window, and the ring buffer of W slots"),
  );
  const chart = buildChart(svg, tokens, t);
  let ring = null;
  const ringLayer = svgEl("g", {}, svg);
  const readout = htmlEl("div", { cls: "abh-readout abh-num" }, fig);
  const sumLine = htmlEl("div", { attrs: { "data-role": "sum" } }, readout);
  const outLine = htmlEl("div", { attrs: { "data-role": "output" } }, readout);
  const hint = t(
    "Bars: the weights of query t over the keys (grey: outside the window, or not written yet); " +
      "vermillion: the sink's share. Boxes: the ring buffer's W slots; orange: the slot written " +
      "at step t; dashed: the key it overwrote. Tap or drag across the words to move t.",
  );
  htmlEl("div", { cls: "abh-hint", text: hint }, fig);
  const say = liveRegion(fig);

  function paint() {
    const step = Math.min(model.get("step"), n - 1);
    const W = Math.min(model.get("window"), n);
    const sinkOn = model.get("sink");
    const gateOn = model.get("gate");
    const r = windowStep(
      model.get("query_vectors"),
      model.get("key_vectors"),
      model.get("value_vectors"),
      step,
      W,
      {
        sink: sinkOn ? model.get("sink_logit") : null,
        gate: gateOn ? model.get("gate_logit") : null,
      },
    );
    // The bars: query t's weights; keys outside the window (or after t) are grey, no number.
    const first = Math.max(0, step - W + 1);
    setAttrs(chart.band, {
      x: chart.columns[first].x + 2,
      width: (step - first + 1) * chart.colW - 4,
    });
    const middle = chart.columns[first].x + ((step - first + 1) * chart.colW) / 2;
    setAttrs(chart.bandLabel, { x: within(middle, 75) });
    const seen = step - first + 1;
    setText(
      chart.bandLabel,
      W === 1
        ? t("window: {seen} of W = {W} key", { seen, W })
        : t("window: {seen} of W = {W} keys", { seen, W }),
    );
    setTitle(
      chart.title,
      t("weights of query t = {t} ({token})", { t: step, token: tokens[step] }),
    );
    chart.columns.forEach((c, j) => {
      const seen = r.visible[j];
      const h = seen ? r.weights[j] * CHART.height : 0;
      setAttrs(c.bar, { y: BASE - h, height: h });
      setAttrs(c.ghost, { visibility: seen ? "hidden" : "visible" });
      setAttrs(c.value, { y: BASE - h - 4 });
      setStacked(c.value, seen ? fmt(r.weights[j], 2) : j > step ? t("later") : t("out"));
      c.label.classList.toggle("abh-selected", j === step);
      setAttrs(c.label, { fill: seen ? "#222" : "#767676" });
    });
    const sh = r.share * CHART.height;
    setAttrs(chart.sink.bar, { y: BASE - sh, height: sh });
    setAttrs(chart.sink.value, { y: BASE - sh - 4 });
    setText(chart.sink.value, sinkOn ? fmt(r.share, 2) : t("off"));
    setText(chart.sink.logit, sinkOn ? t("z {z}", { z: fmt(model.get("sink_logit"), 1) }) : "");
    // The ring buffer: rebuilt when W changes.
    if (!ring || ring.window !== W) {
      ringLayer.replaceChildren();
      ring = buildRing(ringLayer, W, t);
      setAttrs(svg, { viewBox: `0 0 ${WIDTH} ${ring.height}`, height: ring.height });
    }
    setTitle(
      ring.title,
      W === 1
        ? t("ring buffer: {W} slot, token t in slot t mod {W}", { W })
        : t("ring buffer: {W} slots, token t in slot t mod {W}", { W }),
    );
    ring.slots.forEach((s, j) => {
      const p = j < r.slots.length ? r.slots[j] : null;
      const written = j === r.written;
      setAttrs(s.box, {
        fill: written ? "#fbe3b1" : p === null ? "none" : "#f4f4f4",
        stroke: written ? WRITTEN : "#999",
        "stroke-width": written ? 3 : 1,
        "stroke-dasharray": p === null ? "4 3" : "",
      });
      setText(s.token, p === null ? t("empty") : tokens[p]);
      setText(s.pos, p === null ? "" : t("p {j}", { j: p }));
    });
    const gone = r.evicted;
    setAttrs(ring.ghost, { visibility: gone === null ? "hidden" : "visible" });
    if (gone !== null) {
      const x = ring.slots[r.written].x;
      setAttrs(ring.ghostBox, { x: x + 2 });
      setAttrs(ring.ghostText, { x: x + ring.slotW / 2 });
      setAttrs(ring.ghostNote, { x: x + ring.slotW / 2 });
      setText(ring.ghostText, tokens[gone]);
      setText(ring.ghostNote, t("p {j} out", { j: gone }));
    }
    // The numbers, under the drawing.
    const total = r.sum + r.share;
    const sumText = sinkOn
      ? t("row sum {sum} + sink {share} = {total}", {
          sum: fmt(r.sum, 3),
          share: fmt(r.share, 3),
          total: fmt(total, 3),
        })
      : t("row sum {sum} (no sink)", { sum: fmt(r.sum, 3) });
    setText(sumLine, sumText);
    const vec = (v) => `(${v.map((x) => fmt(x, 3)).join(", ")})`;
    const outText = gateOn
      ? t("output o = {o}; gate σ({g}) = {gate}: o′ = {gated}", {
          o: vec(r.output),
          g: fmt(model.get("gate_logit"), 1),
          gate: fmt(r.gate, 3),
          gated: vec(r.gated),
        })
      : t("output o = {o}", { o: vec(r.output) });
    setText(outLine, outText);
    for (const s of [stepSlider, windowSlider, sinkSlider, gateSlider, sinkBox, gateBox]) s.show();
    sinkSlider.input.disabled = !sinkOn;
    gateSlider.input.disabled = !gateOn;
    const ringText =
      gone === null
        ? t("{token} written to slot {slot}", { token: tokens[step], slot: r.written })
        : t("{token} written to slot {slot}, evicting {evicted}", {
            token: tokens[step],
            slot: r.written,
            evicted: tokens[gone],
          });
    const weights = spokenRow(tokens, r);
    say(
      t("t = {t}, W = {W}: {ring}. Weights: {weights}. {sum}.", {
        t: step,
        W,
        ring: ringText,
        weights,
        sum: sumText,
      }),
    );
  }

  // A tap, a click or a drag across the columns moves t.
  onDrag(svg, ".abh-column", {
    start: (hit) => {
      update(model, "step", Number(hit.dataset.index));
      return true;
    },
    move: (_, x) => {
      const j = Math.floor((x - PAD) / chart.colW);
      if (j >= 0 && j < n && j !== model.get("step")) update(model, "step", j);
    },
  });

  const off = onChanges(model, INPUTS, paint);
  paint();
  return () => off();
}

export default { render };
