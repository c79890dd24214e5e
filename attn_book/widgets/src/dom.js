// dom.js — the DOM helpers and bound controls every figure shares.
// No element ids anywhere: two figures on one page must never find each other's parts.

import { fmt } from "./attn_math.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * The part of anywidget's model a figure uses.
 * @typedef {object} Model
 * @property {(name: string) => any} get
 * @property {(name: string, value: any) => void} set
 * @property {(event: string, callback: () => void) => void} on
 * @property {(event: string, callback: () => void) => void} off
 * @property {() => void} save_changes
 */

/**
 * The figure's words in the reader's language: `t(msgid, params)` looks the English `msgid`
 * up in the model's `words` trait ({English: translation}, the `figures` catalog of the
 * drawing language; empty in English), falls back to the English, then fills its `{name}`
 * fields from `params`. Call it with a literal msgid, `t("weights of query {t}", { t })`, so
 * that tools/i18n.py (Babel's JavaScript extractor, keyword `t`) finds every word.
 * @param {Model} model
 * @returns {(msgid: string, params?: Record<string, any>) => string}
 */
export function translator(model) {
  return (msgid, params = {}) => {
    const words = model.get("words") ?? {};
    const text = Object.hasOwn(words, msgid) && words[msgid] ? words[msgid] : msgid;
    return text.replace(/\{(\w+)\}/g, (field, name) =>
      Object.hasOwn(params, name) ? String(params[name]) : field,
    );
  };
}

/** Create an SVG element with attributes, optionally appended to parent. */
export function svgEl(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** Create an HTML element with a class, text and attributes, optionally appended to parent. */
export function htmlEl(tag, { cls = "", text = null, attrs = {} } = {}, parent = null) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** Set attributes only when they change (cheap repaint while dragging). */
export function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    const s = String(v);
    if (node.getAttribute(k) !== s) node.setAttribute(k, s);
  }
}

/** Set text only when it changes. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Hangul: jamo, compatibility jamo and syllables. */
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/;

/**
 * A title's text (a `.abh-title`, bold). The figures' Hangul font has one weight (400): a bold
 * title with Hangul would mix Latin bold with Hangul made bold by the browser, so a title with
 * Hangul (a Korean one, or an English one naming a Korean word, "scores s (점수)") is drawn
 * regular, all of it; a title without stays bold.
 */
export function setTitle(node, value) {
  setText(node, value);
  const weight = HANGUL.test(value) ? "400" : "";
  if (node.style.fontWeight !== weight) node.style.fontWeight = weight;
}

/** Send the model's pending changes to the kernel when there is one; on a static page, no-op. */
export function save(model) {
  try {
    model.save_changes();
  } catch {
    // No kernel (static site): the figure still recomputes everything itself.
  }
}

/** Set one trait and send it. */
export function update(model, name, value) {
  model.set(name, value);
  save(model);
}

/** Subscribe to change events of several traits; return an unsubscribe function. */
export function onChanges(model, names, callback) {
  for (const n of names) model.on(`change:${n}`, callback);
  return () => {
    for (const n of names) model.off(`change:${n}`, callback);
  };
}

/** A labelled range input; returns {wrap, input, out}. */
export function slider(parent, label, { min, max, step, value }) {
  const wrap = htmlEl("label", { cls: "abh-control" }, parent);
  htmlEl("span", { text: label }, wrap);
  const input = htmlEl("input", { attrs: { type: "range", min, max, step } }, wrap);
  input.value = value;
  const out = htmlEl("output", { cls: "abh-num" }, wrap);
  return { wrap, input, out };
}

/** A labelled checkbox; returns {wrap, input}. */
export function checkbox(parent, label, checked) {
  const wrap = htmlEl("label", { cls: "abh-control" }, parent);
  const input = htmlEl("input", { attrs: { type: "checkbox" } }, wrap);
  input.checked = checked;
  htmlEl("span", { text: label }, wrap);
  return { wrap, input };
}

/**
 * A slider bound to a numeric trait: moving it sets the trait, `show()` mirrors the trait.
 * @param {Model} model
 * @param {HTMLElement} parent
 * @param {string} trait
 * @param {string} label
 * @param {{min: number, max: number, step: number}} range
 * @param {(v: number) => string} [format]
 */
export function boundSlider(model, parent, trait, label, range, format = (v) => fmt(v, 2)) {
  const s = slider(parent, label, { ...range, value: model.get(trait) });
  s.input.addEventListener("input", () => update(model, trait, Number(s.input.value)));
  const show = () => {
    s.input.value = model.get(trait);
    setText(s.out, format(model.get(trait)));
  };
  return { ...s, show };
}

/** The temperature slider every figure with a softmax has, bound to `temperature`. */
export function temperatureSlider(model, parent) {
  const range = { min: 0.1, max: 5, step: 0.05 };
  const t = translator(model);
  return boundSlider(model, parent, "temperature", t("temperature T (온도)"), range);
}

/** A checkbox bound to a boolean trait; `show()` mirrors the trait. */
export function boundCheckbox(model, parent, trait, label) {
  const box = checkbox(parent, label, model.get(trait));
  box.input.addEventListener("change", () => update(model, trait, box.input.checked));
  const show = () => {
    box.input.checked = model.get(trait);
  };
  return { ...box, show };
}

/**
 * Drag the elements matching `selector` inside `svg` with the mouse, pen or finger.
 * `start(element)` returns what is dragged; `move(target, x, y)` gets SVG user coordinates.
 * A press within 12 px of a mark's centre grabs the nearest mark (`nearest`).
 */
export function onDrag(svg, selector, { start, move }) {
  let target = null;
  svg.addEventListener("pointerdown", (e) => {
    const hit = e.target.closest(selector) ?? nearest(svg, selector, e);
    if (!hit) return;
    target = start(hit);
    svg.setPointerCapture(e.pointerId);
    hit.focus({ preventScroll: true });
    e.preventDefault();
  });
  svg.addEventListener("pointermove", (e) => {
    if (target === null) return;
    const inverse = svg.getScreenCTM().inverse();
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(inverse);
    move(target, pt.x, pt.y);
  });
  const up = (e) => {
    target = null;
    if (svg.hasPointerCapture(e.pointerId)) svg.releasePointerCapture(e.pointerId);
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
}

/**
 * The mark whose centre is nearest the pointer, within `reach` CSS px: a small mark (a key's
 * 12 px dot) keeps a 24 px target for a finger (WCAG 2.5.8) without a larger shape that would
 * cover its neighbours' labels. A press on a mark itself never gets here.
 */
function nearest(svg, selector, e, reach = 12) {
  let best = null;
  let bestDistance = reach;
  for (const mark of svg.querySelectorAll(selector)) {
    const r = mark.getBoundingClientRect();
    const d = Math.hypot(e.clientX - r.left - r.width / 2, e.clientY - r.top - r.height / 2);
    if (d <= bestDistance) [best, bestDistance] = [mark, d];
  }
  return best;
}

/**
 * A polite live region in `root`, visually hidden: screen readers read what it says after
 * the reader's key press or drag, without moving focus. Returns `say(text)`: call it at the
 * end of every repaint with what a sighted reader sees change (the weights, the output).
 * The first call is the figure's initial state and says nothing; later calls are debounced
 * (`delay` ms after the last one), so a drag or a held arrow key is read once, where it ends.
 * @param {HTMLElement} root
 * @param {{delay?: number}} [options]
 * @returns {(text: string) => void}
 */
export function liveRegion(root, { delay = 400 } = {}) {
  const attrs = { "aria-live": "polite", "aria-atomic": "true", "data-role": "announce" };
  const node = htmlEl("div", { cls: "abh-sr-only", attrs }, root);
  let first = true,
    timer = null;
  return (text) => {
    if (first) {
      first = false;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => setText(node, text), delay);
  };
}

/**
 * The attributes of a mark the reader moves in two dimensions (a vector's tip): one Tab
 * stop, named, announced as a movable point. ARIA has no two-dimensional slider (`slider`
 * holds one number and requires `aria-valuenow`), so the mark is a button with a role
 * description; its arrow keys are the figure's, and its new value is read by `liveRegion`.
 * @param {string} label - e.g. "key k1"
 * @param {(msgid: string) => string} [t] - the figure's `translator`
 */
export function pointAttrs(label, t = (msgid) => msgid) {
  return {
    tabindex: 0,
    role: "button",
    "aria-roledescription": t("movable point"),
    "aria-label": label,
    "aria-keyshortcuts": "ArrowUp ArrowDown ArrowLeft ArrowRight",
  };
}

/**
 * Keep a one-number mark (a bar dragged up or down) an ARIA slider: its value, range and
 * the text read for it. Call on every repaint.
 * @param {Element} node
 * @param {{value: number, min: number, max: number, text: string}} state
 */
export function setSliderValue(node, { value, min, max, text }) {
  setAttrs(node, {
    role: "slider",
    "aria-valuenow": value,
    "aria-valuemin": min,
    "aria-valuemax": max,
    "aria-valuetext": text,
  });
}

/** Round a list of weights for reading aloud, e.g. "k1 0.401, k2 0.198, k3 0.401". */
export function spoken(names, values, digits = 3) {
  return values.map((v, j) => `${names[j]} ${fmt(v, digits)}`).join(", ");
}
