"""Linear attention and the (gated) delta rule, against independent results.

Independent means: each formula written as plain loops over tokens (the normalised sums of
Katharopoulos et al.; the delta rule as a gradient step on ½‖S k − v‖²; fla's naive
recurrence, with its transposed state, scaled queries and log-decay, as we read it), the
parallel form against the recurrence, and three tokens multiplied out by hand.
"""

import math
import warnings

import numpy as np
import pytest

import attn_core as ac
from attn_core import delta_rule, elu_plus_one, linear_attention, linear_attention_recurrent

KEYS, VALUES = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]


def _phi(x):
    return [a + 1 if a > 0 else math.exp(a) for a in x]


def _linear_by_loops(q, k, v, causal=True):
    """o_i = sum_j (φq_i·φk_j) v_j / sum_j φq_i·φk_j over j <= i (or all j), one sequence."""
    out = []
    for i in range(len(q)):
        seen = range(i + 1) if causal else range(len(k))
        dots = [sum(a * b for a, b in zip(_phi(q[i]), _phi(k[j]), strict=True)) for j in seen]
        total = sum(dots)
        out.append([sum(d * v[j][c] for d, j in zip(dots, seen, strict=True)) / total
                    for c in range(len(v[0]))])  # fmt: skip
    return np.array(out)


# --------------------------------------------------------------- linear attention


def test_elu_plus_one_by_hand():
    np.testing.assert_allclose(elu_plus_one([2.0, 0.0, -1.0, -800.0]), [3.0, 1.0, 1 / math.e, 0.0])


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_the_parallel_form_equals_a_loop(seed, causal):
    rng = np.random.default_rng(seed)
    q, k, v = rng.standard_normal((6, 3)), rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    want = _linear_by_loops(q.tolist(), k.tolist(), v.tolist(), causal)
    np.testing.assert_allclose(linear_attention(q, k, v, causal=causal), want, rtol=1e-12)


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
def test_the_parallel_form_equals_the_recurrence(batch):
    rng = np.random.default_rng(len(batch))
    q, k = rng.standard_normal((*batch, 9, 4)), rng.standard_normal((*batch, 9, 4))
    v = rng.standard_normal((*batch, 9, 3))
    out, (S, z) = linear_attention_recurrent(q, k, v)
    np.testing.assert_allclose(out, linear_attention(q, k, v), rtol=1e-12)
    fk = elu_plus_one(k)
    np.testing.assert_allclose(S, np.swapaxes(fk, -1, -2) @ v, rtol=1e-12)  # Σ φ(k) vᵀ
    np.testing.assert_allclose(z, fk.sum(-2), rtol=1e-12)
    plain, _ = linear_attention_recurrent(q, k, v, normalize=False)
    np.testing.assert_allclose(plain, linear_attention(q, k, v, normalize=False), rtol=1e-12)


def test_one_query_sequence_read_by_several_heads_of_keys():
    rng = np.random.default_rng(9)
    q, k, v = (
        rng.standard_normal((6, 3)),
        rng.standard_normal((4, 6, 3)),
        rng.standard_normal((4, 6, 2)),
    )
    out, (S, z) = linear_attention_recurrent(q, k, v)
    assert out.shape == (4, 6, 2) and S.shape == (4, 3, 2) and z.shape == (4, 3)
    np.testing.assert_allclose(out, linear_attention(q, k, v), rtol=1e-12)
    got, S_delta = delta_rule(q, _unit(k), v, 0.5)
    for h in range(4):
        want, S_h = delta_rule(q, _unit(k[h]), v[h], 0.5)
        np.testing.assert_allclose(got[h], want, rtol=1e-13)
        np.testing.assert_allclose(S_delta[h], S_h, rtol=1e-13)


def test_the_state_carries_over_between_calls_and_decode_is_the_last_rows():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 8, 3)) for _ in range(3))
    full, _ = linear_attention_recurrent(q, k, v)
    first, state = linear_attention_recurrent(q[:, :5], k[:, :5], v[:, :5])
    second, _ = linear_attention_recurrent(q[:, 5:], k[:, 5:], v[:, 5:], state=state)
    np.testing.assert_allclose(np.concatenate([first, second], axis=1), full, rtol=1e-12)
    # the parallel form with fewer queries than keys: the newest L (bottom-right)
    np.testing.assert_allclose(linear_attention(q[:, 5:], k, v), full[:, 5:], rtol=1e-12)


def test_linear_attention_on_three_tokens_by_hand():
    # chapter 4's keys and values, the query (1, 0) at every step; φ(1) = 2, φ(0) = 1
    phi_q = [2.0, 1.0]
    phi_k = [[2.0, 1.0], [1.0, 2.0], [2.0, 2.0]]
    S, z, rows = np.zeros((2, 2)), np.zeros(2), []
    for fk, v in zip(phi_k, VALUES, strict=True):
        S = S + np.outer(fk, v)  # S_t = S_{t-1} + φ(k_t) v_tᵀ
        z = z + np.array(fk)
        rows.append(np.array(phi_q) @ S / (np.array(phi_q) @ z))
    assert np.allclose(rows, [[2, 0], [10 / 9, 8 / 9], [16 / 15, 14 / 15]])
    out, (S_T, z_T) = linear_attention_recurrent([[1.0, 0.0]] * 3, KEYS, VALUES)
    np.testing.assert_allclose(out, rows, rtol=1e-15)
    np.testing.assert_array_equal(S_T, [[2 * 2 + 0 + 2, 0 + 2 + 2], [2 * 1 + 0 + 2, 0 + 4 + 2]])
    np.testing.assert_array_equal(z_T, [5.0, 5.0])


def test_causal_with_more_queries_than_keys_is_refused_by_name():
    q, k = np.ones((2, 4, 3)), np.ones((2, 3, 3))  # L = 4 queries, S = 3 keys
    message = r"L must be <= S when causal: .* got L = 4, S = 3 \(query has shape \(2, 4, 3\)"
    with pytest.raises(ValueError, match=message) as refused:
        linear_attention(q, k, k)
    assert "feature map" not in str(refused.value) and "normaliser" not in str(refused.value)
    # not causal, every query sees all three keys: equal keys and values give the value back
    np.testing.assert_allclose(linear_attention(q, k, k, causal=False), np.ones((2, 4, 3)))
    # L <= S still works, bottom-right: the one query is the last of the three positions
    np.testing.assert_allclose(linear_attention(q[:, :1], k, k), np.ones((2, 1, 3)))


def test_another_feature_map_and_a_bad_one():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((5, 3)) for _ in range(3))
    # φ = exp: the table's entries are Σ_e e^(q_e) e^(k_e) (not e^(q·k)), still positive
    got = linear_attention(q, k, v, feature_map=np.exp)
    table = np.tril(np.exp(q) @ np.exp(k).T)
    np.testing.assert_allclose(got, table @ v / table.sum(-1, keepdims=True), rtol=1e-12)
    with pytest.raises(ValueError, match=r"normaliser .* <= 0 for some query"):
        linear_attention(q, k, v, feature_map=lambda x: x)  # signs: the normaliser may be <= 0
    with pytest.raises(ValueError, match="feature_map must map"):
        linear_attention(q, k, v, feature_map=lambda x: x.sum(-1))
    with pytest.raises(TypeError, match="feature_map must be a function"):
        linear_attention(q, k, v, feature_map="elu")


def test_bad_recurrence_input_names_it():
    with pytest.raises(ValueError, match="one query, key and value a step"):
        linear_attention_recurrent(np.zeros((2, 3)), np.zeros((4, 3)), np.zeros((4, 1)))
    with pytest.raises(ValueError, match=r"state's S must be \(..., F, Ev\) = \(3, 1\)"):
        linear_attention_recurrent(
            np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 1)), state=(np.zeros((3, 2)), 0)
        )


# --------------------------------------------------------------- the delta rule


def _delta_by_gradient_steps(q, k, v, beta, alpha):
    """One sequence: S ← αS, then S ← S - β ∂/∂S ½‖S k - v‖² = S - β (S k - v) kᵀ; o = S q."""
    S = np.zeros((v.shape[-1], k.shape[-1]))
    out = []
    for t in range(len(q)):
        S = alpha[t] * S
        gradient = np.outer(S @ k[t] - v[t], k[t])
        S = S - beta[t] * gradient
        out.append(S @ q[t])
    return np.array(out), S


def _fla_naive_semantics(q, k, v, beta, g, scale):
    """fla's naive recurrence as we read it: state h (E, Ev) = Sᵀ, q scaled, decay exp(g)."""
    h = np.zeros((k.shape[-1], v.shape[-1]))
    out = []
    for t in range(len(q)):
        h = h * math.exp(g[t])
        error = beta[t] * (v[t] - k[t] @ h)  # [Ev]: what the state misses for this key
        h = h + np.outer(k[t], error)
        out.append((q[t] * scale) @ h)
    return np.array(out), h


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_the_delta_rule_is_a_gradient_step_each_token(seed, gated):
    rng = np.random.default_rng(seed)
    T, E, Ev = 7, 4, 3
    q, k, v = (
        rng.standard_normal((T, E)),
        _unit(rng.standard_normal((T, E))),
        rng.standard_normal((T, Ev)),
    )
    beta = rng.uniform(0, 1, T)
    alpha = rng.uniform(0.5, 1, T) if gated else np.ones(T)
    want_out, want_S = _delta_by_gradient_steps(q, k, v, beta, alpha)
    out, S = delta_rule(q, k, v, beta, decay=alpha if gated else None)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(S, want_S, rtol=1e-12, atol=1e-14)


def test_the_delta_rule_matches_flas_naive_recurrence_with_heads():
    rng = np.random.default_rng(5)
    H, T, E, Ev = 3, 6, 4, 2
    q, k = rng.standard_normal((H, T, E)), _unit(rng.standard_normal((H, T, E)))
    v, beta = rng.standard_normal((H, T, Ev)), rng.uniform(0, 1, (H, T))
    g = -rng.uniform(0, 1, (H, T))  # fla's log-decay
    out, S = delta_rule(q / math.sqrt(E), k, v, beta, decay=np.exp(g))
    for h in range(H):
        want_out, want_h = _fla_naive_semantics(q[h], k[h], v[h], beta[h], g[h], E**-0.5)
        np.testing.assert_allclose(out[h], want_out, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(S[h], want_h.T, rtol=1e-12, atol=1e-14)  # fla's is Sᵀ


def test_the_delta_rule_on_three_tokens_by_hand():
    # unit keys e1, e2, e1 again; values 1, 2, 5 (Ev = 1); beta 1, then 1/2 at the third
    keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0], [2.0], [5.0]]
    # S1 = v1 k1ᵀ = [1, 0]; S2 = S1 + (2 - S1 k2) k2ᵀ = [1, 2];
    # S3 = S2 + 1/2 (5 - S2 k1) k1ᵀ = [1 + 2, 2] = [3, 2]: halfway from the old 1 to the new 5
    out, S = delta_rule(keys, keys, values, [1.0, 1.0, 0.5])
    np.testing.assert_array_equal(S, [[3.0, 2.0]])
    np.testing.assert_array_equal(out, [[1.0], [2.0], [3.0]])  # o_t = S_t k_t: the recall
    # linear attention's unnormalised sum would hold 1 + 5 for the first key: no correction
    S_linear = sum(np.outer(v, k) for k, v in zip(keys, values, strict=True))
    np.testing.assert_array_equal(S_linear, [[6.0, 2.0]])
    # a decay of 1/2 at the second token halves what was written before it
    _, S_gated = delta_rule(keys, keys, values, [1.0, 1.0, 1.0], decay=[1.0, 0.5, 1.0])
    np.testing.assert_array_equal(S_gated, [[5.0, 2.0]])


def test_unit_keys_stay_bounded_and_long_keys_blow_up():
    # the same key again and again: along k the state is multiplied by 1 - β‖k‖² each step
    T = 20
    out, _ = delta_rule(np.ones((T, 1)), np.ones((T, 1)), np.zeros((T, 1)), 1.0, state=[[1.0]])
    assert np.abs(out).max() == 0.0  # β‖k‖² = 1: the old value erased in one step
    long_keys = np.full((T, 1), 2.0)  # ‖k‖² = 4: factor 1 - 4 = -3 a step
    with pytest.warns(ac.DeltaRuleGrowthWarning, match=r"beta = 1 and \|\|k\|\|\^2 = 4"):
        out, S = delta_rule(long_keys, long_keys, np.zeros((T, 1)), 1.0, state=[[1.0]])
    np.testing.assert_allclose(S, [[(-3.0) ** T]])  # accepted, and it grows as 3^T


def _first_growing_step(k, beta):
    """(batch index..., t) of the first β_t ‖k_t‖² > 2, by loops over plain floats, or None."""
    k, beta = np.asarray(k, dtype=float), np.asarray(beta, dtype=float)
    for index in np.ndindex(beta.shape):
        squared = sum(float(x) ** 2 for x in k[index])
        if float(beta[index]) * squared > 2:
            return index, float(beta[index]), squared
    return None


@pytest.mark.parametrize("seed", range(12))
def test_delta_rule_warns_exactly_when_some_beta_k_squared_passes_two(seed):
    rng = np.random.default_rng(seed)
    B, T, E = 2, 5, 3
    k = rng.standard_normal((B, T, E)) * rng.uniform(0.3, 1.2)  # ‖k‖² from ~0 to a few
    beta = rng.uniform(0, 2, (B, T)) * (seed % 3 != 0)  # every third seed: β = 0, silent
    q, v = rng.standard_normal((B, T, E)), rng.standard_normal((B, T, 2))
    first = _first_growing_step(k, beta)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        delta_rule(q, k, v, beta)
    growth = [w for w in caught if issubclass(w.category, ac.DeltaRuleGrowthWarning)]
    if first is None:
        assert growth == []
        return
    (index, b, squared) = first
    assert len(growth) == 1  # once a call, naming the first such token
    message = str(growth[0].message)
    assert f"token {index[-1]} (batch index [{index[0]}])" in message
    assert f"beta = {b:.4g}" in message and f"||k||^2 = {squared:.4g}" in message
    assert "L2-normalise" in message and "(0, 2)" in message


def test_delta_rule_is_silent_at_the_boundary_and_for_unit_keys():
    k = np.array([[1.0, 0.0], [0.0, 1.0]])  # ‖k‖² = 1 exactly
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        delta_rule(k, k, k, [2.0, 2.0])  # β‖k‖² = 2: factor −1, bounded
        delta_rule(k, 2 * k, k, [0.5, 0.5])  # 0.5 · 4 = 2
    with pytest.warns(ac.DeltaRuleGrowthWarning, match=r"token 1\b.* beta = 0.51"):
        delta_rule(k, 2 * k, k, [0.5, 0.51])  # 0.51 · 4 = 2.04 > 2 at the second token
    assert issubclass(ac.DeltaRuleGrowthWarning, RuntimeWarning)


def test_the_state_carries_over_between_calls():
    rng = np.random.default_rng(6)
    q, k, v = (
        rng.standard_normal((2, 8, 3)),
        _unit(rng.standard_normal((2, 8, 3))),
        rng.standard_normal((2, 8, 2)),
    )
    beta, alpha = rng.uniform(0, 1, (2, 8)), rng.uniform(0.8, 1, (2, 8))
    full, S_full = delta_rule(q, k, v, beta, decay=alpha)
    first, S = delta_rule(q[:, :3], k[:, :3], v[:, :3], beta[:, :3], decay=alpha[:, :3])
    second, S_end = delta_rule(
        q[:, 3:], k[:, 3:], v[:, 3:], beta[:, 3:], decay=alpha[:, 3:], state=S
    )
    np.testing.assert_allclose(np.concatenate([first, second], axis=1), full, rtol=1e-12)
    np.testing.assert_allclose(S_end, S_full, rtol=1e-12)


def test_bad_gates_and_state_name_themselves():
    q = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"beta must be in \[0, 2\], but beta\[1\] = -0.5"):
        delta_rule(q, q, q, [0.5, -0.5, 0.5])
    with pytest.raises(ValueError, match=r"decay must be in \[0, 1\], .* log-decay"):
        delta_rule(q, q, q, 0.5, decay=[1.0, 1.2, 1.0])
    with pytest.raises(
        ValueError, match=r"beta of shape \(2,\) does not broadcast to \(..., T\) = \(3,\)"
    ):
        delta_rule(q, q, q, [0.5, 0.5])
    with pytest.raises(ValueError, match=r"state must be \(..., Ev, E\) = \(2, 2\)"):
        delta_rule(q, q, q, 0.5, state=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="one query, key and value a step"):
        delta_rule(np.zeros(2), q, q, 0.5)


def test_exported():
    names = {"delta_rule", "delta_rule_chunkwise", "linear_attention", "linear_attention_recurrent"}
    assert names <= set(ac.__all__)


def test_linear_state_bytes_is_the_state_the_recurrences_return():
    rng = np.random.default_rng(11)
    B, H, T, E, Ev = 2, 3, 5, 4, 6
    q, k, v = (
        rng.standard_normal((B, H, T, E)),
        rng.standard_normal((B, H, T, E)),
        rng.standard_normal((B, H, T, Ev)),
    )
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    _, state = ac.delta_rule(q, k, v, beta=0.5)
    assert state.nbytes == ac.linear_state_bytes(1, H, E, Ev, state.dtype, batch=B)
    _, (S, _) = ac.linear_attention_recurrent(q, k, v, feature_map=lambda x: x, normalize=False)
    assert S.nbytes == ac.linear_state_bytes(1, H, E, Ev, "float64", batch=B)


def test_a_hybrid_by_hand():
    # Qwen3-Next-80B-A3B: 48 layers, every fourth full attention (2 KV heads of 256), the
    # other 36 Gated DeltaNet (32 value heads, 128 × 128 states), bfloat16.
    states = ac.linear_state_bytes(36, 32, 128, 128, 2)
    assert states == 36 * 32 * 128 * 128 * 2
    assert ac.linear_state_bytes(36, 32, 128, 128, "bfloat16") == states
    cache = ac.kv_cache_bytes(12, 2, 256, 262_144, 2)
    assert cache == 2 * 12 * 2 * 256 * 262_144 * 2  # 6 GiB at 256K tokens; the states 36 MiB
    assert ac.linear_state_bytes(1, 1, 1, 1, 4, batch=3) == 12
    with pytest.raises(ValueError, match="d_v must be an integer >= 1"):
        ac.linear_state_bytes(1, 1, 1, 0, 2)
    with pytest.raises(TypeError, match="bytes_per_number must be a number of bytes"):
        ac.linear_state_bytes(1, 1, 1, 1, "two")


# --------------------------------------------------------------- the chunkwise (WY) form


def _delta_by_python_loops(q, k, v, beta):
    """The delta rule on plain floats, one sequence: S += β (v − S k) kᵀ, o = S q."""
    E, Ev = len(k[0]), len(v[0])
    S = [[0.0] * E for _ in range(Ev)]
    out = []
    for t in range(len(q)):
        read = [sum(S[r][c] * k[t][c] for c in range(E)) for r in range(Ev)]
        for r in range(Ev):
            for c in range(E):
                S[r][c] += beta[t] * (v[t][r] - read[r]) * k[t][c]
        out.append([sum(S[r][c] * q[t][c] for c in range(E)) for r in range(Ev)])
    return np.array(out), np.array(S)


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 11, 12])
def test_the_chunkwise_form_equals_the_recurrence(chunk_size):
    rng = np.random.default_rng(chunk_size)
    B, H, T, E, Ev = 2, 3, 11, 4, 5  # 3 and 5 do not divide 11; 11 is the whole sequence
    q, k = rng.standard_normal((B, H, T, E)), _unit(rng.standard_normal((B, H, T, E)))
    v, beta = rng.standard_normal((B, H, T, Ev)), rng.uniform(0, 1, (B, H, T))
    S0 = rng.standard_normal((B, H, Ev, E))
    want_out, want_S = delta_rule(q, k, v, beta, state=S0)
    out, S = ac.delta_rule_chunkwise(q, k, v, beta, chunk_size=chunk_size, state=S0)
    assert out.shape == (B, H, T, Ev) and S.shape == (B, H, Ev, E)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(S, want_S, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("chunk_size", [1, 4, 6, 9])
def test_the_chunkwise_form_equals_a_python_loop(chunk_size):
    rng = np.random.default_rng(40 + chunk_size)
    T, E, Ev = 9, 3, 2
    q, k = rng.standard_normal((T, E)), _unit(rng.standard_normal((T, E)))
    v, beta = rng.standard_normal((T, Ev)), rng.uniform(0, 2, T)  # β up to 2: bounded
    want_out, want_S = _delta_by_python_loops(q.tolist(), k.tolist(), v.tolist(), beta.tolist())
    out, S = ac.delta_rule_chunkwise(q, k, v, beta, chunk_size=chunk_size)
    np.testing.assert_allclose(out, want_out, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(S, want_S, rtol=1e-11, atol=1e-12)


def test_the_chunkwise_form_by_hand_and_in_two_calls():
    # keys e1, e2, e1; values 1, 2, 5; β 1, 1, 1/2: S3 = [3, 2] (as the recurrence's test)
    keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0], [2.0], [5.0]]
    out, S = ac.delta_rule_chunkwise(keys, keys, values, [1.0, 1.0, 0.5], chunk_size=2)
    np.testing.assert_allclose(S, [[3.0, 2.0]])
    np.testing.assert_allclose(out, [[1.0], [2.0], [3.0]])
    # the state carries over: tokens 1-2, then token 3 from their state
    _, S2 = ac.delta_rule_chunkwise(keys[:2], keys[:2], values[:2], [1.0, 1.0], chunk_size=2)
    out3, S3 = ac.delta_rule_chunkwise(
        keys[2:], keys[2:], values[2:], [0.5], chunk_size=2, state=S2
    )
    np.testing.assert_allclose(S3, [[3.0, 2.0]])
    np.testing.assert_allclose(out3, [[3.0]])


def test_the_chunkwise_form_warns_as_the_recurrence():
    k = np.full((3, 1), 2.0)  # β‖k‖² = 4 > 2
    with pytest.warns(ac.DeltaRuleGrowthWarning, match=r"token 0\b"):
        ac.delta_rule_chunkwise(k, k, k, 1.0, chunk_size=2)


def test_bad_chunkwise_input_names_it():
    q = np.zeros((5, 2))
    with pytest.raises(ValueError, match=r"chunk_size must be .*got 0"):
        ac.delta_rule_chunkwise(q, q, q, 0.5, chunk_size=0)
    with pytest.raises(ValueError, match=r"chunk_size must be an integer >= 1, got 2.5"):
        ac.delta_rule_chunkwise(q, q, q, 0.5, chunk_size=2.5)
    with pytest.raises(ValueError, match=r"query \(4, 2\), key \(5, 2\)"):
        ac.delta_rule_chunkwise(np.zeros((4, 2)), q, q, 0.5, chunk_size=2)
    with pytest.raises(ValueError, match=r"value.*\(4, 3\)"):
        ac.delta_rule_chunkwise(q, q, np.zeros((4, 3)), 0.5, chunk_size=2)
    with pytest.raises(ValueError, match=r"beta of shape \(4,\) does not broadcast .* \(5,\)"):
        ac.delta_rule_chunkwise(q, q, q, np.full(4, 0.5), chunk_size=2)
    with pytest.raises(ValueError, match=r"state must be \(..., Ev, E\) = \(2, 2\)"):
        ac.delta_rule_chunkwise(q, q, q, 0.5, chunk_size=2, state=np.zeros((3, 3)))
