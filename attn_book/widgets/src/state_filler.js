// state_filler.js — StateFiller: a memory filled token by token (softmax's KV cache, linear
// attention's state, the delta rule's state), read with one stored key. Everything a control
// changes is recomputed here (attn_math.fillState), so it steps on the static site too.

import { fillState, fmt, norm, OKABE_ITO, purpleOrange } from "./attn_math.js";
import {
  boundSlider,
  htmlEl,
  liveRegion,
  onChanges,
  setAttrs,
  setText,
  setTitle,
  svgEl,
  translator,
  update,
} from "./dom.js";

/**
 * The traits of state_filler.py's StateFiller that this file reads.
 * @typedef {object} StateFillerModel
 * @property {number[][]} key_vectors - (T, d_k): unit keys in the order written
 * @property {number[][]} value_vectors - (T, d_v)
 * @property {number[]} pair_of - (T,): which of the N keys each token writes
 * @property {string} method - "softmax", "linear" or "delta"
 * @property {number} step - tokens written, 0 .. T
 * @property {number} query - the key asked, 0 .. N - 1
 * @property {number} beta - the delta rule's writing strength, 0 .. 1
 * @property {number} softmax_scale - the factor on softmax's scores
 */

const INPUTS = ["key_vectors", "value_vectors", "pair_of", "method", "step", "query", "beta"];
const memories = (t) => [
  ["softmax", t("softmax: KV cache")],
  ["linear", t("linear")],
  ["delta", t("delta rule")],
];
const names = (t) => ({
  softmax: t("softmax attention"),
  linear: t("linear attention"),
  delta: t("delta rule"),
});
const RECALLED = OKABE_ITO[4]; // blue: what the memory returns
const TRUE = OKABE_ITO[0]; // orange: the value written under the key
const CORRECTION = OKABE_ITO[5]; // vermillion: the delta rule's v − S k
const W = 320; // each drawing's width in px: two side by side in 680, one on a phone
const STRIP = { left: 4, top: 22, box: 24, gap: 2 }; // the tokens, one box each (24 px: a finger)
const GRID = { left: 40, top: 92, cell: 44 }; // the state's heatmap
const CACHE = { cell: 18, gap: 8 }; // softmax's cache: a row of key and value a token
const SUB = "₀₁₂₃₄₅₆₇₈₉";
const sub = (n) => [...String(n)].map((c) => SUB[Number(c)]).join("");
const vec = (v) => `(${v.map((x) => fmt(x, 3)).join(", ")})`;

// Scoped here, not in widgets.css: every notebook stores widgets.css, so a change there means
// re-syncing every chapter. The colours follow the page's theme (the site's pydata variables,
// JupyterLab's) and fall back to the light figure of the other figures.
const STYLE = `
.abh-fig.abh-statefill {
  background: var(--pst-color-background, var(--jp-layout-color0, #fff));
  color: var(--pst-color-text-base, var(--jp-ui-font-color1, #222));
}
.abh-statefill svg text:not(.abh-celltext) { fill: currentColor; }
.abh-statefill .abh-hint, .abh-statefill .abh-caption {
  color: var(--pst-color-text-muted, var(--jp-ui-font-color2, #555));
}
.abh-statefill .abh-zero { stroke: currentColor; stroke-width: 1; opacity: 0.6; }
.abh-statefill .abh-tokenbox { stroke: currentColor; stroke-width: 1; cursor: pointer; }
.abh-statefill .abh-tokenbox[data-asked="true"] { stroke: ${TRUE}; stroke-width: 3; }
.abh-statefill [role="radiogroup"] { display: flex; flex-wrap: wrap; gap: 4px 12px; }
.abh-statefill input[type="radio"] { width: 20px; height: 20px; margin: 2px; }
.abh-statefill .abh-button { min-width: 44px; min-height: 32px; }
.abh-statefill .abh-stepper { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.abh-statefill .abh-readout { font-size: 13px; }
.abh-statefill > svg, .abh-statefill > .abh-panel { flex: 0 1 ${W}px; min-width: 0; }
.abh-statefill > .abh-controls, .abh-statefill > .abh-stepper { flex: 1 1 100%; }
`;

let figures = 0; // each figure's radio group gets its own name (radios group by name)

/** The colour range of the state: the largest entry any state of the run reaches, ≥ 1. */
function colourRange(K, V, pairOf, query, beta) {
  let top = 1;
  for (let t = 1; t <= K.length; t++) {
    for (const method of ["linear", "delta"]) {
      const { state } = fillState(K, V, pairOf, t, method, query, { beta });
      for (const row of state) for (const x of row) top = Math.max(top, Math.abs(x));
    }
  }
  return Math.ceil(top * 2) / 2;
}

/** The bar charts' range: the largest number they show at any step and in any memory, ≥ 1. */
function barRange(K, V, pairOf, query, beta, softmaxScale) {
  let top = 1;
  for (let t = 0; t <= K.length; t++) {
    for (const method of ["softmax", "linear", "delta"]) {
      const got = fillState(K, V, pairOf, t, method, query, { beta, softmaxScale });
      for (const x of [got.recalled, got.target, got.correction].flat()) {
        top = Math.max(top, Math.abs(x));
      }
    }
  }
  return Math.ceil(top * 2) / 2;
}

/** Black or white text, whichever contrasts more with an "rgb(r,g,b)" fill (WCAG's ratio). */
function inkOn(fill) {
  const linear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const [r, g, b] = fill.match(/\d+/g).map((c) => linear(Number(c) / 255));
  const light = 0.2126 * r + 0.7152 * g + 0.0722 * b; // relative luminance
  return (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) ? "#000" : "#fff";
}

/** The token strip, the state's grid, softmax's cache and the colour legend: drawn once. */
function buildState(svg, T, dk, dv, pairOf, t) {
  svg.replaceChildren();
  const pitch = STRIP.box + STRIP.gap;
  const cacheRows = T * CACHE.cell;
  const H = GRID.top + Math.max(dv * GRID.cell, cacheRows) + 10;
  setAttrs(svg, { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
  const text = (x, y, words, attrs = {}) => {
    const node = svgEl("text", { x, y, class: "abh-label", ...attrs }, svg);
    node.textContent = words;
    return node;
  };
  const strip = t("tokens written (tap or drag along them)");
  text(STRIP.left, 12, strip, { style: "text-anchor: start" });
  const boxes = pairOf.map((p, j) => {
    const x = STRIP.left + j * pitch;
    const box = svgEl("rect", { x, y: STRIP.top, width: STRIP.box, height: STRIP.box }, svg);
    // "all": an unwritten token is drawn without a fill, and still takes a tap
    setAttrs(box, { rx: 3, class: "abh-tokenbox", "data-token": j, "pointer-events": "all" });
    const label = text(x + STRIP.box / 2, STRIP.top + 16, `k${sub(p + 1)}`);
    label.setAttribute("pointer-events", "none");
    return { box, label };
  });
  const title = text(STRIP.left, GRID.top - 30, "", { style: "text-anchor: start" });
  title.classList.add("abh-title");
  const axes = text(STRIP.left, GRID.top - 12, "", { style: "text-anchor: start" });
  // the state: d_v rows (value dimensions) × d_k columns (key dimensions), as the chapter's S
  const cells = [];
  const rowNames = [];
  for (let i = 0; i < dv; i++) {
    const y = GRID.top + i * GRID.cell + GRID.cell / 2 + 4;
    rowNames.push(text(GRID.left - 8, y, `${i + 1}`, { style: "text-anchor: end" }));
    cells.push(
      Array.from({ length: dk }, (_, j) => {
        const at = { x: GRID.left + j * GRID.cell, y: GRID.top + i * GRID.cell };
        const rect = svgEl("rect", { ...at, width: GRID.cell, height: GRID.cell }, svg);
        rect.setAttribute("class", "abh-cell");
        const x = at.x + GRID.cell / 2;
        const label = svgEl(
          "text",
          { x, y: at.y + GRID.cell / 2, class: "abh-celltext abh-num" },
          svg,
        );
        label.dataset.role = "state";
        return { rect, label };
      }),
    );
  }
  // softmax's cache: one row a token, its key's d_k entries, a gap, its value's d_v entries
  const cache = pairOf.map((_, r) => {
    const y = GRID.top + r * CACHE.cell;
    const rect = (x) =>
      svgEl("rect", { x, y, width: CACHE.cell, height: CACHE.cell, class: "abh-cell" }, svg);
    const keys = Array.from({ length: dk }, (_, i) => rect(GRID.left + i * CACHE.cell));
    const vx = GRID.left + dk * CACHE.cell + CACHE.gap;
    const values = Array.from({ length: dv }, (_, i) => rect(vx + i * CACHE.cell));
    const wx = vx + dv * CACHE.cell + 8;
    const weight = text(wx, y + CACHE.cell - 5, "", { style: "text-anchor: start" });
    weight.classList.add("abh-num");
    weight.dataset.role = "cache-weight";
    const name = text(GRID.left - 8, y + CACHE.cell - 5, "", { style: "text-anchor: end" });
    return { keys, values, weight, name, all: [...keys, ...values] };
  });
  // the legend: nine stacked swatches (no gradient: it would need an element id)
  const lx = W - 26;
  const ly = GRID.top + 14;
  const legend = [text(lx + 6, ly - 4, ""), text(lx + 6, ly + 9 * 12 + 12, "")];
  for (let s = 0; s < 9; s++) {
    const y = ly + s * 12;
    svgEl("rect", { x: lx, y, width: 12, height: 12, fill: purpleOrange(1 - s / 8) }, svg);
  }
  text(lx + 6, ly + 4.5 * 12 + 4, "0", { style: "text-anchor: end", dx: -10 });
  return { boxes, title, axes, cells, rowNames, cache, legend, pitch, H };
}

/** Two small bar charts: recalled beside true, and the delta rule's correction. */
function buildBars(svg, dv, t) {
  svg.replaceChildren();
  const H = 236;
  setAttrs(svg, { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
  const charts = [
    { top: 20, series: [RECALLED, TRUE] },
    { top: 140, series: [CORRECTION] },
  ].map((c) => {
    const title = svgEl("text", { x: 4, y: c.top - 10, class: "abh-title" }, svg);
    const mid = c.top + 40;
    svgEl("line", { x1: 40, x2: W - 8, y1: mid, y2: mid, class: "abh-zero" }, svg);
    const tick = (y) =>
      svgEl("text", { x: 34, y, class: "abh-tick", style: "text-anchor: end" }, svg);
    const ticks = [tick(mid - 36), tick(mid + 4), tick(mid + 44)];
    const group = (W - 48) / dv;
    const width = Math.min(22, (group - 10) / c.series.length);
    const bars = Array.from({ length: dv }, (_, j) => {
      const x0 = 44 + j * group + (group - width * c.series.length) / 2;
      const label = svgEl("text", { x: 44 + (j + 0.5) * group, y: c.top + 94 }, svg);
      setAttrs(label, { class: "abh-tick" });
      label.textContent = t("dim {j}", { j: j + 1 });
      return c.series.map((fill, s) =>
        svgEl("rect", { x: x0 + s * width, width: width - 2, fill }, svg),
      );
    });
    return { ...c, title, mid, bars, ticks };
  });
  return { charts, H };
}

/** Paint bar chart `chart` with one list of numbers per series, ±range at 40 px. */
function paintChart(chart, series, range) {
  chart.ticks.forEach((node, i) => {
    setText(node, ["+", "", "−"][i] + fmt(i === 1 ? 0 : range, 1));
  });
  chart.bars.forEach((pair, j) => {
    pair.forEach((rect, s) => {
      const v = series[s]?.[j] ?? 0;
      const h = (40 * Math.min(Math.abs(v), range)) / range;
      setAttrs(rect, { y: v >= 0 ? chart.mid - h : chart.mid, height: Math.max(h, 0.5) });
      rect.style.display = series[s]?.length ? "" : "none";
    });
  });
}

/** The radio buttons that choose the memory; `show()` mirrors the trait. */
function memoryChoice(model, parent, t) {
  const attrs = { role: "radiogroup", "aria-label": t("memory") };
  const group = htmlEl("div", { attrs }, parent);
  const name = `abh-memory-${figures++}`;
  const inputs = memories(t).map(([value, label]) => {
    const wrap = htmlEl("label", { cls: "abh-control" }, group);
    const input = htmlEl("input", { attrs: { type: "radio", name, value } }, wrap);
    htmlEl("span", { text: label }, wrap);
    input.addEventListener("change", () => input.checked && update(model, "method", value));
    return input;
  });
  return () => {
    for (const input of inputs) input.checked = input.value === model.get("method");
  };
}

/** ◀ and ▶ around a slider of the tokens written; `show()` mirrors the trait. */
function stepper(model, parent, T, t) {
  const row = parent;
  const go = (d) => update(model, "step", Math.min(T, Math.max(0, model.get("step") + d)));
  const back = htmlEl("button", { cls: "abh-button", text: "◀", attrs: { type: "button" } }, row);
  back.setAttribute("aria-label", t("previous token"));
  const range = { min: 0, max: T, step: 1 };
  const slide = boundSlider(model, row, "step", t("tokens t"), range, (n) =>
    t("{t} of {T}", { t: n, T }),
  );
  const next = htmlEl("button", { cls: "abh-button", text: "▶", attrs: { type: "button" } }, row);
  next.setAttribute("aria-label", t("next token"));
  back.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));
  return () => {
    slide.show();
    back.disabled = model.get("step") <= 0;
    next.disabled = model.get("step") >= T;
  };
}

/** @param {{model: import("./dom.js").Model & StateFillerModel, el: HTMLElement}} ctx */
function render({ model, el }) {
  const t = translator(model);
  const NAMES = names(t);
  const root = htmlEl("div", { cls: "abh-fig abh-statefill" }, el);
  htmlEl("style", { text: STYLE }, root);
  const controls = htmlEl("div", { cls: "abh-controls" }, root);
  const showMemory = memoryChoice(model, controls, t);
  const askWrap = htmlEl("label", { cls: "abh-control" }, controls);
  htmlEl("span", { text: t("ask with key") }, askWrap);
  const ask = htmlEl("select", {}, askWrap);
  ask.addEventListener("change", () => update(model, "query", Number(ask.value)));
  const betaRange = { min: 0, max: 1, step: 0.05 };
  const beta = boundSlider(model, controls, "beta", t("β, writing strength"), betaRange);
  const stepHolder = htmlEl("div", { cls: "abh-stepper" }, root);
  const svg = svgEl("svg", { tabindex: 0, role: "application" }, root);
  svg.setAttribute(
    "aria-label",
    t(
      "The memory after t tokens. Left and right arrow keys write or remove a token, up and " +
        "down choose the key asked.",
    ),
  );
  const panel = htmlEl("div", { cls: "abh-panel" }, root);
  const barsSvg = svgEl("svg", { role: "img" }, panel);
  barsSvg.setAttribute("aria-label", t("Recalled value beside the true one, and the correction"));
  const readout = htmlEl("div", { cls: "abh-readout abh-num" }, panel);
  const lines = ["memory", "recall", "target", "error", "correction"].map((role) =>
    htmlEl("div", { attrs: { "data-role": role } }, readout),
  );
  htmlEl(
    "div",
    {
      cls: "abh-hint",
      text: t(
        "Step with ◀ ▶, the slider, a tap on a token, or ←/→ on the drawing (↑/↓ choose the " +
          "key asked). Colour: purple below 0, orange above (PuOr); both states are drawn as " +
          "values × keys.",
      ),
    },
    panel,
  );
  const say = liveRegion(root);
  let parts = null;
  let bars = null;
  let shape = "";
  let showStep = () => {};

  function paint() {
    const [K, V, pairOf] = ["key_vectors", "value_vectors", "pair_of"].map((n) => model.get(n));
    const T = K.length;
    const [dk, dv] = [K[0].length, V[0].length];
    const N = Math.max(...pairOf) + 1;
    const key = JSON.stringify([K, V, pairOf]);
    if (key !== shape) {
      shape = key;
      parts = buildState(svg, T, dk, dv, pairOf, t);
      bars = buildBars(barsSvg, dv, t);
      ask.replaceChildren(...Array.from({ length: N }, (_, i) => new Option(`k${sub(i + 1)}`, i)));
      stepHolder.replaceChildren();
      showStep = stepper(model, stepHolder, T, t);
    }
    const method = model.get("method");
    const step = Math.min(model.get("step") ?? T, T);
    const query = Math.min(model.get("query"), N - 1);
    const b = model.get("beta");
    const got = fillState(K, V, pairOf, step, method, query, {
      beta: b,
      softmaxScale: model.get("softmax_scale"),
    });
    const range = colourRange(K, V, pairOf, query, b);
    const colour = (x) => purpleOrange(0.5 + x / (2 * range));
    parts.boxes.forEach(({ box, label }, j) => {
      const written = j < step;
      setAttrs(box, { fill: written ? RECALLED : "none", "data-asked": pairOf[j] === query });
      label.style.fill = written ? "#fff" : "";
    });
    const cacheShown = method === "softmax";
    parts.cells.forEach((row, i) => {
      row.forEach(({ rect, label }, j) => {
        const fill = colour(got.state[i]?.[j] ?? 0);
        setAttrs(rect, { fill });
        label.style.fill = inkOn(fill);
        setText(label, fmt(got.state[i]?.[j] ?? 0, 3));
        rect.style.display = cacheShown ? "none" : "";
        label.style.display = cacheShown ? "none" : "";
      });
    });
    for (const name of parts.rowNames) name.style.display = cacheShown ? "none" : "";
    parts.cache.forEach((row, r) => {
      const shown = cacheShown && r < step;
      row.all.forEach((rect, c) => {
        const x = c < dk ? K[r][c] : V[r][c - dk];
        setAttrs(rect, { fill: colour(x) });
        rect.style.display = shown ? "" : "none";
      });
      setText(row.weight, shown ? fmt(got.weights[r], 3) : "");
      setText(row.name, shown ? `t${sub(r + 1)}` : "");
    });
    setText(parts.legend[0], `+${fmt(range, 1)}`);
    setText(parts.legend[1], `−${fmt(range, 1)}`);
    const numbers = cacheShown ? step * (dk + dv) : dk * dv;
    setTitle(
      parts.title,
      cacheShown
        ? t("KV cache, t = {t}: {t} × ({dk} + {dv}) = {numbers} numbers", {
            t: step,
            dk,
            dv,
            numbers,
          })
        : t("state S{sub}, t = {t}: {dv} × {dk} = {numbers} numbers", {
            sub: sub(step),
            t: step,
            dk,
            dv,
            numbers,
          }),
    );
    setText(
      parts.axes,
      cacheShown
        ? t("rows: tokens; key | value; right: weight on each")
        : t("rows: value dimension; columns: key dimension"),
    );
    // the bars: recalled beside true; the correction (delta), or what the others write
    const asked = `k${sub(query + 1)}`;
    const scale = barRange(K, V, pairOf, query, b, model.get("softmax_scale")); // fixed over steps
    setTitle(
      bars.charts[0].title,
      t("asked {key}: recalled (blue), true (orange)", { key: asked }),
    );
    paintChart(bars.charts[0], [got.recalled, got.target], scale);
    setTitle(
      bars.charts[1].title,
      method === "delta"
        ? step
          ? t("token {t} writes {key}: correction v − S{before}{key} (vermillion)", {
              t: step,
              key: `k${sub(pairOf[step - 1] + 1)}`,
              before: sub(step - 1),
            })
          : t("correction: nothing written yet")
        : method === "linear"
          ? t("linear attention adds k vᵀ, no correction")
          : t("softmax appends k and v to its cache"),
    );
    paintChart(bars.charts[1], [got.correction], scale);
    // the numbers, in words
    setText(
      lines[0],
      cacheShown
        ? t("{memory}: the cache holds {numbers} numbers and grows by {grow} a token", {
            memory: NAMES[method],
            numbers,
            grow: dk + dv,
          })
        : t("{memory}: the state holds {numbers} numbers, after any number of tokens", {
            memory: NAMES[method],
            numbers,
          }),
    );
    setText(lines[1], t("asked {key}: recalled {v}", { key: asked, v: vec(got.recalled) }));
    const writes = pairOf.slice(0, step).lastIndexOf(query);
    setText(
      lines[2],
      got.written
        ? t("true v of {key} (written at t = {t}): {v}", {
            key: asked,
            t: writes + 1,
            v: vec(got.target),
          })
        : t("{key} not written yet: the right answer is 0", { key: asked }),
    );
    setText(lines[3], t("error ‖recalled − true‖ = {e}", { e: fmt(got.error, 3) }));
    const corr = got.correction.length
      ? t("{v}, length {n}", { v: vec(got.correction), n: fmt(norm(got.correction), 3) })
      : "";
    setText(lines[4], method === "delta" && corr ? t("correction v − S k = {c}", { c: corr }) : "");
    ask.value = String(query);
    beta.show();
    beta.wrap.style.display = method === "delta" ? "" : "none";
    showMemory();
    showStep();
    const words = t("t = {t} of {T}, {memory}: asked {key}, error {e}.", {
      t: step,
      T,
      memory: NAMES[method],
      key: asked,
      e: fmt(got.error, 3),
    });
    const length = fmt(norm(got.correction), 3);
    const fix = t("Correction length {n}.", { n: length });
    say(method === "delta" && corr ? `${words} ${fix}` : words);
  }

  // the token strip: a tap or a drag along it writes up to the token under the finger
  let dragging = false;
  const stepAt = (e) => {
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    const T = model.get("key_vectors").length;
    const j = Math.floor((pt.x - STRIP.left) / parts.pitch);
    const step = Math.min(T, Math.max(0, j + 1));
    if (step !== model.get("step")) update(model, "step", step);
  };
  svg.addEventListener("pointerdown", (e) => {
    if (!e.target.closest?.(".abh-tokenbox")) return;
    dragging = true;
    svg.setPointerCapture(e.pointerId);
    svg.focus({ preventScroll: true });
    stepAt(e);
    e.preventDefault();
  });
  svg.addEventListener("pointermove", (e) => dragging && stepAt(e));
  const up = (e) => {
    dragging = false;
    if (svg.hasPointerCapture(e.pointerId)) svg.releasePointerCapture(e.pointerId);
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  svg.addEventListener("keydown", (e) => {
    const T = model.get("key_vectors").length;
    const N = Math.max(...model.get("pair_of")) + 1;
    const dt = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    const dq = { ArrowUp: -1, ArrowDown: 1 }[e.key];
    if (dt) update(model, "step", Math.min(T, Math.max(0, model.get("step") + dt)));
    else if (dq) update(model, "query", Math.min(N - 1, Math.max(0, model.get("query") + dq)));
    else if (e.key === "Home" || e.key === "End") update(model, "step", e.key === "Home" ? 0 : T);
    else return;
    e.preventDefault();
  });

  const off = onChanges(model, INPUTS, paint);
  paint();
  return () => off();
}

export default { render };
