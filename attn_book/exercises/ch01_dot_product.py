"""Chapter 1's exercises: the dot product (내적) as similarity.

Its find-the-bug exercise, :data:`kT_batch`, plants ``k.T`` on a batched array.

Examples
--------
>>> scores_by_hand.check([2.0, 3.0, -1.0]).ok
True
>>> kT_batch.check(kT_batch.buggy).diagnosis
'kT-on-batch'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac
from attn_book.data import quanta_example

from . import cases, diagnose
from .kinds import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis

_Q = np.array([2.0, 1.0])
_KEYS = np.array([[1.0, 0.0], [0.0, 3.0], [-1.0, 1.0]])


def _products_not_summed():
    def test(trials):
        q, keys = trials[0].case.args
        return trials[0].matches(q * keys)  # (S, E): one product per component

    return Diagnosis(
        "products-not-summed", test, site=lambda t: {"values": [t.case.args[0] * t.case.args[1]]}
    )


scores_by_hand = NumberExercise(
    "ch1-scores-by-hand",
    (_Q, _KEYS),
    ac.dot_scores,
    diagnoses=[
        _products_not_summed(),
        diagnose.matches("first-component-only", lambda q, keys: q[0] * keys[:, 0]),
        diagnose.factor(-1.0, "sign"),
    ],
)


def _cosine(q, k):
    """cos θ = q·k / (‖q‖‖k‖), from the lengths."""
    return ac.dot_scores(q, k[None])[0] / (np.linalg.norm(q) * np.linalg.norm(k))


def _angles(cosine):
    """The angle θ with this cosine, in radians and in degrees."""
    theta = math.acos(cosine)
    return [theta, math.degrees(theta)]


def _angle_not_cosine():
    def test(trials):
        return any(trials[0].matches(a) for a in _angles(float(trials[0].expected)))

    return Diagnosis(
        "angle-not-cosine", test, site=lambda t: {"values": _angles(float(t.expected))}
    )


def _one_length(q, k):
    """q·k divided by only one of the two lengths: by ‖q‖, then by ‖k‖."""
    dot = float(q @ k)
    return [dot / np.linalg.norm(v) for v in (q, k)]


def _one_length_only():
    def test(trials):
        return any(trials[0].matches(v) for v in _one_length(*trials[0].case.args))

    return Diagnosis("one-length-only", test, site=lambda t: {"values": _one_length(*t.case.args)})


cosine_by_hand = NumberExercise(
    "ch1-cosine-by-hand",
    (_Q, _KEYS[1]),
    _cosine,
    diagnoses=[
        diagnose.matches("dot-not-cosine", lambda q, k: q @ k),
        _angle_not_cosine(),
        _one_length_only(),
    ],
)


# ------------------------------------------------ Bahdanau's additive score by hand (chapter 1)

_Q_ADD, _K_ADD = np.array([2.0, 1.0]), np.array([0.0, 3.0])
_W_ADD, _U_ADD = np.eye(2), np.eye(2)  # [A, d_k], A = 2 hidden units
_V_ADD = np.array([1.0, -1.0])  # [A]


def _additive(q, k, w, u, v):
    """v_aᵀ tanh(W q + U k) for one key."""
    return ac.additive_scores(q, k[None], w, u, v)[0]


additive_by_hand = NumberExercise(
    "ch1-additive-by-hand",
    (_Q_ADD, _K_ADD, _W_ADD, _U_ADD, _V_ADD),
    _additive,
    diagnoses=[
        diagnose.matches("no-tanh", lambda q, k, w, u, v: v @ (w @ q + u @ k)),
        diagnose.matches("tanh-after-v", lambda q, k, w, u, v: math.tanh(v @ (w @ q + u @ k))),
        diagnose.matches("dot-not-additive", lambda q, k, w, u, v: q @ k),
        diagnose.matches(  # W q + U k = (2, 4) read as (2, 3): q's second entry left out
            "hidden-unit-slip", lambda q, k, w, u, v: v @ np.tanh(w @ q * [1, 0] + u @ k)
        ),
        diagnose.factor(-1.0, "sign"),
    ],
)


def _score_cases():
    r = np.random.default_rng(11)
    ex = quanta_example()
    return [
        Case("the worked example: 1 query, 3 keys", (ex.query[None], ex.keys)),
        Case("4 queries, 5 keys, E=3", (r.normal(size=(4, 3)), r.normal(size=(5, 3)))),
        Case(
            "batch of 2, 3 queries, 4 keys",
            (r.normal(size=(2, 3, 5)), r.normal(size=(2, 4, 5))),
            batched=True,
        ),
        Case(
            "batch 2 × 3 heads, E=2",
            (r.normal(size=(2, 3, 4, 2)), r.normal(size=(2, 3, 4, 2))),
            batched=True,
        ),
        *cases.qkv_cases(r, 2),
    ]


my_scores = FunctionExercise(  # written with np.einsum (the statement asks for it)
    "ch1-my-scores",
    ac.dot_scores,
    _score_cases,
    own="used-attn-core",  # the statement: plain NumPy, no attn_core
    diagnoses=[
        diagnose.matches(  # "...ld,...sd->...sl"
            "scores-transposed", lambda q, k: np.swapaxes(ac.dot_scores(q, k), -1, -2)
        ),
        diagnose.matches(  # "...ld,...sd->...lsd": d kept in the output, so never summed
            "products-not-summed", lambda q, k: q[..., :, None, :] * k[..., None, :, :]
        ),
        diagnose.wrong_on_batch(  # "ld,sd->ls" raises NumPy's "no '...' ellipsis" error
            "einsum-no-ellipsis", lambda t: "ellipsis" in str(t.error)
        ),
        diagnose.matches("np-dot-on-batch", lambda q, k: np.dot(q, np.swapaxes(k, -1, -2))),
        diagnose.kT_on_batch(lambda q, k: q @ k.T),
    ],
)

which_key_wins = ChoiceExercise(
    "ch1-which-key-wins",
    options=["a", "b", "c"],
    answer="b",
    inputs=(
        np.array([1.0, 0.0]),
        {"a": np.array([1.0, 0.2]), "b": np.array([2.0, 2.0]), "c": np.array([0.0, 5.0])},
    ),
)


# ---------------------------------------------------------------- k.T on a batch (chapter 1)


def scores(q, k):
    """All scores q·k: q (..., L, E), k (..., S, E) -> (..., L, S)."""
    return q @ k.T  # [L, E] @ [E, S] -> [L, S]


def _bug_score_cases():
    r = np.random.default_rng(1)
    return [
        Case("3 queries, 5 keys, E=4", (r.normal(size=(3, 4)), r.normal(size=(5, 4)))),
        Case(
            "batch of 2, 3 queries, 5 keys",
            (r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4))),
            batched=True,
        ),
        Case(
            "batch of 2, L = S = E = 2",
            (r.normal(size=(2, 2, 2)), r.normal(size=(2, 2, 2))),
            batched=True,
        ),
        *cases.qkv_cases(r, 2),
    ]


kT_batch = BugExercise(
    "bug-kT-batch",
    scores,
    ac.dot_scores,
    _bug_score_cases,
    bug="kT-on-batch",
    diagnoses=[diagnose.kT_on_batch(lambda q, k: q @ k.T)],
)


# ------------------------------------- a shorter query, a key that points away (chapter 1)

long_key_away = ChoiceExercise(
    "ch1-long-key-away",
    options=["up", "down", "same"],
    answer="up",
    inputs=(np.array([2.0, 1.0]), np.array([-2.0, 1.0])),  # cos θ = −3/5: about 127°
)


# ------------------------------------------ design: the best key of a given length (chapter 1)

_Q_DESIGN = np.array([3.0, 4.0])  # length 5
_LENGTH = 2.0


def _best_key(q, length):
    """The key of length ``length`` with the largest q·k: ``length`` times q's direction."""
    return length * q / np.linalg.norm(q)


best_key = NumberExercise(
    "ch1-best-key",
    (_Q_DESIGN, _LENGTH),
    _best_key,
    diagnoses=[
        diagnose.matches("unit-direction", lambda q, length: q / np.linalg.norm(q)),
        diagnose.rule("too-long", length=_LENGTH),
        diagnose.rule("length-is", "wrong-direction", length=_LENGTH, rel_tol=2e-3),
    ],
)


EXERCISES = [
    scores_by_hand,
    cosine_by_hand,
    additive_by_hand,
    which_key_wins,
    long_key_away,
    best_key,
    my_scores,
    kT_batch,
]
