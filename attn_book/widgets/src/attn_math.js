// attn_math.js — the small maths of the figures, a deliberate second copy of attn_core.
//
// esbuild bundles this module into every figure (attn_book/widgets/build.mjs), so a figure
// on the static site (no kernel, no server) can recompute its numbers as the reader drags.
// tests/test_widget_js.py holds every function here equal to attn_core in node.
// Vectors are plain arrays of numbers; matrices are arrays of rows. Float64 throughout.

/** Dot product (내적) a · b of two equal-length vectors. */
export function dot(a, b) {
  if (a.length !== b.length) {
    throw new RangeError(`dot: lengths differ (${a.length} and ${b.length})`);
  }
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Euclidean length |a|. */
export function norm(a) {
  return Math.sqrt(dot(a, a));
}

/** cos θ = a·b / (|a||b|); NaN when either vector is zero (the angle is undefined). */
export function cosine(a, b) {
  const n = norm(a) * norm(b);
  return n > 0 ? dot(a, b) / n : NaN;
}

/** Scores q·k_j × scale for one query q (E) and keys K (S × E) -> (S). */
export function scores(q, K, scale = 1) {
  return K.map((k) => dot(q, k) * scale);
}

/**
 * Softmax (소프트맥스) with temperature, subtracting the maximum first (as attn_core.softmax).
 * -Infinity entries get weight 0; a row that is all -Infinity gives all zeros.
 */
export function softmax(x, temperature = 1) {
  if (!(temperature > 0) || !Number.isFinite(temperature)) {
    throw new RangeError(`softmax: temperature must be a finite number > 0, got ${temperature}`);
  }
  const z = x.map((v) => v / temperature);
  const peak = Math.max(...z);
  if (!Number.isFinite(peak)) return z.map(() => 0); // every entry masked
  const e = z.map((v) => Math.exp(v - peak));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

/** The textbook formula without max-subtraction: overflows to NaN for scores near 710. */
export function naiveSoftmax(x, temperature = 1) {
  const e = x.map((v) => Math.exp(v / temperature));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

/** Shannon entropy −Σ w log w in nats; zero weights count as 0 (as attn_core.entropy). */
export function entropy(w) {
  let h = 0;
  for (const v of w) if (v > 0) h -= v * Math.log(v);
  return h;
}

/** Weighted mix Σ_j w_j v_j of the rows of V (S × Ev) -> (Ev). */
export function mix(w, V) {
  const out = new Array(V[0].length).fill(0);
  for (let j = 0; j < V.length; j++) {
    for (let m = 0; m < out.length; m++) out[m] += w[j] * V[j][m];
  }
  return out;
}

/**
 * One query attending over keys K and values V, every intermediate kept for display.
 * scale: null means 1/√d_k (as attn_core); temperature divides the scaled scores.
 * Returns {dots, cosines, scale, scores, weights, output, entropy}.
 */
export function attend(q, K, V, { scale = null, temperature = 1 } = {}) {
  const s = scale === null ? 1 / Math.sqrt(q.length) : scale;
  const dots = K.map((k) => dot(q, k));
  const scaled = dots.map((d) => d * s);
  const weights = softmax(scaled, temperature);
  return {
    dots,
    cosines: K.map((k) => cosine(q, k)),
    scale: s,
    scores: scaled,
    weights,
    output: mix(weights, V),
    entropy: entropy(weights),
  };
}

/**
 * Attention weights for queries Q (L × E) and keys K (S × E) -> (L × S):
 * softmax(Q Kᵀ · scale / temperature), with an optional causal (top-left lower triangle) mask
 * and an optional padding mask: keys from `length` on are hidden (null: none). A row with
 * every key hidden is all zeros, as in attn_core.
 */
export function attentionMatrix(
  Q,
  K,
  { scale = null, temperature = 1, causal = false, length = null } = {},
) {
  const s = scale === null ? 1 / Math.sqrt(Q[0].length) : scale;
  const hidden = (i, j) => (causal && j > i) || (length !== null && j >= length);
  return Q.map((q, i) => {
    const row = K.map((k, j) => (hidden(i, j) ? -Infinity : dot(q, k) * s));
    return softmax(row, temperature);
  });
}

/** A number for display: fixed digits, a true minus sign, and "−0.000" shown as "0.000". */
export function fmt(x, digits = 3) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  const t = x.toFixed(digits);
  return (Number(t) === 0 ? (0).toFixed(digits) : t).replace("-", "−");
}

/**
 * A number of any size for a table column: 3 decimals like fmt below a million, else
 * 3 decimals of mantissa and a power of ten ("1.404e217"), so e^s past ~14 stays readable.
 */
export function fmtWide(x, digits = 3) {
  if (!Number.isFinite(x) || Math.abs(x) < 1e6) return fmt(x, digits);
  return x.toExponential(digits).replace("e+", "e").replace("-", "−");
}

/** Viridis (colour-blind safe), t in [0, 1] -> "rgb(r,g,b)"; 9 stops of matplotlib's map. */
const VIRIDIS = [
  [68, 1, 84],
  [71, 44, 122],
  [59, 81, 139],
  [44, 113, 142],
  [33, 144, 141],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];
export function viridis(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const c = VIRIDIS[i].map((v, m) => Math.round(v + f * (VIRIDIS[i + 1][m] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/** Okabe–Ito palette (colour-blind safe), for keys/values; black is kept for the query. */
export const OKABE_ITO = [
  "#E69F00",
  "#56B4E9",
  "#009E73",
  "#CC79A7",
  "#0072B2",
  "#D55E00",
  "#F0E442",
];

/** Bytes per number of the dtypes the memory calculator offers (as numpy's itemsize). */
export const DTYPE_BYTES = { float64: 8, float32: 4, float16: 2 };

/**
 * Bytes of the attention weights held at once: batch · heads · L · S · bytes per number,
 * as attn_core.attention_cost(batch, heads, L, S, d, dtype).score_bytes.
 */
export function weightBytes(batch, heads, L, S, dtype) {
  return batch * heads * L * S * dtypeBytes("weightBytes", dtype);
}

/** Bytes in binary units, 3 significant digits: "36 B", "4.00 MiB", "64.0 GiB", "1.00 TiB". */
export function fmtBytes(bytes) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (bytes >= 1024 && i < units.length - 1) {
    bytes /= 1024;
    i++;
  }
  return i === 0 ? `${bytes} B` : `${bytes.toPrecision(3)} ${units[i]}`;
}

/**
 * The number of KV heads nearest `kvHeads` that divides `heads` (so that each KV head serves
 * g = heads / KV heads query heads), as memory_calculator.fit_kv_heads: moving `up`, the
 * smallest divisor ≥ kvHeads; otherwise the largest divisor ≤ kvHeads (never above heads).
 */
export function fitKvHeads(heads, kvHeads, up = false) {
  const divisors = [];
  for (let d = 1; d <= heads; d++) if (heads % d === 0) divisors.push(d);
  if (up) return divisors.find((d) => d >= kvHeads) ?? heads;
  return divisors.filter((d) => d <= kvHeads).at(-1) ?? 1;
}

/** A ratio's number, "0.50", "4.0", "256", "1,024": two significant digits, no exponent.
 * The "×" is the sentence's (`"{ratio}× the {device}'s"`): Korean says "16배". */
export function fmtFactor(ratio) {
  return ratio >= 100 ? Math.round(ratio).toLocaleString("en") : ratio.toPrecision(2);
}

/** A ratio as "0.50×", "4.0×", "256×", "1,024×": two significant digits, no exponent. */
export function fmtRatio(ratio) {
  return `${fmtFactor(ratio)}×`;
}

/**
 * RoPE's angle per position step of each pair, θ_i = base^(−2i/d) (as attn_core.rotary_frequencies).
 */
export function rotaryFrequencies(d, base = 10000) {
  if (!(d >= 2) || d % 2) throw new RangeError(`rotaryFrequencies: d must be even, got ${d}`);
  return Array.from({ length: d / 2 }, (_, i) => base ** ((-2 * i) / d));
}

/**
 * Rotary position embedding (RoPE), the interleaved layout of attn_core.rotary: row r of
 * X (n × d) has its pairs (0, 1), (2, 3), … turned by positions[r] · θ_i.
 */
export function rotary(X, positions, base = 10000) {
  if (X.length !== positions.length) {
    throw new RangeError(`rotary: ${X.length} rows but ${positions.length} positions`);
  }
  return X.map((x, r) => {
    const theta = rotaryFrequencies(x.length, base);
    const out = x.slice();
    theta.forEach((t, i) => {
      const [c, s] = [Math.cos(positions[r] * t), Math.sin(positions[r] * t)];
      out[2 * i] = x[2 * i] * c - x[2 * i + 1] * s;
      out[2 * i + 1] = x[2 * i] * s + x[2 * i + 1] * c;
    });
    return out;
  });
}

/** Bytes per number of `dtype`, or a RangeError naming the function. */
function dtypeBytes(fn, dtype) {
  const size = DTYPE_BYTES[dtype];
  if (size === undefined) {
    throw new RangeError(`${fn}: dtype must be one of ${Object.keys(DTYPE_BYTES)}, got ${dtype}`);
  }
  return size;
}

/**
 * Bytes of a model's KV cache: 2 (keys and values) · batch · layers · KV heads · d_head · n ·
 * bytes per number, as attn_core.kv_cache_bytes(layers, kvHeads, dHead, n, dtype, batch,
 * window): a windowed layer holds min(n, window) positions.
 */
export function kvCacheBytes(batch, layers, kvHeads, dHead, n, dtype, window = null) {
  const held = window === null ? n : Math.min(n, window);
  return 2 * batch * layers * kvHeads * dHead * held * dtypeBytes("kvCacheBytes", dtype);
}

/** MLA's cache: batch · layers · (d_c + d_R) · n · bytes, as attn_core.mla_cache_bytes. */
export function mlaCacheBytes(batch, layers, dLatent, dRope, n, dtype) {
  return batch * layers * (dLatent + dRope) * n * dtypeBytes("mlaCacheBytes", dtype);
}

/** Linear attention's states: batch · layers · heads · d_k · d_v · bytes, no n (attn_core). */
export function linearStateBytes(batch, layers, heads, dK, dV, dtype) {
  return batch * layers * heads * dK * dV * dtypeBytes("linearStateBytes", dtype);
}

/**
 * [full, other]: layer i of `layers` is full attention when (i + 1) % (ratio + 1) == 0, the
 * others local or linear, as memory_calculator.layer_split.
 */
export function layerSplit(layers, ratio) {
  const full = Math.floor(layers / (ratio + 1));
  return [full, layers - full];
}

/**
 * The memory calculator's bars at n tokens, as MemoryCalculator.cache_bars: [name, parts]
 * for the plain KV cache ("kv") and the kind's ("window", "mla" with "mha" and "mqa",
 * "hybrid"). `c` holds the figure's traits (kind, batch, layers, heads, kv_heads, d_head,
 * dtype, window, ratio, d_latent, d_rope, state_heads, d_state).
 */
export function cacheBars(c, n) {
  const kv = (layers, kvHeads = c.kv_heads, window = null) =>
    layers === 0 ? 0 : kvCacheBytes(c.batch, layers, kvHeads, c.d_head, n, c.dtype, window);
  const plain = ["kv", [kv(c.layers)]];
  if (c.kind === "kv") return [plain];
  const [full, other] = layerSplit(c.layers, c.ratio);
  if (c.kind === "window") return [plain, ["window", [kv(full), kv(other, c.kv_heads, c.window)]]];
  if (c.kind === "mla") {
    const mla = mlaCacheBytes(c.batch, c.layers, c.d_latent, c.d_rope, n, c.dtype);
    return [["mha", [kv(c.layers, c.heads)]], plain, ["mqa", [kv(c.layers, 1)]], ["mla", [mla]]];
  }
  const states =
    other === 0
      ? 0
      : linearStateBytes(c.batch, other, c.state_heads, c.d_state, c.d_state, c.dtype);
  return [plain, ["hybrid", [kv(full), states]]];
}

/**
 * Sliding-window mask (L × S) of booleans, as attn_core.sliding_window_mask: query i sees
 * key j when 0 <= (S − L + i) − j < window (queries aligned to the last keys).
 */
export function slidingWindowMask(L, S, window) {
  if (!Number.isInteger(window) || window < 1) {
    throw new RangeError(`slidingWindowMask: window must be an integer >= 1, got ${window}`);
  }
  return Array.from({ length: L }, (_, i) =>
    Array.from({ length: S }, (_, j) => {
      const distance = S - L + i - j;
      return distance >= 0 && distance < window;
    }),
  );
}

/**
 * A softmax row with gpt-oss's sink: the logit `sink` joins the row and is dropped after
 * (as attn_core.attention_weights(..., sinks=sink)). Returns {weights, share}: the weights
 * sum to 1 − share. sink null: a plain softmax, share 0.
 */
export function sinkSoftmax(scores, sink = null) {
  if (sink === null) return { weights: softmax(scores), share: 0 };
  const joined = softmax([...scores, sink]);
  return { weights: joined.slice(0, -1), share: joined[joined.length - 1] };
}

/** σ(g) = 1/(1 + e^−g) through e^−|g|, as attn_core.output_gate computes its gate. */
export function sigmoid(g) {
  const small = Math.exp(-Math.abs(g));
  return g >= 0 ? 1 / (1 + small) : small / (1 + small);
}

/**
 * The position each slot of a ring buffer of `window` slots holds after `seen` positions
 * (0 … seen − 1) were written, position p to slot p mod window, as attn_core.KVCache's
 * `positions`: min(seen, window) slots in slot order.
 */
export function ringPositions(seen, window) {
  const held = Math.min(seen, window);
  return Array.from({ length: held }, (_, j) => seen - 1 - ((seen - 1 - j) % window));
}

/**
 * Query t of a sliding-window layer over keys K and values V (n rows each), every number the
 * window figure shows: the weights over all n keys (0 outside the window and after t), the
 * sink's share, the row's sum, the output Σ w v (the sink's value is zero), the gate σ(g)
 * (1 with none) and the gated output σ(g) · o, and the ring buffer after writing position t (its slots' positions, the slot
 * written, the position evicted or null). sink, gate: a logit, or null for none.
 */
export function windowStep(Q, K, V, t, window, { sink = null, gate = null } = {}) {
  if (!Number.isInteger(t) || t < 0 || t >= Q.length) {
    throw new RangeError(`windowStep: t must be a position in 0..${Q.length - 1}, got ${t}`);
  }
  const visible = slidingWindowMask(Q.length, K.length, window)[t];
  const scale = 1 / Math.sqrt(Q[t].length);
  const row = K.map((k, j) => (visible[j] ? dot(Q[t], k) * scale : -Infinity));
  const { weights, share } = sinkSoftmax(row, sink);
  const output = mix(weights, V);
  const g = gate === null ? 1 : sigmoid(gate);
  return {
    visible,
    weights,
    share,
    sum: weights.reduce((a, b) => a + b, 0),
    output,
    gate: g,
    gated: output.map((o) => o * g),
    slots: ringPositions(t + 1, window),
    written: t % window,
    evicted: t >= window ? t - window : null,
  };
}

/**
 * Purple–orange diverging map (colour-blind safe), t in [0, 1] -> "rgb(r,g,b)": 0 purple,
 * 0.5 near white, 1 orange; 9 stops of matplotlib's PuOr_r. For signed numbers (a state).
 */
const PUOR = [
  [45, 0, 75],
  [95, 58, 145],
  [153, 144, 191],
  [207, 207, 229],
  [247, 247, 246],
  [254, 213, 159],
  [238, 155, 57],
  [189, 97, 9],
  [127, 59, 8],
];
export function purpleOrange(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0.5)) * (PUOR.length - 1);
  const i = Math.min(PUOR.length - 2, Math.floor(x));
  const f = x - i;
  const c = PUOR[i].map((v, m) => Math.round(v + f * (PUOR[i + 1][m] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/** Katharopoulos et al.'s φ(x) = elu(x) + 1 of each entry, as attn_core.elu_plus_one. */
export function eluPlusOne(x) {
  return x.map((v) => (v > 0 ? v + 1 : Math.exp(v)));
}

const FEATURE_MAPS = { elu: eluPlusOne, identity: (x) => x.slice() };

/**
 * Causal linear attention as a recurrence, as attn_core.linear_attention_recurrent for one
 * sequence: S_t = S_{t−1} + φ(k_t) v_tᵀ (F × Ev), z_t = z_{t−1} + φ(k_t), o_t = φ(q_t)ᵀS_t,
 * divided by φ(q_t)·z_t if `normalize`. featureMap: "elu" (elu + 1) or "identity".
 * Q, K (T × E), V (T × Ev) -> {outputs (T × Ev), S, z}.
 */
export function linearAttentionRecurrent(
  Q,
  K,
  V,
  { featureMap = "elu", normalize = true, state = null } = {},
) {
  const phi = FEATURE_MAPS[featureMap];
  if (!phi) throw new RangeError(`linearAttentionRecurrent: featureMap must be elu or identity`);
  if (Q.length !== K.length || K.length !== V.length) {
    throw new RangeError(`linearAttentionRecurrent: one query, key and value a step`);
  }
  const F = K.length ? phi(K[0]).length : (Q[0]?.length ?? 0);
  const Ev = V.length ? V[0].length : 0;
  let S = state ? state[0].map((row) => row.slice()) : zeros(F, Ev);
  const z = state ? state[1].slice() : new Array(F).fill(0);
  const outputs = K.map((k, t) => {
    const fk = phi(k);
    S = S.map((row, i) => row.map((s, m) => s + fk[i] * V[t][m])); // + φ(k) vᵀ
    fk.forEach((f, i) => {
      z[i] += f;
    });
    const fq = phi(Q[t]);
    const read = vecMat(fq, S); // φ(q)ᵀ S
    const total = dot(fq, z);
    return normalize ? read.map((r) => r / total) : read;
  });
  return { outputs, S, z };
}

/**
 * The (gated) delta rule, as attn_core.delta_rule for one sequence:
 * S_t = α_t S_{t−1}(I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ (S is Ev × E), o_t = S_t q_t.
 * beta, decay: one number a step (decay null: 1). -> {outputs (T × Ev), S}.
 */
export function deltaRule(Q, K, V, beta, { decay = null, state = null } = {}) {
  if (Q.length !== K.length || K.length !== V.length || beta.length !== K.length) {
    throw new RangeError(`deltaRule: one query, key, value and beta a step`);
  }
  const E = (K[0] ?? Q[0] ?? []).length;
  const Ev = (V[0] ?? []).length;
  let S = state ? state.map((row) => row.slice()) : zeros(Ev, E);
  const outputs = K.map((k, t) => {
    const a = decay === null ? 1 : decay[t];
    const Sk = matVec(S, k); // what the state returns for k_t
    S = S.map((row, m) => row.map((s, i) => a * (s - beta[t] * Sk[m] * k[i])));
    S = S.map((row, m) => row.map((s, i) => s + beta[t] * V[t][m] * k[i])); // + β v kᵀ
    return matVec(S, Q[t]);
  });
  return { outputs, S };
}

/**
 * What chapter 12's state filler shows, as attn_book.widgets.state_filler.fill: the memory
 * after `step` of the tokens (keys K, values V; pairOf[j], the key token j writes), read with
 * the stored key `query`. method "softmax": weights over the cache (scores × softmaxScale);
 * "linear": S = Σ k vᵀ; "delta": the delta rule with writing strength `beta`, its state drawn
 * as values × keys (d_v × d_k), the chapter's S. -> {state, weights, recalled, target, written, error, correction}.
 */
export function fillState(K, V, pairOf, step, method, query, { beta = 1, softmaxScale = 16 } = {}) {
  const [dk, dv] = [K[0].length, V[0].length];
  const [Kt, Vt] = [K.slice(0, step), V.slice(0, step)];
  const q = K[pairOf.indexOf(query)];
  const last = pairOf.slice(0, step).lastIndexOf(query);
  const target = last >= 0 ? V[last].slice() : new Array(dv).fill(0);
  let state = zeros(dv, dk);
  let weights = [];
  let correction = [];
  let recalled = new Array(dv).fill(0);
  if (method === "softmax" && step) {
    weights = attentionMatrix([q], Kt, { scale: softmaxScale })[0];
    recalled = mix(weights, Vt);
  } else if (method === "linear" && step) {
    const S = linearAttentionRecurrent(Kt, Kt, Vt, { featureMap: "identity", normalize: false }).S;
    recalled = vecMat(q, S); // kᵀ S with this S keys × values, as attn_core keeps it
    state = S[0].map((_, i) => S.map((row) => row[i])); // drawn values × keys
  } else if (method === "delta" && step) {
    const betas = new Array(step).fill(beta);
    const before = deltaRule(Kt.slice(0, -1), Kt.slice(0, -1), Vt.slice(0, -1), betas.slice(0, -1));
    const after = deltaRule(Kt, Kt, Vt, betas).S;
    const Sk = before.S.length ? matVec(before.S, Kt[step - 1]) : new Array(dv).fill(0);
    correction = Vt[step - 1].map((v, m) => v - Sk[m]);
    state = after; // values × keys
    recalled = matVec(after, q);
  }
  const error = norm(recalled.map((r, m) => r - target[m]));
  return {
    state: method === "softmax" ? [] : state,
    weights,
    recalled,
    target,
    written: last >= 0,
    error,
    correction,
  };
}

function zeros(rows, cols) {
  return Array.from({ length: rows }, () => new Array(cols).fill(0));
}

/** M x for a matrix M (rows × n) and a vector x (n). */
function matVec(M, x) {
  return M.map((row) => dot(row, x));
}

/** xᵀ M for a vector x (rows) and a matrix M (rows × n). */
function vecMat(x, M) {
  return M[0].map((_, j) => x.reduce((s, xi, i) => s + xi * M[i][j], 0));
}
