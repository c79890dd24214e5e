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

from . import diagnose
from .kinds import FunctionExercise, NumberExercise
from .records import Case, Diagnosis, Mistake

__all__ = [
    "EXERCISES",
    "gap_of_two_keys",
    "my_weights",
    "spread_by_hand",
    "variance_with_sigma",
]

_D_K = 256


def _spread_is_variance(trials):
    """True when the first (or only) number given for the unscaled spread is d_k, its variance."""
    (trial,) = trials
    (d_k,) = trial.case.args
    if trial.got is None or trial.got.size == 0:
        return False
    return math.isclose(float(trial.got.flat[0]), d_k, rel_tol=trial.rtol)


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
        Diagnosis(
            "spread-is-variance",
            f"{_D_K} is the variance of q·k at d_k = {_D_K}; its spread, the standard "
            "deviation, is the square root of that.",
            _spread_is_variance,
            site=lambda t: {"rule": "first-entry-is", "value": float(t.case.args[0])},
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
        Mistake("the variance alone, for the spread", _D_K, "spread-is-variance"),
        Mistake("the variance as the spread, beside 16", [_D_K, 16.0], "spread-is-variance"),
        Mistake("the means", [0, 0], "means-not-std"),
        Mistake("both spreads 1", [1, 1], "unscaled-stays-1"),
    ],
    solution=[16.0, 1.0],
)


def _skeleton(q, k):
    raise NotImplementedError


def _fixed(q, k):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    return ac.softmax(scores, axis=-1)


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
        diagnose.matches(
            "multiplied-by-root-d-k",
            "you multiplied the scores by √d_k; the scale divides them by √d_k.",
            lambda q, k: ac.attention_weights(q, k, scale=math.sqrt(q.shape[-1])),
        ),
        diagnose.matches(
            "scaled-after-softmax",
            "you divided the weights by √d_k after the softmax, so a row no longer sums to 1; "
            "the 1/√d_k goes inside the softmax, on the scores.",
            lambda q, k: ac.attention_weights(q, k, scale=1.0) / math.sqrt(q.shape[-1]),
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
            "multiplied by √d_k",
            lambda q, k: ac.softmax(ac.dot_scores(q, k) * math.sqrt(q.shape[-1])),
            "multiplied-by-root-d-k",
        ),
        Mistake(
            "scaled after the softmax",
            lambda q, k: ac.softmax(ac.dot_scores(q, k)) / math.sqrt(q.shape[-1]),
            "scaled-after-softmax",
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
        Mistake(
            "np.exp(s) / sum, no max subtracted",
            lambda q, k: (
                (e := np.exp(ac.dot_scores(q, k) / math.sqrt(q.shape[-1])))
                / e.sum(axis=-1, keepdims=True)
            ),
            "nan-large-scores",
        ),
        Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
    ],
    solution=_fixed,
)

# ------------------------------------------ the gap between two keys' scores (chapter 3)

_GAP_STD = 16.0  # the spread asked for: a gap of 16 multiplies a weight by e^16


def _d_k_for_gap(gap_std):
    """d_k with std(q·k₁ − q·k₂) = gap_std: Var = 2 d_k (the two scores are uncorrelated)."""
    return gap_std**2 / 2


gap_of_two_keys = NumberExercise(
    "ch3-gap-of-two-keys",
    "the spread of the gap between two keys' scores",
    (_GAP_STD,),
    _d_k_for_gap,
    rtol=0.0,
    diagnoses=[
        diagnose.matches(
            "one-score-not-the-gap",
            "that d_k gives *one* score q·k a spread of 16; the gap q·k₁ − q·k₂ is a "
            "difference of two scores, and the variance of a difference of uncorrelated "
            "variables is the *sum* of their variances.",
            lambda g: g**2,
        ),
        diagnose.matches(
            "spreads-added",
            "standard deviations do not add; variances of uncorrelated variables do: "
            "Var[s₁ − s₂] = Var[s₁] + Var[s₂].",
            lambda g: (g / 2) ** 2,
        ),
        diagnose.matches(
            "forgot-to-square",
            "you set the *variance* 2 d_k equal to 16; 16 is the standard deviation, so the "
            "variance is 16².",
            lambda g: g / 2,
        ),
        diagnose.matches(
            "variances-subtracted",
            "a difference does not subtract variances: Var[s₁ − s₂] = Var[s₁] + Var[s₂] − "
            "2 Cov[s₁, s₂], and the covariance here is 0.",
            lambda g: 0.0,
        ),
    ],
    mistakes=[
        Mistake("one score's spread 16", 256, "one-score-not-the-gap"),
        Mistake("spreads added, 2√d_k = 16", 64, "spreads-added"),
        Mistake("2 d_k = 16", 8, "forgot-to-square"),
        Mistake("Var[s₁] − Var[s₂] = 0", 0, "variances-subtracted"),
    ],
    solution=128.0,
)


# ------------------------------------------------------ components of variance σ² (ch 3)

_SIGMA_SQ = 4.0  # the variance σ² of every component (nn.Linear's initialisation gives 1/3)


def _variance_with_sigma(d_k, sigma_sq):
    """Var[q·k] = d_k σ⁴: each of the d_k products q_m k_m has variance σ² · σ² (chapter 3)."""
    return d_k * sigma_sq**2


variance_with_sigma = NumberExercise(
    "ch3-variance-with-sigma",
    "the variance of the scores for components of variance σ²",
    (64, _SIGMA_SQ),
    _variance_with_sigma,
    rtol=0.0,  # a whole number: 1024.5 is not a rounding of it
    diagnoses=[
        diagnose.matches(
            "sigma-squared-once",
            "each product q_m k_m has variance E[q_m²] E[k_m²]: both factors bring a σ².",
            lambda d_k, var: d_k * var,
        ),
        diagnose.matches(
            "one-product",
            "that is the variance of one product q_m k_m (and of q·k/√d_k); q·k adds d_k of "
            "those products, and their variances add.",
            lambda d_k, var: var**2,
        ),
        diagnose.matches(
            "std-not-variance",
            "that is the standard deviation of q·k; the question asks for its variance.",
            lambda d_k, var: math.sqrt(d_k) * var,
        ),
        diagnose.matches(
            "unit-variance",
            "that is the variance for components of variance 1; here each has variance σ².",
            lambda d_k, var: d_k,
        ),
    ],
    mistakes=[
        Mistake("d_k σ²", 64 * _SIGMA_SQ, "sigma-squared-once"),
        Mistake("σ⁴, one product", _SIGMA_SQ**2, "one-product"),
        Mistake("√d_k σ², the spread", 8 * _SIGMA_SQ, "std-not-variance"),
        Mistake("d_k, as for variance 1", 64, "unit-variance"),
    ],
    solution=1024.0,
)


EXERCISES = [
    spread_by_hand,
    gap_of_two_keys,
    variance_with_sigma,
    my_weights,
]
