"""gpt-oss's attention sinks, against independent results.

Independent means: the sink written as a plain loop over rows with ``math.exp`` (one more
term in each row's denominator, nothing in its numerators), chapter 4's worked example by
hand, and gpt-oss's own recipe (concatenate, softmax, drop the column) in PyTorch.
"""

import math

import numpy as np
import pytest

import attn_core as ac
from attn_core import BLOCKED_FROM_PAIRS

Q, KEYS = [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # chapter 4's worked example
VALUES = [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]


def _weights_by_loops(q, k, sinks, mask, scale):
    """Row by row: e^(score) over (sum of e^(score) + e^(sink)); masked keys contribute 0."""
    B, H, L, S = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    out = np.zeros((B, H, L, S))
    for b in range(B):
        for h in range(H):
            for i in range(L):
                scores = [float(q[b, h, i] @ k[b, h, j]) * scale for j in range(S)]
                exps = [math.exp(s) if mask[i, j] else 0.0 for j, s in enumerate(scores)]
                total = sum(exps) + math.exp(float(sinks[h, 0]))
                out[b, h, i] = [e / total for e in exps]
    return out


@pytest.mark.parametrize("seed", range(4))
def test_per_head_sinks_equal_a_loop(seed):
    rng = np.random.default_rng(seed)
    B, H, L, S, E = 2, 3, 4, 6, 5
    q, k = rng.standard_normal((B, H, L, E)), rng.standard_normal((B, H, S, E))
    v = rng.standard_normal((B, H, S, 2))
    sinks = rng.standard_normal((H, 1)) * 2  # one logit per head
    mask = rng.random((L, S)) < 0.7
    mask[0] = False  # a fully masked row: its whole weight goes to the sink
    want = _weights_by_loops(q, k, sinks, mask, 1 / math.sqrt(E))
    got = ac.attention_weights(q, k, mask, sinks=sinks)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)
    assert (got[:, :, 0] == 0).all()
    out = ac.scaled_dot_product_attention(q, k, v, mask, sinks=sinks)
    np.testing.assert_allclose(out, want @ v, rtol=1e-12, atol=1e-15)


def test_the_worked_example_by_hand():
    # scores q·k / sqrt(2) = (1/sqrt 2, 0, 1/sqrt 2); a sink of logit 0 adds e^0 = 1 below
    e = math.exp(1 / math.sqrt(2))
    total = e + 1 + e + 1  # three keys, then the sink
    by_hand = [e / total, 1 / total, e / total]
    weights = ac.attention_weights(Q, KEYS, sinks=0.0)
    np.testing.assert_allclose(weights, by_hand, rtol=1e-15)
    assert round(float(weights.sum()), 3) == round(1 - 1 / total, 3) == 0.835  # the sink: 0.165
    output = ac.scaled_dot_product_attention(Q, KEYS, VALUES, sinks=0.0)
    np.testing.assert_allclose(output, [(2 * e + e) / total, (2 + e) / total], rtol=1e-15)
    # the weights keep their ratios, so the output shrinks towards 0 by the sink's share
    no_sink = ac.scaled_dot_product_attention(Q, KEYS, VALUES)
    np.testing.assert_allclose(output, no_sink * (1 - 1 / total), rtol=1e-15)


def test_rows_sum_to_one_minus_the_sinks_share():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 7, 4))
    sinks = np.array([[-1.0], [3.0]])  # (H, 1)
    weights = ac.attention_weights(q, k, sinks=sinks)
    scores = q @ k.swapaxes(-1, -2) / 2.0
    share = np.exp(sinks) / (np.exp(sinks) + np.exp(scores).sum(-1))  # [H, L]
    np.testing.assert_allclose(weights.sum(-1), 1 - share, rtol=1e-13)


def test_a_sink_of_minus_infinity_is_no_sink_and_sinks_broadcast():
    rng = np.random.default_rng(6)
    q, k = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    np.testing.assert_array_equal(
        ac.attention_weights(q, k, sinks=-np.inf), ac.attention_weights(q, k)
    )
    per_head = ac.attention_weights(q, k, sinks=[[0.5], [-0.5]])
    np.testing.assert_array_equal(per_head, ac.attention_weights(q, k, sinks=[0.5, -0.5]))
    with pytest.raises(ValueError, match=r"sinks of shape \(2, 3\) would give each query"):
        ac.attention_weights(q, k, sinks=np.array([[0.5] * 3, [-0.5] * 3]))  # per row: no
    one_query = ac.attention_weights(q[0, 0], k, sinks=[0.5, -0.5])  # a 1-D query: sinks (H,)
    as_rows = ac.attention_weights(q[0, :1], k, sinks=[[0.5], [-0.5]])  # [H, 1, S]
    np.testing.assert_array_equal(one_query, as_rows[:, 0])


def test_causal_grouped_and_large_calls_take_the_sink_too():
    rng = np.random.default_rng(7)
    n = math.isqrt(BLOCKED_FROM_PAIRS // 2) + 1  # 2 heads x n x n >= the blocked size
    q, k, v = (rng.standard_normal((2, n, 4)) for _ in range(3))
    sinks = np.array([[1.0], [0.0]])
    weights = ac.attention_weights(q, k, is_causal=True, sinks=sinks)
    out = ac.scaled_dot_product_attention(q, k, v, is_causal=True, sinks=sinks)
    np.testing.assert_allclose(out, weights @ v, rtol=1e-10, atol=1e-12)
    assert weights[0, 0, 0] == pytest.approx(
        math.exp(q[0, 0] @ k[0, 0] / 2) / (math.exp(q[0, 0] @ k[0, 0] / 2) + math.e)
    )
    q4 = rng.standard_normal((4, 3, 4))  # Hq = 4 query heads over the 2 KV heads
    grouped = ac.attention_weights(q4, k[:, :3], enable_gqa=True, sinks=np.zeros((4, 1)))
    repeated = ac.attention_weights(q4, np.repeat(k[:, :3], 2, axis=0), sinks=np.zeros((4, 1)))
    np.testing.assert_array_equal(grouped, repeated)


def test_float16_stays_float16():
    q = np.ones((2, 4), np.float16)
    assert ac.attention_weights(q, q, sinks=np.float16(0.0)).dtype == np.float16
    assert ac.scaled_dot_product_attention(q, q, q, sinks=0.0).dtype == np.float16


def test_gpt_oss_recipe_in_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    H, n, E = 4, 6, 8
    q, k, v = (rng.standard_normal((H, n, E)) for _ in range(3))
    sinks = rng.standard_normal(H)
    tq, tk, tv, ts = (torch.from_numpy(a) for a in (q, k, v, sinks))
    scores = torch.einsum("hqd,hkd->hqk", tq, tk) / math.sqrt(E)
    scores = scores + torch.triu(torch.full((n, n), -float("inf"), dtype=torch.float64), 1)
    joined = torch.cat([scores, ts.reshape(H, 1, 1).expand(H, n, 1)], dim=-1)
    want = torch.softmax(joined, dim=-1)[..., :-1] @ tv  # the sink column dropped
    got = ac.scaled_dot_product_attention(q, k, v, is_causal=True, sinks=sinks[:, None])
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-15)


def test_bad_sinks_name_themselves_and_the_shapes():
    q, k = np.zeros((2, 4, 3)), np.zeros((2, 5, 3))
    with pytest.raises(ValueError, match=r"sinks of shape \(3,\) do not broadcast .* \(2, 4\)"):
        ac.attention_weights(q, k, sinks=np.zeros(3))
    with pytest.raises(ValueError, match=r"sinks of shape \(7, 2, 1\) do not broadcast"):
        ac.scaled_dot_product_attention(q, k, k, sinks=np.zeros((7, 2, 1)))  # adds an axis
    with pytest.raises(ValueError, match="sinks must be finite"):
        ac.attention_weights(q, k, sinks=np.nan)
    with pytest.raises(TypeError, match="sinks must hold real numbers"):
        ac.attention_weights(q, k, sinks="0")


def _concat_softmax_drop(scores, sink):
    """gpt-oss's recipe for one row, in plain floats: append the sink, softmax, drop it."""
    joined = [*scores, sink]
    top = max(joined)
    exps = [math.exp(x - top) for x in joined]
    return [e / sum(exps) for e in exps[:-1]]


@pytest.mark.parametrize(("H", "L"), [(4, 4), (3, 5), (4, 1)])
def test_a_1d_sinks_is_one_logit_per_head_even_when_h_equals_l(H, L):
    # (H,) is what gpt-oss stores; with H = L it could be read along the query axis instead
    rng = np.random.default_rng(10 * H + L)
    B, S, E = 2, 6, 3
    q, k = rng.standard_normal((B, H, L, E)), rng.standard_normal((B, H, S, E))
    v = rng.standard_normal((B, H, S, 2))
    sinks = rng.standard_normal(H) * 2  # [H], all different: a mix-up would show
    want = np.zeros((B, H, L, S))
    for b in range(B):
        for h in range(H):
            for i in range(L):
                scores = [float(q[b, h, i] @ k[b, h, j]) / math.sqrt(E) for j in range(S)]
                want[b, h, i] = _concat_softmax_drop(scores, float(sinks[h]))
    got = ac.attention_weights(q, k, sinks=sinks)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(
        ac.scaled_dot_product_attention(q, k, v, sinks=sinks), want @ v, rtol=1e-12, atol=1e-15
    )
    np.testing.assert_array_equal(got, ac.attention_weights(q, k, sinks=sinks[:, None]))


def test_sinks_that_would_vary_by_query_are_refused_with_the_fix():
    q, k = np.zeros((2, 4, 4, 3)), np.zeros((2, 4, 5, 3))  # B = 2, H = L = 4
    with pytest.raises(ValueError, match=r"sinks of shape \(2, 4\) .* sinks\[\.\.\., None\]"):
        ac.attention_weights(q, k, sinks=np.zeros((2, 4)))  # (B, H): needs its trailing 1
    ac.attention_weights(q, k, sinks=np.zeros((2, 4, 1)))  # (B, H, 1): one per batch and head
    with pytest.raises(ValueError, match=r"sinks of shape \(4,\) is one logit per head, .* no"):
        ac.attention_weights(np.zeros((4, 3)), np.zeros((5, 3)), sinks=np.zeros(4))  # no heads
    one = ac.attention_weights(np.zeros((4, 3)), np.ones((5, 3)), sinks=[0.0])  # (1,): one sink
    np.testing.assert_allclose(one.sum(-1), 5 / 6)
