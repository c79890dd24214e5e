"""Chapter 8's exercises: the backward pass of attention, by hand and as code.

dV by hand for the worked example; one row of the softmax-Jacobian step; two
find-the-bug listings taken from real slips (the dropped ``- rowsum(dA ⊙ A)``
term, the missing 1/√d_k, ``dS Q`` for ``dSᵀ Q``); a prediction of which
gradient vanishes at which d_k; and the zero sum of a row of dS, used.

Examples
--------
>>> dv_by_hand.check(dv_by_hand.solution).ok
True
>>> key_gradient.check(key_gradient.buggy).diagnosis
'ds-not-transposed'
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

import attn_core as ac
from attn_book.data import quanta_example

from . import cases as _cases
from . import diagnose
from .kinds import BugExercise, ChoiceExercise, NumberExercise
from .records import Case

_EX = quanta_example()
_G = np.array([0.0, 1.0])  # a new dL/do for the exercise (the text uses (1, -1))
_TEXT_G = np.array([1.0, -1.0])


def _weights(q, k):
    return ac.attention_weights(q, k)  # [S]


dv_by_hand = NumberExercise(
    "ch8-dv-by-hand",
    (_G, _EX.query, _EX.keys, _EX.values),
    lambda g, q, k, v: ac.attention_backward(g, q, k, v)[2],
    decimals=2,  # the question names no decimals: 0.40, 0.20, 0.40 are an honest answer
    diagnoses=[
        diagnose.matches(
            "text-gradient", lambda g, q, k, v: ac.attention_backward(_TEXT_G, q, k, v)[2]
        ),
        diagnose.matches("forgot-weights", lambda g, q, k, v: np.tile(g, (len(k), 1))),
        diagnose.matches("weighted-values", lambda g, q, k, v: _weights(q, k)[:, None] * v),
        diagnose.matches(
            "unscaled-weights",
            lambda g, q, k, v: np.outer(ac.attention_weights(q, k, scale=1.0), g),
        ),
        diagnose.matches("columns-swapped", lambda g, q, k, v: np.outer(_weights(q, k), g[::-1])),
    ],
)

_A_ROW = np.array([0.5, 0.3, 0.2])  # one row of weights
_DA_ROW = np.array([1.0, -2.0, 3.0])  # and its dA


def _ds_row(a, d_a):
    """The softmax Jacobian step on one row, by its definition: (diag(a) - a aᵀ) dA."""
    return ac.softmax_jacobian(a) @ d_a


ds_row_by_hand = NumberExercise(
    "ch8-ds-row",
    (_A_ROW, _DA_ROW),
    _ds_row,
    diagnoses=[
        diagnose.matches("dropped-rowsum", lambda a, d_a: a * d_a),
        diagnose.matches("plain-mean", lambda a, d_a: a * (d_a - d_a.mean())),
        diagnose.matches("outer-weight-missing", lambda a, d_a: d_a - a @ d_a),
        diagnose.matches("sign", lambda a, d_a: a * (a @ d_a - d_a)),
    ],
)


# ---------------------------------------------------------------- find the bug


def _scale(q):
    return 1.0 / math.sqrt(q.shape[-1])


def _ds(g, q, k, v, *, rowsum=True, plain_mean=False):
    """dS, recomputed with attn_core's weights; ``rowsum=False`` is the dropped-term slip,
    ``plain_mean=True`` the plain mean of dA subtracted instead of the weighted one."""
    a = ac.attention_weights(q, k)  # [..., L, S]
    d_a = g @ np.swapaxes(v, -1, -2)  # [..., L, S]
    centre = np.sum(d_a * a, axis=-1, keepdims=True) if rowsum else 0.0
    if plain_mean:
        centre = np.mean(d_a, axis=-1, keepdims=True)
    return a * (d_a - centre)


def _backward_cases():
    r = np.random.default_rng(81)
    ex = quanta_example()
    cases = [Case("the worked example, dL/do = (1, -1)", (_TEXT_G[None], ex.query[None], *ex[1:]))]
    for label, (L, E, Ev) in (("4 tokens, d_k = 3", (4, 3, 2)), ("6 tokens, d_k = 8", (6, 8, 4))):
        x = [r.normal(size=(L, E)), r.normal(size=(L, E)), r.normal(size=(L, Ev))]
        cases.append(Case(f"self-attention, {label}", (r.normal(size=(L, Ev)), *x)))
    b = [r.normal(size=(2, 5, 4)), r.normal(size=(2, 5, 4)), r.normal(size=(2, 5, 3))]
    cases.append(Case("a batch of 2, 5 tokens", (r.normal(size=(2, 5, 3)), *b), batched=True))
    for lead, _ in _cases.leads():  # self-attention (L = S) at every leading shape
        n, d, dv, _ = _cases.sizes(lead)
        x = [
            r.normal(size=(*lead, n, d)),
            r.normal(size=(*lead, n, d)),
            r.normal(size=(*lead, n, dv)),
        ]
        cases.append(
            _cases.case(
                "sizes-v", [r.normal(size=(*lead, n, dv)), *x], lead=lead, L=n, S=n, d=d, dv=dv
            )
        )
    return cases


def _cross_cases():
    """Every case, and cross-attention (L ≠ S) at every leading shape, and spread scores."""
    r = np.random.default_rng(82)
    found = _backward_cases()
    for c in _cases.qkv_cases(r) + _cases.spread_qkv_cases(r):
        q, k, v = c.args
        d_out = r.normal(size=(*q.shape[:-1], v.shape[-1])).astype(q.dtype)
        found.append(dataclasses.replace(c, args=(d_out, q, k, v)))
    return found


def _self_attention_cases():
    """Self-attention only (L = S), where dS Q has the shape of dSᵀ Q and runs silently; with
    the square spread table among them (a softmax without its max-subtraction overflows)."""
    r = np.random.default_rng(83)
    spread = []
    for c in _cases.spread_qkv_cases(r, square=True):
        q, k, v = c.args
        d_out = r.normal(size=(*q.shape[:-1], v.shape[-1]))
        spread.append(dataclasses.replace(c, args=(d_out, q, k, v)))
    return _backward_cases()[1:] + spread


def query_gradient_buggy(d_out, Q, K, V):
    """dL/dQ of softmax(QKᵀ/√d_k) V. Q (..., L, d_k), K (..., S, d_k), V (..., S, d_v),
    d_out (..., L, d_v)."""
    d_k = Q.shape[-1]
    A = ac.attention_weights(Q, K)  # [..., L, S]
    dA = d_out @ np.swapaxes(V, -1, -2)  # [..., L, d_v] @ [..., d_v, S] -> [..., L, S]
    dS = A * dA  # the softmax step
    return dS @ K / math.sqrt(d_k)  # [..., L, S] @ [..., S, d_k] -> [..., L, d_k]


query_gradient = BugExercise(
    "ch8-bug-query-gradient",
    query_gradient_buggy,
    lambda g, q, k, v: ac.attention_backward(g, q, k, v)[0],
    _cross_cases,
    bug="dropped-rowsum",
    diagnoses=[
        diagnose.matches(
            "plain-mean", lambda g, q, k, v: _ds(g, q, k, v, plain_mean=True) @ k * _scale(q)
        ),
        diagnose.matches(
            "dropped-rowsum", lambda g, q, k, v: _ds(g, q, k, v, rowsum=False) @ k * _scale(q)
        ),
        diagnose.matches("forgot-scale-in-dq", lambda g, q, k, v: _ds(g, q, k, v) @ k),
    ],
)


def key_gradient_buggy(d_out, Q, K, V):
    """dL/dK of self-attention softmax(QKᵀ/√d_k) V. Q, K (..., n, d_k), V, d_out (..., n, d_v)."""
    d_k = Q.shape[-1]
    A = ac.attention_weights(Q, K)  # [..., n, n]
    dA = d_out @ np.swapaxes(V, -1, -2)  # [..., n, n]
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))  # [..., n, n]
    return dS @ Q / math.sqrt(d_k)  # [..., n, n] @ [..., n, d_k] -> [..., n, d_k]


key_gradient = BugExercise(
    "ch8-bug-key-gradient",
    key_gradient_buggy,
    lambda g, q, k, v: ac.attention_backward(g, q, k, v)[1],
    _self_attention_cases,
    bug="ds-not-transposed",
    diagnoses=[
        diagnose.matches("ds-not-transposed", lambda g, q, k, v: _ds(g, q, k, v) @ q * _scale(q)),
        diagnose.matches(
            "forgot-scale-in-dk", lambda g, q, k, v: np.swapaxes(_ds(g, q, k, v), -1, -2) @ q
        ),
        diagnose.matches(
            "dropped-rowsum",
            lambda g, q, k, v: np.swapaxes(_ds(g, q, k, v, rowsum=False), -1, -2) @ q * _scale(q),
        ),
        diagnose.kT_on_batch(lambda g, q, k, v: _ds(g, q, k, v).T @ q * _scale(q)),
    ],
)


# ---------------------------------------------------------------- predict and prove

which_vanishes = ChoiceExercise(
    "ch8-which-vanishes",
    options=[
        "dQ and dK, at d_k = 256",
        "dV, at d_k = 256",
        "dQ and dK, at d_k = 4",
        "all three, at d_k = 256",
    ],
    answer="dQ and dK, at d_k = 256",
)

_ROW_PARTS = np.array([0.318, -0.214])  # two entries of a row of dS; the third is asked for


missing_entry = NumberExercise(
    "ch8-missing-entry",
    (_ROW_PARTS,),
    lambda parts: -parts.sum(),
    diagnoses=[
        diagnose.matches("sign", lambda parts: parts.sum()),
        diagnose.matches("sums-to-one", lambda parts: 1.0 - parts.sum()),
    ],
)


EXERCISES = [
    dv_by_hand,
    ds_row_by_hand,
    query_gradient,
    key_gradient,
    which_vanishes,
    missing_entry,
]
