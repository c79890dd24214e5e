"""What attn_core allocates: peak extra memory under tracemalloc, bounds that can fail.

Each bound is stated in the arrays' own sizes (the output, one row of scores, one block),
so a copy of an input (key, value, the cache) breaks it. No timing is asserted here.
"""

import tracemalloc

import numpy as np
import pytest

import attn_core as ac
from attn_core.validation import check_attention

KiB, MiB = 2**10, 2**20
# Python objects, shapes, a few (rows, 1) arrays, and numpy's reduction buffers: numpy 1.26
# measured 66,504 bytes for a check that copies nothing (8,192 float64 are 64 KiB); a copy of
# any input here is 8 MiB or more
SMALL = 256 * KiB


def peak_bytes(function, *args, **kwargs):
    """Peak bytes allocated during ``function(*args, **kwargs)``, after one warm-up call."""
    function(*args, **kwargs)  # numpy allocates a few caches on a first call
    tracemalloc.start()
    try:
        function(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def normal(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_inputs_check_copies_nothing(rng, dtype):
    # 8 MiB of keys (float32): the overflow check once took max |k| through np.abs(k), a copy.
    q = normal(rng, 4, 64, dtype=dtype)
    k, v = normal(rng, 2**15, 64, dtype=dtype), normal(rng, 2**15, 64, dtype=dtype)
    assert k.nbytes >= 8 * MiB
    assert peak_bytes(check_attention, q, k, v) < SMALL


@pytest.mark.parametrize("heads", [(), (2,)])
def test_a_decode_step_holds_the_output_and_one_row_of_scores(rng, heads):
    # One query against a long cache (chapter 10's case): 2**17 positions, 32 MiB of keys
    # and values per head in float32; a copy of either would be 16 MiB.
    S, E = 2**17, 32
    q, k, v = normal(rng, *heads, 1, E), normal(rng, *heads, S, E), normal(rng, *heads, S, E)
    out_bytes, row_bytes = q.nbytes, q.nbytes // E * S * 4  # (..., 1, Ev) and (..., 1, S)
    bound = out_bytes + row_bytes + SMALL
    assert peak_bytes(ac.scaled_dot_product_attention, q, k, v) <= bound
    if not heads:  # a 1-D query (E,), as chapter 10 passes it
        assert peak_bytes(ac.scaled_dot_product_attention, q[0], k, v) <= bound


def test_a_decode_step_through_the_cache_copies_nothing(rng):
    S, E = 2**17, 32
    cache = ac.KVCache()
    cache.append(normal(rng, S, E), normal(rng, S, E))
    query = normal(rng, E)
    row_bytes = S * 4  # one row of float32 scores
    assert peak_bytes(cache.attend, query) <= E * 4 + row_bytes + SMALL
    np.testing.assert_allclose(
        cache.attend(query),
        ac.attention_weights(query, cache.keys) @ cache.values,
        rtol=1e-4,
        atol=1e-6,
    )


def test_blocked_attention_at_8192_stays_under_16_mb(rng):
    # The scores would be 256 MiB; a block of them, the scaled queries and the output are all
    # it may hold (the output alone is 2 MiB).
    q, k, v = (normal(rng, 8192, 64) for _ in range(3))
    assert peak_bytes(ac.scaled_dot_product_attention, q, k, v) <= 16e6


def test_the_plain_path_holds_the_scores_so_the_bounds_can_fail(rng):
    # The same measure on the path that does hold an (L, S) array: it breaks the bounds above.
    q, k, v = normal(rng, 1, 32), normal(rng, 2**15, 32), normal(rng, 2**15, 32)
    assert peak_bytes(lambda: np.abs(k).max()) >= k.nbytes  # what the keys' check once did
    assert peak_bytes(lambda: ac.attention_weights(q, k) @ v) >= 2 * 2**15 * 4


def test_blocked_and_chunked_never_hold_the_whole_score_matrix(rng):
    q, k, v = (normal(rng, 1024, 8, dtype=np.float64) for _ in range(3))
    score_bytes = 1024 * 1024 * 8
    plain = peak_bytes(lambda: ac.attention_weights(q, k) @ v)
    assert plain >= score_bytes  # the check can fail: the plain path does hold it
    assert peak_bytes(ac.scaled_dot_product_attention, q, k, v) < score_bytes / 2  # 256 rows
    assert peak_bytes(ac.blocked_attention, q, k, v, block_size=64) < score_bytes / 4
    assert peak_bytes(ac.chunked_attention, q, k, v, block_size=32) < score_bytes / 4
