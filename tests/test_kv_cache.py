"""The KV cache, grouped-query attention and the causal conventions, against independent results.

Independent means: the causal full pass of attn_core over all positions (the cached decode
must give its rows), plain loops over heads (grouped-query attention), PyTorch's
``F.scaled_dot_product_attention(..., enable_gqa=True)`` and ``is_causal=True`` where torch is
installed, and the KV-cache size formula multiplied out here by hand.
"""

import math

import numpy as np
import pytest
import reference as ref

import attn_core as ac
from attn_book.data import GENERATED_KO, SENTENCE_KO, feature_vectors, sentence_projections
from attn_core import KVCache, causal_mask_lower_right, kv_cache_bytes, repeat_kv_heads

GiB = 2**30


def _random(rng, *shape):
    return rng.standard_normal(shape)


# --------------------------------------------------------------- the cached decode


@pytest.mark.parametrize(
    ("batch", "prompt", "new", "d_k", "d_v"),
    [((), 3, 3, 3, 3), ((2,), 1, 6, 4, 2), ((2, 3), 5, 4, 8, 5), ((1, 4), 7, 1, 2, 3)],
)
def test_the_cached_decode_gives_every_row_of_the_causal_full_pass(batch, prompt, new, d_k, d_v):
    rng = np.random.default_rng(sum(batch) + prompt + 10 * new + d_k)
    n = prompt + new
    q, k, v = (
        _random(rng, *batch, n, d_k),
        _random(rng, *batch, n, d_k),
        _random(rng, *batch, n, d_v),
    )
    full = ac.scaled_dot_product_attention(q, k, v, is_causal=True)  # [..., n, d_v]
    cache = KVCache(max_length=n)
    cache.append(k[..., :prompt, :], v[..., :prompt, :])  # prefill: the prompt at once
    np.testing.assert_allclose(cache.attend(q[..., :prompt, :]), full[..., :prompt, :], rtol=1e-13)
    for t in range(prompt, n):  # decode: one position a step, its query alone
        cache.append(k[..., t : t + 1, :], v[..., t : t + 1, :])
        step = cache.attend(q[..., t, :] if not batch else q[..., t : t + 1, :])
        want = full[..., t, :] if not batch else full[..., t : t + 1, :]
        np.testing.assert_allclose(step, want, rtol=1e-12, atol=1e-14)
    assert len(cache) == n
    np.testing.assert_array_equal(cache.keys, k)
    np.testing.assert_array_equal(cache.values, v)


def test_one_decode_step_by_hand_with_loops():
    # chapter 4's keys and values, cached one at a time; its query at the last step
    keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    cache = KVCache()
    for k, v in zip(keys, values, strict=True):
        cache.append([k], [v])
    scores = [ref.dot([1.0, 0.0], k) / math.sqrt(2) for k in keys]
    weights = ref.softmax(scores)
    out = [sum(w * v[c] for w, v in zip(weights, values, strict=True)) for c in range(2)]
    np.testing.assert_allclose(cache.attend([1.0, 0.0]), out, rtol=1e-14)
    np.testing.assert_allclose(out, [1.203, 0.797], atol=5e-4)


def test_a_chunk_of_queries_after_the_cache_is_bottom_right_causal():
    # a second chunk of 3 prompt tokens after 4 cached: each query sees the 4 and itself back
    rng = np.random.default_rng(3)
    q, k, v = _random(rng, 7, 4), _random(rng, 7, 4), _random(rng, 7, 2)
    cache = KVCache()
    cache.append(k[:4], v[:4])
    cache.append(k[4:], v[4:])
    full = ac.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(cache.attend(q[4:]), full[4:], rtol=1e-13)


def test_the_buffer_grows_and_keeps_what_it_held():
    rng = np.random.default_rng(4)
    k, v = _random(rng, 2, 40, 3), _random(rng, 2, 40, 5)
    cache = KVCache()
    for t in range(40):
        cache.append(k[:, t : t + 1], v[:, t : t + 1])
        np.testing.assert_array_equal(cache.keys, k[:, : t + 1])
    np.testing.assert_array_equal(cache.values, v)
    assert cache.nbytes == k.nbytes + v.nbytes == 2 * 40 * (3 + 5) * 8
    with pytest.raises(ValueError, match="read-only"):
        cache.keys[0, 0, 0] = 1.0


def test_float16_stays_float16_in_the_cache():
    cache = KVCache()
    cache.append(np.ones((2, 4), np.float16), np.ones((2, 4), np.float16))
    assert cache.keys.dtype == np.float16 and cache.nbytes == 2 * 2 * 4 * 2
    assert cache.attend(np.ones(4, np.float16)).dtype == np.float16


def test_the_cache_with_fewer_heads_than_the_queries():
    rng = np.random.default_rng(5)
    q, k, v = _random(rng, 4, 6, 3), _random(rng, 2, 6, 3), _random(rng, 2, 6, 3)  # Hq=4, Hkv=2
    full = ac.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    cache = KVCache()
    cache.append(k[:, :5], v[:, :5])
    cache.append(k[:, 5:], v[:, 5:])
    np.testing.assert_allclose(cache.attend(q[:, 5:], enable_gqa=True), full[:, 5:], rtol=1e-13)


# --------------------------------------------------------------- grouped-query attention


def _gqa_by_loops(q, k, v):
    """Query head h reads KV head h // (Hq // Hkv), written as a loop over heads."""
    group = q.shape[-3] // k.shape[-3]
    heads = [
        ac.scaled_dot_product_attention(
            q[..., h, :, :], k[..., h // group, :, :], v[..., h // group, :, :]
        )
        for h in range(q.shape[-3])
    ]
    return np.stack(heads, axis=-3)


@pytest.mark.parametrize(("hq", "hkv"), [(4, 2), (4, 1), (6, 3), (8, 8), (6, 2)])
def test_gqa_equals_a_loop_over_heads(hq, hkv):
    rng = np.random.default_rng(hq * 10 + hkv)
    q, k, v = _random(rng, 2, hq, 3, 4), _random(rng, 2, hkv, 5, 4), _random(rng, 2, hkv, 5, 2)
    got = ac.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    np.testing.assert_allclose(got, _gqa_by_loops(q, k, v), rtol=1e-13)
    weights = ac.attention_weights(q, k, enable_gqa=True)
    np.testing.assert_allclose(weights @ np.repeat(v, hq // hkv, axis=-3), got, rtol=1e-13)


def test_repeat_kv_heads_interleaves_not_tiles():
    k = np.arange(2.0)[:, None, None] * np.ones((2, 1, 3))  # head 0 all 0, head 1 all 1
    repeated, none = repeat_kv_heads(np.zeros((4, 1, 3)), k)
    assert repeated[:, 0, 0].tolist() == [0.0, 0.0, 1.0, 1.0] and none is None


def test_gqa_equals_pytorch_on_random_shapes_and_masks():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(6)
    for batch, hq, hkv, L, S, E, Ev in [
        (1, 4, 2, 1, 5, 3, 3),
        (2, 8, 2, 4, 7, 8, 5),
        (3, 6, 1, 5, 5, 4, 2),
    ]:
        q, k = _random(rng, batch, hq, L, E), _random(rng, batch, hkv, S, E)
        v = _random(rng, batch, hkv, S, Ev)
        bool_mask = rng.random((batch, 1, L, S)) < 0.7
        bool_mask[..., 0] = True  # every row may attend somewhere
        float_mask = np.where(rng.random((L, S)) < 0.3, -np.inf, rng.standard_normal((L, S)))
        float_mask[:, 0] = 0.0
        tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
        for mask, kwargs in [
            (None, {}),
            (bool_mask, {}),
            (float_mask, {}),
            (None, {"is_causal": True}),
        ]:
            t_mask = None if mask is None else torch.from_numpy(mask)
            want = F.scaled_dot_product_attention(tq, tk, tv, t_mask, enable_gqa=True, **kwargs)
            got = ac.scaled_dot_product_attention(q, k, v, mask, enable_gqa=True, **kwargs)
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-14)


def test_enable_gqa_with_equal_heads_changes_nothing():
    rng = np.random.default_rng(7)
    q, k, v = _random(rng, 3, 4, 2), _random(rng, 3, 5, 2), _random(rng, 3, 5, 2)
    np.testing.assert_array_equal(
        ac.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        ac.scaled_dot_product_attention(q, k, v),
    )


# --------------------------------------------------------------- the causal conventions


def test_is_causal_aligns_top_left_as_pytorch_does():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(8)
    q, k = _random(rng, 1, 4), _random(rng, 5, 4)  # one new query, five cached keys
    eye = torch.eye(5, dtype=torch.float64)  # values = one-hot: the output is the weights
    torch_weights = F.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), eye, is_causal=True
    ).numpy()
    assert torch_weights.tolist() == [[1.0, 0.0, 0.0, 0.0, 0.0]]  # top-left: key 0 only
    ours = ac.attention_weights(q, k, is_causal=True)
    np.testing.assert_array_equal(ours, torch_weights)
    np.testing.assert_array_equal(ac.causal_mask(1, 5), [[True, False, False, False, False]])
    # the right mask for the newest query: bottom-right, as torch's causal_lower_right
    from torch.nn.attention.bias import causal_lower_right

    for L, S in [(1, 5), (2, 5), (3, 3), (4, 6)]:
        torch_mask = causal_lower_right(L, S)._materialize().numpy()
        np.testing.assert_array_equal(causal_mask_lower_right(L, S), torch_mask)


def test_the_two_alignments_by_hand():
    # top-left: query i sees keys 0..i; bottom-right: query i (position S-L+i) sees 0..S-L+i
    L, S = 2, 4
    top_left = [[j <= i for j in range(S)] for i in range(L)]
    bottom_right = [[j <= S - L + i for j in range(S)] for i in range(L)]
    assert ac.causal_mask(L, S).tolist() == top_left
    assert causal_mask_lower_right(L, S).tolist() == bottom_right
    assert causal_mask_lower_right(1, 5).all()  # one new query sees every key: no mask
    assert (causal_mask_lower_right(3, 3) == ac.causal_mask(3)).all()  # L = S: the same


# --------------------------------------------------------------- the cache's size


def test_kv_cache_bytes_of_a_llama_3_8b_like_shape_by_hand():
    # 2 (K and V) · 32 layers · 8 KV heads · 128 numbers · 131,072 tokens · 2 bytes (float16)
    by_hand = 2 * 32 * 8 * 128 * 131_072 * 2
    assert by_hand == 17_179_869_184 == 16 * GiB
    assert kv_cache_bytes(32, 8, 128, 131_072, 2) == by_hand
    assert kv_cache_bytes(32, 8, 128, 131_072, "float16") == by_hand
    # bfloat16 (1 sign, 8 exponent, 7 mantissa bits: 16 bits) is 2 bytes too; numpy lacks it
    assert kv_cache_bytes(32, 8, 128, 131_072, "bfloat16") == by_hand
    assert kv_cache_bytes(32, 8, 128, 131_072, "float32") == 2 * by_hand
    # the same model with all 32 query heads as KV heads (MHA) holds 4 times as much
    assert kv_cache_bytes(32, 32, 128, 131_072, 2) == 64 * GiB
    assert kv_cache_bytes(32, 1, 128, 131_072, 2) == 2 * GiB  # MQA: one KV head
    assert kv_cache_bytes(32, 8, 128, 131_072, 2, batch=4) == 64 * GiB


@pytest.mark.parametrize("seed", range(5))
def test_kv_cache_bytes_equal_the_bytes_a_cache_holds(seed):
    rng = np.random.default_rng(seed)
    layers, heads, d_head, n = (int(x) for x in rng.integers(1, 6, size=4))
    caches = [KVCache() for _ in range(layers)]
    for cache in caches:
        cache.append(
            np.zeros((heads, n, d_head), np.float32), np.zeros((heads, n, d_head), np.float32)
        )
    assert sum(c.nbytes for c in caches) == kv_cache_bytes(layers, heads, d_head, n, 4)


@pytest.mark.parametrize("window", [1, 3, 4, 9])
def test_windowed_kv_cache_bytes_equal_the_bytes_a_ring_buffer_holds(window):
    # a windowed layer's ring buffer holds min(n, W) positions, however many were appended
    layers, heads, d_head, n = 3, 2, 4, 6
    caches = [KVCache(window=window) for _ in range(layers)]
    for cache in caches:
        for _ in range(n):  # one position a step, as while decoding
            cache.append(np.zeros((heads, 1, d_head)), np.zeros((heads, 1, d_head)))
    held = sum(c.nbytes for c in caches)
    assert held == kv_cache_bytes(layers, heads, d_head, n, 8, window=window)
    assert held == 2 * layers * heads * d_head * min(n, window) * 8  # by hand


def test_windowed_kv_cache_bytes_of_gemma_3_27b_by_hand():
    # 52 local layers of 16 KV heads of 128 hold 1,024 positions each at 128k tokens
    assert kv_cache_bytes(52, 16, 128, 131_072, 2, window=1024) == 2 * 52 * 16 * 128 * 1024 * 2
    assert kv_cache_bytes(52, 16, 128, 500, 2, window=1024) == kv_cache_bytes(52, 16, 128, 500, 2)


# --------------------------------------------------------------- bad input


def test_query_heads_not_a_multiple_of_kv_heads_names_both_counts():
    q, k = np.zeros((6, 2, 4)), np.zeros((4, 3, 4))
    with pytest.raises(ValueError, match="query has 6 heads and key has 4"):
        ac.scaled_dot_product_attention(q, k, k, enable_gqa=True)
    with pytest.raises(ValueError, match="query has 6 heads and key has 4"):
        ac.attention_weights(q, k, enable_gqa=True)
    with pytest.raises(ValueError, match="heads axis"):
        ac.scaled_dot_product_attention(np.zeros((2, 4)), k, k, enable_gqa=True)
    with pytest.raises(ValueError, match="same number of heads"):
        repeat_kv_heads(np.zeros((4, 1, 2)), np.zeros((2, 3, 2)), np.zeros((1, 3, 2)))
    with pytest.raises(TypeError, match="enable_gqa must be True or False"):
        ac.scaled_dot_product_attention(q, q, q, enable_gqa="yes")


def test_a_new_key_of_another_width_is_refused():
    cache = KVCache()
    cache.append(np.zeros((2, 3)), np.zeros((2, 5)))
    with pytest.raises(ValueError, match=r"a new key of width E = 4 .* holds keys of width 3"):
        cache.append(np.zeros((1, 4)), np.zeros((1, 5)))
    with pytest.raises(ValueError, match=r"a new value of width Ev = 2 .* holds values of width 5"):
        cache.append(np.zeros((1, 3)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="leading axes"):
        cache.append(np.zeros((2, 1, 3)), np.zeros((2, 1, 5)))
    assert len(cache) == 2  # nothing was appended


def test_appending_past_max_length_is_refused():
    cache = KVCache(max_length=3)
    cache.append(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(
        ValueError, match="appending 2 positions to the 2 held would make 4, past max_length = 3"
    ):
        cache.append(np.zeros((2, 2)), np.zeros((2, 2)))
    cache.append(np.zeros((1, 2)), np.zeros((1, 2)))
    assert len(cache) == 3
    with pytest.raises(ValueError, match="max_length must be an integer >= 1"):
        KVCache(max_length=0)


def test_key_and_value_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="same leading axes and number of new positions"):
        KVCache().append(np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"key must be \(\.\.\., s, features\)"):
        KVCache().append(np.zeros(2), np.zeros((1, 2)))


def test_attend_on_an_empty_cache_or_with_too_many_queries():
    with pytest.raises(ValueError, match="the cache is empty"):
        KVCache().attend([1.0, 0.0])
    cache = KVCache()
    cache.append(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="query has L = 3 positions but the cache holds 2"):
        cache.attend(np.zeros((3, 2)))


def test_kv_cache_bytes_bad_input():
    with pytest.raises(ValueError, match="n_kv_heads must be an integer >= 1, got 0"):
        kv_cache_bytes(32, 0, 128, 1024, 2)
    with pytest.raises(ValueError, match="length must be an integer >= 0"):
        kv_cache_bytes(32, 8, 128, -1, 2)
    with pytest.raises(TypeError, match="bytes_per_number must be a number of bytes"):
        kv_cache_bytes(32, 8, 128, 1024, "two bytes")
    with pytest.raises(ValueError, match="bytes_per_number must be an integer >= 1"):
        kv_cache_bytes(32, 8, 128, 1024, 0)
    with pytest.raises(ValueError, match="window must be an integer >= 1, got 0"):
        kv_cache_bytes(32, 8, 128, 1024, 2, window=0)


# --------------------------------------------------------------- chapter 10's sentence


def test_the_sentence_data_are_chapter_5s():
    # typed from book/05_projections.py: X of "나는 사과를 먹었다" and its three matrices
    X = [[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]]
    W_K = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    W_Q = [[0, 0, 0], [0, 0, 2], [2, 0, 0], [2, 2, 0]]
    W_V = [[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]
    assert feature_vectors(SENTENCE_KO).tolist() == X
    got = sentence_projections()
    assert got.W_Q.tolist() == W_Q and got.W_K.tolist() == W_K and got.W_V.tolist() == W_V
    # the generated words: "and" has no feature, "배를" is a noun with -를, "샀다" a verb
    assert feature_vectors(GENERATED_KO).tolist() == [[0, 0, 0, 0], X[1], X[2]]


def test_feature_vectors_refuses_an_unknown_word():
    with pytest.raises(ValueError, match="tokens must be a sequence of the words"):
        feature_vectors(["나는", "고양이"])
    with pytest.raises(ValueError, match="tokens must be a sequence of the words"):
        feature_vectors("나는")


def _window_sink_loop(q, k, v, window, sinks):
    """Row t of head h: keys j with 0 <= t − j < W, scores q·k/√E, the head's sink logit
    appended, softmax, the sink dropped; the weights times the values. Plain floats."""
    H, n, E = q.shape
    out = np.zeros((H, n, v.shape[-1]))
    for h in range(H):
        for t in range(n):
            seen = [j for j in range(n) if 0 <= t - j < window]
            scores = [float(q[h, t] @ k[h, j]) / math.sqrt(E) for j in seen]
            top = max([*scores, float(sinks[h])])
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps) + math.exp(float(sinks[h]) - top)
            out[h, t] = sum(e / total * v[h, j] for e, j in zip(exps, seen, strict=True))
    return out


@pytest.mark.parametrize("sink_shape", ["(H,)", "(H, 1)"])
def test_a_ring_buffer_decode_with_a_sink_equals_the_windowed_full_pass(sink_shape):
    # gpt-oss's decode step: a window of W keys in a ring buffer, one sink logit per head
    rng = np.random.default_rng(21)
    H, n, E, Ev, W = 4, 9, 3, 2, 4  # H = W: the prefill below has L = H queries
    q, k, v = (
        rng.standard_normal((H, n, E)),
        rng.standard_normal((H, n, E)),
        rng.normal(size=(H, n, Ev)),
    )
    sinks = rng.standard_normal(H) * 2
    given = sinks if sink_shape == "(H,)" else sinks[:, None]
    want = _window_sink_loop(q, k, v, W, sinks)
    ring = KVCache(window=W)
    rows = []
    for t in range(n):
        ring.append(k[:, t : t + 1], v[:, t : t + 1])  # [H, 1, E]
        rows.append(ring.attend(q[:, t : t + 1], sinks=given))  # [H, 1, Ev]
    np.testing.assert_allclose(np.concatenate(rows, axis=1), want, rtol=1e-12, atol=1e-14)
    full = ac.scaled_dot_product_attention(q, k, v, ac.sliding_window_mask(n, n, W), sinks=given)
    np.testing.assert_allclose(full, want, rtol=1e-12, atol=1e-14)
    prefill = KVCache(window=W)  # a prompt of W positions attended at once, before it wraps
    prefill.append(k[:, :W], v[:, :W])
    np.testing.assert_allclose(
        prefill.attend(q[:, :W], sinks=given), want[:, :W], rtol=1e-12, atol=1e-14
    )


def test_attend_without_sinks_is_unchanged_and_bad_sinks_are_named():
    rng = np.random.default_rng(22)
    k, v, q = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2)), rng.normal(size=3)
    cache = KVCache()
    cache.append(k, v)
    np.testing.assert_array_equal(
        cache.attend(q[None, None]), cache.attend(q[None, None], sinks=None)
    )
    minus_inf = cache.attend(q[None, None], sinks=[-np.inf, -np.inf])  # no sink at all
    np.testing.assert_array_equal(minus_inf, cache.attend(q[None, None]))
    with pytest.raises(ValueError, match=r"sinks of shape \(3,\) do not broadcast"):
        cache.attend(np.ones((2, 1, 3)), sinks=np.zeros(3))
