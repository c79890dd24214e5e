"""QueryPad: drag a query over a 2-D plane of keys and watch the scores, weights and output.

With positions, the query and the keys are turned by RoPE (attn_core.rotary, d = 2: one
radian per position) before they are scored, as in Chapter 6.
"""

from __future__ import annotations

import math

import numpy as np
import traitlets as t

import attn_core
from attn_book.data import quanta_example

from ._base import Figure, bundle, css
from .inputs import (
    Integer,
    Temperature,
    Vector,
    Vectors,
    finite_or_none,
    integer,
    recompute_or_roll_back,
)

__all__ = ["MAX_POSITION", "PARTS", "QueryPad"]

PARTS = ("weights", "scale", "temperature", "values")  # in the order a reader meets them
MAX_POSITION = 12  # the position sliders run 0 … MAX_POSITION

_SEED = quanta_example()


class QueryPad(Figure):
    """One query attending over a few keys and values in the plane (d_k = 2).

    Parameters
    ----------
    query : sequence of 2 floats, default the worked example's (1, 0)
    key_vectors : (S, 2) floats, default the worked example's (1,0), (0,1), (1,1)
    value_vectors : (S, 2) floats, default the worked example's (2,0), (0,2), (1,1)
    scaled : bool, default True
        Multiply the dot products by 1/sqrt(d_k) (False: by 1).
    temperature : float >= 1e-6, default 1.0
    show : sequence of str, default all of :data:`PARTS`
        What the figure shows beyond q·k (내적) and cos θ, so a chapter can introduce
        attention step by step: ``"weights"`` (the softmax weights and their bars),
        ``"scale"`` (the score column and the 1/√d_k switch), ``"temperature"`` (its
        slider; needs ``"weights"``), ``"values"`` (the values v, the output o; needs
        ``"weights"``). ``show=()`` is chapter 1's pad: dot products and cosines only.
    key_positions : sequence of S ints in 0 … :data:`MAX_POSITION`, or None (default)
        Positions n of the keys. When given, the query and the keys are turned by RoPE,
        ``attn_core.rotary`` with d = 2 (θ = 1 radian per position), before they are
        scored, and the figure shows a slider per position and a "shift every word"
        control. None: no positions, the pad of Chapters 1 to 4.
    query_position : int in 0 … :data:`MAX_POSITION`, default 0
        Position m of the query (used only with ``key_positions``).

    Notes
    -----
    Computed traits (read-only in spirit, recomputed with attn_core whenever an
    input changes): ``dots`` (S,), ``cosines`` (S,), ``scores`` (S,),
    ``weights`` (S,), ``output`` (2,), ``entropy`` (float), and ``turned_query`` (2,),
    ``turned_keys`` (S, 2): what is scored, the query and keys turned by their positions
    (the vectors themselves without positions). To change the number of keys, set the
    lists (``key_positions`` too) inside ``with pad.hold_trait_notifications():``.

    Examples
    --------
    >>> pad = QueryPad()
    >>> [round(w, 3) for w in pad.weights], [round(o, 3) for o in pad.output]
    ([0.401, 0.198, 0.401], [1.203, 0.797])
    >>> pad.query = (0.0, 1.0)  # now k2 and k3 score highest
    >>> [round(w, 3) for w in pad.weights]
    [0.198, 0.401, 0.401]
    >>> turned = QueryPad(query_position=1, key_positions=[0, 1, 2])
    >>> [round(w, 3) for w in turned.weights]
    [0.448, 0.305, 0.247]
    >>> turned.query_position, turned.key_positions = 4, [3, 4, 5]  # every word + 3
    >>> [round(w, 3) for w in turned.weights]
    [0.448, 0.305, 0.247]
    """

    _esm = bundle("query_pad.js")
    _css = css()
    _repr_traits = ("query", "scaled", "temperature")

    query = Vector(_SEED.query.tolist(), dim=2).tag(sync=True)  # list, tuple or array
    key_vectors = Vectors(_SEED.keys.tolist(), dim=2).tag(sync=True)
    value_vectors = Vectors(_SEED.values.tolist(), dim=2).tag(sync=True)
    scaled = t.Bool(True).tag(sync=True)
    temperature = Temperature(1.0).tag(sync=True)
    show = t.List(list(PARTS)).tag(sync=True)
    query_position = Integer(0, max=MAX_POSITION).tag(sync=True)
    key_positions = t.Any(None).tag(sync=True)  # None (no positions) or one int per key

    dots = t.List().tag(sync=True)
    cosines = t.List().tag(sync=True)
    scores = t.List().tag(sync=True)
    weights = t.List().tag(sync=True)
    output = t.List().tag(sync=True)
    entropy = t.Float(0.0).tag(sync=True)
    turned_query = t.List().tag(sync=True)
    turned_keys = t.List().tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._recompute()

    @t.validate("show")
    def _check_show(self, proposal):
        return check_parts(proposal["value"])

    @t.validate("key_positions")
    def _check_key_positions(self, proposal):
        value = proposal["value"]
        if value is None:
            return None
        if isinstance(value, str) or not hasattr(value, "__len__"):
            raise TypeError(f"key_positions must be a list of integers or None, got {value!r:.60}")
        return [
            integer(n, f"key_positions[{j}]", maximum=MAX_POSITION) for j, n in enumerate(value)
        ]

    @t.observe(
        "query", "key_vectors", "value_vectors", "scaled", "temperature", "query_position",
        "key_positions",
    )  # fmt: skip
    def _on_input(self, change):
        recompute_or_roll_back(self, change, self._recompute)

    def _recompute(self):
        q, k, v = (np.asarray(a) for a in (self.query, self.key_vectors, self.value_vectors))
        if k.shape[0] != v.shape[0]:
            raise ValueError(
                f"key_vectors and value_vectors must have the same number of rows: "
                f"key_vectors has shape {k.shape}, value_vectors has shape {v.shape}"
            )
        if self.key_positions is not None:
            if len(self.key_positions) != k.shape[0]:
                raise ValueError(
                    f"key_positions must have one position per key: {k.shape[0]} keys, "
                    f"got {len(self.key_positions)} positions"
                )
            q = attn_core.rotary(q[None], [self.query_position])[0]  # R(mθ) q, θ = 1
            k = attn_core.rotary(k, self.key_positions)  # row j turned by n_j θ: [S, 2]
        scale = 1 / math.sqrt(q.shape[-1]) if self.scaled else 1.0  # SDPA's default
        dots = attn_core.dot_scores(q, k)  # [2] . [S, 2] -> [S]
        scores = dots * scale
        weights = attn_core.softmax(scores, temperature=self.temperature)  # [S]
        with np.errstate(invalid="ignore", divide="ignore"):
            cosines = dots / (np.linalg.norm(q) * np.linalg.norm(k, axis=-1))
        self.dots = dots.tolist()
        self.cosines = finite_or_none(cosines)  # None where q or k is at the origin
        self.scores = scores.tolist()
        self.weights = weights.tolist()
        self.output = (weights @ v).tolist()  # [S] @ [S, Ev] -> [Ev], as attn_core does
        self.entropy = float(attn_core.entropy(weights))
        self.turned_query, self.turned_keys = q.tolist(), k.tolist()


def check_parts(show):
    """Return ``show`` as a list of :data:`PARTS` in their order, or raise naming ``show``."""
    if not all(isinstance(p, str) for p in show):
        raise TypeError(f"show must be a sequence of part names from {PARTS}, got {show!r}")
    unknown = sorted(set(show) - set(PARTS))
    if unknown:
        raise ValueError(f"show: unknown part(s) {unknown}; the parts are {PARTS}")
    needy = [p for p in ("temperature", "values") if p in show and "weights" not in show]
    if needy:
        raise ValueError(f"show: {needy} need 'weights' too, got show={tuple(show)!r}")
    return [p for p in PARTS if p in show]
