// scaling_explorer.js — ScalingExplorer: redraws tables computed in Python (no randomness here).

const RAW = "#D55E00";   // Okabe–Ito vermillion: without 1/√d_k
const SCALED = "#0072B2"; // Okabe–Ito blue: with 1/√d_k
const HIST = { w: 360, h: 170, left: 30, bottom: 24 };
const LINE = { w: 300, h: 170, left: 36, bottom: 28 };

function drawHistogram(svg, edges, row, title) {
  svg.replaceChildren();
  const n = edges.length - 1;
  const bw = (HIST.w - HIST.left - 10) / n;
  const base = HIST.h - HIST.bottom;
  const peak = Math.max(...row.raw.hist, ...row.scaled.hist, 0.05);
  svgEl("text", { x: 4, y: 12, class: "abh-title" }, svg).textContent = title;
  for (const [name, colour] of [["scaled", SCALED], ["raw", RAW]]) {
    row[name].hist.forEach((f, i) => {
      const h = (f / peak) * (base - 24);
      svgEl("rect", { x: HIST.left + i * bw, y: base - h, width: bw - 1, height: h, fill: colour,
        "fill-opacity": name === "raw" ? 0.55 : 0.8 }, svg);
    });
  }
  svgEl("line", { x1: HIST.left, x2: HIST.w - 10, y1: base, y2: base, class: "abh-axis" }, svg);
  for (const v of [-40, -20, 0, 20, 40]) {
    const x = HIST.left + ((v - edges[0]) / (edges[n] - edges[0])) * n * bw;
    svgEl("text", { x, y: base + 14, class: "abh-tick" }, svg).textContent = v;
  }
}

function drawCurve(svg, table, key, label, current, hi) {
  svg.replaceChildren();
  const base = LINE.h - LINE.bottom, top = 20;
  const x = (i) => LINE.left + (i / (table.length - 1)) * (LINE.w - LINE.left - 10);
  const y = (v) => base - (v / hi) * (base - top);
  svgEl("text", { x: 4, y: 12, class: "abh-title" }, svg).textContent = label;
  svgEl("line", { x1: LINE.left, x2: LINE.w - 10, y1: base, y2: base, class: "abh-axis" }, svg);
  svgEl("line", { x1: LINE.left, x2: LINE.left, y1: top, y2: base, class: "abh-axis" }, svg);
  for (const v of [0, hi / 2, hi]) {
    svgEl("text", { x: LINE.left - 16, y: y(v) + 4, class: "abh-tick" }, svg).textContent = fmt(v, 1);
  }
  table.forEach((r, i) => {
    if (i % 2 === 0) svgEl("text", { x: x(i), y: base + 14, class: "abh-tick" }, svg).textContent = r.d_k;
  });
  svgEl("text", { x: (LINE.w + LINE.left) / 2, y: base + 26, class: "abh-tick" }, svg).textContent = "dₖ";
  for (const [name, colour] of [["raw", RAW], ["scaled", SCALED]]) {
    const pts = table.map((r, i) => `${x(i)},${y(r[name][key])}`).join(" ");
    svgEl("polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 2 }, svg);
    svgEl("circle", { cx: x(current), cy: y(table[current][name][key]), r: 5, fill: colour, stroke: "white" }, svg);
  }
}

function buildStats(holder) {
  const table = htmlEl("table", { cls: "abh-table" }, holder);
  const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
  for (const h of ["", "std of scores", "largest weight", "entropy (nats)", "gradient |J|"]) htmlEl("th", { text: h }, head);
  const body = htmlEl("tbody", {}, table);
  const rows = {};
  for (const [name, colour, label] of [["raw", RAW, "q·k"], ["scaled", SCALED, "q·k / √dₖ"]]) {
    const tr = htmlEl("tr", {}, body);
    const td = htmlEl("td", { cls: "abh-keyname" }, tr);
    htmlEl("span", { cls: "abh-swatch", attrs: { style: `background:${colour}` } }, td);
    htmlEl("span", { text: label }, td);
    rows[name] = ["std", "max_weight", "entropy", "grad"].map((r) =>
      htmlEl("td", { cls: "abh-num", attrs: { "data-role": `${name}-${r}` } }, tr));
  }
  return rows;
}

function render({ model, el }) {
  const root = htmlEl("div", { cls: "abh-fig abh-scaling" }, el);
  const left = htmlEl("div", { cls: "abh-panel" }, root);
  const controls = htmlEl("div", { cls: "abh-controls" }, left);
  const dims = model.get("dims");
  const dk = slider(controls, "dₖ (키 차원)", { min: 0, max: dims.length - 1, step: 1, value: dims.indexOf(model.get("d_k")) });
  const hist = svgEl("svg", { viewBox: `0 0 ${HIST.w} ${HIST.h}`, width: HIST.w, height: HIST.h }, left);
  const stats = buildStats(left);
  const note = htmlEl("div", { cls: "abh-caption" }, left);
  const right = htmlEl("div", { cls: "abh-panel" }, root);
  const maxSvg = svgEl("svg", { viewBox: `0 0 ${LINE.w} ${LINE.h}`, width: LINE.w, height: LINE.h }, right);
  const entSvg = svgEl("svg", { viewBox: `0 0 ${LINE.w} ${LINE.h}`, width: LINE.w, height: LINE.h }, right);

  function paint() {
    const table = model.get("table"), d = model.get("d_k");
    const i = Math.max(0, model.get("dims").indexOf(d));
    const row = table[i];
    dk.input.value = i;
    setText(dk.out, String(d));
    drawHistogram(hist, model.get("hist_edges"), row,
      `distribution of the scores (${model.get("n_keys")} keys × ${model.get("n_samples")} queries)`);
    for (const name of ["raw", "scaled"]) {
      const r = row[name];
      [r.std, r.max_weight, r.entropy, r.grad].forEach((v, m) => setText(stats[name][m], fmt(v, 3)));
    }
    const S = model.get("n_keys");
    setText(note, `${S} keys: uniform weights would be ${fmt(1 / S, 3)} each, entropy log ${S} = ${fmt(Math.log(S), 3)}. ` +
      `Without scaling, the largest weight is ${fmt(row.raw.max_weight, 3)}: softmax is ${row.raw.max_weight > 0.8 ? "saturated and its gradient small" : "not yet saturated"}.`);
    drawCurve(maxSvg, table, "max_weight", "largest weight vs dₖ", i, 1);
    drawCurve(entSvg, table, "entropy", "entropy (nats) vs dₖ", i, Math.log(S));
  }

  dk.input.addEventListener("input", () => {
    model.set("d_k", model.get("dims")[Number(dk.input.value)]);
    save(model);
  });
  const off = onChanges(model, ["d_k", "table"], paint);
  paint();
  return () => off();
}

export default { render };
