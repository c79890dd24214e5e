// softmax_bars.js — SoftmaxBars: drag score bars, watch softmax weights; see max-subtraction work.

const BARS = { col: 64, top: 150, bottom: 110, lo: -4, hi: 6 };

function barGeometry(n) {
  const width = Math.max(4, n) * BARS.col + 40;
  const unit = BARS.top / (BARS.hi - BARS.lo);
  const zeroY = 20 + BARS.hi * unit;
  return {
    width, height: 20 + BARS.top + 30 + BARS.bottom + 24,
    x: (j) => 40 + j * BARS.col,
    sy: (s) => zeroY - s * unit,
    toScore: (Y) => (zeroY - Y) / unit,
    zeroY, wTop: 20 + BARS.top + 30,
  };
}

function buildBars(svg, n, g) {
  svg.replaceChildren();
  setAttrs(svg, { viewBox: `0 0 ${g.width} ${g.height}`, width: g.width, height: g.height });
  svgEl("text", { x: 4, y: 12, class: "abh-title" }, svg).textContent =
    "scores s (점수) — drag a bar";
  svgEl("line", { x1: 30, x2: g.width, y1: g.zeroY, y2: g.zeroY, class: "abh-axis" }, svg);
  svgEl("text", { x: 4, y: g.wTop - 6, class: "abh-title" }, svg).textContent =
    "weights w = softmax(s / T) (가중치)";
  svgEl("line", { x1: 30, x2: g.width, y1: g.wTop + BARS.bottom, y2: g.wTop + BARS.bottom, class: "abh-axis" }, svg);
  const cols = [];
  for (let j = 0; j < n; j++) {
    const c = OKABE_ITO[j % 7];
    const score = svgEl("rect", { x: g.x(j), width: BARS.col - 16, fill: c, class: "abh-scorebar abh-handle",
      tabindex: 0, role: "slider", "aria-label": `score s${j + 1}` }, svg);
    score.dataset.index = j;
    const sText = svgEl("text", { x: g.x(j) + (BARS.col - 16) / 2, class: "abh-label abh-num" }, svg);
    const weight = svgEl("rect", { x: g.x(j), width: BARS.col - 16, fill: c }, svg);
    const wText = svgEl("text", { x: g.x(j) + (BARS.col - 16) / 2, class: "abh-label abh-num" }, svg);
    wText.dataset.role = "weight";
    wText.dataset.index = j;
    cols.push({ score, sText, weight, wText });
  }
  return cols;
}

function buildTable(holder, n) {
  holder.replaceChildren();
  const table = htmlEl("table", { cls: "abh-table" }, holder);
  const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
  for (const h of ["", "s + shift", "naive exp(s)", "exp(s − max)", "naive w", "w"]) htmlEl("th", { text: h }, head);
  const body = htmlEl("tbody", {}, table);
  return Array.from({ length: n }, (_, j) => {
    const tr = htmlEl("tr", {}, body);
    htmlEl("td", { text: `s${j + 1}` }, tr);
    return ["shifted", "naiveExp", "exp", "naive", "w"].map((r) =>
      htmlEl("td", { cls: "abh-num", attrs: { "data-role": r, "data-index": j } }, tr));
  });
}

function render({ model, el }) {
  const root = htmlEl("div", { cls: "abh-fig abh-bars" }, el);
  const svg = svgEl("svg", { class: "abh-plane", tabindex: 0, role: "application",
    "aria-label": "Softmax bars: drag a score bar up or down; arrow keys change the focused bar" }, root);
  const panel = htmlEl("div", { cls: "abh-panel" }, root);
  const controls = htmlEl("div", { cls: "abh-controls" }, panel);
  const temp = slider(controls, "temperature T (온도)", { min: 0.1, max: 5, step: 0.05, value: model.get("temperature") });
  const shift = slider(controls, "shift every score by", { min: 0, max: 1000, step: 10, value: model.get("shift") });
  const tableHolder = htmlEl("div", {}, panel);
  const note = htmlEl("div", { cls: "abh-caption" }, panel);
  htmlEl("div", { cls: "abh-hint", text: "Softmax is shift-invariant: subtracting the maximum changes no weight but keeps every exponent ≤ 0. Push the shift past ~710 and the naive exp(s) overflows to ∞, its weights to NaN." }, panel);

  let cols = null, rows = null, g = null, n = -1;

  function paint() {
    const s = model.get("scores"), T = model.get("temperature"), sh = model.get("shift");
    if (s.length !== n) {
      n = s.length;
      g = barGeometry(n);
      cols = buildBars(svg, n, g);
      rows = buildTable(tableHolder, n);
    }
    const shifted = s.map((v) => v + sh);
    const w = softmax(shifted, T);
    const naive = naiveSoftmax(shifted, T);
    const peak = Math.max(...shifted.map((v) => v / T));
    s.forEach((v, j) => {
      const clamped = Math.min(BARS.hi, Math.max(BARS.lo, v));
      const y = Math.min(g.sy(clamped), g.zeroY);
      setAttrs(cols[j].score, { y, height: Math.max(1, Math.abs(g.sy(clamped) - g.zeroY)) });
      setAttrs(cols[j].sText, { y: v >= 0 ? y - 4 : g.zeroY + Math.abs(g.sy(clamped) - g.zeroY) + 12 });
      setText(cols[j].sText, fmt(v, 3));
      const h = w[j] * BARS.bottom;
      setAttrs(cols[j].weight, { y: g.wTop + BARS.bottom - h, height: Math.max(0.5, h) });
      setAttrs(cols[j].wText, { y: g.wTop + BARS.bottom - h - 4 });
      setText(cols[j].wText, fmt(w[j], 3));
      const cells = rows[j];
      setText(cells[0], fmt(shifted[j], 3));
      setText(cells[1], fmtWide(Math.exp(shifted[j] / T), 3));
      setText(cells[2], fmt(Math.exp(shifted[j] / T - peak), 3));
      setText(cells[3], fmt(naive[j], 3));
      setText(cells[4], fmt(w[j], 3));
    });
    const broken = naive.some((v) => !Number.isFinite(v));
    note.className = broken ? "abh-caption abh-warn" : "abh-caption";
    setText(note, `entropy H(w) = ${fmt(entropy(w), 3)} nats: the spread of the weights, ` +
      `0 = all on one score, log ${n} = ${fmt(Math.log(n), 3)} = uniform` +
      (broken ? " — the naive formula has overflowed: NaN weights" : ""));
    temp.input.value = T;
    setText(temp.out, fmt(T, 2));
    shift.input.value = sh;
    setText(shift.out, fmt(sh, 0));
  }

  function setScore(j, v) {
    const list = model.get("scores").slice();
    list[j] = Math.round(Math.min(BARS.hi, Math.max(BARS.lo, v)) * 10) / 10;
    model.set("scores", list);
    save(model);
  }

  let dragging = null;
  svg.addEventListener("pointerdown", (e) => {
    const t = e.target.closest(".abh-scorebar");
    if (!t) return;
    dragging = Number(t.dataset.index);
    svg.setPointerCapture(e.pointerId);
    t.focus({ preventScroll: true });
    e.preventDefault();
  });
  svg.addEventListener("pointermove", (e) => {
    if (dragging === null) return;
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    setScore(dragging, g.toScore(pt.y));
  });
  const up = (e) => {
    dragging = null;
    if (svg.hasPointerCapture(e.pointerId)) svg.releasePointerCapture(e.pointerId);
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  svg.addEventListener("keydown", (e) => {
    const t = e.target.closest?.(".abh-scorebar");
    const d = { ArrowUp: 1, ArrowDown: -1 }[e.key];
    if (!t || !d) return;
    const j = Number(t.dataset.index);
    setScore(j, model.get("scores")[j] + d * (e.shiftKey ? 0.1 : 0.5));
    e.preventDefault();
  });
  temp.input.addEventListener("input", () => { model.set("temperature", Number(temp.input.value)); save(model); });
  shift.input.addEventListener("input", () => { model.set("shift", Number(shift.input.value)); save(model); });

  const off = onChanges(model, ["scores", "temperature", "shift"], paint);
  paint();
  return () => off();
}

export default { render };
