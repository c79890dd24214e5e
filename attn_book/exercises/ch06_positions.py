"""Chapter 6's exercises: positions by hand, RoPE's relative score, ALiBi, a ported model.

A sinusoidal encoding and a rotated vector by hand; the RoPE score written as a function
of the offset alone (the proof, checked against ``attn_core.rotary`` at many positions);
a prediction about "one word before" and "one word after"; ALiBi weights on a short row;
and the real bug of a ported model: weights trained with the split-halves RoPE layout,
rotated with the interleaved one. And position interpolation written as a function (Hugging
Face's ``rope_type: "linear"``): the positions divided by the factor, not multiplied, not the
base changed.

Examples
--------
>>> rope_relative.check(lambda q, k, offset: 0.0).ok
False
>>> rope_layout.check(rope_layout.buggy).diagnosis
'layout-mismatch'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac

from . import cases as _cases
from . import diagnose
from .kinds import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis

# --- a sinusoidal encoding by hand ------------------------------------------------------------

_P, _D = 3, 4  # the encoding of position 3 at width 4


def _encoding(p, d):
    """The right answer: row p of attn_core's sinusoidal encodings."""
    return ac.sinusoidal_positions(int(p) + 1, int(d))[int(p)]


def _pairs(p, d, omega, trig=(np.sin, np.cos)):
    """(trig₀(p ω_i), trig₁(p ω_i)) for each pair i: the formula with a slip in ω or the order."""
    angles = p * np.asarray(omega, dtype=float)
    return np.ravel(np.column_stack([trig[0](angles), trig[1](angles)]))[: int(d)]


_OMEGA = ac.rotary_frequencies(_D)  # 10000^(-2i/d): the same frequencies


def _concatenated(p, d):
    """The other layout (tensor2tensor's): all the sines first, then all the cosines."""
    angles = p * _OMEGA
    return np.concatenate([np.sin(angles), np.cos(angles)])[: int(d)]


sin_by_hand = NumberExercise(
    "ch6-sin-by-hand",
    (_P, _D),
    _encoding,
    diagnoses=[
        diagnose.matches("sin-cos-swapped", lambda p, d: _pairs(p, d, _OMEGA, (np.cos, np.sin))),
        diagnose.matches("degrees", lambda p, d: _pairs(p, d, np.radians(_OMEGA))),
        diagnose.matches(
            "exponent-i-over-d", lambda p, d: _pairs(p, d, 10_000.0 ** (-np.arange(d // 2) / d))
        ),
        diagnose.matches("concatenated-layout", _concatenated),
        diagnose.matches("omega-without-d", lambda p, d: _pairs(p, d, [1.0, 1e-4])),
        diagnose.matches("counted-from-1", lambda p, d: _encoding(p + 1, d)),
    ],
)

# --- a rotated vector by hand ------------------------------------------------------------------

_K = np.array([2.0, 1.0])
_N = 3


def _turn(v, angle):
    """R(angle) v, by attn_core.rotary (d = 2, θ = 1 radian: the angle is the position)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


rope_rotate = NumberExercise(
    "ch6-rope-rotate",
    (_K, _N),
    lambda k, n: ac.rotary(np.asarray(k)[None], [n])[0],
    diagnoses=[
        diagnose.matches("turned-backwards", lambda k, n: _turn(k, -n)),
        diagnose.matches("degrees", lambda k, n: _turn(k, math.radians(n))),
        diagnose.matches("turned-by-theta", lambda k, n: _turn(k, 1.0)),
        diagnose.matches("not-turned", lambda k, n: np.asarray(k, dtype=float)),
        diagnose.matches(
            "sin-cos-swapped",
            lambda k, n: np.array(
                [math.sin(n) * k[0] - math.cos(n) * k[1], math.cos(n) * k[0] + math.sin(n) * k[1]]
            ),
        ),
    ],
)

# --- the proof: the score depends on n − m alone ----------------------------------------------

_M = 7  # any query position gives the same score for a given offset: that is the claim


def _rotated_score(q, k, offset):
    """q_m · k_n with n = m + offset, by attn_core.rotary (d = 2, θ = 1); q, k (..., 2)."""
    m = _M  # n = m + offset may be negative: RoPE turns by a negative angle then
    q_m = ac.rotary(np.asarray(q, dtype=float)[..., None, :], [m])[..., 0, :]  # [..., 2]
    k_n = ac.rotary(np.asarray(k, dtype=float)[..., None, :], [m + offset])[..., 0, :]
    return (q_m * k_n).sum(axis=-1)  # [...]


def _relative_score(q, k, offset):
    """The answer, (q·k) cos φ + (q₂k₁ − q₁k₂) sin φ with φ = offset · θ, θ = 1; q, k (..., 2)."""
    phi = offset * 1.0
    dot = q[..., 0] * k[..., 0] + q[..., 1] * k[..., 1]
    cross = q[..., 1] * k[..., 0] - q[..., 0] * k[..., 1]
    return dot * math.cos(phi) + cross * math.sin(phi)


def _dot(q, k):
    return (q * k).sum(axis=-1)  # q·k over the last axis: [...]


def _relative_cases():
    r = np.random.default_rng(61)
    cases = [
        Case(
            "the worked example, q = (1, 0), k = (0, 1), n − m = 1",
            (np.array([1.0, 0.0]), np.array([0.0, 1.0]), 1),
        ),
        Case(
            "q = (1, 0), k = (1, 1), n − m = −2", (np.array([1.0, 0.0]), np.array([1.0, 1.0]), -2)
        ),
        Case("same position, n − m = 0", (np.array([0.5, -1.0]), np.array([2.0, 0.5]), 0)),
    ]
    for offset in (3, -5, 11):
        cases.append(
            Case(f"random q, k, n − m = {offset}", (r.normal(size=2), r.normal(size=2), offset))
        )
    q, k = r.normal(size=(2, 4, 2))  # four pairs at once
    cases.append(Case("4 (q, k) pairs, shape (4, 2), n − m = 2", (q, k, 2), batched=True))
    for (lead, _), offset in zip(_cases.leads()[1:], (-7, 4, -1), strict=True):
        q, k = r.normal(size=(2, *lead, 2))
        cases.append(_cases.case("pairs", [q, k, offset], lead=lead, offset=offset))
    return cases


rope_relative = FunctionExercise(
    "ch6-rope-relative",
    _rotated_score,
    _relative_cases,
    diagnoses=[
        diagnose.matches("offset-sign", lambda q, k, offset: _relative_score(q, k, -offset)),
        diagnose.matches("plain-dot", lambda q, k, offset: _dot(q, k)),
        diagnose.matches("cosine-term-only", lambda q, k, offset: _dot(q, k) * math.cos(offset)),
        diagnose.matches(
            "divided-by-root-d", lambda q, k, offset: _relative_score(q, k, offset) / math.sqrt(2)
        ),
    ],
)

# --- predict: one word before, one word after ---------------------------------------------------

rope_before_after = ChoiceExercise(
    "ch6-rope-before-after", options=["same", "different"], answer="different"
)

# --- ALiBi weights on a short row ---------------------------------------------------------------

_ALIBI_SCORES = np.array([1.0, 0.0, 0.0, 1.0])  # the newest word's scaled content scores
_ALIBI_HEADS = 8
_ALIBI_HEAD = 2  # head 2 of 8: slope 1/4


def _alibi_row(scores, n_heads, head):
    """softmax(scores + the ALiBi bias of ``head`` for the newest of len(scores) words)."""
    bias = ac.alibi_bias(int(n_heads), 1, len(scores))[int(head) - 1, 0]  # [S]
    return ac.softmax(np.asarray(scores, dtype=float) + bias)


def _alibi_with(scores, n_heads, head, bias_of):
    slope = ac.alibi_slopes(int(n_heads))[int(head) - 1]
    distance = np.arange(len(scores))[::-1]  # S − 1, …, 1, 0: from the newest word
    return ac.softmax(np.asarray(scores, dtype=float) + bias_of(slope, distance))


alibi_weights = NumberExercise(
    "ch6-alibi-weights",
    (_ALIBI_SCORES, _ALIBI_HEADS, _ALIBI_HEAD),
    _alibi_row,
    # A pencil writes the four exponentials to three decimals before dividing: that moves a
    # weight by up to 0.04 units beyond its own rounding (0.54 units in all, tests/
    # test_exercises.py, PENCILS), so 0.6 units.
    band=0.6,
    diagnoses=[
        diagnose.matches(
            "bias-sign", lambda s, h, head: _alibi_with(s, h, head, lambda m, d: +m * d)
        ),
        diagnose.matches("no-bias", lambda s, h, head: ac.softmax(np.asarray(s, dtype=float))),
        *[  # another head's slope, whichever
            diagnose.matches("wrong-slope", lambda s, h, head, other=other: _alibi_row(s, h, other))
            for other in range(1, _ALIBI_HEADS + 1)
            if other != _ALIBI_HEAD
        ],
        diagnose.matches(
            "scores-not-weights",
            lambda s, h, head: (
                np.asarray(s, dtype=float) + ac.alibi_bias(int(h), 1, len(s))[int(head) - 1, 0]
            ),
        ),
    ],
)

# --- find the bug: a ported model's RoPE layout ------------------------------------------------


def ported_scores(x, w_q, w_k, positions):
    """RoPE scores of a model whose W_Q, W_K were trained with the split-halves layout.

    x (..., n, D), w_q and w_k (D, d) with d even, positions (n,) -> scores (..., n, n).
    """
    q = ac.rotary(x @ w_q, positions)  # [..., n, D] @ [D, d] -> [..., n, d], turned
    k = ac.rotary(x @ w_k, positions)  # [..., n, d]
    k_t = np.swapaxes(k, -1, -2)  # [..., d, n]
    return q @ k_t / np.sqrt(q.shape[-1])  # [..., n, n]


def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # [..., n, n]


def _halves_scores(x, w_q, w_k, positions):
    """The reference: the layout the weights were trained with."""
    q = ac.rotary(x @ w_q, positions, layout="halves")
    return _scores(q, ac.rotary(x @ w_k, positions, layout="halves"))


def _interleaved_scores(x, w_q, w_k, positions):
    """The bug, recomputed: the interleaved layout on halves-trained weights."""
    return _scores(ac.rotary(x @ w_q, positions), ac.rotary(x @ w_k, positions))


def _backwards_conversion(x, w_q, w_k, positions):
    """The fix's own slip: the weights converted the wrong way, then rotated interleaved."""
    wq, wk = ac.interleaved_to_halves(w_q), ac.interleaved_to_halves(w_k)
    return _interleaved_scores(x, wq, wk, positions)


def _half_fixed(x, w_q, w_k, positions):
    """The fix on one side only: the queries in halves, the keys still interleaved."""
    q = ac.rotary(x @ w_q, positions, layout="halves")
    return _scores(q, ac.rotary(x @ w_k, positions))


def _half_fixed_keys(x, w_q, w_k, positions):
    """The fix on the other side only: the keys in halves, the queries still interleaved."""
    k = ac.rotary(x @ w_k, positions, layout="halves")
    return _scores(ac.rotary(x @ w_q, positions), k)


def _unrotated_scores(x, w_q, w_k, positions):
    return _scores(x @ w_q, x @ w_k)


def _layout_cases():
    r = np.random.default_rng(62)
    cases = []
    for n, D, d in [(4, 6, 4), (5, 8, 8), (6, 4, 12)]:
        x, w_q, w_k = r.normal(size=(n, D)), r.normal(size=(D, d)), r.normal(size=(D, d))
        cases.append(Case(f"{n} words, D = {D}, d = {d}", (x, w_q, w_k, np.arange(n))))
    x, w_q, w_k = r.normal(size=(3, 4)), r.normal(size=(4, 8)), r.normal(size=(4, 8))
    cases.append(Case("3 words at positions 10, 11, 12", (x, w_q, w_k, np.array([10, 11, 12]))))
    x, w_q, w_k = r.normal(size=(2, 5, 6)), r.normal(size=(6, 8)), r.normal(size=(6, 8))
    cases.append(Case("2 sentences of 5 words", (x, w_q, w_k, np.arange(5)), batched=True))
    for (lead, _), where in zip([*_cases.leads(), ((), "")], range(5), strict=True):
        n, D, d, _ = _cases.sizes(lead)
        d += d % 2  # RoPE rotates pairs
        pos = _cases.positions(n)[where]
        x, w_q, w_k = r.normal(size=(*lead, n, D)), r.normal(size=(D, d)), r.normal(size=(D, d))
        cases.append(
            _cases.case("positions", [x, w_q, w_k, pos], lead=lead, n=n, positions=pos.tolist())
        )
    return cases


rope_layout = BugExercise(
    "ch6-rope-bug-layout",
    ported_scores,
    _halves_scores,
    _layout_cases,
    bug="layout-mismatch",
    diagnoses=[
        diagnose.matches("layout-mismatch", _interleaved_scores),
        diagnose.matches("conversion-backwards", _backwards_conversion),
        Diagnosis(
            "one-side-fixed",
            lambda trials: any(
                t.matches(_half_fixed(*t.case.args)) or t.matches(_half_fixed_keys(*t.case.args))
                for t in trials
                if not t.ok
            ),
        ),
        diagnose.matches("no-rotation", _unrotated_scores),
    ],
)

# --- write the function: position interpolation (rope_type "linear") -----------------------------


def _interpolated(x, positions, factor):
    """RoPE with position interpolation: position m turned as m / factor."""
    return ac.rotary(x, np.asarray(positions, dtype=float) / factor)


def _interpolation_cases():
    """The chapter's stretch (64 positions of a head trained on 16, factor 4), every leading
    shape with n and d different, the generated positions (shifted, spaced, negative,
    decreasing, fractional) at factors 2.5 and 8, and float32."""
    r = np.random.default_rng(64)
    found = [Case("64 positions, d = 8, factor 4", (r.normal(size=(64, 8)), np.arange(64), 4.0))]
    for lead, _ in _cases.leads():
        n, half_d, _, _ = _cases.sizes(lead)
        pos = np.arange(n) + 3
        args = [r.normal(size=(*lead, n, 2 * half_d)), pos, 2.0]
        words = {"n": n, "first": pos[0], "last": pos[-1], "d": 2 * half_d, "factor": 2}
        found.append(_cases.case("interpolation", args, lead=lead, **words))
    for pos, factor in zip(_cases.positions(5), (2.5, 8.0, 2.5, 8.0, 2.5), strict=True):
        args = [r.normal(size=(5, 6)), pos, factor]
        words = {"n": 5, "positions": pos.tolist(), "factor": factor}
        found.append(_cases.case("interpolation-at", args, **words))
    args = [r.normal(size=(6, 4)).astype(np.float32), np.arange(6) * 5, 4.0]
    found.append(_cases.case("interpolation-float32", args, n=6, d=4, factor=4))
    return found


rope_interpolation = FunctionExercise(
    "ch6-rope-interpolation",
    _interpolated,
    _interpolation_cases,
    diagnoses=[
        diagnose.matches("not-scaled", lambda x, p, s: ac.rotary(x, p)),
        diagnose.matches("positions-multiplied", lambda x, p, s: ac.rotary(x, np.asarray(p) * s)),
        diagnose.matches("base-multiplied", lambda x, p, s: ac.rotary(x, p, base=10_000 * s)),
        diagnose.matches(
            "ntk-base",
            lambda x, p, s: ac.rotary(x, p, base=10_000 * s ** (x.shape[-1] / (x.shape[-1] - 2))),
        ),
    ],
)


EXERCISES = [
    sin_by_hand,
    rope_rotate,
    rope_relative,
    rope_before_after,
    alibi_weights,
    rope_layout,
    rope_interpolation,
]
