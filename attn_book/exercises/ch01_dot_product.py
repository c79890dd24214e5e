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

from . import diagnose
from .kinds import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis, Mistake

__all__ = [
    "EXERCISES",
    "additive_by_hand",
    "best_key",
    "cosine_by_hand",
    "kT_batch",
    "long_key_away",
    "my_scores",
    "scores_by_hand",
    "which_key_wins",
]

_Q = np.array([2.0, 1.0])
_KEYS = np.array([[1.0, 0.0], [0.0, 3.0], [-1.0, 1.0]])


def _products_not_summed():
    def test(trials):
        q, keys = trials[0].case.args
        return trials[0].matches(q * keys)  # (S, E): one product per component

    return Diagnosis(
        "products-not-summed",
        "these are the products q_m·k_m; add them up, one number per key.",
        test,
        site=lambda t: {"values": [t.case.args[0] * t.case.args[1]]},
    )


scores_by_hand = NumberExercise(
    "ch1-scores-by-hand",
    "three dot products by hand",
    (_Q, _KEYS),
    ac.dot_scores,
    diagnoses=[
        _products_not_summed(),
        diagnose.matches(
            "first-component-only",
            "you used only the first components; a dot product adds q_m·k_m over every m.",
            lambda q, keys: q[0] * keys[:, 0],
        ),
        diagnose.factor(-1.0, "sign", "every sign is flipped — check the minus signs."),
    ],
    mistakes=[
        Mistake("products listed", _Q * _KEYS, "products-not-summed"),
        Mistake("first components", _Q[0] * _KEYS[:, 0], "first-component-only"),
        Mistake("signs flipped", -(_KEYS @ _Q), "sign"),
        Mistake("two scores", (_KEYS @ _Q)[:2], "wrong-count"),
        Mistake("a slip in the third decimal", _KEYS @ _Q + 0.005, "rounding"),
        Mistake("a word", "two", "not-numeric"),
    ],
    solution=[2 * 1 + 1 * 0, 2 * 0 + 1 * 3, 2 * -1 + 1 * 1],
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
        "angle-not-cosine",
        "that is the angle θ itself; the question asks for cos θ.",
        test,
        site=lambda t: {"values": _angles(float(t.expected))},
    )


def _one_length(q, k):
    """q·k divided by only one of the two lengths: by ‖q‖, then by ‖k‖."""
    dot = float(q @ k)
    return [dot / np.linalg.norm(v) for v in (q, k)]


def _one_length_only():
    def test(trials):
        return any(trials[0].matches(v) for v in _one_length(*trials[0].case.args))

    return Diagnosis(
        "one-length-only",
        "you divided by only one of the two lengths; cos θ = q·k / (‖q‖‖k‖).",
        test,
        site=lambda t: {"values": _one_length(*t.case.args)},
    )


cosine_by_hand = NumberExercise(
    "ch1-cosine-by-hand",
    "the cosine of the angle, by hand",
    (_Q, _KEYS[1]),
    _cosine,
    diagnoses=[
        diagnose.matches(
            "dot-not-cosine",
            "that is the dot product q·k; divide it by both lengths to get cos θ.",
            lambda q, k: q @ k,
        ),
        _angle_not_cosine(),
        _one_length_only(),
    ],
    mistakes=[
        Mistake("the dot product", 3.0, "dot-not-cosine"),
        Mistake("θ in degrees", 63.435, "angle-not-cosine"),
        Mistake("θ in radians", 1.107, "angle-not-cosine"),
        Mistake("divided by ‖q‖ only", 3 / math.sqrt(5), "one-length-only"),
    ],
    solution=3 / (math.sqrt(5) * 3),
)


# ------------------------------------------------ Bahdanau's additive score by hand (chapter 1)

_Q_ADD, _K_ADD = np.array([2.0, 1.0]), np.array([0.0, 3.0])
_W_ADD, _U_ADD = np.eye(2), np.eye(2)  # [A, d_k], A = 2 hidden units
_V_ADD = np.array([1.0, -1.0])  # [A]


def _additive(q, k, w, u, v):
    """vᵀ tanh(W q + U k) for one key."""
    return ac.additive_scores(q, k[None], w, u, v)[0]


additive_by_hand = NumberExercise(
    "ch1-additive-by-hand",
    "Bahdanau's additive score by hand",
    (_Q_ADD, _K_ADD, _W_ADD, _U_ADD, _V_ADD),
    _additive,
    diagnoses=[
        diagnose.matches(
            "no-tanh",
            "that is vᵀ(W q + U k): the hidden layer squashes W q + U k with tanh, unit by "
            "unit, before v reads it.",
            lambda q, k, w, u, v: v @ (w @ q + u @ k),
        ),
        diagnose.matches(
            "tanh-after-v",
            "you took the tanh of vᵀ(W q + U k); the tanh comes first, on each hidden unit, "
            "and v then adds up the squashed units.",
            lambda q, k, w, u, v: math.tanh(v @ (w @ q + u @ k)),
        ),
        diagnose.matches(
            "dot-not-additive",
            "that is the dot product q·k; the additive score runs q and k through the small "
            "network vᵀ tanh(W q + U k).",
            lambda q, k, w, u, v: q @ k,
        ),
        diagnose.factor(
            -1.0,
            "sign",
            "the sign is flipped — v = (1, −1) counts the first hidden unit for the key and "
            "the second against it.",
        ),
    ],
    mistakes=[
        Mistake("no tanh", -2.0, "no-tanh"),
        Mistake("tanh after v", math.tanh(-2.0), "tanh-after-v"),
        Mistake("the dot product", 3.0, "dot-not-additive"),
        Mistake("the sign flipped", 0.035, "sign"),
    ],
    solution=math.tanh(2.0) - math.tanh(4.0),
)


def _fixed(q, k):
    return q @ np.swapaxes(k, -1, -2)


def _skeleton(q, k):
    raise NotImplementedError


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
    ]


my_scores = FunctionExercise(
    "ch1-my-scores",
    "all pairwise scores",
    ac.dot_scores,
    _score_cases,
    diagnoses=[
        diagnose.matches(
            "scores-transposed",
            "your scores are transposed: rows should be the queries and columns the keys, "
            "(…, L, S).",
            lambda q, k: np.swapaxes(ac.dot_scores(q, k), -1, -2),
        ),
        diagnose.matches(
            "np-dot-on-batch",
            "right for a single matrix but not for a batch: np.dot on stacked arrays does not "
            "pair the batches, it multiplies every batch with every other one — use @ "
            "(np.matmul), which broadcasts the batch axes.",
            lambda q, k: np.dot(q, np.swapaxes(k, -1, -2)),
        ),
        diagnose.kT_on_batch(),
    ],
    mistakes=[
        Mistake("k.T", lambda q, k: q @ k.T, "kT-on-batch"),
        Mistake(
            "np.dot on a batch",
            lambda q, k: np.dot(q, np.swapaxes(k, -1, -2)),
            "np-dot-on-batch",
        ),
        Mistake("key @ query", lambda q, k: k @ np.swapaxes(q, -1, -2), "scores-transposed"),
        Mistake("elementwise product", lambda q, k: q * k, "raised"),
        Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
    ],
    solution=_fixed,
)

which_key_wins = ChoiceExercise(
    "ch1-which-key-wins",
    "which key wins",
    options=["a", "b", "c"],
    answer="b",
    why_not={
        "a": "a points closest to q, but the score is ‖q‖‖k‖cos θ: length counts as well as angle.",
        "c": "c is the longest key, but it is at 90° to q, and cos 90° = 0 whatever the length.",
    },
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
    ]


kT_batch = BugExercise(
    "bug-kT-batch",
    "scores for a batch",
    scores,
    ac.dot_scores,
    _bug_score_cases,
    bug="kT-on-batch",
    diagnoses=[diagnose.kT_on_batch()],
    mistakes=[Mistake("np.transpose(k) is k.T", lambda q, k: q @ np.transpose(k), "kT-on-batch")],
    solution=_fixed,
)


# ------------------------------------- a shorter query, a key that points away (chapter 1)

long_key_away = ChoiceExercise(
    "ch1-long-key-away",
    "a shorter query and a key that points away",
    options=["up", "down", "same"],
    answer="up",
    why_not={
        "down": "a shorter query does not lower every score: the score is ‖q‖‖k‖cos θ, and "
        "beyond 90° cos θ is negative, so halving ‖q‖ halves a negative number.",
        "same": "the angle stays the same, but the score is ‖q‖‖k‖cos θ, not cos θ alone: "
        "halving ‖q‖ halves it.",
    },
    inputs=(np.array([2.0, 1.0]), np.array([-2.0, 1.0])),  # cos θ = −3/5: about 127°
)


# ------------------------------------------ design: the best key of a given length (chapter 1)

_Q_DESIGN = np.array([3.0, 4.0])  # length 5
_LENGTH = 2.0


def _best_key(q, length):
    """The key of length ``length`` with the largest q·k: ``length`` times q's direction."""
    return length * q / np.linalg.norm(q)


def _too_long():
    def message(trials):
        got = trials[0].got
        return (
            f"your key has length {float(np.linalg.norm(got)):.3g}, more than the "
            f"{trials[0].case.args[1]:g} allowed; a longer key would always win, which is "
            "why the question fixes its length."
        )

    def test(trials):
        t = trials[0]
        _, length = t.case.args
        return t.got.shape == (2,) and float(np.linalg.norm(t.got)) > length * (1 + 1e-3)

    site = lambda t: {"rule": "too-long", "length": float(t.case.args[1])}  # noqa: E731
    return Diagnosis("too-long", message, test, site=site)


def _right_length_wrong_direction():
    def test(trials):
        t = trials[0]
        _, length = t.case.args
        return t.got.shape == (2,) and math.isclose(
            float(np.linalg.norm(t.got)), length, rel_tol=2e-3
        )

    return Diagnosis(
        "wrong-direction",
        "the length is right, but another key of that length scores more: by "
        "q·k = ‖q‖‖k‖cos θ, which direction makes cos θ as large as it can be?",
        test,
        site=lambda t: {"rule": "length-is", "length": float(t.case.args[1]), "rel_tol": 2e-3},
    )


best_key = NumberExercise(
    "ch1-best-key",
    "the best key of a given length",
    (_Q_DESIGN, _LENGTH),
    _best_key,
    diagnoses=[
        diagnose.matches(
            "unit-direction",
            "the direction is right, but that key has length 1: the question allows a longer "
            "one, and with cos θ = 1 a longer key scores more.",
            lambda q, length: q / np.linalg.norm(q),
        ),
        _too_long(),
        _right_length_wrong_direction(),
    ],
    mistakes=[
        Mistake("q's direction, length 1", _Q_DESIGN / 5.0, "unit-direction"),
        Mistake("the query itself", _Q_DESIGN, "too-long"),
        Mistake("length 2 along the second axis", [0.0, 2.0], "wrong-direction"),
        Mistake("length 2 at 45°", [math.sqrt(2), math.sqrt(2)], "wrong-direction"),
    ],
    solution=[1.2, 1.6],
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
