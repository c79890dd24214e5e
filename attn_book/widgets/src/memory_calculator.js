// memory_calculator.js — MemoryCalculator: the bytes of the attention weights, against devices.

import { DTYPE_BYTES, fmtBytes, weightBytes } from "./attn_math.js";
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
 */

const BAR = "#0072B2"; // Okabe–Ito blue: the current weights
const DEVICE = "#D55E00"; // Okabe–Ito vermillion: a device's memory
const AXIS = { w: 640, h: 120, left: 20, right: 20, y: 70, lo: 20, hi: 46 }; // log2 bytes 20..46
const TICKS = [20, 25, 30, 35, 40, 45]; // 1 MiB, 32 MiB, 1 GiB, 32 GiB, 1 TiB, 32 TiB

const short = (bytes) => fmtBytes(bytes).replace(/\.0+ /, " "); // "16 GiB", not "16.0 GiB"

const xOf = (bytes) => {
  const t = (Math.log2(Math.max(bytes, 1)) - AXIS.lo) / (AXIS.hi - AXIS.lo);
  return AXIS.left + Math.min(Math.max(t, 0), 1) * (AXIS.w - AXIS.left - AXIS.right);
};

/** The axis, its ticks and the devices' dashed lines: drawn once. */
function drawFrame(svg, devices) {
  const [x0, x1] = [xOf(2 ** AXIS.lo), xOf(2 ** AXIS.hi)];
  svgEl("line", { x1: x0, x2: x1, y1: AXIS.y, y2: AXIS.y, class: "abh-axis" }, svg);
  for (const p of TICKS) {
    svgEl("text", { x: xOf(2 ** p), y: AXIS.y + 16, class: "abh-tick" }, svg).textContent = short(
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
        y2: AXIS.y,
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
  const marks = contexts.map(() => ({
    tick: svgEl("line", { y1: AXIS.y - 2, y2: AXIS.y + 4, stroke: "#333", "stroke-width": 2 }, svg),
    text: svgEl("text", { y: AXIS.y + 30, class: "abh-label" }, svg),
  }));
  return { bar, marks };
}

function paintMarks({ bar, marks }, bytes, contextBytes, contexts) {
  setAttrs(bar, { width: Math.max(1, xOf(bytes) - xOf(2 ** AXIS.lo)) });
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

/** @param {{model: import("./dom.js").Model & MemoryCalculatorModel, el: HTMLElement}} ctx */
function render({ model, el }) {
  const fig = htmlEl("div", { cls: "abh-fig" }, el);
  const controls = htmlEl("div", { cls: "abh-controls" }, fig);
  const range = { min: 7, max: 17, step: 1, value: Math.round(Math.log2(model.get("n"))) };
  const log2n = slider(controls, "tokens n", range); // 128 ... 131072, by doublings
  log2n.input.addEventListener("input", () => update(model, "n", 2 ** Number(log2n.input.value)));
  const heads = boundSlider(
    model,
    controls,
    "heads",
    "heads (헤드)",
    { min: 1, max: 128, step: 1 },
    String,
  );
  const batch = boundSlider(
    model,
    controls,
    "batch",
    "batch",
    { min: 1, max: 64, step: 1 },
    String,
  );
  const showDtype = dtypeSelect(model, controls);
  const svg = svgEl("svg", { viewBox: `0 0 ${AXIS.w} ${AXIS.h}`, width: AXIS.w, role: "img" }, fig);
  svg.setAttribute("aria-label", "bytes of the attention weights on a log axis");
  drawFrame(svg, model.get("devices"));
  const marks = makeMarks(svg, model.get("contexts"));
  const readout = htmlEl("div", { cls: "abh-readout abh-num" }, fig);
  const say = liveRegion(fig);
  htmlEl(
    "div",
    {
      cls: "abh-hint",
      text: "Bar: the weights of one layer held at once. Ticks: the same heads, batch and dtype at 32k and 128k tokens.",
    },
    fig,
  );

  function paint() {
    const [n, H, B, dtype] = ["n", "heads", "batch", "dtype"].map((k) => model.get(k));
    const bytes = weightBytes(B, H, n, n, dtype);
    const contexts = model.get("contexts");
    paintMarks(
      marks,
      bytes,
      contexts.map((c) => weightBytes(B, H, c, c, dtype)),
      contexts,
    );
    log2n.input.value = Math.round(Math.log2(n));
    setText(log2n.out, n.toLocaleString("en"));
    heads.show();
    batch.show();
    showDtype();
    const vs = model
      .get("devices")
      .map((d) => `${(bytes / d.bytes).toPrecision(2)}× the ${d.name}'s`);
    setText(
      readout,
      `${B} × ${H} × ${n.toLocaleString("en")}² × ${DTYPE_BYTES[dtype]} B = ${fmtBytes(bytes)}: ${vs.join(", ")}`,
    );
    say(readout.textContent);
  }

  const off = onChanges(model, ["n", "heads", "batch", "dtype"], paint);
  paint();
  return () => off();
}

export default { render };
