// attention_heatmap.js — AttentionHeatmap: query tokens × key tokens, viridis, one row selected.
// The weights are recomputed here from the per-head queries and keys the Python side sends.

import { attentionMatrix, entropy, fmt, viridis } from "./attn_math.js";
import {
  boundCheckbox,
  boundSlider,
  htmlEl,
  liveRegion,
  onChanges,
  setAttrs,
  setText,
  spoken,
  svgEl,
  temperatureSlider,
  translator,
  update,
} from "./dom.js";

/**
 * The traits of attention_heatmap.py's AttentionHeatmap that this file reads.
 * @typedef {object} AttentionHeatmapModel
 * @property {string[]} query_tokens - L tokens, one row each
 * @property {string[] | null} key_tokens - S tokens, one column each; null: the query tokens
 * @property {number[][][]} head_queries - shape (H, L, d_head)
 * @property {number[][][]} head_keys - shape (H, S, d_head)
 * @property {number} head - the head shown, 0 .. H - 1
 * @property {boolean} scaled - multiply the scores by 1/√d_head
 * @property {number} temperature - T > 0
 * @property {boolean} causal - hide the keys after each query
 * @property {number | null} length - real key tokens; keys from `length` on are padding
 * @property {boolean} padded - hide the padding keys (when `length` is not null)
 * @property {number} selected - the query row listed beside the heatmap
 * @property {number[][][]} training_queries - stored states (N, L, E), or [] for none
 * @property {number[][][]} training_keys - stored states (N, S, E)
 * @property {number[]} training_steps - the training step of each stored state
 * @property {number[]} training_losses - the loss at every step 0, 1, ...
 * @property {number} step - the stored state shown, 0 .. N - 1
 * @property {string[][]} stored_weights - weights computed elsewhere (a trained model), one
 *   string per layer and head (attention_heatmap.py's encode_head); [] for none
 * @property {number} layer - the stored layer shown, 0 .. layers - 1
 */

const INPUTS = [
  "query_tokens",
  "key_tokens",
  "head_queries",
  "head_keys",
  "head",
  "scaled",
  "temperature",
  "causal",
  "length",
  "padded",
  "selected",
  "training_queries",
  "training_keys",
  "step",
  "stored_weights",
  "layer",
];
/** The English itself, its `{name}` fields filled: the translator of a figure with no words. */
const english = translator({ get: () => ({}) });

const MASKED = "#e8e8e8"; // a masked (causal or padding) cell: light grey, no number

function cellSize(L, S) {
  return Math.max(12, Math.min(48, Math.floor(420 / Math.max(L, S))));
}

function buildGrid(svg, qTok, kTok, onPick) {
  svg.replaceChildren();
  const L = qTok.length,
    S = kTok.length,
    c = cellSize(L, S);
  const fs = Math.min(13, Math.max(10, c * 0.6)); // px; set as a style, which beats .abh-token
  const angle = c < 24 ? -90 : -45; // narrow columns: vertical labels, so they never overlap
  const longest = (toks) => Math.min(12, Math.max(...toks.map((s) => s.length)));
  const left = 8 + 0.75 * fs * longest(qTok) + 8;
  const top = 16 + (angle === -90 ? 0.75 : 0.55) * fs * longest(kTok) + 6;
  const W = left + S * c + 10,
    H = top + L * c + 6;
  setAttrs(svg, { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
  const colLabels = kTok.map((s, j) => {
    const x = left + j * c + c / 2 + (angle === -90 ? fs / 3 : 0),
      y = top - 6;
    const text = svgEl(
      "text",
      {
        x,
        y,
        class: "abh-token",
        style: `font-size:${fs}px`,
        transform: `rotate(${angle} ${x} ${y})`,
      },
      svg,
    );
    text.textContent = s;
    return text;
  });
  const rowLabels = qTok.map((s, i) => {
    const text = svgEl(
      "text",
      {
        x: left - 6,
        y: top + i * c + c / 2 + 4,
        class: "abh-token",
        "text-anchor": "end",
        style: `font-size:${fs}px`,
      },
      svg,
    );
    text.textContent = s;
    text.dataset.row = i;
    return text;
  });
  const cells = [],
    texts = [];
  for (let i = 0; i < L; i++) {
    const rc = [],
      rt = [];
    for (let j = 0; j < S; j++) {
      const r = svgEl(
        "rect",
        { x: left + j * c, y: top + i * c, width: c, height: c, class: "abh-cell" },
        svg,
      );
      r.dataset.row = i;
      rc.push(r);
      if (c >= 36) {
        // room for "0.000" in the cell; smaller cells: numbers in the row panel
        const t = svgEl(
          "text",
          { x: left + j * c + c / 2, y: top + i * c + c / 2, class: "abh-celltext abh-num" },
          svg,
        );
        t.dataset.role = "cell";
        t.dataset.row = i;
        t.dataset.col = j;
        rt.push(t);
      }
    }
    cells.push(rc);
    texts.push(rt);
  }
  const mark = svgEl(
    "rect",
    { x: left - 1, width: S * c + 2, height: c, class: "abh-rowmark" },
    svg,
  );
  svg.addEventListener("pointerover", (e) => {
    const row = e.target.dataset?.row;
    if (row !== undefined) onPick(Number(row));
  });
  svg.addEventListener("click", (e) => {
    const row = e.target.dataset?.row;
    if (row !== undefined) onPick(Number(row));
  });
  return { L, S, c, top, cells, texts, mark, rowLabels, colLabels };
}

function buildRowPanel(holder, kTok) {
  holder.replaceChildren();
  const table = htmlEl(
    "table",
    { cls: kTok.length > 10 ? "abh-table abh-many" : "abh-table" },
    holder,
  );
  const body = htmlEl("tbody", {}, table);
  return kTok.map((s, j) => {
    const tr = htmlEl("tr", {}, body);
    htmlEl("td", { text: s, cls: "abh-keyname" }, tr);
    const cell = htmlEl("td", { cls: "abh-barcell" }, tr);
    const bar = htmlEl("span", { cls: "abh-bar" }, cell);
    const num = htmlEl(
      "span",
      { cls: "abh-num", attrs: { "data-role": "row-weight", "data-index": j } },
      cell,
    );
    return { bar, num };
  });
}

/**
 * A token as the figure shows it: the padding token "<pad>" is named in the reader's language
 * (패딩, as chapter 7's table names it); the sentence's own tokens are drawn as they are.
 */
function shownToken(token, t = english) {
  return token === "<pad>" ? t("<pad>") : token;
}

/** Whether key j is hidden from query i by the causal mask or the padding (`length`). */
function isHidden(i, j, causal, length) {
  return (causal && j > i) || (length !== null && j >= length);
}

/**
 * The caption under the row: which attention, the head, and the row's entropy in words.
 * The uniform entropy is log(keys the row can see), not log(all keys): a masked key has no
 * weight to share. `visible` is that number of keys.
 */
function noteText(cross, h, dHead, row, visible = row.length, t = english) {
  const kind = cross ? t("cross-attention (크로스 어텐션)") : t("self-attention (셀프 어텐션)");
  const fields = { kind, h: h + 1, d: dHead };
  if (visible === 0) {
    return t("{kind}, head {h}: head width = {d}; this row sees no key: every weight is 0", fields);
  }
  return t(
    "{kind}, head {h}: head width = {d}; entropy of this row {H} nats (spread of the weights: " +
      "0 = all on one key, log {keys} = {log} = uniform)",
    { ...fields, ...spread(row, visible, t) },
  );
}

/** The entropy of a row that sees `visible` keys, and the uniform row's, as the notes say them. */
function spread(row, visible, t) {
  const keys =
    visible === row.length
      ? `${visible}`
      : visible === 1
        ? t("{n} visible key", { n: visible })
        : t("{n} visible keys", { n: visible });
  return { H: fmt(entropy(row), 3), keys, log: fmt(Math.log(visible), 3) };
}

/** The caption under a stored layer's row: the layer, the head and the row's entropy. */
function storedNoteText(l, h, row, visible = row.length, t = english) {
  const fields = { l: l + 1, h: h + 1 };
  if (visible === 0) {
    return t("layer {l}, head {h}: this row sees no key: every weight is 0", fields);
  }
  return t(
    "layer {l}, head {h}: entropy of this row {H} nats (spread of the weights: 0 = all on one " +
      "key, log {keys} = {log} = uniform)",
    { ...fields, ...spread(row, visible, t) },
  );
}

/**
 * The weights of stored layer `l`, head `h` (L × S), decoded as attention_heatmap.py's
 * decode_head: thousandths, "," between keys, ";" between rows, each row padded back with
 * zeros to `S` keys. `l` and `h` are clamped to the stored ones.
 */
function storedMatrix(model, l, h, S) {
  const layers = model.get("stored_weights");
  const heads = layers[Math.min(Math.max(0, l), layers.length - 1)];
  const text = heads[Math.min(Math.max(0, h), heads.length - 1)];
  return text.split(";").map((row) => {
    const weights = row ? row.split(",").map((v) => Number(v) / 1000) : [];
    return [...weights, ...new Array(Math.max(0, S - weights.length)).fill(0)];
  });
}

/** The layer slider of stored weights, its value said as "layer 19 of 30"; `show()` mirrors it. */
function layerControl(model, controls, t) {
  const n = model.get("stored_weights").length;
  const range = { min: 0, max: n - 1, step: 1 };
  const slider = boundSlider(model, controls, "layer", t("layer (층)"), range, (l) =>
    t("{h} of {n}", { h: l + 1, n }),
  );
  const show = () => {
    slider.show();
    const l = Math.min(model.get("layer"), n - 1);
    setAttrs(slider.input, { "aria-valuetext": t("layer {l} of {n}", { l: l + 1, n }) });
  };
  return { show, n };
}

/**
 * The per-head queries and keys to draw: the stored training state `step` if there are
 * stored states (the static page has no kernel to send them), else the head's.
 */
function headsToDraw(model) {
  const TQ = model.get("training_queries") ?? [];
  if (!TQ.length) return [model.get("head_queries"), model.get("head_keys")];
  const s = Math.min(Math.max(0, model.get("step")), TQ.length - 1);
  return [[TQ[s]], [model.get("training_keys")[s]]];
}

/**
 * The loss curve's points [x, y] on a log scale: step 0 at x = 0, the last step at
 * `width`, the largest loss at y = 0 and the smallest at y = `height`.
 */
function lossCurve(losses, width, height) {
  const logs = losses.map((v) => Math.log10(Math.max(v, 1e-12)));
  const hi = Math.max(...logs),
    span = hi - Math.min(...logs) || 1;
  const last = Math.max(1, losses.length - 1);
  return logs.map((v, i) => [(width * i) / last, (height * (hi - v)) / span]);
}

/** "training step 50 of 300, loss 0.1194": the stored state `i`'s step and its loss. */
function stepText(steps, i, losses, t) {
  const n = steps[i];
  const fields = { n, last: steps[steps.length - 1] };
  return n < losses.length
    ? t("training step {n} of {last}, loss {loss}", { ...fields, loss: fmt(losses[n], 4) })
    : t("training step {n} of {last}", fields);
}

/** The step slider and the loss curve; `show()` draws the current step. */
function trainingControls(model, controls, panel, t) {
  const steps = model.get("training_steps"),
    losses = model.get("training_losses");
  const range = { min: 0, max: steps.length - 1, step: 1 };
  const slider = boundSlider(model, controls, "step", t("training step (학습 단계)"), range, (i) =>
    String(steps[i]),
  );
  const W = 240,
    H = 70,
    // left: room for the loss axis' widest label ("0.0005", 13 px) inside the drawing, which
    // a 390 px phone shows to its edge (a label drawn at x < 0 was cut there)
    pad = { left: 58, top: 14, bottom: 18, right: 8 };
  const label = t("Loss curve of the training run, log scale; the dot marks the step shown");
  const svg = svgEl("svg", { class: "abh-loss", role: "img", "aria-label": label }, panel);
  setAttrs(svg, { viewBox: `0 0 ${W + pad.left + pad.right} ${H + pad.top + pad.bottom}` });
  setAttrs(svg, { width: W + pad.left + pad.right, height: H + pad.top + pad.bottom });
  const pts = lossCurve(losses.length ? losses : [1], W, H);
  const at = ([x, y]) => `${(x + pad.left).toFixed(1)},${(y + pad.top).toFixed(1)}`;
  svgEl("path", { d: `M${pts.map(at).join("L")}`, class: "abh-loss-line" }, svg);
  const text = (x, y, words, anchor = "start") => {
    const el = svgEl("text", { x, y, class: "abh-token", "text-anchor": anchor }, svg);
    el.textContent = words;
  };
  text(pad.left, 10, t("loss (손실), log scale"));
  if (losses.length) {
    text(pad.left - 4, pad.top + 4, fmt(Math.max(...losses), 3), "end");
    text(pad.left - 4, pad.top + H, fmt(Math.min(...losses), 4), "end");
  }
  text(pad.left, pad.top + H + 14, t("step {n}", { n: 0 }));
  text(pad.left + W, pad.top + H + 14, t("step {n}", { n: losses.length - 1 }), "end");
  const dot = svgEl("circle", { r: 4, class: "abh-loss-dot" }, svg);
  const readout = htmlEl("div", { cls: "abh-readout" }, panel);
  const show = () => {
    const i = Math.min(model.get("step"), steps.length - 1);
    slider.show();
    const [x, y] = pts[Math.min(steps[i], pts.length - 1)];
    setAttrs(dot, { cx: x + pad.left, cy: y + pad.top });
    setText(readout, stepText(steps, i, losses, t));
  };
  return { show };
}

/** The controls of weights computed here: temperature, scale, causal and padding masks. */
function recomputeControls(model, controls, t) {
  const temp = temperatureSlider(model, controls);
  const scaleLabel = t("scale by 1/√(head width) (스케일)");
  const scaleBox = boundCheckbox(model, controls, "scaled", scaleLabel);
  const causalBox = boundCheckbox(model, controls, "causal", t("causal mask (인과 마스크)"));
  const paddingLabel = t("padding mask (패딩 마스크)");
  const paddingBox = boundCheckbox(model, controls, "padded", paddingLabel);
  const show = () => {
    scaleBox.show();
    causalBox.show();
    paddingBox.show();
    paddingBox.wrap.style.display = model.get("length") === null ? "none" : "";
    temp.show();
  };
  return { show };
}

/**
 * @param {{model: import("./dom.js").Model, el: HTMLElement}} ctx
 *   the model's traits: AttentionHeatmapModel
 */
function render({ model, el }) {
  const t = translator(model);
  const root = htmlEl("div", { cls: "abh-fig abh-heatmap" }, el);
  const svg = svgEl(
    "svg",
    {
      class: "abh-plane",
      tabindex: 0,
      role: "application",
      "aria-label": (model.get("stored_weights") ?? []).length
        ? t(
            "Attention heatmap: hover or click a query row; up and down arrow keys change the " +
              "row, left and right arrow keys the layer",
          )
        : t("Attention heatmap: hover or click a query row; up and down arrow keys change the row"),
    },
    root,
  );
  const panel = htmlEl("div", { cls: "abh-panel" }, root);
  const controls = htmlEl("div", { cls: "abh-controls" }, panel);
  // stored weights are drawn as they are: nothing to rescale or mask, a layer to choose
  const stored = (model.get("stored_weights") ?? []).length > 0;
  const recomputed = stored ? null : recomputeControls(model, controls, t);
  const layers = stored ? layerControl(model, controls, t) : null;
  const headWrap = htmlEl("label", { cls: "abh-control" }, controls);
  htmlEl("span", { text: t("head (헤드)") }, headWrap);
  const headSel = htmlEl("select", {}, headWrap);
  const training = (model.get("training_queries") ?? []).length
    ? trainingControls(model, controls, panel, t)
    : null;
  const title = htmlEl("div", { cls: "abh-readout" }, panel);
  const rowHolder = htmlEl("div", {}, panel);
  const note = htmlEl("div", { cls: "abh-caption" }, panel);
  const hint = stored
    ? t(
        "Rows: queries (쿼리); columns: keys (키); colour: weight from 0 (dark) to 1 " +
          "(yellow), viridis; grey: masked. Hover or click a row; ↑/↓ keys move it. " +
          "←/→ keys (or the slider) change the layer.",
      )
    : training
      ? t(
          "Rows: queries (쿼리); columns: keys (키); colour: weight from 0 (dark) to 1 " +
            "(yellow), viridis; grey: masked. Hover or click a row; ↑/↓ keys move it. " +
            "←/→ keys (or the slider) change the training step.",
        )
      : t(
          "Rows: queries (쿼리); columns: keys (키); colour: weight from 0 (dark) to 1 " +
            "(yellow), viridis; grey: masked. Hover or click a row; ↑/↓ keys move it.",
        );
  htmlEl("div", { cls: "abh-hint", text: hint }, panel);
  const say = liveRegion(root);

  let grid = null,
    rows = null,
    shapeKey = "";
  const pick = (i) => {
    if (i !== model.get("selected")) update(model, "selected", i);
  };

  function paint() {
    const qTok = model.get("query_tokens").map((s) => shownToken(s, t)),
      kTok = (model.get("key_tokens") ?? model.get("query_tokens")).map((s) => shownToken(s, t));
    const [HQ, HK] = stored ? [[], []] : headsToDraw(model);
    const nHeads = stored ? model.get("stored_weights")[0].length : HQ.length;
    const key = JSON.stringify([qTok, kTok]);
    if (key !== shapeKey) {
      shapeKey = key;
      grid = buildGrid(svg, qTok, kTok, pick);
      rows = buildRowPanel(rowHolder, kTok);
    }
    if (headSel.options.length !== nHeads) {
      const names = Array.from({ length: nHeads }, (_, h) =>
        t("{h} of {n}", { h: h + 1, n: nHeads }),
      );
      headSel.replaceChildren(...names.map((name, h) => new Option(name, h)));
    }
    const h = Math.min(model.get("head"), nHeads - 1),
      sel = Math.min(model.get("selected"), qTok.length - 1);
    const l = stored ? Math.min(model.get("layer"), layers.n - 1) : 0;
    const causal = model.get("causal");
    const length = model.get("padded") ? (model.get("length") ?? null) : null;
    const W = stored
      ? storedMatrix(model, l, h, kTok.length)
      : attentionMatrix(HQ[h], HK[h], {
          scale: model.get("scaled") ? null : 1,
          temperature: model.get("temperature"),
          causal,
          length,
        });
    for (let i = 0; i < grid.L; i++) {
      for (let j = 0; j < grid.S; j++) {
        // masked: no weight at all, drawn apart from a small one
        const hidden = isHidden(i, j, causal, length);
        setAttrs(grid.cells[i][j], { fill: hidden ? MASKED : viridis(W[i][j]) });
        const cellText = grid.texts[i][j];
        if (cellText) {
          setText(cellText, hidden ? "" : fmt(W[i][j], 3));
          setAttrs(cellText, { fill: W[i][j] > 0.55 ? "#000" : "#fff" });
        }
      }
      grid.rowLabels[i].classList.toggle("abh-selected", i === sel);
    }
    setAttrs(grid.mark, { y: grid.top + sel * grid.c });
    rows.forEach((r, j) => {
      r.bar.style.width = `${((grid.S > 10 ? 60 : 120) * W[sel][j]).toFixed(1)}px`;
      r.bar.style.background = viridis(W[sel][j]);
      setText(r.num, fmt(W[sel][j], 3));
    });
    setText(title, t("query “{token}” attends to:", { token: qTok[sel] }));
    const visible = W[sel].filter((_, j) => !isHidden(sel, j, causal, length)).length;
    const cross = Boolean(model.get("key_tokens"));
    setText(
      note,
      stored
        ? storedNoteText(l, h, W[sel], visible, t)
        : noteText(cross, h, HQ[h][0].length, W[sel], visible, t),
    );
    headSel.value = String(h);
    recomputed?.show();
    layers?.show();
    training?.show();
    const seen = kTok.map((_, j) => !isHidden(sel, j, causal, length));
    const names = kTok.filter((_, j) => seen[j]).map((tok) => `“${tok}”`);
    const weights = spoken(
      names,
      W[sel].filter((_, j) => seen[j]),
    );
    const heard = { l: l + 1, h: h + 1, token: qTok[sel], weights: weights || t("no key") };
    say(
      stored
        ? t("layer {l}, head {h}, query “{token}” attends to: {weights}.", heard)
        : t("head {h}, query “{token}” attends to: {weights}.", heard),
    );
  }

  svg.addEventListener("keydown", (e) => {
    const back = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    const states = (model.get("training_queries") ?? []).length;
    if (back && states) {
      update(model, "step", Math.min(states - 1, Math.max(0, model.get("step") + back)));
      e.preventDefault();
      return;
    }
    if (back && stored) {
      update(model, "layer", Math.min(layers.n - 1, Math.max(0, model.get("layer") + back)));
      e.preventDefault();
      return;
    }
    const d = { ArrowUp: -1, ArrowDown: 1 }[e.key];
    if (!d) return;
    const n = model.get("query_tokens").length;
    pick(Math.min(n - 1, Math.max(0, model.get("selected") + d)));
    e.preventDefault();
  });
  headSel.addEventListener("change", () => update(model, "head", Number(headSel.value)));

  const off = onChanges(model, INPUTS, paint);
  paint();
  return () => off();
}

export default { render };
