// Attention by Hand: answer boxes for the static site (no kernel, no network).
// site/attn_answers.py puts <div class="attn-answer" data-exercise="ID"> under each exercise's answer
// cell and writes window.ATTN_EXERCISES (attn-exercises-data.js) from attn_book.exercises.site:
// the specs and the catalog's texts (attn_book/exercises/messages/<lang>.json). checkNumber is a
// port of NumberExercise.check: a slip fires on its values (recomputed in Python) or by one of the
// fixed generic rules below (diagnose.NUMBER_RULES, same names); every word comes from the catalog.
// tests/test_site_answers_js.py holds it equal to Python in node.
(() => {
  // ---- Reading the typed text as a Python literal: numbers, lists, None, nan, inf ----
  const TOKEN = /\s*(\[|\]|\(|\)|,|None|[+-]?(?:nan|inf)|[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/iy;

  // The text as nested arrays of numbers (null for None), or undefined if it is not a literal.
  function parseLiteral(text) {
    const tokens = [];
    TOKEN.lastIndex = 0;
    let m = TOKEN.exec(text);
    while (m) {
      tokens.push(m[1]);
      if (TOKEN.lastIndex === text.length) break;
      m = TOKEN.exec(text);
    }
    if (tokens.join("").length !== text.replace(/\s+/g, "").length) return undefined;
    let i = 0;
    const item = () => {
      const t = tokens[i++];
      if (t === "[" || t === "(") {
        const close = t === "[" ? "]" : ")";
        const list = [];
        while (tokens[i] !== close) {
          if (i >= tokens.length) throw new Error("unclosed");
          list.push(item());
          if (tokens[i] === ",") i++;
          else if (tokens[i] !== close) throw new Error("comma");
        }
        i++;
        return list;
      }
      if (t === undefined || /^[\]),]$/.test(t)) throw new Error("token");
      if (t === "None") return null;
      const low = t.toLowerCase();
      if (low.endsWith("nan")) return Number.NaN;
      if (low.endsWith("inf")) return low.startsWith("-") ? -Infinity : Infinity;
      return Number(t);
    };
    try {
      const first = item();
      if (i === tokens.length) return first;
      const tuple = [first]; // 1, 2, 3: a tuple, as in Python
      while (tokens[i] === ",") {
        i++;
        if (i < tokens.length) tuple.push(item());
      }
      return i === tokens.length ? tuple : undefined;
    } catch {
      return undefined;
    }
  }

  // Nested arrays -> {shape, data, nones}, or null when the rows have different lengths.
  function toArray(value) {
    if (!Array.isArray(value)) {
      return { shape: [], data: [value === null ? Number.NaN : value], nones: [value === null] };
    }
    const parts = value.map(toArray);
    if (parts.some((p) => p === null)) return null;
    const inner = parts.length ? parts[0].shape : [];
    if (parts.some((p) => p.shape.join() !== inner.join())) return null;
    return {
      shape: [value.length, ...inner],
      data: parts.flatMap((p) => p.data),
      nones: parts.flatMap((p) => p.nones),
    };
  }

  const fromSpec = (a) => ({
    shape: a.shape,
    data: a.data.map((x) => (x === null ? Number.NaN : x)),
  });
  const sameShape = (a, b) => a.shape.join() === b.shape.join();
  const isclose = (a, b, rtol, atol) =>
    Number.isFinite(b) ? Math.abs(a - b) <= atol + rtol * Math.abs(b) : a === b;
  const allclose = (a, b, rtol, atol) => a.every((x, k) => isclose(x, b[k], rtol, atol));
  // A catalog template filled as Python's str.format fills it (only when there are params).
  const fill = (template, params) =>
    params
      ? template.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m))
      : template;

  // ---- Places, as running.where and diagnose._subject / listing say them, in catalog words ----
  function multiIndex(flat, shape) {
    const index = [];
    for (let d = shape.length - 1; d >= 0; d--) {
      index.unshift(flat % shape[d]);
      flat = Math.floor(flat / shape[d]);
    }
    return index;
  }

  // first: 1, or 0 where the question numbers its slots from 0 (a rule's "first" argument)
  function where(M, flat, shape, first = 1) {
    const i = multiIndex(flat, shape);
    if (shape.length === 0) return M["place-number"];
    if (shape.length === 1) return fill(M["place-entry"], { i: i[0] + first });
    if (shape.length === 2) return fill(M["place-cell"], { r: i[0] + first, c: i[1] + first });
    return fill(M["place-index"], { i: i.map((x) => x + first).join(", ") });
  }

  const upTo = (M, xs, limit = 4) => xs.slice(0, limit).concat(xs.length > limit ? [M.more] : []);
  const listing = (M, places) => upTo(M, places).join(M["place-separator"]);

  function subject(M, flats, shape, first = 1) {
    let places;
    if (flats.length > 1 && shape.length !== 2) {
      const nums = upTo(
        M,
        flats.map((f) =>
          multiIndex(f, shape)
            .map((k) => k + first)
            .join(", "),
        ),
      ).map((n) => (shape.length === 1 || n === M.more ? n : `(${n})`));
      places = fill(M.entries, {
        list: nums.slice(0, -1).join(M["list-separator"]),
        last: nums.at(-1),
      });
    } else
      places = listing(
        M,
        flats.map((f) => where(M, f, shape, first)),
      );
    return fill(M[flats.length === 1 ? "is" : "are"], { places });
  }

  function join(M, places) {
    const shown = upTo(M, places);
    return shown.length === 1
      ? shown[0]
      : shown.slice(0, -1).join(M["list-separator"]) + M.and + shown.at(-1);
  }

  function nonFinite(M, a) {
    const parts = [];
    const groups = [
      ["None", (_x, k) => a.nones[k]],
      ["NaN", (x, k) => Number.isNaN(x) && !a.nones[k]],
      ["infinite", (x) => x === Infinity || x === -Infinity],
    ];
    for (const [label, test] of groups) {
      const places = [];
      a.data.forEach((x, k) => {
        if (test(x, k)) places.push(where(M, k, a.shape));
      });
      if (places.length) {
        const said = fill(M[places.length === 1 ? "is" : "are"], { places: join(M, places) });
        parts.push(`${said} ${M[`label-${label}`]}`);
      }
    }
    return parts.join(M.and);
  }

  const pyShape = (s) => (s.length === 1 ? `(${s[0]},)` : `(${s.join(", ")})`);
  // A shape as diagnose.shape_words writes it for the reader: "3", "2 × 2".
  const shapeWords = (s) => (s.length ? s.join(" × ") : "1");
  const lastSums = (a) => {
    const n = a.shape.at(-1);
    const sums = [];
    for (let k = 0; k < a.data.length; k += n)
      sums.push(a.data.slice(k, k + n).reduce((x, y) => x + y, 0));
    return sums;
  };
  const flats = (mask) => mask.flatMap((m, k) => (m ? [k] : []));
  // Entry by entry: within the tolerance of the expected value, or within `within`.
  const close = (t, within) =>
    t.got.data.map(
      (g, k) =>
        Math.abs(g - t.exp.data[k]) <= (within ?? t.atol + t.rtol * Math.abs(t.exp.data[k])),
    );
  const argsort = (xs) => xs.map((_x, k) => k).sort((i, j) => xs[i] - xs[j]);
  const norm = (xs) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0));

  // "%.3g" and "%g" (for plain numbers) as Python prints them.
  // Python's f"{x:.{p}g}"
  function pyG(x, p) {
    if (x === 0) return "0";
    const [mant, exp] = x.toExponential(p - 1).split("e");
    const e = Number(exp);
    const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    if (e < -4 || e >= p)
      return `${strip(mant)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    return strip(x.toFixed(Math.max(0, p - 1 - e)));
  }
  const pyG3 = (x) => pyG(x, 3);

  const FACTORS = [
    [2.0, "factor-2"],
    [0.5, "factor-0.5"],
    [Math.sqrt(2), "factor-sqrt2"],
    [1 / Math.sqrt(2), "factor-1/sqrt2"],
    [-1.0, "factor--1"],
  ];

  // A factor within 5 % of 1 is imprecision, not a scale slip (attn_book/exercises/diagnose.py).
  const MIN_FACTOR_GAP = 0.05;

  // The answer rounded to k < decimals places (diagnose._fewer_decimals_used), else null.
  function fewerDecimals(t, decimals) {
    if (!sameShape(t.got, t.exp)) return null;
    for (let k = 0; k < decimals; k++) {
      const r = t.exp.data.map((e) => pyRound(e, k));
      if (t.got.data.every((g, i) => Math.abs(g - r[i]) <= 1e-9)) return k;
    }
    return null;
  }

  // Python's round(x, k): half to even on the decimal value x carries as a double
  function pyRound(x, k) {
    const f = 10 ** k;
    const y = x * f;
    const r = Math.round(y);
    const even = Math.abs(y - Math.trunc(y)) === 0.5 ? 2 * Math.round(y / 2) : r;
    return even / f;
  }

  function namedFactor(t) {
    if (!t.exp.data.some((e) => Math.abs(e) > t.atol)) return null;
    const rtol = Math.max(t.rtol, 2e-3);
    const scaled = (f) => t.exp.data.map((e) => f * e);
    const found = FACTORS.find(([f]) => allclose(t.got.data, scaled(f), rtol, t.atol));
    return found ? found[1] : null;
  }

  function anyFactor(t) {
    const big = t.exp.data.map((e) => Math.abs(e) > 10 * t.atol);
    if (big.filter(Boolean).length < 2) return false;
    if (!t.got.data.every((g, k) => big[k] || Math.abs(g) <= 10 * t.atol)) return false;
    const ratio = t.got.data.flatMap((g, k) => (big[k] ? [g / t.exp.data[k]] : []));
    const same = allclose(
      ratio,
      ratio.map(() => ratio[0]),
      5e-3,
      1e-8,
    );
    return same && Math.abs(ratio[0] - 1.0) >= MIN_FACTOR_GAP;
  }

  function weightsLike(e) {
    if (e.shape.length === 0 || e.shape.at(-1) < 2 || e.data.some((x) => x < 0)) return false;
    return lastSums(e).every((s) => isclose(s, 1.0, 1e-5, 1e-9));
  }
  const offRows = (t) =>
    lastSums(t.got).map((s) => Math.abs(s - 1.0) > 2 * t.atol * t.exp.shape.at(-1));

  // The fixed generic rules, as attn_book/exercises/diagnose.py's NUMBER_RULES (same names):
  // test(t, a) and, when the text has parameters, params(t, a) (a "key" picks a variant text).
  // t = {got, exp, atol, rtol, tolerance, M}; a = the diagnosis spec (the rule's arguments).
  const RULES = {
    "wrong-count": {
      test: (t) => !sameShape(t.got, t.exp),
      params: (t) => {
        if (t.got.shape.length <= 1 && t.exp.shape.length <= 1) {
          const n = t.exp.data.length;
          return { key: n === 1 ? "wrong-count-1" : "wrong-count", n, got: t.got.data.length };
        }
        return {
          key: "wrong-count-shape",
          expected: shapeWords(t.exp.shape),
          got: shapeWords(t.got.shape),
        };
      },
    },
    "fewer-decimals": {
      test: (t, a) => fewerDecimals(t, a.decimals) !== null,
      params: (t, a) => {
        const k = fewerDecimals(t, a.decimals);
        const key = ["fewer-decimals-0", "fewer-decimals-1"][k] ?? "fewer-decimals";
        return { key, k, asked: a.decimals };
      },
    },
    rounding: {
      test: (t, a) => sameShape(t.got, t.exp) && close(t, a.within).every(Boolean),
      params: (t) => {
        if (t.exp.data.length === 1) return { key: "rounding-1", tolerance: t.tolerance };
        const off = flats(close(t).map((c) => !c));
        return { subject: subject(t.M, off, t.exp.shape), tolerance: t.tolerance };
      },
    },
    "wrong-order": {
      test: (t) => {
        if (!sameShape(t.got, t.exp) || t.exp.data.length < 2) return false;
        const sort = (xs) => [...xs].sort((a, b) => a - b);
        return allclose(sort(t.got.data), sort(t.exp.data), 1e-5, t.atol);
      },
    },
    "not-summing-to-1": {
      test: (t) => sameShape(t.got, t.exp) && weightsLike(t.exp) && offRows(t).some(Boolean),
      params: (t) => {
        if (t.got.shape.length === 1)
          return { key: "not-summing-to-1-1", total: lastSums(t.got)[0].toFixed(3) };
        const rows = flats(offRows(t)).map((r) => fill(t.M["place-row"], { r: r + 1 }));
        return { rows: listing(t.M, rows) };
      },
    },
    "constant-factor": {
      test: (t) =>
        sameShape(t.got, t.exp) &&
        t.exp.data.length >= 2 &&
        (namedFactor(t) !== null || anyFactor(t)),
      params: (t) => {
        const key = namedFactor(t);
        if (key === "factor--1") return { key: "constant-factor-sign" };
        return key === null ? {} : { key: "constant-factor-named", words: t.M[key] };
      },
    },
    other: {
      test: (t) => sameShape(t.got, t.exp), // the answer is wrong by the time this is tried
      params: (t, a) => {
        const [g, e, shape, M] = [t.got.data, t.exp.data, t.exp.shape, t.M];
        if (e.length === 1) {
          const key = g[0] > e[0] ? "other-1-too-large" : "other-1-too-small";
          return { key: a.whole ? `${key}-whole` : key };
        }
        let [close3, wrong] = [close(t, a.near ?? 0), close(t).map((c) => !c)];
        // one entry far off: the near ones are no rounding slip either (diagnose._other_params)
        if (wrong.some((w, k) => w && !close3[k])) close3 = close3.map(() => false);
        const far = flats(wrong.map((w, k) => w && !close3[k]));
        const near = flats(wrong.map((w, k) => w && close3[k]));
        const parts = [];
        for (const [word, larger] of [
          ["other-too-large", true],
          ["other-too-small", false],
        ]) {
          const picked = far.filter((k) => g[k] > e[k] === larger);
          if (picked.length)
            parts.push(fill(M[word], { subject: subject(M, picked, shape, a.first ?? 1) }));
        }
        if (near.length)
          parts.push(fill(M["other-near"], { subject: subject(M, near, shape, a.first ?? 1) }));
        const right = e.length - far.length - near.length;
        const tail = right === 0 ? "" : M[right === 1 ? "other-right-1" : "other-right-n"];
        return { parts: parts.join(M["clause-separator"]), tail };
      },
    },
    "ranked-but-off": {
      test: (t) => {
        if (!sameShape(t.got, t.exp)) return false;
        const sum = t.got.data.reduce((x, y) => x + y, 0);
        const order = argsort(t.got.data).join() === argsort(t.exp.data).join();
        const far = Math.max(...t.got.data.map((x, k) => Math.abs(x - t.exp.data[k]))) > 0.02;
        return Math.abs(sum - 1.0) < 3e-3 && order && far;
      },
    },
    "entry-is": {
      test: (t, a) => {
        const x = t.got.data[0];
        return (
          t.got.data.length > 0 &&
          Math.abs(x - a.value) <= t.rtol * Math.max(Math.abs(x), Math.abs(a.value))
        );
      },
    },
    "length-is": {
      test: (t, a) => {
        const n = norm(t.got.data);
        return (
          pyShape(t.got.shape) === "(2,)" &&
          Math.abs(n - a.length) <= a.rel_tol * Math.max(n, a.length)
        );
      },
    },
    "too-long": {
      test: (t, a) => pyShape(t.got.shape) === "(2,)" && norm(t.got.data) > a.length * (1 + 1e-3),
      params: (t, a) => ({ norm: pyG(norm(t.got.data), 4), length: String(a.length) }),
    },
    "smaller-divisor": {
      test: (t, a) => {
        const [g, e] = [t.got.data[0], t.exp.data[0]];
        return t.got.data.length === 1 && Number.isInteger(g) && 1 <= g && g < e && a.of % g === 0;
      },
    },
  };

  function fires(d, t) {
    if (d.values) {
      return d.values.some(
        (v) => sameShape(t.got, v) && allclose(t.got.data, fromSpec(v).data, t.rtol, t.atol),
      );
    }
    return RULES[d.rule].test(t, d);
  }

  function describe(d, t) {
    if (d.message !== undefined) return d.message;
    const params = { ...(RULES[d.rule].params ?? (() => ({})))(t, d) };
    const template = params.key ? t.M[params.key] : (d.template ?? t.M[d.name]);
    delete params.key;
    return fill(template, params);
  }

  const line = (status, message, diagnosis = null) => ({
    status,
    message: message.split(/\s+/).filter(Boolean).join(" "),
    diagnosis,
  });

  // A decimal comma ("0,401" or "0,401; 0,198"): the text with points for those commas and
  // commas for semicolons is the right count of numbers, where the text itself is not.
  function decimalComma(typed, size) {
    if (!/\d,\d/.test(typed)) return false;
    const count = (text) => {
      const value = parseLiteral(text);
      const a = value === undefined ? null : toArray(value);
      return a === null ? -1 : a.data.length;
    };
    const points = typed.replace(/(\d),(?=\d)/g, "$1.").replace(/;/g, ",");
    return count(typed) !== size && count(points) === size;
  }

  // NumberExercise.check for typed text: {status, message, diagnosis}; M = the catalog's texts,
  // the site's own where the checker speaks of the notebook (site.site_verdict).
  function checkNumber(spec, text, M) {
    const typed = text.trim();
    if (typed === "" || typed === "...") return line("unanswered", M.unanswered, "unanswered");
    const exp = fromSpec(spec.expected);
    if (decimalComma(typed, exp.data.length))
      return line("wrong", M["decimal-comma"], "decimal-comma");
    const value = parseLiteral(typed);
    if (value === undefined) return line("wrong", M["not-a-number"], "not-numeric");
    const got = toArray(value);
    if (got === null)
      return line("wrong", fill(M.ragged, { subject: M["subject-answer"] }), "not-numeric");
    const missing = nonFinite(M, got);
    if (missing) return line("wrong", fill(M["not-finite-entries"], { missing }), "not-finite");
    if (got.data.length === 1 && exp.data.length === 1) got.shape = exp.shape;
    if (spec.integer) {
      // diagnose.refuse_non_whole: a count or a size is a whole number
      const off = flats(got.data.map((x) => !Number.isInteger(x)));
      if (off.length && got.data.length === 1) return line("wrong", M["not-whole-1"], "not-whole");
      if (off.length) {
        const said = fill(M["not-whole"], { subject: subject(M, off, got.shape) });
        return line("wrong", said, "not-whole");
      }
    }
    const t = { got, exp, atol: spec.atol, rtol: spec.rtol, tolerance: spec.tolerance, M };
    if (sameShape(got, exp) && allclose(got.data, exp.data, t.rtol, t.atol)) {
      return line("correct", spec.correct);
    }
    for (const d of spec.diagnoses) {
      if (fires(d, t)) return line("wrong", describe(d, t), d.name);
    }
    return line("wrong", M.fallback, "other");
  }

  // An option is its code value or, on a translated page, the words the box shows for it.
  function checkChoice(spec, option) {
    const labels = spec.labels ?? {};
    const value =
      option === null || option in spec.verdicts
        ? option
        : (spec.options.find((o) => labels[o] === option) ?? option);
    const v = value === null ? spec.unanswered : spec.verdicts[value];
    return line(v.status, v.message, v.diagnosis);
  }

  // The Markdown a message may hold (`code`, **strong**, *emphasis*), as [kind, text] parts:
  // the box renders them as the notebook does, never the marks themselves.
  const INLINE = /`([^`]+)`|\*\*(\S(?:[^*]*\S)?)\*\*|\*(\S(?:[^*]*\S)?)\*/g;
  function inlineParts(text) {
    const parts = [];
    let last = 0;
    for (const m of text.matchAll(INLINE)) {
      if (m.index > last) parts.push(["text", text.slice(last, m.index)]);
      if (m[1] !== undefined) parts.push(["code", m[1]]);
      else if (m[2] !== undefined) parts.push(["strong", m[2]]);
      else parts.push(["em", m[3]]);
      last = m.index + m[0].length;
    }
    if (last < text.length) parts.push(["text", text.slice(last)]);
    return parts;
  }

  const ruleNames = () => Object.keys(RULES);
  const api = { checkNumber, checkChoice, parseLiteral, pyG3, ruleNames, inlineParts };
  if (typeof module === "object" && module.exports) module.exports = api;
  if (typeof document === "undefined") return;

  // ---- The boxes ----
  let count = 0;
  const el = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...children);
    return node;
  };

  function render(box, data) {
    const [spec, M] = [data.exercises[box.dataset.exercise], data.messages];
    if (!spec) return;
    const id = `attn-answer-${++count}`;
    const status = el("p", { className: "attn-answer-verdict", id: `${id}-verdict` });
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    const show = (v) => {
      const parts = [["text", `${M[`icon-${v.status}`]}: `], ...inlineParts(v.message)];
      const text = parts.map((p) => p[1]).join("");
      // The same line again is still news: a trailing no-break space toggles so that screen
      // readers announce it (textContent.trim() drops it).
      const again = status.textContent.trim() === text && !status.textContent.endsWith("\u00a0");
      status.replaceChildren(
        ...parts.map(([kind, words]) => (kind === "text" ? words : el(kind, {}, words))),
        ...(again ? ["\u00a0"] : []),
      );
      status.dataset.status = v.status;
      status.dataset.diagnosis = v.diagnosis ?? "";
    };
    if (spec.kind === "kernel") {
      // The page's own download links (sphinx-book-theme's menu; attn_downloads adds the .py).
      const link = (kind, text) => {
        const a = document.querySelector(`a.btn-download-${kind}-button`);
        return a ? el("a", { href: a.getAttribute("href"), download: "" }, text) : text;
      };
      box.append(
        el(
          "p",
          { className: "attn-answer-kernel" },
          fill(M["kernel-before"], { why: spec.why }),
          link("source", ".ipynb"),
          M["kernel-or"],
          link("py", ".py"),
          M["kernel-after"],
        ),
      );
      return;
    }
    const form = el("form", { className: "attn-answer-form", noValidate: true });
    const button = el("button", { type: "submit", className: "attn-answer-check" }, M.check);
    if (spec.kind === "number") {
      const input = el("input", {
        type: "text",
        id: `${id}-input`,
        autocomplete: "off",
        spellcheck: false,
      });
      input.setAttribute("aria-describedby", status.id);
      const label = el(
        "label",
        { htmlFor: input.id },
        fill(M["answer-label"], { title: spec.title }),
      );
      form.append(label, input, button);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        show(checkNumber(spec, input.value, M));
      });
    } else {
      const group = el(
        "fieldset",
        { className: "attn-answer-options" },
        el("legend", {}, fill(M["choice-legend"], { title: spec.title })),
      );
      for (const option of spec.options) {
        const radio = el("input", { type: "radio", name: id, value: option });
        group.append(el("label", {}, radio, ` ${spec.labels?.[option] ?? option}`));
      }
      form.append(group, button);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const picked = form.querySelector("input[type=radio]:checked");
        show(checkChoice(spec, picked ? picked.value : null));
      });
    }
    box.append(form, status);
  }

  function start() {
    const data = window.ATTN_EXERCISES;
    if (!data) return;
    for (const box of document.querySelectorAll("div.attn-answer[data-exercise]"))
      render(box, data);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
