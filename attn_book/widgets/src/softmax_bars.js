// softmax_bars.js — SoftmaxBars: drag score bars, watch softmax weights; see max-subtraction work.

import { entropy, fmt, fmtWide, naiveSoftmax, OKABE_ITO, softmax } from "./attn_math.js";
import {
  boundSlider,
  htmlEl,
  liveRegion,
  onChanges,
  onDrag,
  setAttrs,
  setSliderValue,
  setText,
  setTitle,
  spoken,
  svgEl,
  temperatureSlider,
  translator,
  update,
} from "./dom.js";
import { BARS, barGeometry, scoreLabelY, weightBar } from "./softmax_bars_layout.js";

/**
 * The traits of softmax_bars.py's SoftmaxBars that this file reads.
 * @typedef {object} SoftmaxBarsModel
 * @property {number[]} scores - s, shape (S,), shown in [-4, 6]
 * @property {number} temperature - T > 0
 * @property {number} shift - added to every score (the weights do not change)
 */

function drawFrame(svg, g, t) {
  const title = (y, text) => {
    setTitle(svgEl("text", { x: 4, y, class: "abh-title" }, svg), text);
  };
  const axis = (y) => svgEl("line", { x1: 30, x2: g.width, y1: y, y2: y, class: "abh-axis" }, svg);
  title(g.titles.scores, t("scores s (점수) — drag a bar"));
  axis(g.zeroY);
  title(g.titles.weights, t("weights w = softmax(s / T) (가중치)"));
  axis(g.weightBase);
}

function buildBars(svg, n, g, t) {
  svg.replaceChildren();
  setAttrs(svg, { viewBox: `0 0 ${g.width} ${g.height}`, width: g.width, height: g.height });
  drawFrame(svg, g, t);
  const width = BARS.col - 16;
  return Array.from({ length: n }, (_, j) => {
    const [x, mid, fill] = [g.x(j), g.x(j) + width / 2, OKABE_ITO[j % 7]];
    const score = svgEl(
      "rect",
      {
        x,
        width,
        fill,
        class: "abh-scorebar abh-handle",
        tabindex: 0,
        role: "slider",
        "aria-label": t("score s{j}", { j: j + 1 }),
        "aria-orientation": "vertical",
      },
      svg,
    );
    score.dataset.index = j;
    const sText = svgEl("text", { x: mid, class: "abh-label abh-num" }, svg);
    const weight = svgEl("rect", { x, width, fill }, svg);
    const wText = svgEl("text", { x: mid, class: "abh-label abh-num" }, svg);
    Object.assign(wText.dataset, { role: "weight", index: j });
    return { score, sText, weight, wText };
  });
}

const COLUMNS = ["shifted", "naiveExp", "exp", "naive", "w"];
function buildTable(holder, n, t) {
  const HEADERS = ["", t("s + shift"), t("naive exp(s)"), t("exp(s − max)"), t("naive w"), "w"];
  holder.replaceChildren();
  const table = htmlEl("table", { cls: "abh-table" }, holder);
  const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
  for (const h of HEADERS) htmlEl("th", { text: h }, head);
  const body = htmlEl("tbody", {}, table);
  return Array.from({ length: n }, (_, j) => {
    const tr = htmlEl("tr", {}, body);
    htmlEl("td", { text: `s${j + 1}` }, tr);
    return COLUMNS.map((r) =>
      htmlEl("td", { cls: "abh-num", attrs: { "data-role": r, "data-index": j } }, tr),
    );
  });
}

function paintBars(cols, g, s, w, t) {
  s.forEach((v, j) => {
    const top = g.sy(Math.min(BARS.hi, Math.max(BARS.lo, v)));
    const y = Math.min(top, g.zeroY);
    setAttrs(cols[j].score, { y, height: Math.max(1, Math.abs(top - g.zeroY)) });
    setAttrs(cols[j].sText, { y: scoreLabelY(g, v) });
    setText(cols[j].sText, fmt(v, 3));
    const text = t("{s}, weight {w}", { s: fmt(v, 1), w: fmt(w[j], 3) });
    setSliderValue(cols[j].score, { value: v, min: BARS.lo, max: BARS.hi, text });
    const bar = weightBar(g, w[j]);
    setAttrs(cols[j].weight, { y: bar.y, height: bar.height });
    setAttrs(cols[j].wText, { y: bar.labelY });
    setText(cols[j].wText, fmt(w[j], 3));
  });
}

function paintTable(rows, shifted, T, w, naive) {
  const peak = Math.max(...shifted.map((v) => v / T));
  rows.forEach((cells, j) => {
    setText(cells[0], fmt(shifted[j], 3));
    setText(cells[1], fmtWide(Math.exp(shifted[j] / T), 3));
    setText(cells[2], fmt(Math.exp(shifted[j] / T - peak), 3));
    setText(cells[3], fmt(naive[j], 3));
    setText(cells[4], fmt(w[j], 3));
  });
}

function paintNote(note, w, naive, t) {
  const n = w.length;
  const broken = naive.some((v) => !Number.isFinite(v));
  note.className = broken ? "abh-caption abh-warn" : "abh-caption";
  const spread = t(
    "entropy H(w) = {H} nats: the spread of the weights, " +
      "0 = all on one score, log {n} = {log} = uniform",
    { H: fmt(entropy(w), 3), n, log: fmt(Math.log(n), 3) },
  );
  setText(
    note,
    broken ? t("{spread} — the naive formula has overflowed: NaN weights", { spread }) : spread,
  );
}

/** @param {{model: import("./dom.js").Model, el: HTMLElement}} ctx (traits: SoftmaxBarsModel) */
function render({ model, el }) {
  const t = translator(model);
  const root = htmlEl("div", { cls: "abh-fig abh-bars" }, el);
  const svg = svgEl(
    "svg",
    {
      class: "abh-plane",
      tabindex: 0,
      role: "application",
      "aria-label": t(
        "Softmax bars: drag a score bar up or down; arrow keys change the focused bar",
      ),
    },
    root,
  );
  const panel = htmlEl("div", { cls: "abh-panel" }, root);
  const controls = htmlEl("div", { cls: "abh-controls" }, panel);
  const temp = temperatureSlider(model, controls);
  const shiftRange = { min: 0, max: 1000, step: 10 };
  const shift = boundSlider(model, controls, "shift", t("shift every score by"), shiftRange, (v) =>
    fmt(v, 0),
  );
  const tableHolder = htmlEl("div", {}, panel);
  const note = htmlEl("div", { cls: "abh-caption" }, panel);
  const hint = t(
    "Softmax is shift-invariant: subtracting the maximum changes no weight but keeps every " +
      "exponent ≤ 0. Push the shift past ~710 and the naive exp(s) overflows to ∞, its weights to NaN.",
  );
  htmlEl("div", { cls: "abh-hint", text: hint }, panel);
  const say = liveRegion(root);
  let cols = null,
    rows = null,
    g = null;

  function paint() {
    const s = model.get("scores"),
      T = model.get("temperature");
    if (!cols || cols.length !== s.length) {
      g = barGeometry(s.length);
      cols = buildBars(svg, s.length, g, t);
      rows = buildTable(tableHolder, s.length, t);
    }
    const shifted = s.map((v) => v + model.get("shift"));
    const [w, naive] = [softmax(shifted, T), naiveSoftmax(shifted, T)];
    paintBars(cols, g, s, w, t);
    paintTable(rows, shifted, T, w, naive);
    paintNote(note, w, naive, t);
    temp.show();
    shift.show();
    const names = s.map((_, j) => `s${j + 1}`);
    say(
      t("scores {scores}; weights {weights}.", {
        scores: spoken(names, s, 1),
        weights: spoken(names, w),
      }),
    );
  }

  function setScore(j, v) {
    const list = model.get("scores").slice();
    list[j] = Math.round(Math.min(BARS.hi, Math.max(BARS.lo, v)) * 10) / 10;
    update(model, "scores", list);
  }

  onDrag(svg, ".abh-scorebar", {
    start: (node) => Number(node.dataset.index),
    move: (j, _x, y) => setScore(j, g.toScore(y)),
  });
  svg.addEventListener("keydown", (e) => {
    const bar = e.target.closest?.(".abh-scorebar");
    const d = { ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1 }[e.key];
    if (!bar || !d) return;
    const j = Number(bar.dataset.index);
    setScore(j, model.get("scores")[j] + d * (e.shiftKey ? 0.1 : 0.5));
    e.preventDefault();
  });

  const off = onChanges(model, ["scores", "temperature", "shift"], paint);
  paint();
  return () => off();
}

export default { render };
