"""Chapter 3's exercises: why the scores are divided by √d_k.

The find-the-bug exercises of this chapter are
:data:`attn_book.exercises.bugs.scale_d_model` and
:data:`attn_book.exercises.bugs.heads_reshape`.

Examples
--------
>>> spread_by_hand.check([16, 1]).ok
True
>>> my_weights.check(lambda q, k: ac.attention_weights(q, k, scale=1.0)).diagnosis
'forgot-scale'
>>> [double_d_k.check(a).ok for a in ("×√2", "x√2", "X√2", "x sqrt(2)", "×2")]
[True, True, True, True, False]
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac

from . import diagnose
from ._core import Case, ChoiceExercise, FunctionExercise, Mistake, NumberExercise

__all__ = ["double_d_k", "my_weights", "spread_by_hand"]

_D_K = 256


def _spread(d_k):
    """Standard deviations of q·k and q·k/√d_k: √Var, with Var[q·k] = d_k (chapter 3)."""
    return [math.sqrt(d_k), 1.0]


spread_by_hand = NumberExercise(
    "ch3-spread-by-hand",
    "the spread of the scores, by hand",
    (_D_K,),
    _spread,
    diagnoses=[
        diagnose.matches(
            "variance-not-std",
            "those are the variances; the standard deviation is the square root of the variance.",
            lambda d: [d, 1.0],
        ),
        diagnose.matches(
            "means-not-std",
            "those are the means; the spread is the standard deviation, the square root "
            "of the variance that the proposition gives.",
            lambda d: [0.0, 0.0],
        ),
        diagnose.matches(
            "unscaled-stays-1",
            "the scaled score has spread 1, but the unscaled one grows with d_k: its "
            "variance is d_k.",
            lambda d: [1.0, 1.0],
        ),
        diagnose.matches(
            "scaled-by-d",
            "dividing q·k by √d_k divides its variance by d_k, so the scaled spread does not "
            "depend on d_k at all.",
            lambda d: [math.sqrt(d), 1 / math.sqrt(d)],
        ),
    ],
    mistakes=[
        Mistake("the variances", [_D_K, 1.0], "variance-not-std"),
        Mistake("the scaled spread shrinks too", [16.0, 1 / 16], "scaled-by-d"),
        Mistake("one number", 16.0, "wrong-count"),
        Mistake("the means", [0, 0], "means-not-std"),
        Mistake("both spreads 1", [1, 1], "unscaled-stays-1"),
    ],
    solution=[16.0, 1.0],
)


def _skeleton(q, k):
    raise NotImplementedError


def _fixed(q, k):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _weights_cases():
    r = np.random.default_rng(31)
    ex = ac.seed_example()
    return [
        Case("the seed: 1 query, 3 keys, d_k = 2", (ex.query[None], ex.keys)),
        Case("4 queries, 5 keys, d_k = 16", (r.normal(size=(4, 16)), r.normal(size=(5, 16)))),
        Case(
            "batch of 2, 3 queries, 6 keys, d_k = 64",
            (r.normal(size=(2, 3, 64)), r.normal(size=(2, 6, 64))),
            True,
        ),
    ]


my_weights = FunctionExercise(
    "ch3-my-weights",
    "scaled attention weights",
    ac.attention_weights,
    _weights_cases,
    diagnoses=[
        diagnose.forgot_scale("d_k", lambda q, k: ac.attention_weights(q, k, scale=1.0)),
        diagnose.matches(
            "divided-by-d-k",
            "you divided by d_k; the scale is 1/√d_k — the square root undoes a variance of d_k.",
            lambda q, k: ac.attention_weights(q, k, scale=1 / q.shape[-1]),
        ),
        diagnose.kT_on_batch(),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake("no scale", lambda q, k: ac.attention_weights(q, k, scale=1.0), "forgot-scale"),
        Mistake(
            "divided by d_k",
            lambda q, k: ac.attention_weights(q, k, scale=1 / q.shape[-1]),
            "divided-by-d-k",
        ),
        Mistake(
            "k.T",
            lambda q, k: ac.softmax(q @ k.T / math.sqrt(q.shape[-1])),
            "kT-on-batch",
        ),
        Mistake(
            "softmax over the queries",
            lambda q, k: ac.softmax(ac.dot_scores(q, k) / math.sqrt(q.shape[-1]), axis=-2),
            "rows-not-normalised",
        ),
        Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
    ],
    solution=_fixed,
)

double_d_k = ChoiceExercise(
    "ch3-double-d-k",
    "double the dimension",
    options=["×1", "×√2", "×2", "×4"],
    answer="×√2",
    why_not={
        "×1": "that is the *scaled* score; without the 1/√d_k the spread grows with d_k.",
        "×2": "the *variance* doubles; the typical size of a score is its standard deviation.",
        "×4": "the variance grows like d_k, not like d_k²; and the spread is its square root.",
    },
    inputs=(64, 128),
)
