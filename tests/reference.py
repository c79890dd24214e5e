"""Plain-Python reference implementations: lists, loops and ``math.exp``, no numpy.

These are the independent derivations the tests compare ``attn_core`` with. They
are written the slow, obvious way, one formula per loop, so that a bug in the
vectorised code (a wrong axis, a ``.T`` on a batch, a missing scale) cannot be
copied into the expected values. Matrices are lists of rows.
"""

from __future__ import annotations

import math

NEG_INF = -math.inf


def softmax(row, temperature=1.0):
    """Softmax of one list of scores; a row of only ``-inf`` gives zeros."""
    finite = [x for x in row if x != NEG_INF]
    if not finite:
        return [0.0 for _ in row]
    peak = max(finite)
    exps = [0.0 if x == NEG_INF else math.exp((x - peak) / temperature) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def logsumexp(row):
    """``log(sum(exp(x)))`` of one list, shifted by its maximum; ``-inf`` if all ``-inf``."""
    finite = [x for x in row if x != NEG_INF]
    if not finite:
        return NEG_INF
    peak = max(finite)
    return peak + math.log(sum(math.exp(x - peak) for x in finite))


def dot(u, v):
    """Dot product of two lists."""
    total = 0.0
    for a, b in zip(u, v, strict=True):
        total += a * b
    return total


def matmul(a, b):
    """(n, m) @ (m, p) -> (n, p) with three loops."""
    n, m, p = len(a), len(b), len(b[0])
    out = [[0.0] * p for _ in range(n)]
    for i in range(n):
        for j in range(p):
            for t in range(m):
                out[i][j] += a[i][t] * b[t][j]
    return out


def add_bias(rows, bias):
    """Add the list ``bias`` to every row."""
    return [[x + b for x, b in zip(row, bias, strict=True)] for row in rows]


def scores(queries, keys, scale=1.0):
    """(L, E), (S, E) -> (L, S): ``scale * q_i . k_j``."""
    return [[scale * dot(q, k) for k in keys] for q in queries]


def causal_mask(L, S=None):
    """(L, S) booleans: query i may attend to key j when j <= i."""
    S = L if S is None else S
    return [[j <= i for j in range(S)] for i in range(L)]


def padding_mask(lengths, S):
    """One row of S booleans per length: position j is real when j < length."""
    return [[j < n for j in range(S)] for n in lengths]


def apply_mask(score_rows, mask):
    """Bool mask: False -> -inf. Float mask: added. ``mask`` is (L, S) or None."""
    if mask is None:
        return score_rows
    out = []
    for row, mrow in zip(score_rows, mask, strict=True):
        if isinstance(mrow[0], bool):
            out.append([s if m else NEG_INF for s, m in zip(row, mrow, strict=True)])
        else:
            out.append([s + m for s, m in zip(row, mrow, strict=True)])
    return out


def weighted_sum(weights, values):
    """One output row: sum_j w_j v_j."""
    out = [0.0] * len(values[0])
    for w, v in zip(weights, values, strict=True):
        for c, x in enumerate(v):
            out[c] += w * x
    return out


def attention(queries, keys, values, mask=None, scale=None, causal=False):
    """Scaled dot-product attention of one (L, E), (S, E), (S, Ev) example.

    Returns (weights (L, S), output (L, Ev)). ``scale`` defaults to 1/sqrt(E).
    """
    if scale is None:
        scale = 1.0 / math.sqrt(len(queries[0]))
    if causal:
        mask = causal_mask(len(queries), len(keys))
    rows = apply_mask(scores(queries, keys, scale), mask)
    weights = [softmax(row) for row in rows]
    return weights, [weighted_sum(w, values) for w in weights]


def columns(rows, start, stop):
    """The columns ``start:stop`` of a matrix."""
    return [row[start:stop] for row in rows]


def multi_head(x_q, x_kv, w_q, w_k, w_v, w_o, n_heads, mask=None, causal=False):
    """Multi-head attention: head h uses columns h*dh:(h+1)*dh of each projection.

    The values may be wider than the queries: head h then takes v's columns
    h*dv:(h+1)*dv. Returns (output (L, D), weights (H, L, S)); each head is
    scaled by 1/sqrt(dh).
    """
    q, k, v = matmul(x_q, w_q), matmul(x_kv, w_k), matmul(x_kv, w_v)
    dh, dv = len(q[0]) // n_heads, len(v[0]) // n_heads
    heads_out, heads_w = [], []
    for h in range(n_heads):
        qh, kh = columns(q, h * dh, (h + 1) * dh), columns(k, h * dh, (h + 1) * dh)
        w, out = attention(qh, kh, columns(v, h * dv, (h + 1) * dv), mask, causal=causal)
        heads_w.append(w)
        heads_out.append(out)
    concat = [[x for h in range(n_heads) for x in heads_out[h][i]] for i in range(len(x_q))]
    return matmul(concat, w_o), heads_w


def entropy(weights):
    """-sum w log w in nats, with 0 log 0 = 0."""
    return -sum(w * math.log(w) for w in weights if w > 0)
