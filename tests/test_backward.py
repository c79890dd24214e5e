"""attention_backward: finite differences, hand values, PyTorch autograd, and bad input.

Every expected gradient here comes from somewhere other than the five lines being tested:
central finite differences of the forward pass (float64), the worked example by hand, or
PyTorch's autograd through its own ``scaled_dot_product_attention``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import attn_core as ac
from attn_book.data import quanta_example
from attn_core.backward import attention_backward


def _loss(d_out, *args, **kwargs):
    """L = sum(dO * O): its gradient with respect to O is exactly dO."""
    return float(np.sum(d_out * ac.scaled_dot_product_attention(*args, **kwargs)))


def numeric_gradients(d_out, query, key, value, h=1e-6, **kwargs):
    """Central differences of _loss for every entry of query, key and value (float64)."""
    arrays = [np.array(a, dtype=float) for a in (query, key, value)]
    grads = []
    for which, arr in enumerate(arrays):
        g = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            shifted = []
            for sign in (1, -1):
                moved = [a.copy() for a in arrays]
                moved[which][idx] += sign * h
                shifted.append(_loss(d_out, *moved, **kwargs))
            g[idx] = (shifted[0] - shifted[1]) / (2 * h)
        grads.append(g)
    return grads


def _random_case(rng, q_shape, k_shape, v_shape):
    q, k, v = (rng.normal(size=s) for s in (q_shape, k_shape, v_shape))
    out_shape = ac.scaled_dot_product_attention(q, k, v).shape
    return q, k, v, rng.normal(size=out_shape)


CASES = [
    # (query, key, value shapes), mask kind
    (((3, 4), (5, 4), (5, 2)), None),
    (((4,), (3, 4), (3, 3)), None),  # one query, 1-D
    (((2, 3, 4), (2, 5, 4), (2, 5, 3)), "bool"),
    (((2, 3, 4), (2, 5, 4), (2, 5, 3)), "float"),
    (((3, 2), (5, 2), (5, 2)), "causal"),  # L < S
    (((5, 2), (3, 2), (3, 2)), "causal"),  # L > S
    (((3, 4), (4, 4), (4, 2)), "fully-masked-row"),
    (((2, 1, 3, 4), (3, 5, 4), (1, 5, 2)), "bool"),  # batch and head axes broadcast
    (((2, 3, 4), (5, 4), (5, 2)), "float-broadcast"),  # key and value shared by the batch
]


def _mask_kwargs(kind, rng, L, S):
    if kind is None:
        return {}
    if kind == "causal":
        return {"is_causal": True}
    if kind == "bool":
        mask = rng.random((L, S)) > 0.3
        mask[:, 0] = True  # no fully masked row here
        return {"attn_mask": mask}
    if kind in ("float", "float-broadcast"):
        mask = rng.normal(size=(1, S))
        mask[0, -1] = -np.inf  # one key hidden from every query
        return {"attn_mask": mask}
    mask = np.ones((L, S), dtype=bool)
    mask[1] = False  # query 1 sees no key
    return {"attn_mask": mask}


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("scale", [None, 0.7])
def test_gradients_equal_finite_differences(case, scale):
    shapes, kind = CASES[case]
    rng = np.random.default_rng([case, 0 if scale is None else 1])
    q, k, v, d_out = _random_case(rng, *shapes)
    L, S = (shapes[0][-2] if len(shapes[0]) > 1 else 1), shapes[1][-2]
    kwargs = _mask_kwargs(kind, rng, L, S) | {"scale": scale}
    got = attention_backward(d_out, q, k, v, **kwargs)
    want = numeric_gradients(d_out, q, k, v, **kwargs)
    for name, g, w, arr in zip("qkv", got, want, (q, k, v), strict=True):
        assert g.shape == arr.shape, name
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8, err_msg=f"grad_{name}")


def test_a_fully_masked_row_passes_no_gradient():
    rng = np.random.default_rng(3)
    q, k, v, d_out = _random_case(rng, (3, 4), (4, 4), (4, 2))
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    d_q, _, _ = attention_backward(d_out, q, k, v, attn_mask=mask)
    assert np.all(d_q[1] == 0.0) and np.all(np.isfinite(d_q))
    # and the other queries' gradients do not depend on row 1's upstream gradient
    d_out2 = d_out.copy()
    d_out2[1] = 100.0
    for a, b in zip(
        attention_backward(d_out, q, k, v, attn_mask=mask),
        attention_backward(d_out2, q, k, v, attn_mask=mask),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)


def test_a_key_no_query_sees_gets_no_gradient():
    rng = np.random.default_rng(4)
    q, k, v, d_out = _random_case(rng, (3, 4), (5, 4), (5, 2))
    mask = np.ones((3, 5), dtype=bool)
    mask[:, 2] = False
    _, d_k, d_v = attention_backward(d_out, q, k, v, attn_mask=mask)
    assert np.all(d_k[2] == 0.0) and np.all(d_v[2] == 0.0)
    assert np.abs(d_k[[0, 1, 3, 4]]).sum() > 0  # the others do get one


def test_the_worked_example_by_hand():
    """q = (1, 0), keys (1,0), (0,1), (1,1), values (2,0), (0,2), (1,1); dL/do = (1, 0)."""
    ex = quanta_example()
    s = 1 / math.sqrt(2)  # scores 1, 0, 1 times 1/sqrt(2)
    a = [math.exp(s) / (2 * math.exp(s) + 1), 1 / (2 * math.exp(s) + 1)]
    w = [a[0], a[1], a[0]]
    d_a = [2.0, 0.0, 1.0]  # dA_j = dO . v_j = first coordinate of v_j
    mean = sum(wj * da for wj, da in zip(w, d_a, strict=True))  # 3 a0, the output's first entry
    d_s = [wj * (da - mean) for wj, da in zip(w, d_a, strict=True)]
    d_q = [s * (d_s[0] + d_s[2]), s * (d_s[1] + d_s[2])]  # sum_j dS_j k_j / sqrt(2)
    d_k = [[s * ds * 1.0, 0.0] for ds in d_s]  # dS_j q / sqrt(2), q = (1, 0)
    d_v = [[wj, 0.0] for wj in w]  # w_j dO
    got = attention_backward([1.0, 0.0], ex.query, ex.keys, ex.values)
    for g, want in zip(got, (d_q, d_k, d_v), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-13, atol=1e-15)
    assert abs(sum(d_s)) < 1e-15  # the row of dS sums to zero


def test_a_shift_of_every_score_changes_nothing_so_ds_rows_sum_to_zero():
    """Moving q along a direction every key shares adds a constant to each score: no effect."""
    rng = np.random.default_rng(5)
    q, k, v, d_out = _random_case(rng, (3, 4), (6, 4), (6, 2))
    k[:, 0] = 1.0  # every key has the same first coordinate
    d_q, _, _ = attention_backward(d_out, q, k, v)
    np.testing.assert_allclose(d_q[:, 0], 0.0, atol=1e-12)


def test_float32_stays_float32():
    rng = np.random.default_rng(6)
    q, k, v, d_out = (a.astype(np.float32) for a in _random_case(rng, (3, 4), (5, 4), (5, 2)))
    grads = attention_backward(d_out, q, k, v)
    assert all(g.dtype == np.float32 for g in grads)
    want = attention_backward(*(a.astype(float) for a in (d_out, q, k, v)))
    for g, w in zip(grads, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- bad input


def test_grad_output_of_the_wrong_shape_names_both_shapes():
    q, k, v = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(3, 4\)"):
        attention_backward(np.ones((3, 4)), q, k, v)
    with pytest.raises(ValueError, match="grad_output"):
        attention_backward(np.ones((2,)), np.ones(4), k, v[:, :1])


def test_a_mask_that_does_not_broadcast_is_an_error():
    q, k, v = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))
    with pytest.raises(ValueError, match="attn_mask of shape"):
        attention_backward(np.ones((3, 2)), q, k, v, attn_mask=np.ones((3, 4), dtype=bool))
    with pytest.raises(ValueError, match="either attn_mask or is_causal"):
        attention_backward(np.ones((3, 2)), q, k, v, np.ones((3, 5), bool), is_causal=True)


def test_non_finite_grad_output_is_an_error():
    q, k, v = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))
    d_out = np.ones((3, 2))
    d_out[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"grad_output must be finite"):
        attention_backward(d_out, q, k, v)


def test_mismatched_key_and_value_are_errors():
    with pytest.raises(ValueError, match="same number of positions"):
        attention_backward(np.ones((3, 2)), np.ones((3, 4)), np.ones((5, 4)), np.ones((4, 2)))


# ---------------------------------------------------------------- PyTorch autograd


def _torch_grads(torch, d_out, q, k, v, attn_mask=None, is_causal=False, scale=None):
    F = torch.nn.functional
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    mask = None if attn_mask is None else torch.tensor(attn_mask)
    out = F.scaled_dot_product_attention(tq, tk, tv, mask, is_causal=is_causal, scale=scale)
    out.backward(torch.tensor(d_out))
    return [t.grad.numpy() for t in (tq, tk, tv)]


@pytest.mark.parametrize("trial", range(12))
def test_gradients_equal_pytorch_autograd(trial):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng([7, trial])
    batch = [(), (2,), (2, 3)][trial % 3]
    L, S, E, Ev = (int(n) for n in rng.integers(1, 6, size=4))
    q, k, v = (rng.normal(size=(*batch, n, w)) for n, w in ((L, E), (S, E), (S, Ev)))
    d_out = rng.normal(size=(*batch, L, Ev))
    kind = ["none", "bool", "float", "causal"][trial % 4]
    kwargs = {"scale": [None, 0.5][trial % 2]}
    if kind == "bool":
        kwargs["attn_mask"] = rng.random((L, S)) > 0.4
        kwargs["attn_mask"][:, 0] = True  # PyTorch's gradient of a fully masked row is tested below
    elif kind == "float":
        kwargs["attn_mask"] = rng.normal(size=(*batch, L, S))
    elif kind == "causal":
        kwargs["is_causal"] = True  # L != S in most trials: top-left, as PyTorch
    got = attention_backward(d_out, q, k, v, **kwargs)
    want = _torch_grads(torch, d_out, q, k, v, **kwargs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_a_fully_masked_row_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    q, k, v, d_out = _random_case(rng, (3, 4), (4, 4), (4, 2))
    mask = np.ones((3, 4), dtype=bool)
    mask[2] = False
    got = attention_backward(d_out, q, k, v, attn_mask=mask)
    want = _torch_grads(torch, d_out, q, k, v, attn_mask=mask)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.nan_to_num(w), rtol=1e-10, atol=1e-12)


def test_the_seed_layer_and_its_numpy_twin_train_alike():
    """A few identical SGD steps on the same data: PyTorch's autograd vs attention_backward."""
    torch = pytest.importorskip("torch")
    from attn_book.explainer_torch import SimpleSelfAttention, copy_weights
    from attn_core import training

    embed_dim, lr = 4, 0.5
    twin = ac.SimpleSelfAttention(embed_dim, np.random.default_rng(0))
    layer = SimpleSelfAttention(embed_dim).double()
    layer.scale = layer.scale.double()  # the explainer's float32 sqrt(4) = 2 exactly anyway
    copy_weights(twin, layer)
    rng = np.random.default_rng(1)
    x, target = rng.normal(size=(2, 5, embed_dim)), rng.normal(size=(2, 5, embed_dim))
    params = {}
    for name, key in (("query", "Q"), ("key", "K"), ("value", "V")):
        params[f"W_{key}"], params[f"b_{key}"] = getattr(twin, name)
    optimiser = torch.optim.SGD(layer.parameters(), lr=lr)
    tx, tt = torch.from_numpy(x), torch.from_numpy(target)
    for _ in range(5):
        output, _ = training.self_attention(x, params)
        _, d_out = training.squared_error(output, target)
        params = training.sgd_step(params, training.self_attention_backward(d_out, x, params), lr)
        optimiser.zero_grad()
        t_out, _ = layer(tx)
        loss = 0.5 * ((t_out - tt) ** 2).sum() / (2 * 5)  # squared_error: half, per token
        loss.backward()
        optimiser.step()
    moved = 0.0
    for name, key in (("query", "Q"), ("key", "K"), ("value", "V")):
        linear = getattr(layer, name)
        np.testing.assert_allclose(params[f"W_{key}"], linear.weight.detach().numpy().T, rtol=1e-10)
        np.testing.assert_allclose(params[f"b_{key}"], linear.bias.detach().numpy(), rtol=1e-10)
        moved += np.abs(params[f"W_{key}"] - getattr(twin, name)[0]).sum()
    assert moved > 0.01  # the weights did move: the comparison can fail


def test_nothing_the_caller_passed_is_changed_in_place():
    """The backward pass and the softmax work in place on their own temporaries only."""
    rng = np.random.default_rng(9)
    q, k, v, d_out = _random_case(rng, (2, 3, 4), (2, 5, 4), (5, 2))  # value's batch broadcast
    copies = [a.copy() for a in (q, k, v, d_out)]
    attention_backward(d_out, q, k, v)
    scores = rng.normal(size=(3, 4))
    scores_copy = scores.copy()
    ac.softmax(scores)
    for a, b in zip((q, k, v, d_out, scores), (*copies, scores_copy), strict=True):
        np.testing.assert_array_equal(a, b)
