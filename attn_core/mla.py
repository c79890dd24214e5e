"""Multi-head latent attention (MLA, 멀티헤드 잠재 어텐션; DeepSeek-V2, 2024; DeepSeek-V3).

Keys and values of every head are made from one small latent vector per token, so the cache
holds the latent and one shared RoPE key instead of every head's keys and values.

Shape legend (DeepSeek's config names in brackets): x (..., L, D) for the newest L of S
positions; H heads [num_attention_heads]; c the latent's width [kv_lora_rank]; n the
per-head key width without position [qk_nope_head_dim]; r the RoPE part of a query and of
the shared key [qk_rope_head_dim], even; v the per-head value width [v_head_dim].
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .attention import attention_weights, scaled_dot_product_attention
from .kv_cache import KVCache, _bytes_per_number, causal_mask_lower_right
from .norms import rms_norm
from .positions import rotary
from .validation import as_float_array, check_bool, check_positive_int

#: Each weight's axes, in the legend's letters; the validation reads the sizes from here.
_AXES = {
    "w_q_nope": "H D n",  # x -> each head's query, the part that meets the latent keys
    "w_q_rope": "H D r",  # x -> each head's query, the part that meets the RoPE key
    "w_dkv": "D c",  # x -> the latent c (W^DKV): the down-projection
    "w_kr": "D r",  # x -> the shared RoPE key (W^KR), one for all heads
    "w_uk": "H c n",  # latent -> each head's key (W^UK): the key up-projection
    "w_uv": "H c v",  # latent -> each head's value (W^UV): the value up-projection
    "w_o": "H v D",  # each head's output -> back to D, summed over the heads (W^O)
    "kv_norm": "c",  # the RMSNorm gain on the latent (DeepSeek's kv_norm), or None
}


class MLAWeights(NamedTuple):
    """The weights of one MLA layer, per head where they differ (shapes: :data:`_AXES`).

    Row vectors, as elsewhere in attn_core: ``x @ w_dkv`` is the latent. DeepSeek-V3 also
    compresses the query through a second latent (q_lora_rank); that changes no key, value
    or cache, so ``w_q_nope`` and ``w_q_rope`` project x directly, as DeepSeek-V2-Lite does.

    Examples
    --------
    >>> w = MLAWeights.random(np.random.default_rng(0), 8, n_heads=2, kv_lora_rank=4,
    ...                       qk_nope_head_dim=3, qk_rope_head_dim=2, v_head_dim=3)
    >>> w.w_uk.shape, w.w_o.shape  # (H, c, n) and (H, v, D)
    ((2, 4, 3), (2, 3, 8))
    """

    w_q_nope: np.ndarray  # (H, D, n)
    w_q_rope: np.ndarray  # (H, D, r)
    w_dkv: np.ndarray  # (D, c)
    w_kr: np.ndarray  # (D, r)
    w_uk: np.ndarray  # (H, c, n)
    w_uv: np.ndarray  # (H, c, v)
    w_o: np.ndarray  # (H, v, D)
    kv_norm: np.ndarray | None = None  # (c,)

    @classmethod
    def random(
        cls, rng, d_model, *, n_heads, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
    ):
        """Gaussian weights scaled by 1/√(fan-in), for examples and tests; no norm."""
        sizes = {"D": d_model, "H": n_heads, "c": kv_lora_rank, "n": qk_nope_head_dim}
        sizes |= {"r": qk_rope_head_dim, "v": v_head_dim}
        sizes = {axis: check_positive_int(size, axis) for axis, size in sizes.items()}

        def draw(axes):
            shape = tuple(sizes[a] for a in axes.split())
            return rng.standard_normal(shape) / math.sqrt(shape[-2])  # fan-in: axis -2

        return cls(*(draw(axes) for name, axes in _AXES.items() if name != "kv_norm"))


class _LatentStore(KVCache):
    """A :class:`KVCache` holding latents and RoPE keys, which its errors call by those names."""

    _names = (("latent", "c"), ("rope_key", "r"))


class MLACache:
    """MLA's cache: per position only the latent (c numbers) and the RoPE key (r numbers).

    Attributes
    ----------
    latents, rope_keys : ndarray, shapes (..., t, c) and (..., t, r), read-only
    nbytes : int

    Examples
    --------
    >>> cache = MLACache()
    >>> cache.append(np.zeros((3, 512)), np.zeros((3, 64)))  # DeepSeek-V3: c = 512, r = 64
    >>> len(cache), cache.nbytes // len(cache)  # (512 + 64) float64 numbers per position
    (3, 4608)
    """

    def __init__(self, max_length=None):
        self._held = _LatentStore(max_length)  # the latents where it keeps keys, the RoPE keys ...

    def __len__(self):
        return len(self._held)

    def __repr__(self):
        shapes = "empty" if not len(self) else f"{self.latents.shape}, {self.rope_keys.shape}"
        return f"MLACache({shapes})"

    @property
    def latents(self):
        return self._held.keys

    @property
    def rope_keys(self):
        return self._held.values

    @property
    def nbytes(self):
        return self._held.nbytes

    def append(self, latent, rope_key):
        """Add the latents (..., s, c) and RoPE keys (..., s, r) of s new positions."""
        self._held.append(latent, rope_key)


def mla_latent(x, weights, positions):
    """What MLA caches for each position: the latent and the rotated RoPE key.

    Parameters
    ----------
    x : array_like, shape (..., L, D)
    weights : MLAWeights
    positions : array_like of int, shape (L,)
        Each row's position, for RoPE.

    Returns
    -------
    latent : ndarray, shape (..., L, c)
        ``x @ w_dkv``, RMS-normalised with the gain ``kv_norm`` if it is given.
    rope_key : ndarray, shape (..., L, r)
        ``x @ w_kr``, rotated by :func:`attn_core.rotary` (interleaved pairs, DeepSeek's).

    Examples
    --------
    >>> w = MLAWeights.random(np.random.default_rng(0), 8, n_heads=2, kv_lora_rank=4,
    ...                       qk_nope_head_dim=3, qk_rope_head_dim=2, v_head_dim=3)
    >>> [a.shape for a in mla_latent(np.ones((5, 8)), w, range(5))]  # c = 4, r = 2
    [(5, 4), (5, 2)]
    """
    x, w, _ = _check(x, weights)
    return _latent(x, w, np.asarray(positions))


def mla_attention(x, weights, *, cache=None, absorb=False):
    r"""Causal multi-head latent attention of the newest L positions, naive or absorbed.

    Naive: decompress the latents into every head's keys :math:`[c W^{UK}_h, k^R]` and
    values :math:`c W^{UV}_h`, then attend. Absorbed: fold :math:`W^{UK}_h` into the query,
    :math:`\tilde q_h = q_h (W^{UK}_h)^\top`, so the scores are
    :math:`\tilde q_h \cdot c + q^R_h \cdot k^R` against the cache itself (one key of width
    c + r for all heads, like multi-query attention), the weights average the latents, and
    :math:`W^{UV}_h` is applied after the softmax, with the output projection.

    Parameters
    ----------
    x : array_like, shape (..., L, D)
        The newest L positions' inputs.
    weights : MLAWeights
    cache : MLACache, optional
        The positions before them; their latents and RoPE keys are appended to it. None: x
        is the whole sequence.
    absorb : bool, default False
        The absorbed path (decode as DeepSeek runs it) instead of the naive one.

    Returns
    -------
    ndarray, shape (..., L, D)
        Equal, to rounding, for both paths; the scale is :math:`1/\sqrt{n + r}`.

    Examples
    --------
    >>> w = MLAWeights.random(np.random.default_rng(0), 8, n_heads=2, kv_lora_rank=4,
    ...                       qk_nope_head_dim=3, qk_rope_head_dim=2, v_head_dim=3)
    >>> x = np.random.default_rng(1).standard_normal((5, 8))
    >>> bool(np.allclose(mla_attention(x, w), mla_attention(x, w, absorb=True)))
    True
    """
    x, w, sizes = _check(x, weights)
    absorb = check_bool(absorb, "absorb")
    q_nope, q_rope, latent, rope_key, mask, scale = _prepare(x, w, sizes, cache)
    attend = _absorbed if absorb else _naive
    return attend(q_nope, q_rope, latent, rope_key, w, mask, scale)


class MLAScores(NamedTuple):
    """Each head's scores and weights, from :func:`mla_scores`.

    Examples
    --------
    >>> w = MLAWeights.random(np.random.default_rng(0), 8, n_heads=2, kv_lora_rank=4,
    ...                       qk_nope_head_dim=3, qk_rope_head_dim=2, v_head_dim=3)
    >>> mla_scores(np.ones((3, 8)), w).weights[0].round(3)  # equal inputs: only RoPE differs
    array([[1.   , 0.   , 0.   ],
           [0.497, 0.503, 0.   ],
           [0.299, 0.349, 0.353]])
    """

    scores: np.ndarray  # (..., H, L, S): scaled, every pair (the causal mask not applied)
    weights: np.ndarray  # (..., H, L, S): causal softmax rows


def mla_scores(x, weights, *, cache=None, absorb=False):
    r"""MLA's scores and weights per head, by the naive or the absorbed path, to compare by hand.

    Naive: :math:`[q_h, q^R_h] \cdot [c\, W^{UK}_h, k^R]`, each head's key decompressed
    from the latent c. Absorbed: :math:`[q_h (W^{UK}_h)^\top, q^R_h] \cdot [c, k^R]`, the
    latent read as it is cached. The two are one number, regrouped:
    :math:`q_h \cdot (c\, W^{UK}_h) = q_h (W^{UK}_h)^\top \cdot c`, the associativity of
    the matrix product.

    Parameters
    ----------
    x, weights, cache
        As in :func:`mla_attention` (a cache gains x's latents, as there).
    absorb : bool, default False
        The absorbed path instead of the naive one.

    Returns
    -------
    MLAScores
        ``scores`` (..., H, L, S), scaled by :math:`1/\sqrt{n + r}`, every query-key pair
        (the mask is not applied, so the identity can be checked everywhere); ``weights``
        (..., H, L, S), the causal softmax rows that :func:`mla_attention` averages with.
        Equal, to rounding, for both paths.

    Examples
    --------
    >>> w = MLAWeights.random(np.random.default_rng(0), 8, n_heads=2, kv_lora_rank=4,
    ...                       qk_nope_head_dim=3, qk_rope_head_dim=2, v_head_dim=3)
    >>> x = np.random.default_rng(1).standard_normal((3, 8))
    >>> naive, absorbed = mla_scores(x, w), mla_scores(x, w, absorb=True)
    >>> naive.scores.shape  # H = 2 heads, L = S = 3
    (2, 3, 3)
    >>> bool(np.allclose(naive.scores, absorbed.scores))  # one score, two groupings
    True
    """
    x, w, sizes = _check(x, weights)
    absorb = check_bool(absorb, "absorb")
    q_nope, q_rope, latent, rope_key, mask, scale = _prepare(x, w, sizes, cache)
    if absorb:  # the latent as cached; W^UK folded into the query
        query = np.concatenate([q_nope @ np.swapaxes(w.w_uk, -1, -2), q_rope], axis=-1)
        key = np.concatenate([latent, rope_key], axis=-1)[..., None, :, :]  # [..., 1, S, c + r]
    else:  # every head's key decompressed: [c W^UK_h, k^R]
        k_nope = latent[..., None, :, :] @ w.w_uk  # [..., 1, S, c] @ [H, c, n] -> [..., H, S, n]
        k_rope = np.broadcast_to(rope_key[..., None, :, :], (*k_nope.shape[:-1], q_rope.shape[-1]))
        query = np.concatenate([q_nope, q_rope], axis=-1)  # [..., H, L, n + r]
        key = np.concatenate([k_nope, k_rope], axis=-1)  # [..., H, S, n + r]
    scores = query @ np.swapaxes(key, -1, -2) * scale  # [..., H, L, d] @ [..., d, S]
    return MLAScores(scores, attention_weights(query, key, mask, scale=scale))


def _prepare(x, w, sizes, cache):
    """The queries' two parts, the (cached) latents and RoPE keys, the mask and the scale."""
    if cache is not None and not isinstance(cache, MLACache):
        raise TypeError(f"cache must be an attn_core.MLACache or None, got {type(cache).__name__}")
    start = 0 if cache is None else len(cache)
    positions = np.arange(start, start + x.shape[-2])  # [L]: the newest L positions
    latent, rope_key = _latent(x, w, positions)  # [..., L, c], [..., L, r]
    if cache is not None:
        cache.append(latent, rope_key)
        latent, rope_key = cache.latents, cache.rope_keys  # [..., S, c], [..., S, r]
    rows = x[..., None, :, :]  # [..., 1, L, D]: one copy for every head
    q_nope = rows @ w.w_q_nope  # [..., 1, L, D] @ [H, D, n] -> [..., H, L, n]
    q_rope = rotary(rows @ w.w_q_rope, positions)  # [..., H, L, r], rotated like the key
    mask = causal_mask_lower_right(x.shape[-2], latent.shape[-2])  # [L, S]
    scale = 1.0 / math.sqrt(sizes["n"] + sizes["r"])  # a head's query width, n + r
    return q_nope, q_rope, latent, rope_key, mask, scale


def _latent(x, w, positions):
    """The latent (..., L, c) and the rotated shared RoPE key (..., L, r) of validated x."""
    latent = x @ w.w_dkv  # [..., L, D] @ [D, c] -> [..., L, c]
    if w.kv_norm is not None:
        latent = rms_norm(latent, w.kv_norm)
    return latent, rotary(x @ w.w_kr, positions)  # [..., L, D] @ [D, r] -> [..., L, r]


def _naive(q_nope, q_rope, latent, rope_key, w, mask, scale):
    """Decompress every head's keys and values from the latents, then attend."""
    c = latent[..., None, :, :]  # [..., 1, S, c]
    k_nope = c @ w.w_uk  # [..., 1, S, c] @ [H, c, n] -> [..., H, S, n]
    value = c @ w.w_uv  # [..., 1, S, c] @ [H, c, v] -> [..., H, S, v]
    k_rope = np.broadcast_to(rope_key[..., None, :, :], (*k_nope.shape[:-1], q_rope.shape[-1]))
    key = np.concatenate([k_nope, k_rope], axis=-1)  # [..., H, S, n + r]: k^R in every head
    query = np.concatenate([q_nope, q_rope], axis=-1)  # [..., H, L, n + r]
    heads = scaled_dot_product_attention(query, key, value, mask, scale=scale)  # [..., H, L, v]
    return (heads @ w.w_o).sum(axis=-3)  # [..., H, L, v] @ [H, v, D] -> [..., L, D]


def _absorbed(q_nope, q_rope, latent, rope_key, w, mask, scale):
    """Attend over the cache as it is: W^UK folded into the query, W^UV into the output."""
    q_latent = q_nope @ np.swapaxes(w.w_uk, -1, -2)  # [..., H, L, n] @ [H, n, c] -> [..., H, L, c]
    query = np.concatenate([q_latent, q_rope], axis=-1)  # [..., H, L, c + r]
    key = np.concatenate([latent, rope_key], axis=-1)[..., None, :, :]  # [..., 1, S, c + r]
    value = latent[..., None, :, :]  # [..., 1, S, c]: the weights average the latents
    context = scaled_dot_product_attention(query, key, value, mask, scale=scale)  # [..., H, L, c]
    heads = context @ w.w_uv  # [..., H, L, c] @ [H, c, v] -> [..., H, L, v], after the softmax
    return (heads @ w.w_o).sum(axis=-3)  # [..., H, L, v] @ [H, v, D] -> [..., L, D]


def mla_cache_bytes(n_layers, kv_lora_rank, qk_rope_head_dim, length, bytes_per_number, batch=1):
    r"""Bytes of an MLA model's cache: :math:`B \cdot \text{layers} \cdot (c + r)\, n\, b`.

    Parameters
    ----------
    n_layers, kv_lora_rank, qk_rope_head_dim, length : int
        Layers, the latent's width c, the RoPE key's width r, positions held n.
    bytes_per_number : int or dtype
        b: 2 for bfloat16 or float16, a numpy dtype such as ``"float16"``, or ``"bfloat16"``.
    batch : int, default 1

    Returns
    -------
    int
        Compare :func:`attn_core.kv_cache_bytes` for MHA, GQA and MQA of the same model.

    Examples
    --------
    >>> mla_cache_bytes(61, 512, 64, 1, 2) / 1024  # KiB a token: DeepSeek-V3, (512 + 64) × 61
    68.625
    """
    counts = {"n_layers": n_layers, "kv_lora_rank": kv_lora_rank, "batch": batch}
    counts = {name: check_positive_int(value, name) for name, value in counts.items()}
    rope = check_positive_int(qk_rope_head_dim, "qk_rope_head_dim", minimum=0)
    length = check_positive_int(length, "length", minimum=0)
    per_position = counts["n_layers"] * (counts["kv_lora_rank"] + rope)  # no 2: one latent
    return counts["batch"] * per_position * length * _bytes_per_number(bytes_per_number)


def _check(x, weights):
    """x (..., L, D) and the weights as float arrays whose shapes agree, and their sizes."""
    x = as_float_array(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must be (..., L, D), one row per position, got shape {x.shape}")
    if not isinstance(weights, MLAWeights):
        raise TypeError(f"weights must be an attn_core.MLAWeights, got {type(weights).__name__}")
    sizes, where = {"D": x.shape[-1]}, {"D": f"x has shape {x.shape}"}
    arrays = {}
    for name, axes in _AXES.items():
        value = getattr(weights, name)
        arrays[name] = None if value is None else as_float_array(value, f"weights.{name}")
        if value is None:
            continue
        shape, axes = arrays[name].shape, axes.split()
        if len(shape) != len(axes):
            raise ValueError(f"weights.{name} must be ({', '.join(axes)}), got shape {shape}")
        for axis, size in zip(axes, shape, strict=True):
            if sizes.setdefault(axis, size) != size:
                raise ValueError(
                    f"weights.{name} of shape {shape} ({', '.join(axes)}) has {axis} = {size}, "
                    f"but {where[axis]} ({axis} = {sizes[axis]}; {_LEGEND})"
                )
            where.setdefault(axis, f"weights.{name} has shape {shape}")
    if sizes["r"] % 2:
        raise ValueError(f"the RoPE width r = {sizes['r']} must be even (RoPE rotates pairs)")
    return x, MLAWeights(**arrays), sizes


_LEGEND = "D model width, H heads, c latent, n and r key widths, v value width"
