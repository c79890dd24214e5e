"""Chapter 7's exercises: many heads and masks.

Find the bug: :data:`heads_reshape` (heads made by a reshape alone) and
:data:`scale_d_model` (scaling each head by √d_model instead of √d_head), both
moved here from chapter 3 with the heads. By hand: :data:`padding_by_hand`.
Write the function: :data:`key_padding_weights` (the opposite mask convention
of ``torch.nn.MultiheadAttention``). Predict then run: :data:`heads_cost` and
:data:`float16_fill`.

Examples
--------
>>> padding_by_hand.check([0.401, 0.198, 0.401]).diagnosis
'padding-attended'
>>> heads_cost.check("×1").ok
True
>>> float16_fill.check("uniform").diagnosis
'chose-uniform'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac

from . import diagnose
from ._core import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis, Mistake

__all__ = [
    "EXERCISES",
    "float16_fill",
    "heads_cost",
    "heads_reshape",
    "key_padding_weights",
    "padding_by_hand",
    "scale_d_model",
]


# ------------------------------------------------------ √d_model instead of √d_head (ch 6)


def head_weights(q, k, n_heads):
    """Each head's weights (..., h, n, n) from q, k (..., n, D)."""
    d_model = q.shape[-1]
    qh = ac.split_heads(q, n_heads)  # [..., h, n, d_head]
    kh = ac.split_heads(k, n_heads)  # [..., h, n, d_head]
    kh_t = np.swapaxes(kh, -1, -2)  # [..., h, d_head, n]
    scores = qh @ kh_t / np.sqrt(d_model)  # [..., h, n, n]
    return ac.softmax(scores, axis=-1)


def _head_weights(q, k, n_heads, scale=None):
    return ac.attention_weights(ac.split_heads(q, n_heads), ac.split_heads(k, n_heads), scale=scale)


def _fixed_head_weights(q, k, n_heads):
    d_head = q.shape[-1] // n_heads
    qh, kh = ac.split_heads(q, n_heads), ac.split_heads(k, n_heads)
    return ac.softmax(qh @ np.swapaxes(kh, -1, -2) / math.sqrt(d_head), axis=-1)


def _head_cases():
    r = np.random.default_rng(4)
    return [
        Case("n=4, d_model=8, 2 heads", (3 * r.normal(size=(4, 8)), 3 * r.normal(size=(4, 8)), 2)),
        Case(
            "n=3, d_model=12, 4 heads", (3 * r.normal(size=(3, 12)), 3 * r.normal(size=(3, 12)), 4)
        ),
        Case(
            "batch of 2, n=3, d_model=6, 3 heads",
            (3 * r.normal(size=(2, 3, 6)), 3 * r.normal(size=(2, 3, 6)), 3),
            batched=True,
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


# ------------------------------------------------------ heads without the transpose (ch 6)


def split(x, n_heads):
    """Split x (..., n, D) into h = n_heads heads: (..., h, n, D // h)."""
    *batch, n, D = x.shape
    return x.reshape(*batch, n_heads, n, D // n_heads)


def _fixed_split(x, n_heads):
    *batch, n, D = x.shape
    return np.swapaxes(x.reshape(*batch, n, n_heads, D // n_heads), -2, -3)


def _split_cases():
    r = np.random.default_rng(5)
    return [
        Case("n=4, D=6, 2 heads", (r.normal(size=(4, 6)), 2)),
        Case("n=3, D=8, 4 heads", (r.normal(size=(3, 8)), 4)),
        Case("batch of 2, n=5, D=6, 3 heads", (r.normal(size=(2, 5, 6)), 3), batched=True),
    ]


def _forgot_swap():
    def test(trials):
        return any(t.matches(np.swapaxes(t.expected, -2, -3)) for t in trials if not t.ok)

    return Diagnosis(
        "heads-not-swapped",
        "the right numbers in the wrong order of axes: (n, h, d_head) where (h, n, d_head) "
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
            "reshape to (n, h, d_head), no swap",
            lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h),
            "heads-not-swapped",
        )
    ],
    solution=_fixed_split,
)


# ------------------------------------------------------ a padded key, by hand (ch 6)


def _padded_weights(query, keys, length):
    """Weights of one query over ``keys`` whose first ``length`` are real, the rest padding."""
    return ac.attention_weights(query, keys, ac.padding_mask(length, len(keys))[0])


_SEED = ac.seed_example()

padding_by_hand = NumberExercise(
    "ch7-padding-by-hand",
    "the weights with a padded key",
    (_SEED.query, _SEED.keys, 2),
    _padded_weights,
    diagnoses=[
        diagnose.matches(
            "padding-attended",
            "those are the weights over all three keys: the padding key must get weight 0, "
            "and the two real keys share the whole 1.",
            lambda q, k, n: ac.attention_weights(q, k),
        ),
        diagnose.matches(
            "wrong-end-masked",
            "the padding is at the end of the sentence: the last key is hidden, not the first.",
            lambda q, k, n: ac.attention_weights(q, k, np.arange(len(k)) >= len(k) - n),
        ),
        diagnose.matches(
            "padding-zeroed-not-renormalised",
            "you set the padding's weight to 0 but kept the other two as they were; the "
            "softmax runs over the real keys only, so their weights add up to 1 again.",
            lambda q, k, n: ac.attention_weights(q, k) * (np.arange(len(k)) < n),
        ),
    ],
    mistakes=[
        Mistake("the seed's weights, padding included", [0.401, 0.198, 0.401], "padding-attended"),
        Mistake("first key hidden", [0.0, 0.330, 0.670], "wrong-end-masked"),
        Mistake("zeroed, not renormalised", [0.401, 0.198, 0.0], "padding-zeroed-not-renormalised"),
    ],
    solution=[0.670, 0.330, 0.0],
)


# ------------------------------------------------------ key_padding_mask: True = ignore (ch 6)


def _weights_from_key_padding_mask(q, k, key_padding_mask):
    """attn_core's weights for a torch-style key_padding_mask (..., S), True = ignore."""
    may_attend = ~np.asarray(key_padding_mask, dtype=bool)  # [..., S], True = may attend
    return ac.attention_weights(q, k, may_attend[..., None, :])  # mask [..., 1, S]


def _kpm_cases():
    r = np.random.default_rng(61)
    return [
        Case(
            "one sentence: 3 queries, 4 keys, the last one padding",
            (r.normal(size=(3, 4)), r.normal(size=(4, 4)), np.array([False, False, False, True])),
        ),
        Case(
            "batch of 2: lengths 4 and 2, 3 queries each",
            (
                r.normal(size=(2, 3, 4)),
                r.normal(size=(2, 4, 4)),
                np.array([[False] * 4, [False, False, True, True]]),
            ),
            batched=True,
        ),
    ]


def _not_flipped(q, k, key_padding_mask):
    return ac.attention_weights(q, k, np.asarray(key_padding_mask)[..., None, :])


key_padding_weights = FunctionExercise(
    "ch7-key-padding-weights",
    "a key_padding_mask, read the other way round",
    _weights_from_key_padding_mask,
    _kpm_cases,
    diagnoses=[
        diagnose.matches(
            "convention-not-flipped",
            "your weights sit on the padding and skip the real words: "
            "torch.nn.MultiheadAttention's key_padding_mask says True = ignore, attn_core's "
            "attn_mask says True = may attend. Flip it with ~ first.",
            _not_flipped,
        ),
        diagnose.matches(
            "mask-not-applied",
            "the padding keys still get weight: pass the mask to ac.attention_weights as "
            "attn_mask.",
            lambda q, k, m: ac.attention_weights(q, k),
        ),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake("the mask passed as it is", _not_flipped, "convention-not-flipped"),
        Mistake("no mask", lambda q, k, m: ac.attention_weights(q, k), "mask-not-applied"),
        Mistake(
            "softmax over the queries",
            lambda q, k, m: ac.softmax(
                np.where(~np.asarray(m)[..., None, :], ac.dot_scores(q, k) / 2.0, -np.inf), -2
            ),
            "rows-not-normalised",
        ),
    ],
    solution=_weights_from_key_padding_mask,
)


# ------------------------------------------------------ the cost of many heads (ch 6)

heads_cost = ChoiceExercise(
    "ch7-heads-cost",
    "the cost of eight heads",
    options=["×1/8", "×1", "×8"],
    answer="×1",
    why_not={
        "×1/8": "each head's dot products are 8 times shorter, but there are 8 heads: "
        "count h × L × L × d_head.",
        "×8": "there are 8 times as many score matrices, but each dot product is 8 times "
        "shorter: count h × L × L × d_head.",
    },
    inputs=(512, 8),
)


# ------------------------------------------------------ -1e9 in float16 (ch 6)

float16_fill = ChoiceExercise(
    "ch7-float16-fill",
    "a fully masked row, -1e9 and float16",
    options=["zeros", "uniform", "NaN"],
    answer="NaN",
    why_not={
        "zeros": "nothing in np.where(mask, scores, -1e9) followed by a plain softmax makes a "
        "row zero; attn_core and torch's scaled_dot_product_attention do that on purpose.",
        "uniform": "that is what -1e9 gives in float32 or float64. Print np.float16(-1e9): "
        "float16 cannot hold it (and the mask keeps the scores float16: NumPy ≥ 2 does so "
        "on its own, and .astype(np.float16) does so in any NumPy).",
    },
)


EXERCISES = [
    heads_reshape,
    scale_d_model,
    heads_cost,
    padding_by_hand,
    key_padding_weights,
    float16_fill,
]
