"""Chapter 12's associative-recall experiment, against hand maths and plain loops: the
delta rule's state written step by step, linear attention's readout as the answer plus the
crosstalk term, exact recall with orthonormal keys, and the shape of the sweep."""

import numpy as np
import pytest

from attn_book import recall as rc


def _delta_by_loop(keys, values):
    """S ← S + (v − S k) kᵀ, one pair at a time (β = 1), for one trial."""
    S = np.zeros((values.shape[-1], keys.shape[-1]))
    for k, v in zip(keys, values, strict=True):
        S = S + np.outer(v - S @ k, k)
    return S


def test_the_delta_memory_is_the_state_written_by_hand():
    task = rc.recall_task(10, 6, d_v=5, trials=3, rewrite=True, seed=2)
    got = rc.recalled(task, "delta")
    for t in range(3):
        S = _delta_by_loop(task.keys[t], task.values[t])
        np.testing.assert_allclose(got[t], task.queries[t] @ S.T, rtol=1e-12, atol=1e-14)


def test_the_linear_memory_is_the_answer_plus_crosstalk():
    task = rc.recall_task(12, 8, d_v=5, trials=2, seed=3)
    got = rc.recalled(task, "linear")
    for t in range(2):
        k, v = task.keys[t], task.values[t]
        for i in range(12):
            crosstalk = sum((k[i] @ k[j]) * v[j] for j in range(12) if j != i)
            np.testing.assert_allclose(got[t, i], v[i] + crosstalk, rtol=1e-12, atol=1e-14)


def _phi(x):
    """elu + 1, written out: x + 1 above 0, e^x below."""
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))


@pytest.mark.parametrize("scale", [1.0, 16.0])
def test_the_elu_memory_is_katharopoulos_normalised_sum_on_scaled_keys(scale):
    task = rc.recall_task(5, 4, d_v=3, trials=1, seed=4)
    k, v, q = scale * task.keys[0], task.values[0], scale * task.queries[0]
    want = [
        sum((_phi(qi) @ _phi(kj)) * vj for kj, vj in zip(k, v, strict=True))
        / sum(_phi(qi) @ _phi(kj) for kj in k)
        for qi in q
    ]
    got = rc.recalled(task, "linear_elu", scale=scale)[0]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_elu_memory_by_hand_on_two_opposite_keys():
    # d_k = 1: keys (1) and (−1), values e1 and e2. Scaled by 16, φ(16) = 17 and
    # φ(−16) = e^−16, so key 1 reads (17·17 e1 + 17 e^−16 e2) / (17 (17 + e^−16)); unscaled,
    # φ(1) = 2 and φ(−1) = e^−1, and the read is (2 e1 + e^−1 e2) / (2 + e^−1).
    keys = np.array([[[1.0], [-1.0]]])
    values = np.eye(2)[None]
    task = rc.RecallTask(keys, values, keys, values, values[:, :0])
    small = np.exp(-16.0)
    np.testing.assert_allclose(
        rc.recalled(task, "linear_elu")[0, 0], np.array([17, small]) / (17 + small), rtol=1e-12
    )
    np.testing.assert_allclose(
        rc.recalled(task, "linear_elu", scale=1.0)[0, 0],
        np.array([2, np.exp(-1)]) / (2 + np.exp(-1)),
        rtol=1e-12,
    )
    # key 2 unscaled: φ(−1)φ(1) = 2e^−1 on e1, φ(−1)² = e^−2 on e2; still nearer e2
    np.testing.assert_allclose(
        rc.recalled(task, "linear_elu", scale=1.0)[0, 1],
        np.array([2 * np.exp(-1), np.exp(-2)]) / (2 * np.exp(-1) + np.exp(-2)),
        rtol=1e-12,
    )


def test_the_normaliser_does_not_change_what_is_recalled():
    # φ(q)ᵀS / φ(q)ᵀz: dividing by a positive number leaves every cosine as it was
    task = rc.recall_task(24, 16, d_v=8, trials=2, seed=9)
    k, q = 16 * task.keys, 16 * task.queries
    unnormalised = _phi(q) @ (np.swapaxes(_phi(k), -1, -2) @ task.values)  # φ(q)ᵀ Σ φ(k) vᵀ
    got = rc.recalled(task, "linear_elu")
    assert rc.recall_score(task, unnormalised) == rc.recall_score(task, got)


def test_elu_on_scaled_keys_recalls_well_above_chance_on_unit_keys_near_it():
    sweep = rc.recall_sweep((4, 16, 64), 16, methods=("linear_elu",))
    unit = rc.recall_sweep((4, 16, 64), 16, methods=("linear_elu",), scale=1.0)
    assert (sweep.accuracy["linear_elu"] > 3 * sweep.chance).all()
    assert (unit.accuracy["linear_elu"] < 2 * unit.chance).all()  # φ(k) ≈ 1 + k: mostly 1


def test_chance_is_one_over_the_values_each_query_chooses_among():
    once = rc.recall_sweep((4, 16), 16, methods=("linear",))
    twice = rc.recall_sweep((4, 16), 16, methods=("linear",), rewrite=True)
    np.testing.assert_array_equal(once.chance, [1 / 4, 1 / 16])
    np.testing.assert_array_equal(twice.chance, [1 / 8, 1 / 32])  # the stale values too


@pytest.mark.parametrize("n", [1, 5, 16])
def test_orthonormal_keys_up_to_d_k_are_recalled_exactly(n):
    task = rc.recall_task(n, 16, keys="orthonormal", seed=5)
    np.testing.assert_allclose(
        task.keys @ np.swapaxes(task.keys, -1, -2), np.eye(n) + np.zeros((8, 1, 1)), atol=1e-12
    )
    for method in ("delta", "linear"):  # linear: no normaliser, so no crosstalk at all
        np.testing.assert_allclose(rc.recalled(task, method), task.answers, atol=1e-12)
        assert rc.recall_score(task, rc.recalled(task, method)) == (1.0, 1.0)
    assert rc.recall_score(task, rc.recalled(task, "softmax")).accuracy == 1.0


def test_positive_features_blur_even_orthonormal_keys():
    task = rc.recall_task(8, 16, keys="orthonormal", seed=6)
    assert rc.recall_score(task, rc.recalled(task, "linear_elu")).cosine < 0.9


def test_recall_falls_with_n_beyond_d_k_and_softmax_keeps_it():
    sweep = rc.recall_sweep((16, 24, 32, 48, 64), 16, keys="orthonormal")
    for method in ("linear", "delta"):
        assert (np.diff(sweep.cosine[method]) < 0).all(), method  # crosstalk grows with N
        assert sweep.accuracy[method][0] == 1.0
        assert sweep.accuracy[method][-1] < 0.9
    assert (sweep.accuracy["softmax"] == 1.0).all()  # every pair kept
    assert (sweep.cosine["softmax"] > 0.99).all()


def test_only_the_delta_rule_keeps_the_newest_value_of_a_rewritten_key():
    sweep = rc.recall_sweep((4, 8), 16, rewrite=True)
    assert (sweep.accuracy["delta"] > 0.85).all()
    for method in ("softmax", "linear"):  # both average the stale and the new value
        assert (sweep.accuracy[method] < 0.7).all(), method
        assert (sweep.cosine[method] < 0.75).all(), method


def test_a_small_beta_turns_the_delta_rule_into_the_plain_sum():
    # S_t = S_{t-1} + β (v_t − S_{t-1} k_t) k_tᵀ = β Σ v_j k_jᵀ + O(β²): the plain sum, scaled
    task = rc.recall_task(32, 16, seed=8)
    tiny = rc.recalled(task, "delta", beta=1e-6) / 1e-6
    np.testing.assert_allclose(tiny, rc.recalled(task, "linear"), rtol=1e-4, atol=1e-4)
    rewrites = rc.recall_sweep((4, 8), 16, methods=("delta",), beta=1e-3, rewrite=True)
    assert (rewrites.accuracy["delta"] < 0.7).all()  # and averages old and new, as it does


def test_a_blunt_softmax_forgets_what_a_sharp_one_recalls():
    task = rc.recall_task(32, 16, seed=7)
    sharp = rc.recall_score(task, rc.recalled(task, "softmax"))
    blunt = rc.recall_score(task, rc.recalled(task, "softmax", scale=0.25))  # 1/√d_k
    assert sharp.cosine > 0.99 > 0.5 > blunt.cosine


def test_seeded_and_independent_per_n():
    a, b = rc.recall_task(8, seed=1), rc.recall_task(8, seed=1)
    np.testing.assert_array_equal(a.keys, b.keys)
    assert not np.array_equal(a.keys, rc.recall_task(8, seed=2).keys)
    np.testing.assert_allclose(np.linalg.norm(a.keys, axis=-1), 1.0)
    np.testing.assert_allclose(np.linalg.norm(a.answers, axis=-1), 1.0)
    first = rc.recall_sweep((4, 8), seed=3)
    again = rc.recall_sweep((8,), seed=3)  # N = 8 draws the same, whatever else is swept
    assert first.accuracy["delta"][1] == again.accuracy["delta"][0]


def test_bad_input_names_itself():
    with pytest.raises(ValueError, match="method must be one of"):
        rc.recalled(rc.recall_task(4), "mamba")
    with pytest.raises(ValueError, match=r"beta must be in \(0, 1\], got 1.5"):
        rc.recalled(rc.recall_task(4), "delta", beta=1.5)
    with pytest.raises(ValueError, match="keys must be one of"):
        rc.recall_task(4, keys="onehot")
    with pytest.raises(ValueError, match="n_pairs must be an integer >= 1"):
        rc.recall_task(0)
    with pytest.raises(ValueError, match=r"methods must be among .* got \['rnn'\]"):
        rc.recall_sweep((4,), methods=("softmax", "rnn"))
    with pytest.raises(
        ValueError, match=r"recalled_values must have the answers' shape \(8, 4, 64\)"
    ):
        rc.recall_score(rc.recall_task(4), np.zeros((8, 4)))


def _one_pair(recalled_vector):
    """One memory, one query: the answer e1, one stale value e2 (a decoy), in d_v = 3."""
    e = np.eye(3)
    task = rc.RecallTask(e[None, :1, :2], e[None, :2], e[None, :1, :2], e[None, :1], e[None, 1:2])
    return rc.recall_score(task, np.asarray(recalled_vector, dtype=float)[None, None])


def test_an_exact_tie_is_a_miss_not_a_hit():
    # e1 + e2 has cosine 1/√2 with the answer e1 and with the decoy e2: equally near both, so
    # it is not nearer the right value than every other (argmax, answer listed first, said 1)
    assert _one_pair([1.0, 1.0, 0.0]) == (0.0, round(1 / np.sqrt(2), 12))
    # a tie at the level of rounding (cosines 1/|r| and (1 − 1e-13)/|r|) is a miss too
    assert _one_pair([1.0, 1.0 - 1e-13, 0.0]).accuracy == 0.0
    # a margin far above the tolerance is a hit: cosines 1/|r| and 0.999999/|r|
    assert _one_pair([1.0, 1.0 - 1e-6, 0.0]).accuracy == 1.0
    assert _one_pair([1.0, 1.0 + 1e-6, 0.0]).accuracy == 0.0  # nearer the stale value


def test_the_plain_sum_ties_every_rewritten_orthonormal_key():
    # k_iᵀ S = v_stale,i + v_new,i exactly (orthonormal keys): a dead heat on every query,
    # so no query is recalled, and the mean cosine is that of v_new with v_stale + v_new
    task = rc.recall_task(8, 16, keys="orthonormal", rewrite=True, seed=5)
    got = rc.recall_score(task, rc.recalled(task, "linear"))
    s, n = task.decoys, task.answers
    want = np.mean(np.sum(n * (s + n), -1) / np.linalg.norm(s + n, axis=-1))
    assert got.accuracy == 0.0
    np.testing.assert_allclose(got.cosine, want, rtol=1e-10)


def test_hits_by_query_average_to_the_score_and_follow_the_write_order():
    task = rc.recall_task(64, 16, seed=0)
    got = rc.recalled(task, "delta")
    hits = rc.recall_hits(task, got)
    assert hits.shape == (8, 64)
    assert hits.mean() == rc.recall_score(task, got).accuracy
    # β = 1: the last key written is returned exactly (S k = v), so it is always recalled
    assert hits[:, -1].all()
