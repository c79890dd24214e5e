"""Chapter 2's exercises: softmax (소프트맥스).

Its find-the-bug exercises: :data:`mask_fully_masked` (masking with -1e9, and a
fully masked row) and :data:`softmax_wrong_axis` (normalised over the wrong axis).

Examples
--------
>>> shift_by_hand.check([0.576, 0.212, 0.212]).ok
True
>>> my_softmax.check(lambda s: np.exp(s) / np.exp(s).sum(-1, keepdims=True)).diagnosis
'nan-large-scores'
>>> double_the_scores.check(" Up").ok  # case and spaces do not matter
True
"""

from __future__ import annotations

import numpy as np

import attn_core as ac

from . import diagnose
from ._core import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis, Mistake

__all__ = [
    "EXERCISES",
    "double_the_scores",
    "mask_fully_masked",
    "my_softmax",
    "shift_by_hand",
    "softmax_wrong_axis",
]


_SHIFTED = np.array([101.0, 100.0, 100.0])

shift_by_hand = NumberExercise(
    "ch2-shift-by-hand",
    "softmax of large scores, by hand",
    (_SHIFTED,),
    ac.softmax,
    diagnoses=[
        diagnose.matches(
            "near-uniform",
            "(nearly) equal weights: but one score is ahead by 1, so its e^s is e times the "
            "others' — softmax divides the *exponentials* by their sum, not the scores.",
            lambda s: np.full_like(s, 1 / s.size),
        ),
        diagnose.matches(
            "exp-wrong-sign",
            "the largest score must get the largest weight: after subtracting the maximum "
            "the exponents are 0 and negative numbers, so use e^-1, not e^+1.",
            lambda s: ac.softmax(s.max() - s),
        ),
        diagnose.matches(
            "exp-not-normalised",
            "these are the exponentials of the shifted scores; divide each by their sum.",
            lambda s: np.exp(s - s.max()),
        ),
        diagnose.matches(
            "saturated",
            "all the weight on the top score would be the arg-max, but softmax is soft: a lead "
            "of 1 makes the top weight only e ≈ 2.718 times each other one. Large scores do "
            "not saturate a softmax; only large gaps between them do.",
            lambda s: (s == s.max()).astype(float),
        ),
    ],
    mistakes=[
        Mistake("scores over their sum", _SHIFTED / _SHIFTED.sum(), "near-uniform"),
        Mistake("one third each", [1 / 3, 1 / 3, 1 / 3], "near-uniform"),
        Mistake("e^+1 instead of e^-1", [0.155, 0.422, 0.422], "exp-wrong-sign"),
        Mistake("e^0 and e^-1, not divided", [1.0, np.exp(-1), np.exp(-1)], "exp-not-normalised"),
        Mistake("all the weight on the top score", [1.0, 0.0, 0.0], "saturated"),
        Mistake("the top weight alone", 0.576, "wrong-count"),
        Mistake("a slip in the third decimal", [0.581, 0.212, 0.212], "rounding"),
    ],
    solution=[1 / (1 + 2 / np.e), (1 / np.e) / (1 + 2 / np.e), (1 / np.e) / (1 + 2 / np.e)],
)


def _skeleton(scores):
    raise NotImplementedError


def _stable_softmax(scores):
    """The answer a reader writes: subtract each row's max, exponentiate, divide by the sum."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # every exponent <= 0
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_cases():
    r = np.random.default_rng(21)
    return [
        Case("the seed's scores 1, 0, 1", (np.array([1.0, 0.0, 1.0]),)),
        Case("3 queries, 5 keys", (r.normal(size=(3, 5)),)),
        Case("huge scores, 1000 and up", (np.array([[1000.0, 999.0, 1000.0]]),)),
        Case("very negative scores", (np.array([[-1000.0, -1001.0, -1003.0]]),)),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(0, 3, size=(2, 3, 4)),), batched=True),
    ]


my_softmax = FunctionExercise(
    "ch2-my-softmax",
    "a softmax that does not overflow",
    ac.softmax,
    _softmax_cases,
    diagnoses=[
        diagnose.nan_for_large_scores(),
        diagnose.matches(
            "no-exp",
            "you divided the scores by their sum; softmax divides the *exponentials* by theirs.",
            lambda s: s / s.sum(axis=-1, keepdims=True),
        ),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake(
            "the textbook formula",
            lambda s: np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True),
            "nan-large-scores",
        ),
        Mistake("no exponential", lambda s: s / s.sum(axis=-1, keepdims=True), "no-exp"),
        Mistake(
            "max and sum over the whole array",
            lambda s: (e := np.exp(s - s.max())) / e.sum(),
            "rows-not-normalised",
        ),
        Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
    ],
    solution=_stable_softmax,
)

double_the_scores = ChoiceExercise(
    "ch2-double-the-scores",
    "double every score",
    options=["up", "down", "same"],
    answer="up",
    why_not={
        "down": "doubling keeps the order, so the top score stays on top — and its lead grows.",
        "same": "that would be true for *adding* a constant; multiplying changes the gaps "
        "between scores, and softmax depends on the gaps.",
    },
    inputs=(np.array([2.0, 1.0, 0.5]),),
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
    return ac.softmax(np.where(mask, scores, -np.inf), axis=-1)


def _naive_masked(scores, mask):
    s = np.where(mask, scores, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # -inf - (-inf) = NaN in a masked row
    return e / e.sum(axis=-1, keepdims=True)


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
    ]


def _nan_in_masked_row():
    def test(trials):
        return any(t.got is not None and np.isnan(t.got).any() for t in trials)

    return Diagnosis(
        "nan-masked-row",
        "NaN in a fully masked row: its max is -inf and -inf - (-inf) is NaN — a row with "
        "nothing to attend to needs its own rule (attn_core gives it zeros).",
        test,
    )


mask_fully_masked = BugExercise(
    "bug-mask-fully-masked",
    "masking keys, even all of them",
    masked_weights,
    _masked_reference,
    _mask_cases,
    bug="masked-row-uniform",
    diagnoses=[
        _nan_in_masked_row(),
        diagnose.masked_key_weighted(),
        diagnose.masked_row_uniform(),
    ],
    mistakes=[
        Mistake("-inf with a hand-made softmax", _naive_masked, "nan-masked-row"),
        Mistake(
            "True taken as 'ignore'",
            lambda s, m: ac.softmax(np.where(m, -np.inf, s)),
            "masked-key-weighted",
        ),
    ],
    solution=_masked_reference,
)


# ----------------------------------------------------------- softmax over the wrong axis (ch 2)


def softmax_rows(scores):
    """Weights (..., L, S): softmax over the keys (the last axis)."""
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _bug_softmax_cases():
    r = np.random.default_rng(3)
    return [
        Case("3 queries, 4 keys", (r.normal(size=(3, 4)),)),
        Case(
            "huge scores, ±1000", (np.array([[1000.0, 998.0, -5.0], [-1000.0, -1001.0, -1002.0]]),)
        ),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(size=(2, 3, 4)),), batched=True),
    ]


softmax_wrong_axis = BugExercise(
    "bug-softmax-wrong-axis",
    "softmax over the keys",
    softmax_rows,
    ac.softmax,
    _bug_softmax_cases,
    bug="wrong-axis",
    diagnoses=[
        diagnose.matches(
            "wrong-axis",
            "your columns sum to 1, not your rows — you normalised over the first axis; "
            "each query's weights run along the keys (the last axis).",
            lambda s: ac.softmax(s, axis=0),
        ),
        diagnose.nan_for_large_scores(),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake(
            "normalised over the whole array",
            lambda s: np.exp(s) / np.exp(s).sum(),
            "nan-large-scores",
        ),
        Mistake(
            "max over the keys, sum over the whole array",
            lambda s: (e := np.exp(s - s.max(-1, keepdims=True))) / e.sum(),
            "rows-not-normalised",
        ),
    ],
    solution=_stable_softmax,  # the buggy code with axis=-1
)


EXERCISES = [
    shift_by_hand,
    double_the_scores,
    my_softmax,
    mask_fully_masked,
    softmax_wrong_axis,
]
