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

from . import diagnose
from .kinds import BugExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis, Feedback, Mistake

__all__ = [
    "EXERCISES",
    "cross_entropy_gradient",
    "mask_fully_masked",
    "my_softmax",
    "shift_by_hand",
    "softmax_wrong_axis",
    "temperature_for_ratio",
]


_SOFTMAX = ac.softmax  # the references' own, which the spy below does not count


class _OwnSoftmax:
    """For an exercise that asks for a softmax written by hand: a correct answer that got
    its numbers from ``ac.softmax`` is sent back (``ac.softmax`` is spied on, not blocked,
    during the check, so that a wrong answer still gets its own diagnosis)."""

    def check(self, answer):
        calls = []

        def spy(*args, **kwargs):
            calls.append(True)
            return _SOFTMAX(*args, **kwargs)

        ac.softmax = spy
        try:
            feedback = super().check(answer)
        finally:
            ac.softmax = _SOFTMAX
        if feedback.ok and calls:
            return Feedback(
                "wrong",
                "the numbers are right, but they come from ac.softmax: the exercise is to "
                "write the softmax yourself, with np.exp and the max-subtraction.",
                "used-ac-softmax",
            )
        return feedback


class _OwnSoftmaxFunction(_OwnSoftmax, FunctionExercise):
    """A :class:`FunctionExercise` whose answer may not call ``ac.softmax``."""


class _OwnSoftmaxBug(_OwnSoftmax, BugExercise):
    """A :class:`BugExercise` whose fix may not call ``ac.softmax``."""


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
        Case("the worked example's scores 1, 0, 1", (np.array([1.0, 0.0, 1.0]),)),
        Case("3 queries, 5 keys", (r.normal(size=(3, 5)),)),
        Case("huge scores, 1000 and up", (np.array([[1000.0, 999.0, 1000.0]]),)),
        Case("very negative scores", (np.array([[-1000.0, -1001.0, -1003.0]]),)),
        Case("a spread-out row, 0 and 800", (np.array([[0.0, 800.0]]),)),
        Case(
            "two rows far apart, [0, 1] and [-800, -801]", (np.array([[0.0, 1.0], [-800, -801]]),)
        ),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(0, 3, size=(2, 3, 4)),), batched=True),
    ]


def _minus_row_min(s):
    """The slip: each row's minimum subtracted; a spread-out row still overflows."""
    e = np.exp(s - s.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _minus_global_max(s):
    """The slip: one maximum for the whole array; a row far below it underflows to 0/0."""
    e = np.exp(s - s.max())
    return e / e.sum(axis=-1, keepdims=True)


my_softmax = _OwnSoftmaxFunction(
    "ch2-my-softmax",
    "a softmax that does not overflow",
    ac.softmax,
    _softmax_cases,
    diagnoses=[
        diagnose.lost_axis(),
        diagnose.matches_every(
            "subtracted-row-min",
            "NaN for a spread-out row such as [0, 800]: subtracting the row's *minimum* leaves "
            "e^800, which overflows — subtract each row's maximum, so every exponent is ≤ 0.",
            _minus_row_min,
            equal_nan=True,
        ),
        diagnose.matches_every(
            "global-max",
            "NaN for a row far below the others ([-800, -801] beside [0, 1]): one maximum for "
            "the whole array leaves that row e^-800 = 0, then 0/0 — subtract each row's own "
            "maximum (axis=-1, keepdims=True).",
            _minus_global_max,
            equal_nan=True,
        ),
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
        Mistake("the row minimum subtracted", _minus_row_min, "subtracted-row-min"),
        Mistake("one global maximum", _minus_global_max, "global-max"),
        Mistake("no exponential", lambda s: s / s.sum(axis=-1, keepdims=True), "no-exp"),
        Mistake(
            "max and sum over the whole array",
            lambda s: (e := np.exp(s - s.max())) / e.sum(),
            "rows-not-normalised",
        ),
        Mistake(
            "max without keepdims",
            lambda s: (e := np.exp(s - s.max(axis=-1))) / e.sum(axis=-1, keepdims=True),
            "lost-axis",
        ),
        Mistake("ac.softmax itself", lambda s: ac.softmax(s), "used-ac-softmax"),
        Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
    ],
    solution=_stable_softmax,
)

# ---------------------------------------- the temperature for a given ratio (chapter 2)

_S_TEMP = np.array([2.0, 1.0, 0.5])
_RATIO = 2.0


def _temperature_for_ratio(scores, ratio):
    """T with w_1 / w_2 = ratio: e^{(s_1 - s_2)/T} = ratio, so T = (s_1 - s_2) / ln ratio."""
    return (scores[0] - scores[1]) / math.log(ratio)


temperature_for_ratio = NumberExercise(
    "ch2-temperature-for-ratio",
    "the temperature for a given ratio",
    (_S_TEMP, _RATIO),
    _temperature_for_ratio,
    diagnoses=[
        diagnose.matches(
            "temperature-inverted",
            "that is 1/T: the temperature *divides* the scores, so the ratio is "
            "e^{(s₁ − s₂)/T}; solve that for T.",
            lambda s, r: math.log(r) / (s[0] - s[1]),
        ),
        diagnose.matches(
            "wrong-pair",
            "you used the gap between the first and the *third* score; the question compares "
            "the two largest weights.",
            lambda s, r: (s[0] - s[2]) / math.log(r),
        ),
        diagnose.matches(
            "log-base-10",
            "softmax's exponential is e^x, so its inverse is the natural logarithm ln, not log₁₀.",
            lambda s, r: (s[0] - s[1]) / math.log10(r),
        ),
        diagnose.matches(
            "ratio-is-not-temperature",
            "the ratio of two weights is e^{gap/T}, not the temperature itself: take the "
            "logarithm of the ratio.",
            lambda s, r: r,
        ),
    ],
    mistakes=[
        Mistake("ln 2, upside down", math.log(2), "temperature-inverted"),
        Mistake("the first and third scores", 1.5 / math.log(2), "wrong-pair"),
        Mistake("log base 10", 1 / math.log10(2), "log-base-10"),
        Mistake("T = 2, the ratio", 2.0, "ratio-is-not-temperature"),
    ],
    solution=1 / math.log(2),
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
    "the gradient of softmax with cross-entropy",
    (_S_CE, _TARGET),
    _ce_gradient,
    diagnoses=[
        diagnose.factor(
            -1.0,
            "target-minus-weights",
            "every sign is flipped: that is y − w, the gradient of +log w_c; the loss is "
            "−log w_c, and gradient descent moves the scores against its gradient.",
        ),
        diagnose.matches(
            "weights-only",
            "those are the weights w; the derivative of −log w_c also has the term −1 for "
            "the target's own score (from the s_c in log w_c = s_c − log Σ e^s).",
            lambda s, c: ac.softmax(s),
        ),
        diagnose.matches(
            "gradient-of-the-weight",
            "that is ∂w_c/∂s, a column of the Jacobian; the loss is −log w_c, and the chain "
            "rule through the logarithm divides it by −w_c.",
            lambda s, c: ac.softmax_jacobian(ac.softmax(s))[:, c],
        ),
        diagnose.matches(
            "largest-as-target",
            "you took the largest score's key as the target; the target here is the key the "
            "cell names, not the one the softmax prefers.",
            lambda s, c: ac.softmax(s) - _one_hot(len(s), int(np.argmax(s))),
        ),
    ],
    mistakes=[
        Mistake("y − w", [-0.5, 0.75, -0.25], "target-minus-weights"),
        Mistake("the weights", [0.5, 0.25, 0.25], "weights-only"),
        Mistake("∂w_c/∂s", [-0.125, 0.1875, -0.0625], "gradient-of-the-weight"),
        Mistake("target = the largest score", [-0.5, 0.25, 0.25], "largest-as-target"),
    ],
    solution=[0.5, -0.75, 0.25],
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


mask_fully_masked = _OwnSoftmaxBug(
    "bug-mask-fully-masked",
    "masking keys, even all of them",
    masked_weights,
    _masked_reference,
    _mask_cases,
    bug="masked-row-uniform",
    diagnoses=[
        _nan_in_masked_row(),
        diagnose.masked_key_weighted(),
        diagnose.matches(
            "zeroed-not-renormalised",
            "you zeroed the hidden keys' weights *after* the softmax, so a row's visible "
            "weights no longer sum to 1; hide the keys in the *scores*, before the softmax, "
            "and the visible keys share all of the weight.",
            lambda s, m: np.where(m, ac.softmax(s, axis=-1), 0.0),
        ),
        diagnose.masked_row_uniform(),
    ],
    mistakes=[
        Mistake("-inf with a hand-made softmax", _naive_masked, "nan-masked-row"),
        Mistake(
            "weights zeroed after the softmax, not renormalised",
            lambda s, m: np.where(m, ac.softmax(s, axis=-1), 0.0),
            "zeroed-not-renormalised",
        ),
        Mistake(
            "True taken as 'ignore'",
            lambda s, m: ac.softmax(np.where(m, -np.inf, s)),
            "masked-key-weighted",
        ),
        Mistake(
            "-inf and ac.softmax",
            lambda s, m: ac.softmax(np.where(m, s, -np.inf)),
            "used-ac-softmax",
        ),
    ],
    solution=_masked_reference,
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
        diagnose.matches(
            "max-wrong-axis",
            "you sum over the keys but still subtract the max over the first axis, one per "
            "column: each row needs its own, scores.max(axis=-1, keepdims=True).",
            _max_over_columns,
        ),
        diagnose.lost_axis(),
        diagnose.nan_for_large_scores(),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake(
            "normalised over the whole array",
            lambda s: np.exp(s) / np.exp(s).sum(),
            "nan-large-scores",
        ),
        Mistake("max over axis 0, sum over the keys", _max_over_columns, "max-wrong-axis"),
        Mistake(
            "max over the keys without keepdims",
            lambda s: (e := np.exp(s - s.max(axis=-1))) / e.sum(axis=-1, keepdims=True),
            "lost-axis",
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
    temperature_for_ratio,
    cross_entropy_gradient,
    my_softmax,
    mask_fully_masked,
    softmax_wrong_axis,
]
