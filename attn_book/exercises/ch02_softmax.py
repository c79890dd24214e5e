"""Chapter 2's exercises: softmax (소프트맥스).

The find-the-bug exercises of this chapter are
:data:`attn_book.exercises.bugs.mask_fully_masked` and
:data:`attn_book.exercises.bugs.softmax_wrong_axis`.

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
from ._core import Case, ChoiceExercise, FunctionExercise, Mistake, NumberExercise

__all__ = ["double_the_scores", "my_softmax", "shift_by_hand"]


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
    ],
    mistakes=[
        Mistake("scores over their sum", _SHIFTED / _SHIFTED.sum(), "near-uniform"),
        Mistake("one third each", [1 / 3, 1 / 3, 1 / 3], "near-uniform"),
        Mistake("e^+1 instead of e^-1", [0.155, 0.422, 0.422], "exp-wrong-sign"),
        Mistake("e^0 and e^-1, not divided", [1.0, np.exp(-1), np.exp(-1)], "exp-not-normalised"),
        Mistake("the top weight alone", 0.576, "wrong-count"),
        Mistake("a slip in the third decimal", [0.581, 0.212, 0.212], "rounding"),
    ],
    solution=[1 / (1 + 2 / np.e), (1 / np.e) / (1 + 2 / np.e), (1 / np.e) / (1 + 2 / np.e)],
)


def _skeleton(scores):
    raise NotImplementedError


def _fixed(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # every exponent <= 0
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_cases():
    r = np.random.default_rng(21)
    return [
        Case("the seed's scores 1, 0, 1", (np.array([1.0, 0.0, 1.0]),)),
        Case("3 queries, 5 keys", (r.normal(size=(3, 5)),)),
        Case("huge scores, 1000 and up", (np.array([[1000.0, 999.0, 1000.0]]),)),
        Case("very negative scores", (np.array([[-1000.0, -1001.0, -1003.0]]),)),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(0, 3, size=(2, 3, 4)),), True),
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
    solution=_fixed,
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
