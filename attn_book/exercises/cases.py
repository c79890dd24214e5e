"""Case generators: the regimes the book teaches, for every write-the-function checker.

An exercise's own cases (the worked example, the chapter's sentence) say "this is the
example you know"; these say "and on every input the chapter promises". Each generator is
seeded, small (a check stays far inside its time limit) and documented by the passage of
the book it comes from:

- :func:`leads` — "any batch" (chapter 1's ``...``): no leading axis, a batch of 1 (a
  ``squeeze`` that drops it shows), a batch of 2, and two leading axes (batch × heads).
- :func:`sizes` — no two axes a slip could swap are equal (chapter 1's shapes table:
  L queries, S keys, d_k, d_v all different), so reading the wrong axis changes the shape.
- :func:`spread_scores` — chapter 2's overflow: one row whose scores spread by more than
  709 (``e^x`` overflows past 709.78), one row entirely below −745 (``e^x`` underflows to 0
  below −745.13), and two rows far apart, so that only a shift by *each row's own maximum*
  survives (not the mean, the minimum, the first score, 0, or one maximum for the array).
- :func:`qk_for_scores` — the same regimes reached through queries and keys: ``q`` and ``k``
  whose scaled scores are exactly a given table (chapter 3's ``q·k/√d_k``).
- :func:`hidden_top_mask` — chapter 2's masking: a hidden key with the row's highest
  score (a maximum taken over hidden keys underflows the visible ones) and a fully
  masked row (the chapter's "all zeros, no NaN").
- :func:`positions` — chapter 6: positions that do not start at 0, are not consecutive,
  and are negative (RoPE is defined for any integer position).

Labels come from the catalog (``engine/case-*``), so a Korean kernel names the case in Korean.

Examples
--------
>>> [lead for lead, _ in leads()]
[(), (1,), (2,), (2, 3)]
>>> s = spread_scores()
>>> float(np.ptp(s[0])) > 709, bool((s[3] < -745).all())
(True, True)
>>> q, k = qk_for_scores(s, d=7)
>>> bool(np.allclose(q @ k.T / np.sqrt(7), s))
True
"""

from __future__ import annotations

import numpy as np

from .catalog import text
from .records import Case

__all__ = [
    "case",
    "hidden_low_mask",
    "hidden_top_mask",
    "leads",
    "positions",
    "qk_for_scores",
    "qkv_cases",
    "self_attention_cases",
    "sizes",
    "spread_qkv_cases",
    "spread_scores",
]

# One row spread by 1800 with its maximum neither first nor last: overflow for any shift
# but the row's own maximum (the mean, -50.75, leaves 850.75 > 709; the minimum 1800; the
# first score 1800; zero 800). One row entirely below -745 (zero as the shift gives 0/0).
SPREAD_ROW = (-1000.0, 0.0, 800.0, -3.0, 2.0)
NEGATIVE_ROW = (-1000.0, -1001.0, -1003.0, -1002.0, -1000.5)
# The same spread with its maximum last, then first: a maximum over all keys but the last (or
# the first) is 798 short of the real one, and e^798 overflows.
SPREAD_LAST = (-3.0, 0.0, -1000.0, 2.0, 800.0)
SPREAD_FIRST = (800.0, 2.0, -1000.0, 0.0, -3.0)


def lead_words(lead):
    """The leading axes as the start of a case's label ("a batch of 2, ")."""
    if not lead:
        return ""
    if len(lead) == 1:
        return text("case-lead-batch", n=lead[0])
    return text("case-lead-axes", shape=" × ".join(map(str, lead)))


def leads():
    """``(lead, words)`` for no leading axis, a batch of 1, of 2, and batch × heads (2, 3)."""
    return [(lead, lead_words(lead)) for lead in [(), (1,), (2,), (2, 3)]]


def sizes(lead=()):
    """L, S, d_k, d_v: four different sizes, none equal to a leading axis."""
    taken = set(lead)
    free = [n for n in range(4, 20) if n not in taken]
    return free[0], free[1], free[2], free[3]


def case(key, args, *, lead=(), **words):
    """A :class:`Case` labelled by the catalog's ``engine/case-<key>``, with its leading axes."""
    label = lead_words(lead) + text(f"case-{key}", **words)
    return Case(label, tuple(args), batched=bool(lead), translated=True)


def spread_scores():
    """(6, 5) scores: the spread row (its maximum inside, last, first), the very negative
    row, and two rows 800 apart."""
    # the second row's maximum is below 0 and its own spread 801: a shift by the maximum only
    # when it is above 0 (else by the minimum) overflows there
    apart = [[0.0, 1.0, 2.0, 0.5, 1.5], [-800.0, -801.0, -799.0, -800.5, -1600.0]]
    return np.array([SPREAD_ROW, SPREAD_LAST, SPREAD_FIRST, NEGATIVE_ROW, *apart])


def qk_for_scores(scores, d, *, scaled=True, rng=None):
    """``q`` (..., L, d) and ``k`` (..., S, d) whose scores ``q kᵀ (/√d)`` are ``scores``.

    Query l is √d (or 1) on axis l and 0 elsewhere; key s holds column s of the scores on
    the first L axes and random numbers on the others, which no query sees. Needs d > L.
    """
    scores = np.asarray(scores, dtype=float)
    *lead, L, S = scores.shape
    if d <= L:
        raise ValueError(f"d must exceed the {L} queries, got d = {d}")
    rng = rng or np.random.default_rng(0)
    q = np.zeros((*lead, L, d))
    q[..., np.arange(L), np.arange(L)] = np.sqrt(d) if scaled else 1.0
    k = rng.normal(size=(*lead, S, d))
    k[..., :, :L] = np.swapaxes(scores, -1, -2)
    return q, k


def hidden_low_mask(scores):
    """A mask that hides each row's lowest score only: the visible maximum stays where the
    scores put it (first, inside, last), and no row is fully masked."""
    scores = np.asarray(scores)
    mask = np.ones(scores.shape, dtype=bool)
    np.put_along_axis(mask, scores.argmin(axis=-1)[..., None], False, axis=-1)
    return mask


def hidden_top_mask(scores):
    """A mask (True = may attend) for ``scores`` (..., L, S): in every row but the last the
    highest score is hidden; the last row is hidden entirely."""
    scores = np.asarray(scores)
    top = scores.argmax(axis=-1)
    mask = np.ones(scores.shape, dtype=bool)
    np.put_along_axis(mask, top[..., None], False, axis=-1)
    mask[..., -1, :] = False
    return mask


def positions(n):
    """Five position vectors of length ``n``: shifted, spaced out, negative, out of order
    (decreasing), and fractional (position interpolation's 0.25 steps, chapter 6)."""
    start = np.arange(n)
    return [start + 7, 3 * start + 2, start - n - 4, 2 * (n - start) + 1, 0.25 * start + 0.5]


def qkv_cases(rng, n=3, *, float32=True, square=False):
    """Random ``(q, k, v)[:n]`` at every leading shape of :func:`leads`, sizes all different,
    and (``float32``) once in float32: ``q`` (..., L, d_k), ``k`` (..., S, d_k), ``v``
    (..., S, d_v)."""
    found = []
    for lead, _ in leads():
        L, S, d, dv = sizes(lead)
        S = L if square else S
        arrays = [rng.normal(size=(*lead, m, e)) for m, e in ((L, d), (S, d), (S, dv))][:n]
        key = "sizes-v" if n == 3 else "sizes"
        found.append(case(key, arrays, lead=lead, L=L, S=S, d=d, dv=dv))
    if float32:
        L, S, d, dv = sizes()
        S = L if square else S
        arrays = [rng.normal(size=s).astype(np.float32) for s in ((L, d), (S, d), (S, dv))][:n]
        found.append(case("float32", arrays, L=L, S=S))
    return found


def square_spread_scores():
    """(6, 6) scores for self-attention: :func:`spread_scores` and one more key."""
    key = [1.0, -2.0, 0.5, -1001.0, 0.7, -800.2]
    return np.insert(spread_scores(), 2, key, axis=1)  # in the middle: the first and last stay


def spread_qkv_cases(rng, n=3, *, scaled=True, square=False):
    """``(q, k, v)[:n]`` whose scores are :func:`spread_scores` (``square``: as many queries
    as keys), alone and in a batch of 2."""
    scores = square_spread_scores() if square else spread_scores()
    found = []
    for lead in [(), (2,)]:
        table = np.broadcast_to(scores, (*lead, *scores.shape))
        if lead:
            table = np.stack([scores, -scores[::-1]])
        q, k = qk_for_scores(table, d=7, scaled=scaled, rng=rng)
        v = rng.normal(size=(*lead, scores.shape[-1], 3))
        found.append(case("spread", [q, k, v][:n], lead=lead))
    return found


def self_attention_cases(rng):
    """``(X, W_Q, W_K, W_V)`` at every leading shape (n tokens, d_model, d_k, d_v all
    different), and one whose scores are a square :func:`spread_scores`: X is q and k side by
    side, W_Q and W_K pick them out."""
    found = []
    for lead, _ in leads():
        n, D, d, dv = sizes(lead)
        args = [
            rng.normal(size=(*lead, n, D)),
            *rng.normal(size=(2, D, d)),
            rng.normal(size=(D, dv)),
        ]
        found.append(case("tokens", args, lead=lead, n=n, D=D, d=d, dv=dv))
    q, k = qk_for_scores(square_spread_scores(), d=7, rng=rng)
    eye, zero = np.eye(7), np.zeros((7, 7))
    found.append(
        case(
            "spread",
            [
                np.hstack([q, k]),
                np.vstack([eye, zero]),
                np.vstack([zero, eye]),
                rng.normal(size=(14, 3)),
            ],
        )
    )
    return found
