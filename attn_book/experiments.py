"""The chapters' random experiments: chapter 3's draws, the heads' scale, chapter 8's training.

For a query and a key whose components are independent with mean 0 and
variance 1, the dot product (내적) has mean 0 and variance d_k. These
functions draw such vectors, measure the spread of the scores, and measure
what an unscaled spread does to softmax (소프트맥스): saturation, entropy
collapse and a vanishing Jacobian. Every draw comes from the ``rng`` passed
in, so a seeded generator gives the same numbers every time.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from attn_core import (
    as_array,
    attention_backward,
    attention_weights,
    check_bool,
    check_positive_int,
    check_positive_real,
    check_size,
    dot_scores,
    entropy,
    rotary,
    softmax_jacobian,
)
from attn_core.training import (
    adam_state,
    adam_step,
    gradient_norm,
    self_attention,
    self_attention_backward,
    sgd_step,
    squared_error,
)

__all__ = [
    "OffsetHead",
    "SaturationStats",
    "TrainingRun",
    "head_scale_stats",
    "random_dot_products",
    "rope_offset_weights",
    "saturation_stats",
    "train_rope_offset_head",
    "train_self_attention",
    "train_self_attention_starts",
]


def _check_rng(rng):
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def _check_dims(d_ks):
    """Return ``d_ks`` as a list of ints >= 1 (a sequence such as [4, 16, 64])."""
    dims = as_array(d_ks, "d_ks")
    if dims.ndim != 1 or dims.size == 0:
        raise ValueError(
            f"d_ks must be a non-empty sequence of dimensions like [4, 16, 64], got {d_ks!r}"
        )
    return [check_positive_int(d, "d_k") for d in dims.tolist()]


def _check_draws(shape, what):
    """Raise before drawing standard-normal float64 arrays of ``shape`` that are too large."""
    names = ", ".join(f"{name} = {n}" for name, n in zip(what, shape, strict=True))
    check_size(shape, np.float64, "the random draws", names)


def random_dot_products(d_k, n, rng, *, scaled=False):
    r"""Dot products of ``n`` independent pairs of standard-normal vectors.

    Parameters
    ----------
    d_k : int
        The vectors' dimension, >= 1.
    n : int
        How many (query, key) pairs to draw, >= 1.
    rng : numpy.random.Generator
        The source of randomness; seed it for reproducible numbers.
    scaled : bool, default False
        Divide each dot product by :math:`\sqrt{d_k}`, as attention does.

    Returns
    -------
    ndarray, shape (n,)
        :math:`q^{(i)} \cdot k^{(i)}` (over :math:`\sqrt{d_k}` if ``scaled``),
        each pair drawn fresh. Mean ≈ 0; variance ≈ d_k, or ≈ 1 if scaled.

    Examples
    --------
    >>> s = random_dot_products(64, 20_000, np.random.default_rng(0))
    >>> s.shape, bool(abs(s.var() / 64 - 1) < 0.05)
    ((20000,), True)
    """
    d_k = check_positive_int(d_k, "d_k")
    n = check_positive_int(n, "n")
    _check_draws((n, d_k), ("n", "d_k"))
    q = _check_rng(rng).standard_normal((n, 1, d_k))  # n queries, each (1, d_k)
    k = rng.standard_normal((n, 1, d_k))  # n keys, each (1, d_k)
    scores = dot_scores(q, k)[:, 0, 0]  # [n, 1, d_k] @ [n, d_k, 1] -> [n, 1, 1] -> [n]
    return scores / math.sqrt(d_k) if check_bool(scaled, "scaled") else scores


class SaturationStats(NamedTuple):
    """Averages over trials of one softmax row of attention weights, each of shape (D,)."""

    max_weight: np.ndarray  # mean of the largest weight: 1/S (uniform) .. 1 (one-hot)
    entropy: np.ndarray  # mean entropy in nats: log S (uniform) .. 0 (one-hot)
    jacobian_norm: np.ndarray  # mean Frobenius norm of diag(w) - w w^T: 0 when one-hot


def saturation_stats(d_ks, n_keys, n_trials, rng, *, scaled):
    """How peaked the attention weights of random queries and keys are, per dimension.

    For each ``d_k`` draws ``n_trials`` standard-normal queries, each against
    its own ``n_keys`` standard-normal keys, and averages three measures of the
    weights ``softmax(q·k / √d_k)`` (or ``softmax(q·k)`` if not ``scaled``).

    Parameters
    ----------
    d_ks : sequence of int, length D
        Dimensions to try, each >= 1.
    n_keys : int
        Keys per query (S), >= 2.
    n_trials : int
        Queries per dimension, >= 1.
    rng : numpy.random.Generator
    scaled : bool
        Divide the scores by √d_k (attention's default) or not.

    Returns
    -------
    SaturationStats
        ``max_weight``, ``entropy`` and ``jacobian_norm``, each of shape (D,).

    Examples
    --------
    >>> st = saturation_stats([4, 256], 8, 200, np.random.default_rng(2), scaled=False)
    >>> bool(st.max_weight[1] > 0.9 > st.max_weight[0])
    True
    """
    n_keys = check_positive_int(n_keys, "n_keys", minimum=2)
    n_trials = check_positive_int(n_trials, "n_trials")
    scaled, dims = check_bool(scaled, "scaled"), _check_dims(d_ks)
    rows = [_saturation_one(d, n_keys, n_trials, _check_rng(rng), scaled) for d in dims]
    return SaturationStats(*(np.array(col) for col in zip(*rows, strict=True)))


def _saturation_one(d_k, n_keys, n_trials, rng, scaled):
    _check_draws((n_trials, n_keys, d_k), ("n_trials", "n_keys", "d_k"))
    _check_draws((n_trials, n_keys, n_keys), ("n_trials", "n_keys", "n_keys"))  # the Jacobians
    q = rng.standard_normal((n_trials, 1, d_k))  # [T, 1, d_k]
    k = rng.standard_normal((n_trials, n_keys, d_k))  # [T, S, d_k]
    w = attention_weights(q, k, scale=None if scaled else 1.0)[:, 0, :]  # [T, 1, S] -> [T, S]
    return _row_stats(w)


def _row_stats(w):
    """Mean largest weight, entropy and Jacobian norm of weight rows w (T, S)."""
    jac = np.linalg.norm(softmax_jacobian(w), axis=(-2, -1))  # [T, S, S] -> [T]
    return w.max(axis=-1).mean(), entropy(w).mean(), jac.mean()


def head_scale_stats(d_model, n_heads, n_keys, n_trials, rng, *, std=1.0):
    """One head's weights scaled by 1/√d_head (right) and by 1/√d_model (the bug).

    Draws ``n_trials`` queries of one head, each against its own ``n_keys``
    keys, with independent normal components of standard deviation ``std``
    (1 for a freshly initialised head; larger for a trained head whose
    scores are peaked), and measures both scalings on the *same* draws.

    Parameters
    ----------
    d_model : int
        The model width D, divisible by ``n_heads``.
    n_heads : int
        H; each head has d_head = D / H features.
    n_keys : int
        Keys per query (S), >= 2.
    n_trials : int
        Queries, >= 1.
    rng : numpy.random.Generator
    std : float, default 1.0
        Standard deviation of every query and key component, > 0.

    Returns
    -------
    right, bug : SaturationStats
        Fields of shape (1,): scaled by 1/√d_head, and by 1/√d_model.

    Examples
    --------
    >>> right, bug = head_scale_stats(512, 8, 16, 200, np.random.default_rng(0), std=2.0)
    >>> bool(bug.entropy[0] > right.entropy[0])  # the bug flattens the weights
    True
    """
    n_heads = check_positive_int(n_heads, "n_heads")
    d_model = check_positive_int(d_model, "d_model")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
    n_keys = check_positive_int(n_keys, "n_keys", minimum=2)
    n_trials = check_positive_int(n_trials, "n_trials")
    std = check_positive_real(std, "std")
    d_head = d_model // n_heads
    _check_draws((n_trials, n_keys, d_head), ("n_trials", "n_keys", "d_head"))
    _check_draws((n_trials, n_keys, n_keys), ("n_trials", "n_keys", "n_keys"))  # the Jacobians
    q = std * _check_rng(rng).standard_normal((n_trials, 1, d_head))  # [T, 1, d_head]
    k = std * rng.standard_normal((n_trials, n_keys, d_head))  # [T, S, d_head]
    rows = [
        _row_stats(attention_weights(q, k, scale=1 / math.sqrt(d))[:, 0, :])  # [T, S]
        for d in (d_head, d_model)
    ]
    return tuple(SaturationStats(*(np.array([v]) for v in row)) for row in rows)


class TrainingRun(NamedTuple):
    """What :func:`train_self_attention` measured.

    losses : ndarray (steps + 1,), before each step and after the last
    grad_norms : ndarray (steps + 1,), the gradient norm of W_Q and W_K together
    entropies : ndarray (steps + 1,), the mean entropy (nats) of the weights' rows
    snapshots : list of (step, params) at the steps asked for in ``record``
    params : dict, the parameters after the last step
    """

    losses: np.ndarray
    grad_norms: np.ndarray
    entropies: np.ndarray
    snapshots: list
    params: dict


def train_self_attention(x, target, params, steps, lr, optimizer="sgd", scale=None, record=()):
    """Chapter 8's experiment: full-batch training of one self-attention layer, recorded.

    Each step is the chapter's one step, in attn_core's functions: forward
    (``self_attention``), loss (``squared_error``), backward
    (``self_attention_backward``), update (``sgd_step`` or ``adam_step``).

    Parameters
    ----------
    x : array_like, shape (B, T, D)
    target : array_like, shape (B, T, d_v)
    params : dict
        The starting parameters (not changed).
    steps : int
    lr : float
    optimizer : {"sgd", "adam"}
    scale : float, optional
        The scores' scale; default 1/sqrt(d_k). Pass 1.0 to train without it.
    record : collection of int
        Steps (0 = the start) whose parameters to keep in ``snapshots``.

    Returns
    -------
    TrainingRun

    Examples
    --------
    >>> from attn_core.training import init_projections
    >>> rng = np.random.default_rng(0)
    >>> x, t = np.eye(3)[None], np.eye(3)[None][:, ::-1]
    >>> run = train_self_attention(x, t, init_projections(rng, 3, 3), 50, lr=0.5)
    >>> bool(run.losses[-1] < run.losses[0])
    True
    """
    steps = check_positive_int(steps, "steps", minimum=0)
    if optimizer not in ("sgd", "adam"):
        raise ValueError(f"optimizer must be 'sgd' or 'adam', got {optimizer!r}")
    state = adam_state(params) if optimizer == "adam" else None
    losses, norms, entropies, snapshots = [], [], [], []
    for step in range(steps + 1):
        if step in record:
            snapshots.append((step, params))
        output, weights = self_attention(x, params, scale)  # [B, T, d_v], [B, T, T]
        loss, d_out = squared_error(output, target)
        grads = self_attention_backward(d_out, x, params, scale)
        losses.append(loss)
        norms.append(gradient_norm({n: grads[n] for n in ("W_Q", "W_K")}))
        entropies.append(float(entropy(weights).mean()))
        if step == steps:
            break
        if state is None:
            params = sgd_step(params, grads, lr)
        else:
            params, state = adam_step(params, grads, state, lr)
    return TrainingRun(np.array(losses), np.array(norms), np.array(entropies), snapshots, params)


def train_self_attention_starts(x, target, starts, steps, lr, optimizer="sgd", scale=None):
    """:func:`train_self_attention` from several starts at once; only the losses.

    Chapter 8's learning-rate sweep trains many small layers; stacking them on a
    leading axis (one axis per run, ``[R, ...]``) runs them in one pass of numpy calls
    each step. Each run is the same full-batch training as :func:`train_self_attention`
    (its own loss and gradients; the update rules act entry by entry), without
    biases.

    Parameters
    ----------
    x : array_like, shape (B, T, D)
    target : array_like, shape (B, T, d_v)
    starts : sequence of dict
        R starting parameters ``W_Q``, ``W_K``, ``W_V`` of one set of shapes.
    steps : int
    lr : float
    optimizer : {"sgd", "adam"}
    scale : float, optional
        As in :func:`train_self_attention`.

    Returns
    -------
    ndarray, shape (steps + 1, R)
        Each run's loss before each step and after the last.

    Examples
    --------
    >>> from attn_core.training import init_projections
    >>> x, t = np.eye(3)[None], np.eye(3)[None][:, ::-1]
    >>> starts = [init_projections(np.random.default_rng(s), 3, 3) for s in (0, 1)]
    >>> losses = train_self_attention_starts(x, t, starts, 50, lr=0.5)
    >>> losses.shape, bool(np.all(losses[-1] < losses[0]))
    ((51, 2), True)
    """
    steps = check_positive_int(steps, "steps", minimum=0)
    if optimizer not in ("sgd", "adam"):
        raise ValueError(f"optimizer must be 'sgd' or 'adam', got {optimizer!r}")
    names = ("W_Q", "W_K", "W_V")
    if not starts or any(set(s) != set(names) for s in starts):
        raise ValueError("starts must be a non-empty sequence of dicts of W_Q, W_K and W_V")
    shapes = {n: {np.shape(s[n]) for s in starts} for n in names}
    if any(len(found) != 1 for found in shapes.values()):
        raise ValueError(f"every start must have the same shapes, got {shapes}")
    params = {n: np.stack([as_array(s[n], n) for s in starts]).astype(float) for n in names}
    x, target = as_array(x, "x").astype(float), as_array(target, "target")
    if x.ndim != 3 or params["W_Q"].shape[1] != x.shape[-1]:
        raise ValueError(f"x (B, T, D) and the W's (D, width) do not fit: x {x.shape}, {shapes}")
    rows = x.reshape(-1, x.shape[-1])  # [B*T, D]
    state = adam_state(params) if optimizer == "adam" else None
    losses = []
    for step in range(steps + 1):
        # [B*T, D] @ [R, D, w] -> [R, B*T, w] -> [R, B, T, w]
        q, k, v = (
            (rows @ params[n]).reshape(-1, *x.shape[:-1], params[n].shape[-1]) for n in names
        )
        output = attention_weights(q, k, scale=scale) @ v  # [R, B, T, d_v]
        per_run = [squared_error(o, target) for o in output]  # each run's own loss
        losses.append([loss for loss, _ in per_run])
        if step == steps:
            break
        d_out = np.stack([d for _, d in per_run])  # [R, B, T, d_v]
        grads_qkv = attention_backward(d_out, q, k, v, scale=scale)  # [R, B, T, w] each
        grads = {  # [D, B*T] @ [R, B*T, w] -> [R, D, w]: each run's sum over the batch
            n: rows.T @ g.reshape(len(starts), -1, g.shape[-1])
            for n, g in zip(names, grads_qkv, strict=True)
        }
        if state is None:
            params = sgd_step(params, grads, lr)
        else:
            params, state = adam_step(params, grads, state, lr)
    return np.array(losses)


class OffsetHead(NamedTuple):
    """What :func:`train_rope_offset_head` learned.

    query, key : ndarray (d,), the vector every token's query and key start from
    losses : ndarray (steps + 1,), the loss before each step and after the last
    """

    query: np.ndarray
    key: np.ndarray
    losses: np.ndarray


def rope_offset_weights(query, key, positions, *, base=10_000):
    """Chapter 6's toy head: causal weights of tokens that share one query and one key.

    Token m's query is ``query`` rotated by RoPE at ``positions[m]``, its key ``key``
    rotated likewise, so the head can tell tokens apart by their positions alone.

    Parameters
    ----------
    query, key : array_like, shape (d,), d even
    positions : array_like, shape (L,)
        Each token's position; fractions (position interpolation) are allowed.
    base : float > 0, default 10 000
        RoPE's base (a larger one is NTK-aware scaling).

    Returns
    -------
    ndarray, shape (L, L)
        Row m: the weights of query m over keys 0..m (top-left causal), scale 1/sqrt(d).

    Examples
    --------
    >>> w = rope_offset_weights([1.0, 0.0], [1.0, 0.0], [0, 1, 2])
    >>> np.allclose(w.sum(axis=-1), 1), float(w[0, 0])
    (True, 1.0)
    """
    q = as_array(query, "query")
    k = as_array(key, "key")
    if q.ndim != 1 or q.shape != k.shape or q.size % 2:
        raise ValueError(
            f"query and key must be vectors of the same even length, got shapes {q.shape} "
            f"and {k.shape}"
        )
    pos = as_array(positions, "positions")
    if pos.ndim != 1 or pos.size == 0:
        raise ValueError(f"positions must be a non-empty 1-D sequence, got shape {pos.shape}")
    n = pos.size
    turned_q = rotary(np.broadcast_to(q, (n, q.size)), pos, base)  # [L, d]
    turned_k = rotary(np.broadcast_to(k, (n, k.size)), pos, base)
    return attention_weights(turned_q, turned_k, is_causal=True)


def train_rope_offset_head(d, positions, steps, lr, rng, *, offset=1, base=10_000, start=None):
    r"""Train :func:`rope_offset_weights`'s head to attend ``offset`` positions back.

    Full-batch gradient descent on the cross-entropy of the right key,
    :math:`-\frac{1}{L - o}\sum_{m \ge o} \log a_{m, m-o}`. The gradient is chapter 8's
    backward pass, :math:`dS = (A - \text{one-hot})/(L - o)`, taken back through each
    token's rotation: RoPE is linear, and the transpose of a turn by :math:`m\theta` is the
    turn by :math:`-m\theta`.

    Parameters
    ----------
    d : int, even
    positions : array_like, shape (L,), L > offset
    steps : int >= 0
    lr : float > 0
    rng : numpy.random.Generator
        Draws the standard-normal start (unless ``start`` is given).
    offset : int >= 1, default 1 (the previous token)
    base : float > 0, default 10 000
    start : (query, key), optional
        Continue from these vectors instead (fine-tuning).

    Returns
    -------
    OffsetHead

    Examples
    --------
    >>> head = train_rope_offset_head(8, range(16), 200, 0.1, np.random.default_rng(0))
    >>> bool(head.losses[-1] < head.losses[0])
    True
    """
    d = check_positive_int(d, "d")
    if d % 2:
        raise ValueError(f"d must be even (RoPE turns pairs), got {d}")
    steps = check_positive_int(steps, "steps", minimum=0)
    lr = check_positive_real(lr, "lr")
    offset = check_positive_int(offset, "offset")
    pos = as_array(positions, "positions")
    if pos.ndim != 1 or pos.size <= offset:
        raise ValueError(
            f"positions must be a 1-D sequence longer than offset = {offset}, got shape {pos.shape}"
        )
    if start is None:
        _check_rng(rng)
        q, k = rng.standard_normal(d), rng.standard_normal(d)
    else:
        q, k = (as_array(v, name).copy() for v, name in zip(start, ("query", "key"), strict=True))
    n = pos.size
    rows = np.arange(offset, n)
    losses = []
    for step in range(steps + 1):
        weights = rope_offset_weights(q, k, pos, base=base)  # [L, L]
        losses.append(float(-np.mean(np.log(weights[rows, rows - offset]))))
        if step == steps:
            break
        d_scores = np.zeros_like(weights)
        d_scores[rows] = weights[rows]
        d_scores[rows, rows - offset] -= 1
        d_scores /= rows.size
        turned_q = rotary(np.broadcast_to(q, (n, d)), pos, base)
        turned_k = rotary(np.broadcast_to(k, (n, d)), pos, base)
        d_turned_q = d_scores @ turned_k / math.sqrt(d)  # [L, d]
        d_turned_k = d_scores.T @ turned_q / math.sqrt(d)
        q = q - lr * rotary(d_turned_q, -pos, base).sum(axis=0)  # turn back, then sum
        k = k - lr * rotary(d_turned_k, -pos, base).sum(axis=0)
    return OffsetHead(q, k, np.array(losses))
