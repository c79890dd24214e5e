"""The fast path (query blocks) and chunked_attention (online softmax) equal the plain path.

Expected values come from the plain-Python loop in reference.py, and from the plain
path (the weights, then ``weights @ value``), never from the code under test.
"""

import math

import numpy as np
import pytest
import reference as ref

import attn_core as ac
import attn_core.blocked
import attn_core.validation
from attn_core import (
    attention_weights,
    blocked_attention,
    causal_mask,
    chunked_attention,
    padding_mask,
    scaled_dot_product_attention,
)

# (batch of q, batch of k, batch of v, L, S, E, Ev): broadcasting and L != S included
SHAPES = [
    ((), (), (), 7, 7, 4, 3),
    ((), (), (), 5, 9, 3, 2),
    ((), (), (), 9, 4, 2, 5),
    ((2,), (2,), (2,), 6, 11, 3, 3),
    ((2, 1), (1, 3), (2, 3), 5, 7, 4, 2),  # (batch, heads): q shared by heads, k by batch
]
DTYPES = [np.float64, np.float32]


def blocked(*args, **kwargs):
    """blocked_attention in blocks of 3 queries (dividing no L here)."""
    return blocked_attention(*args, block_size=3, **kwargs)


def random_qkv(rng, shape, dtype):
    q_batch, k_batch, v_batch, L, S, E, Ev = shape
    q = rng.normal(size=(*q_batch, L, E)).astype(dtype)
    k = rng.normal(size=(*k_batch, S, E)).astype(dtype)
    v = rng.normal(size=(*v_batch, S, Ev)).astype(dtype)
    return q, k, v


def loop_attention(q, k, v, mask=None, causal=False):
    """The reference loop, one example at a time over the broadcast batch axes."""
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    L, S = q.shape[-2], k.shape[-2]
    q, k, v = (np.broadcast_to(a, (*batch, *a.shape[-2:])) for a in (q, k, v))
    if mask is not None:
        mask = np.broadcast_to(mask, (*batch, L, S))
    out = np.empty((*batch, L, v.shape[-1]))
    for idx in np.ndindex(batch):
        rows = None if mask is None else mask[idx].tolist()
        args = (q[idx].tolist(), k[idx].tolist(), v[idx].tolist())
        out[idx] = ref.attention(*args, mask=rows, causal=causal)[1]
    return out


def tolerance(dtype):
    return {"rtol": 1e-12, "atol": 1e-14} if dtype == np.float64 else {"rtol": 2e-5, "atol": 2e-6}


def masks_for(rng, L, S):
    """Bool, float and padding masks, each with a fully masked query row."""
    allowed = rng.random((L, S)) < 0.6
    allowed[0] = False  # query 0 may attend to nothing: its output must be zeros
    bias = np.where(allowed, rng.normal(size=(L, S)), -np.inf)
    lengths = padding_mask([S // 2], S)[0]  # (1, S): broadcasts over the queries
    return {"bool": allowed, "float": bias, "padding": lengths}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_fast_path_matches_loop(rng, shape, dtype):
    q, k, v = random_qkv(rng, shape, dtype)
    out = blocked(q, k, v)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, loop_attention(q, k, v), **tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_fast_path_causal_matches_loop(rng, shape, dtype):
    q, k, v = random_qkv(rng, shape, dtype)
    out = blocked(q, k, v, is_causal=True)
    np.testing.assert_allclose(out, loop_attention(q, k, v, causal=True), **tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["bool", "float", "padding"])
def test_fast_path_masks_match_loop(rng, kind, dtype):
    q, k, v = random_qkv(rng, ((2,), (2,), (2,), 7, 5, 3, 2), dtype)
    mask = masks_for(rng, 7, 5)[kind]
    out = blocked(q, k, v, mask)
    np.testing.assert_allclose(out, loop_attention(q, k, v, mask), **tolerance(dtype))
    if kind != "padding":
        assert (out[:, 0] == 0).all()  # the fully masked row gives zeros, not NaN


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [1, 1e4])  # 1e4: scores that overflow unshifted
def test_blocked_with_a_mask_that_hides_nothing_equals_it_without(rng, size, dtype):
    # Without a mask the block's scores are made as k qᵀ, with one as q kᵀ: the same rows.
    q, k, v = random_qkv(rng, ((2,), (2,), (2,), 7, 5, 3, 2), dtype)
    everything = np.ones((7, 5), dtype=bool)
    out = blocked(q * size, k, v, everything)
    np.testing.assert_allclose(out, blocked(q * size, k, v), **tolerance(dtype))
    np.testing.assert_allclose(out, loop_attention(q * size, k, v), **tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block_size", [1, 2, 3, 4, 100])
@pytest.mark.parametrize("shape", SHAPES)
def test_chunked_matches_loop(rng, shape, dtype, block_size):
    q, k, v = random_qkv(rng, shape, dtype)
    out = chunked_attention(q, k, v, block_size=block_size)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, loop_attention(q, k, v), **tolerance(dtype))
    causal = chunked_attention(q, k, v, is_causal=True, block_size=block_size)
    np.testing.assert_allclose(causal, loop_attention(q, k, v, causal=True), **tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["bool", "float", "padding"])
def test_chunked_masks_match_loop(rng, kind, dtype):
    q, k, v = random_qkv(rng, ((2,), (2,), (2,), 7, 5, 3, 2), dtype)
    mask = masks_for(rng, 7, 5)[kind]
    out = chunked_attention(q, k, v, mask, block_size=2)
    np.testing.assert_allclose(out, loop_attention(q, k, v, mask), **tolerance(dtype))


def test_chunked_first_block_fully_masked_then_seen(rng):
    # Query 0 sees only the last key: its running max stays -inf for two blocks, then
    # jumps; the rescale e^(m - m') must then drop the (empty) earlier sums, not NaN them.
    q, k, v = random_qkv(rng, ((), (), (), 2, 5, 3, 2), np.float64)
    mask = np.array([[False, False, False, False, True], [True] * 5])
    out = chunked_attention(q, k, v, mask, block_size=2)
    np.testing.assert_allclose(out[0], v[4], rtol=1e-14)  # one visible key: its value
    np.testing.assert_allclose(out, loop_attention(q, k, v, mask), rtol=1e-12)


def test_chunked_is_stable_for_huge_scores(rng):
    # Scores near ±1e4: a plain exp would overflow; the running max keeps every exponent <= 0.
    q, k, v = random_qkv(rng, ((), (), (), 4, 6, 2, 3), np.float64)
    out = chunked_attention(q * 100, k * 100, v, scale=1.0, block_size=4)
    _, expected = ref.attention((q * 100).tolist(), (k * 100).tolist(), v.tolist(), scale=1.0)
    np.testing.assert_allclose(out, expected, rtol=1e-9)
    assert np.isfinite(out).all()


def test_seed_example_chunked_by_hand():
    # Scores 1, 0, 1 scaled by 1/sqrt(2): weights e^s/(2e^s+1), 1/(2e^s+1), e^s/(2e^s+1).
    s = 1 / math.sqrt(2)
    a, b = math.exp(s) / (2 * math.exp(s) + 1), 1 / (2 * math.exp(s) + 1)
    keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    for block_size in (1, 2, 3):
        out = chunked_attention([1.0, 0.0], keys, values, block_size=block_size)
        np.testing.assert_allclose(out, [2 * a + a, 2 * b + a], rtol=1e-14)


def test_large_calls_are_computed_in_query_blocks(rng, monkeypatch):
    calls = []
    spy = attn_core.blocked.blocked
    monkeypatch.setattr(attn_core.attention, "blocked", lambda *a: calls.append(a) or spy(*a))
    side = math.isqrt(ac.BLOCKED_FROM_PAIRS)
    q, k, v = random_qkv(rng, ((), (), (), side, side, 8, 4), np.float64)
    expected = attention_weights(q, k) @ v  # the plain path, written out
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v), expected, rtol=1e-11)
    assert len(calls) == 1
    scaled_dot_product_attention(q[:-1], k, v)  # one query short of the threshold: plain
    scaled_dot_product_attention(q, k, v, dropout_p=0.1, rng=rng)  # dropout: plain
    assert len(calls) == 1
    # the threshold counts the whole batch: 8 small matrices of side/2 reach it together
    half = side // 2
    q8, k8, v8 = random_qkv(rng, ((2, 2), (2, 2), (2, 2), half, half, 8, 4), np.float64)
    np.testing.assert_allclose(
        scaled_dot_product_attention(q8[:1], k8[:1], v8[:1]),  # 4 matrices: plain
        attention_weights(q8[:1], k8[:1]) @ v8[:1],
        rtol=1e-11,
    )
    assert len(calls) == 1
    np.testing.assert_allclose(
        scaled_dot_product_attention(q8, k8, v8), attention_weights(q8, k8) @ v8, rtol=1e-11
    )
    assert len(calls) == 2


@pytest.mark.parametrize("block_size", [None, 128, 333])
def test_blocked_with_large_blocks_matches_plain_path(rng, block_size):
    # Several blocks and a short last one: 2 heads x 700 x 1500.
    q, k, v = random_qkv(rng, ((2,), (2,), (2,), 700, 1500, 16, 8), np.float32)
    for mask, causal in [(None, False), (None, True), (causal_mask(700, 1500), False)]:
        fast = blocked_attention(q, k, v, mask, is_causal=causal, block_size=block_size)
        plain = attention_weights(q, k, mask, is_causal=causal) @ v
        assert fast.dtype == np.float32
        np.testing.assert_allclose(fast, plain, rtol=1e-4, atol=1e-6)


def test_blocked_rejects_a_bad_block_size(rng):
    q, k, v = random_qkv(rng, ((), (), (), 2, 3, 2, 2), np.float64)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="block_size must be an integer >= 1"):
            blocked_attention(q, k, v, block_size=bad)


def test_chunked_rejects_a_bad_block_size(rng):
    q, k, v = random_qkv(rng, ((), (), (), 2, 3, 2, 2), np.float64)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="block_size must be an integer >= 1"):
            chunked_attention(q, k, v, block_size=bad)
    with pytest.raises((TypeError, ValueError), match="block_size must be an integer"):
        chunked_attention(q, k, v, block_size=2.5)


def test_chunked_checks_its_inputs_like_the_plain_path(rng):
    q, k, v = random_qkv(rng, ((), (), (), 2, 3, 2, 2), np.float64)
    with pytest.raises(ValueError, match="query's last axis"):
        chunked_attention(q, k[:, :1], v)
    with pytest.raises(ValueError, match="either attn_mask or is_causal"):
        chunked_attention(q, k, v, causal_mask(2, 3), is_causal=True)
    with pytest.raises(ValueError, match="does not broadcast"):
        chunked_attention(q, k, v, np.ones((3, 3), dtype=bool))


@pytest.mark.parametrize("dtype", DTYPES)
def test_fast_path_when_the_norm_bound_lies_far_above_every_score(rng, dtype):
    # Key 0 is long (norm 1000) but orthogonal to query 1, so query 1's scores are at most
    # ~1 while the Cauchy-Schwarz bound |q| max|k| is ~1000: exp(score - bound) underflows
    # to 0 in both dtypes, and the block must be redone with the row's true max.
    q, k, v = random_qkv(rng, ((), (), (), 5, 4, 2, 3), dtype)
    k[0] = [0.0, 1000.0]
    q[1] = [1.0, 0.0]
    out = blocked(q, k, v, scale=1.0)
    _, expected = ref.attention(q.tolist(), k.tolist(), v.tolist(), scale=1.0)
    np.testing.assert_allclose(out, expected, **tolerance(dtype))
    assert np.isfinite(out).all()


def test_fast_path_when_the_norm_bound_overflows(rng):
    # |q|^2 overflows float64 (1e400) although every score q.k is about 1.
    q, k, v = random_qkv(rng, ((), (), (), 4, 5, 3, 2), np.float64)
    out = blocked(q * 1e200, k * 1e-200, v, scale=1.0)
    args = ((q * 1e200).tolist(), (k * 1e-200).tolist(), v.tolist())
    np.testing.assert_allclose(out, ref.attention(*args, scale=1.0)[1], rtol=1e-12)


def test_the_size_guard_spares_paths_that_never_hold_the_scores(monkeypatch):
    # Scores of 512 x 512 float32 are 1 MiB; with the limit at 0.5 MiB, the paths that
    # hold them (attention_weights, the plain path with dropout) refuse, naming the scores,
    # while the fast path and the chunked one (a few blocks at a time) compute the output.

    monkeypatch.setattr(attn_core.validation, "MAX_ARRAY_BYTES", 512 * 1024)
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(512, 4)).astype(np.float32) for _ in range(3))
    with pytest.raises(ValueError, match=r"the scores \(\.\.\., L, S\)"):
        ac.attention_weights(q, k)
    with pytest.raises(ValueError, match=r"the scores \(\.\.\., L, S\)"):
        ac.scaled_dot_product_attention(q, k, v, dropout_p=0.1, rng=rng)
    monkeypatch.setattr(attn_core.validation, "MAX_ARRAY_BYTES", 2 * 1024**3)
    want = ac.attention_weights(q, k) @ v  # the reference, under the real limit
    monkeypatch.setattr(attn_core.validation, "MAX_ARRAY_BYTES", 512 * 1024)
    np.testing.assert_allclose(ac.scaled_dot_product_attention(q, k, v), want, atol=2e-6)
    chunked = ac.chunked_attention(q, k, v, block_size=64)
    np.testing.assert_allclose(chunked, want, atol=2e-6)


@pytest.mark.parametrize("path", ["plain", "fast", "chunked"])
def test_float16_in_float16_out_as_in_pytorch(path):
    # Computed in float32, handed back in float16: equal to the float64 result to float16's
    # precision (about 1e-3 relative), and scores beyond float16's max (65504) still work.
    rng = np.random.default_rng(1)
    n = 16 if path == "plain" else 300  # 300² pairs take the fast path
    q, k, v = (rng.normal(size=(n, 8)) for _ in range(3))
    want = ac.attention_weights(q, k) @ v  # float64
    half = [x.astype(np.float16) for x in (q, k, v)]
    attend = ac.chunked_attention if path == "chunked" else ac.scaled_dot_product_attention
    got = attend(*half)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), want, atol=4e-3)
    assert ac.attention_weights(*half[:2]).dtype == np.float16
    big = np.full((2, 1), 300.0, np.float16)  # q·k = 90000 > 65504, scaled by 1/√1
    out = ac.scaled_dot_product_attention(big, big, np.eye(2, dtype=np.float16))
    assert out.dtype == np.float16 and np.isfinite(out).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_block_that_overflows_unshifted_is_redone_and_the_rest_follow(rng, dtype):
    # Queries 3..5 (the second block of 3) score about ±1000: exp overflows unshifted in both
    # dtypes, so that block is redone with each row's max subtracted, and so are the blocks
    # after it; the first block stays unshifted. All equal the loop.
    q, k, v = random_qkv(rng, ((), (), (), 10, 8, 4, 3), dtype)
    q[3:6] *= 1000
    out = blocked(q, k, v, scale=1.0)
    _, expected = ref.attention(q.tolist(), k.tolist(), v.tolist(), scale=1.0)
    scores_size = 4 * float(np.abs(q).max()) * float(np.abs(k).max())  # E max|q| max|k|
    atol = 8 * np.finfo(dtype).eps * scores_size * float(np.abs(v).max())
    np.testing.assert_allclose(out, expected, rtol=0, atol=max(atol, 1e-6))
    assert np.isfinite(out).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_row_whose_exponentials_underflow_unshifted_is_redone(rng, dtype):
    # A float mask of -400 (float64) or -60 (float32) on every key of query 1: unshifted, its
    # exponentials sum below sqrt(tiny) (or to 0), shifted they are exact; a fully masked
    # query 2 still gives zeros.
    q, k, v = random_qkv(rng, ((), (), (), 4, 6, 3, 2), dtype)
    bias = np.zeros((4, 6))
    bias[1] = -400.0 if dtype == np.float64 else -60.0
    bias[2] = -np.inf
    out = blocked(q, k, v, bias)
    np.testing.assert_allclose(out, loop_attention(q, k, v, bias), **tolerance(dtype))
    assert (out[2] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(12))
def test_blocked_equals_the_plain_formula_on_random_calls(seed, dtype):
    # Random batch axes, L, S, block sizes, score magnitudes (scale 1e-3 .. 1e3), causal or
    # a bool mask with fully masked rows: the same output as attention_weights(...) @ v.
    rng = np.random.default_rng(seed)
    L, S, E, Ev = (int(n) for n in rng.integers(1, 40, size=4))
    batch = [(), (2,), (3, 2)][seed % 3]
    q, k, v = random_qkv(rng, (batch, batch, batch, L, S, E, Ev), dtype)
    scale, causal = float(10.0 ** rng.uniform(-3, 3)), bool(seed % 2)
    mask = None if causal else rng.random((L, S)) < 0.7
    if mask is not None:
        mask[rng.integers(L)] = False  # one query sees nothing: zeros
    block = int(rng.integers(1, L + 2))
    out = blocked_attention(q, k, v, mask, causal, scale=scale, block_size=block)
    plain = attention_weights(q, k, mask, causal, scale=scale) @ v
    # q·k rounds to eps |q·k| in either order of scaling: the weights differ by that much
    scores_size = max(1.0, scale * E * float(np.abs(q).max() * np.abs(k).max()))
    atol = 8 * np.finfo(dtype).eps * scores_size * float(np.abs(v).max())
    np.testing.assert_allclose(out, plain, rtol=0, atol=atol)
