"""Static figures of the book. matplotlib is imported only here, never by the maths.

Each function draws one figure from numbers that the chapter computed with
attn_core and returns the :class:`matplotlib.figure.Figure`, so a chapter can
``glue`` it with a caption. Colours are colour-blind safe (viridis, cividis).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    "plot_jacobian_norm",
    "plot_saturation",
    "plot_score_variance",
    "plot_temperature",
    "plot_weight_bars",
]


def _colours(n, cmap="viridis"):
    return plt.get_cmap(cmap)(np.linspace(0.0, 0.85, n))  # stop before viridis's pale yellow


def plot_weight_bars(labels, weights, *, title=""):
    """Grouped bars: one group per key, one bar per named set of weights.

    Parameters
    ----------
    labels : sequence of str, length S
        The keys' names, along the x axis.
    weights : dict of str to array_like of shape (S,)
        Each entry is one set of weights (e.g. "÷ sum" and "softmax").
    title : str, optional
    """
    fig, ax = plt.subplots(figsize=(6, 3.2))
    width = 0.8 / len(weights)
    x = np.arange(len(labels))
    for i, ((name, w), c) in enumerate(zip(weights.items(), _colours(len(weights)), strict=True)):
        bars = ax.bar(x + (i - (len(weights) - 1) / 2) * width, w, width, label=name, color=c)
        ax.bar_label(bars, fmt="%.3f", fontsize=8)
    ax.set(xticks=x, xticklabels=labels, ylabel="weight", ylim=(0, 1.05), title=title)
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def plot_temperature(temperatures, weights, labels):
    """Weights against temperature T (log axis), one line per key.

    Parameters
    ----------
    temperatures : array_like, shape (N,)
    weights : array_like, shape (N, S)
        ``weights[i]`` is the softmax at ``temperatures[i]``.
    labels : sequence of str, length S
    """
    weights = np.asarray(weights)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for j, c in enumerate(_colours(weights.shape[1])):
        ax.plot(temperatures, weights[:, j], color=c, lw=2, label=labels[j])
    ax.axhline(1 / weights.shape[1], color="grey", ls=":", lw=1, label="uniform 1/S")
    ax.set(xscale="log", xlabel="temperature T", ylabel="weight", ylim=(0, 1.02))
    ax.legend(frameon=False, fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
    fig.tight_layout()
    return fig


def plot_jacobian_norm(gaps, norms, max_weights):
    """The Jacobian's norm and the largest weight against the gap between scores.

    Parameters
    ----------
    gaps : array_like, shape (N,)
        How far the largest score lies above the others.
    norms : array_like, shape (N,)
        Frobenius norm of ``diag(w) - w wᵀ`` at each gap.
    max_weights : array_like, shape (N,)
        The largest weight at each gap.
    """
    c = _colours(2, "cividis")
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(gaps, norms, color=c[0], lw=2, label="‖diag(w) − wwᵀ‖ (Frobenius)")
    ax.plot(gaps, max_weights, color=c[1], lw=2, ls="--", label="largest weight")
    ax.set(xlabel="gap between the top score and the others", ylim=(0, 1.02))
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def plot_score_variance(d_ks, var_plain, var_scaled):
    """Empirical variance of q·k against d_k (log-log), with and without the 1/√d_k.

    Parameters
    ----------
    d_ks : array_like, shape (D,)
    var_plain, var_scaled : array_like, shape (D,)
        Sample variances of q·k and of q·k/√d_k.
    """
    c = _colours(2)
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(d_ks, d_ks, color="grey", ls=":", lw=1, label="theory: d_k")
    ax.plot(d_ks, var_plain, "o-", color=c[0], label="q·k (simulated)")
    ax.plot(d_ks, np.ones(len(d_ks)), color="grey", ls="--", lw=1, label="theory: 1")
    ax.plot(d_ks, var_scaled, "s-", color=c[1], label="q·k / √d_k (simulated)")
    ax.set(xscale="log", yscale="log", xlabel="d_k", ylabel="variance of the score")
    ax.set_xscale("log", base=2)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def plot_saturation(d_ks, plain, scaled, n_keys):
    """Three panels against d_k: largest weight, entropy, Jacobian norm; unscaled vs scaled.

    Parameters
    ----------
    d_ks : array_like, shape (D,)
    plain, scaled : attn_core.stats.SaturationStats
        Without and with the 1/√d_k scale.
    n_keys : int
        Keys per query S, for the uniform reference lines.
    """
    c = _colours(2)
    fig, axes = plt.subplots(1, 3, figsize=(9, 3), sharex=True)
    refs = (1 / n_keys, np.log(n_keys), None)
    titles = ("largest weight", "entropy (nats)", "‖Jacobian‖")
    for ax, field, ref, title in zip(axes, plain._fields, refs, titles, strict=True):
        ax.plot(d_ks, getattr(plain, field), "o-", color=c[0], label="q·k")
        ax.plot(d_ks, getattr(scaled, field), "s-", color=c[1], label="q·k / √d_k")
        if ref is not None:
            ax.axhline(ref, color="grey", ls=":", lw=1)
        ax.set(title=title, xlabel="d_k", ylim=(0, None))
        ax.set_xscale("log", base=2)
    axes[0].legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig
