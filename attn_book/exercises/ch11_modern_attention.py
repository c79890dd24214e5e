"""Chapter 11's exercises: windows, the ring buffer, sinks, QK-norm and MLA.

By hand: :data:`band_count` (the ones of a band mask), :data:`mixed_reach` (how far a stack
of windows of two sizes sees), :data:`ring_slots` (what a ring buffer holds after step t),
:data:`sink_logit` (the sink logit that takes a given share of a row),
:data:`qk_norm_bound` (the largest score under QK-norm) and :data:`mla_cache` (an MLA
model's cache per token). Write the function: :data:`sink_weights` (a softmax row with a
sink, on large, spread-out and fully masked rows). The proof: :data:`mla_fold_values`
(MLA's value up-projection folds into the output projection). A design question:
:data:`local_global_budget` (a window and a number of global layers for a memory budget).

Examples
--------
>>> band_count.check(42).ok
True
>>> band_count.check(50).diagnosis
'window-plus-one'
>>> ring_slots.check([7, 8, 9, 10]).diagnosis
'position-order'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac
from attn_book.data import quanta_example
from attn_core.sinks import softmax_with_sinks

from . import cases as _cases
from . import diagnose
from .kinds import DesignExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis

KIB, GIB = 2**10, 2**30  # bytes in a KiB and a GiB


# ------------------------------------------------------ the band mask, by hand

_BAND = (12, 4)  # n positions, window W


def _band_ones(n, window):
    """Keys seen, summed over the n queries: the ones of attn_core's band mask."""
    return int(ac.sliding_window_mask(n, n, window).sum())


band_count = NumberExercise(
    "ch11-band-count",
    _BAND,
    _band_ones,
    integer=True,  # a number of pairs
    diagnoses=[
        diagnose.matches("window-plus-one", lambda n, w: _band_ones(n, w + 1)),
        diagnose.matches("window-minus-one", lambda n, w: _band_ones(n, w - 1)),
        diagnose.matches("first-rows-full", lambda n, w: n * w),
        diagnose.matches("causal-count", lambda n, w: n * (n + 1) // 2),
        diagnose.matches(
            "both-sides",
            lambda n, w: int((np.abs(np.subtract.outer(np.arange(n), np.arange(n))) < w).sum()),
        ),
    ],
)


# ------------------------------------------------------ a stack of two window sizes

_STACK = (4, 4, 4, 8, 8)  # the window of each layer, first layer first


def _reach_by_paths(*windows):
    """Tokens the last position reaches through the layers: paths through the band masks."""
    n = 1 + sum(windows) * 2  # more positions than any path can cross
    paths = np.eye(n, dtype=int)
    for w in windows:
        paths = (paths @ ac.sliding_window_mask(n, n, w).astype(int) > 0).astype(int)
    return int(paths[-1].sum())


mixed_reach = NumberExercise(
    "ch11-mixed-reach",
    _STACK,
    _reach_by_paths,
    integer=True,  # a number of tokens
    diagnoses=[
        diagnose.matches("windows-summed", lambda *ws: sum(ws)),
        diagnose.matches("no-plus-one", lambda *ws: sum(w - 1 for w in ws)),
        diagnose.matches("largest-window", lambda *ws: len(ws) * (max(ws) - 1) + 1),
        diagnose.matches("smallest-window", lambda *ws: len(ws) * (min(ws) - 1) + 1),
    ],
)


# ------------------------------------------------------ the ring buffer after step t

_RING = (4, 10)  # W slots; positions 0 … t appended, one at a time


def _slots_after(window, t, *, steps=None):
    """The position each slot holds after positions 0 … t, by attn_core's ring buffer."""
    ring = ac.KVCache(window=window)
    for p in range(t + 1 if steps is None else steps):
        ring.append(np.full((1, 1), float(p)), np.zeros((1, 1)))
    return ring.positions.astype(float)


class _SlotsFromZero(NumberExercise):
    """A by-hand answer whose question numbers its slots from 0 ("slot 0 first"): the generic
    rule that names the entries off names them from 0 too (here and in the site's box)."""

    def _generic(self):
        return [
            diagnose.rule("other", near=0.0, whole=True, first=0) if d.name == "other" else d
            for d in super()._generic()
        ]


ring_slots = _SlotsFromZero(
    "ch11-ring-slots",
    _RING,
    _slots_after,
    integer=True,  # positions, counted from 0
    diagnoses=[
        diagnose.matches("position-order", lambda w, t: np.sort(_slots_after(w, t))),
        diagnose.matches("one-step-behind", lambda w, t: _slots_after(w, t, steps=t)),
        diagnose.matches("never-overwritten", lambda w, t: np.arange(w, dtype=float)),
        diagnose.matches("one-step-ahead", lambda w, t: _slots_after(w, t + 1)),
    ],
)


# ------------------------------------------------------ design: W and the global layers


# 48 layers, 8 KV heads of 128, bfloat16, 131,072 tokens, a budget of 4 GiB (one sequence);
# at least 6 global layers and a window of at least 1,024
_BUDGET = (48, 8, 128, 131072, 2, 4.0, 6, 1024)


def _layers_cache(answer, layers, kv_heads, d_head, n, b, budget, min_global, min_window):
    """[GiB of the cache, W, global layers]: what a design (W, global layers) gives."""
    window, n_global = (float(a) for a in answer)
    n_local = layers - n_global
    per_position = ac.kv_cache_bytes(1, kv_heads, d_head, 1, b)  # one layer, one position
    held = n_global * n + n_local * min(window, n)
    return np.array([held * per_position / GIB, window, n_global])


def _fits(produced, budget=_BUDGET[5], min_global=_BUDGET[6], min_window=_BUDGET[7]):
    gib, window, n_global = produced
    return bool(
        _whole(produced)
        and gib <= budget
        and min_global <= n_global <= _BUDGET[0]
        and window >= min_window
    )


def _whole(produced):
    _, window, n_global = produced
    return float(window).is_integer() and float(n_global).is_integer()


def _swapped(produced):
    """[global layers, W] typed for [W, global layers]: a layer count first, a window second."""
    _, window, n_global = produced
    return bool(0 <= window <= _BUDGET[0] and n_global > _BUDGET[0] and n_global >= _BUDGET[7])


def _design(name, test, params=None):
    return Diagnosis(name, lambda trials: bool(test(trials[0].produced)), params=params)


def _budget_working(layers, kv_heads, d_head, n, b, budget, min_global, min_window):
    """The arithmetic of the solution, for the chapter's folded solution to quote."""
    one_position = ac.kv_cache_bytes(1, kv_heads, d_head, 1, b)  # bytes: one layer, one position
    global_gib = n * one_position / GIB  # one global layer at n tokens
    left_gib = budget - min_global * global_gib  # for the local layers
    n_local = layers - min_global
    return {
        "one_position_kib": one_position / KIB,
        "global_layer_gib": global_gib,
        "globals_gib": min_global * global_gib,
        "local_layers": n_local,
        "left_gib": left_gib,
        "largest_window": math.floor(left_gib * GIB / (n_local * one_position)),
    }


BUDGET_WORKING = _budget_working(*_BUDGET)

local_global_budget = DesignExercise(
    "ch11-local-global-budget",
    _BUDGET,
    _layers_cache,
    _fits,
    shape=(2,),
    diagnoses=[
        _design("not-whole", lambda p: not _whole(p)),
        _design("order-swapped", _swapped),
        _design("too-many-global", lambda p: p[2] > _BUDGET[0] or p[2] < 0),
        _design("too-few-global", lambda p: p[2] < _BUDGET[6]),
        _design("window-too-small", lambda p: p[1] < _BUDGET[7]),
        _design(
            "over-budget",
            lambda p: p[0] > _BUDGET[5],
            params=lambda trials: {"gib": f"{trials[0].produced[0]:.6g}", "budget": _BUDGET[5]},
        ),
    ],
)


# ------------------------------------------------------ write the function: a row with a sink


def _row_weights(scores, sink):
    """attn_core's softmax with the sink joined and dropped: scores (..., S), sink -> (..., S)."""
    scores = np.asarray(scores, dtype=float)
    sinks = np.broadcast_to(np.asarray(sink, dtype=float), scores.shape[:-1])
    return softmax_with_sinks(scores, sinks)


def _plain_softmax(scores, sink):
    return ac.softmax(np.asarray(scores, dtype=float), axis=-1)


def _plain_softmax_by_hand(scores, sink):
    """The same slip written by hand: a fully masked row becomes -inf - (-inf) = NaN."""
    scores = np.asarray(scores, dtype=float)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def _shift_without_sink(scores, sink):
    """Shifted by the scores' max alone: a fully masked row's max is -inf, and NaN follows."""
    scores = np.asarray(scores, dtype=float)
    m = scores.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(scores - m)
        z = np.exp(np.asarray(sink, dtype=float)[..., None] - m)
        return e / (e.sum(axis=-1, keepdims=True) + z)


def _sink_cases():
    scaled = _EXAMPLE.keys @ _EXAMPLE.query / math.sqrt(2)  # chapter 4's scaled scores
    r = np.random.default_rng(11)
    inf = math.inf
    return [
        Case("chapter 4's scaled scores, sink 1", (scaled, 1.0)),
        Case(
            "no key in the window: a fully masked row, sink 0", (np.array([-inf, -inf, -inf]), 0.0)
        ),
        Case("one key masked, sink 0.5", (np.array([0.3, -inf, 1.2, -0.4]), 0.5)),
        Case("large scores 1000, 1001, 999, sink 0", (np.array([1000.0, 1001.0, 999.0]), 0.0)),
        Case("spread-out scores −500, 0, 500, sink 400", (np.array([-500.0, 0.0, 500.0]), 400.0)),
        Case("every score far below the sink", (np.array([-900.0, -950.0, -1000.0]), 0.0)),
        Case(  # a maximum that starts at 0 (or is clamped at 0) underflows every e^x here
            "every score and the sink below −745: scores −1000 … −1003, sink −1002",
            (np.array(_cases.NEGATIVE_ROW), -1002.0),
        ),
        Case(
            "2 heads × 3 rows × 4 keys, one sink per head, shape (2, 1)",
            (r.normal(size=(2, 3, 4)), np.array([[0.0], [2.0]])),
            batched=True,
        ),
        *_more_sink_cases(r),
    ]


def _more_sink_cases(r):
    """Every leading shape with one sink per head (shape (H, 1)); spread scores with a sink
    inside and above their range; a hidden key with the highest score and a masked row."""
    found = []
    for lead, _ in _cases.leads()[1:]:
        L, S, _, _ = _cases.sizes(lead)
        sink = r.normal(size=(lead[-1], 1))
        found.append(
            _cases.case("scores", [3 * r.normal(size=(*lead, L, S)), sink], lead=lead, L=L, S=S)
        )
    spread = _cases.spread_scores()
    found += [_cases.case("spread", [spread, z]) for z in (0.0, 900.0)]
    hidden = np.where(_cases.hidden_top_mask(spread), spread, -math.inf)
    found.append(_cases.case("hidden-top", [hidden, 1.0]))
    return found


def _extra_column(trials):
    return any(
        t.got is not None and t.got.shape[-1] == t.expected.shape[-1] + 1
        for t in trials
        if not t.ok
    )


sink_weights = FunctionExercise(
    "ch11-sink-weights",
    _row_weights,
    _sink_cases,
    diagnoses=[
        Diagnosis("sink-left-in-row", _extra_column),
        diagnose.matches("sink-forgotten", _plain_softmax, _plain_softmax_by_hand, equal_nan=True),
        diagnose.matches("masked-row-nan", _shift_without_sink, equal_nan=True),
    ],
)


# ------------------------------------------------------ the sink logit for a given share, by hand

_EXAMPLE = quanta_example()
_SHARE = (_EXAMPLE.query, _EXAMPLE.keys, 0.25)  # chapter 4's query and keys; the sink's share p


def _sink_for_share(q, keys, p, *, scale=None):
    """z with e^z / (e^z + Σ e^s) = p: z = ln(p / (1 − p)) + logsumexp of the scaled scores."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    return math.log(p / (1 - p)) + float(ac.logsumexp(keys @ q * scale))


sink_logit = NumberExercise(
    "ch11-sink-logit",
    _SHARE,
    _sink_for_share,
    diagnoses=[
        diagnose.matches("unscaled", lambda q, k, p: _sink_for_share(q, k, p, scale=1.0)),
        diagnose.matches(
            "odds-forgotten", lambda q, k, p: _sink_for_share(q, k, p) - math.log(1 / (1 - p))
        ),
        diagnose.matches("share-swapped", lambda q, k, p: _sink_for_share(q, k, 1 - p)),
        diagnose.matches("exp-not-log", lambda q, k, p: math.exp(_sink_for_share(q, k, p))),
    ],
)


# ------------------------------------------------------ the largest score under QK-norm, by hand

_GAINS = (
    np.array([1.0, -2.5, 0.5, 1.0, 0.8, 0.9, 0.7, 1.1]),  # q_norm's gains g_q, d = 8
    np.array([0.6, 1.2, 1.0, 0.4, 1.1, 0.9, 1.0, 0.5]),  # k_norm's gains g_k
)


def _top(g):
    return float(np.abs(g).max())


qk_norm_bound = NumberExercise(
    "ch11-qk-norm-bound",
    _GAINS,
    ac.qk_norm_max_score,
    diagnoses=[
        diagnose.matches("unscaled", lambda gq, gk: len(gq) * _top(gq) * _top(gk)),
        diagnose.matches("divided-by-d", lambda gq, gk: _top(gq) * _top(gk)),
        diagnose.matches(
            "signed-max", lambda gq, gk: math.sqrt(len(gq)) * float(gq.max()) * float(gk.max())
        ),
        diagnose.matches("unit-length", lambda gq, gk: _top(gq) * _top(gk) / math.sqrt(len(gq))),
    ],
)


# ------------------------------------------------------ MLA's cache per token, by hand

# DeepSeek-V2: 60 layers, 128 heads, a latent of d_c = 512, a RoPE key of d_h^R = 64, bfloat16
_V2 = (60, 128, 512, 64, 2)


def _mla_kib(layers, heads, d_c, d_rope, b):
    """KiB per token: attn_core's MLA cache for one position."""
    return ac.mla_cache_bytes(layers, d_c, d_rope, 1, b) / KIB


mla_cache = NumberExercise(
    "ch11-mla-cache",
    _V2,
    _mla_kib,
    diagnoses=[
        diagnose.matches(
            "k-and-v-twice", lambda layers, h, c, r, b: 2 * _mla_kib(layers, h, c, r, b)
        ),
        diagnose.matches("one-layer", lambda layers, h, c, r, b: _mla_kib(1, h, c, r, b)),
        diagnose.matches("bytes-not-kib", lambda layers, h, c, r, b: layers * (c + r) * b),
        diagnose.matches("rope-key-forgotten", lambda layers, h, c, r, b: layers * c * b / KIB),
        diagnose.matches(
            "rope-key-per-head", lambda layers, h, c, r, b: layers * (c + h * r) * b / KIB
        ),
        diagnose.matches(
            "times-heads", lambda layers, h, c, r, b: h * _mla_kib(layers, h, c, r, b)
        ),
        diagnose.matches("numbers-not-bytes", lambda layers, h, c, r, b: layers * (c + r) / KIB),
        diagnose.matches(
            "latent-for-k-and-v", lambda layers, h, c, r, b: layers * (2 * c + r) * b / KIB
        ),
        diagnose.matches(
            "decimal-kilobytes", lambda layers, h, c, r, b: layers * (c + r) * b / 1000
        ),
    ],
)


# ------------------------------------------------------ the proof: W_UV folds into W_O


def _fold_by_latents(w_uv, w_o):
    """The naive path on each unit latent e_i: decompress its value, then project it.

    Row i of the folded matrix is what latent e_i becomes; since the weights average the
    latents and both steps are linear, (Σ_j w_j c_j) times that matrix is the head's output.
    """
    d_c = w_uv.shape[-2]
    unit = np.eye(d_c)[:, None, :]  # [d_c, 1, d_c]: the latents e_0 … e_(d_c − 1)
    rows = [(unit[i] @ w_uv) @ w_o for i in range(d_c)]  # each [..., 1, D]
    return np.concatenate(rows, axis=-2)  # [..., d_c, D]


def _fold_cases():
    r = np.random.default_rng(12)
    return [
        Case(
            "integers: d_c = 2, d_v = 2, D = 3",
            (np.array([[1.0, 0.0], [2.0, 1.0]]), np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])),
        ),
        Case("d_c = 4, d_v = 3, D = 8", (r.normal(size=(4, 3)), r.normal(size=(3, 8)))),
        Case("d_c = d_v = 3, D = 5", (r.normal(size=(3, 3)), r.normal(size=(3, 5)))),
        Case(
            "2 heads: W_UV (2, 4, 3), W_O's slices (2, 3, 8)",
            (r.normal(size=(2, 4, 3)), r.normal(size=(2, 3, 8))),
            batched=True,
        ),
        *[
            _cases.case(
                "fold",
                [r.normal(size=(*lead, c, v)), r.normal(size=(*lead, v, D))],
                lead=lead,
                c=c,
                v=v,
                D=D,
            )
            for lead, _ in _cases.leads()[1:]
            for c, v, D, _ in [_cases.sizes(lead)]
        ],
    ]


def _shape_is(name, shape_of):
    """A failing answer of the slip's shape: ``shape_of(expected shape, args)``."""

    def test(trials):
        return any(
            t.got is not None and t.got.shape == shape_of(t.expected.shape, t.case.args)
            for t in trials
            if not t.ok and t.expected.ndim == 3
        )

    return Diagnosis(name, test)


mla_fold_values = FunctionExercise(
    "ch11-mla-fold-values",
    _fold_by_latents,
    _fold_cases,
    diagnoses=[
        _shape_is("heads-summed", lambda shape, args: shape[1:]),  # one matrix for all heads
        _shape_is(
            "dot-on-stack", lambda shape, args: args[0].shape[:-1] + args[1].shape[:1] + shape[-1:]
        ),
    ],
)


EXERCISES = [
    band_count,
    mixed_reach,
    ring_slots,
    local_global_budget,
    sink_weights,
    sink_logit,
    qk_norm_bound,
    mla_fold_values,
    mla_cache,
]
