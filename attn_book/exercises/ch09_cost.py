"""Chapter 9's exercises: the n² cost and the online softmax.

By hand: :data:`weights_memory` (the bytes of one head's weights at a long
context) and :data:`online_step` (one step of the online softmax, where the
rescale factor is the classic slip). Prove, then compute: :data:`merge_halves`
(two halves of the keys, run apart, merged into one state). Predict then run:
:data:`time_slope` (the time's slope when the head width grows with n). Find
the bug: :data:`online_sum` (a chunked attention that forgets to rescale its
running sum).

Examples
--------
>>> weights_memory.check(16).ok
True
>>> online_step.check([2.0, 1.0, 5.0]).diagnosis
'no-rescale'
>>> merge_halves.check([2.368, 2.0, 1.368]).diagnosis
'merged-without-rescale'
>>> online_sum.check(online_sum.buggy).diagnosis
'sum-not-rescaled'
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

import attn_core as ac

from . import cases as _cases
from . import diagnose
from .kinds import BugExercise, ChoiceExercise, NumberExercise
from .records import Case, Diagnosis

GIB = 2**30  # bytes in a GiB (gibibyte)


# ------------------------------------------------------ one head's weights at 64k tokens, float32


def _weights_gib(n, dtype):
    """GiB of one head's n×n weights for one sequence, from attn_core's cost model."""
    return ac.attention_cost(1, 1, n, n, 1, dtype).score_bytes / GIB


weights_memory = NumberExercise(
    "ch9-weights-memory",
    (65536, "float32"),
    _weights_gib,
    diagnoses=[
        diagnose.matches("float16-bytes", lambda n, dtype: n * n * 2 / GIB),
        diagnose.matches("float64-bytes", lambda n, dtype: n * n * 8 / GIB),
        diagnose.matches("bits-not-bytes", lambda n, dtype: n * n * 32 / GIB),
        diagnose.matches("decimal-gigabytes", lambda n, dtype: n * n * 4 / 1e9),
        diagnose.matches("not-squared", lambda n, dtype: n * 4 / GIB),
        diagnose.matches("bytes-not-gib", lambda n, dtype: n * n * 4),
        diagnose.matches("counted-32-heads", lambda n, dtype: 32 * n * n * 4 / GIB),
    ],
)


# ------------------------------------------------------ the slope when d_k grows with n (predict)

time_slope = ChoiceExercise(
    "ch9-time-slope",
    options=["1", "2", "3"],
    answer="3",
    inputs=(1024, 8192, 16),  # n from 1024 to 8192, d_k = n / 16
)


# ------------------------------------------------------ one online-softmax step by hand


def _step(running_max, total, out, score, value):
    """ℓ' and the two entries of o' after one key, by attn_core's online softmax step."""
    state = ac.OnlineSoftmax(running_max, total, np.asarray(out, dtype=float), 1.0)
    new = ac.online_softmax_step(state, [score], [value])
    return [new.total, *new.out]


def _with_rescale(rescale_of, shift_new=True):
    """ℓ' and o' with the rescale factor ``rescale_of(m, m')`` (a slip, for the diagnoses)."""

    def step(m, total, out, score, value):
        new_max = max(m, score)
        r = rescale_of(m, new_max)
        e = math.exp(score - new_max) if shift_new else math.exp(score)
        return [total * r + e, *(np.asarray(out) * r + e * np.asarray(value))]

    return step


online_step = NumberExercise(
    "ch9-online-step",
    (0.0, 1.0, np.array([0.0, 2.0]), 1.0, np.array([1.0, 3.0])),
    _step,
    diagnoses=[
        diagnose.matches(
            "divided-already",
            lambda m, total, out, score, value: _divided(_step(m, total, out, score, value)),
        ),
        diagnose.matches("no-rescale", _with_rescale(lambda m, m_new: 1.0)),
        diagnose.matches("rescale-inverted", _with_rescale(lambda m, m_new: math.exp(m_new - m))),
        diagnose.matches(
            "new-term-not-shifted",
            _with_rescale(lambda m, m_new: math.exp(m - m_new), shift_new=False),
        ),
    ],
)


# ------------------------------------------------------ prove, then compute: two halves merged


def _state(scores, values):
    """(m, ℓ, o) of one query over ``scores`` and ``values``, by attn_core's online softmax."""
    state = ac.online_softmax_step(ac.online_softmax_start(len(values[0])), scores, values)
    return state.running_max, state.total, state.out


def _merged(scores_a, values_a, scores_b, values_b):
    """[ℓ, o₁, o₂] over all the keys, under their max: one pass over A then B, no merge rule."""
    state = ac.online_softmax_step(
        ac.online_softmax_start(len(values_a[0])),
        np.concatenate([scores_a, scores_b]),
        np.concatenate([values_a, values_b]),
    )
    return [state.total, *state.out]


def _merge_slip(*, rescale=True, under="larger", divide=False):
    """The merge done with a slip: no rescale, the smaller max kept, or o divided by ℓ."""

    def merge(scores_a, values_a, scores_b, values_b):
        (m_a, l_a, o_a), (m_b, l_b, o_b) = _state(scores_a, values_a), _state(scores_b, values_b)
        m = max(m_a, m_b) if under == "larger" else min(m_a, m_b)
        r_a, r_b = (math.exp(m_a - m), math.exp(m_b - m)) if rescale else (1.0, 1.0)
        total, out = l_a * r_a + l_b * r_b, o_a * r_a + o_b * r_b
        return [total, *(out / total if divide else out)]

    return merge


def _divided(answer):
    """[ℓ, o / ℓ]: the output given where the state was asked."""
    return [answer[0], *(np.asarray(answer[1:]) / answer[0])]


#: Half A: two keys, scores 1 and 0, values (1, 0) and (0, 1); half B: one key, score 2,
#: value (1, 1). Not the worked example, whose merged state the chapter's table shows.
_HALVES = (
    np.array([1.0, 0.0]),
    np.array([[1.0, 0.0], [0.0, 1.0]]),
    np.array([2.0]),
    np.array([[1.0, 1.0]]),
)

merge_halves = NumberExercise(
    "ch9-merge-halves",
    _HALVES,
    _merged,
    diagnoses=[
        diagnose.matches("merged-without-rescale", _merge_slip(rescale=False)),
        diagnose.matches("merged-under-smaller-max", _merge_slip(under="smaller")),
        diagnose.matches("divided-already", _merge_slip(divide=True)),
    ],
)


# ------------------------------------------------------ find the bug: the running sum


def blockwise_attention(q, k, v, block):
    """Attention of q (..., L, E) over k (..., S, E), v (..., S, Ev).

    The keys are visited ``block`` at a time.
    """
    scale = 1 / math.sqrt(q.shape[-1])
    m = np.full((*q.shape[:-1], 1), -np.inf)  # running max: [..., L, 1]
    total = np.zeros((*q.shape[:-1], 1))  # running sum: [..., L, 1]
    # running output: [..., L, Ev]
    out = np.zeros((*q.shape[:-1], v.shape[-1]))
    for start in range(0, k.shape[-2], block):
        stop = start + block
        keys, values = k[..., start:stop, :], v[..., start:stop, :]
        s = q @ np.swapaxes(keys, -1, -2) * scale  # [..., L, block]
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        rescale = np.exp(m - new_m)  # e^(m_old - m_new) <= 1
        e = np.exp(s - new_m)  # [..., L, block]
        total = total + e.sum(axis=-1, keepdims=True)
        out = out * rescale + e @ values  # [..., L, Ev]
        m = new_m
    return out / total


def _blockwise(q, k, v, block, *, rescale_sum=True, rescale_out=True, inverted=False):
    """The chunked loop with either rescale switched off, or taken upside down: the fix, or a
    slip."""
    scale = 1 / math.sqrt(q.shape[-1])
    m, total = np.full((*q.shape[:-1], 1), -np.inf), np.zeros((*q.shape[:-1], 1))
    out = np.zeros((*q.shape[:-1], v.shape[-1]))
    for start in range(0, k.shape[-2], block):
        keys, values = k[..., start : start + block, :], v[..., start : start + block, :]
        s = q @ np.swapaxes(keys, -1, -2) * scale
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        rescale = np.exp(new_m - m) if inverted else np.exp(m - new_m)
        e = np.exp(s - new_m)
        total = total * (rescale if rescale_sum else 1) + e.sum(axis=-1, keepdims=True)
        out = out * (rescale if rescale_out else 1) + e @ values
        m = new_m
    return out / total


def _all_nan(trials):
    """Every output of every case is NaN: the first block's rescale e^(m_new − (−inf)) = inf."""
    return all(t.got is not None and t.got.size > 0 and bool(np.isnan(t.got).all()) for t in trials)


def _output_not_rescaled(q, k, v, block):
    """The opposite slip: the sum rescaled, the output not."""
    return _blockwise(q, k, v, block, rescale_out=False)


def _reference(q, k, v, block):
    return ac.chunked_attention(q, k, v, block_size=block)


def _bug_cases():
    r = np.random.default_rng(7)
    rising = np.outer(np.arange(1.0, 7.0), [1.0, 0.0])  # scores grow along the keys
    return [
        Case(
            "one query (1, 0), 6 keys with rising scores, random values, blocks of 2",
            (np.array([[1.0, 0.0]]), rising, r.normal(size=(6, 2)), 2),
        ),
        Case(
            "4 queries, 9 keys, blocks of 4",
            (3 * r.normal(size=(4, 8)), 3 * r.normal(size=(9, 8)), r.normal(size=(9, 3)), 4),
        ),
        Case(
            "batch of 2: 3 queries, 5 keys, blocks of 2",
            (
                3 * r.normal(size=(2, 3, 4)),
                3 * r.normal(size=(2, 5, 4)),
                r.normal(size=(2, 5, 2)),
                2,
            ),
            batched=True,
        ),
        Case(
            "large scores: query (1000, 0), the same 6 keys, blocks of 2",
            (np.array([[1000.0, 0.0]]), rising, r.normal(size=(6, 2)), 2),
        ),
        Case(
            "3 queries, 5 keys, one key per block",
            (3 * r.normal(size=(3, 4)), 3 * r.normal(size=(5, 4)), r.normal(size=(5, 2)), 1),
        ),
        *[
            _cases.case(
                "block",
                [*c.args, 2],
                lead=lead,
                L=c.args[0].shape[-2],
                S=c.args[1].shape[-2],
                block=2,
            )
            for c, (lead, _) in zip(_cases.qkv_cases(r, float32=False), _cases.leads(), strict=True)
        ],
        *[_with_block(c, 3) for c in _cases.spread_qkv_cases(r)],
        _below_minus_1e9(r),
    ]


def _below_minus_1e9(r):
    """Scores all near -2·10⁹: a running maximum that starts at -1e9, not -inf, is wrong."""
    scores = -2e9 + r.normal(size=(2, 5))
    q, k = _cases.qk_for_scores(scores, d=7, rng=r)
    return _cases.case("far-below", [q, k, r.normal(size=(5, 3)), 2])


def _with_block(case, block):
    """A generated case with blocks of ``block`` keys (the spread row's top in the 2nd block)."""
    return dataclasses.replace(case, args=(*case.args, block))


online_sum = BugExercise(
    "bug-online-sum",
    blockwise_attention,
    _reference,
    _bug_cases,
    bug="sum-not-rescaled",
    diagnoses=[
        diagnose.matches("sum-not-rescaled", blockwise_attention),
        diagnose.matches("output-not-rescaled", _output_not_rescaled),
        Diagnosis("rescale-inverted", _all_nan),
    ],
)


EXERCISES = [weights_memory, time_slope, online_step, merge_halves, online_sum]
