"""MemoryCalculator: the weights' bytes by hand and named errors."""

import pytest

pytest.importorskip("anywidget")

from attn_book.widgets import MemoryCalculator


def test_bytes_by_hand():
    calc = MemoryCalculator(n=1024, heads=12, batch=2, dtype="float32")
    assert calc.weight_bytes == 2 * 12 * 1024 * 1024 * 4  # 96 MiB
    calc.dtype = "float16"
    assert calc.weight_bytes == 48 * 2**20


def test_bad_input_names_the_argument():
    calc = MemoryCalculator()
    with pytest.raises(ValueError, match="dtype must be one of"):
        calc.dtype = "bfloat16"
    with pytest.raises(ValueError, match=r"n must be an integer in 1\.\.1048576, got 0"):
        calc.n = 0
    with pytest.raises(TypeError, match="heads must be an integer"):
        calc.heads = 2.5
    assert calc.weight_bytes == 64 * 2**30  # unchanged: 32 heads, 32k tokens, float16


def test_kv_cache_bytes_by_hand():
    calc = MemoryCalculator(n=131072, kv_cache=True)  # 32 layers, 8 KV heads of 128, float16
    assert calc.kv_cache_bytes == 2 * 32 * 8 * 128 * 131072 * 2 == 16 * 2**30
    calc.kv_heads, calc.batch = 32, 2  # every query head its own keys and values, two sequences
    assert calc.kv_cache_bytes == 2 * 2 * 32 * 32 * 128 * 131072 * 2  # 128 GiB
    calc.dtype, calc.n = "float32", 1024
    assert calc.kv_cache_bytes == 2 * 2 * 32 * 32 * 128 * 1024 * 4  # 2 GiB
    assert calc.weight_bytes == 2 * 32 * 1024 * 1024 * 4  # the weights are unchanged by it
    with pytest.raises(ValueError, match=r"kv_heads must be an integer in 1\.\.1024, got 0"):
        calc.kv_heads = 0
    with pytest.raises(TypeError, match="layers must be an integer"):
        calc.layers = "32"


def test_kv_heads_always_divide_the_query_heads():
    calc = MemoryCalculator(kv_cache=True, heads=32, kv_heads=7)  # 7 does not divide 32
    assert calc.kv_heads == 4 and calc.heads % calc.kv_heads == 0
    calc.heads = 12  # 4 divides 12: kept
    assert calc.kv_heads == 4
    calc.heads = 9  # 4 does not divide 9: the largest divisor below, 3
    assert calc.kv_heads == 3
    assert calc.kv_cache_bytes == 2 * 32 * 3 * 128 * 32768 * 2
    calc.kv_heads = 100  # more KV heads than query heads: one per query head
    assert calc.kv_heads == 9
