"""Where each word is: sinusoidal encodings (Vaswani et al. 2017), rotary embeddings (RoPE,
Su et al. 2021) and ALiBi biases (Press et al. 2022). n positions of width d; H heads.
"""

from __future__ import annotations

import numpy as np

from .validation import as_array, as_float_array, check_positive_int, check_positive_real

LAYOUTS = ("interleaved", "halves")
"""RoPE's two ways of pairing coordinates: (0, 1), (2, 3), ... or (i, i + d/2)."""


def sinusoidal_positions(n, d, *, base=10_000):
    r"""The Transformer's sinusoidal position encodings, one row per position.

    .. math::
        PE_{p,\,2i} = \sin(p\,\omega_i), \quad PE_{p,\,2i+1} = \cos(p\,\omega_i), \quad
        \omega_i = \mathrm{base}^{-2i/d}

    Parameters
    ----------
    n, d : int
        Positions 0 … n − 1 (n >= 0) and width (d >= 1; an odd d ends with a sine).
    base : float > 0, default 10 000 (the paper's)

    Returns
    -------
    ndarray, shape (n, d)

    Examples
    --------
    >>> sinusoidal_positions(2, 4).round(3)  # ω = 1 and 1/100
    array([[0.   , 1.   , 0.   , 1.   ],
           [0.841, 0.54 , 0.01 , 1.   ]])
    """
    n, d = check_positive_int(n, "n", minimum=0), check_positive_int(d, "d")
    base = check_positive_real(base, "base")
    i = np.arange(d) // 2  # [d]: the pair each column belongs to
    omega = base ** (-2.0 * i / d)  # [d]
    angles = np.arange(n)[:, None] * omega  # [n, 1] * [d] -> [n, d]
    return np.where(np.arange(d) % 2 == 0, np.sin(angles), np.cos(angles))


def rotary_frequencies(d, *, base=10_000):
    r"""RoPE's angle per position step of each pair, :math:`\theta_i = \mathrm{base}^{-2i/d}`.

    Parameters
    ----------
    d : int, even, >= 2
    base : float > 0, default 10 000

    Returns
    -------
    ndarray, shape (d // 2,)

    Examples
    --------
    >>> rotary_frequencies(4)
    array([1.  , 0.01])
    """
    d = _check_width(d, "d")
    base = check_positive_real(base, "base")
    return base ** (-2.0 * np.arange(d // 2) / d)


def rotary(x, positions, base=10_000, *, layout="interleaved"):
    r"""Rotary position embedding (RoPE): pair i at position m, rotated by :math:`m\theta_i`.

    In complex numbers, :math:`(x_{2i} + \mathrm{i}\,x_{2i+1})\,e^{\mathrm{i} m \theta_i}`;
    apply it to queries and keys, then :math:`R_m q \cdot R_n k` depends on m − n only.

    Parameters
    ----------
    x : array_like, shape (..., n, d)
        Queries or keys; d even.
    positions : array_like of float, shape (n,)
        Each row's position, any finite number: fractions are allowed (position
        interpolation scales positions by L_train / L_new), and so are negative ones, a
        rotation by a negative angle, :math:`R_{-m} = R_m^{-1}` (only m − n matters).
    base : float > 0, default 10 000
        θᵢ = base^(−2i/d) (:func:`rotary_frequencies`).
    layout : {"interleaved", "halves"}
        Pairs (2i, 2i + 1) (the RoFormer paper's) or (i, i + d/2) (Hugging Face's Llama,
        ``rotate_half``); :func:`interleaved_to_halves` converts.

    Returns
    -------
    ndarray, shape (..., n, d)

    Examples
    --------
    >>> rotary([[1.0, 0.0], [1.0, 0.0]], [0, 1]).round(3)  # d = 2: θ = 1 radian
    array([[1.   , 0.   ],
           [0.54 , 0.841]])
    >>> rotary([[1.0, 0.0]], [-1]).round(3)  # position −1: the angle −1, (cos 1, −sin 1)
    array([[ 0.54 , -0.841]])
    """
    x = as_float_array(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must be (..., n, d) with n positions, got shape {x.shape}")
    d = _check_width(x.shape[-1], "x's last axis d")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    positions = _check_positions(positions, x.shape[-2])  # [n]
    angles = positions[:, None] * rotary_frequencies(d, base=base)  # [n, 1] * [d/2] -> [n, d/2]
    cos, sin = np.cos(angles), np.sin(angles)
    if layout == "halves":
        return interleaved_to_halves(_rotate_pairs(halves_to_interleaved(x), cos, sin))
    return _rotate_pairs(x, cos, sin)


def _rotate_pairs(x, cos, sin):
    """Rotate the pairs (x₀, x₁), (x₂, x₃), … of x (..., n, d) by angles of cos, sin (n, d/2)."""
    even, odd = x[..., 0::2], x[..., 1::2]  # [..., n, d/2] each
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def interleaved_to_halves(x):
    """Reorder the last axis from RoPE's pairs (2i, 2i + 1) to pairs (i, i + d/2).

    For the output columns of a W_Q or W_K trained in one layout, to run in code that uses
    the other, per head; :func:`halves_to_interleaved` is the inverse.

    Parameters
    ----------
    x : array_like, shape (..., d), d even

    Returns
    -------
    ndarray, shape (..., d)

    Examples
    --------
    >>> interleaved_to_halves([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    array([0., 2., 4., 1., 3., 5.])
    """
    x = _layout_input(x)
    return np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)  # [..., d/2] + [..., d/2]


def halves_to_interleaved(x):
    """The inverse of :func:`interleaved_to_halves`, with its parameters and shapes.

    Examples
    --------
    >>> halves_to_interleaved([0.0, 2.0, 4.0, 1.0, 3.0, 5.0])
    array([0., 1., 2., 3., 4., 5.])
    """
    x = _layout_input(x)
    d = x.shape[-1]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = x[..., : d // 2], x[..., d // 2 :]
    return out


def alibi_slopes(n_heads):
    r"""ALiBi's slope per head, :math:`\lambda_h = 2^{-8h/H}` for h = 1 … H (Press et al., 2022).

    For H not a power of two, with P the largest power of two below it: the P slopes of P
    heads, then every other slope of 2P heads (the 1st, 3rd, …), as the paper's code does.

    Parameters
    ----------
    n_heads : int >= 1

    Returns
    -------
    ndarray, shape (n_heads,)

    Examples
    --------
    >>> alibi_slopes(4)
    array([0.25      , 0.0625    , 0.015625  , 0.00390625])
    """
    n_heads = check_positive_int(n_heads, "n_heads")
    power = 2 ** (n_heads.bit_length() - 1)  # the largest power of 2 <= H

    def geometric(h):
        return 2.0 ** (-8.0 * np.arange(1, h + 1) / h)  # [h]: 2^(-8/h), 2^(-16/h), ...

    extra = geometric(2 * power)[0::2][: n_heads - power]  # [H - P]
    return np.concatenate([geometric(power), extra])


def alibi_bias(n_heads, L, S):
    r"""ALiBi's bias on the scores, :math:`-\lambda_h\,|i + S - L - j|`, for every head.

    The L queries are the last L of the S positions (L = 1: decoding with a cache); add it
    as a float mask. The paper's code adds :math:`\lambda_h j`, the same softmax on keys j <= i.

    Parameters
    ----------
    n_heads : int >= 1
    L, S : int >= 0
        Queries and keys, L <= S.

    Returns
    -------
    ndarray, shape (n_heads, L, S)

    Examples
    --------
    >>> alibi_bias(2, 1, 4)[:, 0]  # L = 1: the last word, slopes 1/16 and 1/256
    array([[-0.1875    , -0.125     , -0.0625    ,  0.        ],
           [-0.01171875, -0.0078125 , -0.00390625,  0.        ]])
    """
    slopes = alibi_slopes(n_heads)
    L, S = check_positive_int(L, "L", minimum=0), check_positive_int(S, "S", minimum=0)
    if L > S:
        raise ValueError(
            f"L must be <= S: the L queries are the last L of the S key positions, "
            f"got L = {L}, S = {S}"
        )
    query_at = np.arange(L)[:, None] + (S - L)  # [L, 1]: each query's own position
    distance = np.abs(query_at - np.arange(S))  # [L, 1] - [S] -> [L, S]
    return slopes[:, None, None] * -distance  # [H, 1, 1] * [L, S] -> [H, L, S]; 0, not -0


def _layout_input(x):
    """``x`` (..., d) as a float array, d even, for the layout conversions."""
    x = as_float_array(x, "x")
    _check_width(x.shape[-1] if x.ndim else 0, "x's last axis d")
    return x


def _check_width(d, name):
    """``d`` if it is an even width >= 2, else an error naming ``name``."""
    if d < 2 or d % 2:
        raise ValueError(
            f"{name} must be even and >= 2 (RoPE rotates coordinates in pairs), got {d}"
        )
    return int(d)


def _check_positions(positions, n):
    """``positions`` as a float array (n,) of finite numbers, or raise naming it.

    Negative positions are fine: RoPE's rotation is defined for every real angle.
    """
    p = as_array(positions, "positions")
    if p.dtype == bool or p.dtype.kind not in "iuf":
        raise TypeError(f"positions must be real numbers, got dtype {p.dtype}")
    p = as_float_array(p, "positions")
    if p.shape != (n,):
        raise ValueError(
            f"positions must have one entry per row of x: shape ({n},), got shape {p.shape}"
        )
    bad = ~np.isfinite(p)
    if bad.any():
        where = int(np.argmax(bad))
        raise ValueError(f"positions must be finite numbers, but positions[{where}] = {p[where]:g}")
    return p
