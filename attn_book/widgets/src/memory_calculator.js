// memory_calculator.js — MemoryCalculator: the bytes of the attention weights (and, with
// kv_cache, of a model's KV cache), against devices. With kind "window", "mla" or "hybrid",
// the model view: a model's cache as shipped against the plain KV cache (renderModel).

import {
  cacheBars,
  DTYPE_BYTES,
  fitKvHeads,
  fmtBytes,
  fmtFactor,
  kvCacheBytes,
  layerSplit,
  weightBytes,
} from "./attn_math.js";
import {
  boundSlider,
  htmlEl,
  liveRegion,
  onChanges,
  save,
  setAttrs,
  setText,
  slider,
  svgEl,
  translator,
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
 * @property {string} kind - "kv" (chapters 9 and 10), or the model view's "window", "mla", "hybrid"
 * @property {number} window - W of the local layers (kind "window")
 * @property {number} ratio - local (window) or linear (hybrid) layers to each full one
 * @property {number} d_latent - MLA's latent d_c and RoPE key d_R, numbers a token and layer
 * @property {number} d_rope
 * @property {number} state_heads - a hybrid's linear layers: states per layer, d_state² each
 * @property {number} d_state
 * @property {string} preset - the name of the preset last chosen ("" for none)
 * @property {Object<string, Object<string, any>>} presets - the menu's presets: name -> traits
 * @property {number[]} totals_at - the model view's totals: 32k, 128k, 1M tokens
 */

const BAR = "#0072B2"; // Okabe–Ito blue: the current weights
const KV_BAR = "#009E73"; // Okabe–Ito bluish green: the KV cache
const DEVICE = "#D55E00"; // Okabe–Ito vermillion: a device's memory
// w: the widest drawing; the drawing is as wide as its figure (at least MIN_W), one unit a
// CSS pixel, so an 11 px label is 11 px on a 390 px phone too, not scaled down with the SVG.
const AXIS = { w: 640, left: 20, right: 20, lo: 20, hi: 46 }; // log2 bytes 20..46
const MIN_W = 300;
const FONT = "font-size: 11px"; // every text of the drawing, ticks included
const KV_ROW = 34; // the KV view: a bar's label, then its bar (18 px)
const kvBars = (t) => [
  { fill: BAR, text: t("attention weights, n² per head, one layer") },
  { fill: KV_BAR, text: t("KV cache, every layer") },
];
const TICKS = [20, 25, 30, 35, 40, 45]; // 1 MiB, 32 MiB, 1 GiB, 32 GiB, 1 TiB, 32 TiB

const short = (bytes) => fmtBytes(bytes).replace(/\.0+ /, " "); // "16 GiB", not "16.0 GiB"

/** The x of `bytes` on the log axis of a drawing `w` px wide. */
const xAt = (w) => (bytes) => {
  const t = (Math.log2(Math.max(bytes, 1)) - AXIS.lo) / (AXIS.hi - AXIS.lo);
  return AXIS.left + Math.min(Math.max(t, 0), 1) * (w - AXIS.left - AXIS.right);
};

/** The drawing's width: the figure's own (less its padding), at most AXIS.w, at least MIN_W. */
function drawingWidth(fig) {
  const style = getComputedStyle(fig);
  const inner = fig.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return inner > 0 ? Math.round(Math.min(AXIS.w, Math.max(MIN_W, inner))) : AXIS.w;
}

/** Call `paint` again when the figure's width changes (a phone turned, a window resized). */
function onResize(fig, paint) {
  if (typeof ResizeObserver === "undefined") return () => {};
  let width = fig.clientWidth;
  const observer = new ResizeObserver(() => {
    if (fig.clientWidth !== width) {
      width = fig.clientWidth;
      paint();
    }
  });
  observer.observe(fig);
  return () => observer.disconnect();
}

/** `text` into `node` with "d_c" as d<sub>c</sub> and "d_h^R" as d<sub>h</sub><sup>R</sup>: a
 * symbol's index drawn as one, never as an underscore (the catalogs keep the plain form). */
function withIndices(node, text) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(/([A-Za-z])_([A-Za-z0-9])(?:\^([A-Za-z0-9]))?/g)) {
    parts.push(text.slice(last, m.index), m[1], htmlEl("sub", { text: m[2] }));
    if (m[3]) parts.push(htmlEl("sup", { text: m[3] }));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  node.replaceChildren(...parts.filter((p) => p !== ""));
  return node;
}

/** A device's name (memory_calculator.py's DEVICES) in the reader's language. */
function deviceName(name, t) {
  return { laptop: t("laptop"), GPU: t("GPU") }[name] ?? name;
}

/** A preset's name (memory_calculator.py's PRESETS) in the reader's language: a model's own
 * name stays, the book's made-up model is described. */
function presetName(name, t) {
  return { "Llama-3-8B-like, 3:1 hybrid": t("Llama-3-8B-like, 3:1 hybrid") }[name] ?? name;
}

/**
 * The axis (at height axisY), its ticks and the devices' dashed lines, which stop short of
 * each band of `gaps` ([top, bottom]: a bar's label), so that no line crosses a label.
 */
function drawFrame(svg, devices, axisY, t, xOf, gaps = []) {
  const [x0, x1] = [xOf(2 ** AXIS.lo), xOf(2 ** AXIS.hi)];
  svgEl("line", { x1: x0, x2: x1, y1: axisY, y2: axisY, class: "abh-axis" }, svg);
  for (const p of TICKS) {
    const tick = { x: xOf(2 ** p), y: axisY + 16, class: "abh-tick", style: FONT };
    svgEl("text", tick, svg).textContent = short(2 ** p);
  }
  const spans = [];
  let top = 18;
  for (const [a, b] of [...gaps].sort((u, v) => u[0] - v[0])) {
    if (a > top) spans.push([top, a]);
    top = Math.max(top, b);
  }
  if (axisY > top) spans.push([top, axisY]);
  devices.forEach((d, i) => {
    const x = xOf(d.bytes); // the first label left of its line, then right: they are close
    for (const [y1, y2] of spans) {
      const dash = { stroke: DEVICE, "stroke-dasharray": "4 3", "stroke-width": 1.5 };
      svgEl("line", { x1: x, x2: x, y1, y2, class: "abh-device", ...dash }, svg);
    }
    const [dx, anchor] = i % 2 === 0 ? [-4, "end"] : [4, "start"];
    const label = {
      x: x + dx,
      y: 14,
      class: "abh-label",
      fill: DEVICE,
      style: `text-anchor: ${anchor}; ${FONT}`,
    };
    svgEl("text", label, svg).textContent = `${deviceName(d.name, t)}, ${short(d.bytes)}`;
  });
}

/** The bar of the current weights and the marks of the context lengths: redrawn on change. */
function makeMarks(svg, contexts, axisY, xOf) {
  const bar = svgEl("rect", { x: xOf(2 ** AXIS.lo), y: axisY - 26, height: 22, fill: BAR }, svg);
  return { bars: [bar], marks: makeContextMarks(svg, contexts, axisY) };
}

/** The two labelled bars of the KV-cache view (weights, then KV cache) and the context marks:
 * each label in its own band above its bar, where drawFrame's device lines leave a gap. */
function makeKvMarks(svg, contexts, t, axisY, xOf) {
  const bars = kvBars(t).map((b, i) => {
    const y = 22 + i * KV_ROW + 16; // the bar's top; its label's baseline 5 px above
    const label = { x: xOf(2 ** AXIS.lo), y: y - 5, class: "abh-label" };
    svgEl("text", { ...label, style: `text-anchor: start; ${FONT}` }, svg).textContent = b.text;
    return svgEl("rect", { x: xOf(2 ** AXIS.lo), y, height: 18, fill: b.fill }, svg);
  });
  return { bars, marks: makeContextMarks(svg, contexts, axisY) };
}

/** The label bands of the KV view's bars (for drawFrame's gaps). */
const kvGaps = (count) =>
  Array.from({ length: count }, (_, i) => [20 + i * KV_ROW, 36 + i * KV_ROW]);

function makeContextMarks(svg, contexts, axisY) {
  return contexts.map(() => ({
    tick: svgEl("line", { y1: axisY - 2, y2: axisY + 4, stroke: "#333", "stroke-width": 2 }, svg),
    text: svgEl("text", { y: axisY + 30, class: "abh-label", style: FONT }, svg),
  }));
}

/** Paint each bar to its bytes, and the context marks where contextBytes put them. */
function paintMarks({ bars, marks }, bytes, contextBytes, contexts, xOf) {
  bars.forEach((bar, i) => {
    setAttrs(bar, { width: Math.max(1, xOf(bytes[i]) - xOf(2 ** AXIS.lo)) });
  });
  marks.forEach((m, i) => {
    const x = xOf(contextBytes[i]);
    setAttrs(m.tick, { x1: x, x2: x });
    // 32k and 128k are two doublings apart, close on a phone: the first label ends at its
    // tick, the next starts at its own, so they never overlap
    const [dx, anchor] = i % 2 === 0 ? [3, "end"] : [-3, "start"];
    setAttrs(m.text, { x: x + dx, style: `${FONT}; text-anchor: ${anchor}` });
    setText(m.text, `${contexts[i] / 1024}k`);
  });
}

/** The batch slider and the dtype menu, the last controls of both views. */
function batchAndDtype(model, controls, t) {
  const range = { min: 1, max: 64, step: 1 };
  return [
    boundSlider(model, controls, "batch", t("batch"), range, String),
    dtypeSelect(model, controls, t),
  ];
}

function dtypeSelect(model, parent, t) {
  const wrap = htmlEl("label", { cls: "abh-control" }, parent);
  htmlEl("span", { text: t("dtype") }, wrap);
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
function kvControls(model, controls, t) {
  const range = { min: 1, max: 128, step: 1 };
  const layers = boundSlider(model, controls, "layers", t("layers (층)"), range, String);
  return [layers, kvHeadsSlider(model, controls, t)];
}

/** The KV heads' slider, which steps to the next divisor of the query heads. */
function kvHeadsSlider(model, controls, t) {
  const range = { min: 1, max: 128, step: 1 };
  const kv = slider(controls, t("KV heads"), { ...range, value: model.get("kv_heads") });
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
  return { ...kv, show };
}

/** @param {{model: import("./dom.js").Model & MemoryCalculatorModel, el: HTMLElement}} ctx */
function render({ model, el }) {
  if (model.get("kind") !== "kv") return renderModel({ model, el });
  const t = translator(model);
  const withKv = Boolean(model.get("kv_cache"));
  const fig = htmlEl("div", { cls: "abh-fig" }, el);
  const controls = htmlEl("div", { cls: "abh-controls" }, fig);
  const range = { min: 7, max: 17, step: 1, value: Math.round(Math.log2(model.get("n"))) };
  const log2n = slider(controls, t("tokens n"), range); // 128 ... 131072, by doublings
  log2n.input.addEventListener("input", () => update(model, "n", 2 ** Number(log2n.input.value)));
  const heads = boundSlider(
    model,
    controls,
    "heads",
    withKv ? t("query heads (헤드)") : t("heads (헤드)"),
    { min: 1, max: 128, step: 1 },
    String,
  );
  const extra = withKv ? kvControls(model, controls, t) : [];
  const [batch, showDtype] = batchAndDtype(model, controls, t);
  const svg = svgEl("svg", { role: "img" }, fig);
  svg.setAttribute(
    "aria-label",
    withKv
      ? t("bytes of the attention weights and of the KV cache on a log axis")
      : t("bytes of the attention weights on a log axis"),
  );
  const readout = htmlEl("div", { cls: "abh-readout abh-num" }, fig);
  const lines = withKv ? [htmlEl("div", {}, readout), htmlEl("div", {}, readout)] : [readout];
  const say = liveRegion(fig);
  htmlEl(
    "div",
    {
      cls: "abh-hint",
      text: withKv
        ? t(
            "Top bar: one layer's attention weights, if they were held at once. Bottom bar: " +
              "the keys and values every layer keeps while generating. Ticks: the KV cache of " +
              "the same shape at 32k and 128k tokens.",
          )
        : t(
            "Bar: the weights of one layer held at once. Ticks: the same heads, batch and " +
              "dtype at 32k and 128k tokens.",
          ),
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
    const w = drawingWidth(fig);
    const xOf = xAt(w);
    const axisY = withKv ? 22 + 2 * KV_ROW + 14 : 70; // under the bars
    svg.replaceChildren();
    setAttrs(svg, { viewBox: `0 0 ${w} ${axisY + 50}`, width: w });
    drawFrame(svg, model.get("devices"), axisY, t, xOf, withKv ? kvGaps(2) : []);
    const marks = withKv
      ? makeKvMarks(svg, contexts, t, axisY, xOf)
      : makeMarks(svg, contexts, axisY, xOf);
    paintMarks(marks, bytes, contexts.map(withKv ? cache : weights), contexts, xOf);
    log2n.input.value = Math.round(Math.log2(n));
    setText(log2n.out, n.toLocaleString("en"));
    for (const s of [heads, ...extra, batch]) s.show();
    showDtype();
    const vs = (b) =>
      model
        .get("devices")
        .map((d) =>
          t("{ratio}× the {device}'s", {
            ratio: fmtFactor(b / d.bytes),
            device: deviceName(d.name, t),
          }),
        )
        .join(", ");
    const size = `${DTYPE_BYTES[dtype]} B`;
    const nText = n.toLocaleString("en");
    setText(lines[0], `${B} × ${H} × ${nText}² × ${size} = ${fmtBytes(bytes[0])}: ${vs(bytes[0])}`);
    if (withKv) {
      const formula = `2 × ${B} × ${layers} × ${kvHeads} × ${dHead} × ${nText} × ${size}`;
      const group = t("{g} query heads per KV head (KV heads divide the {H} query heads)", {
        g: H / kvHeads,
        H,
      });
      const kvFields = { formula, bytes: fmtBytes(bytes[1]), vs: vs(bytes[1]), group };
      setText(lines[1], t("KV cache: {formula} = {bytes}: {vs}; {group}", kvFields));
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
  const offResize = onResize(fig, paint);
  return () => {
    offFit();
    off();
    offResize();
  };
}

// --- the model view: a model's cache as shipped against the plain KV cache (chapters 11, 12)

const PART = "#E69F00"; // Okabe–Ito orange: local layers, or linear layers' states
const OTHER = "#56B4E9"; // Okabe–Ito sky blue: the same model with MHA or MQA
const MLA_BAR = "#CC79A7"; // Okabe–Ito reddish purple: MLA's latents
const ROW = 36; // px per bar: its label, then the bar (a narrow drawing: two label lines, +14)
const NARROW = 560; // px: below this the label's sum goes on a second line
const MODEL_TRAITS = ["n", "heads", "batch", "dtype", "layers", "kv_heads", "d_head", "kind"];
const KIND_TRAITS = ["window", "ratio", "d_latent", "d_rope", "state_heads", "d_state"];

/** Each bar's label and its parts' colours, from the traits `c` (as cacheBars reads them). */
function describe(name, c, t) {
  const [full, other] = layerSplit(c.layers, c.ratio);
  const f = { ...c, full, other, window: grouped(c.window) };
  const kv =
    c.kind === "mla"
      ? t("GQA: {kv_heads} KV heads", f)
      : t("KV cache: {layers} layers, every one full attention, {kv_heads} KV heads", f);
  const text = {
    kv: () => [kv, [KV_BAR]],
    window: () => [
      t("{full} global layers + {other} local layers of {window} tokens", f),
      [BAR, PART],
    ],
    mha: () => [t("MHA: {heads} KV heads", f), [OTHER]],
    mqa: () => [t("MQA: 1 KV head"), [OTHER]],
    mla: () => [t("MLA: {d_latent} + {d_rope} numbers a token and layer", f), [MLA_BAR]],
    hybrid: () => [
      t("{full} full-attention layers' KV cache + {other} linear layers' states", f),
      [BAR, PART],
    ],
  };
  return text[name]();
}

/** A select bound to a string trait; `show()` mirrors the trait. */
function boundSelect(model, parent, trait, label, options) {
  const wrap = htmlEl("label", { cls: "abh-control" }, parent);
  htmlEl("span", { text: label }, wrap);
  const select = htmlEl("select", {}, wrap);
  for (const [value, text] of options) htmlEl("option", { text, attrs: { value } }, select);
  select.addEventListener("change", () => update(model, trait, select.value));
  return { wrap, show: () => (select.value = model.get(trait)) };
}

/** The preset menu: choosing one sets every trait of it (there may be no kernel to do so). */
function presetSelect(model, parent, t) {
  const presets = model.get("presets");
  const names = Object.keys(presets);
  if (names.length === 0) return [];
  const menu = boundSelect(model, parent, "preset", t("model"), [
    ["", t("(your own)")],
    ...names.map((name) => [name, presetName(name, t)]),
  ]);
  menu.wrap.querySelector("select").addEventListener("change", (e) => {
    for (const [k, v] of Object.entries(presets[e.target.value] ?? {})) model.set(k, v);
    save(model);
  });
  return [menu];
}

/** The sliders of the model view; each kind's own are hidden under the other kinds. */
function modelControls(model, controls, t) {
  const pow2 = (lo, hi) => ({ min: lo, max: hi, step: 1 });
  const log2Slider = (trait, label, range) => {
    const s = slider(controls, label, { ...range, value: Math.round(Math.log2(model.get(trait))) });
    s.label = label;
    s.input.addEventListener("input", () => update(model, trait, 2 ** Number(s.input.value)));
    const show = () => {
      s.input.value = Math.round(Math.log2(model.get(trait)));
      setText(s.out, model.get(trait).toLocaleString("en"));
    };
    return { ...s, show };
  };
  const bound = (trait, label, range) => ({
    ...boundSlider(model, controls, trait, label, range, String),
    label,
  });
  const kinds = [
    ["window", t("local + global layers")],
    ["mla", t("MLA")],
    ["hybrid", t("linear + full layers (hybrid)")],
  ];
  const shared = [
    ...presetSelect(model, controls, t),
    boundSelect(model, controls, "kind", t("cache"), kinds),
    log2Slider("n", t("tokens n"), pow2(7, 20)), // 128 ... 1,048,576
    bound("layers", t("layers (층)"), { min: 1, max: 128, step: 1 }),
    bound("heads", t("query heads (헤드)"), { min: 1, max: 128, step: 1 }),
    kvHeadsSlider(model, controls, t),
  ];
  const own = {
    window: [
      log2Slider("window", t("window W"), pow2(5, 17)),
      bound("ratio", t("local : global, r : 1"), { min: 0, max: 7, step: 1 }),
    ],
    mla: [
      bound("d_latent", t("latent d_c"), { min: 64, max: 2048, step: 64 }),
      bound("d_rope", t("RoPE key d_h^R"), { min: 0, max: 256, step: 16 }),
    ],
    hybrid: [
      bound("ratio", t("linear : full, r : 1"), { min: 0, max: 7, step: 1 }),
      bound("state_heads", t("state heads"), { min: 1, max: 128, step: 1 }),
      bound("d_state", t("state d_k = d_v"), { min: 16, max: 512, step: 16 }),
    ],
  };
  for (const s of Object.values(own).flat()) withIndices(s.wrap.querySelector("span"), s.label);
  return { shared, own };
}

/** The model view: the plain KV cache (and MHA, MQA) against the kind's cache, totals below. */
function renderModel({ model, el }) {
  const t = translator(model);
  const fig = htmlEl("div", { cls: "abh-fig" }, el);
  const controls = htmlEl("div", { cls: "abh-controls" }, fig);
  const { shared, own } = modelControls(model, controls, t);
  const hasMenu = Object.keys(model.get("presets")).length > 0;
  const menu = hasMenu ? controls.querySelector("select") : null; // the first control
  const leavePreset = (e) => {
    if (e.target !== menu && model.get("preset")) update(model, "preset", ""); // your own now
  };
  controls.addEventListener("input", leavePreset);
  controls.addEventListener("change", leavePreset);
  const [batch, showDtype] = batchAndDtype(model, controls, t);
  const svg = svgEl("svg", { role: "img" }, fig);
  svg.setAttribute("aria-label", t("bytes of a model's cache on a log axis, against the KV cache"));
  const readout = htmlEl("div", { cls: "abh-readout abh-num" }, fig);
  const say = liveRegion(fig);
  const hint = htmlEl("div", { cls: "abh-hint" }, fig);

  function paint() {
    const c = Object.fromEntries([...MODEL_TRAITS, ...KIND_TRAITS].map((k) => [k, model.get(k)]));
    const bars = cacheBars(c, c.n);
    const top = 22; // the devices' labels
    const w = drawingWidth(fig);
    const xOf = xAt(w);
    const lift = w < NARROW ? 14 : 0; // a second label line
    const row = ROW + lift;
    const axisY = top + bars.length * row + 4;
    svg.replaceChildren();
    setAttrs(svg, { viewBox: `0 0 ${w} ${axisY + 22}`, width: w });
    // each bar's label band, which the devices' lines leave free
    const gaps = bars.map((_, i) => [top + i * row - 1, top + i * row + 14 + lift]);
    drawFrame(svg, model.get("devices"), axisY, t, xOf, gaps);
    bars.forEach(([name, parts], i) => {
      const [text, colours] = describe(name, c, t);
      const y = top + i * row;
      const x0 = xOf(2 ** AXIS.lo);
      const label = { x: x0, class: "abh-label", style: `text-anchor: start; ${FONT}` };
      const total = fmtBytes(sumOf(parts));
      const sum = parts.length > 1 ? `${parts.map(fmtBytes).join(" + ")} = ${total}` : total;
      if (lift) {
        svgEl("text", { ...label, y: y + 11 }, svg).textContent = `${text}:`;
        svgEl("text", { ...label, y: y + 11 + lift }, svg).textContent = sum;
      } else {
        svgEl("text", { ...label, y: y + 11 }, svg).textContent = `${text}: ${sum}`;
      }
      const height = 16 / parts.length; // a stacked bar: one thin bar per part, same axis
      parts.forEach((part, j) => {
        const width = Math.max(1, xOf(part) - x0);
        const bar = { x: x0, y: y + 15 + lift + j * height, height: height - 1, width };
        bar.fill = colours[j];
        svgEl("rect", bar, svg);
      });
    });
    const totals = model.get("totals_at");
    const at = totals.map((m) => cacheBars(c, m));
    const lines = bars.map(([name], i) => {
      const [text] = describe(name, c, t);
      const sums = at.map((b, k) => `${tokens(totals[k])}: ${fmtBytes(sumOf(b[i][1]))}`);
      return `${text} — ${sums.join(", ")}`;
    });
    readout.replaceChildren(...lines.map((line) => htmlEl("div", { text: line })));
    setText(hint, hints(t)[c.kind]);
    for (const s of [...shared, batch]) s.show?.();
    for (const [kind, sliders] of Object.entries(own)) {
      for (const s of sliders) {
        s.wrap.hidden = kind !== c.kind;
        s.show();
      }
    }
    showDtype();
    say(t("{n} tokens. {lines}", { n: c.n.toLocaleString("en"), lines: lines.join(". ") }));
  }

  const off = onChanges(model, [...MODEL_TRAITS, ...KIND_TRAITS, "preset"], paint);
  paint();
  const offResize = onResize(fig, paint);
  return () => {
    off();
    offResize();
  };
}

const sumOf = (parts) => parts.reduce((a, b) => a + b, 0);
const grouped = (n) => n.toLocaleString("en"); // 131,072
const tokens = (n) => (n >= 2 ** 20 ? `${n / 2 ** 20}M` : `${n / 1024}k`);
const hints = (t) => ({
  window: t(
    "Blue: the global layers, which hold all n tokens; orange: the local layers, at most W " +
      "each. Green: the same model with every layer global. Totals at 32k, 128k and 1M " +
      "tokens below.",
  ),
  mla: t(
    "Each bar the same model's cache with another attention: every head its own keys and " +
      "values (MHA), groups (GQA), one KV head (MQA), or MLA's latent and RoPE key. Totals " +
      "at 32k, 128k and 1M tokens below.",
  ),
  hybrid: t(
    "Blue: the full-attention layers' KV cache, which grows with n; orange: the linear " +
      "layers' states, the same at any n. Green: every layer full attention. Totals at 32k, " +
      "128k and 1M tokens below.",
  ),
});

export default { render };
