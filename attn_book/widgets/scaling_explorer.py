"""ScalingExplorer: why attention divides by sqrt(d_k), for d_k from 1 to 1024."""

from __future__ import annotations

import copy
import math

import numpy as np
import traitlets as t

from attn_book import experiments as stats

from ._base import Figure, bundle, css
from .inputs import MAX_SAMPLE_NUMBERS, Integer

__all__ = ["DIMS", "N_BINS", "histogram_edges", "scaling_table"]

DIMS = tuple(2**i for i in range(11))  # 1, 2, 4, ..., 1024: the slider's stops and the curves'
N_BINS = 400  # bins of each score histogram: 1 wide over ±200, so dₖ = 1 still has a shape


def histogram_edges(scores, n_bins=N_BINS):
    """Edges of ``n_bins`` equal bins over [-R, R], R the first 1, 2, 4, 5 × 10^k >= max |s|.

    Every score falls inside, so no bin collects clipped scores (which would draw false
    spikes at the edges); R is a round number, so the ticks at ±R, ±R/2 and 0 are too.

    Parameters
    ----------
    scores : ndarray, any shape
    n_bins : int

    Returns
    -------
    ndarray, shape (n_bins + 1,)

    Examples
    --------
    >>> histogram_edges(np.array([-3.2, 17.0]), n_bins=4).tolist()
    [-20.0, -10.0, 0.0, 10.0, 20.0]
    """
    peak = max(float(np.abs(scores).max()), 1e-12)
    power = 10.0 ** math.floor(math.log10(peak))
    radius = next(m * power for m in (1, 2, 4, 5, 10) if m * power >= peak)
    return np.linspace(-radius, radius, n_bins + 1)


def scaling_table(dims, seed, n_keys, n_samples):
    """Softmax statistics of random unit-variance q·k, one row per d_k in ``dims``.

    The edges cover the widest spread (the largest d_k's unscaled scores), so the axis
    stays put as d_k changes and the unscaled histogram visibly widens. Row ``d`` draws
    from ``np.random.default_rng([seed, d])``.

    Returns
    -------
    list of dict, length len(dims)
        Each: ``d_k``; ``edges``; and for ``raw`` (scale 1) and ``scaled`` (scale 1/sqrt(d_k)):
        the standard deviation of ``n_samples * n_keys`` scores
        (:func:`attn_book.experiments.random_dot_products`), their histogram over ``edges``
        (fractions, summing to 1), and from :func:`attn_book.experiments.saturation_stats`
        the mean largest weight, the mean entropy (nats) and the mean Frobenius norm of
        the softmax Jacobian (the gradient size), raw and scaled from the same q and k.
    """
    drawn = [_draw_row(d, np.random.default_rng([seed, d]), n_keys, n_samples) for d in dims]
    edges = histogram_edges(np.concatenate([raw for _, raw in drawn]))  # [B + 1]
    return [_add_histograms(row, raw, edges) for row, raw in drawn]


def _draw_row(d_k, rng, n_keys, n_samples):
    """The row's statistics without histograms, and its unscaled scores [N·S]."""
    twin = copy.deepcopy(rng)  # the raw row softmaxes the very q and k the scaled row does
    sat = {
        "scaled": stats.saturation_stats([d_k], n_keys, n_samples, rng, scaled=True),
        "raw": stats.saturation_stats([d_k], n_keys, n_samples, twin, scaled=False),
    }
    raw = stats.random_dot_products(d_k, n_samples * n_keys, rng)  # [N·S]
    row = {"d_k": d_k}
    for name, s in (("raw", raw), ("scaled", raw / math.sqrt(d_k))):
        row[name] = {
            "std": float(s.std()),
            "max_weight": float(sat[name].max_weight[0]),
            "entropy": float(sat[name].entropy[0]),
            "grad": float(sat[name].jacobian_norm[0]),
        }
    return row, raw


def _add_histograms(row, raw, edges):
    """Add ``edges`` and each score set's histogram (fractions) over them to ``row``."""
    edges = np.asarray(edges, dtype=float)  # [B + 1], covering every row's raw scores
    row["edges"] = edges.tolist()
    for name, s in (("raw", raw), ("scaled", raw / math.sqrt(row["d_k"]))):
        counts, _ = np.histogram(s, bins=edges)  # [B]
        row[name]["hist"] = (counts / s.size).tolist()
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
    ``table`` holds one row per d_k in :data:`DIMS` (from
    :func:`scaling_table`: one histogram axis for every d_k), so the
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

    d_k = Integer(64, min=1).tag(sync=True)  # ints or numpy integers, one of DIMS (below)
    seed = Integer(0).tag(sync=True)
    n_keys = Integer(16, min=1).tag(sync=True)
    n_samples = Integer(400, min=1).tag(sync=True)

    dims = t.List(list(DIMS)).tag(sync=True)
    table = t.List().tag(sync=True)
    hist_edges = t.List().tag(sync=True)  # the current row's ``edges``, (B + 1,)
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
        name, value = proposal["trait"].name, proposal["value"]
        other = "n_samples" if name == "n_keys" else "n_keys"
        most = MAX_SAMPLE_NUMBERS // getattr(self, other)  # every q·k is drawn at d_k = 1024 too
        if value > most:
            raise ValueError(
                f"{name} must be at most {most}: n_samples × n_keys must be at most "
                f"{MAX_SAMPLE_NUMBERS} (got {name}={value} with {other}={getattr(self, other)})"
            )
        return value

    @t.observe("seed", "n_keys", "n_samples")
    def _on_sampling(self, change):
        self._tabulate()

    @t.observe("d_k")
    def _on_d_k(self, change):
        if self.table:  # empty while the constructor sets d_k, before _tabulate
            self.current = self.table[DIMS.index(self.d_k)]
            self.hist_edges = self.current["edges"]

    def _tabulate(self):
        rows = scaling_table(DIMS, self.seed, self.n_keys, self.n_samples)
        self.table = rows
        self.current = rows[DIMS.index(self.d_k)]
        self.hist_edges = self.current["edges"]
