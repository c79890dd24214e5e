"""RMSNorm (RMS 정규화; Zhang and Sennrich, 2019): each vector divided by its root mean square.

Shape legend: x (..., d), normalised over its last axis; a learned gain (d,). Models apply it
to each layer's input, to MLA's latent, and per head to queries and keys (QK-norm).
"""

from __future__ import annotations

import numpy as np

from .validation import as_float_array, check_positive_real, compute_dtype


def rms_norm(x, weight=None, eps=1e-6):
    r"""Root-mean-square normalisation over the last axis, with an optional gain.

    .. math:: \mathrm{RMSNorm}(x) = \frac{x}{\sqrt{\tfrac{1}{d}\sum_i x_i^2 + \epsilon}} \odot g

    Parameters
    ----------
    x : array_like, shape (..., d)
    weight : array_like, shape (d,), optional
        The gain g (learned); None: ones.
    eps : float > 0, default 1e-6
        Added under the root, so that x = 0 gives 0.

    Returns
    -------
    ndarray, shape (..., d)
        Each vector's root mean square is 1 (a little less, by eps), then times g.

    Notes
    -----
    ``torch.nn.functional.rms_norm(x, (d,), weight, eps)``; there eps defaults to the
    dtype's machine epsilon, here to 1e-6 (Llama's and DeepSeek-V3's). Unlike LayerNorm,
    nothing is subtracted: the direction is kept, only the length changes. The squares are
    taken of x / max|x|, so huge x does not overflow, where squaring x itself would (beyond
    about 1.8e19 in float32) and give zeros.

    Examples
    --------
    >>> rms_norm([3.0, 4.0]).round(3)  # divided by the root mean square √((9 + 16) / 2) = 3.536
    array([0.849, 1.131])
    """
    x = as_float_array(x, "x")
    if x.ndim < 1:
        raise ValueError(f"x must have at least 1 axis (..., d), got shape {x.shape}")
    eps = check_positive_real(eps, "eps")
    g = np.ones(x.shape[-1:], x.dtype) if weight is None else as_float_array(weight, "weight")
    if g.shape != x.shape[-1:]:
        raise ValueError(
            f"weight must have one gain per feature, shape {x.shape[-1:]}: x has shape "
            f"{x.shape}, weight has shape {g.shape}"
        )
    dtype = np.result_type(x, g)  # float16 in, float16 out; computed in at least float32
    x = x.astype(compute_dtype(dtype), copy=False)
    # x_i² overflows beyond √max (about 1.8e19 in float32, 1.3e154 in float64): square x / m,
    # m = max_i |x_i| per vector, whose entries are at most 1, and multiply the root by m again
    m = np.max(np.abs(x), axis=-1, keepdims=True, initial=0.0)  # [..., 1]
    m[m == 0] = 1.0  # x = 0: any m gives 0
    rms = m * np.sqrt(np.mean((x / m) ** 2, axis=-1, keepdims=True))  # [..., 1], <= m
    root = np.hypot(rms, np.sqrt(eps))  # √(rms² + ε) without squaring rms
    return (x / root * g).astype(dtype, copy=False)  # [..., d] / [..., 1] * [d]
