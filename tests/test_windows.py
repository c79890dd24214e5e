"""Sliding windows and the ring-buffer KV cache, against independent results.

Independent means: the band mask written as a plain double loop over (query, key) with
positions counted by hand; Mistral's and Hugging Face's wordings of the window side by side;
the windowed full pass of attn_core (every cached decode step must give its row) and plain
loops over the slots of the ring.
"""

import numpy as np
import pytest

import attn_core as ac
from attn_core import KVCache, sliding_window_mask


def _band_by_loops(L, S, W):
    """Query i at position S - L + i sees key j when it is one of the W keys up to itself."""
    rows = []
    for i in range(L):
        at = S - L + i
        rows.append([at - W < j <= at for j in range(S)])
    return rows


@pytest.mark.parametrize(
    ("L", "S", "W"), [(1, 1, 1), (4, 4, 2), (3, 7, 3), (1, 9, 4), (6, 6, 1), (5, 5, 9), (0, 3, 2)]
)
def test_the_band_equals_a_loop(L, S, W):
    assert sliding_window_mask(L, S, W).tolist() == _band_by_loops(L, S, W)


def test_each_row_sees_min_of_w_and_its_position_plus_one_keys():
    mask = sliding_window_mask(8, 8, 3)
    assert mask.sum(axis=1).tolist() == [1, 2, 3, 3, 3, 3, 3, 3]
    assert mask.diagonal().all()  # a query always sees itself


def test_a_window_as_wide_as_the_sequence_is_the_causal_mask():
    for L, S in [(3, 3), (2, 5), (1, 4)]:
        np.testing.assert_array_equal(
            sliding_window_mask(L, S, S), ac.causal_mask_lower_right(L, S)
        )


def test_mistral_papers_wording_is_one_key_more_than_hugging_faces():
    # Mistral 7B's paper: "attends to hidden states from positions i - W to i" (W + 1 keys
    # read literally); Hugging Face's and Mistral's code: q - k < W (W keys). The trap, by hand.
    W, S = 3, 6
    paper = [[i - W <= j <= i for j in range(S)] for i in range(S)]
    ours = sliding_window_mask(S, S, W)
    assert ours.sum(axis=1).max() == W and np.sum(paper, axis=1).max() == W + 1
    np.testing.assert_array_equal(sliding_window_mask(S, S, W + 1), paper)


def test_the_receptive_field_of_k_windowed_layers_is_k_w_minus_1_plus_1():
    # Reachability through k layers: the boolean k-th power of the band (as integers, > 0).
    W, n = 3, 20
    band = sliding_window_mask(n, n, W).astype(int)
    reach = np.eye(n, dtype=int)
    for k in range(1, 5):
        reach = (band @ reach > 0).astype(int)
        assert reach[-1].sum() == k * (W - 1) + 1


def test_the_pytorch_convention_the_gpt_oss_reference_uses():
    # gpt-oss's reference adds tril(-inf, diagonal=-W) to the causal mask: hidden when q - k >= W
    torch = pytest.importorskip("torch")
    n, W = 7, 3
    causal = torch.triu(torch.full((n, n), -float("inf")), diagonal=1)
    banded = causal + torch.tril(torch.full((n, n), -float("inf")), diagonal=-W)
    np.testing.assert_array_equal(sliding_window_mask(n, n, W), torch.isfinite(banded).numpy())


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="window must be an integer >= 1, got 0"):
        sliding_window_mask(2, 2, 0)
    with pytest.raises(ValueError, match="L must be <= S"):
        sliding_window_mask(3, 2, 2)
    with pytest.raises(ValueError, match="window must be an integer"):
        sliding_window_mask(2, 2, 2.0)


# --------------------------------------------------------------- the ring buffer


@pytest.mark.parametrize("W", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
def test_the_ring_gives_every_row_of_the_windowed_full_pass(W, batch):
    rng = np.random.default_rng(W + 10 * len(batch))
    n, E, Ev = 13, 4, 3
    q, k = rng.standard_normal((*batch, n, E)), rng.standard_normal((*batch, n, E))
    v = rng.standard_normal((*batch, n, Ev))
    full = ac.scaled_dot_product_attention(q, k, v, sliding_window_mask(n, n, W))
    cache = KVCache(window=W)
    for t in range(n):  # decode: one position a step
        cache.append(k[..., t : t + 1, :], v[..., t : t + 1, :])
        step = cache.attend(q[..., t : t + 1, :])
        np.testing.assert_allclose(step, full[..., t : t + 1, :], rtol=1e-12, atol=1e-14)
        assert len(cache) == min(t + 1, W) and cache.keys.shape[-2] <= W
        assert cache.nbytes <= np.prod(batch, dtype=int) * W * (E + Ev) * 8


def test_the_ring_with_grouped_heads_and_a_prefill_chunk():
    rng = np.random.default_rng(1)
    W, n, prompt = 4, 11, 3  # the prompt fits in the window: one chunk, then decode
    q, k, v = (rng.standard_normal((2, h, n, 5)) for h in (6, 2, 2))  # Hq = 6, Hkv = 2
    full = ac.scaled_dot_product_attention(q, k, v, sliding_window_mask(n, n, W), enable_gqa=True)
    cache = KVCache(window=W)
    cache.append(k[..., :prompt, :], v[..., :prompt, :])
    got = cache.attend(q[..., :prompt, :], enable_gqa=True)
    np.testing.assert_allclose(got, full[..., :prompt, :], rtol=1e-12)
    for t in range(prompt, n):
        cache.append(k[..., t : t + 1, :], v[..., t : t + 1, :])
        got = cache.attend(q[..., t : t + 1, :], enable_gqa=True)
        np.testing.assert_allclose(got, full[..., t : t + 1, :], rtol=1e-12)


def test_slot_t_mod_w_by_hand():
    # positions 0..6 through a window of 3: slots hold (6, 4, 5) at the end
    cache = KVCache(window=3)
    held = []
    for t in range(7):
        cache.append([[float(t)]], [[10.0 * t]])
        held.append(cache.keys[:, 0].tolist())
    assert held == [[0], [0, 1], [0, 1, 2], [3, 1, 2], [3, 4, 2], [3, 4, 5], [6, 4, 5]]
    assert cache.positions.tolist() == [6, 4, 5]
    assert cache.values[:, 0].tolist() == [60.0, 40.0, 50.0]
    # one decode step with query 0: scores all 0, so the output is the mean of the 3 values
    np.testing.assert_allclose(cache.attend([0.0]), [50.0])


def test_a_chunk_longer_than_the_window_keeps_its_last_w():
    cache = KVCache(window=4)
    cache.append(np.arange(10.0)[:, None], np.arange(10.0)[:, None])  # positions 0..9
    assert cache.positions.tolist() == [8, 9, 6, 7]
    assert cache.keys[:, 0].tolist() == [8.0, 9.0, 6.0, 7.0]
    cache.append([[10.0], [11.0]], [[10.0], [11.0]])  # slots 10 % 4 = 2 and 11 % 4 = 3
    assert cache.keys[:, 0].tolist() == [8.0, 9.0, 10.0, 11.0]


def test_a_window_wider_than_the_sequence_is_the_plain_cache():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((5, 3)) for _ in range(3))
    ring, plain = KVCache(window=8), KVCache()
    for t in range(5):
        ring.append(k[t : t + 1], v[t : t + 1])
        plain.append(k[t : t + 1], v[t : t + 1])
        np.testing.assert_array_equal(ring.attend(q[t]), plain.attend(q[t]))
    np.testing.assert_array_equal(ring.keys, plain.keys)
    assert ring.positions.tolist() == plain.positions.tolist() == [0, 1, 2, 3, 4]


def test_several_queries_after_the_ring_wrapped_are_refused():
    cache = KVCache(window=2)
    cache.append(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="L = 2 positions, but the window of 2 slots has wrapped"):
        cache.attend(np.zeros((2, 2)))
    assert cache.attend(np.zeros((1, 2))).shape == (1, 2)


def test_max_length_counts_every_position_not_the_slots():
    cache = KVCache(max_length=5, window=2)
    cache.append(np.zeros((5, 1)), np.zeros((5, 1)))
    assert len(cache) == 2
    with pytest.raises(ValueError, match="to the 5 so far would make 6, past max_length = 5"):
        cache.append(np.zeros((1, 1)), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="window must be an integer >= 1"):
        KVCache(window=0)
    assert repr(cache) == "KVCache(keys (2, 1), values (2, 1), max_length=5, window=2)"
