"""Static figures of the book. matplotlib is imported only here, never by the maths.

Each function draws one figure from numbers that the chapter computed with
attn_core and returns the :class:`matplotlib.figure.Figure`, so a chapter can
``glue`` it with a caption. Colours are colour-blind safe (viridis, cividis, Okabe–Ito).

Every word a figure draws is drawn in the drawing language (:func:`attn_book.i18n.word`):
the figures' own words as ``word("...")`` (a template, ``word("fit, slope {slope}")``, when
a part is computed), and the words a chapter passes in (axis labels, panel titles, legend
entries) through the same function, which records them. Each public function is
:func:`bilingual`: its figure remembers how it was drawn (``fig._attn_redraw``) and which
passed-in words it drew (``fig._attn_words``), so :meth:`attn_book.figures.Figures.show` can
draw it again in the other edition's language, and a figure drawn in Korean uses the Hangul
font (:func:`attn_book.style.hangul_rc`).
"""

from __future__ import annotations

import functools
import itertools
import re
from contextvars import ContextVar

import matplotlib.pyplot as plt
import numpy as np

from attn_book import i18n
from attn_book.style import (
    MASKED,
    OKABE_ITO,
    SCALED,
    UNSCALED,
    dec,
    hangul_rc,
    number,
    plain,
    vector,
)

__all__ = [
    "plot_convex_combination",
    "plot_cost_scaling",
    "plot_decode_time",
    "plot_heatmaps",
    "plot_jacobian_norm",
    "plot_query_keys",
    "plot_recall",
    "plot_saturation",
    "plot_score_variance",
    "plot_temperature",
    "plot_token_heatmaps",
    "plot_training_runs",
    "plot_weight_bars",
]


_DRAWN = ContextVar("attn_plot_words", default=None)
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")


def word(text):
    """``text`` (English) in the drawing language (:func:`attn_book.i18n.word`); a string
    with words (:func:`attn_book.i18n.is_word`) is recorded as drawn by the figure being
    drawn. Numbers, maths and tokens without words are drawn as they are."""
    text = str(text)
    if not i18n.is_word(text):
        return text
    drawn = _DRAWN.get()
    if drawn is not None and text not in drawn:
        drawn.append(text)
    return i18n.word(text)


def bilingual(function):
    """Make a plot function's figure redrawable in another language: the returned figure
    gets ``_attn_redraw`` (a function of no arguments that draws it again, with the same
    arguments, in the drawing language of the moment) and ``_attn_words`` (every string with
    words it drew through :func:`word`, English). A figure drawn in a language other than
    English is drawn with the Hangul font (:func:`attn_book.style.hangul_rc`)."""

    @functools.wraps(function)
    def draw(*args, **kwargs):
        if _DRAWN.get() is not None:  # called by another plot function: it records
            return function(*args, **kwargs)
        drawn = []
        token = _DRAWN.set(drawn)
        try:
            if i18n.drawing_language() == "en":
                fig = function(*args, **kwargs)
            else:
                with plt.rc_context(hangul_rc()):  # a text takes its font when it is created
                    fig = function(*args, **kwargs)
        finally:
            _DRAWN.reset(token)
        fig._attn_redraw = functools.partial(draw, *args, **kwargs)
        fig._attn_words = drawn
        return fig

    return draw


def _colours(n, cmap="viridis"):
    return plt.get_cmap(cmap)(np.linspace(0.0, 0.85, n))  # stop before viridis's pale yellow


@bilingual
def plot_weight_bars(labels, weights, *, title="", exp_of=None):
    """Grouped bars: one group per key, one bar per named set of weights.

    Parameters
    ----------
    labels : sequence of str, length S
        The keys' names, along the x axis; a name with words ("score 1") is drawn in the
        drawing language, as the legend's names are.
    weights : dict of str to array_like of shape (S,)
        Each entry is one set of weights (e.g. "÷ sum" and "softmax").
    title : str, optional
    exp_of : array_like of shape (S,), optional
        Scores to mark, each with its value, on a curve of eˢ in a second panel on the
        right (softmax's numerators); None: the bars alone.
    """
    if exp_of is None:
        fig, ax = plt.subplots(figsize=(6, 3.2))
    else:
        fig, (ax, ax_exp) = plt.subplots(1, 2, figsize=(9, 3.2), width_ratios=(3, 2))
        s = np.asarray(exp_of, dtype=float)
        curve = np.linspace(min(s.min(), 0.0), s.max() + 0.25, 200)
        ax_exp.plot(curve, np.exp(curve), color="grey", lw=1.5)
        ax_exp.plot(s, np.exp(s), "o", color=_colours(2)[-1])
        for x in s:
            label = dec(np.exp(x))
            ax_exp.annotate(label, (x, np.exp(x)), (-6, 4), textcoords="offset points", ha="right")
        ax_exp.set(xlabel=word("score s"), ylabel="eˢ", ylim=(0, None))
    width = 0.8 / len(weights)
    x = np.arange(len(labels))
    for i, ((name, w), c) in enumerate(zip(weights.items(), _colours(len(weights)), strict=True)):
        bars = ax.bar(x + (i - (len(weights) - 1) / 2) * width, w, width, label=word(name), color=c)
        ax.bar_label(bars, labels=[dec(x) for x in w], fontsize=8)
    ax.set(xticks=x, xticklabels=[word(label) for label in labels], ylabel=word("weight"))
    ax.set(ylim=(0, 1.05), title=word(title))
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


@bilingual
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
        ax.plot(temperatures, weights[:, j], color=c, lw=2, label=word(labels[j]))
    ax.axhline(1 / weights.shape[1], color="grey", ls=":", lw=1, label=word("uniform 1/S"))
    ax.set(xscale="log", xlabel=word("temperature T"), ylabel=word("weight"), ylim=(0, 1.02))
    ax.legend(frameon=False, fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
    fig.tight_layout()
    return fig


@bilingual
def plot_jacobian_norm(gaps, norms, max_weights):
    """The largest weight (left) and the Jacobian's norm (right, log axis) against the gap.

    Parameters
    ----------
    gaps : array_like, shape (N,)
        How far the largest score lies above the others.
    norms : array_like, shape (N,)
        Frobenius norm of ``diag(w) - w wᵀ`` at each gap, drawn on a log axis: it falls
        by orders of magnitude, which a linear axis flattens to zero.
    max_weights : array_like, shape (N,)
        The largest weight at each gap.
    """
    c = _colours(2, "cividis")  # one dark colour: the two curves have panels of their own
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2), sharex=True)
    left.plot(gaps, max_weights, color=c[0], lw=2, ls="--")
    left.set(title=word("largest weight"), ylim=(0, 1.02))
    right.plot(gaps, norms, color=c[0], lw=2)
    right.set(title=word("‖diag(w) − wwᵀ‖ (Frobenius), log axis"), yscale="log")
    for ax in (left, right):
        ax.set(xlabel=word("gap between the top score and the others"))
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


_DK = r"$d_k$"  # mathtext: d with a subscript k, as in the text
_QK, _QK_SCALED = r"$q \cdot k$", r"$q \cdot k\, / \sqrt{d_k}$"
# The same symbols as Unicode, for a text that also has words: mathtext draws a string's
# words in the first font of the family, with no fallback, so a Korean word beside "$d_k$"
# came out as empty boxes.
_DK_TEXT, _QK_TEXT, _QK_SCALED_TEXT = "dₖ", "q·k", "q·k / √dₖ"


@bilingual
def plot_score_variance(d_ks, var_plain, var_scaled):
    """Empirical variance of q·k against d_k (log-log), with and without the 1/√d_k.

    Parameters
    ----------
    d_ks : array_like, shape (D,)
    var_plain, var_scaled : array_like, shape (D,)
        Sample variances of q·k and of q·k/√d_k.
    """
    c = (UNSCALED, SCALED)  # as the scaling explorer draws them
    fig, ax = plt.subplots(figsize=(6, 3.4))
    simulated = word("{score} (simulated)")
    theory = word("theory: {d_k}").format(d_k=_DK_TEXT)
    ax.plot(d_ks, d_ks, color="grey", ls=":", lw=1, label=theory)
    ax.plot(d_ks, var_plain, "o-", color=c[0], label=simulated.format(score=_QK_TEXT))
    ax.plot(d_ks, np.ones(len(d_ks)), color="grey", ls="--", lw=1, label=word("theory: 1"))
    ax.plot(
        d_ks,
        var_scaled,
        "s-",
        color=c[1],
        label=simulated.format(score=_QK_SCALED_TEXT),
    )
    ax.set(xscale="log", yscale="log", xlabel=_DK, ylabel=word("variance of the score"))
    ax.set_xscale("log", base=2)
    ax.legend(frameon=False, fontsize=9)
    fig.tight_layout()
    return fig


@bilingual
def plot_saturation(d_ks, plain, scaled, n_keys):
    """Three panels against d_k: largest weight, entropy, Jacobian norm; unscaled vs scaled.

    Parameters
    ----------
    d_ks : array_like, shape (D,)
    plain, scaled : attn_book.experiments.SaturationStats
        Without and with the 1/√d_k scale.
    n_keys : int
        Keys per query S, for the uniform reference lines.
    """
    c = (UNSCALED, SCALED)  # as the scaling explorer draws them
    fig, axes = plt.subplots(1, 3, figsize=(9, 3.2), sharex=True)
    refs = (1 / n_keys, np.log(n_keys), None)
    titles = (word("largest weight"), word("entropy (nats)"), word("‖Jacobian‖"))
    for ax, field, ref, title in zip(axes, plain._fields, refs, titles, strict=True):
        ax.plot(d_ks, getattr(plain, field), "o-", color=c[0], label=_QK)
        ax.plot(d_ks, getattr(scaled, field), "s-", color=c[1], label=_QK_SCALED)
        if ref is not None:
            ax.axhline(ref, color="grey", ls=":", lw=1)
        ax.set(title=title, xlabel=_DK, ylim=(0, None))
        ax.set_xscale("log", base=2)
    axes[0].legend(frameon=False, fontsize=9)
    fig.tight_layout()
    return fig


@bilingual
def plot_convex_combination(panels, *, labels=("v₁", "v₂", "v₃")):
    """Values as points, their convex hull shaded, attention outputs as marked points inside.

    Parameters
    ----------
    panels : sequence of dict
        One panel each, with keys ``values`` (3, 2) array_like, ``outputs`` (dict of
        legend label to a point (2,)), optionally ``path`` (N, 2), a curve of outputs
        (e.g. as the query turns), and ``title``.
    labels : sequence of str, length 3
        Names of the values, written beside their points.
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.2), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        _draw_hull(ax, np.asarray(panel["values"], dtype=float), labels)
        if "path" in panel:
            path = np.asarray(panel["path"])  # (N, 2)
            turning = word("as q turns")
            ax.plot(path[:, 0], path[:, 1], "k:", lw=2, zorder=2.5, label=turning)  # over hull
        _draw_outputs(ax, panel["outputs"], legend=True)
        ax.set(
            xlim=(-0.5, 2.9), ylim=(-0.5, 2.9), aspect="equal", title=word(panel.get("title", ""))
        )
        ax.set(xlabel=word("dimension 1"), ylabel=word("dimension 2"))
        ax.grid(alpha=0.3)
        ax.legend(frameon=False, fontsize=8, loc="upper right")
        if "inset" in panel:
            _zoom_inset(ax, panel)
    fig.tight_layout()
    return fig


def _draw_outputs(ax, outputs, legend):
    """The outputs as large marked points (circle, diamond, ...), labelled in the legend."""
    colour = _colours(4, "cividis")[1]
    for i, (name, (x, y)) in enumerate(outputs.items()):
        style = {"s": 70, "marker": "oDs^v"[i % 5], "edgecolor": "black", "zorder": 4}
        label = f"{word(name)} ({dec((x, y))})" if legend else None
        ax.scatter(x, y, color=colour, label=label, **style)


def _zoom_inset(ax, panel):
    """A magnified view of ``panel["inset"]`` = (x0, x1, y0, y1), in the lower left."""
    x0, x1, y0, y1 = panel["inset"]
    inner = ax.inset_axes([0.03, 0.03, 0.37, 0.37])
    values = np.asarray(panel["values"], dtype=float)
    ring = np.vstack([values, values[:1]])
    inner.plot(ring[:, 0], ring[:, 1], color=_colours(4, "cividis")[2], lw=6, alpha=0.4)
    _draw_outputs(inner, panel["outputs"], legend=False)
    inner.set(xlim=(x0, x1), ylim=(y0, y1), aspect="equal", xticks=[], yticks=[])
    # Inside, in the corner the values' line leaves free: above the inset, the zoom's
    # connector lines and the hull would cross it.
    inner.text(0.04, 0.04, word("zoomed in"), transform=inner.transAxes, fontsize=8, va="bottom")
    ax.indicate_inset_zoom(inner, edgecolor="grey")


def _draw_hull(ax, values, labels):
    """Shade the convex hull of three 2-D values (flat if they are collinear) and label them."""
    colours = _colours(4, "cividis")
    ax.fill(values[:, 0], values[:, 1], color=colours[3], alpha=0.25, lw=0)
    ring = np.vstack([values, values[:1]])  # close the triangle
    ax.plot(ring[:, 0], ring[:, 1], color=colours[2], lw=1.5)
    ax.scatter(values[:, 0], values[:, 1], s=60, color=colours[0], zorder=3)
    for (x, y), name in zip(values, labels, strict=True):
        ax.annotate(f"{name} ({plain((x, y))})", (x, y), xytext=(6, 6), textcoords="offset points")


@bilingual
def plot_query_keys(panels):
    """Query and keys as arrows from the origin, each key labelled with its score q·k.

    Parameters
    ----------
    panels : sequence of dict
        One panel each, with ``query`` (2,), ``keys`` (S, 2), ``scores`` (S,) computed by
        attn_core, ``labels`` (S names) and optionally ``title``.

    Returns
    -------
    matplotlib.figure.Figure
        The query is black and dashed; keys take Okabe–Ito colours (colour-blind safe).
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels), 4.2), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        keys, q = np.asarray(panel["keys"], float), np.asarray(panel["query"], float)
        drawn = zip(keys, panel["scores"], panel["labels"], OKABE_ITO, strict=False)
        for k, score, name, c in sorted(drawn, key=lambda key: -np.linalg.norm(key[0])):
            # shortest drawn last, on top; three short lines keep neighbouring labels apart
            text = f"{name} =\n{vector(k)}\nq·k = {number(score)}"
            _arrow(ax, k, c, "-", text, place=_label_place(k, keys), lw=4)
        _arrow(ax, q, "black", "--", f"q = {vector(q)}", place="below")
        ax.set(**_room_for_labels(np.vstack([keys, q, [0.0, 0.0]])))
        ax.set(aspect="equal", title=word(panel.get("title", "")))
        ax.set(xlabel=word("component 1"), ylabel=word("component 2"))
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def _room_for_labels(points):
    """Axis limits around ``points`` (N, 2), with room round the tips for labels: to the
    right, where the labels of tips at x >= 0 run, and as much to the left when a tip lies at
    x < 0, whose label runs left (some room anyway, for a label left of a tip)."""
    size = max(1.0, np.abs(points).max())
    (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
    left = 1.0 if x0 < 0 else 0.45
    return {
        "xlim": (x0 - left * size, x1 + 1.0 * size),
        "ylim": (y0 - 0.45 * size, y1 + 0.5 * size),
    }


def _label_place(k, keys):
    """Where a key's label goes: "left" of its tip if a longer key runs through that tip
    (its label would sit on the longer arrow and its neighbours), else above the tip and
    away from the vertical axis: "above" (running right) for a tip at x >= 0, "above-left"
    (running left) for a tip at x < 0, so that the labels of two keys on either side of
    the axis never run into each other."""
    along = keys @ k / max(float(k @ k), 1e-12)  # [S]: each key's extent along k, in |k|s
    across = np.abs(keys[:, 0] * k[1] - keys[:, 1] * k[0])  # [S]: |k × key|
    if np.any((along > 1 + 1e-9) & (across < 1e-9 * (1 + along))):
        return "left"
    return "above-left" if k[0] < 0 else "above"


_LABEL_AT = {  # place -> offset (points) from the tip, horizontal and vertical alignment
    "above": ((4, 4), "left", "bottom"),
    "above-left": ((-4, 4), "right", "bottom"),
    "below": ((4, -6), "left", "top"),
    "left": ((-8, -4), "right", "top"),
}


def _arrow(ax, v, colour, style, text, place="above", lw=2):
    """One vector from the origin, labelled beyond its tip ("above", or "above-left" for a
    tip left of the vertical axis), or "below" it (clear of a key), or "left" of it (clear
    of a longer key through the same tip).

    Keys are drawn wider (``lw``) than the dashed query on top, so a key equal to
    the query still shows round it.
    """
    ax.annotate(
        "", v, (0, 0), arrowprops={"arrowstyle": "-|>", "color": colour, "lw": lw, "ls": style}
    )
    offset, ha, va = _LABEL_AT[place]
    style = {"color": colour, "fontsize": 8, "ha": ha, "va": va}
    ax.annotate(text, v, xytext=offset, textcoords="offset points", **style)


@bilingual
def plot_heatmaps(panels, *, xlabel="key", ylabel="query", value_label="weight"):
    """Small matrices side by side, each cell coloured (viridis) and numbered.

    Parameters
    ----------
    panels : list of dict
        Each with ``matrix`` (L, S) of numbers in [0, 1] (weights, or a boolean
        mask), ``title``, ``rows`` (L labels) and ``cols`` (S labels); optional
        ``hidden`` (L, S) bool, cells drawn light grey with no number (masked),
        ``digits`` (default 2; 0 prints a mask as 1 and 0) and ``xrotation``, the angle of
        the column labels (default 90, or 0 when a label has Hangul, which is never rotated).
    xlabel, ylabel : str
        The axes' labels, the same for every panel; the row labels are written on
        the first panel only when every panel has the same rows.
    value_label : str
        The colour bar's label.

    Returns
    -------
    matplotlib.figure.Figure
        At most 6.8 in wide, one colour bar for all panels.
    """
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(min(6.8, 0.6 + 3.1 * n), 3.1), squeeze=False)
    same_rows = all(list(p["rows"]) == list(panels[0]["rows"]) for p in panels)
    for i, (ax, panel) in enumerate(zip(axes[0], panels, strict=True)):
        image = _draw_heatmap(ax, panel)
        ax.set(xlabel=word(xlabel), title=word(panel["title"]))
        ax.tick_params(labelleft=i == 0 or not same_rows)
    axes[0, 0].set_ylabel(word(ylabel))
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label=word(value_label))
    for ax in axes[0]:
        _stagger_crowded_columns(ax)
    return fig


def _stagger_crowded_columns(ax, min_gap=0.5):
    """Where upright column labels would run together (Hangul words in narrow cells: 사과를
    먹었다 그리고 in two panels side by side), drop every other one a line lower, the same
    size and still reading across. ``min_gap``: the least space between two neighbours, in
    ems of their font; labels with room, and turned ones, stay as they are."""
    labels = ax.get_xticklabels()
    if len(labels) < 2 or any(label.get_rotation() != 0 for label in labels):
        return
    fig = ax.figure
    fig.draw_without_rendering()  # the labels' places once the colour bar has taken its room
    renderer = fig.canvas.get_renderer()
    boxes = [label.get_window_extent(renderer) for label in labels]
    size = labels[0].get_fontsize()  # points
    gap = min(b.x0 - a.x1 for a, b in itertools.pairwise(boxes)) * 72 / fig.dpi
    if gap >= min_gap * size:
        return
    for tick in ax.xaxis.get_major_ticks()[1::2]:
        tick.set_pad(tick.get_pad() + 1.2 * size)  # one line lower


def _draw_heatmap(ax, panel):
    """One numbered viridis matrix on ``ax``; hidden cells light grey, without a number."""
    values = np.asarray(panel["matrix"], dtype=float)  # [L, S]
    hidden = np.asarray(panel.get("hidden", np.zeros(values.shape, dtype=bool)))
    shown = np.ma.masked_array(values, mask=hidden)
    cmap = plt.get_cmap("viridis").with_extremes(bad=MASKED)
    image = ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=1.0)
    digits = panel.get("digits", 2)
    for (i, j), v in np.ndenumerate(values):
        if not hidden[i, j]:
            colour = "black" if v > 0.55 else "white"
            ax.text(j, i, dec(v, digits), ha="center", va="center", fontsize=7, color=colour)
    rows, cols = panel["rows"], panel["cols"]
    # Hangul reads across, never turned on its side; other labels (k1, <pad>) stand upright
    across = any(_HANGUL.search(str(c)) for c in cols)
    rotation = panel.get("xrotation", 0 if across else 90)
    ax.set_xticks(range(len(cols)), cols, rotation=rotation, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    return image


@bilingual
def plot_token_heatmaps(panels, *, xlabel, ylabel):
    """:func:`plot_heatmaps` with Korean tokens drawn in a Hangul font, not as boxes.

    Parameters
    ----------
    panels : list of dict
        As :func:`plot_heatmaps`: ``matrix`` (L, S), ``rows`` (L tokens), ``cols`` (S
        tokens), ``title``; L and S may differ (cross-attention).
    xlabel, ylabel : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    with plt.rc_context(hangul_rc()):  # a text takes its font when it is created
        return plot_heatmaps(panels, xlabel=xlabel, ylabel=ylabel)


@bilingual
def plot_cost_scaling(ns, seconds, peak_bytes, *, slope, model_bytes, fit_from=None, predicted=2):
    """Time and peak memory against n on log-log axes, with the fitted slope and the model.

    Parameters
    ----------
    ns : sequence of int
        The sequence lengths measured (L = S = n).
    seconds, peak_bytes : sequence of float
        The measured time and peak extra memory at each n.
    slope : float
        The fitted slope of log(seconds) against log(n) over ``n >= fit_from``, drawn dashed
        over that range through the fitted points' mean (where a least-squares line passes).
    model_bytes : sequence of float
        The cost model's bytes of one n×n matrix at each n, drawn as a line.
    fit_from : int, optional
        The smallest n the fit used (default: all).
    predicted : float
        The model's slope, drawn dotted in grey through the same point over every n.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, 6.8 in wide.
    """
    n, t, mem = (np.asarray(a, dtype=float) for a in (ns, seconds, peak_bytes))
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(6.8, 3.2))
    colour, fit = _colours(2)
    _time_and_slopes(ax_t, n, t, slope, fit_from, predicted)
    ax_t.set(xlabel=word("sequence length n"), ylabel=word("time (ms)"), title=word("time"))
    ax_m.loglog(n, mem / 2**20, "o", color=colour, label=word("measured peak"))
    ax_m.loglog(n, np.asarray(model_bytes) / 2**20, "-", color=fit, label=word("one n×n matrix"))
    ax_m.set(
        xlabel=word("sequence length n"), ylabel=word("memory (MiB)"), title=word("peak memory")
    )
    for ax in (ax_t, ax_m):
        ax.set_xscale("log", base=2)
        ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def _time_and_slopes(ax, n, seconds, slope, fit_from, predicted):
    """Measured ms against n (points), the fitted slope over ``n >= fit_from`` (dashed) and
    the predicted one over every n (dotted grey), both through the fitted points' mean, where
    a least-squares line passes."""
    colour, fit = _colours(2)
    ms = np.asarray(seconds, dtype=float) * 1e3
    used = n >= (n.min() if fit_from is None else fit_from)
    centre_n, centre_ms = np.exp(np.log(n[used]).mean()), np.exp(np.log(ms[used]).mean())
    ax.loglog(n, ms, "o", color=colour, label=word("measured"))
    ax.loglog(
        n[used],
        centre_ms * (n[used] / centre_n) ** slope,
        "--",
        color=fit,
        # two points fix a slope and test nothing: no more digits than they bear
        label=word("fit, slope {slope}").format(slope=dec(slope, 2 if used.sum() > 2 else 1)),
    )
    ax.loglog(
        n,
        centre_ms * (n / centre_n) ** predicted,
        ":",
        color="grey",
        label=word("slope {slope}").format(slope=predicted),
    )
    ax.set_xscale("log", base=2)


@bilingual
def plot_decode_time(ns, seconds, *, slope, fit_from, cache_bytes, llc_bytes=None, predicted=1):
    """A decoding step's time against the cache's length n, on log-log axes.

    Parameters
    ----------
    ns : sequence of int
        The cache lengths measured.
    seconds : sequence of float
        The measured time of one step at each n.
    slope : float
        The slope fitted over ``n >= fit_from``, drawn dashed over that range.
    fit_from : int
        The smallest n the fit used.
    cache_bytes : sequence of float
        The cache's bytes at each n (proportional to n).
    llc_bytes : int, optional
        The last-level cache's bytes; if given, a vertical line marks the n at which the
        cache's bytes equal it.
    predicted : float
        The model's slope, drawn dotted in grey.

    Returns
    -------
    matplotlib.figure.Figure
        One panel, 4.8 in wide.
    """
    n = np.asarray(ns, dtype=float)
    fig, ax = plt.subplots(figsize=(4.8, 3.2))
    _time_and_slopes(ax, n, seconds, slope, fit_from, predicted)
    if llc_bytes is not None:
        n_llc = n[0] * llc_bytes / cache_bytes[0]  # bytes grow in proportion to n
        ax.axvline(n_llc, color=OKABE_ITO[5], lw=1, label=word("cache = last-level cache"))
    ax.set(xlabel=word("cache length n"), ylabel=word("time of one step (ms)"))
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


@bilingual
def plot_training_runs(runs, *, uniform_entropy=None):
    """Learning curves and the weights' entropy over training, one line per run.

    Parameters
    ----------
    runs : dict of str to attn_book.experiments.TrainingRun
        Label -> run; a label containing "unscaled" is drawn dashed, "Adam" in the
        second colour pair.
    uniform_entropy : float, optional
        Draw log S, the entropy of uniform weights, as a grey line.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels: the loss (log scale) and the mean entropy of the weights' rows.
    """
    fig, (loss_ax, ent_ax) = plt.subplots(1, 2, figsize=(6.8, 3.0))
    colours = plt.get_cmap("cividis")(np.linspace(0.0, 0.8, 2))
    for label, run in runs.items():
        style = {
            "color": colours[1 if "Adam" in label else 0],
            "ls": "--" if "unscaled" in label else "-",
            "lw": 1.8,
        }
        loss_ax.plot(run.losses, label=word(label), **style)
        ent_ax.plot(run.entropies, **style)
    if uniform_entropy is not None:
        ent_ax.axhline(uniform_entropy, color="grey", lw=0.8, ls=":")
        ent_ax.text(0, uniform_entropy, word("uniform"), va="bottom", fontsize=8, color="grey")
    loss_ax.set(yscale="log", xlabel=word("training step"), ylabel=word("loss (squared error)"))
    ent_ax.set(
        xlabel=word("training step"), ylabel=word("mean entropy of a row (nats)"), ylim=(0, None)
    )
    loss_ax.legend(frameon=False, fontsize=7)
    fig.tight_layout()
    return fig


RECALL_STYLE = {  # method -> (label, Okabe-Ito colour, marker, line style)
    "softmax": ("softmax attention", OKABE_ITO[4], "o", "-"),
    "linear": ("linear attention, plain sum", OKABE_ITO[0], "s", "-"),
    "linear_elu": ("linear attention, elu + 1", OKABE_ITO[3], "^", "--"),
    "delta": ("delta rule, β = 1", OKABE_ITO[2], "D", "-"),
}


@bilingual
def _recall_label(label):
    """A method's legend entry (:data:`RECALL_STYLE`'s English) in the drawing language."""
    return {
        "softmax attention": word("softmax attention"),
        "linear attention, plain sum": word("linear attention, plain sum"),
        "linear attention, elu + 1": word("linear attention, elu + 1"),
        "delta rule, β = 1": word("delta rule, β = 1"),
    }.get(label) or word(label)


@bilingual
def plot_recall(panels, *, d_k):
    """Recall accuracy against the number of stored pairs N, one panel per sweep.

    Parameters
    ----------
    panels : dict of str to attn_book.recall.RecallSweep
        Panel title -> sweep; each method of the sweep is one line (:data:`RECALL_STYLE`),
        and the sweep's ``chance`` (a memory that guesses: 1/N, or 1/2N with rewrites) a
        grey dashed one.
    d_k : int
        The keys' width, drawn as a dotted vertical line: a d_k × d_v state.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per sweep, sharing the y axis (accuracy, 0 to 1), at most 6.8 in wide; one
        panel is 6 in wide.
    """
    # one panel is drawn 6 in wide, as the book's other one-panel figures (about 590 px at
    # the inline backend's dpi, which every figure shares), not 3.4 in (330 px)
    width = 6.0 if len(panels) == 1 else 3.4 * len(panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 3.2), sharey=True, squeeze=False)
    for ax, (title, sweep) in zip(axes[0], panels.items(), strict=True):
        for method, accuracy in sweep.accuracy.items():
            label, colour, marker, ls = RECALL_STYLE[method]
            ax.plot(
                sweep.n_pairs,
                accuracy,
                ls=ls,
                marker=marker,
                color=colour,
                label=_recall_label(label),
            )
        ax.plot(
            sweep.n_pairs, sweep.chance, color="grey", ls="--", lw=1, label=word("chance (a guess)")
        )
        ax.axvline(d_k, color="grey", ls=":", lw=1)
        ax.text(d_k, 0.08, f" N = dₖ = {d_k}", color="grey", fontsize=8)  # above chance
        ax.set(xlabel=word("pairs stored N"), title=word(title), ylim=(0, 1.03))
        ax.set_xscale("log", base=2)
        ax.set_xticks(sweep.n_pairs, [str(n) for n in sweep.n_pairs])
        ax.minorticks_off()
    axes[0][0].set_ylabel(word("recall accuracy"))
    fig.tight_layout()
    # one legend for all panels, under them: no curve runs through it, and its text is as
    # large as the ticks' (bbox_inches="tight" keeps it in the picture)
    lines = {}
    for ax in axes[0]:
        handles, labels = ax.get_legend_handles_labels()
        lines |= dict(zip(labels, handles, strict=True))
    fig.legend(
        lines.values(),
        lines.keys(),
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=2,
        fontsize=axes[0][0].get_xticklabels()[0].get_fontsize(),
        frameon=True,
        framealpha=1.0,
    )
    return fig
