"""SoftmaxBars: drag scores up and down, watch the softmax weights and the max-subtraction trick."""

from __future__ import annotations

import numpy as np
import traitlets as t

import attn_core

from ._base import Figure, bundle, css
from .inputs import Number, Temperature, Vector, finite_or_none, recompute_or_roll_back

__all__ = ["SoftmaxBars"]


class SoftmaxBars(Figure):
    """Score bars (drag them) and the softmax (소프트맥스) weights they give.

    Parameters
    ----------
    scores : sequence of floats, default (2, 1, 0.1)
        Shown (and draggable) in [-4, 6].
    temperature : float >= 1e-6, default 1.0
    shift : float, default 0.0
        Added to every score before the softmax. The weights do not change (the
        softmax is shift-invariant), but the naive formula overflows past ~710.

    Notes
    -----
    Computed traits: ``weights`` (S,) from :func:`attn_core.softmax`;
    ``naive_weights`` (S,), the textbook formula without max-subtraction, with
    ``None`` where it gives NaN; ``entropy`` (nats).

    Examples
    --------
    >>> bars = SoftmaxBars(scores=(1.0, 0.0, 1.0))
    >>> [round(w, 3) for w in bars.weights]
    [0.422, 0.155, 0.422]
    >>> bars.shift = 1000.0
    >>> [round(w, 3) for w in bars.weights], bars.naive_weights
    ([0.422, 0.155, 0.422], [None, None, None])
    """

    _esm = bundle("softmax_bars.js")
    _css = css()
    _repr_traits = ("scores", "temperature", "shift")

    scores = Vector([2.0, 1.0, 0.1]).tag(sync=True)  # list, tuple or array
    temperature = Temperature(1.0).tag(sync=True)
    shift = Number(0.0).tag(sync=True)

    weights = t.List().tag(sync=True)
    naive_weights = t.List().tag(sync=True)
    entropy = t.Float(0.0).tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._recompute()

    @t.observe("scores", "temperature", "shift")
    def _on_input(self, change):
        recompute_or_roll_back(self, change, self._recompute)

    def _recompute(self):
        shifted = np.asarray(self.scores) + self.shift  # [S]
        weights = attn_core.softmax(shifted, temperature=self.temperature)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(shifted / self.temperature)  # overflows to inf past ~710
            naive = e / e.sum()
        self.weights = weights.tolist()
        self.naive_weights = finite_or_none(naive)
        self.entropy = float(attn_core.entropy(weights))
