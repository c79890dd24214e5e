"""The worked example (손 계산) step by step: every intermediate number a reader writes down.

:func:`hand_steps` returns what a pencil computation produces — scores, scaled
scores, exponentials, their sum, weights, output — for one query or a stack of
queries. The weights and the output come from :func:`attn_core.attention_weights`
and :func:`attn_core.scaled_dot_product_attention`; the exponentials and their sum
are the hand-visible middle of the softmax, shown *without* the max-subtraction
trick because that is how the seed article writes them.

Shape legend as in :mod:`attn_core.attention`: query (..., L, E) or (E,),
key (..., S, E), value (..., S, Ev).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .attention import attention_weights, dot_scores, scaled_dot_product_attention
from .examples import WorkedExample, seed_example
from .heads import SimpleSelfAttention
from .validation import as_float_array, check_attention_inputs, check_scale

__all__ = [
    "HandSteps",
    "hand_steps",
    "sentence_example",
    "trace_self_attention",
]


_EXP_LIMIT = 700.0  # e^709.8 is the largest float64; stay clear of it


class HandSteps(NamedTuple):
    """The intermediate results of one attention computation, in the order they are written.

    Shapes for L queries and S keys (drop the L axis for a single query (E,)).
    """

    scores: np.ndarray  # (..., L, S)  q·k_j
    scale: float  #                    the factor the scores are multiplied by
    scaled: np.ndarray  # (..., L, S)  scores * scale
    exps: np.ndarray  # (..., L, S)    e^(scaled)
    total: np.ndarray  # (..., L)      sum over the keys of exps
    weights: np.ndarray  # (..., L, S) exps / total = softmax(scaled)
    output: np.ndarray  # (..., L, Ev) weights @ value


def hand_steps(query, key, value, *, scale=None):
    r"""Every step of :math:`\mathrm{softmax}(qK^\top \cdot \mathrm{scale})\,V`, as done by hand.

    Parameters
    ----------
    query : array_like, shape (..., L, E) or (E,)
    key : array_like, shape (..., S, E)
    value : array_like, shape (..., S, Ev)
    scale : float, optional
        Multiplies the scores; defaults to :math:`1/\sqrt{E}`. Use 1.0 for no scaling.

    Returns
    -------
    HandSteps
        ``exps`` are :math:`e^{s_j}` without subtracting the maximum, as in a hand
        computation; ``weights`` and ``output`` are computed by the stable library
        functions.

    Raises
    ------
    ValueError
        If the shapes do not fit (see :func:`attn_core.scaled_dot_product_attention`),
        or if a scaled score exceeds 700 in size, where :math:`e^{s}` would overflow
        or underflow to 0.

    Examples
    --------
    >>> ex = seed_example()
    >>> steps = hand_steps(ex.query, ex.keys, ex.values)
    >>> steps.scaled.round(3), steps.exps.round(3), round(float(steps.total), 3)
    (array([0.707, 0.   , 0.707]), array([2.028, 1.   , 2.028]), 5.056)
    >>> steps.weights.round(3), steps.output.round(3)
    (array([0.401, 0.198, 0.401]), array([1.203, 0.797]))
    """
    q, k, v = check_attention_inputs(query, key, value, scale=scale)
    factor = check_scale(scale, q.shape[-1])
    scores = dot_scores(q, k)  # [..., L, S]
    scaled = scores * factor
    if scaled.size and np.abs(scaled).max() > _EXP_LIMIT:
        raise ValueError(
            f"scaled scores reach {np.abs(scaled).max():.4g}; e^s overflows beyond "
            f"±{_EXP_LIMIT} in a hand computation (scores have shape {scaled.shape}); "
            "use attn_core.softmax, which subtracts the maximum first"
        )
    exps = np.exp(scaled)  # the numerators of the softmax, as written by hand
    return HandSteps(
        scores=scores,
        scale=factor,
        scaled=scaled,
        exps=exps,
        total=exps.sum(axis=-1),  # [..., L]
        weights=attention_weights(q, k, scale=factor),
        output=scaled_dot_product_attention(q, k, v, scale=factor),
    )


def sentence_example():
    """The seed's sentence "나는 사과를 먹었다" as Q, K, V (3, 2); row 1 is the seed's example.

    Token ``i`` of :data:`attn_core.SENTENCE_KO` has query ``Q[i]``, key ``K[i]``
    and value ``V[i]``. K and V are the seed's keys and values, and ``Q[1]``,
    the query of "사과를" (the apple), is the seed's q = (1, 0): as in the
    seed article, "사과" looks at "나는" (I) and "먹었다" (ate), so row 1 of
    the attention output is the hand computation. "나는" asks in the
    direction of "먹었다"'s key (the subject looks for its verb), and
    "먹었다" in the direction of "사과를"'s key (the verb looks for its
    object).

    Returns
    -------
    WorkedExample
        ``query`` (3, 2), ``keys`` (3, 2), ``values`` (3, 2).

    Examples
    --------
    >>> ex = sentence_example()
    >>> ex.query
    array([[1., 1.],
           [1., 0.],
           [0., 1.]])
    >>> bool((ex.query[1] == seed_example().query).all())
    True
    """
    seed = seed_example()
    queries = np.array([[1.0, 1.0], seed.query, [0.0, 1.0]])  # 나는, 사과를, 먹었다
    return WorkedExample(query=queries, keys=seed.keys, values=seed.values)


def trace_self_attention(layer, x):
    """Run a :class:`attn_core.SimpleSelfAttention` and keep every intermediate array.

    Parameters
    ----------
    layer : SimpleSelfAttention
    x : array_like, shape (B, T, D)
        ``D`` must be ``layer.embed_dim``.

    Returns
    -------
    dict of str to ndarray
        ``x`` (B, T, D); ``q``, ``k``, ``v`` (B, T, D); ``scores`` (B, T, T) before
        scaling; ``attention`` (B, T, T); ``output`` (B, T, D) — the last two equal
        to what ``layer(x)`` returns.

    Examples
    --------
    >>> from attn_core import SimpleSelfAttention
    >>> trace = trace_self_attention(SimpleSelfAttention(4, np.random.default_rng(0)),
    ...                              np.ones((2, 3, 4)))
    >>> {name: arr.shape for name, arr in trace.items()}["scores"]
    (2, 3, 3)
    """
    if not isinstance(layer, SimpleSelfAttention):
        raise TypeError(
            f"layer must be an attn_core.SimpleSelfAttention, got {type(layer).__name__}"
        )
    x = as_float_array(x, "x")
    output, attention = layer(x)  # validates x against layer.embed_dim
    q, k, v = layer.project(x)  # [B, T, D] each
    scores = dot_scores(q, k)  # [B, T, D] @ [B, D, T] -> [B, T, T]
    names = ("x", "q", "k", "v", "scores", "attention", "output")
    return dict(zip(names, (x, q, k, v, scores, attention, output), strict=True))
