// dom.js — small DOM helpers shared by the figures (inlined after attn_math.js).
// No element ids anywhere: two figures on one page must never find each other's parts.

const SVG_NS = "http://www.w3.org/2000/svg";

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

/** Set an attribute only when it changes (cheap repaint while dragging). */
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

/** Send the model's pending changes to the kernel when there is one; on a static page, no-op. */
export function save(model) {
  try {
    model.save_changes();
  } catch (err) {
    // No kernel (static site): the figure still recomputes everything itself.
  }
}

/** Subscribe to change events of several traits; return an unsubscribe function. */
export function onChanges(model, names, callback) {
  for (const n of names) model.on(`change:${n}`, callback);
  return () => names.forEach((n) => model.off(`change:${n}`, callback));
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

/** A labelled checkbox; returns the input. */
export function checkbox(parent, label, checked) {
  const wrap = htmlEl("label", { cls: "abh-control" }, parent);
  const input = htmlEl("input", { attrs: { type: "checkbox" } }, wrap);
  input.checked = checked;
  htmlEl("span", { text: label }, wrap);
  return input;
}
