r"""Training one self-attention layer (학습) in numpy: the loss, its gradient, the update rules.

Shape legend: x (B, T, D), B sentences of T tokens; ``params`` a dict of ``W_Q``, ``W_K``
(D, d_k), ``W_V`` (D, d_v) and optional biases ``b_Q``, ``b_K``, ``b_V`` (as ``nn.Linear``).
"""

from __future__ import annotations

import math

import numpy as np

from .attention import attention_weights
from .backward import attention_backward
from .validation import as_float_array, check_positive_int, check_positive_real

_NAMES = ("Q", "K", "V")


def init_projections(rng, d_model, d_k, d_v=None, std=None):
    """Random projections ``W_Q``, ``W_K`` (D, d_k) and ``W_V`` (D, d_v), normal with mean 0.

    Parameters
    ----------
    rng : numpy.random.Generator
    d_model, d_k, d_v : int
        D, and the widths of queries and keys and of values (d_v defaults to d_k).
    std : float, optional
        Of every entry; default 1/sqrt(d_model) (LeCun's: unit-variance queries and keys).

    Returns
    -------
    dict of str to ndarray

    Examples
    --------
    >>> {n: w.shape for n, w in init_projections(np.random.default_rng(0), 4, 3, 2).items()}
    {'W_Q': (4, 3), 'W_K': (4, 3), 'W_V': (4, 2)}
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
    d_model, d_k = check_positive_int(d_model, "d_model"), check_positive_int(d_k, "d_k")
    d_v = d_k if d_v is None else check_positive_int(d_v, "d_v")
    std = 1.0 / math.sqrt(d_model) if std is None else check_positive_real(std, "std")
    widths = {"W_Q": d_k, "W_K": d_k, "W_V": d_v}
    return {name: rng.normal(0.0, std, (d_model, width)) for name, width in widths.items()}


def self_attention(x, params, scale=None):
    r"""The output :math:`\mathrm{softmax}(QK^\top \cdot \mathrm{scale})V` and weights; Q = XW_Q.

    Parameters
    ----------
    x : array_like, shape (..., T, D)
    params : dict
    scale : float, optional

    Returns
    -------
    output, weights : ndarray, shapes (..., T, d_v) and (..., T, T)

    Examples
    --------
    >>> out, w = self_attention(np.eye(3), {n: np.eye(3) for n in ("W_Q", "W_K", "W_V")})
    >>> out.shape, w.sum(axis=-1).round(6).tolist()
    ((3, 3), [1.0, 1.0, 1.0])
    """
    q, k, v = _project(as_float_array(x, "x"), params)
    weights = attention_weights(q, k, scale=scale)  # [..., T, T]
    return weights @ v, weights  # [..., T, T] @ [..., T, d_v] -> [..., T, d_v]


def self_attention_backward(grad_output, x, params, scale=None):
    r"""Every parameter's gradient in :func:`self_attention`: :math:`dW_Q = \sum_b X_b^\top dQ_b`, …

    Parameters
    ----------
    grad_output : array_like, shape (..., T, d_v)
        dL/dO.
    x, params, scale
        As in :func:`self_attention`.

    Returns
    -------
    dict of str to ndarray
        One gradient per parameter, of its shape (``db_Q`` is dQ summed over every token).

    Examples
    --------
    >>> p = {n: np.eye(2) for n in ("W_Q", "W_K", "W_V")}
    >>> self_attention_backward(np.ones((2, 2)), np.eye(2), p)["W_V"].tolist()  # weights sum to 1
    [[1.0, 1.0], [1.0, 1.0]]
    """
    x = as_float_array(x, "x")
    qkv = _project(x, params)
    grads = dict(zip(_NAMES, attention_backward(grad_output, *qkv, scale=scale), strict=True))
    x_rows = x.reshape(-1, x.shape[-1])  # [B*T, D]: every token of every sentence
    out = {}
    for name in _NAMES:
        d = grads[name].reshape(-1, grads[name].shape[-1])  # [B*T, width]
        out[f"W_{name}"] = x_rows.T @ d  # [D, B*T] @ [B*T, width]: the sum over the batch
        if f"b_{name}" in params:
            out[f"b_{name}"] = d.sum(axis=0)  # [width]
    return out


def _project(x, params):
    """Q, K, V of x (..., T, D) for params with W_* (D, width) and optional b_* (width,)."""
    missing = [f"W_{n}" for n in _NAMES if f"W_{n}" not in params]
    if missing:
        raise ValueError(f"params must have W_Q, W_K and W_V; missing {missing}")
    if x.ndim < 2 or any(params[f"W_{n}"].shape[0] != x.shape[-1] for n in _NAMES):
        shapes = {f"W_{n}": np.shape(params[f"W_{n}"]) for n in _NAMES}
        raise ValueError(f"x (..., T, D) and the W's (D, width) do not fit: x {x.shape}, {shapes}")
    rows = x.reshape(-1, x.shape[-1])  # [..., T, D] -> [N, D]: one 2-D matmul, not a batch
    return tuple(
        (rows @ params[f"W_{n}"] + params.get(f"b_{n}", 0.0)).reshape(*x.shape[:-1], -1)
        for n in _NAMES
    )


def squared_error(output, target):
    r"""Half the squared error per token, :math:`L = \frac{1}{2N}\sum_i \lVert o_i - t_i\rVert^2`.

    Parameters
    ----------
    output, target : array_like, shape (..., d_v)
        N tokens: every axis but the last.

    Returns
    -------
    loss, grad_output : float and ndarray of ``output``'s shape
        :math:`\partial L/\partial o_i = (o_i - t_i)/N`.

    Examples
    --------
    >>> squared_error([[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 2.0]])
    (1.25, array([[ 0.5,  0. ],
           [ 0. , -1. ]]))
    """
    o, t = as_float_array(output, "output"), as_float_array(target, "target")
    if o.shape != t.shape or o.ndim == 0:
        raise ValueError(f"output and target must have one shape, got {o.shape} and {t.shape}")
    n_tokens = max(1, o.size // max(1, o.shape[-1]))
    diff = o - t  # [..., d_v]
    return float(0.5 * np.sum(diff * diff) / n_tokens), diff / n_tokens


def gradient_norm(grads):
    """The Euclidean norm of all gradients together, sqrt(sum of every squared entry).

    Parameters
    ----------
    grads : dict of str to ndarray

    Returns
    -------
    float

    Examples
    --------
    >>> gradient_norm({"a": np.array([3.0]), "b": np.array([[4.0]])})
    5.0
    """
    return float(math.sqrt(sum(float(np.sum(np.square(g))) for g in grads.values())))


def sgd_step(params, grads, lr):
    r"""One step of gradient descent: :math:`\theta \leftarrow \theta - \eta\, \nabla_\theta L`.

    Parameters
    ----------
    params, grads : dict of str to ndarray
    lr : float > 0

    Returns
    -------
    dict of str to ndarray
        New arrays; ``params`` is not changed.

    Examples
    --------
    >>> sgd_step({"w": np.array([1.0])}, {"w": np.array([2.0])}, lr=0.1)
    {'w': array([0.8])}
    """
    lr = check_positive_real(lr, "lr")
    return {name: p - lr * grads[name] for name, p in params.items()}


def adam_state(params):
    """Adam's starting state: step 0 and zero moments shaped like ``params``.

    Parameters
    ----------
    params : dict of str to ndarray

    Returns
    -------
    dict with keys ``t``, ``m``, ``v``

    Examples
    --------
    >>> adam_state({"w": np.ones(2)})["t"]
    0
    """
    zeros = {name: np.zeros_like(p, dtype=float) for name, p in params.items()}
    return {"t": 0, "m": zeros, "v": {name: z.copy() for name, z in zeros.items()}}


def adam_step(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    r"""One step of Adam (Kingma & Ba, 2015).

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g, \quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,
        \quad \theta \leftarrow \theta
        - \eta\,\frac{m / (1-\beta_1^t)}{\sqrt{v/(1-\beta_2^t)} + \epsilon}

    Parameters
    ----------
    params, grads, state : dict
        ``state`` from :func:`adam_state` or the last step.
    lr, beta1, beta2, eps : float

    Returns
    -------
    params, state : dict
        New arrays and the new state (the inputs are not changed).

    Examples
    --------
    >>> p = {"w": np.array([1.0])}
    >>> p, s = adam_step(p, {"w": np.array([1e-3])}, adam_state(p), lr=0.1)
    >>> p["w"].round(6), s["t"]  # a small gradient still moves w by lr
    (array([0.900001]), 1)
    """
    lr = check_positive_real(lr, "lr")
    t = state["t"] + 1
    m = {n: beta1 * state["m"][n] + (1 - beta1) * g for n, g in grads.items()}
    v = {n: beta2 * state["v"][n] + (1 - beta2) * g * g for n, g in grads.items()}
    new = {}
    for name, p in params.items():
        m_hat, v_hat = m[name] / (1 - beta1**t), v[name] / (1 - beta2**t)
        new[name] = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new, {"t": t, "m": m, "v": v}
