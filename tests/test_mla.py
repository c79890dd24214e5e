"""Multi-head latent attention, against independent results.

Independent means: MLA written as plain loops over heads, queries and keys, with RoPE as a
2 × 2 rotation of each pair by hand (position m, angle m · 10000^(-2i/r)); the naive and
the absorbed paths held equal; the cached decode held to the rows of the full pass; the
cache's size multiplied out by hand for DeepSeek-V3's shape.
"""

import math

import numpy as np
import pytest

import attn_core as ac
from attn_core import MLACache, MLAWeights, mla_attention, mla_cache_bytes, mla_latent

KiB = 1024


def _weights(seed, D=8, H=3, c=5, n=4, r=2, v=3, norm=False):
    rng = np.random.default_rng(seed)
    w = MLAWeights.random(
        rng, D, n_heads=H, kv_lora_rank=c, qk_nope_head_dim=n, qk_rope_head_dim=r, v_head_dim=v
    )
    return w._replace(kv_norm=rng.uniform(0.5, 1.5, c)) if norm else w


def _rope_by_hand(vector, m):
    """Rotate pairs (0, 1), (2, 3), ... of one vector by m · 10000^(-2i/r)."""
    r, out = len(vector), list(vector)
    for i in range(r // 2):
        angle = m * 10000.0 ** (-2 * i / r)
        a, b = vector[2 * i], vector[2 * i + 1]
        out[2 * i] = a * math.cos(angle) - b * math.sin(angle)
        out[2 * i + 1] = a * math.sin(angle) + b * math.cos(angle)
    return np.array(out)


def _mla_by_loops(x, w):
    """Causal MLA of one sequence x (T, D), one head, one query, one key at a time."""
    T, H = x.shape[0], w.w_uk.shape[0]
    n, r = w.w_uk.shape[2], w.w_kr.shape[1]
    latents = []
    for j in range(T):
        c = x[j] @ w.w_dkv
        if w.kv_norm is not None:
            c = c / math.sqrt(np.mean(c**2) + 1e-6) * w.kv_norm
        latents.append(c)
    rope_keys = [_rope_by_hand(x[j] @ w.w_kr, j) for j in range(T)]  # one per token, all heads
    out = np.zeros_like(x)
    for i in range(T):
        for h in range(H):
            q = np.concatenate([x[i] @ w.w_q_nope[h], _rope_by_hand(x[i] @ w.w_q_rope[h], i)])
            scores, values = [], []
            for j in range(i + 1):  # causal: keys 0..i
                k = np.concatenate([latents[j] @ w.w_uk[h], rope_keys[j]])
                scores.append(float(q @ k) / math.sqrt(n + r))
                values.append(latents[j] @ w.w_uv[h])
            exps = [math.exp(s - max(scores)) for s in scores]
            head = sum(e * val for e, val in zip(exps, values, strict=True)) / sum(exps)
            out[i] += head @ w.w_o[h]
    return out


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_both_paths_equal_a_loop_over_heads_queries_and_keys(seed, norm):
    w = _weights(seed, norm=norm)
    x = np.random.default_rng(100 + seed).standard_normal((6, 8))
    want = _mla_by_loops(x, w)
    np.testing.assert_allclose(mla_attention(x, w), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mla_attention(x, w, absorb=True), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("batch", "sizes"),
    [
        ((), dict(D=6, H=1, c=2, n=2, r=2, v=2)),
        ((2,), dict(D=16, H=4, c=6, n=3, r=4, v=5)),
        ((2, 3), dict(D=12, H=2, c=8, n=8, r=6, v=4)),
    ],
)
def test_the_naive_and_absorbed_paths_agree_on_random_shapes(batch, sizes):
    w = _weights(len(batch), norm=True, **sizes)
    x = np.random.default_rng(7).standard_normal((*batch, 9, sizes["D"]))
    naive, absorbed = mla_attention(x, w), mla_attention(x, w, absorb=True)
    assert naive.shape == x.shape
    np.testing.assert_allclose(absorbed, naive, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("absorb", [False, True])
def test_the_cached_decode_gives_every_row_of_the_full_pass(absorb):
    w = _weights(4, norm=True)
    x = np.random.default_rng(8).standard_normal((2, 10, 8))
    full = mla_attention(x, w)
    cache = MLACache()
    prompt = 4
    got = mla_attention(x[:, :prompt], w, cache=cache, absorb=absorb)
    np.testing.assert_allclose(got, full[:, :prompt], rtol=1e-10, atol=1e-12)
    for t in range(prompt, 10):
        got = mla_attention(x[:, t : t + 1], w, cache=cache, absorb=absorb)
        np.testing.assert_allclose(got, full[:, t : t + 1], rtol=1e-10, atol=1e-12)
    # the cache holds per position only the latent (c = 5) and the shared RoPE key (r = 2)
    assert cache.latents.shape == (2, 10, 5) and cache.rope_keys.shape == (2, 10, 2)
    assert cache.nbytes == 2 * 10 * (5 + 2) * 8
    latent, rope_key = mla_latent(x, w, np.arange(10))
    np.testing.assert_allclose(cache.latents, latent, rtol=1e-14)
    np.testing.assert_allclose(cache.rope_keys, rope_key, rtol=1e-14)


def test_naive_is_multi_head_attention_with_low_rank_keys_and_values():
    # Without RoPE (its query weights zero), MLA's head h is plain attention with
    # W_K = W_DKV W_UK[h] and W_V = W_DKV W_UV[h]: rank c at most.
    w = _weights(9)
    w = w._replace(w_q_rope=np.zeros_like(w.w_q_rope))
    x = np.random.default_rng(10).standard_normal((5, 8))
    heads = [
        ac.scaled_dot_product_attention(
            x @ w.w_q_nope[h],
            x @ (w.w_dkv @ w.w_uk[h]),
            x @ (w.w_dkv @ w.w_uv[h]),
            is_causal=True,
            scale=1 / math.sqrt(4 + 2),
        )
        @ w.w_o[h]
        for h in range(3)
    ]
    np.testing.assert_allclose(mla_attention(x, w), sum(heads), rtol=1e-10, atol=1e-12)


def test_deepseek_v3s_cache_per_token_by_hand():
    # 61 layers; MLA keeps (512 + 64) numbers a layer in 2 bytes: 70,272 bytes = 68.6 KiB
    assert mla_cache_bytes(61, 512, 64, 1, 2) == (512 + 64) * 61 * 2 == 70_272
    assert mla_cache_bytes(61, 512, 64, 1, "float16") == 70_272
    assert mla_cache_bytes(61, 512, 64, 1, "bfloat16") == 70_272  # DeepSeek-V3 stores bfloat16
    assert round(mla_cache_bytes(61, 512, 64, 1, 2) / KiB) == 69
    assert mla_cache_bytes(61, 512, 64, 1000, 2, batch=3) == 3000 * 70_272
    # the same 61 layers as MHA of 128 heads of 128 (K and V), GQA with 8, MQA with 1
    mha, gqa, mqa = (ac.kv_cache_bytes(61, h, 128, 1, 2) for h in (128, 8, 1))
    assert (mha, gqa, mqa) == (2 * 61 * 128 * 128 * 2, 2 * 61 * 8 * 128 * 2, 2 * 61 * 128 * 2)
    assert mha / mla_cache_bytes(61, 512, 64, 1, 2) == pytest.approx(56.9, abs=0.1)


def test_the_cache_is_what_mla_latent_says_and_bytes_agree():
    w = _weights(11)
    cache = MLACache()
    mla_attention(np.ones((3, 4, 8), np.float32), w, cache=cache)
    assert cache.nbytes == 3 * mla_cache_bytes(1, 5, 2, 4, np.float64)  # weights are float64
    assert repr(cache) == "MLACache((3, 4, 5), (3, 4, 2))"


def test_bad_weights_name_the_weight_and_the_shapes():
    w = _weights(12)
    x = np.zeros((4, 8))
    with pytest.raises(ValueError, match=r"w_uk of shape \(3, 6, 4\) \(H, c, n\) has c = 6"):
        mla_attention(x, w._replace(w_uk=np.zeros((3, 6, 4))))
    with pytest.raises(ValueError, match=r"weights.w_dkv of shape \(7, 5\) \(D, c\) has D = 7"):
        mla_attention(x, w._replace(w_dkv=np.zeros((7, 5))))
    with pytest.raises(ValueError, match=r"weights.w_o must be \(H, v, D\), got shape \(9, 8\)"):
        mla_attention(x, w._replace(w_o=np.zeros((9, 8))))
    with pytest.raises(ValueError, match="RoPE width r = 3 must be even"):
        mla_attention(x, w._replace(w_kr=np.zeros((8, 3)), w_q_rope=np.zeros((3, 8, 3))))
    with pytest.raises(TypeError, match=r"weights must be an attn_core\.MLAWeights"):
        mla_attention(x, tuple(w))
    with pytest.raises(ValueError, match=r"x must be \(..., L, D\)"):
        mla_attention(np.zeros(8), w)
    with pytest.raises(TypeError, match=r"cache must be an attn_core\.MLACache"):
        mla_attention(x, w, cache=ac.KVCache())
    with pytest.raises(TypeError, match="absorb must be True or False"):
        mla_attention(x, w, absorb="yes")


def _scores_by_loops(x, w):
    """Every head's scaled score q·k for every (query, key) pair of x (T, D), by hand."""
    T, H = x.shape[0], w.w_uk.shape[0]
    n, r = w.w_uk.shape[2], w.w_kr.shape[1]
    out = np.zeros((H, T, T))
    for h in range(H):
        for i in range(T):
            q = np.concatenate([x[i] @ w.w_q_nope[h], _rope_by_hand(x[i] @ w.w_q_rope[h], i)])
            for j in range(T):
                k = np.concatenate([x[j] @ w.w_dkv @ w.w_uk[h], _rope_by_hand(x[j] @ w.w_kr, j)])
                out[h, i, j] = float(q @ k) / math.sqrt(n + r)
    return out


@pytest.mark.parametrize("absorb", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_mla_scores_equal_a_loop_and_their_weights_give_mla_attention(seed, absorb):
    w = _weights(seed)
    x = np.random.default_rng(200 + seed).standard_normal((5, 8))
    got = ac.mla_scores(x, w, absorb=absorb)
    np.testing.assert_allclose(got.scores, _scores_by_loops(x, w), rtol=1e-10, atol=1e-12)
    causal = np.tril(np.ones((5, 5), bool))
    assert (got.weights[:, ~causal] == 0).all()
    np.testing.assert_allclose(got.weights.sum(-1), 1.0, rtol=1e-12)
    values = (x @ w.w_dkv)[None] @ w.w_uv  # [H, T, v]: the naive path's values
    heads = got.weights @ values  # [H, T, T] @ [H, T, v]
    np.testing.assert_allclose((heads @ w.w_o).sum(0), mla_attention(x, w), rtol=1e-10)


def test_mla_scores_by_hand_at_the_smallest_size():
    # One head, c = 2, n = 1, r = 2: the absorbed score regroups (x W_q)(c W_uk)ᵀ as
    # (x W_q W_ukᵀ)·c, so the numbers a chapter multiplies out by hand agree.
    w = MLAWeights(
        w_q_nope=np.array([[[1.0], [2.0]]]),  # (H, D, n) = (1, 2, 1)
        w_q_rope=np.zeros((1, 2, 2)),  # no position part: the scores are the nope part alone
        w_dkv=np.array([[1.0, 0.0], [0.0, 1.0]]),  # the latent is x itself
        w_kr=np.zeros((2, 2)),
        w_uk=np.array([[[3.0], [-1.0]]]),  # (H, c, n): key = 3 c₀ − c₁
        w_uv=np.ones((1, 2, 1)),
        w_o=np.ones((1, 1, 2)),
    )
    x = np.array([[1.0, 0.0], [0.0, 1.0]])  # queries 1 and 2; latents (1, 0) and (0, 1)
    # naive: q = (1, 2)·x, k = (3, -1)·c: q₀ = 1, q₁ = 2, k₀ = 3, k₁ = -1; scale 1/√3
    want = np.array([[[1 * 3, 1 * -1], [2 * 3, 2 * -1]]]) / math.sqrt(3)
    for absorb in (False, True):
        np.testing.assert_allclose(ac.mla_scores(x, w, absorb=absorb).scores, want, rtol=1e-15)


def test_mla_scores_with_a_cache_are_the_last_rows_of_the_full_pass():
    w, x = _weights(7), np.random.default_rng(7).standard_normal((6, 8))
    full = ac.mla_scores(x, w)
    cache = MLACache()
    ac.mla_scores(x[:4], w, cache=cache)
    step = ac.mla_scores(x[4:], w, cache=cache, absorb=True)
    np.testing.assert_allclose(step.scores, full.scores[:, 4:], rtol=1e-10)
    np.testing.assert_allclose(step.weights, full.weights[:, 4:], rtol=1e-10)
    with pytest.raises(TypeError, match=r"cache must be an attn_core\.MLACache"):
        ac.mla_scores(x, w, cache=ac.KVCache())


def test_mla_cache_errors_name_latents_and_rope_keys_not_keys_and_values():
    cache = MLACache()
    with pytest.raises(ValueError, match=r"latent and rope_key must have the same .* \(2, 2\)"):
        cache.append(np.zeros((3, 4)), np.zeros((2, 2)))
    cache.append(np.zeros((3, 4)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"a new latent of width c = 5 .* latents of width 4"):
        cache.append(np.zeros((1, 5)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"a new rope_key of width r = 3"):
        cache.append(np.zeros((1, 4)), np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"rope_key must be finite"):
        cache.append(np.zeros((1, 4)), np.full((1, 2), np.nan))
