"""Chapter 12's exercises: linear attention, its state, the delta rule, hybrids.

By hand: :data:`phi_by_hand` (elu + 1 of a small vector), :data:`state_two_tokens` (the
state after two tokens, where the transposed outer product is the classic slip),
:data:`read_the_state` (a query's output, with its normaliser) and :data:`delta_step` (one
delta-rule write). Prove, then compute: :data:`chunk_outputs` (a chunk's outputs from the
state before it plus the masked parallel form inside it). Write the function:
:data:`gated_delta` (the gated delta rule as a loop). A design question:
:data:`hybrid_layers` (the most full-attention layers a memory budget allows). By hand
again: :data:`indexer_scores` (the lightning indexer's scores for one query).

Examples
--------
>>> phi_by_hand.check([1.5, 0.368, 1, 3]).ok
True
>>> state_two_tokens.check([[5, 4], [10, 2]]).diagnosis
'outer-transposed'
>>> hybrid_layers.check(12).diagnosis
'states-forgotten'
"""

from __future__ import annotations

import itertools

import numpy as np

import attn_core as ac

from . import cases as _cases
from . import diagnose
from .kinds import FunctionExercise, NumberExercise
from .records import Case, Diagnosis

GIB = 2**30  # bytes in a GiB (gibibyte)


def _elu(x):
    """elu alone: x for x > 0, e^x − 1 otherwise."""
    return ac.elu_plus_one(x) - 1


# ------------------------------------------------------ φ = elu + 1, by hand

_X = (np.array([0.5, -1.0, 0.0, 2.0]),)


def _plus_one_on_some(x):
    """elu(x) with the +1 on some entries but not all, nor on none: every such answer."""
    masks = itertools.product((0.0, 1.0), repeat=len(x))
    return [_elu(x) + np.array(m) for m in masks if 0 < sum(m) < len(x)]


def _plus_one_partly():
    """Fires when the answer is elu(x) with the +1 added to some entries only."""
    return Diagnosis(
        "plus-one-partly",
        lambda trials: any(
            t.matches(alt) for t in trials if not t.ok for alt in _plus_one_on_some(*t.case.args)
        ),
        site=lambda t: {"values": _plus_one_on_some(*t.case.args)},
    )


phi_by_hand = NumberExercise(
    "ch12-phi-by-hand",
    _X,
    ac.elu_plus_one,
    diagnoses=[
        diagnose.matches("plus-one-forgotten", _elu),
        _plus_one_partly(),
        diagnose.matches("exp-everywhere", np.exp),
        diagnose.matches("relu-plus-one", lambda x: np.maximum(x, 0) + 1),
    ],
)


# ------------------------------------------------------ the state after two tokens, by hand

# two tokens: keys (1, 0) and (0, 2), values (1, 2) and (3, 0); a third query (0, 1) reads
_TWO = (np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[1.0, 2.0], [3.0, 0.0]]))


def _state(keys, values):
    """S_2 = v_1 φ(k_1)ᵀ + v_2 φ(k_2)ᵀ (d_v × d_k), from attn_core's recurrence's final state."""
    _, (S, _) = ac.linear_attention_recurrent(keys, keys, values)
    return S.T  # attn_core keeps Sᵀ (d_k × d_v); the chapter's S is d_v × d_k


state_two_tokens = NumberExercise(
    "ch12-state-two-tokens",
    _TWO,
    _state,
    diagnoses=[
        diagnose.matches("outer-transposed", lambda keys, values: _state(keys, values).T),
        diagnose.matches("phi-forgotten", lambda keys, values: values.T @ keys),
        diagnose.matches("last-token-only", lambda keys, values: _state(keys[1:], values[1:])),
    ],
)


# ------------------------------------------------------ a query reads the state, by hand

_READ = (np.array([0.0, 1.0]), *_TWO)


def _read(q, keys, values, *, normalise=True, feature=ac.elu_plus_one, transposed=False):
    """S φ(q) / zᵀ φ(q) (or a slip: no normaliser, no φ on q, Sᵀ read)."""
    S, z = _state(keys, values), ac.elu_plus_one(keys).sum(axis=0)
    f = feature(q)
    numerator = (S.T if transposed else S) @ f  # [2, 2] @ [2]: S φ(q)
    return numerator / (f @ z) if normalise else numerator


read_the_state = NumberExercise(
    "ch12-read-the-state",
    _READ,
    lambda q, keys, values: ac.linear_attention(q, keys, values, causal=False),
    diagnoses=[
        diagnose.matches("normaliser-forgotten", lambda *a: _read(*a, normalise=False)),
        diagnose.matches("phi-of-q-forgotten", lambda *a: _read(*a, feature=np.asarray)),
        diagnose.matches("state-transposed", lambda *a: _read(*a, transposed=True)),
    ],
)


# ------------------------------------------------------ prove, then compute: a chunk's outputs

# the chapter's three tokens (queries (1, 1), (0, 1), (1, 0)), then a chunk of two more tokens
_CHUNK = (
    np.array([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
    np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]),
    np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0], [3.0, 0.0], [0.0, 3.0]]),
)
CHUNK_START = 3  # tokens 4 and 5 (indices 3 and 4) are the chunk


def _chunk(Q, K, V, *, carried=True, carried_z=True, masked=True):
    """The chunk's outputs as inter + intra: the state before it, the masked table inside it."""
    c = CHUNK_START
    (S, z) = ac.linear_attention_recurrent(Q[:c], K[:c], V[:c])[1]  # S as attn_core: d_k × d_v
    fq, fk = ac.elu_plus_one(Q[c:]), ac.elu_plus_one(K[c:])  # [2, 2] each
    table = fq @ fk.T  # [2, 2]: φ(q_t)·φ(k_s) inside the chunk
    table = np.tril(table) if masked else table
    numerator = table @ V[c:] + (fq @ S if carried else 0.0)
    denominator = table.sum(axis=1) + (fq @ z if carried and carried_z else 0.0)
    return numerator / denominator[:, None]


chunk_outputs = NumberExercise(
    "ch12-chunk-outputs",
    _CHUNK,
    lambda Q, K, V: ac.linear_attention_recurrent(Q, K, V)[0][CHUNK_START:],
    diagnoses=[
        diagnose.matches("state-not-carried", lambda *a: _chunk(*a, carried=False)),
        diagnose.matches("normaliser-not-carried", lambda *a: _chunk(*a, carried_z=False)),
        diagnose.matches("chunk-not-masked", lambda *a: _chunk(*a, masked=False)),
    ],
)


# ------------------------------------------------------ one delta-rule step, by hand

# S (d_v × d_k) before the write, a unit key (0.6, 0.8), the value (1, 1), β = 0.5
_DELTA = (
    np.array([[1.0, 0.0], [2.0, 1.0]]),
    np.array([0.6, 0.8]),
    np.array([1.0, 1.0]),
    0.5,
)


def _delta(S, k, v, beta, *, read=lambda S, k: S @ k, subtract=True, outer=np.outer):
    """S + β (v − S k) kᵀ, or a slip: the read Sᵀ k, no subtraction, the outer product k δᵀ."""
    correction = v - read(S, k) if subtract else v
    return S + beta * outer(correction, k)


delta_step = NumberExercise(
    "ch12-delta-step",
    _DELTA,
    lambda S, k, v, beta: ac.delta_rule(k[None], k[None], v[None], [beta], state=S)[1],
    diagnoses=[
        diagnose.matches("no-correction", lambda *a: _delta(*a, subtract=False)),
        diagnose.matches("read-transposed", lambda *a: _delta(*a, read=lambda S, k: S.T @ k)),
        diagnose.matches(
            "outer-transposed", lambda *a: _delta(*a, outer=lambda d, k: np.outer(k, d))
        ),
        diagnose.matches("beta-forgotten", lambda S, k, v, beta: _delta(S, k, v, 1.0)),
        diagnose.matches("increment-only", lambda *a: _delta(*a) - a[0]),  # β δ kᵀ, no S
    ],
)


# ------------------------------------------------------ write the function: the gated delta rule


def _gated_delta(q, k, v, beta, decay):
    """attn_core's gated delta rule: the outputs (..., T, Ev)."""
    return ac.delta_rule(q, k, v, beta, decay=decay)[0]


def _delta_loop(q, k, v, beta, decay, *, correct=True, decay_first=True, read_after=True):
    """The recurrence as a loop, with one slip switched on (or none)."""
    S = np.zeros((*q.shape[:-2], v.shape[-1], k.shape[-1]))  # [..., d_v, d_k]
    out = np.zeros((*q.shape[:-1], v.shape[-1]))
    for t in range(q.shape[-2]):
        kt, vt, qt = k[..., t, :], v[..., t, :], q[..., t, :]
        a, b = decay[..., t, None, None], beta[..., t, None, None]
        before = S
        S = a * S if decay_first else S
        read = (S @ kt[..., None])[..., 0] if correct else 0.0
        S = S + b * (vt - read)[..., :, None] * kt[..., None, :]
        S = S if decay_first else a * S
        out[..., t, :] = ((S if read_after else before) @ qt[..., None])[..., 0]
    return out


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _delta_cases():
    r = np.random.default_rng(12)
    keys3 = _unit(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    values3 = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    twice = _unit(r.normal(size=(3, 4)))
    return [
        Case(
            "the chapter's three unit keys, β = 1, α = 1",
            (keys3.copy(), keys3, values3, np.ones(3), np.ones(3)),
        ),
        Case(
            "six random unit keys, β and α per token",
            (
                r.normal(size=(6, 4)),
                _unit(r.normal(size=(6, 4))),
                r.normal(size=(6, 3)),
                r.uniform(0.2, 1.0, 6),
                r.uniform(0.5, 1.0, 6),
            ),
        ),
        Case(
            "three keys, each written twice",
            (
                r.normal(size=(6, 4)),
                np.concatenate([twice, twice]),
                r.normal(size=(6, 2)),
                np.full(6, 0.9),
                np.full(6, 0.95),
            ),
        ),
        Case(
            "β = 0: nothing is written",
            (
                r.normal(size=(4, 3)),
                _unit(r.normal(size=(4, 3))),
                r.normal(size=(4, 2)),
                np.zeros(4),
                np.ones(4),
            ),
        ),
        Case(
            "2 heads of 5 tokens",
            (
                r.normal(size=(2, 5, 4)),
                _unit(r.normal(size=(2, 5, 4))),
                r.normal(size=(2, 5, 3)),
                r.uniform(0.2, 1.0, (2, 5)),
                r.uniform(0.5, 1.0, (2, 5)),
            ),
            batched=True,
        ),
        *[
            _cases.case(
                "sizes-v",
                [
                    r.normal(size=(*lead, n, d)),
                    _unit(r.normal(size=(*lead, n, d))),
                    r.normal(size=(*lead, n, dv)),
                    r.uniform(0.2, 1.0, (*lead, n)),
                    r.uniform(0.5, 1.0, (*lead, n)),
                ],
                lead=lead,
                L=n,
                S=n,
                d=d,
                dv=dv,
            )
            for lead, _ in _cases.leads()[1:]
            for n, d, dv, _ in [_cases.sizes(lead)]
        ],
    ]


gated_delta = FunctionExercise(
    "ch12-gated-delta",
    _gated_delta,
    _delta_cases,
    own="used-attn-core",  # the statement: plain NumPy, no attn_core
    diagnoses=[
        diagnose.matches("no-correction", lambda *a: _delta_loop(*a, correct=False)),
        diagnose.matches("decay-after-write", lambda *a: _delta_loop(*a, decay_first=False)),
        diagnose.matches("read-before-write", lambda *a: _delta_loop(*a, read_after=False)),
    ],
)


# ------------------------------------------------------ design: full-attention layers for a budget

# 48 layers; an attention layer caches 8 KV heads of 128, a linear one holds 32 states of
# 128 × 128; float16 (2 bytes); a batch of 8 sequences of 131,072 tokens; a budget of 48 GiB
_HYBRID = (48, 8, 32, 128, 131072, 2, 8, 48)


def _most_attention_layers(
    layers,
    kv_heads,
    heads,
    d,
    n,
    size,
    batch,
    budget_gib,
    *,
    keys_values=2,
    states=True,
    divides=True,
    per_batch=True,
):
    """The most full-attention layers (a divisor of ``layers``) whose cache and states fit."""
    b = batch if per_batch else 1

    def total(a):
        kv = keys_values / 2 * ac.kv_cache_bytes(a, kv_heads, d, n, size, b)
        return kv + (ac.linear_state_bytes(layers - a, heads, d, d, size, b) if states else 0)

    ok = [a for a in range(1, layers) if layers % a == 0 or not divides]  # a linear one stays
    return max([a for a in ok if total(a) <= budget_gib * GIB], default=0)


hybrid_layers = NumberExercise(
    "ch12-hybrid-layers",
    _HYBRID,
    _most_attention_layers,
    integer=True,  # a number of layers
    diagnoses=[
        diagnose.matches("states-forgotten", lambda *a: _most_attention_layers(*a, states=False)),
        diagnose.matches("keys-only", lambda *a: _most_attention_layers(*a, keys_values=1)),
        diagnose.matches("batch-forgotten", lambda *a: _most_attention_layers(*a, per_batch=False)),
        diagnose.not_a_divisor(
            "not-a-divisor",
            lambda layers, *rest: layers,
            lambda *a: _most_attention_layers(*a, divides=False),
        ),
        diagnose.rule("smaller-divisor", "fits-not-largest", of=_HYBRID[0]),
    ],
)


# ------------------------------------------------------ the lightning indexer's scores, by hand

# one query token with two indexer heads (1, −1) and (0, 1), weighted 1 and 1.5; five keys
_INDEX = (
    np.array([[[1.0, -1.0], [0.0, 1.0]]]),
    np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [-2.0, 0.5], [1.0, 2.0]]),
    np.array([[1.0, 1.5]]),
)


def _index_slip(q, keys, w, *, relu=lambda x: np.maximum(x, 0), weighted=True, late=False):
    """Σ_j w_j ReLU(q_j · k_s), or a slip: no ReLU, no weights, the ReLU after the sum."""
    dots = q[0] @ keys.T  # [H_I, S]
    heads = (w[0] if weighted else np.ones_like(w[0])) @ (dots if late else relu(dots))
    return relu(heads) if late else heads


indexer_scores = NumberExercise(
    "ch12-indexer-scores",
    _INDEX,
    lambda q, keys, w: ac.lightning_index_scores(q, keys, w)[0],
    diagnoses=[
        diagnose.matches("relu-forgotten", lambda *a: _index_slip(*a, relu=np.asarray)),
        diagnose.matches("relu-after-sum", lambda *a: _index_slip(*a, late=True)),
        diagnose.matches("weights-forgotten", lambda *a: _index_slip(*a, weighted=False)),
    ],
)


EXERCISES = [
    phi_by_hand,
    state_two_tokens,
    read_the_state,
    chunk_outputs,
    delta_step,
    gated_delta,
    hybrid_layers,
    indexer_scores,
]
