// memory_calculator.js — MemoryCalculator: the bytes of the attention weights (and, with
// kv_cache, of a model's KV cache), against devices.

import {
  DTYPE_BYTES,
  fitKvHeads,
  fmtBytes,
  fmtRatio,
  kvCacheBytes,
  weightBytes,
} from "./attn_math.js";
import {
  boundSlider,
  htmlEl,
  liveRegion,
  onChanges,
  setAttrs,
  setText,
  slider,
  svgEl,
  update,
} from "./dom.js";

/**
 * The traits of memory_calculator.py's MemoryCalculator that this file reads.
 * @typedef {object} MemoryCalculatorModel
 * @property {number} n - tokens per sequence (L = S = n)
 * @property {number} heads
 * @property {number} batch
 * @property {string} dtype - a key of DTYPE_BYTES
 * @property {{name: string, bytes: number}[]} devices - memories to compare with
 * @property {number[]} contexts - context lengths marked on the axis (32k, 128k)
 * @property {boolean} kv_cache - also show the KV cache of the whole model (chapter 10)
 * @property {number} layers - the KV cache's shape: layers, KV heads, numbers per head
 * @property {number} kv_heads
 * @property {number} d_head
 */

const BAR = "#0072B2"; // Okabe–Ito blue: the current weights
const KV_BAR = "#009E73"; // Okabe–Ito bluish green: the KV cache
const DEVICE = "#D55E00"; // Okabe–Ito vermillion: a device's memory
const AXIS = { w: 640, h: 120, left: 20, right: 20, y: 70, lo: 20, hi: 46 }; // log2 bytes 20..46
const KV_AXIS = { ...AXIS, h: 150, y: 100 }; // two bars above the axis
const KV_BARS = [
  { y: 34, fill: BAR, text: "attention weights, n² per head, one layer" },
  { y: 68, fill: KV_BAR, text: "KV cache, every layer" },
];
const TICKS = [20, 25, 30, 35, 40, 45]; // 1 MiB, 32 MiB, 1 GiB, 32 GiB, 1 TiB, 32 TiB

const short = (bytes) => fmtBytes(bytes).replace(/\.0+ /, " "); // "16 GiB", not "16.0 GiB"

const xOf = (bytes) => {
  const t = (Math.log2(Math.max(bytes, 1)) - AXIS.lo) / (AXIS.hi - AXIS.lo);
  return AXIS.left + Math.min(Math.max(t, 0), 1) * (AXIS.w - AXIS.left - AXIS.right);
};

/** The axis (at height axisY), its ticks and the devices' dashed lines: drawn once. */
function drawFrame(svg, devices, axisY) {
  const [x0, x1] = [xOf(2 ** AXIS.lo), xOf(2 ** AXIS.hi)];
  svgEl("line", { x1: x0, x2: x1, y1: axisY, y2: axisY, class: "abh-axis" }, svg);
  for (const p of TICKS) {
    svgEl("text", { x: xOf(2 ** p), y: axisY + 16, class: "abh-tick" }, svg).textContent = short(
      2 ** p,
    );
  }
  devices.forEach((d, i) => {
    const x = xOf(d.bytes); // the first label left of its line, then right: they are close
    svgEl(
      "line",
      {
        x1: x,
        x2: x,
        y1: 18,
        y2: axisY,
        stroke: DEVICE,
        "stroke-dasharray": "4 3",
        "stroke-width": 1.5,
      },
      svg,
    );
    const [dx, anchor] = i % 2 === 0 ? [-4, "end"] : [4, "start"];
    const label = {
      x: x + dx,
      y: 14,
      class: "abh-label",
      fill: DEVICE,
      style: `text-anchor: ${anchor}`,
    };
    svgEl("text", label, svg).textContent = `${d.name}, ${short(d.bytes)}`;
  });
}

/** The bar of the current weights and the marks of the context lengths: redrawn on change. */
function makeMarks(svg, contexts) {
  const bar = svgEl("rect", { x: xOf(2 ** AXIS.lo), y: AXIS.y - 26, height: 22, fill: BAR }, svg);
  return { bars: [bar], marks: makeContextMarks(svg, contexts, AXIS.y) };
}

/** The two labelled bars of the KV-cache view (weights, then KV cache) and the context marks. */
function makeKvMarks(svg, contexts) {
  const bars = KV_BARS.map((b) => {
    const label = {
      x: xOf(2 ** AXIS.lo),
      y: b.y - 5,
      class: "abh-label",
      style: "text-anchor: start",
    };
    svgEl("text", label, svg).textContent = b.text;
    return svgEl("rect", { x: xOf(2 ** AXIS.lo), y: b.y, height: 18, fill: b.fill }, svg);
  });
  return { bars, marks: makeContextMarks(svg, contexts, KV_AXIS.y) };
}

function makeContextMarks(svg, contexts, axisY) {
  return contexts.map(() => ({
    tick: svgEl("line", { y1: axisY - 2, y2: axisY + 4, stroke: "#333", "stroke-width": 2 }, svg),
    text: svgEl("text", { y: axisY + 30, class: "abh-label" }, svg),
  }));
}

/** Paint each bar to its bytes, and the context marks where contextBytes put them. */
function paintMarks({ bars, marks }, bytes, contextBytes, contexts) {
  bars.forEach((bar, i) => {
    setAttrs(bar, { width: Math.max(1, xOf(bytes[i]) - xOf(2 ** AXIS.lo)) });
  });
  marks.forEach((m, i) => {
    const x = xOf(contextBytes[i]);
    setAttrs(m.tick, { x1: x, x2: x });
    setAttrs(m.text, { x });
    setText(m.text, `${contexts[i] / 1024}k`);
  });
}

function dtypeSelect(model, parent) {
  const wrap = htmlEl("label", { cls: "abh-control" }, parent);
  htmlEl("span", { text: "dtype" }, wrap);
  const select = htmlEl("select", {}, wrap);
  for (const name of Object.keys(DTYPE_BYTES)) {
    htmlEl("option", { text: `${name} (${DTYPE_BYTES[name]} B)`, attrs: { value: name } }, select);
  }
  select.addEventListener("change", () => update(model, "dtype", select.value));
  return () => {
    select.value = model.get("dtype");
  };
}

/**
 * The KV cache's own controls: layers and KV heads (d_head stays the model's). The KV heads
 * must divide the query heads: the slider steps to the next divisor in the direction moved.
 */
function kvControls(model, controls) {
  const range = { min: 1, max: 128, step: 1 };
  const layers = boundSlider(model, controls, "layers", "layers (층)", range, String);
  const kv = slider(controls, "KV heads", { ...range, value: model.get("kv_heads") });
  kv.input.addEventListener("input", () => {
    const wanted = Number(kv.input.value);
    const fitted = fitKvHeads(model.get("heads"), wanted, wanted > model.get("kv_heads"));
    kv.input.value = fitted;
    update(model, "kv_heads", fitted);
  });
  const show = () => {
    kv.input.value = model.get("kv_heads");
    setText(kv.out, String(model.get("kv_heads")));
  };
  return [layers, { ...kv, show }];
}

/** @param {{model: import("./dom.js").Model & MemoryCalculatorModel, el: HTMLElement}} ctx */
function render({ model, el }) {
  const withKv = Boolean(model.get("kv_cache"));
  const axis = withKv ? KV_AXIS : AXIS;
  const fig = htmlEl("div", { cls: "abh-fig" }, el);
  const controls = htmlEl("div", { cls: "abh-controls" }, fig);
  const range = { min: 7, max: 17, step: 1, value: Math.round(Math.log2(model.get("n"))) };
  const log2n = slider(controls, "tokens n", range); // 128 ... 131072, by doublings
  log2n.input.addEventListener("input", () => update(model, "n", 2 ** Number(log2n.input.value)));
  const heads = boundSlider(
    model,
    controls,
    "heads",
    withKv ? "query heads (헤드)" : "heads (헤드)",
    { min: 1, max: 128, step: 1 },
    String,
  );
  const extra = withKv ? kvControls(model, controls) : [];
  const batch = boundSlider(
    model,
    controls,
    "batch",
    "batch",
    { min: 1, max: 64, step: 1 },
    String,
  );
  const showDtype = dtypeSelect(model, controls);
  const svg = svgEl("svg", { viewBox: `0 0 ${axis.w} ${axis.h}`, width: axis.w, role: "img" }, fig);
  const what = withKv ? "attention weights and of the KV cache" : "attention weights";
  svg.setAttribute("aria-label", `bytes of the ${what} on a log axis`);
  drawFrame(svg, model.get("devices"), axis.y);
  const marks = withKv
    ? makeKvMarks(svg, model.get("contexts"))
    : makeMarks(svg, model.get("contexts"));
  const readout = htmlEl("div", { cls: "abh-readout abh-num" }, fig);
  const lines = withKv ? [htmlEl("div", {}, readout), htmlEl("div", {}, readout)] : [readout];
  const ticks = withKv ? "the KV cache of the same shape" : "the same heads, batch and dtype";
  const say = liveRegion(fig);
  htmlEl(
    "div",
    {
      cls: "abh-hint",
      text: withKv
        ? `Top bar: one layer's attention weights, if they were held at once. Bottom bar: the keys and values every layer keeps while generating. Ticks: ${ticks} at 32k and 128k tokens.`
        : `Bar: the weights of one layer held at once. Ticks: ${ticks} at 32k and 128k tokens.`,
    },
    fig,
  );

  function paint() {
    const [n, H, B, dtype] = ["n", "heads", "batch", "dtype"].map((k) => model.get(k));
    const [layers, kvHeads, dHead] = ["layers", "kv_heads", "d_head"].map((k) => model.get(k));
    const weights = (c) => weightBytes(B, H, c, c, dtype);
    const cache = (c) => kvCacheBytes(B, layers, kvHeads, dHead, c, dtype);
    const bytes = withKv ? [weights(n), cache(n)] : [weights(n)];
    const contexts = model.get("contexts");
    paintMarks(marks, bytes, contexts.map(withKv ? cache : weights), contexts);
    log2n.input.value = Math.round(Math.log2(n));
    setText(log2n.out, n.toLocaleString("en"));
    for (const s of [heads, ...extra, batch]) s.show();
    showDtype();
    const vs = (b) =>
      model
        .get("devices")
        .map((d) => `${fmtRatio(b / d.bytes)} the ${d.name}'s`)
        .join(", ");
    const size = `${DTYPE_BYTES[dtype]} B`;
    const nText = n.toLocaleString("en");
    setText(lines[0], `${B} × ${H} × ${nText}² × ${size} = ${fmtBytes(bytes[0])}: ${vs(bytes[0])}`);
    if (withKv) {
      const formula = `2 × ${B} × ${layers} × ${kvHeads} × ${dHead} × ${nText} × ${size}`;
      const group = `${H / kvHeads} query heads per KV head (KV heads divide the ${H} query heads)`;
      setText(lines[1], `KV cache: ${formula} = ${fmtBytes(bytes[1])}: ${vs(bytes[1])}; ${group}`);
    }
    say(lines.map((line) => line.textContent).join(" "));
  }

  const traits = ["n", "heads", "batch", "dtype", "layers", "kv_heads", "d_head"];
  const fit = () => {
    const fitted = fitKvHeads(model.get("heads"), model.get("kv_heads"));
    if (withKv && fitted !== model.get("kv_heads")) update(model, "kv_heads", fitted);
  };
  const offFit = onChanges(model, ["heads"], fit);
  fit();
  const off = onChanges(model, traits, paint);
  paint();
  return () => {
    offFit();
    off();
  };
}

export default { render };
