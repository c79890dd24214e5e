"""MemoryCalculator: the bytes of the attention weights (and of a KV cache), against devices."""

from __future__ import annotations

import traitlets as t

import attn_core

from ._base import Figure, bundle, css
from .inputs import Choice, Integer

__all__ = ["CONTEXTS", "DEVICES", "DTYPES", "MemoryCalculator", "fit_kv_heads"]

GIB = 2**30
DTYPES = ("float64", "float32", "float16")  # the JS offers the same (attn_math.DTYPE_BYTES)
DEVICES = (
    {"name": "laptop", "bytes": 16 * GIB},
    {"name": "GPU", "bytes": 80 * GIB},
)
CONTEXTS = (32768, 131072)  # 32k and 128k tokens, marked on the axis
MAX_TOKENS = 2**20


def fit_kv_heads(heads, kv_heads, up=False):
    """The number of KV heads nearest ``kv_heads`` that divides ``heads`` (GQA's groups).

    Moving ``up``, the smallest divisor at least ``kv_heads``; otherwise the largest at most
    ``kv_heads``; never more than ``heads``. The JavaScript's ``attn_math.fitKvHeads`` is the
    same rule (tests/test_widget_js.py).

    Examples
    --------
    >>> fit_kv_heads(32, 8), fit_kv_heads(32, 7), fit_kv_heads(32, 9, up=True), fit_kv_heads(12, 8)
    (8, 4, 16, 6)
    >>> fit_kv_heads(32, 100), fit_kv_heads(7, 3)
    (32, 1)
    """
    divisors = [d for d in range(1, heads + 1) if heads % d == 0]
    if up:
        return next((d for d in divisors if d >= kv_heads), heads)
    return max(d for d in divisors if d <= kv_heads) if kv_heads >= 1 else 1


class MemoryCalculator(Figure):
    """The bytes of one layer's attention weights, batch · heads · n² · bytes, on a log axis.

    With ``kv_cache=True`` a second bar shows the KV cache of the whole model,
    2 · batch · layers · kv_heads · d_head · n · bytes (chapter 10), with its own
    sliders for the layers and the KV heads.

    Parameters
    ----------
    n : int, default 32768
        Tokens per sequence (L = S = n), 1 to 2**20; the slider moves by doublings.
    heads, batch : int, default 32 and 1
        Query heads (of the weights) and sequences.
    dtype : {"float64", "float32", "float16"}, default "float16"
    kv_cache : bool, default False
        Show the KV cache's bar and controls.
    layers, kv_heads, d_head : int, default 32, 8 and 128
        The KV cache's shape (a Llama-3-8B-like model); read when ``kv_cache``. The KV heads
        must divide the query heads: a ``kv_heads`` that does not is set to the largest
        divisor of ``heads`` below it (:func:`fit_kv_heads`), as the slider does.

    Notes
    -----
    ``weight_bytes`` is :func:`attn_core.attention_cost`'s ``score_bytes`` and
    ``kv_cache_bytes`` is :func:`attn_core.kv_cache_bytes`; the JavaScript
    recomputes both with ``attn_math.weightBytes`` and ``attn_math.kvCacheBytes``
    (the same formulas, tested equal in node), so the figure works on the static
    site. The axis marks :data:`DEVICES` and where :data:`CONTEXTS` land with the
    current shape: for the weights, or for the KV cache when it is shown.

    Examples
    --------
    >>> calc = MemoryCalculator()
    >>> calc.weight_bytes / 2**30  # 32 heads of 32k × 32k float16 weights
    64.0
    >>> calc.n = 1024
    >>> calc.weight_bytes / 2**20
    64.0
    >>> MemoryCalculator(n=131072, kv_cache=True).kv_cache_bytes / 2**30  # 32 layers, 8 KV heads
    16.0
    >>> MemoryCalculator(kv_cache=True, kv_heads=7).kv_heads  # 7 does not divide 32 query heads
    4
    """

    _esm = bundle("memory_calculator.js")
    _css = css()
    _repr_traits = ("n", "heads", "batch", "dtype", "kv_cache", "layers", "kv_heads", "d_head")

    n = Integer(32768, min=1, max=MAX_TOKENS).tag(sync=True)
    heads = Integer(32, min=1, max=1024).tag(sync=True)
    batch = Integer(1, min=1, max=1024).tag(sync=True)
    dtype = Choice(DTYPES, "float16").tag(sync=True)
    devices = t.List(list(DEVICES)).tag(sync=True)
    contexts = t.List(list(CONTEXTS)).tag(sync=True)
    kv_cache = t.Bool(False).tag(sync=True)
    layers = Integer(32, min=1, max=1024).tag(sync=True)
    kv_heads = Integer(8, min=1, max=1024).tag(sync=True)
    d_head = Integer(128, min=1, max=1024).tag(sync=True)
    weight_bytes = t.Float(0.0).tag(sync=True)
    kv_cache_bytes = t.Float(0.0).tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._fit_kv_heads(None)
        self._recompute()

    @t.observe("heads", "kv_heads")
    def _fit_kv_heads(self, change):
        fitted = fit_kv_heads(self.heads, self.kv_heads)
        if fitted != self.kv_heads:
            self.kv_heads = fitted

    @t.observe("n", "heads", "batch", "dtype", "layers", "kv_heads", "d_head")
    def _on_input(self, change):
        self._recompute()

    def _recompute(self):
        cost = attn_core.attention_cost(self.batch, self.heads, self.n, self.n, 1, self.dtype)
        self.weight_bytes = float(cost.score_bytes)
        shape = (self.layers, self.kv_heads, self.d_head, self.n, self.dtype)
        self.kv_cache_bytes = float(attn_core.kv_cache_bytes(*shape, batch=self.batch))
