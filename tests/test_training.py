"""attn_core.training (the loss and its gradient, the layer's gradients, SGD and Adam) and
chapter 8's training run, attn_book.experiments.train_self_attention, on its task (and
train_self_attention_starts, the same runs stacked, for the learning-rate sweep)."""

from __future__ import annotations

import numpy as np
import pytest

import attn_core as ac
from attn_book.data import who_did_what
from attn_book.experiments import train_self_attention, train_self_attention_starts
from attn_core import training as tr


def _params(rng, biases=False):
    p = tr.init_projections(rng, 5, 3, 2, std=0.7)
    if biases:
        p |= {f"b_{n}": rng.normal(size=p[f"W_{n}"].shape[1]) for n in "QKV"}
    return p


def test_squared_error_by_hand_and_its_gradient_by_finite_differences():
    o, t = np.array([[1.0, 2.0], [3.0, 5.0]]), np.array([[0.0, 2.0], [3.0, 3.0]])
    loss, grad = tr.squared_error(o, t)
    assert loss == pytest.approx(0.5 * (1 + 4) / 2)  # two tokens
    h = 1e-6
    for idx in np.ndindex(o.shape):
        e = np.zeros_like(o)
        e[idx] = h
        numeric = (tr.squared_error(o + e, t)[0] - tr.squared_error(o - e, t)[0]) / (2 * h)
        assert grad[idx] == pytest.approx(numeric, rel=1e-7, abs=1e-10)


@pytest.mark.parametrize("biases", [False, True])
@pytest.mark.parametrize("scale", [None, 1.0])
def test_layer_gradients_equal_finite_differences(biases, scale):
    rng = np.random.default_rng(0)
    p, x, t = _params(rng, biases), rng.normal(size=(2, 4, 5)), rng.normal(size=(2, 4, 2))

    def loss(params):
        return tr.squared_error(tr.self_attention(x, params, scale)[0], t)[0]

    _, d_out = tr.squared_error(tr.self_attention(x, p, scale)[0], t)
    grads = tr.self_attention_backward(d_out, x, p, scale)
    assert grads.keys() == p.keys()
    h = 1e-6
    for name, w in p.items():
        for idx in np.ndindex(w.shape):
            up, down = ({**p, name: w.copy()} for _ in range(2))
            up[name][idx] += h
            down[name][idx] -= h
            numeric = (loss(up) - loss(down)) / (2 * h)
            assert grads[name][idx] == pytest.approx(numeric, rel=1e-6, abs=1e-9), (name, idx)


def test_sgd_step_is_theta_minus_lr_grad_and_leaves_params_alone():
    p = {"w": np.array([1.0, -2.0])}
    new = tr.sgd_step(p, {"w": np.array([0.5, 1.0])}, lr=0.2)
    assert new["w"].tolist() == [0.9, -2.2]
    assert p["w"].tolist() == [1.0, -2.0]


def test_adam_equals_pytorch_adam():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    w0 = rng.normal(size=(3, 2))
    grads = [rng.normal(size=(3, 2)) * 10.0**-i for i in range(5)]
    params, state = {"w": w0}, tr.adam_state({"w": w0})
    tw = torch.tensor(w0, requires_grad=True)
    opt = torch.optim.Adam([tw], lr=0.05)
    for g in grads:
        params, state = tr.adam_step(params, {"w": g}, state, lr=0.05)
        tw.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(params["w"], tw.detach().numpy(), rtol=1e-12)
    assert not np.allclose(params["w"], w0)


def test_adam_moves_each_entry_by_about_lr_whatever_the_gradient_size():
    p = {"w": np.zeros(3)}
    new, _ = tr.adam_step(p, {"w": np.array([1e-3, 1.0, 1e3])}, tr.adam_state(p), lr=0.01)
    np.testing.assert_allclose(new["w"], -0.01, rtol=1e-4)


def test_training_learns_the_who_did_what_pattern_on_a_held_out_sentence():
    held = [("나는", "사과를", "먹었다"), ("사과를", "나는", "먹었다")]
    data, full = who_did_what(exclude=held), who_did_what()
    assert len(data.tokens) == len(full.tokens) - 2 and held[0] not in data.tokens
    p = tr.init_projections(np.random.default_rng(0), data.x.shape[-1], 3, 7, std=0.1)
    run = train_self_attention(data.x, data.target, p, 200, lr=1.0, record=(0, 200))
    assert run.losses[-1] < 0.01 * run.losses[0]
    i = full.tokens.index(held[0])
    _, start = tr.self_attention(full.x[i], run.snapshots[0][1])
    _, end = tr.self_attention(full.x[i], run.params)
    np.testing.assert_allclose(start, 1 / 3, atol=0.02)  # small weights: nearly uniform
    np.testing.assert_allclose(end, full.pattern[i], atol=0.1)  # the pattern, never seen


def test_who_did_what_pattern_is_chapter_5s():
    data = who_did_what()
    i = data.tokens.index(("나는", "사과를", "먹었다"))
    assert data.pattern[i].tolist() == [[0, 0, 1], [0.5, 0, 0.5], [0, 1, 0]]
    j = data.tokens.index(("사과를", "나는", "먹었다"))  # the other order: the same roles
    assert data.pattern[j].tolist() == [[0, 0.5, 0.5], [0, 0, 1], [1, 0, 0]]
    np.testing.assert_array_equal(data.x[i, :, :4], [[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]])
    np.testing.assert_allclose(data.pattern.sum(axis=-1), 1.0)


def test_bad_input_is_named():
    p = tr.init_projections(np.random.default_rng(0), 4, 3)
    with pytest.raises(ValueError, match="do not fit"):
        tr.self_attention(np.ones((3, 5)), p)
    with pytest.raises(ValueError, match="missing"):
        tr.self_attention(np.ones((3, 4)), {"W_Q": p["W_Q"]})
    with pytest.raises(ValueError, match="one shape"):
        tr.squared_error(np.ones((3, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="optimizer"):
        train_self_attention(np.ones((1, 3, 4)), np.ones((1, 3, 3)), p, 1, 0.1, "rmsprop")
    with pytest.raises(ValueError, match="lr"):
        tr.sgd_step(p, p, lr=-1)
    with pytest.raises(TypeError, match="rng"):
        tr.init_projections(0, 4, 3)


def test_public_names():
    assert ac.attention_backward is not None
    names = ("sgd_step", "adam_step", "squared_error", "init_projections")
    assert all(callable(getattr(tr, n, None)) for n in names)


@pytest.mark.parametrize(("optimizer", "lr", "scale"), [("sgd", 0.5, None), ("adam", 0.05, 0.25)])
def test_stacked_starts_train_as_separate_runs(optimizer, lr, scale):
    # every run of the stack is its own full-batch training: the losses of train_self_attention
    # from each start, run by run (different starts, so a pooled loss or gradient would differ)
    rng = np.random.default_rng(3)
    x, target = rng.normal(size=(4, 3, 5)), rng.normal(size=(4, 3, 2))
    starts = [tr.init_projections(np.random.default_rng(s), 5, 6, 2, std=0.7) for s in range(3)]
    losses = train_self_attention_starts(x, target, starts, 20, lr, optimizer, scale=scale)
    assert losses.shape == (21, 3)
    for r, start in enumerate(starts):
        run = train_self_attention(x, target, start, 20, lr, optimizer, scale=scale)
        np.testing.assert_allclose(losses[:, r], run.losses, rtol=1e-12)
    assert len({round(float(loss), 6) for loss in losses[-1]}) == 3  # three different runs


def test_stacked_starts_bad_input_is_named():
    p = tr.init_projections(np.random.default_rng(0), 4, 3, 2)
    x, t = np.ones((1, 3, 4)), np.ones((1, 3, 2))
    with pytest.raises(ValueError, match="optimizer"):
        train_self_attention_starts(x, t, [p], 1, 0.1, "rmsprop")
    with pytest.raises(ValueError, match="W_Q, W_K and W_V"):
        train_self_attention_starts(x, t, [], 1, 0.1)
    with pytest.raises(ValueError, match="same shapes"):
        q = tr.init_projections(np.random.default_rng(0), 4, 5, 2)
        train_self_attention_starts(x, t, [p, q], 1, 0.1)
    with pytest.raises(ValueError, match="do not fit"):
        train_self_attention_starts(np.ones((1, 3, 5)), t, [p], 1, 0.1)
