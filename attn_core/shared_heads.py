"""Keys and values shared by several query heads: multi-query and grouped-query attention.

Hkv = 1 key-value heads for Hq query heads is MQA (Shazeer 2019), 1 < Hkv < Hq is GQA
(Ainslie et al. 2023); shapes as PyTorch's ``enable_gqa=True``.
"""

from __future__ import annotations

import numpy as np

from .validation import as_array, as_float_array


def repeat_kv_heads(query, key, value=None):
    """Repeat each key-value head for its g = Hq / Hkv query heads: head h reads KV head h // g.

    That is ``torch.repeat_interleave(key, g, dim=-3)`` (0, 0, 1, 1), not a tile (0, 1, 0, 1).

    Parameters
    ----------
    query, key, value : array_like, shapes (..., Hq, L, E), (..., Hkv, S, E), (..., Hkv, S, Ev)
        Only query's number of heads is read; value is optional.

    Returns
    -------
    key, value : ndarray, shapes (..., Hq, S, E) and (..., Hq, S, Ev) (None without value)

    Examples
    --------
    >>> key = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])  # [Hkv, S, E] = [2, 1, 2]
    >>> repeat_kv_heads(np.zeros((4, 1, 2)), key)[0][:, 0, 0]  # 4 heads read KV 0, 0, 1, 1
    array([1., 1., 0., 0.])
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
