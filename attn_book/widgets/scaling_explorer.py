"""ScalingExplorer: why attention divides by sqrt(d_k), for d_k from 1 to 1024."""

from __future__ import annotations

import numpy as np
import traitlets as t

import attn_core
from attn_core.validation import check_positive_int

from ._base import Figure, bundle, css

__all__ = ["DIMS", "HIST_EDGES", "ScalingExplorer", "scaling_row"]

DIMS = tuple(2**i for i in range(11))  # 1, 2, 4, ..., 1024
HIST_EDGES = np.linspace(-40.0, 40.0, 41)  # bins of width 2 for the q·k histograms


def scaling_row(d_k, rng, n_keys, n_samples):
    """Statistics of softmax(q·k · scale) for random unit-variance q, k of size ``d_k``.

    Parameters
    ----------
    d_k : int
    rng : numpy.random.Generator
    n_keys : int
        Keys per query (the length S of each softmax).
    n_samples : int
        Independent queries.

    Returns
    -------
    dict
        For ``raw`` (scale 1) and ``scaled`` (scale 1/sqrt(d_k)): the standard
        deviation of the scores, their histogram over :data:`HIST_EDGES` (as a
        fraction of all scores; scores outside count in the end bins), the mean
        largest weight, the mean entropy (nats) and the mean Frobenius norm of
        the softmax Jacobian (the gradient size).
    """
    q = rng.standard_normal((n_samples, 1, d_k))  # [N, 1, d_k]
    k = rng.standard_normal((n_samples, n_keys, d_k))  # [N, S, d_k]
    row = {"d_k": d_k}
    for name, scale in (("raw", 1.0), ("scaled", None)):
        w = attn_core.attention_weights(q, k, scale=scale)[:, 0, :]  # [N, S]
        s = attn_core.dot_scores(q, k)[:, 0, :] * (1.0 if scale else d_k**-0.5)  # [N, S]
        counts, _ = np.histogram(np.clip(s, -39.999, 39.999), bins=HIST_EDGES)
        jac = attn_core.softmax_jacobian(w)  # [N, S, S]
        row[name] = {
            "std": float(s.std()),
            "hist": (counts / s.size).tolist(),
            "max_weight": float(w.max(axis=-1).mean()),
            "entropy": float(attn_core.entropy(w).mean()),
            "grad": float(np.linalg.norm(jac, axis=(-2, -1)).mean()),
        }
    return row


class ScalingExplorer(Figure):
    """The spread of q·k grows like sqrt(d_k); dividing by sqrt(d_k) keeps softmax unsaturated.

    Parameters
    ----------
    d_k : int, default 64
        One of :data:`DIMS` (1, 2, 4, ..., 1024).
    seed : int, default 0
    n_keys : int, default 16
    n_samples : int, default 400

    Notes
    -----
    All randomness is drawn here, in Python, from ``np.random.default_rng([seed, d_k])``;
    ``table`` holds one :func:`scaling_row` per d_k in :data:`DIMS`, so the
    JavaScript only redraws when the reader moves the d_k slider. ``current`` is
    the row for ``d_k``.

    Examples
    --------
    >>> ex = ScalingExplorer(d_k=256)
    >>> ex.current["raw"]["max_weight"] > 0.9 > 0.5 > ex.current["scaled"]["max_weight"]
    True
    """

    _esm = bundle("scaling_explorer.js")
    _css = css()
    _repr_traits = ("d_k", "seed", "n_keys", "n_samples")

    d_k = t.Int(64).tag(sync=True)
    seed = t.Int(0).tag(sync=True)
    n_keys = t.Int(16).tag(sync=True)
    n_samples = t.Int(400).tag(sync=True)

    dims = t.List(list(DIMS)).tag(sync=True)
    hist_edges = t.List(HIST_EDGES.tolist()).tag(sync=True)
    table = t.List().tag(sync=True)
    current = t.Dict().tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._tabulate()

    @t.validate("d_k")
    def _check_d_k(self, proposal):
        if proposal["value"] not in DIMS:
            raise ValueError(f"d_k must be one of {list(DIMS)}, got {proposal['value']!r}")
        return proposal["value"]

    @t.validate("n_keys", "n_samples")
    def _check_counts(self, proposal):
        return check_positive_int(proposal["value"], proposal["trait"].name)

    @t.observe("seed", "n_keys", "n_samples")
    def _on_sampling(self, change):
        self._tabulate()

    @t.observe("d_k")
    def _on_d_k(self, change):
        if self.table:  # empty while the constructor sets d_k, before _tabulate
            self.current = self.table[DIMS.index(self.d_k)]

    def _tabulate(self):
        rows = []
        for d in DIMS:
            rng = np.random.default_rng([self.seed, d])
            rows.append(scaling_row(d, rng, self.n_keys, self.n_samples))
        self.table = rows
        self.current = rows[DIMS.index(self.d_k)]
