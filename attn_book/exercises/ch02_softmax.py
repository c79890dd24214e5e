"""Chapter 2's exercises: softmax (소프트맥스).

Its find-the-bug exercises: :data:`mask_fully_masked` (masking with -1e9, and a
fully masked row) and :data:`softmax_wrong_axis` (normalised over the wrong axis).

Examples
--------
>>> shift_by_hand.check([0.576, 0.212, 0.212]).ok
True
>>> my_softmax.check(lambda s: np.exp(s) / np.exp(s).sum(-1, keepdims=True)).diagnosis
'nan-large-scores'
>>> round(float(temperature_for_ratio.expected()), 3)  # T = (2 - 1) / ln 2
1.443
>>> cross_entropy_gradient.check([0.5, -0.75, 0.25]).ok
True
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac

from . import cases, diagnose
from .kinds import BugExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis

_SOFTMAX = ac.softmax  # the references' own (a call from attn_book is never the reader's)


_SHIFTED = np.array([101.0, 100.0, 100.0])

shift_by_hand = NumberExercise(
    "ch2-shift-by-hand",
    (_SHIFTED,),
    ac.softmax,
    diagnoses=[
        diagnose.matches("near-uniform", lambda s: np.full_like(s, 1 / s.size)),
        diagnose.matches("near-uniform", lambda s: s / s.sum()),  # the scores over their sum
        diagnose.matches("exp-wrong-sign", lambda s: ac.softmax(s.max() - s)),
        diagnose.matches("exp-not-normalised", lambda s: np.exp(s - s.max())),
        diagnose.matches("saturated", lambda s: (s == s.max()).astype(float)),
    ],
)


def _softmax_cases():
    r = np.random.default_rng(21)
    return [
        Case("the worked example's scores 1, 0, 1", (np.array([1.0, 0.0, 1.0]),)),
        Case("3 queries, 5 keys", (r.normal(size=(3, 5)),)),
        Case("huge scores, 1000 and up", (np.array([[1000.0, 999.0, 1000.0]]),)),
        Case("very negative scores", (np.array([[-1000.0, -1001.0, -1003.0]]),)),
        Case("a spread-out row, 0 and 800", (np.array([[0.0, 800.0]]),)),
        Case(
            "two rows far apart, [0, 1] and [-800, -801]", (np.array([[0.0, 1.0], [-800, -801]]),)
        ),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(0, 3, size=(2, 3, 4)),), batched=True),
        *_score_cases(r),
    ]


def _score_cases(r):
    """Scores at every leading shape, in float32, and spread past e^x's range."""
    found = [
        cases.case("scores", [r.normal(0, 3, size=(*lead, L, S))], lead=lead, L=L, S=S)
        for lead, _ in cases.leads()
        for L, S, _, _ in [cases.sizes(lead)]
    ]
    found.append(cases.case("float32", [r.normal(size=(3, 5)).astype(np.float32)], L=3, S=5))
    spread = cases.spread_scores()
    found.append(cases.case("spread", [spread]))
    found.append(cases.case("spread", [np.stack([spread, -spread[::-1]])], lead=(2,)))
    return found


def _minus_row_min(s):
    """The slip: each row's minimum subtracted; a spread-out row still overflows."""
    e = np.exp(s - s.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _minus_global_max(s):
    """The slip: one maximum for the whole array; a row far below it underflows to 0/0."""
    e = np.exp(s - s.max())
    return e / e.sum(axis=-1, keepdims=True)


my_softmax = FunctionExercise(
    "ch2-my-softmax",
    ac.softmax,
    _softmax_cases,
    own="used-ac-softmax",  # "with plain NumPy (no ac.softmax)"
    diagnoses=[
        diagnose.lost_axis(),
        diagnose.matches("subtracted-row-min", _minus_row_min, equal_nan=True),
        diagnose.matches("global-max", _minus_global_max, equal_nan=True),
        diagnose.nan_for_large_scores(),
        diagnose.matches("no-exp", lambda s: s / s.sum(axis=-1, keepdims=True)),
        diagnose.rows_not_normalised(),
    ],
)

# ---------------------------------------- the temperature for a given ratio (chapter 2)

_S_TEMP = np.array([2.0, 1.0, 0.5])
_RATIO = 2.0


def _temperature_for_ratio(scores, ratio):
    """T with w_1 / w_2 = ratio: e^{(s_1 - s_2)/T} = ratio, so T = (s_1 - s_2) / ln ratio."""
    return (scores[0] - scores[1]) / math.log(ratio)


temperature_for_ratio = NumberExercise(
    "ch2-temperature-for-ratio",
    (_S_TEMP, _RATIO),
    _temperature_for_ratio,
    diagnoses=[
        diagnose.matches("temperature-inverted", lambda s, r: math.log(r) / (s[0] - s[1])),
        diagnose.matches("wrong-pair", lambda s, r: (s[0] - s[2]) / math.log(r)),
        diagnose.matches("log-base-10", lambda s, r: (s[0] - s[1]) / math.log10(r)),
        diagnose.matches("ratio-is-not-temperature", lambda s, r: r),
        diagnose.factor(-1.0, "negative-temperature"),
    ],
)


# ------------------------------------ the gradient of softmax + cross-entropy (chapter 2)

_S_CE = np.array([math.log(2.0), 0.0, 0.0])  # weights 1/2, 1/4, 1/4
_TARGET = 1  # the second key (index 1) is the right one


def _one_hot(n, c):
    return np.eye(n)[c]


def _ce_gradient(scores, target):
    """∂(−log w_c)/∂s = w − y: softmax followed by the cross-entropy of class ``target``."""
    return ac.softmax(scores) - _one_hot(len(scores), target)


cross_entropy_gradient = NumberExercise(
    "ch2-cross-entropy-gradient",
    (_S_CE, _TARGET),
    _ce_gradient,
    diagnoses=[
        diagnose.factor(-1.0, "target-minus-weights"),
        diagnose.matches("weights-only", lambda s, c: ac.softmax(s)),
        diagnose.matches(
            "gradient-of-the-weight", lambda s, c: ac.softmax_jacobian(ac.softmax(s))[:, c]
        ),
        diagnose.matches(
            "largest-as-target", lambda s, c: ac.softmax(s) - _one_hot(len(s), int(np.argmax(s)))
        ),
        diagnose.matches(  # the -1 on any other key (the first is the one above)
            "target-on-another-key",
            *[lambda s, c, j=j: ac.softmax(s) - _one_hot(len(s), j) for j in range(len(_S_CE))],
        ),
    ],
)


# ---------------------------------------------------- -1e9 and a fully masked row (chapter 2)


def masked_weights(scores, mask):
    """Softmax over the keys of scores (..., L, S).

    mask (True = may attend) hides keys.
    """
    # a very negative score for a hidden key
    scores = np.where(mask, scores, -1e9)
    return ac.softmax(scores, axis=-1)


def _masked_reference(scores, mask):
    return _SOFTMAX(np.where(mask, scores, -np.inf), axis=-1)


def _mask_cases():
    r = np.random.default_rng(2)
    pad = ac.padding_mask([3, 0], 3)  # (2, 1, 3): the second sequence is all padding
    return [
        Case("one row, key 2 masked", (r.normal(size=(1, 3)), np.array([[True, False, True]]))),
        Case(
            "second row fully masked",
            (r.normal(size=(2, 3)), np.array([[1, 1, 0], [0, 0, 0]], bool)),
        ),
        Case("batch of 2, one all padding", (r.normal(size=(2, 2, 3)), pad), batched=True),
        *_hidden_top_cases(r),
    ]


def _hidden_top_cases(r):
    """Spread scores whose highest is hidden, a fully masked row, at every leading shape."""
    spread = cases.spread_scores()
    found = [
        cases.case("hidden-top", [spread, cases.hidden_top_mask(spread)]),
        cases.case("spread", [spread, cases.hidden_low_mask(spread)]),  # the visible max last
        # visible scores spread by 3600: a shift by their mean or midpoint overflows too
        cases.case("spread", [2 * spread, cases.hidden_low_mask(spread)]),
        # visible maximum below 0, visible spread 1799: a shift by the minimum overflows
        cases.case(
            "spread", [np.array([[-1000.0, -1.0, -1800.0, -3.0]]), np.array([[1, 1, 1, 0]], bool)]
        ),
    ]
    for lead, _ in cases.leads()[1:]:
        L, S, _, _ = cases.sizes(lead)
        scores = r.normal(0, 3, size=(*lead, L, S))
        found.append(cases.case("hidden-top", [scores, cases.hidden_top_mask(scores)], lead=lead))
    return found


def _nan_in_masked_row():
    """NaN exactly in the fully masked rows, and the answer right everywhere else."""

    def test(trials):
        found = False
        for t in trials:
            if t.ok:
                continue
            if t.got is None or t.got.shape != t.expected.shape:
                return False
            rows = diagnose.masked_rows(t)
            nan_rows = np.isnan(t.got).any(axis=-1)
            if not nan_rows.any() or (nan_rows & ~rows).any():
                return False
            if not np.allclose(t.got[~rows], t.expected[~rows], rtol=t.rtol, atol=t.atol):
                return False
            found = True
        return found

    return Diagnosis("nan-masked-row", test)


mask_fully_masked = BugExercise(
    "bug-mask-fully-masked",
    masked_weights,
    _masked_reference,
    _mask_cases,
    bug="masked-row-uniform",
    own="used-ac-softmax",
    diagnoses=[
        _nan_in_masked_row(),
        diagnose.masked_key_weighted(),
        diagnose.hidden_key_weighted(),
        diagnose.matches(
            "zeroed-not-renormalised", lambda s, m: np.where(m, ac.softmax(s, axis=-1), 0.0)
        ),
        diagnose.masked_row_uniform(),
    ],
)


# ----------------------------------------------------------- softmax over the wrong axis (ch 2)


def softmax_rows(scores):
    """Weights (..., L, S): softmax over the keys (the last axis)."""
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _max_over_columns(scores):
    """The bug half fixed: the sum over the keys, the max still over axis 0."""
    with np.errstate(all="ignore"):  # the huge case underflows to 0 / 0
        e = np.exp(scores - scores.max(axis=0, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def _bug_softmax_cases():
    r = np.random.default_rng(3)
    return [
        Case("3 queries, 4 keys", (r.normal(size=(3, 4)),)),
        Case(
            "huge scores, ±1000", (np.array([[1000.0, 998.0, -5.0], [-1000.0, -1001.0, -1002.0]]),)
        ),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(size=(2, 3, 4)),), batched=True),
        *_score_cases(r),
    ]


softmax_wrong_axis = BugExercise(
    "bug-softmax-wrong-axis",
    softmax_rows,
    ac.softmax,
    _bug_softmax_cases,
    bug="wrong-axis",
    diagnoses=[
        diagnose.matches("wrong-axis", lambda s: ac.softmax(s, axis=0)),
        diagnose.matches("max-wrong-axis", _max_over_columns, equal_nan=True),
        diagnose.lost_axis(),
        diagnose.nan_for_large_scores(),
        diagnose.rows_not_normalised(),
    ],
    # the buggy code with axis=-1
)


EXERCISES = [
    shift_by_hand,
    temperature_for_ratio,
    cross_entropy_gradient,
    my_softmax,
    mask_fully_masked,
    softmax_wrong_axis,
]
