"""StateFiller (chapter 12): the memories by hand and by loops, and named errors."""

import numpy as np
import pytest

pytest.importorskip("anywidget")

from attn_book.recall import recall_task
from attn_book.widgets import StateFiller
from attn_book.widgets.state_filler import fill, pairs

E1, E2 = [1.0, 0.0], [0.0, 1.0]


def test_pairs_are_the_recall_tasks_first_memory():
    keys, values, pair_of = pairs(3, 4, 4, rewrite=True)
    task = recall_task(3, 4, d_v=4, trials=1, rewrite=True)
    assert pair_of == [0, 1, 2, 0, 1, 2]
    assert np.array_equal(keys, task.keys[0]) and np.array_equal(values, task.values[0])
    assert np.allclose(np.linalg.norm(keys, axis=1), 1)  # unit keys
    assert np.array_equal(keys[:3], keys[3:])  # each key written twice
    assert pairs(5, rewrite=False)[2] == [0, 1, 2, 3, 4]


def test_linear_state_is_the_sum_of_outer_products_by_loop():
    keys, values, pair_of = pairs(3, 4, 4)
    for step in range(len(pair_of) + 1):
        S = np.zeros((4, 4))
        for j in range(step):  # S = Σ v_j k_jᵀ (d_v × d_k), entry by entry
            for m in range(4):
                for i in range(4):
                    S[m, i] += values[j, m] * keys[j, i]
        got = fill(keys, values, pair_of, step, "linear", 1)
        assert np.allclose(got["state"], S, atol=1e-15)
        assert np.allclose(got["recalled"], S @ keys[1], atol=1e-15)  # S k
        assert got["weights"] == [] and got["correction"] == []


def test_orthogonal_keys_recall_exactly_in_every_memory():
    keys, values = np.array([E1, E2]), np.array([[2.0, -1.0], [0.5, 3.0]])
    for method in ("softmax", "linear", "delta"):
        for query in (0, 1):
            got = fill(keys, values, [0, 1], 2, method, query)
            assert got["recalled"] == pytest.approx(values[query], abs=1e-6), method
            assert got["error"] == pytest.approx(0, abs=1e-6)


def test_the_delta_rule_by_hand_overwrites_a_rewritten_key():
    # keys e1, e2, e1 with values (1, 0), (0, 1), (5, 5), β = 1. By hand: S₂ = I; the third
    # token's correction is v − S₂ e1 = (5, 5) − (1, 0) = (4, 5), and S₃ e1 = (5, 5).
    keys, values = np.array([E1, E2, E1]), np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    got = fill(keys, values, [0, 1, 0], 3, "delta", 0)
    assert got["correction"] == [4.0, 5.0]
    assert got["recalled"] == [5.0, 5.0] and got["target"] == [5.0, 5.0] and got["error"] == 0
    assert got["state"] == [[5.0, 0.0], [5.0, 1.0]]  # S = I + (4, 5) e1ᵀ: row m is value dim m
    # linear attention piles the new value on the old one: (1, 0) + (5, 5)
    linear = fill(keys, values, [0, 1, 0], 3, "linear", 0)
    assert linear["recalled"] == [6.0, 5.0] and linear["error"] == pytest.approx(1.0)
    # half strength: S₂ = 0.5 I, so S₃ e1 = (0.5, 0) + 0.5 · ((5, 5) − (0.5, 0)) = (2.75, 2.5)
    half = fill(keys, values, [0, 1, 0], 3, "delta", 0, beta=0.5)
    assert half["recalled"] == pytest.approx([2.75, 2.5])


def test_softmax_averages_the_stale_and_the_new_value():
    # one key written twice: equal scores, weights 1/2 each, whatever the scale
    keys, values = np.array([E1, E1]), np.array([[1.0, 0.0], [0.0, 1.0]])
    got = fill(keys, values, [0, 0], 2, "softmax", 0, softmax_scale=3.0)
    assert got["weights"] == [0.5, 0.5] and got["recalled"] == [0.5, 0.5]
    assert got["error"] == pytest.approx(np.sqrt(0.5))
    assert got["state"] == []  # a cache, no state


def test_an_unwritten_key_should_recall_nothing():
    keys, values, pair_of = pairs(3, 4, 4, rewrite=False)
    got = fill(keys, values, pair_of, 2, "linear", 2)  # key 3 is written at token 3
    assert not got["written"] and got["target"] == [0.0] * 4
    assert got["error"] == pytest.approx(np.linalg.norm(got["recalled"]))  # pure crosstalk
    empty = fill(keys, values, pair_of, 0, "delta", 0)
    assert empty["recalled"] == [0.0] * 4 and empty["correction"] == [] and empty["error"] == 0


def test_the_figure_follows_its_controls():
    fig = StateFiller()
    assert fig.step == 6 and fig.method == "delta"
    assert len(fig.key_vectors) == 6 and fig.pair_of == [0, 1, 2, 0, 1, 2]
    want = fill(fig.key_vectors, fig.value_vectors, fig.pair_of, 6, "delta", 0)
    assert fig.recalled == want["recalled"] and fig.error == want["error"]
    fig.step = 4  # key 1 just rewritten: the delta rule returns its new value exactly
    assert fig.error == pytest.approx(0, abs=1e-12)
    assert fig.target == fig.value_vectors[3]
    fig.method = "softmax"
    assert len(fig.weights) == 4 and fig.state == []
    fig.query, fig.step = 2, 1  # key 3 not written yet
    assert not fig.written
    fig.n_pairs = 2  # fewer keys: the query and the step stay in range
    assert fig.query == 1 and fig.step == 1 and len(fig.pair_of) == 4


def test_bad_input_names_the_argument():
    fig = StateFiller()
    with pytest.raises(ValueError, match=r"method must be one of \('softmax', 'linear', 'delta'\)"):
        fig.method = "sparse"
    with pytest.raises(ValueError, match=r"step must be an integer in 0\.\.6, got 7"):
        fig.step = 7
    with pytest.raises(ValueError, match=r"query must be an integer in 0\.\.2, got 3"):
        fig.query = 3
    with pytest.raises(ValueError, match=r"beta must be in \[0, 1\].*got 1\.5"):
        fig.beta = 1.5
    with pytest.raises(ValueError, match=r"n_pairs must be an integer in 1\.\.6, got 7"):
        fig.n_pairs = 7
    assert fig.step == 6 and fig.error == pytest.approx(0.5007, abs=1e-4)  # unchanged
    with pytest.raises(ValueError, match=r"step must be an integer in 0\.\.4, got 5"):
        StateFiller(n_pairs=2, step=5)
    assert StateFiller(n_pairs=6, step=12).step == 12  # checked once n_pairs is known


def test_repr_names_the_state():
    assert repr(StateFiller(method="linear", step=2)) == (
        "StateFiller(n_pairs=3, rewrite=True, method='linear', step=2, query=0, beta=1)"
    )
