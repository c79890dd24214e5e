"""The KV cache (KV 캐시): every past token's keys and values, kept for the next step.

Shape legend: keys (..., t, E), values (..., t, Ev) for the t positions held, ``...`` the
batch and head axes; new ones join along axis -2, s at a time (s = 1 while decoding). With a
sliding window of W, a ring buffer (링 버퍼) of W slots: position p lives in slot p mod W.
"""

from __future__ import annotations

import numbers

import numpy as np

from .attention import scaled_dot_product_attention
from .validation import as_float_array, check_positive_int, check_size


def causal_mask_lower_right(L, S):
    """Causal mask for L queries that are the *last* L of S positions (bottom-right aligned).

    Parameters
    ----------
    L, S : int
        Queries (the newest L positions) and keys (every position, theirs included).

    Returns
    -------
    ndarray of bool, shape (L, S)
        Query i may attend to keys 0 … S − L + i: PyTorch's ``causal_lower_right``.

    Examples
    --------
    >>> causal_mask_lower_right(2, 4).astype(int)
    array([[1, 1, 1, 0],
           [1, 1, 1, 1]])
    """
    L, S = check_positive_int(L, "L", minimum=0), check_positive_int(S, "S", minimum=0)
    check_size((L, S), bool, "the causal mask (L, S)", f"L = {L} and S = {S}")
    return np.tril(np.ones((L, S), dtype=bool), k=S - L)  # the diagonal moved right by S - L


def kv_cache_bytes(n_layers, n_kv_heads, d_head, length, bytes_per_number, batch=1, *, window=None):
    r"""Bytes of a model's KV cache: :math:`2 B \cdot \text{layers} \cdot h_{kv} d_\text{head} n b`.

    Parameters
    ----------
    n_layers, n_kv_heads, d_head, length : int
        Layers, key-value heads per layer, numbers per head, positions held (n).
    bytes_per_number : int or dtype
        b: 2 for float16 or bfloat16, 4 for float32, or a numpy dtype such as ``"float16"``,
        or ``"bfloat16"`` (which numpy lacks).
    batch : int, default 1
    window : int, optional
        W of sliding-window layers (:class:`KVCache` with ``window=W``): each of these layers
        holds at most W positions, so :math:`n` becomes :math:`\min(n, W)`. None: every
        position is held.

    Returns
    -------
    int

    Examples
    --------
    >>> kv_cache_bytes(32, 8, 128, 131072, 2) / 2**30  # GiB: Llama-3-8B's shape, 128k tokens
    16.0
    >>> kv_cache_bytes(52, 16, 128, 131072, 2, window=1024) / 2**20  # MiB: Gemma 3 27B's 52 local
    416.0
    """
    counts = {"n_layers": n_layers, "n_kv_heads": n_kv_heads, "d_head": d_head, "batch": batch}
    counts = {name: check_positive_int(value, name) for name, value in counts.items()}
    length = check_positive_int(length, "length", minimum=0)
    if window is not None:
        length = min(length, check_positive_int(window, "window"))  # a ring of W slots
    size = _bytes_per_number(bytes_per_number)
    numbers_per_position = 2 * counts["n_layers"] * counts["n_kv_heads"] * counts["d_head"]
    return counts["batch"] * numbers_per_position * length * size  # K and V: the 2


# Number formats models store their caches in that numpy has no dtype for
_NOT_IN_NUMPY = {"bfloat16": 2}  # 1 sign, 8 exponent, 7 mantissa bits


def _bytes_per_number(size):
    """An int >= 1, ``"bfloat16"`` (2), or a numpy dtype's itemsize; else an error naming it."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool | np.bool_):
        return check_positive_int(size, "bytes_per_number")
    if isinstance(size, str) and size in _NOT_IN_NUMPY:
        return _NOT_IN_NUMPY[size]
    try:
        return np.dtype(size).itemsize
    except TypeError:
        raise TypeError(
            f"bytes_per_number must be a number of bytes such as 2, a numpy dtype such "
            f"as 'float16', or 'bfloat16', got {size!r}"
        ) from None


class KVCache:
    """The keys and values of every position so far, grown along the sequence axis (-2).

    Parameters
    ----------
    max_length : int, optional
        The most positions it may hold (a model's context length); None: no limit.
    window : int, optional
        W for sliding-window attention (:func:`attn_core.sliding_window_mask`): a ring buffer
        of W slots: position p is written to slot p mod W, over position p − W's key, so
        it never holds more than W keys. None: every position is kept.

    Attributes
    ----------
    keys, values : ndarray, shapes (..., t, E) and (..., t, Ev), read-only
        With a window, the t = min(positions, W) slots in slot order (not oldest first).
    positions : ndarray of int, shape (t,)
        The position each slot holds (0, 1, …, t − 1 without a window).
    nbytes : int

    Examples
    --------
    >>> cache = KVCache(max_length=4)  # chapter 4's keys and values: a prompt, then one
    >>> cache.append([[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]])  # [t, E], [t, Ev]
    >>> cache.append([[1.0, 1.0]], [[1.0, 1.0]])
    >>> cache.attend([1.0, 0.0]).round(3)  # chapter 4's query and output
    array([1.203, 0.797])
    >>> ring = KVCache(window=2)  # a window of 2: the third key goes to slot 2 mod 2 = 0
    >>> for t in range(3):
    ...     ring.append([[t, 0.0]], [[t, 0.0]])
    >>> ring.keys[:, 0].tolist(), ring.positions.tolist()
    ([2.0, 1.0], [2, 1])
    """

    _names = (("key", "E"), ("value", "Ev"))  # what the two arrays are, in messages

    def __init__(self, max_length=None, *, window=None):
        limit = None if max_length is None else check_positive_int(max_length, "max_length")
        self.max_length = limit
        self.window = None if window is None else check_positive_int(window, "window")
        self._keys = self._values = None  # buffers [..., capacity, E] and [..., capacity, Ev]
        self._length = 0  # positions held: min(_seen, window) with a window
        self._seen = 0  # positions appended so far

    def __len__(self):
        """The number of positions held, t."""
        return self._length

    def __repr__(self):
        shape = (
            "empty" if self._keys is None else f"keys {self.keys.shape}, values {self.values.shape}"
        )
        window = "" if self.window is None else f", window={self.window}"
        return f"KVCache({shape}, max_length={self.max_length}{window})"

    @property
    def keys(self):
        return self._view(self._keys)

    @property
    def values(self):
        return self._view(self._values)

    @property
    def positions(self):
        if self.window is None:
            return np.arange(self._length)
        t = self._seen  # slot j holds the newest position p < t with p mod W = j
        return t - 1 - (t - 1 - np.arange(self._length)) % self.window  # [min(t, W)]

    @property
    def nbytes(self):
        return 0 if self._keys is None else self.keys.nbytes + self.values.nbytes

    def _view(self, buffer):
        """The read-only view of ``buffer``'s t positions held (not the spare capacity)."""
        if buffer is None:
            return None
        view = buffer[..., : self._length, :]
        view.flags.writeable = False
        return view

    def append(self, key, value):
        """Add the keys (..., s, E) and values (..., s, Ev) of s new positions at the end."""
        key, value = self._check_new(key, value)
        if self.window is not None:
            return self._append_to_ring(key, value)
        start, stop = self._length, self._length + key.shape[-2]
        self._reserve(stop, key, value)
        self._keys[..., start:stop, :] = key  # [..., s, E] into positions start..stop-1
        self._values[..., start:stop, :] = value  # [..., s, Ev]
        self._length = self._seen = stop

    def _append_to_ring(self, key, value):
        """Write position p of the s new ones into slot p mod W (only the last W can stay)."""
        s = key.shape[-2]
        new = np.arange(self._seen, self._seen + s)[-self.window :]  # [<= W] positions kept
        self._reserve(min(self._seen + s, self.window), key, value)
        slots, rows = new % self.window, new - self._seen  # distinct: at most W in a row
        self._keys[..., slots, :] = key[..., rows, :]  # [..., s', E] into their slots
        self._values[..., slots, :] = value[..., rows, :]  # [..., s', Ev]
        self._seen += s
        self._length = min(self._seen, self.window)

    def attend(self, query, scale=None, enable_gqa=False, *, sinks=None):
        """Attention of the newest L positions' queries over the cache, causal bottom-right.

        Parameters
        ----------
        query : array_like, shape (..., L, E) or (E,)
            The last L positions' queries (L = 1 while decoding).
        scale, enable_gqa, sinks
            As in :func:`attn_core.scaled_dot_product_attention`: ``sinks``, gpt-oss's sink
            logits, one per head, (H,) or (H, 1) (:mod:`attn_core.sinks`); with a window,
            gpt-oss's decode step, a ring buffer and a sink.

        Returns
        -------
        ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
            With a window, :func:`attn_core.sliding_window_mask`'s rows of the full pass.
        """
        if self._length == 0:
            raise ValueError("the cache is empty: append the keys and values of a position first")
        L = 1 if np.ndim(query) < 2 else np.shape(query)[-2]
        if L > self._length:
            raise ValueError(
                f"query has L = {L} positions but the cache holds {self._length}: the queries "
                f"are the newest positions, so append their keys and values first"
            )
        mask = None  # one query, the newest position, sees every key held (a window's too)
        if L > 1:
            causal = self.window is None
            mask = causal_mask_lower_right(L, self._length) if causal else self._band(L)
        return scaled_dot_product_attention(
            query, self.keys, self.values, mask, scale=scale, enable_gqa=enable_gqa, sinks=sinks
        )

    def _band(self, L):
        """The window's mask (L, slots) for the newest L queries: ``0 <= q - k < W`` per slot."""
        if L > 1 and self._seen > self.window:
            raise ValueError(
                f"query has L = {L} positions, but the window of {self.window} slots has "
                f"wrapped: the first query's window began before the oldest key held. Attend "
                f"each chunk before appending the next, one query a step once it wraps, or "
                f"use attn_core.sliding_window_mask on the full pass"
            )
        query_at = np.arange(self._seen - L, self._seen)[:, None]  # [L, 1]
        distance = query_at - self.positions  # [L, 1] - [t] -> [L, t]
        return (distance >= 0) & (distance < self.window)  # the slots' order does not matter

    def _check_new(self, key, value):
        """key (..., s, E) and value (..., s, Ev) as arrays that fit the cache, or an error."""
        (k_name, k_width), (v_name, v_width) = self._names
        key, value = as_float_array(key, k_name), as_float_array(value, v_name)
        for name, arr in ((k_name, key), (v_name, value)):
            if arr.ndim < 2:
                raise ValueError(f"{name} must be (..., s, features), got shape {arr.shape}")
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(
                f"{k_name} and {v_name} must have the same leading axes and number of new "
                f"positions s (axis -2): {k_name} has shape {key.shape}, {v_name} has shape "
                f"{value.shape}"
            )
        if self._keys is not None:
            self._check_fits(key, self._keys, k_name, k_width)
            self._check_fits(value, self._values, v_name, v_width)
        if self.max_length is not None and self._seen + key.shape[-2] > self.max_length:
            raise ValueError(
                f"appending {key.shape[-2]} positions to the {self._seen} "
                f"{'held' if self.window is None else 'so far'} would make "
                f"{self._seen + key.shape[-2]}, past max_length = {self.max_length}"
            )
        return key, value

    def _check_fits(self, new, buffer, name, width):
        """Raise unless ``new`` has the width and leading axes of the ``name``s held."""
        held = buffer[..., : self._length, :].shape
        if new.shape[-1] != held[-1]:
            raise ValueError(
                f"a new {name} of width {width} = {new.shape[-1]} (last axis), but the cache "
                f"holds {name}s of width {held[-1]}: {name} has shape {new.shape}, the "
                f"cache's {name}s have shape {held}"
            )
        if new.shape[:-2] != held[:-2]:
            raise ValueError(
                f"the new {name}'s leading axes {new.shape[:-2]} differ from the cache's "
                f"{held[:-2]}: {name} has shape {new.shape}, the cache's {name}s {held}"
            )

    def _reserve(self, needed, key, value):
        """Make the buffers hold ``needed`` positions, doubling (O(1) an append on average)."""
        capacity = 0 if self._keys is None else self._keys.shape[-2]
        if needed <= capacity:
            return
        capacity = max(needed, 2 * capacity)
        for limit in (self.max_length, self.window):
            capacity = capacity if limit is None else min(capacity, limit)
        dtype = np.result_type(key, value) if self._keys is None else self._keys.dtype
        buffers = []
        for new, old in ((key, self._keys), (value, self._values)):
            shape = (*new.shape[:-2], capacity, new.shape[-1])
            because = f"{capacity} positions of {new.shape}"
            check_size(shape, dtype, "the KV cache's buffer", because)
            buffer = np.empty(shape, dtype=dtype)
            if old is not None:
                buffer[..., : self._length, :] = old[..., : self._length, :]
            buffers.append(buffer)
        self._keys, self._values = buffers
