"""Chapter 12's exercises against values derived by hand or with plain-Python loops."""

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake, each_item, solution

from attn_book.exercises import ch12_linear_attention as ch12

GiB, MiB = 2**30, 2**20


def _phi(x):
    return x + 1 if x > 0 else math.exp(x)


def _linear_loop(Q, K, V):
    """Causal linear attention by loops: Σ_{s≤t} (φ(q_t)·φ(k_s)) v_s over Σ_{s≤t} φ(q_t)·φ(k_s)."""
    rows = []
    for t in range(len(Q)):
        fq = [_phi(x) for x in Q[t]]
        sims = [sum(a * _phi(b) for a, b in zip(fq, K[s], strict=True)) for s in range(t + 1)]
        rows.append([sum(w * V[s][c] for s, w in enumerate(sims)) / sum(sims) for c in (0, 1)])
    return rows


def test_phi_by_hand():
    # elu(-1) + 1 = e^-1; numpy's exp may differ from math.exp in the last bit (1.26's does here)
    assert ch12.phi_by_hand.expected().tolist() == pytest.approx(
        [1.5, math.exp(-1), 1.0, 3.0], rel=1e-15
    )
    assert ch12.phi_by_hand.check([1.5, 0.368, 1, 3]).ok
    assert ch12.phi_by_hand.check([0.5, -0.632, 0, 2]).diagnosis == "plus-one-forgotten"
    assert ch12.phi_by_hand.check([1.649, 0.368, 1, 7.389]).diagnosis == "exp-everywhere"
    assert ch12.phi_by_hand.check([1.5, 1, 1, 3]).diagnosis == "relu-plus-one"
    # the +1 on the first entry only, or on all but the third: elu(x) = (0.5, e^-1 - 1, 0, 2)
    assert ch12.phi_by_hand.check([1.5, -0.632, 0, 2]).diagnosis == "plus-one-partly"
    assert ch12.phi_by_hand.check([1.5, 0.368, 0, 3]).diagnosis == "plus-one-partly"


def test_state_two_tokens_by_hand():
    # φ(1, 0) = (2, 1), φ(0, 2) = (1, 3); S = v_1 φ(k_1)ᵀ + v_2 φ(k_2)ᵀ, d_v × d_k
    S = [[1 * 2 + 3 * 1, 1 * 1 + 3 * 3], [2 * 2 + 0 * 1, 2 * 1 + 0 * 3]]
    assert S == [[5, 10], [4, 2]]
    assert ch12.state_two_tokens.expected().tolist() == S
    assert ch12.state_two_tokens.check([[5, 4], [10, 2]]).diagnosis == "outer-transposed"
    assert ch12.state_two_tokens.check([[1, 6], [2, 0]]).diagnosis == "phi-forgotten"
    assert ch12.state_two_tokens.check([[3, 9], [0, 0]]).diagnosis == "last-token-only"


def test_read_the_state_by_hand():
    # φ(0, 1) = (1, 2): S φ(q) = (5 + 20, 4 + 4), z = (3, 4), z·φ(q) = 11
    np.testing.assert_allclose(ch12.read_the_state.expected(), [25 / 11, 8 / 11], rtol=1e-12)
    assert ch12.read_the_state.check([2.273, 0.727]).ok
    assert ch12.read_the_state.check([25, 8]).diagnosis == "normaliser-forgotten"
    assert ch12.read_the_state.check([2.5, 0.5]).diagnosis == "phi-of-q-forgotten"
    assert ch12.read_the_state.check([13 / 11, 14 / 11]).diagnosis == "state-transposed"


def test_chunk_outputs_are_the_loops_rows():
    Q, K, V = (a.tolist() for a in ch12.chunk_outputs.inputs)
    want = _linear_loop(Q, K, V)[ch12.CHUNK_START :]
    np.testing.assert_allclose(ch12.chunk_outputs.expected(), want, rtol=1e-12)
    # by hand: S_3 rows (6, 4), (4, 6), z_3 = (5, 5); token 4 adds (1, 1)ᵀ(3, 0),
    # token 5 adds (2, 2)ᵀ(0, 3)
    np.testing.assert_allclose(want, [[25 / 18, 14 / 18], [23 / 24, 34 / 24]], rtol=1e-12)
    assert ch12.chunk_outputs.check([[1.389, 0.778], [0.958, 1.417]]).ok
    assert ch12.chunk_outputs.check([[3, 0], [1, 2]]).diagnosis == "state-not-carried"
    assert ch12.chunk_outputs.check([[25 / 3, 14 / 3], [23 / 9, 34 / 9]]).diagnosis == (
        "normaliser-not-carried"
    )
    assert ch12.chunk_outputs.check([[25 / 24, 32 / 24], [23 / 24, 34 / 24]]).diagnosis == (
        "chunk-not-masked"
    )


def test_delta_step_by_hand():
    # S k = (0.6, 2.0), δ = (0.4, −1.0), β δ kᵀ = [[0.12, 0.16], [−0.3, −0.4]]
    np.testing.assert_allclose(ch12.delta_step.expected(), [[1.12, 0.16], [1.7, 0.6]], atol=1e-12)
    assert ch12.delta_step.check([[1.12, 0.16], [1.7, 0.6]]).ok
    assert ch12.delta_step.check([[1.3, 0.4], [2.3, 1.4]]).diagnosis == "no-correction"
    # Sᵀ k = (2.2, 0.8), δ = (−1.2, 0.2)
    assert ch12.delta_step.check([[0.64, -0.48], [2.06, 1.08]]).diagnosis == "read-transposed"
    assert ch12.delta_step.check([[1.12, -0.3], [2.16, 0.6]]).diagnosis == "outer-transposed"
    assert ch12.delta_step.check([[1.24, 0.32], [1.4, 0.2]]).diagnosis == "beta-forgotten"
    # β δ kᵀ alone: rows 0.5 · 0.4 · (0.6, 0.8) and 0.5 · (−1) · (0.6, 0.8), S not added
    assert ch12.delta_step.check([[0.12, 0.16], [-0.3, -0.4]]).diagnosis == "increment-only"


def _gated_loop(q, k, v, beta, decay):
    """The gated delta rule by plain loops over lists: S ← α S; S ← S + β (v − S k) kᵀ; o = S q."""
    E, Ev = len(k[0]), len(v[0])
    S = [[0.0] * E for _ in range(Ev)]
    out = []
    for t in range(len(q)):
        S = [[decay[t] * x for x in row] for row in S]
        read = [sum(S[i][j] * k[t][j] for j in range(E)) for i in range(Ev)]
        S = [
            [S[i][j] + beta[t] * (v[t][i] - read[i]) * k[t][j] for j in range(E)] for i in range(Ev)
        ]
        out.append([sum(S[i][j] * q[t][j] for j in range(E)) for i in range(Ev)])
    return out


def test_gated_delta_reference_is_the_loop():
    for case in ch12.gated_delta.cases():
        want = each_item(
            lambda *xs: _gated_loop(*(x.tolist() for x in xs)), *case.args, core=(2, 2, 2, 1, 1)
        )
        np.testing.assert_allclose(ch12.gated_delta.reference(*case.args), want, atol=1e-12)
        np.testing.assert_allclose(solution(ch12.gated_delta)(*case.args), want, atol=1e-12)


def test_with_beta_zero_nothing_is_written():
    case = next(c for c in ch12.gated_delta.cases() if "β = 0" in c.label)
    assert not ch12.gated_delta.reference(*case.args).any()


def test_hybrid_layers_by_hand():
    # one attention layer: 2 · 8 KV heads · 128 · 131,072 tokens · 2 bytes · 8 sequences = 4 GiB
    per_layer = 2 * 8 * 128 * 131072 * 2 * 8
    state = 32 * 128 * 128 * 2 * 8  # one linear layer's states: 8 MiB
    assert per_layer == 4 * GiB and state == 8 * MiB
    divisors = (1, 2, 3, 4, 6, 8, 12, 16, 24)
    fits = [a for a in divisors if a * per_layer + (48 - a) * state <= 48 * GiB]
    assert max(fits) == ch12.hybrid_layers.expected() == 8  # 12 needs 48 GiB + 36 · 8 MiB
    assert ch12.hybrid_layers.check(8).ok
    assert ch12.hybrid_layers.check(12).diagnosis == "states-forgotten"
    assert ch12.hybrid_layers.check(11).diagnosis == "not-a-divisor"
    assert ch12.hybrid_layers.check(16).diagnosis == "keys-only"
    assert ch12.hybrid_layers.check(24).diagnosis == "batch-forgotten"
    assert ch12.hybrid_layers.check(4).diagnosis == "fits-not-largest"


def test_indexer_scores_by_hand():
    # head 1, q = (1, −1): dots 1, −1, 1, −2.5, −1 -> ReLU 1, 0, 1, 0, 0 (weight 1)
    # head 2, q = (0, 1): dots 0, 1, 1, 0.5, 2, all kept (weight 1.5)
    want = [a + 1.5 * b for a, b in zip([1, 0, 1, 0, 0], [0, 1, 1, 0.5, 2], strict=True)]
    assert ch12.indexer_scores.expected().tolist() == want == [1, 1.5, 2.5, 0.75, 3]
    assert ch12.indexer_scores.check([1, 1.5, 2.5, 0.75, 3]).ok
    assert ch12.indexer_scores.check([1, 0.5, 2.5, -1.75, 2]).diagnosis == "relu-forgotten"
    assert ch12.indexer_scores.check([1, 0.5, 2.5, 0, 2]).diagnosis == "relu-after-sum"
    assert ch12.indexer_scores.check([1, 1, 2, 0.5, 2]).diagnosis == "weights-forgotten"


def _gated_delta_answer(q, k, v, beta, decay):
    return ch12._delta_loop(q, k, v, beta, decay)


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis.
ANSWERS = {
    "ch12-phi-by-hand": Answers(
        solution=[1.5, 0.368, 1.0, 3.0],
        mistakes=[
            Mistake("elu alone", [0.5, -0.632, 0.0, 2.0], "plus-one-forgotten"),
            Mistake("e^x everywhere", [1.649, 0.368, 1.0, 7.389], "exp-everywhere"),
            Mistake("relu + 1", [1.5, 1.0, 1.0, 3.0], "relu-plus-one"),
            Mistake("+1 on the first entry only", [1.5, -0.632, 0.0, 2.0], "plus-one-partly"),
        ],
    ),
    "ch12-state-two-tokens": Answers(
        solution=[[5.0, 10.0], [4.0, 2.0]],
        mistakes=[
            Mistake("φ(k) vᵀ", [[5.0, 4.0], [10.0, 2.0]], "outer-transposed"),
            Mistake("raw keys", [[1.0, 6.0], [2.0, 0.0]], "phi-forgotten"),
            Mistake("second token only", [[3.0, 9.0], [0.0, 0.0]], "last-token-only"),
        ],
    ),
    "ch12-read-the-state": Answers(
        solution=[2.273, 0.727],
        mistakes=[
            Mistake("no normaliser", [25.0, 8.0], "normaliser-forgotten"),
            Mistake("q without φ", [2.5, 0.5], "phi-of-q-forgotten"),
            Mistake("φ(q)ᵀ S", [1.182, 1.273], "state-transposed"),
        ],
    ),
    "ch12-chunk-outputs": Answers(
        solution=[[1.389, 0.778], [0.958, 1.417]],
        mistakes=[
            Mistake("the chunk alone", [[3.0, 0.0], [1.0, 2.0]], "state-not-carried"),
            Mistake("z_3 left out", [[8.333, 4.667], [2.556, 3.778]], "normaliser-not-carried"),
            Mistake("no mask", [[1.042, 1.333], [0.958, 1.417]], "chunk-not-masked"),
        ],
    ),
    "ch12-delta-step": Answers(
        solution=[[1.12, 0.16], [1.7, 0.6]],
        mistakes=[
            Mistake("β v kᵀ", [[1.3, 0.4], [2.3, 1.4]], "no-correction"),
            Mistake("Sᵀ k", [[0.64, -0.48], [2.06, 1.08]], "read-transposed"),
            Mistake("k δᵀ", [[1.12, -0.3], [2.16, 0.6]], "outer-transposed"),
            Mistake("β = 1", [[1.24, 0.32], [1.4, 0.2]], "beta-forgotten"),
            Mistake("β δ kᵀ alone", [[0.12, 0.16], [-0.3, -0.4]], "increment-only"),
        ],
    ),
    "ch12-gated-delta": Answers(
        solution=_gated_delta_answer,
        mistakes=[
            Mistake(
                "no correction",
                lambda *a: ch12._delta_loop(*a, correct=False),
                "no-correction",
            ),
            Mistake(
                "decay after the write",
                lambda *a: ch12._delta_loop(*a, decay_first=False),
                "decay-after-write",
            ),
            Mistake(
                "reads S_{t−1}",
                lambda *a: ch12._delta_loop(*a, read_after=False),
                "read-before-write",
            ),
        ],
    ),
    "ch12-hybrid-layers": Answers(
        solution=8,
        mistakes=[
            Mistake("no states", 12, "states-forgotten"),
            Mistake("keys only", 16, "keys-only"),
            Mistake("one sequence", 24, "batch-forgotten"),
            Mistake("not a divisor", 11, "not-a-divisor"),
            Mistake("fits, but 48 layers do not split into 10 groups", 10, "not-a-divisor"),
            Mistake("fewer", 4, "fits-not-largest"),
        ],
    ),
    "ch12-indexer-scores": Answers(
        solution=[1.0, 1.5, 2.5, 0.75, 3.0],
        mistakes=[
            Mistake("no ReLU", [1.0, 0.5, 2.5, -1.75, 2.0], "relu-forgotten"),
            Mistake("ReLU of the sum", [1.0, 0.5, 2.5, 0.0, 2.0], "relu-after-sum"),
            Mistake("no weights", [1.0, 1.0, 2.0, 0.5, 2.0], "weights-forgotten"),
        ],
    ),
}
