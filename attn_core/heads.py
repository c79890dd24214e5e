"""The head split (nanoGPT's reshape + swap) and multi-head attention: H heads of D // H."""

from __future__ import annotations

import math

import numpy as np

from .attention import _weights, attention_weights, dot_scores
from .softmax import _softmax
from .validation import (
    as_float_array,
    check_attention,
    check_positive_int,
    check_scores_size,
    check_size,
)


def split_heads(x, n_heads):
    """Split the features of ``x`` into ``n_heads`` heads: reshape, *then* swap T and H.

    Parameters
    ----------
    x : array_like, shape (..., T, D)
    n_heads : int, dividing D

    Returns
    -------
    ndarray, shape (..., H, T, D // H)

    Examples
    --------
    >>> split_heads([[0.0, 1.0, 2.0, 3.0]], 2).tolist()  # T = 1: head 1 gets features 2, 3
    [[[0.0, 1.0]], [[2.0, 3.0]]]
    """
    return _split(as_float_array(x, "x"), n_heads, "x")


def _split(x, n_heads, name):
    """:func:`split_heads` of a float array ``x``, naming it ``name`` in errors."""
    n_heads = check_positive_int(n_heads, "n_heads")
    if x.ndim < 2 or x.shape[-1] % n_heads:
        raise ValueError(
            f"{name} must be (..., T, D) with D divisible by n_heads={n_heads}, got shape {x.shape}"
        )
    *batch, T, D = x.shape
    x = x.reshape(*batch, T, n_heads, D // n_heads)  # [..., T, D] -> [..., T, H, d_head]
    return np.swapaxes(x, -2, -3)  # -> [..., H, T, d_head]


def merge_heads(x):
    """Undo :func:`split_heads`: (..., H, T, d_head) -> (..., T, H * d_head).

    Parameters
    ----------
    x : array_like, shape (..., H, T, d_head)

    Returns
    -------
    ndarray, shape (..., T, H * d_head)

    Examples
    --------
    >>> merge_heads(split_heads([[0.0, 1.0, 2.0, 3.0]], 2))
    array([[0., 1., 2., 3.]])
    """
    x = as_float_array(x, "x")
    if x.ndim < 3:
        raise ValueError(f"x must be (..., H, T, d_head), got shape {x.shape}")
    return _merge(x)


def _merge(x):
    """:func:`merge_heads` of a float array x (..., H, T, d_head)."""
    x = np.swapaxes(x, -2, -3)  # [..., H, T, d_head] -> [..., T, H, d_head]
    return x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])  # -> [..., T, D]


def multi_head_attention(x_q, x_kv, w_q, w_k, w_v, w_o, n_heads, attn_mask=None, is_causal=False):
    r"""Multi-head attention: :math:`\mathrm{softmax}(Q_h K_h^\top/\sqrt{d_h})V_h` per head, @ W_O.

    Parameters
    ----------
    x_q, x_kv : array_like, shapes (..., L, D) and (..., S, D)
        The sequence that asks and the one that answers (``x_q`` again for self-attention).
    w_q, w_k, w_v, w_o : array_like, shape (D, D)
        Projections, no biases; head h uses columns h·d_head … (h + 1)·d_head − 1.
    n_heads : int
    attn_mask, is_causal
        As in :func:`attn_core.attention_weights`, broadcast over the heads.

    Returns
    -------
    output, weights : ndarray, shapes (..., L, D) and (..., H, L, S)

    Examples
    --------
    >>> out, w = multi_head_attention(np.eye(4), np.eye(4), *[np.eye(4)] * 4, n_heads=2)
    >>> out.shape, w.shape
    ((4, 4), (2, 4, 4))
    """
    names = ("x_q", "x_kv", "w_q", "w_k", "w_v", "w_o")
    arrays = (x_q, x_kv, w_q, w_k, w_v, w_o)
    x_q, x_kv, w_q, w_k, w_v, w_o = map(as_float_array, arrays, names)  # once, at the door
    q, k, v = _heads(x_q, x_kv, w_q, w_k, w_v, check_positive_int(n_heads, "n_heads"))
    a = check_attention(q, k, None, attn_mask, is_causal)  # the mask, against the heads' scores
    check_scores_size(a.query, a.key)  # the weights are returned: they must fit
    weights = _weights(a.query, a.key, a.mask, a.is_causal, a.scale)  # [..., H, L, S]
    out = _merge(weights @ v)  # [..., H, L, dv_head] -> [..., L, Dv]
    return _project(out, w_o, "the merged heads", "w_o"), weights


def _heads(x_q, x_kv, w_q, w_k, w_v, n_heads):
    """Each head's q (..., H, L, d_head), k (..., H, S, d_head), v (..., H, S, dv_head)."""
    q = _split(_project(x_q, w_q, "x_q", "w_q"), n_heads, "x_q @ w_q")  # [..., H, L, d_head]
    k = _split(_project(x_kv, w_k, "x_kv", "w_k"), n_heads, "x_kv @ w_k")  # [..., H, S, d_head]
    v = _split(_project(x_kv, w_v, "x_kv", "w_v"), n_heads, "x_kv @ w_v")  # [..., H, S, dv_head]
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"w_q and w_k must have the same number of columns (queries and keys meet in "
            f"one space): w_q gives {q.shape[-1] * n_heads}, w_k gives {k.shape[-1] * n_heads}"
        )
    return q, k, v


def _project(x, w, x_name, w_name):
    """Float arrays x (..., T, D) @ w (D, D') -> (..., T, D'), naming them if the shapes clash."""
    if x.ndim < 2 or w.ndim != 2 or x.shape[-1] != w.shape[0]:
        raise ValueError(
            f"{x_name} (..., T, D) and {w_name} (D, D') do not fit: "
            f"{x_name} has shape {x.shape}, {w_name} has shape {w.shape}"
        )
    because = f"{x_name} {x.shape} and {w_name} {w.shape}"
    check_size((*x.shape[:-1], w.shape[1]), np.result_type(x, w), f"{x_name} @ {w_name}", because)
    return x @ w


class SimpleSelfAttention:
    """The explainer's PyTorch ``SimpleSelfAttention`` in numpy: q, k, v by ``nn.Linear`` maps.

    Parameters
    ----------
    embed_dim : int
    rng : numpy.random.Generator
        Initialises weights and biases as ``nn.Linear`` does: uniform in ±1/sqrt(embed_dim).

    Examples
    --------
    >>> out, attn = SimpleSelfAttention(4, np.random.default_rng(0))(np.ones((2, 3, 4)))
    >>> out.shape, attn.shape  # [batch, seq_len, embed_dim], [batch, seq_len, seq_len]
    ((2, 3, 4), (2, 3, 3))
    """

    def __init__(self, embed_dim, rng):
        self.embed_dim = check_positive_int(embed_dim, "embed_dim")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
        because = f"embed_dim = {self.embed_dim}"
        check_size((3, self.embed_dim, self.embed_dim), np.float64, "the weights", because)
        bound = 1.0 / math.sqrt(self.embed_dim)
        shape_w, shape_b = (self.embed_dim, self.embed_dim), (self.embed_dim,)
        for name in ("query", "key", "value"):
            w, b = rng.uniform(-bound, bound, shape_w), rng.uniform(-bound, bound, shape_b)
            setattr(self, name, (w, b))

    def project(self, x):
        """x (batch, seq_len, embed_dim) -> q, k, v, each (batch, seq_len, embed_dim)."""
        return self._project(self._check(x))

    def _check(self, x):
        """``x`` as a float array (..., seq_len, embed_dim), or an error naming its shape."""
        x = as_float_array(x, "x")
        if x.ndim < 2 or x.shape[-1] != self.embed_dim:
            raise ValueError(
                f"x must be (..., seq_len, embed_dim={self.embed_dim}), got shape {x.shape}"
            )
        return x

    def _project(self, x):
        """q, k, v of a checked x: x @ w + b, each [B, T, D]."""
        return tuple(x @ w + b for w, b in (self.query, self.key, self.value))

    def __call__(self, x):
        """x (batch, seq_len, embed_dim) -> (output like x, attention (batch, seq_len, seq_len))."""
        q, k, v = self.project(x)
        attention = attention_weights(q, k)  # default scale 1/sqrt(embed_dim), as the explainer's
        return attention @ v, attention  # [B, T, T] @ [B, T, D] -> [B, T, D]


def trace_self_attention(layer, x):
    """Run a :class:`attn_core.SimpleSelfAttention` and keep every intermediate array.

    Parameters
    ----------
    layer : SimpleSelfAttention
    x : array_like, shape (B, T, D), D = ``layer.embed_dim``

    Returns
    -------
    dict of str to ndarray
        ``x``, ``q``, ``k``, ``v``, ``output`` (B, T, D), ``scores`` (unscaled), ``attention``.

    Examples
    --------
    >>> layer = SimpleSelfAttention(4, np.random.default_rng(0))
    >>> trace_self_attention(layer, np.ones((2, 3, 4)))["scores"].shape  # [B, T, T]
    (2, 3, 3)
    """
    if not isinstance(layer, SimpleSelfAttention):
        raise TypeError(
            f"layer must be an attn_core.SimpleSelfAttention, got {type(layer).__name__}"
        )
    x = layer._check(x)  # once, against layer.embed_dim
    q, k, v = layer._project(x)  # [B, T, D] each
    scores = dot_scores(q, k)  # [B, T, D] @ [B, D, T] -> [B, T, T]
    attention = _softmax(scores * (1.0 / math.sqrt(layer.embed_dim)))  # as layer(x) computes it
    output = attention @ v  # [B, T, T] @ [B, T, D] -> [B, T, D]
    names = ("x", "q", "k", "v", "scores", "attention", "output")
    return dict(zip(names, (x, q, k, v, scores, attention, output), strict=True))
