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
