// Attention by Hand: answer boxes for the static site (no kernel, no network).
// site/attn_site.py puts <div class="attn-answer" data-exercise="ID"> under each exercise's answer
// cell and writes window.ATTN_EXERCISES (attn-exercises-data.js) from attn_book.exercises.site.
// checkNumber is a port of NumberExercise.check: the same verdict and message from the spec's
// expected value, tolerance and mistakes (values recomputed in Python, or the rules below, which
// port attn_book/exercises/diagnose.py). tests/test_site_answers_js.py holds it equal in node.
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

  // ---- Places, as diagnose._where / _listing / _subject and running._place / _join say them ----
  function multiIndex(flat, shape) {
    const index = [];
    for (let d = shape.length - 1; d >= 0; d--) {
      index.unshift(flat % shape[d]);
      flat = Math.floor(flat / shape[d]);
    }
    return index;
  }

  function where(flat, shape) {
    const i = multiIndex(flat, shape);
    if (shape.length === 0) return "your number";
    if (shape.length === 1) return `entry ${i[0] + 1}`;
    if (shape.length === 2) return `row ${i[0] + 1}, column ${i[1] + 1}`;
    return `entry (${i.map((x) => x + 1).join(", ")})`;
  }

  function listing(places, limit = 4) {
    if (places.length > 1 && places.every((p) => p.startsWith("entry "))) {
      const nums = places.map((p) => p.slice("entry ".length));
      const shown = nums.slice(0, limit).concat(nums.length > limit ? ["…"] : []);
      return `entries ${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
    }
    return places
      .slice(0, limit)
      .concat(places.length > limit ? ["…"] : [])
      .join("; ");
  }

  const subject = (flats, shape) =>
    `${listing(flats.map((f) => where(f, shape)))} ${flats.length === 1 ? "is" : "are"}`;

  function join(places, limit = 4) {
    const shown = places.slice(0, limit).concat(places.length > limit ? ["…"] : []);
    return shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
  }

  function nonFinite(a) {
    const parts = [];
    const groups = [
      ["None", (_x, k) => a.nones[k]],
      ["NaN", (x, k) => Number.isNaN(x) && !a.nones[k]],
      ["infinite", (x) => x === Infinity || x === -Infinity],
    ];
    for (const [label, test] of groups) {
      const places = [];
      a.data.forEach((x, k) => {
        if (test(x, k)) places.push(where(k, a.shape));
      });
      if (places.length)
        parts.push(`${join(places)} ${places.length === 1 ? "is" : "are"} ${label}`);
    }
    return parts.join(" and ");
  }

  const pyShape = (s) => (s.length === 1 ? `(${s[0]},)` : `(${s.join(", ")})`);
  const lastSums = (a) => {
    const n = a.shape.at(-1);
    const sums = [];
    for (let k = 0; k < a.data.length; k += n)
      sums.push(a.data.slice(k, k + n).reduce((x, y) => x + y, 0));
    return sums;
  };
  const flats = (mask) => mask.flatMap((m, k) => (m ? [k] : []));
  const close = (t, within) =>
    t.got.data.map(
      (g, k) => Math.abs(g - t.exp.data[k]) <= within * (t.atol + t.rtol * Math.abs(t.exp.data[k])),
    );
  const argsort = (xs) => xs.map((_x, k) => k).sort((i, j) => xs[i] - xs[j]);
  const norm = (xs) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0));

  // "%.3g" as Python prints it.
  function pyG3(x) {
    if (x === 0) return "0";
    const [mant, exp] = x.toExponential(2).split("e");
    const e = Number(exp);
    const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    if (e < -4 || e >= 3)
      return `${strip(mant)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    return strip(x.toFixed(Math.max(0, 2 - e)));
  }

  const FACTORS = [
    [2.0, "2 times too large"],
    [0.5, "half the right size"],
    [Math.sqrt(2), "√2 times too large"],
    [1 / Math.sqrt(2), "√2 times too small"],
    [-1.0, "the right size with the sign flipped"],
  ];

  function namedFactor(t) {
    if (!t.exp.data.some((e) => Math.abs(e) > t.atol)) return null;
    const rtol = Math.max(t.rtol, 2e-3);
    for (const [f, words] of FACTORS) {
      if (
        allclose(
          t.got.data,
          t.exp.data.map((e) => f * e),
          rtol,
          t.atol,
        )
      )
        return words;
    }
    return null;
  }

  function anyFactor(t) {
    const big = t.exp.data.map((e) => Math.abs(e) > 10 * t.atol);
    if (big.filter(Boolean).length < 2) return false;
    if (!t.got.data.every((g, k) => big[k] || Math.abs(g) <= 10 * t.atol)) return false;
    const ratio = t.got.data.flatMap((g, k) => (big[k] ? [g / t.exp.data[k]] : []));
    return (
      allclose(
        ratio,
        ratio.map(() => ratio[0]),
        5e-3,
        1e-8,
      ) && !isclose(ratio[0], 1.0, 1e-5, 1e-8)
    );
  }

  function weightsLike(e) {
    if (e.shape.length === 0 || e.shape.at(-1) < 2 || e.data.some((x) => x < 0)) return false;
    return lastSums(e).every((s) => isclose(s, 1.0, 1e-5, 1e-9));
  }

  // Each rule: test(t, d) and, when its message depends on the answer, message(t, d).
  // t = {got, exp, atol, rtol, atolText}; d = the diagnosis spec (its parameters).
  const RULES = {
    "wrong-count": {
      test: (t) => !sameShape(t.got, t.exp),
      message: (t) => {
        if (t.got.shape.length <= 1 && t.exp.shape.length <= 1) {
          const n = t.exp.data.length;
          return `expected ${n} number${n !== 1 ? "s" : ""}, got ${t.got.data.length}.`;
        }
        return `expected an array of shape ${pyShape(t.exp.shape)}, got shape ${pyShape(t.got.shape)}.`;
      },
    },
    rounding: {
      test: (t, d) => sameShape(t.got, t.exp) && close(t, d.within).every(Boolean),
      message: (t) => {
        const off = flats(close(t, 1).map((c) => !c));
        const lead =
          t.exp.data.length === 1
            ? "close, but not"
            : `close, but ${subject(off, t.exp.shape)} not`;
        return `${lead} within the tolerance (${t.atolText}) — keep three decimals at every step and round only at the end.`;
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
      test: (t) => {
        if (!sameShape(t.got, t.exp) || !weightsLike(t.exp)) return false;
        const tol = 2 * t.atol * t.exp.shape.at(-1);
        return lastSums(t.got).some((s) => Math.abs(s - 1.0) > tol);
      },
      message: (t) => {
        const sums = lastSums(t.got);
        let said;
        if (t.got.shape.length === 1) said = `your weights sum to ${sums[0].toFixed(3)}, not 1`;
        else {
          const tol = 2 * t.atol * t.exp.shape.at(-1);
          const rows = flats(sums.map((s) => Math.abs(s - 1.0) > tol)).map((r) => `row ${r + 1}`);
          said = `the weights of ${listing(rows)} do not sum to 1`;
        }
        return `${said} — each weight is its exponential divided by the total of them all.`;
      },
    },
    "constant-factor": {
      test: (t) =>
        sameShape(t.got, t.exp) &&
        t.exp.data.length >= 2 &&
        (namedFactor(t) !== null || anyFactor(t)),
      message: (t) => {
        const words = namedFactor(t);
        if (words !== null) {
          return `every number is ${words} — look for a step that multiplies or divides once too often.`;
        }
        return "every number is off by the same factor — the steps are right, but a scale (a multiplication or a division) is wrong or missing.";
      },
    },
    other: {
      test: (t) => sameShape(t.got, t.exp), // the answer is wrong by the time this is tried
      message: (t) => {
        const [g, e, shape] = [t.got.data, t.exp.data, t.exp.shape];
        if (e.length === 1) {
          const side = g[0] > e[0] ? "too large" : "too small";
          return `your number is ${side}, by more than rounding — redo the steps one by one.`;
        }
        const [near10, wrong] = [close(t, 10), close(t, 1).map((c) => !c)];
        const far = flats(wrong.map((w, k) => w && !near10[k]));
        const near = flats(wrong.map((w, k) => w && near10[k]));
        const parts = [];
        for (const word of ["too large", "too small"]) {
          const picked = far.filter((k) => g[k] > e[k] === (word === "too large"));
          if (picked.length) parts.push(`${subject(picked, shape)} ${word}`);
        }
        if (near.length) parts.push(`${subject(near, shape)} only just off (a rounding slip?)`);
        const right = e.length - far.length - near.length;
        const tail =
          right === 0 ? "" : right === 1 ? "; the other one is right" : "; the others are right";
        return `${parts.join("; ")}${tail}.`;
      },
    },
    // Chapter rules (attn_book/exercises/ch01_dot_product.py, ch03, ch04 and ch10).
    "first-entry-is": {
      test: (t, d) => {
        const [a, b] = [t.got.data[0], d.value];
        return (
          t.got.data.length > 0 && Math.abs(a - b) <= t.rtol * Math.max(Math.abs(a), Math.abs(b))
        );
      },
    },
    "length-is": {
      test: (t, d) => {
        const n = norm(t.got.data);
        return (
          pyShape(t.got.shape) === "(2,)" &&
          Math.abs(n - d.length) <= d.rel_tol * Math.max(n, d.length)
        );
      },
    },
    "too-long": {
      test: (t, d) => pyShape(t.got.shape) === "(2,)" && norm(t.got.data) > d.length * (1 + 1e-3),
      message: (t, d) =>
        `your key has length ${pyG3(norm(t.got.data))}, more than the ${d.length} allowed; a longer key would always win, which is why the question fixes its length.`,
    },
    "smaller-divisor": {
      // ch10_generation.py: a whole number from 1 up to the answer that divides d.of.
      test: (t, d) => {
        const [g, e] = [t.got.data[0], t.exp.data[0]];
        return t.got.data.length === 1 && Number.isInteger(g) && 1 <= g && g < e && d.of % g === 0;
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
  };

  function fires(d, t) {
    if (d.values) {
      return d.values.some(
        (v) => sameShape(t.got, v) && allclose(t.got.data, fromSpec(v).data, t.rtol, t.atol),
      );
    }
    return RULES[d.rule].test(t, d);
  }

  const line = (status, message, diagnosis = null) => ({
    status,
    message: message.split(/\s+/).filter(Boolean).join(" "),
    diagnosis,
  });

  // NumberExercise.check for typed text: {status, message, diagnosis}.
  function checkNumber(spec, text) {
    const typed = text.trim();
    if (typed === "" || typed === "...") return line("unanswered", spec.unanswered, "unanswered");
    const value = parseLiteral(typed);
    if (value === undefined) {
      return line(
        "wrong",
        "your answer should be a number or a list of numbers, not a str.",
        "not-numeric",
      );
    }
    const got = toArray(value);
    if (got === null)
      return line("wrong", "your answer has rows of different lengths.", "not-numeric");
    const missing = nonFinite(got);
    if (missing)
      return line("wrong", `${missing} — every entry needs a finite number.`, "not-finite");
    const exp = fromSpec(spec.expected);
    if (got.data.length === 1 && exp.data.length === 1) got.shape = exp.shape;
    const t = { got, exp, atol: spec.atol, rtol: spec.rtol, atolText: spec.atol_text };
    if (sameShape(got, exp) && allclose(got.data, exp.data, t.rtol, t.atol)) {
      return line("correct", spec.correct);
    }
    for (const d of spec.diagnoses) {
      if (fires(d, t)) return line("wrong", d.message ?? RULES[d.rule].message(t, d), d.name);
    }
    return line("wrong", spec.other, "other");
  }

  function checkChoice(spec, option) {
    const v = option === null ? spec.unanswered : spec.verdicts[option];
    return line(v.status, v.message, v.diagnosis);
  }

  const api = { checkNumber, checkChoice, parseLiteral, pyG3, RULES };
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
    const spec = data.exercises[box.dataset.exercise];
    if (!spec) return;
    const id = `attn-answer-${++count}`;
    const status = el("p", { className: "attn-answer-verdict", id: `${id}-verdict` });
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    const show = (v) => {
      const text = `${data.icons[v.status]}: ${v.message}`;
      // The same line again is still news: a trailing no-break space toggles so that screen
      // readers announce it (textContent.trim() drops it).
      const again = status.textContent.trim() === text && !status.textContent.endsWith("\u00a0");
      status.textContent = again ? `${text}\u00a0` : text;
      status.dataset.status = v.status;
      status.dataset.diagnosis = v.diagnosis ?? "";
    };
    if (spec.kind === "kernel") {
      // The page's own download links (sphinx-book-theme's menu; attn_site adds the .py).
      const link = (kind, text) => {
        const a = document.querySelector(`a.btn-download-${kind}-button`);
        return a ? el("a", { href: a.getAttribute("href"), download: "" }, text) : text;
      };
      box.append(
        el(
          "p",
          { className: "attn-answer-kernel" },
          `This exercise needs a Python kernel: ${spec.why}. Download this page as `,
          link("source", ".ipynb"),
          " or ",
          link("py", ".py"),
          " (also in the download menu at the top of the page) and run it in Jupyter.",
        ),
      );
      return;
    }
    const form = el("form", { className: "attn-answer-form", noValidate: true });
    const button = el("button", { type: "submit", className: "attn-answer-check" }, "Check");
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
        `Your answer (${spec.title}): a number or a list such as [0.1, 0.2]`,
      );
      form.append(label, input, button);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        show(checkNumber(spec, input.value));
      });
    } else {
      const group = el(
        "fieldset",
        { className: "attn-answer-options" },
        el("legend", {}, `Your answer (${spec.title})`),
      );
      for (const option of spec.options) {
        const radio = el("input", { type: "radio", name: id, value: option });
        group.append(el("label", {}, radio, ` ${option}`));
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
