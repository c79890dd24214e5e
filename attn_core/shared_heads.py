"""Keys and values shared by several query heads: multi-query and grouped-query attention.

Shape legend, as ``torch.nn.functional.scaled_dot_product_attention(..., enable_gqa=True)``:

- ``query``: (..., Hq, L, E) — Hq query heads (axis -3)
- ``key``:   (..., Hkv, S, E) — Hkv key-value heads, Hq a multiple of Hkv
- ``value``: (..., Hkv, S, Ev)

Each group of g = Hq / Hkv query heads reads one key-value head: query head ``h``
reads KV head ``h // g``. That is ``torch.repeat_interleave(key, g, dim=-3)``
(``np.repeat``: 0, 0, 1, 1), not ``np.tile`` (0, 1, 0, 1). Hkv = 1 is multi-query
attention (MQA, Shazeer 2019), 1 < Hkv < Hq grouped-query attention (GQA, Ainslie
et al. 2023), Hkv = Hq ordinary multi-head attention. A model stores only the Hkv
heads in its KV cache, g times fewer numbers (:func:`attn_core.kv_cache_bytes`).
"""

from __future__ import annotations

import numpy as np

from .validation import as_array, as_float_array


def repeat_kv_heads(query, key, value=None):
    """Repeat each key-value head so that every query head has one: (..., Hkv, ...) -> Hq.

    Parameters
    ----------
    query : array_like, shape (..., Hq, L, E)
        Only its number of heads Hq (axis -3) is read.
    key : array_like, shape (..., Hkv, S, E)
    value : array_like, shape (..., Hkv, S, Ev), optional

    Returns
    -------
    key : ndarray, shape (..., Hq, S, E)
    value : ndarray, shape (..., Hq, S, Ev), or None when ``value`` is None
        Head ``h`` is the input's head ``h // (Hq // Hkv)``, as PyTorch's
        ``enable_gqa=True`` repeats them (``repeat_interleave``).

    Raises
    ------
    ValueError
        If query, key or value has fewer than 3 axes, if Hq is not a multiple of
        Hkv (naming both counts), or if key and value have different heads.

    Examples
    --------
    Four query heads, two KV heads of one key each: heads 0 and 1 read KV head 0.

    >>> query = np.zeros((4, 1, 2))  # [Hq, L, E]
    >>> key = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])  # [Hkv, S, E] = [2, 1, 2]
    >>> repeated, _ = repeat_kv_heads(query, key)
    >>> repeated[:, 0]  # the one key of each of the four heads
    array([[1., 0.],
           [1., 0.],
           [0., 1.],
           [0., 1.]])
    """
    q_shape = as_array(query, "query").shape
    k = as_float_array(key, "key")
    v = None if value is None else as_float_array(value, "value")
    shapes = {"query": q_shape, "key": k.shape} | ({} if v is None else {"value": v.shape})
    for name, shape in shapes.items():
        if len(shape) < 3:
            raise ValueError(
                f"enable_gqa needs {name} with a heads axis, (..., H, positions, features): "
                f"got shape {shape}"
            )
    n_query_heads, n_kv_heads = q_shape[-3], k.shape[-3]
    if n_kv_heads == 0 or n_query_heads % n_kv_heads:
        raise ValueError(
            f"query has {n_query_heads} heads and key has {n_kv_heads} (axis -3): the query "
            f"heads must be a multiple of the key-value heads (query shape {q_shape}, key "
            f"shape {k.shape})"
        )
    if v is not None and v.shape[-3] != n_kv_heads:
        raise ValueError(
            f"key and value must have the same number of heads (axis -3): key has shape "
            f"{k.shape}, value has shape {v.shape}"
        )
    group = n_query_heads // n_kv_heads  # g query heads read each KV head
    k = np.repeat(k, group, axis=-3)  # [..., Hkv, S, E] -> [..., Hq, S, E]: 0, 0, 1, 1
    return k, None if v is None else np.repeat(v, group, axis=-3)
