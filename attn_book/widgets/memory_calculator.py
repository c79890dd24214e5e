"""MemoryCalculator: the bytes of the attention weights (and of a KV cache), against devices.

With ``kind`` other than ``"kv"`` the calculator compares a model's cache as shipped (local
and global layers, MLA's latent, a hybrid's linear-attention states) with the plain KV cache
of chapter 10.
"""

from __future__ import annotations

import traitlets as t

import attn_core

from ._base import Figure, bundle, css
from .inputs import Choice, Integer

__all__ = [
    "CONTEXTS",
    "DEVICES",
    "DTYPES",
    "KINDS",
    "PRESETS",
    "MemoryCalculator",
    "fit_kv_heads",
    "layer_split",
]

GIB = 2**30
DTYPES = ("float64", "float32", "float16")  # the JS offers the same (attn_math.DTYPE_BYTES)
DEVICES = (
    {"name": "laptop", "bytes": 16 * GIB},
    {"name": "GPU", "bytes": 80 * GIB},
)
CONTEXTS = (32768, 131072)  # 32k and 128k tokens, marked on the axis
MAX_TOKENS = 2**20
#: "kv": chapters 9 and 10 (the weights, and with kv_cache the KV cache); the others compare
#: a model's cache with the plain KV cache: local and global layers ("window"), multi-head
#: latent attention ("mla"), linear-attention and full-attention layers ("hybrid").
KINDS = ("kv", "window", "mla", "hybrid")
#: The cache's lengths whose totals the model view prints: 32k, 128k and 1M tokens.
TOTALS_AT = (32768, 131072, 1048576)
#: Published configurations (their model cards; chapters 11 and 12 quote the same numbers).
#: ``ratio`` r: r local (window) or linear (hybrid) layers to each global/full one.
PRESETS = {
    "Gemma 3 27B": {
        "kind": "window", "layers": 62, "heads": 32, "kv_heads": 16, "d_head": 128,
        "window": 1024, "ratio": 5,
    },
    "gpt-oss-120b": {
        "kind": "window", "layers": 36, "heads": 64, "kv_heads": 8, "d_head": 64,
        "window": 128, "ratio": 1,
    },
    "DeepSeek-V3": {
        "kind": "mla", "layers": 61, "heads": 128, "kv_heads": 8, "d_head": 128,
        "d_latent": 512, "d_rope": 64,
    },
    "Llama-3-8B-like, 3:1 hybrid": {
        "kind": "hybrid", "layers": 32, "heads": 32, "kv_heads": 8, "d_head": 128,
        "ratio": 3, "state_heads": 32, "d_state": 128,
    },
    "Qwen3-Next-80B": {
        "kind": "hybrid", "layers": 48, "heads": 16, "kv_heads": 2, "d_head": 256,
        "ratio": 3, "state_heads": 32, "d_state": 128,
    },
}  # fmt: skip


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


#: The traits a figure's repr adds to chapter 10's for each kind.
_KIND_TRAITS = {
    "kv": (),
    "window": ("kind", "window", "ratio"),
    "mla": ("kind", "d_latent", "d_rope"),
    "hybrid": ("kind", "ratio", "state_heads", "d_state"),
}


def layer_split(layers, ratio):
    """(full, other): how many of ``layers`` are full attention when r = ``ratio`` others
    come before each full one, layer i full when (i + 1) % (r + 1) == 0, as Hugging Face's
    ``layer_types`` lists them (Gemma 3: r = 5; gpt-oss: r = 1; Qwen3-Next: r = 3).

    The JavaScript's ``attn_math.layerSplit`` is the same rule (tests/test_widget_js.py).

    Examples
    --------
    >>> layer_split(62, 5), layer_split(36, 1), layer_split(48, 3), layer_split(32, 0)
    ((10, 52), (18, 18), (12, 36), (32, 0))
    """
    full = layers // (ratio + 1)
    return full, layers - full


class MemoryCalculator(Figure):
    """The bytes of one layer's attention weights, batch · heads · n² · bytes, on a log axis.

    With ``kv_cache=True`` a second bar shows the KV cache of the whole model,
    2 · batch · layers · kv_heads · d_head · n · bytes (chapter 10), with its own
    sliders for the layers and the KV heads. With ``kind`` ``"window"``, ``"mla"`` or
    ``"hybrid"`` the bars compare a model's cache as shipped with that plain KV cache
    (chapters 11 and 12), and the totals at 32k, 128k and 1M tokens are printed.

    Parameters
    ----------
    n : int, default 32768
        Tokens per sequence (L = S = n), 1 to 2**20; the slider moves by doublings.
    heads, batch : int, default 32 and 1
        Query heads (of the weights) and sequences.
    dtype : {"float64", "float32", "float16"}, default "float16"
    kv_cache : bool, default False
        Show the KV cache's bar and controls (``kind="kv"``; the other kinds always do).
    layers, kv_heads, d_head : int, default 32, 8 and 128
        The KV cache's shape (a Llama-3-8B-like model); read when ``kv_cache``. The KV heads
        must divide the query heads: a ``kv_heads`` that does not is set to the largest
        divisor of ``heads`` below it (:func:`fit_kv_heads`), as the slider does.
    kind : {"kv", "window", "mla", "hybrid"}, default "kv"
        "kv": chapters 9 and 10. "window": r local layers of ``window`` tokens to each
        global one (r = ``ratio``). "mla": a latent of ``d_latent`` and a RoPE key of
        ``d_rope`` numbers a token and layer, against MHA, GQA (``kv_heads``) and MQA.
        "hybrid": r linear-attention layers to each full-attention one, each holding
        ``state_heads`` states of ``d_state`` × ``d_state`` numbers, whatever n.
    window, ratio : int, default 1024 and 3
    d_latent, d_rope : int, default 512 and 64
    state_heads, d_state : int, default 32 and 128
    preset : str, optional
        A name of :data:`PRESETS`, whose values the other arguments start from.
    presets : sequence of str, optional
        The names of :data:`PRESETS` the figure offers in a menu (the model view only).

    Notes
    -----
    ``weight_bytes`` is :func:`attn_core.attention_cost`'s ``score_bytes`` and
    ``kv_cache_bytes`` is :func:`attn_core.kv_cache_bytes`; the JavaScript
    recomputes both with ``attn_math.weightBytes`` and ``attn_math.kvCacheBytes``
    (the same formulas, tested equal in node), so the figure works on the static
    site. The axis marks :data:`DEVICES` and where :data:`CONTEXTS` land with the
    current shape: for the weights, or for the KV cache when it is shown.
    :meth:`cache_bars` gives the bars of the other kinds from :func:`attn_core.kv_cache_bytes`
    (with ``window``), :func:`attn_core.mla_cache_bytes` and
    :func:`attn_core.linear_state_bytes`; ``attn_math.cacheBars`` is its port.
    ``cache_bytes`` is the kind's own cache at n.

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
    >>> MemoryCalculator(preset="DeepSeek-V3", n=1).cache_bytes / 2**10  # KiB a token
    68.625
    >>> MemoryCalculator(preset="Gemma 3 27B", n=131072).cache_bars()  # 10 global, 52 local
    [('kv', (62 GiB,)), ('window', (10 GiB, 416 MiB))]
    """

    _esm = bundle("memory_calculator.js")
    _css = css()
    _kv_traits = ("n", "heads", "batch", "dtype", "kv_cache", "layers", "kv_heads", "d_head")
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
    kind = Choice(KINDS, "kv").tag(sync=True)
    window = Integer(1024, min=1, max=MAX_TOKENS).tag(sync=True)
    ratio = Integer(3, min=0, max=63).tag(sync=True)
    d_latent = Integer(512, min=1, max=4096).tag(sync=True)
    d_rope = Integer(64, min=0, max=1024).tag(sync=True)
    state_heads = Integer(32, min=1, max=1024).tag(sync=True)
    d_state = Integer(128, min=1, max=1024).tag(sync=True)
    preset = t.Unicode("").tag(sync=True)
    presets = t.Dict({}).tag(sync=True)  # name: values, for the menu
    totals_at = t.List(list(TOTALS_AT)).tag(sync=True)
    cache_bytes = t.Float(0.0).tag(sync=True)

    def __init__(self, *, preset="", presets=(), **kwargs):
        unknown = [name for name in (preset, *presets) if name and name not in PRESETS]
        if unknown:
            raise ValueError(f"preset must be one of {list(PRESETS)}, got {unknown[0]!r}")
        start = {**PRESETS[preset], **kwargs} if preset else kwargs
        super().__init__(presets={p: PRESETS[p] for p in presets}, **start)
        self._starting = True  # the preset's values are set already, the kwargs over them
        self.preset = preset
        self._starting = False
        self._fit_kv_heads(None)
        self._recompute()

    @t.validate("preset")
    def _known_preset(self, proposal):
        if proposal.value and proposal.value not in PRESETS:
            raise ValueError(f"preset must be one of {list(PRESETS)}, got {proposal.value!r}")
        return proposal.value

    @t.observe("preset")
    def _apply_preset(self, change):
        """A preset chosen later (or in the menu) sets its traits, as the JavaScript does."""
        if change.new and not getattr(self, "_starting", False):
            with self.hold_trait_notifications():
                for name, value in PRESETS[change.new].items():
                    setattr(self, name, value)

    @property
    def _repr_traits(self):
        return self._kv_traits + _KIND_TRAITS[self.kind]

    @t.observe("heads", "kv_heads")
    def _fit_kv_heads(self, change):
        fitted = fit_kv_heads(self.heads, self.kv_heads)
        if fitted != self.kv_heads:
            self.kv_heads = fitted

    @t.observe("n", "heads", "batch", "dtype", "layers", "kv_heads", "d_head", "kind")
    @t.observe("window", "ratio", "d_latent", "d_rope", "state_heads", "d_state")
    def _on_input(self, change):
        self._recompute()

    def _recompute(self):
        cost = attn_core.attention_cost(self.batch, self.heads, self.n, self.n, 1, self.dtype)
        self.weight_bytes = float(cost.score_bytes)
        shape = (self.layers, self.kv_heads, self.d_head, self.n, self.dtype)
        self.kv_cache_bytes = float(attn_core.kv_cache_bytes(*shape, batch=self.batch))
        self.cache_bytes = float(sum(self.cache_bars()[-1][1]))

    def cache_bars(self, n=None):
        """The bars of the model view at n tokens (default ``n``): (name, parts in bytes).

        "kv" is chapter 10's cache (every layer full, ``kv_heads``); "window" its global
        then its local layers; "mha" and "mqa" the same model with ``heads`` and one KV
        head; "mla" the latents; "hybrid" its full layers' KV cache, then its states.
        """
        n = self.n if n is None else n

        def kv(layers, kv_heads=self.kv_heads, window=None):
            if layers == 0:  # e.g. a pattern whose layers are all local
                return _Bytes(0)
            shape = (layers, kv_heads, self.d_head, n, self.dtype)
            return _Bytes(attn_core.kv_cache_bytes(*shape, batch=self.batch, window=window))

        if self.kind == "kv":
            return [("kv", (kv(self.layers),))]
        full, other = layer_split(self.layers, self.ratio)
        if self.kind == "window":
            return [
                ("kv", (kv(self.layers),)),
                ("window", (kv(full), kv(other, window=self.window))),
            ]
        if self.kind == "mla":
            shape = (self.layers, self.d_latent, self.d_rope, n, self.dtype)
            mla = _Bytes(attn_core.mla_cache_bytes(*shape, batch=self.batch))
            mha, mqa = kv(self.layers, self.heads), kv(self.layers, 1)
            return [("mha", (mha,)), ("kv", (kv(self.layers),)), ("mqa", (mqa,)), ("mla", (mla,))]
        states = _Bytes(0)
        if other:
            d = self.d_state
            shape = (other, self.state_heads, d, d, self.dtype)
            states = _Bytes(attn_core.linear_state_bytes(*shape, batch=self.batch))
        return [("kv", (kv(self.layers),)), ("hybrid", (kv(full), states))]


class _Bytes(int):
    """An int of bytes whose repr reads in binary units: 62 GiB, 416 MiB, 1.5 KiB."""

    def __repr__(self):
        for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if self >= size:
                return f"{self / size:.4g} {unit}"
        return f"{int(self)} B"
