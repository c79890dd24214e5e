"""Find the bug: five short implementations, each with one real-world mistake planted.

Each exercise is a :class:`BugExercise`: ``show()`` displays the buggy code (the
chapter prints it), the reader copies it, fixes the one mistake and passes the
fixed function to ``check``. Run unchanged, the buggy code gets its diagnosis.

======================  =======  ================================================
exercise                chapter  the planted mistake
======================  =======  ================================================
``kT_batch``            1        ``k.T`` on a batched array
``mask_fully_masked``   2        masking with -1e9, and a fully masked row
``softmax_wrong_axis``  2        softmax normalised over the wrong axis
``scale_d_model``       3        scaling by √d_model instead of √d_head
``heads_reshape``       3        reshaping into heads without transposing
======================  =======  ================================================

Examples
--------
>>> kT_batch.check(kT_batch.buggy).diagnosis
'kT-on-batch'
"""

from __future__ import annotations

import inspect
import math
import textwrap

import numpy as np

import attn_core as ac

from . import diagnose
from ._core import Case, Diagnosis, FunctionExercise, Mistake

__all__ = [
    "BugExercise",
    "heads_reshape",
    "kT_batch",
    "mask_fully_masked",
    "scale_d_model",
    "softmax_wrong_axis",
]


class Code(str):
    """Source text that displays as a highlighted Python block in a notebook."""

    def _repr_markdown_(self):
        return f"```python\n{self}```"

    def __repr__(self):
        return str(self)


class BugExercise(FunctionExercise):
    """A :class:`FunctionExercise` that starts from ``buggy``, whose bug is ``bug``.

    The buggy function itself is the first mistake: checking it must give the
    diagnosis named ``bug``.
    """

    kind = "find the bug"

    def __init__(self, id, title, buggy, reference, cases, *, bug, mistakes=(), **kw):
        self.buggy = buggy
        mistakes = [Mistake("the buggy code, unchanged", buggy, bug), *mistakes]
        super().__init__(id, title, reference, cases, mistakes=mistakes, **kw)

    def show(self):
        """The buggy source, to print in the chapter."""
        return Code(textwrap.dedent(inspect.getsource(self.buggy)))

    def _praise(self):
        return f"bug fixed — {self.title}: matches attn_core on all {len(self.cases())} cases."


def _rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- k.T on a batch (chapter 1)


def scores(q, k):
    """All scores q·k: q (..., L, E), k (..., S, E) -> (..., L, S)."""
    return q @ k.T  # [L, E] @ [E, S] -> [L, S]


def _fixed_scores(q, k):
    return q @ np.swapaxes(k, -1, -2)


def _score_cases():
    r = _rng(1)
    return [
        Case("3 queries, 5 keys, E=4", (r.normal(size=(3, 4)), r.normal(size=(5, 4)))),
        Case(
            "batch of 2, 3 queries, 5 keys",
            (r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4))),
            True,
        ),
        Case(
            "batch of 2, L = S = E = 2", (r.normal(size=(2, 2, 2)), r.normal(size=(2, 2, 2))), True
        ),
    ]


kT_batch = BugExercise(
    "bug-kT-batch",
    "scores for a batch",
    scores,
    ac.dot_scores,
    _score_cases,
    bug="kT-on-batch",
    diagnoses=[diagnose.kT_on_batch()],
    mistakes=[Mistake("np.transpose(k) is k.T", lambda q, k: q @ np.transpose(k), "kT-on-batch")],
    solution=_fixed_scores,
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
    r = _rng(2)
    pad = ac.padding_mask([3, 0], 3)  # (2, 1, 3): the second sequence is all padding
    return [
        Case("one row, key 2 masked", (r.normal(size=(1, 3)), np.array([[True, False, True]]))),
        Case(
            "second row fully masked",
            (r.normal(size=(2, 3)), np.array([[1, 1, 0], [0, 0, 0]], bool)),
        ),
        Case("batch of 2, one all padding", (r.normal(size=(2, 2, 3)), pad), True),
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


def _fixed_softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_cases():
    r = _rng(3)
    return [
        Case("3 queries, 4 keys", (r.normal(size=(3, 4)),)),
        Case(
            "huge scores, ±1000", (np.array([[1000.0, 998.0, -5.0], [-1000.0, -1001.0, -1002.0]]),)
        ),
        Case("batch of 2, 3 queries, 4 keys", (r.normal(size=(2, 3, 4)),), True),
    ]


softmax_wrong_axis = BugExercise(
    "bug-softmax-wrong-axis",
    "softmax over the keys",
    softmax_rows,
    ac.softmax,
    _softmax_cases,
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
    solution=_fixed_softmax_rows,
)


# ------------------------------------------------------ √d_model instead of √d_head (ch 3)


def head_weights(q, k, n_heads):
    """Each head's weights (..., H, T, T) from projected q, k (..., T, D)."""
    d_model = q.shape[-1]
    qh = ac.split_heads(q, n_heads)  # [..., H, T, d_head]
    kh = ac.split_heads(k, n_heads)  # [..., H, T, d_head]
    kh_t = np.swapaxes(kh, -1, -2)  # [..., H, d_head, T]
    scores = qh @ kh_t / np.sqrt(d_model)  # [..., H, T, T]
    return ac.softmax(scores, axis=-1)


def _head_weights(q, k, n_heads, scale=None):
    return ac.attention_weights(ac.split_heads(q, n_heads), ac.split_heads(k, n_heads), scale=scale)


def _fixed_head_weights(q, k, n_heads):
    d_head = q.shape[-1] // n_heads
    qh, kh = ac.split_heads(q, n_heads), ac.split_heads(k, n_heads)
    return ac.softmax(qh @ np.swapaxes(kh, -1, -2) / math.sqrt(d_head), axis=-1)


def _head_cases():
    r = _rng(4)
    return [
        Case("T=4, d_model=8, 2 heads", (3 * r.normal(size=(4, 8)), 3 * r.normal(size=(4, 8)), 2)),
        Case(
            "T=3, d_model=12, 4 heads", (3 * r.normal(size=(3, 12)), 3 * r.normal(size=(3, 12)), 4)
        ),
        Case(
            "batch of 2, T=3, d_model=6, 3 heads",
            (3 * r.normal(size=(2, 3, 6)), 3 * r.normal(size=(2, 3, 6)), 3),
            True,
        ),
    ]


scale_d_model = BugExercise(
    "bug-scale-d-model",
    "scaling each head",
    head_weights,
    _head_weights,
    _head_cases,
    bug="scaled-by-d-model",
    diagnoses=[
        diagnose.scaled_by_d_model(
            lambda q, k, h: _head_weights(q, k, h, 1 / math.sqrt(q.shape[-1]))
        ),
        diagnose.forgot_scale("d_head", lambda q, k, h: _head_weights(q, k, h, 1.0)),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake("no scale at all", lambda q, k, h: _head_weights(q, k, h, 1.0), "forgot-scale"),
        Mistake(
            "softmax over the queries",
            lambda q, k, h: np.swapaxes(_head_weights(q, k, h), -1, -2),
            "rows-not-normalised",
        ),
    ],
    solution=_fixed_head_weights,
)


# ------------------------------------------------------ heads without the transpose (ch 3)


def split(x, n_heads):
    """Split x (..., T, D) into heads: (..., H, T, D // H)."""
    *batch, T, D = x.shape
    return x.reshape(*batch, n_heads, T, D // n_heads)


def _fixed_split(x, n_heads):
    *batch, T, D = x.shape
    return np.swapaxes(x.reshape(*batch, T, n_heads, D // n_heads), -2, -3)


def _split_cases():
    r = _rng(5)
    return [
        Case("T=4, D=6, 2 heads", (r.normal(size=(4, 6)), 2)),
        Case("T=3, D=8, 4 heads", (r.normal(size=(3, 8)), 4)),
        Case("batch of 2, T=5, D=6, 3 heads", (r.normal(size=(2, 5, 6)), 3), True),
    ]


def _forgot_swap():
    def test(trials):
        return any(t.matches(np.swapaxes(t.expected, -2, -3)) for t in trials if not t.ok)

    return Diagnosis(
        "heads-not-swapped",
        "the right numbers in the wrong order of axes: (T, H, d_head) where (H, T, d_head) "
        "is due — swap two axes after the reshape.",
        test,
    )


heads_reshape = BugExercise(
    "bug-heads-reshape",
    "splitting into heads",
    split,
    ac.split_heads,
    _split_cases,
    bug="heads-no-transpose",
    diagnoses=[
        diagnose.heads_without_transpose(lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2], -1)),
        _forgot_swap(),
    ],
    mistakes=[
        Mistake(
            "reshape to (T, H, d_head), no swap",
            lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h),
            "heads-not-swapped",
        )
    ],
    solution=_fixed_split,
)
