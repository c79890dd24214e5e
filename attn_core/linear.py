"""Attention without the L × S table: linear attention and the (gated) delta rule.

Linear attention (선형 어텐션; Katharopoulos et al., 2020) replaces :math:`e^{q \\cdot k}`
with :math:`\\phi(q) \\cdot \\phi(k)`, so the causal pass regroups into a recurrence over a
fixed-size state. The delta rule (델타 규칙; Schlag et al., 2021; Yang et al., 2024) corrects
what the state already returns for a key before writing; Gated DeltaNet (Yang, Kautz and
Hatamizadeh, 2025) also forgets by a decay.

Shape legend: queries (..., L, E), keys (..., S, E), values (..., S, Ev); T = L = S for the
recurrences, one query, key and value a step; F the width of the feature map's output.
"""

from __future__ import annotations

import warnings

import numpy as np

from .kv_cache import _bytes_per_number, causal_mask_lower_right
from .validation import (
    as_float_array,
    check_attention,
    check_attention_inputs,
    check_bool,
    check_positive_int,
    first_true,
)


class DeltaRuleGrowthWarning(RuntimeWarning):
    r"""A delta-rule step with :math:`\beta_t \lVert k_t \rVert^2 > 2`, which stretches the state.

    Issued by :func:`delta_rule`, once a call, naming the first such token; silence it with
    ``warnings.simplefilter("ignore", DeltaRuleGrowthWarning)`` to watch the state grow.

    Examples
    --------
    >>> issubclass(DeltaRuleGrowthWarning, RuntimeWarning)
    True
    """


def elu_plus_one(x):
    r"""Katharopoulos et al.'s feature map :math:`\phi(x) = \mathrm{elu}(x) + 1`, positive.

    :math:`x + 1` for :math:`x > 0`, :math:`e^x` otherwise.

    Parameters
    ----------
    x : array_like, shape (..., E)

    Returns
    -------
    ndarray, shape (..., E)
        Every entry > 0, so the normaliser :math:`\phi(q) \cdot \sum_j \phi(k_j)` is too.

    Examples
    --------
    >>> elu_plus_one([1.0, 0.0, -1.0]).round(3)
    array([2.   , 1.   , 0.368])
    """
    x = as_float_array(x, "x")
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))  # min: no overflow in exp


def linear_attention(query, key, value, *, causal=True, feature_map=elu_plus_one, normalize=True):
    r"""Linear attention, the parallel form: :math:`\phi(q_i) \cdot \sum_j \phi(k_j) v_j^\top`.

    .. math::
        o_i = \frac{\sum_{j} \phi(q_i)^\top \phi(k_j)\, v_j}{\sum_{j} \phi(q_i)^\top \phi(k_j)}

    over keys j <= i (causal, the queries the newest L of S positions, L <= S) or every key.

    Parameters
    ----------
    query, key, value : array_like, shapes (..., L, E) or (E,), (..., S, E), (..., S, Ev)
    causal : bool, default True
        Causal: the masked table :math:`(\phi(Q)\phi(K)^\top \odot M)\,V`, L × S. Not causal:
        the regrouped product :math:`\phi(Q)\,(\phi(K)^\top V)`, no L × S table at all.
    feature_map : callable, default :func:`elu_plus_one`
        φ, applied to queries and keys along the last axis: (..., E) -> (..., F), positive.
    normalize : bool, default True
        Divide by Katharopoulos et al.'s normaliser :math:`\phi(q_i) \cdot \sum_j \phi(k_j)`;
        False: the plain sums (as in RetNet and Gated DeltaNet).

    Returns
    -------
    ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
        For causal self-attention (L = S), :func:`linear_attention_recurrent`'s outputs.

    Examples
    --------
    >>> keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    >>> linear_attention([1.0, 0.0], keys, values).round(3)  # φ(q)·φ(k) = 5, 4, 6
    array([1.067, 0.933])
    """
    a = check_attention(query, key, value, scale=1.0)
    causal, normalize = check_bool(causal, "causal"), check_bool(normalize, "normalize")
    L, S = a.query.shape[-2], a.key.shape[-2]
    if causal and L > S:  # the first queries would see no key: the normaliser would be 0
        raise ValueError(
            f"L must be <= S when causal: the L queries are the last L of the S key "
            f"positions, got L = {L}, S = {S} (query has shape {a.query.shape}, key "
            f"{a.key.shape}); causal=False lets every query see every key"
        )
    fq, fk = _features(feature_map, a.query, a.key)  # [..., L, F], [..., S, F]
    v = np.concatenate([a.value, np.ones_like(a.value[..., :1])], axis=-1)  # [..., S, Ev + 1]
    if causal:  # the last column of v sums the weights: the normaliser
        table = fq @ np.swapaxes(fk, -1, -2)  # [..., L, F] @ [..., F, S] -> [..., L, S]
        table = table * causal_mask_lower_right(*table.shape[-2:])  # key j <= query i
        sums = table @ v  # [..., L, S] @ [..., S, Ev + 1] -> [..., L, Ev + 1]
    else:  # regrouped: the keys and values summed once, then each query reads the sum
        sums = fq @ (np.swapaxes(fk, -1, -2) @ v)  # [..., L, F] @ [..., F, Ev + 1]
    return a.result(_normalised(sums, normalize))


def linear_attention_recurrent(
    query, key, value, *, feature_map=elu_plus_one, normalize=True, state=None
):
    r"""Causal linear attention as a recurrence over a fixed-size state, one token a step.

    .. math::
        S_t = S_{t-1} + \phi(k_t)\, v_t^\top, \quad z_t = z_{t-1} + \phi(k_t), \quad
        o_t = \frac{\phi(q_t)^\top S_t}{\phi(q_t)^\top z_t}

    Parameters
    ----------
    query, key, value : array_like, shapes (..., T, E), (..., T, E), (..., T, Ev)
    feature_map, normalize
        As in :func:`linear_attention`.
    state : tuple of array_like, shapes (..., F, Ev) and (..., F), optional
        (S, z) after the tokens before these (a previous call's); None: zeros.

    Returns
    -------
    outputs : ndarray, shape (..., T, Ev)
        :func:`linear_attention`'s causal rows.
    state : tuple of ndarray, shapes (..., F, Ev) and (..., F)
        (S_T, z_T): all a decode step needs, whatever T is.

    Examples
    --------
    >>> keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    >>> out, (S, z) = linear_attention_recurrent([[1.0, 0.0]] * 3, keys, values)  # three steps
    >>> out.round(3)  # the last row is linear_attention's
    array([[2.   , 0.   ],
           [1.111, 0.889],
           [1.067, 0.933]])
    >>> z  # φ(k) summed: (2 + 1 + 2, 1 + 2 + 2)
    array([5., 5.])
    """
    q, k, v = _check_steps(query, key, value)
    normalize = check_bool(normalize, "normalize")
    fq, fk = _features(feature_map, q, k)  # [..., T, F]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    S, z = _linear_state(state, (*batch, fk.shape[-1], v.shape[-1]), fk.dtype)  # [..., F, Ev]
    out = np.empty((*batch, *v.shape[-2:]), S.dtype)  # [..., T, Ev]
    for t in range(q.shape[-2]):
        S = S + fk[..., t, :, None] * v[..., t, None, :]  # [..., F, 1] * [..., 1, Ev]: φ(k) vᵀ
        z = z + fk[..., t, :]  # [..., F]
        read = np.concatenate([S, z[..., None]], axis=-1)  # [..., F, Ev + 1]
        out[..., t, :] = _normalised(fq[..., t, None, :] @ read, normalize)[..., 0, :]
    return out, (S, z)


def delta_rule(query, key, value, beta, *, decay=None, state=None):
    r"""The (gated) delta rule, as a recurrence over the sequence: a state corrected per key.

    .. math::
        S_t = \alpha_t S_{t-1} (I - \beta_t k_t k_t^\top) + \beta_t v_t k_t^\top, \quad
        o_t = S_t q_t

    That is one gradient step of size :math:`\beta_t` on :math:`\tfrac12\|S k_t - v_t\|^2`
    from :math:`\alpha_t S_{t-1}`: :math:`S_t = \alpha_t S_{t-1} - \beta_t(\alpha_t S_{t-1}
    k_t - v_t)\,k_t^\top` (DeltaNet, Gated DeltaNet with ``decay``).

    Parameters
    ----------
    query, key, value : array_like, shapes (..., T, E), (..., T, E), (..., T, Ev)
        Keys L2-normalised, as the models do (see Notes); no scale on the queries.
    beta : array_like, shape (..., T), 0 <= beta <= 2
        The writing strength :math:`\beta_t` of each token (a sigmoid in the models).
    decay : array_like, shape (..., T), 0 <= decay <= 1, optional
        :math:`\alpha_t`, how much of the state each token keeps; None: 1 (DeltaNet).
    state : array_like, shape (..., Ev, E), optional
        :math:`S_0`, a previous call's final state; None: zeros.

    Returns
    -------
    outputs : ndarray, shape (..., T, Ev)
    state : ndarray, shape (..., Ev, E)
        :math:`S_T`.

    Warns
    -----
    DeltaRuleGrowthWarning
        When some :math:`\beta_t \|k_t\|^2 > 2` (see Notes), naming the first such token,
        its :math:`\beta_t` and :math:`\|k_t\|^2`; the outputs are still returned.

    Notes
    -----
    Along :math:`k_t` the factor :math:`I - \beta_t k_t k_t^\top` multiplies by
    :math:`1 - \beta_t \|k_t\|^2`. With unit keys and :math:`0 \le \beta \le 2` that is in
    [−1, 1]: the step never grows the state. Real models L2-normalise the keys in the
    layer, before the recurrence, and take β from a sigmoid, in (0, 1). A key of another
    length is accepted: for :math:`\beta\|k\|^2 > 2` the step amplifies the state along k,
    and repeated, the state and the outputs grow without bound, soon to inf and nan. That
    is a warning (:class:`DeltaRuleGrowthWarning`), not an error: it is a true property of
    the recurrence, which a chapter may want to show, and the numbers returned are what
    the rule computes; but it is never silent, since unnormalised keys are the usual cause.
    The test is :math:`\beta_t \|k_t\|^2 > 2` alone, in the inputs' dtype; a decay
    :math:`\alpha_t < 1` may damp the growth and is not counted.
    Beta outside [0, 2] is refused: it is usually logits passed without their sigmoid.

    fla (flash-linear-attention) stores the transpose, :math:`S^\top` (E, Ev), scales the
    queries by :math:`1/\sqrt{E}` and takes the decay as :math:`g = \log \alpha`: pass
    ``query / sqrt(E)`` and ``decay=np.exp(g)`` to compare.

    Examples
    --------
    >>> keys = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]  # the third key overwrites the first
    >>> out, S = delta_rule(keys, keys, [[1.0], [2.0], [5.0]], beta=[1.0, 1.0, 1.0])
    >>> S  # linear attention would hold 1 + 5 = 6 for the first key
    array([[5., 2.]])
    """
    q, k, v = _check_steps(query, key, value)
    batch, T = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2]), q.shape[-2]
    b = _check_gate(beta, "beta", (*batch, T), 2.0, "a sigmoid of the logits, in (0, 1)")
    alpha_hint = "alpha = exp(g) in (0, 1], if you hold the log-decay g"
    a = _check_gate(1.0 if decay is None else decay, "decay", (*batch, T), 1.0, alpha_hint)
    S = _check_state(0.0 if state is None else state, (*batch, *v.shape[-1:], k.shape[-1]), q.dtype)
    _warn_if_growing(b, k)
    out = np.empty((*batch, T, v.shape[-1]), q.dtype)
    for t in range(T):
        k_row, v_col = k[..., t, None, :], v[..., t, :, None]  # [..., 1, E], [..., Ev, 1]
        alpha, beta_t = a[..., t, None, None], b[..., t, None, None]  # [..., 1, 1]
        S = alpha * (S - beta_t * (S @ np.swapaxes(k_row, -1, -2)) @ k_row)  # αS(I - β k kᵀ)
        S = S + beta_t * v_col @ k_row  # + β v kᵀ: [..., Ev, 1] @ [..., 1, E]
        out[..., t, :] = (S @ q[..., t, :, None])[..., 0]  # S q: [..., Ev, E] @ [..., E, 1]
    return out, S


def delta_rule_chunkwise(query, key, value, beta, *, chunk_size, state=None):
    r"""The delta rule (no decay) chunk by chunk, in the WY form of Yang et al. (2024).

    Within a chunk of :math:`C` tokens, keys :math:`K` (C, E), values :math:`V` (C, Ev),
    :math:`B = \operatorname{diag}(\beta)` and the state :math:`S` (Ev, E) before the chunk:

    .. math::
        T = \big(I + \operatorname{tril}(B K K^\top, -1)\big)^{-1} B, \quad
        W = T K, \quad U = T V, \quad \Delta = U - W S^\top,

    :math:`T` by forward substitution; then the outputs and the state after the chunk,

    .. math::
        O = Q S^\top + \operatorname{tril}(Q K^\top)\, \Delta, \qquad
        S' = S + \Delta^\top K .

    Row t of :math:`\Delta` is the correction :math:`\beta_t(\mathbf v_t - S_{t-1}\mathbf k_t)`
    that :func:`delta_rule` writes at token t, so the two agree up to rounding. The sequence is
    :math:`\lceil T / C \rceil` steps of (C × C) and (C × E) matrix products, plus C steps of
    forward substitution for all chunks at once, instead of T rank-1 updates.

    Parameters
    ----------
    query, key, value, beta, state
        As :func:`delta_rule` (no ``decay``: Gated DeltaNet's chunk form adds the decays'
        ratios; use :func:`delta_rule`).
    chunk_size : int >= 1
        C; the last chunk is shorter when C does not divide T.

    Returns
    -------
    outputs : ndarray, shape (..., T, Ev)
    state : ndarray, shape (..., Ev, E)

    Warns
    -----
    DeltaRuleGrowthWarning
        As :func:`delta_rule`.

    Examples
    --------
    >>> keys = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]  # the third key overwrites the first
    >>> out, S = delta_rule_chunkwise(keys, keys, [[1.0], [2.0], [5.0]], [1, 1, 1], chunk_size=2)
    >>> S
    array([[5., 2.]])
    """
    q, k, v = _check_steps(query, key, value)
    batch, T = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2]), q.shape[-2]
    C = check_positive_int(chunk_size, "chunk_size")
    b = _check_gate(beta, "beta", (*batch, T), 2.0, "a sigmoid of the logits, in (0, 1)")
    S = _check_state(0.0 if state is None else state, (*batch, *v.shape[-1:], k.shape[-1]), q.dtype)
    _warn_if_growing(b, k)
    C = min(C, max(T, 1))
    n_chunks = -(-T // C)
    pad = n_chunks * C - T  # zero tokens (β = 0, k = 0) write nothing and are cut off

    def chunks(x, width):  # [..., T, width] -> [..., n_chunks, C, width], zero-padded
        x = np.broadcast_to(x, (*batch, T, width))
        x = np.concatenate([x, np.zeros((*batch, pad, width), q.dtype)], axis=-2)
        return x.reshape(*batch, n_chunks, C, width)

    Qc, Kc, Vc = chunks(q, q.shape[-1]), chunks(k, k.shape[-1]), chunks(v, v.shape[-1])
    Bc = chunks(b[..., None], 1)  # [..., n, C, 1]
    A = np.tril(Bc * (Kc @ np.swapaxes(Kc, -1, -2)), -1)  # tril(B K Kᵀ, -1): [..., n, C, C]
    Tm = np.zeros_like(A)  # (I + A) T = B, row by row: T_i = B_i - Σ_{j<i} A_ij T_j
    for i in range(C):
        Tm[..., i, :] = -(A[..., i, None, :i] @ Tm[..., :i, :])[..., 0, :]
        Tm[..., i, i] += Bc[..., i, 0]
    W, U = Tm @ Kc, Tm @ Vc  # [..., n, C, E], [..., n, C, Ev]
    QK = np.tril(Qc @ np.swapaxes(Kc, -1, -2))  # causal within the chunk: [..., n, C, C]
    out = np.empty((*batch, n_chunks, C, v.shape[-1]), q.dtype)
    for c in range(n_chunks):
        delta = U[..., c, :, :] - W[..., c, :, :] @ np.swapaxes(S, -1, -2)  # [..., C, Ev]
        out[..., c, :, :] = Qc[..., c, :, :] @ np.swapaxes(S, -1, -2) + QK[..., c, :, :] @ delta
        S = S + np.swapaxes(delta, -1, -2) @ Kc[..., c, :, :]  # + Δᵀ K: [..., Ev, E]
    return out.reshape(*batch, n_chunks * C, v.shape[-1])[..., :T, :], S


def linear_state_bytes(n_layers, n_heads, d_k, d_v, bytes_per_number, batch=1):
    r"""Bytes of linear-attention layers' states: :math:`B \cdot \text{layers} \cdot H d_k d_v b`.

    The counterpart of :func:`attn_core.kv_cache_bytes`: one :math:`d_k \times d_v` state a
    head, the same after 10 tokens or 1,000,000 (no length argument).

    Parameters
    ----------
    n_layers, n_heads, d_k, d_v : int
        Linear-attention layers, heads holding a state (value heads, when keys are shared
        as in Gated DeltaNet), and each state's key and value widths.
    bytes_per_number : int or dtype
        b: 2 for bfloat16 or float16, a numpy dtype such as ``"float32"``, or ``"bfloat16"``.
    batch : int, default 1

    Returns
    -------
    int
        Only the states: Katharopoulos et al.'s normaliser adds :math:`d_k` numbers a head,
        and the models' short convolutions a few tokens of their inputs.

    Examples
    --------
    >>> linear_state_bytes(36, 32, 128, 128, 2) / 2**20  # MiB: Qwen3-Next-80B's 36 DeltaNet layers
    36.0
    """
    counts = {"n_layers": n_layers, "n_heads": n_heads, "d_k": d_k, "d_v": d_v, "batch": batch}
    counts = {name: check_positive_int(value, name) for name, value in counts.items()}
    numbers = (
        counts["batch"] * counts["n_layers"] * counts["n_heads"] * counts["d_k"] * counts["d_v"]
    )
    return numbers * _bytes_per_number(bytes_per_number)


def _features(feature_map, q, k):
    """φ(q) (..., L, F) and φ(k) (..., S, F), or an error naming what the map returned."""
    if not callable(feature_map):
        raise TypeError(f"feature_map must be a function of (..., E) arrays, got {feature_map!r}")
    fq, fk = (np.asarray(feature_map(x), dtype=q.dtype) for x in (q, k))
    same_rows = fq.shape[:-1] == q.shape[:-1] and fk.shape[:-1] == k.shape[:-1]
    if not same_rows or fq.shape[-1:] != fk.shape[-1:]:
        raise ValueError(
            f"feature_map must map (..., E) to (..., F) along the last axis alone, the same F "
            f"for queries and keys: query {q.shape} gave {fq.shape}, key {k.shape} gave {fk.shape}"
        )
    return fq, fk


def _normalised(sums, normalize):
    """(..., Ev + 1) sums, their last column the normaliser, as outputs (..., Ev)."""
    if not normalize:
        return sums[..., :-1]
    total = sums[..., -1:]  # [..., 1]: φ(q) · Σ φ(k)
    if (total <= 0).any():
        raise ValueError(
            f"the normaliser φ(q) · Σ φ(k) is {float(total.min()):.3g} <= 0 for some query: "
            f"the feature map must give positive features (elu + 1 does), or pass normalize=False"
        )
    return sums[..., :-1] / total


def _check_steps(query, key, value):
    """query, key (..., T, E) and value (..., T, Ev): one of each a step."""
    q, k, v = check_attention_inputs(query, key, value)
    if q.ndim < 2 or q.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"a recurrence takes one query, key and value a step: query must be (..., T, E) "
            f"with key's T, got query {q.shape}, key {k.shape}"
        )
    return q, k, v


def _linear_state(state, shape, dtype):
    """(S, z) broadcast to ``shape`` (..., F, Ev) and (..., F), zeros when None."""
    if state is None:
        return np.zeros(shape, dtype), np.zeros(shape[:-1], dtype)
    if not isinstance(state, tuple | list) or len(state) != 2:
        raise TypeError("state must be a pair (S, z), as linear_attention_recurrent returns it")
    S, z = as_float_array(state[0], "state's S"), as_float_array(state[1], "state's z")
    try:
        S, z = np.broadcast_to(S, shape), np.broadcast_to(z, shape[:-1])
    except ValueError:
        raise ValueError(
            f"state's S must be (..., F, Ev) = {shape} and z (..., F) = {shape[:-1]} (the "
            f"queries', keys' and values' batch axes), got S {S.shape}, z {z.shape}"
        ) from None
    return S.astype(dtype), z.astype(dtype)


def _check_gate(x, name, shape, top, hint):
    """``x`` broadcast to ``shape`` (..., T), every entry in [0, top], or an error."""
    g = as_float_array(x, name)
    try:
        g = np.broadcast_to(g, shape)
    except ValueError:
        raise ValueError(
            f"{name} of shape {g.shape} does not broadcast to (..., T) = {shape}, one per token"
        ) from None
    bad = (g < 0) | (g > top)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be in [0, {top:g}], but {name}{list(where)} = {g[where]:.4g}; "
            f"models use {hint}"
        )
    return g


def _warn_if_growing(beta, k):
    """Warn once if some β_t ‖k_t‖² > 2: the step's factor along k_t, 1 − β‖k‖², is < −1."""
    squared = np.broadcast_to(np.einsum("...te,...te->...t", k, k), beta.shape)  # ‖k_t‖²
    growing = beta * squared > 2.0  # [..., T]
    if not growing.any():
        return
    where = first_true(growing)
    b, k2 = float(beta[where]), float(squared[where])
    token = f"token {where[-1]}" + (f" (batch index {list(where[:-1])})" if len(where) > 1 else "")
    warnings.warn(
        f"delta_rule: beta * ||k||^2 = {b * k2:.4g} > 2 at {token}, with beta = {b:.4g} and "
        f"||k||^2 = {k2:.4g} ({int(growing.sum())} such token(s) in all): the step multiplies "
        f"the state along k by 1 - beta ||k||^2 = {1 - b * k2:.4g}, beyond -1, so the state "
        f"and the outputs can grow without bound. Real models L2-normalise the keys "
        f"(||k|| = 1) and keep beta in (0, 2) (a sigmoid, in (0, 1)), which keeps the state "
        f"bounded",
        DeltaRuleGrowthWarning,
        stacklevel=3,
    )


def _check_state(S, shape, dtype):
    """The delta rule's state as an array of ``shape`` (..., Ev, E), or an error."""
    S = as_float_array(S, "state")
    try:
        return np.broadcast_to(S, shape).astype(dtype)
    except ValueError:
        raise ValueError(
            f"state must be (..., Ev, E) = {shape} (value's and key's widths), got {S.shape}"
        ) from None
