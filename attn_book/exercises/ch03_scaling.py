"""Chapter 3's exercises: why the scores are divided by √d_k.

Its former find-the-bug exercises on heads, ``scale_d_model`` and
``heads_reshape``, moved with the heads to :mod:`.ch07_heads_and_masks`.

Examples
--------
>>> spread_by_hand.check([16, 1]).ok
True
>>> my_weights.check(lambda q, k: ac.attention_weights(q, k, scale=1.0)).diagnosis
'forgot-scale'
>>> gap_of_two_keys.check(128).ok  # Var[q·k₁ − q·k₂] = 2 d_k = 16²
True
>>> spread_by_hand.check(256).diagnosis
'spread-is-variance'
>>> variance_with_sigma.check(1024).ok
True
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac
from attn_book.data import quanta_example

from . import cases, diagnose
from .kinds import FunctionExercise, NumberExercise
from .records import Case

_D_K = 256


def _spread(d_k):
    """Standard deviations of q·k and q·k/√d_k: √Var, with Var[q·k] = d_k (chapter 3)."""
    return [math.sqrt(d_k), 1.0]


spread_by_hand = NumberExercise(
    "ch3-spread-by-hand",
    (_D_K,),
    _spread,
    diagnoses=[
        diagnose.matches("variance-not-std", lambda d: [d, 1.0]),
        diagnose.rule("entry-is", "spread-is-variance", value=float(_D_K)),
        diagnose.matches("means-not-std", lambda d: [0.0, 0.0]),
        diagnose.matches("unscaled-stays-1", lambda d: [1.0, 1.0]),
        diagnose.matches("scaled-by-d", lambda d: [math.sqrt(d), 1 / math.sqrt(d)]),
    ],
)


def _weights_cases():
    r = np.random.default_rng(31)
    ex = quanta_example()
    return [
        Case("the worked example: 1 query, 3 keys, d_k = 2", (ex.query[None], ex.keys)),
        Case("4 queries, 5 keys, d_k = 16", (r.normal(size=(4, 16)), r.normal(size=(5, 16)))),
        Case(
            "batch of 2, 3 queries, 6 keys, d_k = 64",
            (r.normal(size=(2, 3, 64)), r.normal(size=(2, 6, 64))),
            batched=True,
        ),
        Case(
            "large scores, rows far apart: q = ±1000·(1, 1), 3 keys",
            (np.array([[1000.0, 1000.0], [-1000.0, -1000.0]]), ex.keys),
        ),
        *cases.qkv_cases(r, 2),
        *cases.spread_qkv_cases(r, 2),
    ]


my_weights = FunctionExercise(
    "ch3-my-weights",
    ac.attention_weights,
    _weights_cases,
    own="used-attn-core",  # the statement: plain NumPy, no attn_core
    diagnoses=[
        diagnose.matches(  # √L: L = 1 makes it the unscaled answer on the worked example
            "scaled-by-wrong-dimension",
            lambda q, k: ac.attention_weights(q, k, scale=1 / math.sqrt(q.shape[-2])),
        ),
        diagnose.matches(
            "scaled-by-wrong-dimension",
            lambda q, k: ac.attention_weights(q, k, scale=1 / math.sqrt(k.shape[-2])),
        ),
        diagnose.forgot_scale("d_k", lambda q, k: ac.attention_weights(q, k, scale=1.0)),
        diagnose.matches(
            "divided-by-d-k", lambda q, k: ac.attention_weights(q, k, scale=1 / q.shape[-1])
        ),
        diagnose.matches(
            "multiplied-by-root-d-k",
            lambda q, k: ac.attention_weights(q, k, scale=math.sqrt(q.shape[-1])),
        ),
        diagnose.matches(
            "scaled-after-softmax",
            lambda q, k: ac.attention_weights(q, k, scale=1.0) / math.sqrt(q.shape[-1]),
        ),
        diagnose.kT_on_batch(lambda q, k: ac.softmax(q @ k.T / math.sqrt(q.shape[-1]))),
        diagnose.rows_not_normalised(),
    ],
)

# ------------------------------------------ the gap between two keys' scores (chapter 3)

_GAP_STD = 16.0  # the spread asked for: a gap of 16 multiplies a weight by e^16


def _d_k_for_gap(gap_std):
    """d_k with std(q·k₁ − q·k₂) = gap_std: Var = 2 d_k (the two scores are uncorrelated)."""
    return gap_std**2 / 2


gap_of_two_keys = NumberExercise(
    "ch3-gap-of-two-keys",
    (_GAP_STD,),
    _d_k_for_gap,
    integer=True,  # d_k, a number of components
    diagnoses=[
        diagnose.matches("one-score-not-the-gap", lambda g: g**2),
        diagnose.matches("spreads-added", lambda g: (g / 2) ** 2),
        diagnose.matches("forgot-to-square", lambda g: g / 2),
        diagnose.matches("variances-subtracted", lambda g: 0.0),
    ],
)


# ------------------------------------------------------ components of variance σ² (ch 3)

_SIGMA_SQ = 4.0  # the variance σ² of every component (nn.Linear's initialisation gives 1/3)


def _variance_with_sigma(d_k, sigma_sq):
    """Var[q·k] = d_k σ⁴: each of the d_k products q_m k_m has variance σ² · σ² (chapter 3)."""
    return d_k * sigma_sq**2


variance_with_sigma = NumberExercise(
    "ch3-variance-with-sigma",
    (64, _SIGMA_SQ),
    _variance_with_sigma,
    diagnoses=[
        diagnose.matches("sigma-squared-once", lambda d_k, var: d_k * var),
        diagnose.matches("one-product", lambda d_k, var: var**2),
        diagnose.matches("std-not-variance", lambda d_k, var: math.sqrt(d_k) * var),
        diagnose.matches("unit-variance", lambda d_k, var: d_k),
    ],
)


EXERCISES = [spread_by_hand, gap_of_two_keys, variance_with_sigma, my_weights]
