"""Chapter 7's exercises: many heads and masks.

Find the bug: :data:`heads_reshape` (heads made by a reshape alone) and
:data:`scale_d_model` (scaling each head by √d_model instead of √d_head), both
moved here from chapter 3 with the heads. By hand: :data:`heads_cost` (what
grows with the number of heads, counted for GPT-2 small's shape) and
:data:`padding_by_hand`. Write the function: :data:`key_padding_weights` (the
opposite mask convention of ``torch.nn.MultiheadAttention``). Predict then run:
:data:`float16_fill` (a fill that fits in float16). Design: :data:`two_back_head`
(a query matrix whose head looks two tokens back, judged by the weights it gives).

Examples
--------
>>> padding_by_hand.check([0.401, 0.198, 0.401]).diagnosis
'padding-attended'
>>> heads_cost.check([1.611, 1.049, 4.194]).diagnosis
'counted-one-head'
>>> float16_fill.check("NaN").diagnosis
'chose-NaN'
>>> two_back_head.check(8 * np.eye(5, k=-1)).diagnosis
'previous-token'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac
from attn_book.data import quanta_example, two_head_example

from . import cases as _cases
from . import diagnose
from .catalog import text
from .kinds import BugExercise, ChoiceExercise, DesignExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis

# ------------------------------------------------------ √d_model instead of √d_head (ch 7)


def head_weights(q, k, n_heads):
    """Each head's weights (..., h, n, n) from q, k (..., n, D)."""
    d_model = q.shape[-1]
    qh = ac.split_heads(q, n_heads)  # [..., h, n, d_head]
    kh = ac.split_heads(k, n_heads)  # [..., h, n, d_head]
    kh_t = np.swapaxes(kh, -1, -2)  # [..., h, d_head, n]
    scores = qh @ kh_t / np.sqrt(d_model)  # [..., h, n, n]
    return ac.softmax(scores, axis=-1)


def _head_weights(q, k, n_heads, scale=None):
    return ac.attention_weights(ac.split_heads(q, n_heads), ac.split_heads(k, n_heads), scale=scale)


def _head_cases():
    r = np.random.default_rng(4)
    return [
        Case("n=4, d_model=8, 2 heads", (3 * r.normal(size=(4, 8)), 3 * r.normal(size=(4, 8)), 2)),
        Case(
            "n=3, d_model=12, 4 heads", (3 * r.normal(size=(3, 12)), 3 * r.normal(size=(3, 12)), 4)
        ),
        Case(
            "batch of 2, n=3, d_model=6, 3 heads",
            (3 * r.normal(size=(2, 3, 6)), 3 * r.normal(size=(2, 3, 6)), 3),
            batched=True,
        ),
        *_heads_cases(r, lambda n, D: (3 * r.normal(size=(n, D)), 3 * r.normal(size=(n, D)))),
        _spread_heads(r),
    ]


def _spread_heads(r):
    """Two heads of d_head 7 whose scaled scores are the square spread table (and its negative):
    a fix that also drops the softmax's max-subtraction overflows here."""
    table = _cases.square_spread_scores()
    (q1, k1), (q2, k2) = (_cases.qk_for_scores(s, d=7, rng=r) for s in (table, -table))
    q, k = np.hstack([q1, q2]), np.hstack([k1, k2])  # [5, 2 · 7]: head h is columns 7h … 7h + 6
    return _cases.case("spread", [q, k, 2])


def _heads_cases(r, make):
    """``make(lead + (n,), D) + (h,)`` at every leading shape: n tokens, h heads and d_head all
    different (a reshape that swaps n and h changes the shape)."""
    found = []
    for lead, _ in _cases.leads():
        n, h, d_head, _ = _cases.sizes(lead)
        args = [
            a.reshape(*lead, n, h * d_head)
            for a in make(int(np.prod(lead, dtype=int)) * n, h * d_head)
        ]
        found.append(_cases.case("heads", [*args, h], lead=lead, L=n, D=h * d_head, h=h))
    return found


scale_d_model = BugExercise(
    "bug-scale-d-model",
    head_weights,
    _head_weights,
    _head_cases,
    bug="scaled-by-d-model",
    diagnoses=[
        diagnose.scaled_by_d_model(
            lambda q, k, h: _head_weights(q, k, h, 1 / math.sqrt(q.shape[-1]))
        ),
        diagnose.forgot_scale("d_head", lambda q, k, h: _head_weights(q, k, h, 1.0)),
        diagnose.matches(
            "divided-by-d-head", lambda q, k, h: _head_weights(q, k, h, h / q.shape[-1])
        ),
        diagnose.matches(
            "divided-by-sqrt-h", lambda q, k, h: _head_weights(q, k, h, 1 / math.sqrt(h))
        ),
        diagnose.rows_not_normalised(),
    ],
)


# ------------------------------------------------------ heads without the transpose (ch 7)


def split(x, n_heads):
    """Split x (..., n, D) into h = n_heads heads: (..., h, n, D // h)."""
    *batch, n, D = x.shape
    return x.reshape(*batch, n_heads, n, D // n_heads)


def _split_cases():
    r = np.random.default_rng(5)
    return [
        Case("n=4, D=6, 2 heads", (r.normal(size=(4, 6)), 2)),
        Case("n=3, D=8, 4 heads", (r.normal(size=(3, 8)), 4)),
        Case("batch of 2, n=5, D=6, 3 heads", (r.normal(size=(2, 5, 6)), 3), batched=True),
        *_heads_cases(r, lambda n, D: (r.normal(size=(n, D)),)),
    ]


def _forgot_swap():
    def test(trials):
        return any(t.matches(np.swapaxes(t.expected, -2, -3)) for t in trials if not t.ok)

    return Diagnosis("heads-not-swapped", test)


heads_reshape = BugExercise(
    "bug-heads-reshape",
    split,
    ac.split_heads,
    _split_cases,
    bug="heads-no-transpose",
    diagnoses=[
        diagnose.heads_without_transpose(lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2], -1)),
        _forgot_swap(),
    ],
)


# ------------------------------------------------------ a padded key, by hand (ch 7)


def _real_keys(keys, length):
    """The padding mask of one sentence: True for its first ``length`` keys."""
    return ac.padding_mask(length, len(keys))[0]


def _padded_weights(query, keys, length):
    """Weights of one query over ``keys`` whose first ``length`` are real, the rest padding."""
    return ac.attention_weights(query, keys, _real_keys(keys, length))


_EXAMPLE = quanta_example()  # the Quanta write-up's worked example

padding_by_hand = NumberExercise(
    "ch7-padding-by-hand",
    (_EXAMPLE.query, _EXAMPLE.keys, 2),
    _padded_weights,
    diagnoses=[
        diagnose.matches("padding-attended", lambda q, k, n: ac.attention_weights(q, k)),
        diagnose.matches(
            "wrong-end-masked",
            lambda q, k, n: ac.attention_weights(q, k, np.arange(len(k)) >= len(k) - n),
        ),
        diagnose.matches(
            "forgot-scale", lambda q, k, n: ac.attention_weights(q, k, _real_keys(k, n), scale=1.0)
        ),
        diagnose.matches(
            "padding-zeroed-not-renormalised",
            lambda q, k, n: ac.attention_weights(q, k) * (np.arange(len(k)) < n),
        ),
        diagnose.matches(  # e^(−0.707) for the first key: the two real weights swap
            "score-sign-flipped", lambda q, k, n: ac.attention_weights(-q, k, _real_keys(k, n))
        ),
    ],
)


# ------------------------------------------------------ key_padding_mask: True = ignore (ch 7)


def _weights_from_key_padding_mask(q, k, key_padding_mask):
    """attn_core's weights for a torch-style key_padding_mask (..., S), True = ignore."""
    may_attend = ~np.asarray(key_padding_mask, dtype=bool)  # [..., S], True = may attend
    return ac.attention_weights(q, k, may_attend[..., None, :])  # mask [..., 1, S]


def _kpm_cases():
    r = np.random.default_rng(61)
    return [
        Case(
            "one sentence: 3 queries, 4 keys, the last one padding",
            (r.normal(size=(3, 4)), r.normal(size=(4, 4)), np.array([False, False, False, True])),
        ),
        Case(
            "batch of 2: lengths 4 and 2, 3 queries each",
            (
                r.normal(size=(2, 3, 4)),
                r.normal(size=(2, 4, 4)),
                np.array([[False] * 4, [False, False, True, True]]),
            ),
            batched=True,
        ),
        Case(
            "a fully padded sentence: every key True",
            (r.normal(size=(2, 4)), r.normal(size=(3, 4)), np.array([True, True, True])),
        ),
        *_padding_cases(r),
    ]


def _padding_cases(r):
    """Every leading shape, sizes all different, the last sequence all padding; and spread
    scores where a padded key has a row's highest score."""
    found = []
    for lead, _ in _cases.leads():
        L, S, d, _ = _cases.sizes(lead)
        pad = r.random(size=(*lead, S)) < 0.3
        pad[..., 0] = False
        if lead:
            pad[-1, ...] = True  # the last sequence (or head row) is all padding
        q, k = r.normal(size=(*lead, L, d)), r.normal(size=(*lead, S, d))
        found.append(_cases.case("sizes", [q, k, pad], lead=lead, L=L, S=S, d=d))
    spread = _cases.spread_scores()
    q, k = _cases.qk_for_scores(spread, d=7, rng=r)
    pad = np.zeros(spread.shape[-1], dtype=bool)
    pad[2] = True  # the spread row's highest score, 800, is on a padded key
    found.append(_cases.case("spread", [q, k, pad]))
    real_top = np.zeros(spread.shape[-1], dtype=bool)
    real_top[3] = True  # the 800 is real: 849.5 above the real keys' mean, -49.5
    found.append(Case(_SPREAD_REAL_TOP, (q, k, real_top)))
    return found


_SPREAD_REAL_TOP = "spread scores, one low key padding: a real key's 800 is the row's top"


def _filled_minus_1e9(q, k, key_padding_mask):
    """The slip: the padding filled with -1e9, not -inf; a fully padded row gets 1/S each."""
    scores = ac.dot_scores(q, k) / math.sqrt(q.shape[-1])  # [..., L, S]
    return ac.softmax(np.where(np.asarray(key_padding_mask)[..., None, :], -1e9, scores))


def _filled_minus_1e9_added(q, k, key_padding_mask):
    """The same slip as an additive float mask: -1e9 added to the padding's scores."""
    scores = ac.dot_scores(q, k) / math.sqrt(q.shape[-1])  # [..., L, S]
    return ac.softmax(scores + np.where(np.asarray(key_padding_mask), -1e9, 0.0)[..., None, :])


def _not_flipped(q, k, key_padding_mask):
    return ac.attention_weights(q, k, np.asarray(key_padding_mask)[..., None, :])


def _mask_added(sign, flip):
    """The slip: the boolean mask added to the scores as numbers, True = 1 (``flip``: ~mask)."""

    def added(q, k, key_padding_mask):
        m = np.asarray(key_padding_mask, dtype=bool)
        m = ~m if flip else m
        scores = ac.dot_scores(q, k) / math.sqrt(q.shape[-1])  # [..., L, S]
        return ac.softmax(scores + sign * m.astype(float)[..., None, :])

    return added


def _max_over_padding(q, k, key_padding_mask):
    """The slip: e^(s - max) with the max over every key, padding too, then the padding dropped
    and the rest renormalised (a full softmax, zeroed and renormalised, is the same): where a
    padded key holds the row's top score the real keys underflow and the row comes out 0."""
    scores = ac.dot_scores(q, k) / math.sqrt(q.shape[-1])  # [..., L, S]
    real = ~np.asarray(key_padding_mask, dtype=bool)[..., None, :]  # [..., 1, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * real
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _max_over_padding_nan(q, k, key_padding_mask):
    """The same, divided without a guard: 0/0 = NaN where every real key underflowed."""
    scores = ac.dot_scores(q, k) / math.sqrt(q.shape[-1])  # [..., L, S]
    real = ~np.asarray(key_padding_mask, dtype=bool)[..., None, :]  # [..., 1, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * real
    with np.errstate(invalid="ignore"):
        return e / e.sum(axis=-1, keepdims=True)


def _padding_weighted():
    """A padded key gets weight in a row that has a real key."""

    def test(trials):
        for t in _failing(trials):
            if t.got.shape != t.expected.shape:
                continue
            pad = np.asarray(t.case.args[2], dtype=bool)[..., None, :]  # [..., 1, S]
            pad = np.broadcast_to(pad, t.expected.shape)
            mixed = (~pad).any(axis=-1, keepdims=True) & pad
            if (np.abs(np.nan_to_num(t.got[mixed])) > 1e-9).any():
                return True
        return False

    return Diagnosis("hidden-key-weighted", test)


def _rows_not_normalised():
    """A row with a real key whose weights do not sum to 1 (a fully padded row sums to 0), on
    a case of small scores (where no overflow or underflow can be the cause)."""

    def test(trials):
        for t in _failing(trials):
            if t.got.shape == t.expected.shape and np.isfinite(t.got).all():
                if diagnose.large_inputs(t):
                    continue
                real_rows = np.isclose(t.expected.sum(axis=-1), 1.0)
                if not np.allclose(t.got.sum(axis=-1)[real_rows], 1.0, atol=1e-3):
                    return True
        return False

    return Diagnosis("rows-not-normalised", test)


def _failing(trials):
    return [t for t in trials if not t.ok and t.error is None and t.got is not None]


key_padding_weights = FunctionExercise(
    "ch7-key-padding-weights",
    _weights_from_key_padding_mask,
    _kpm_cases,
    diagnoses=[
        diagnose.matches("convention-not-flipped", _not_flipped),
        diagnose.matches("mask-not-applied", lambda q, k, m: ac.attention_weights(q, k)),
        diagnose.matches("filled-minus-1e9", _filled_minus_1e9, _filled_minus_1e9_added),
        diagnose.matches(
            "mask-added-as-numbers",
            *(_mask_added(sign, flip) for sign in (1, -1) for flip in (True, False)),
        ),
        diagnose.matches(
            "max-over-padding", _max_over_padding, _max_over_padding_nan, equal_nan=True
        ),
        _padding_weighted(),
        _rows_not_normalised(),
    ],
)


# ------------------------------------------------------ what grows with the heads (ch 7)


def _heads_cost(
    d_model, n_heads, L, *, d=None, flop=2, exps_heads=None, bytes_unit=1e6, bytes_per=4, av=False
):
    """[GFLOP of QKᵀ, millions of exponentials, MB of float32 scores] of one layer.

    The keyword arguments imitate the slips: ``d`` a head width other than
    d_model / h, ``flop=1`` multiply-adds for FLOPs, ``exps_heads=1`` the
    exponentials and scores of one head only, ``bytes_unit=2**20`` MiB,
    ``bytes_per=2`` float16 scores, ``av=True`` QKᵀ and weights·V counted together.
    """
    d_head = d_model // n_heads if d is None else d
    cost = ac.attention_cost(1, n_heads, L, L, d_head)
    one = ac.attention_cost(1, 1, L, L, d_head)
    many = cost if exps_heads is None else one
    flops = cost.qk_flops + (cost.av_flops if av else 0)
    return [
        flops * flop / 2 / 1e9,
        many.softmax_exps / 1e6,
        many.score_bytes * bytes_per / 4 / bytes_unit,
    ]


heads_cost = NumberExercise(
    "ch7-heads-cost",
    (768, 12, 1024),
    _heads_cost,
    decimals=2,  # the question names no decimals: two (1.61, 12.58, 50.33) are an honest answer
    diagnoses=[
        diagnose.matches("counted-one-head", lambda d, h, L: _heads_cost(d, h, L, exps_heads=1)),
        diagnose.matches("multiply-adds-not-flops", lambda d, h, L: _heads_cost(d, h, L, flop=1)),
        diagnose.matches("d-model-per-head", lambda d, h, L: _heads_cost(d, h, L, d=d)),
        diagnose.matches("mib-not-mb", lambda d, h, L: _heads_cost(d, h, L, bytes_unit=2**20)),
        diagnose.matches("float16-bytes", lambda d, h, L: _heads_cost(d, h, L, bytes_per=2)),
        diagnose.matches("counted-weights-v", lambda d, h, L: _heads_cost(d, h, L, av=True)),
        diagnose.matches("one-head-counts", lambda d, h, L: _heads_cost(d, 1, L, d=d // h)),
    ],
)


# ------------------------------------------------------ -1e4 in float16 (ch 7)

float16_fill = ChoiceExercise(
    "ch7-float16-fill", options=["zeros", "uniform", "NaN"], answer="uniform"
)


# ------------------------------------------------------ design: a head two tokens back (ch 7)

TWO_BACK_SHARE = 0.6  # the weight each query from position 2 on must put two tokens back


def _position_head_weights(block, x):
    """The weights [L, L] of one head with W_K = I whose W_Q is ``block`` on the positions.

    ``x`` is chapter 7's sentence: features 0-4 a one-hot position, 5-9 a one-hot word.
    """
    n = block.shape[0]
    w_q = np.zeros((x.shape[-1], x.shape[-1]))
    w_q[:n, :n] = block  # the word features' part stays 0
    return ac.attention_weights(x @ w_q, x)  # scale 1/√10: one head of all ten features


def _tops(row):
    """The positions holding a row's largest weight (several when they tie)."""
    return [int(j) for j in np.flatnonzero(np.isclose(row, row.max(), rtol=1e-9, atol=0.0))]


def _looks(weights, back):
    """Each query from position 2 on puts its largest weight ``back`` tokens back, alone."""
    rows = range(2, weights.shape[0])
    return all(_tops(weights[i]) == [i - back] for i in rows if 0 <= i - back < weights.shape[1])


def _two_back(weights):
    rows = range(2, weights.shape[0])
    return _looks(weights, 2) and all(weights[i, i - 2] >= TWO_BACK_SHARE for i in rows)


def _head(name, test):
    return Diagnosis(name, lambda trials: bool(test(trials[0].produced)))


def _positions(js):
    """ "0", "0 and 2", "0, 1 and 2": positions as the text numbers them, from 0."""
    words = [str(j) for j in js]
    return (
        words[0]
        if len(words) == 1
        else text("list-separator").join(words[:-1]) + text("and") + words[-1]
    )


def _astray(weights):
    """Each token from position 2 on whose largest weight is not two back, alone: "3 → 0",
    "4 → 0, 1 and 2" (the positions holding its largest weight, counted from 0)."""
    found = []
    for i in range(2, weights.shape[0]):
        tops = _tops(weights[i])
        if tops != [i - 2]:
            found.append(f"{i} → {_positions(tops)}")
    return found


def _soft_params(trials):
    w = trials[0].produced
    shares = {i: float(w[i, i - 2]) for i in range(2, w.shape[0])}
    low = min(shares, key=shares.get)
    return {"share": diagnose.below(shares[low]), "at": low, "asked": TWO_BACK_SHARE}


two_back_head = DesignExercise(
    "ch7-design-two-back",
    (two_head_example().x,),
    _position_head_weights,
    _two_back,
    shape=(5, 5),
    diagnoses=[
        _head("uniform", lambda w: np.allclose(w, w[:, :1])),
        _head("previous-token", lambda w: _looks(w, 1)),
        _head("itself", lambda w: _looks(w, 0)),
        _head("looks-ahead", lambda w: all(_tops(w[i]) == [i + 2] for i in range(w.shape[0] - 2))),
        Diagnosis("too-soft", lambda trials: _looks(trials[0].produced, 2), params=_soft_params),
        Diagnosis(
            "tokens-astray",
            lambda trials: bool(_astray(trials[0].produced)),
            params=lambda trials: {
                "tokens": text("place-separator").join(_astray(trials[0].produced))
            },
        ),
    ],
)


EXERCISES = [
    heads_reshape,
    scale_d_model,
    heads_cost,
    two_back_head,
    padding_by_hand,
    key_padding_weights,
    float16_fill,
]
