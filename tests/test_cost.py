"""The cost model: FLOPs and bytes derived by hand and by counting, not read from the code."""

import numpy as np
import pytest
import reference as ref

from attn_core import AttentionCost, attention_cost, linear_attention_flops


def test_small_case_by_hand():
    # B=2, H=3, L=5, S=7, d=4, d_v=6, float64 (8 bytes): 2*3*5*7 = 210 query-key pairs.
    cost = attention_cost(2, 3, 5, 7, 4, np.float64, d_v=6)
    assert cost == AttentionCost(
        qk_flops=1680,  # 210 dots of 4 terms, 2 FLOPs per term
        av_flops=2520,  # 210 weights, each times a 6-vector, 2 FLOPs per entry
        softmax_exps=210,
        score_bytes=1680,  # 210 numbers of 8 bytes
        input_bytes=4320,  # per (batch, head): 5*4 + 7*4 + 7*6 = 90 numbers; 6 of them, 8 bytes
        output_bytes=1440,  # 6 * 5 * 6 numbers of 8 bytes
    )
    assert cost.matmul_flops == 1680 + 2520


def test_defaults_float32_and_d_v_equal_to_d():
    cost = attention_cost(1, 1, 3, 2, 5)
    assert cost.av_flops == cost.qk_flops == 2 * 3 * 2 * 5
    assert cost.score_bytes == 3 * 2 * 4  # float32: 4 bytes


def counted_multiply_adds(L, S, d, d_v):
    """Run the reference loops on counting numbers; count every multiply."""
    count = [0]

    class Counting(float):
        def __mul__(self, other):
            count[0] += 1
            return Counting(float(self) * float(other))

        __rmul__ = __mul__

    q = [[Counting(1.0)] * d for _ in range(L)]
    k = [[Counting(1.0)] * d for _ in range(S)]
    v = [[Counting(1.0)] * d_v for _ in range(S)]
    scores = [[ref.dot(qi, kj) for kj in k] for qi in q]  # QK^T, without the scale
    qk = count[0]
    for row in scores:
        ref.weighted_sum([Counting(s) for s in row], v)  # weights @ V
    return qk, count[0] - qk


@pytest.mark.parametrize(("L", "S", "d", "d_v"), [(1, 1, 1, 1), (3, 4, 2, 5), (4, 2, 3, 1)])
def test_flops_are_twice_the_counted_multiplies(L, S, d, d_v):
    qk, av = counted_multiply_adds(L, S, d, d_v)
    cost = attention_cost(1, 1, L, S, d, d_v=d_v)
    assert (cost.qk_flops, cost.av_flops) == (2 * qk, 2 * av)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_bytes_match_numpys_own_arrays(dtype):
    B, H, L, S, d, d_v = 2, 3, 6, 5, 4, 7
    cost = attention_cost(B, H, L, S, d, dtype, d_v=d_v)
    assert cost.score_bytes == np.empty((B, H, L, S), dtype).nbytes
    assert cost.output_bytes == np.empty((B, H, L, d_v), dtype).nbytes
    qkv = [np.empty((B, H, n, m), dtype) for n, m in [(L, d), (S, d), (S, d_v)]]
    assert cost.input_bytes == sum(a.nbytes for a in qkv)


def test_the_issues_table_score_matrix_sizes():
    # The n x n float32 matrix at n = 2048, 4096, 8192: 16, 64 and 256 MiB.
    sizes = [attention_cost(1, 1, n, n, 64).score_bytes / 2**20 for n in (2048, 4096, 8192)]
    assert sizes == [16.0, 64.0, 256.0]


def test_empty_sequences_cost_nothing_quadratic():
    cost = attention_cost(1, 1, 0, 5, 4)
    assert cost.qk_flops == cost.av_flops == cost.score_bytes == 0
    assert cost.input_bytes == (5 * 4 + 5 * 4) * 4


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((0, 1, 2, 2, 2), {}, "batch must be an integer >= 1"),
        ((1, 0, 2, 2, 2), {}, "heads must be an integer >= 1"),
        ((1, 1, -1, 2, 2), {}, "L must be an integer >= 0"),
        ((1, 1, 2, 2, 0), {}, "d must be an integer >= 1"),
        ((1, 1, 2, 2, 2), {"d_v": 0}, "d_v must be an integer >= 1"),
    ],
)
def test_bad_sizes_name_the_argument(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        attention_cost(*args, **kwargs)


def test_bad_dtype_names_the_argument():
    with pytest.raises(TypeError, match="dtype must be a numpy dtype"):
        attention_cost(1, 1, 2, 2, 2, "not a dtype")


def test_linear_attention_flops_count_the_recurrence_by_hand():
    # Count a multiply-add as 2 FLOPs while running the recurrence's two products by loops.
    T, d_k, d_v, flops = 5, 3, 4, 0
    for _ in range(T):
        flops += 2 * d_k * d_v  # S += φ(k) vᵀ: d_k × d_v multiply-adds
        flops += 2 * d_k * d_v  # φ(q)ᵀ S: d_v sums of d_k products
    assert linear_attention_flops(1, 1, T, d_k, d_v) == flops
    assert linear_attention_flops(2, 3, T, d_k, d_v) == 6 * flops
    assert linear_attention_flops(1, 1, 0, 4) == 0
    dense = attention_cost(1, 1, 64, 64, 64).matmul_flops
    assert dense == linear_attention_flops(1, 1, 64, 64)  # the crossover: T = d
    with pytest.raises(ValueError, match="d_k must be an integer >= 1"):
        linear_attention_flops(1, 1, 4, 0)


@pytest.mark.parametrize(("L", "S"), [(4, 4), (3, 5), (5, 3), (1, 6), (0, 2)])
def test_causal_counts_the_pairs_of_the_top_left_triangle(L, S):
    # Count the kept pairs with a loop: query i sees keys 0 to i (is_causal=True's triangle).
    kept = sum(1 for i in range(L) for j in range(S) if j <= i)
    cost = attention_cost(2, 3, L, S, 4, d_v=5, causal=True)
    assert cost.softmax_exps == 6 * kept
    assert (cost.qk_flops, cost.av_flops) == (2 * 6 * kept * 4, 2 * 6 * kept * 5)
    assert cost.score_bytes == attention_cost(2, 3, L, S, 4, d_v=5).score_bytes  # whole table


def test_causal_linear_attention_wins_past_twice_d():
    # causal softmax: 2·n(n+1)/2·(d + d) = 2 d n (n + 1); linear: 4 n d², equal at n = 2d − 1
    d = 64
    causal = [attention_cost(1, 1, n, n, d, causal=True).matmul_flops for n in (127, 128)]
    linear = [linear_attention_flops(1, 1, n, d) for n in (127, 128)]
    assert causal[0] == linear[0] and causal[1] > linear[1]
    with pytest.raises(TypeError, match="causal"):
        attention_cost(1, 1, 2, 2, 2, causal="yes")
