"""Static PNG snapshots of the interactive figures, for notebooks opened without running them.

An untrusted notebook in JupyterLab does not render a widget view, but it does show an
``image/png`` output. Each function here draws one figure's *current state* (its traits)
with matplotlib and returns the PNG bytes; :func:`snapshot_png` picks the right one.

matplotlib is imported lazily, inside the functions, and only through its object API
(``Figure`` + the Agg canvas): no pyplot state, no backend switch in the reader's kernel.
Every PNG is at most 680 px wide (the book's text column, at 100 dpi) and byte-for-byte
the same on a re-run (no ``Software`` metadata, fixed sizes, no timestamps).

Korean tokens need a font with Hangul. The first of :data:`HANGUL_FONTS` that matplotlib
knows is used, else the book's own Noto Sans KR subset (the one the figures' CSS carries).
With none, Hangul syllables are romanised (:func:`romanise`) rather than drawn as boxes.
"""

from __future__ import annotations

import functools
import io
import math
import re
from pathlib import Path

import numpy as np

__all__ = [
    "HANGUL_FONTS",
    "hangul_font",
    "heatmap_png",
    "memory_calculator_png",
    "query_pad_png",
    "romanise",
    "scaling_explorer_png",
    "snapshot_png",
    "softmax_bars_png",
]

DPI = 100
WIDTH_IN = 6.8  # 680 px at DPI: the text column
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442")
RAW, SCALED = "#D55E00", "#0072B2"  # ScalingExplorer's colours: without / with 1/sqrt(d_k)
MASKED = "#e8e8e8"  # AttentionHeatmap's masked (causal) cell
HANGUL_FONTS = ("NanumGothic", "Noto Sans CJK KR", "Noto Sans KR", "UnDotum", "Baekmuk Gulim")
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


# ---------------------------------------------------------------- text and fonts


def _num(x, digits=3):
    """``x`` with ``digits`` decimals, no "-0.000"."""
    return f"{round(float(x), digits) + 0.0:.{digits}f}"


def _pair(v):
    return f"({_num(v[0])}, {_num(v[1])})"


def _sub(name, j):
    """``name`` with the 1-based subscript ``j + 1``: ``_sub("k", 0) == "k₁"``."""
    return f"{name}{str(j + 1).translate(_SUB)}"


_INITIALS = "g kk n d tt r m b pp s ss - j jj ch k t p h".split()
_MEDIALS = "a ae ya yae eo e yeo ye o wa wae oe yo u wo we wi yu eu ui i".split()
_FINALS = ["", *"k k k n n n t l k m l l l p l m p p t t ng t t k t p t".split()]


def romanise(text):
    """Hangul syllables in ``text`` spelled in Latin letters (Revised Romanization, per syllable).

    Each syllable is romanised on its own (no sound changes across syllables); any
    other character is kept.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> romanise("나는 사과를 먹었다")
    'naneun sagwareul meokeotda'
    """
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00  # syllable = (initial * 21 + medial) * 28 + final
        if not 0 <= code < 11172:
            out.append(ch)
            continue
        initial, medial, final = code // 588, code % 588 // 28, code % 28
        out.append(_INITIALS[initial].strip("-") + _MEDIALS[medial] + _FINALS[final])
    return "".join(out)


def _has_hangul(text):
    return any(0xAC00 <= ord(ch) < 0xAC00 + 11172 or 0x1100 <= ord(ch) < 0x1200 for ch in text)


@functools.lru_cache(maxsize=1)
def hangul_font():
    """The family name of a font with Hangul that matplotlib can use, or None.

    Looks for :data:`HANGUL_FONTS` among matplotlib's fonts, else registers the book's
    own Noto Sans KR subset, the one the interactive figures' CSS carries
    (``hangul_font.css``, every Hangul the figures and the book's plots show): its
    WOFF is written out as a TrueType file with fontTools, which matplotlib brings.
    """
    from matplotlib import font_manager

    known = {f.name for f in font_manager.fontManager.ttflist}
    for name in HANGUL_FONTS:
        if name in known:
            return name
    path = _shipped_font_as_ttf()
    if path is None:
        return None
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def _shipped_font_as_ttf():
    """``hangul_font.css``'s font as a .ttf in the temporary folder, or None without one."""
    import base64
    import hashlib
    import tempfile
    from importlib.resources import files

    css = files(__package__).joinpath("hangul_font.css").read_text(encoding="utf-8")
    found = re.search(r"base64,([A-Za-z0-9+/=]+)", css)
    if found is None:
        return None
    woff = base64.b64decode(found.group(1))
    path = Path(tempfile.gettempdir()) / f"attn-book-hangul-{hashlib.sha1(woff).hexdigest()}.ttf"
    if not path.is_file():
        from fontTools.ttLib import TTFont  # a dependency of matplotlib

        font = TTFont(io.BytesIO(woff))
        font.flavor = None  # WOFF -> plain TrueType, which FreeType reads
        font.save(str(path))
    return path


def _bilingual(english, korean):
    """``"english (korean)"``, or just ``english`` when no Hangul font exists."""
    return f"{english} ({korean})" if hangul_font() is not None else english


def _token(text):
    """A token as drawn: itself, or romanised when no Hangul font exists."""
    return text if hangul_font() is not None or not _has_hangul(text) else romanise(text)


# ---------------------------------------------------------------- figure and PNG


def _figure(height_in):
    """A new matplotlib Figure, :data:`WIDTH_IN` wide and ``height_in`` tall, at :data:`DPI`."""
    from matplotlib.figure import Figure

    return Figure(figsize=(WIDTH_IN, height_in), dpi=DPI, layout="constrained")


def _png(fig):
    """The figure as a 256-colour PNG: deterministic (no metadata), exactly its own size.

    The palette makes a snapshot 2-3 times smaller than matplotlib's RGBA PNG, with no
    difference to see at this size.
    """
    from PIL import Image

    rendered = io.BytesIO()
    fig.savefig(rendered, format="png", dpi=DPI, metadata={"Software": None})
    with Image.open(rendered) as image:
        palette = image.convert("RGB").quantize(256)
    buf = io.BytesIO()
    palette.save(buf, format="png", optimize=True)
    return buf.getvalue()


def _snapshot(draw):
    """Make ``draw(widget) -> Figure`` return PNG bytes, drawn in the snapshots' style.

    The fonts are set around the drawing too, since a text takes its font when created:
    DejaVu Sans, falling back to the Hangul font for Korean.
    """

    @functools.wraps(draw)
    def render(widget):
        import matplotlib

        families = ["DejaVu Sans"] + ([hangul_font()] if hangul_font() else [])
        with matplotlib.rc_context({"font.family": families, "font.size": 9}):
            return _png(draw(widget))

    return render


# ---------------------------------------------------------------- QueryPad


@_snapshot
def query_pad_png(pad):
    """The QueryPad's plane and its weights as bars, at the pad's current state.

    Parameters
    ----------
    pad : QueryPad
        Read: ``query`` (2,), ``key_vectors`` (S, 2), ``value_vectors`` (S, 2),
        ``weights`` (S,), ``output`` (2,), ``dots`` (S,), ``scores`` (S,),
        ``scaled``, ``temperature``.

    Returns
    -------
    bytes
        A PNG, 680 × 340 px.
    """
    fig = _figure(3.4)
    plane, bars = fig.subplots(1, 2, width_ratios=(1.1, 1))
    _draw_plane(plane, pad)
    _draw_weight_bars(bars, pad)
    return fig


def _draw_plane(ax, pad):
    """Keys (arrows ending in dots), values (squares), the query q and the output o."""
    q, out = np.asarray(pad.query), np.asarray(pad.output)  # [2], [2]
    keys, values = np.asarray(pad.key_vectors), np.asarray(pad.value_vectors)  # [S, 2] each
    reach = max(2.5, float(np.abs(np.vstack([keys, values, [q, out]])).max()) + 0.3)
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal")
    ax.grid(alpha=0.3)
    ax.axhline(0, color="grey", lw=0.6)
    ax.axvline(0, color="grey", lw=0.6)
    with_values = "values" in _shown(pad)
    labels = []
    for j, (k, v) in enumerate(zip(keys, values, strict=True)):
        colour = OKABE_ITO[j % len(OKABE_ITO)]
        _vector(ax, k, colour, lw=2.5)
        ax.scatter(*k, s=45, color=colour, edgecolor="white", zorder=4)
        labels.append((_sub("k", j), k, colour))
        if with_values:
            ax.scatter(*v, s=60, marker="s", facecolor="white", edgecolor=colour, lw=2, zorder=3)
            labels.append((_sub("v", j), v, colour))
    if with_values:
        _vector(ax, out, "#555555", lw=2, ls=(0, (1, 1.5)))
    _vector(ax, q, "black", lw=1.8, ls="--")
    ax.scatter(*q, s=80, color="black", edgecolor="white", zorder=5)
    labels = [("q", q, "black"), *labels] + [("o", out, "#555555")] * with_values
    _place_labels(ax, labels, reach)
    title = f"q = {_pair(q)}" + f"    o = Σ w·v = {_pair(out)}" * with_values
    ax.set_title(title, fontsize=9)


def _shown(pad):
    """The parts of the pad on show (QueryPad.show), all of them for an older pad."""
    return set(getattr(pad, "show", ("weights", "scale", "temperature", "values")))


def _vector(ax, v, colour, **line):
    """An arrow from the origin to ``v`` (2,)."""
    style = {"arrowstyle": "-|>", "color": colour, "shrinkA": 0, "shrinkB": 0, **line}
    ax.annotate("", tuple(v), (0, 0), arrowprops=style, zorder=2)


def _place_labels(ax, labels, reach):
    """Write each label beyond its point, turning until clear of the labels and points so far.

    ``labels`` is a list of (text, point (2,), colour); distances are in data units.
    """
    placed, points = [], [p for _, p, _ in labels]
    gap, room = 0.1 * reach, 0.11 * reach
    for text, p, colour in labels:
        spot = _free_spot(p, placed, points, gap, room, reach)
        ax.text(*spot, text, color=colour, fontsize=10, ha="center", va="center", zorder=6)
        placed.append(spot)


def _free_spot(p, placed, points, gap, room, reach):
    """The first spot round ``p`` (outward first, then ±45°, ±90°, ...) clear of the others."""
    base = math.atan2(p[1], p[0]) if np.hypot(*p) > 1e-9 else -math.pi / 4
    for radius in (gap, 2 * gap):
        for turn in (0, 1, -1, 2, -2, 3, -3, 4):
            a = base + turn * math.pi / 4
            spot = np.array([p[0] + radius * math.cos(a), p[1] + radius * math.sin(a)])
            others = [x for x in points if not np.array_equal(x, p)]
            if (
                np.abs(spot).max() < reach - 0.05 * reach
                and all(np.hypot(*(spot - s)) > room for s in placed)
                and all(np.hypot(*(spot - x)) > 0.8 * gap for x in others)
            ):
                return spot
    return np.array([p[0] + gap, p[1] + gap])


def _draw_weight_bars(ax, pad):
    """One horizontal bar per key: its weight, labelled with 3 decimals, and q·k beside it.

    Chapter 1's pad shows no weights yet (``show=()``): then the bars are the dot products
    and the cosines, the two numbers that pad shows.
    """
    if "weights" not in _shown(pad):
        _draw_dot_bars(ax, pad)
        return
    weights = np.asarray(pad.weights)  # [S]
    rows = np.arange(len(weights))
    colours = [OKABE_ITO[j % len(OKABE_ITO)] for j in rows]
    bars = ax.barh(rows, weights, color=colours, height=0.7)
    ax.bar_label(bars, labels=[_num(w) for w in weights], padding=3, fontsize=9)
    ticks = [f"{_sub('k', j)}  q·k = {_num(d)}" for j, d in enumerate(pad.dots)]
    ax.set(yticks=rows, yticklabels=ticks, xlim=(0, 1.18), xlabel=_bilingual("weight", "가중치"))
    ax.invert_yaxis()
    ax.spines[["top", "right"]].set_visible(False)
    scale = f"× 1/√{len(pad.query)}" if pad.scaled else "scale off"
    ax.set_title(f"softmax of q·k {scale}, T = {pad.temperature:g}", fontsize=9)


def _draw_dot_bars(ax, pad):
    """One horizontal bar per key: q·k, labelled, with cos θ beside it."""
    dots = np.asarray(pad.dots)  # [S]
    rows = np.arange(len(dots))
    colours = [OKABE_ITO[j % len(OKABE_ITO)] for j in rows]
    bars = ax.barh(rows, dots, color=colours, height=0.7)
    ax.bar_label(bars, labels=[_num(d) for d in dots], padding=3, fontsize=9)
    ticks = [f"{_sub('k', j)}  cos θ = {_num(c)}" for j, c in enumerate(pad.cosines)]
    reach = max(1.0, float(np.abs(dots).max())) * 1.3
    ax.set(yticks=rows, yticklabels=ticks, xlim=(min(0.0, -reach), reach), xlabel="q·k")
    ax.axvline(0, color="grey", lw=0.6)
    ax.invert_yaxis()
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("dot products q·k", fontsize=9)


# ---------------------------------------------------------------- SoftmaxBars


@_snapshot
def softmax_bars_png(bars):
    """SoftmaxBars: the score bars (plus the shift) and the weight bars, side by side.

    Parameters
    ----------
    bars : SoftmaxBars
        Read: ``scores`` (S,), ``shift``, ``temperature``, ``weights`` (S,),
        ``naive_weights`` (S,; None where the naive formula overflows), ``entropy``.

    Returns
    -------
    bytes
        A PNG, 680 × 260 px.
    """
    fig = _figure(2.6)
    left, right = fig.subplots(1, 2)
    names = [_sub("s", j) for j in range(len(bars.scores))]
    colours = [OKABE_ITO[j % len(OKABE_ITO)] for j in range(len(names))]
    shift = f" + {bars.shift:g}" if bars.shift else ""
    _bar_panel(left, names, bars.scores, colours, f"scores{shift}", digits=2)
    left.set_ylim(min(-4.0, min(bars.scores) - 0.5), max(6.0, max(bars.scores) + 0.8))
    _bar_panel(right, names, bars.weights, colours, "weights (softmax)", digits=3)
    right.set_ylim(0, 1.12)
    note = f"T = {bars.temperature:g}, entropy {_num(bars.entropy)} nats"
    if any(w is None for w in bars.naive_weights):
        note += "; the naive exp(s)/Σexp(s) overflows: NaN"
    right.set_title(f"weights (softmax)\n{note}", fontsize=8)
    return fig


def _bar_panel(ax, names, heights, colours, title, digits):
    """Vertical bars labelled with their values, a zero line and a title."""
    drawn = ax.bar(names, heights, color=colours, width=0.65)
    ax.bar_label(drawn, labels=[_num(h, digits) for h in heights], padding=2, fontsize=8)
    ax.axhline(0, color="grey", lw=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=9)


# ---------------------------------------------------------------- ScalingExplorer


@_snapshot
def scaling_explorer_png(explorer):
    """ScalingExplorer: the histogram of q·k with and without 1/√d_k at the current d_k.

    Parameters
    ----------
    explorer : ScalingExplorer
        Read: ``hist_edges`` (B + 1,), ``current`` (the row for ``d_k``: ``raw`` and
        ``scaled`` each with ``hist`` (B,), ``std``, ``max_weight``, ``entropy``),
        ``table`` and ``dims`` (for the largest-weight curve), ``n_keys``.

    Returns
    -------
    bytes
        A PNG, 680 × 280 px.
    """
    fig = _figure(2.8)
    hist, curve = fig.subplots(1, 2, width_ratios=(1.4, 1))
    edges, row = np.asarray(explorer.hist_edges), explorer.current  # [B + 1]
    for name, colour, label, alpha in (
        ("raw", RAW, "q·k", 0.55),
        ("scaled", SCALED, "q·k / √dₖ", 0.8),
    ):
        stats = row[name]
        text = f"{label}\nstd {stats['std']:.2f}\ntop weight {stats['max_weight']:.2f}"
        hist.stairs(stats["hist"], edges, fill=True, color=colour, alpha=alpha, label=text)
    hist.set(xlim=(edges[0], edges[-1]), xlabel="score", ylabel="fraction of scores")
    hist.set_title(f"dₖ = {row['d_k']}: {explorer.n_keys} keys per query", fontsize=9)
    hist.legend(frameon=False, fontsize=7.5, loc="upper left")
    _largest_weight_curve(curve, explorer)
    return fig


def _largest_weight_curve(ax, explorer):
    """The mean largest weight against d_k (log 2 axis), the current d_k marked."""
    dims = np.asarray(explorer.dims)  # [D]
    for name, colour in (("raw", RAW), ("scaled", SCALED)):
        values = [r[name]["max_weight"] for r in explorer.table]  # [D]
        ax.plot(dims, values, "o-", color=colour, ms=3, lw=1.5)
        now = explorer.current[name]["max_weight"]
        ax.scatter(explorer.d_k, now, s=50, color=colour, edgecolor="black", zorder=3)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="dₖ", ylim=(0, 1.02), title="largest weight (mean)")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3)


# ---------------------------------------------------------------- AttentionHeatmap


@_snapshot
def heatmap_png(heatmap):
    """AttentionHeatmap: the weights of the current head, tokens on the axes, a row selected.

    Parameters
    ----------
    heatmap : AttentionHeatmap
        Read: ``weights`` (L, S), ``query_tokens`` (L,), ``key_tokens`` (S,) or None,
        ``selected``, ``head``, ``n_heads``, ``causal``, ``scaled``, ``temperature``.

    Returns
    -------
    bytes
        A PNG, 680 px wide; taller for longer sentences (at most 520 px).
    """
    weights = np.asarray(heatmap.weights)  # [L, S]
    n_rows, n_cols = weights.shape
    fig = _figure(min(5.2, 1.6 + 0.42 * n_rows))
    ax, row_bars = fig.subplots(1, 2, width_ratios=(1.6, 1))
    masked = np.triu(np.ones_like(weights, dtype=bool), k=1) if heatmap.causal else None
    image = ax.imshow(np.ma.masked_array(weights, masked), cmap=_viridis(), vmin=0, vmax=1)
    if n_rows <= 10 and n_cols <= 10:
        _cell_numbers(ax, weights, masked)
    keys = heatmap.query_tokens if heatmap.key_tokens is None else heatmap.key_tokens
    ax.set_xticks(range(n_cols), [_token(s) for s in keys], rotation=0 if n_cols <= 8 else 90)
    ax.set_yticks(range(n_rows), [_token(s) for s in heatmap.query_tokens])
    ax.set(xlabel=_bilingual("keys", "키"), ylabel=_bilingual("queries", "쿼리"))
    _highlight_row(ax, heatmap.selected, n_cols)
    fig.colorbar(image, ax=ax, label=_bilingual("weight", "가중치"), shrink=0.9)
    fig.suptitle(_heatmap_title(heatmap), fontsize=9)
    selected = heatmap.selected
    _selected_row_bars(row_bars, weights[selected], keys, heatmap.query_tokens[selected])
    return fig


def _selected_row_bars(ax, row, keys, query):
    """The selected query's weights (S,) as horizontal bars, one per key token."""
    places = np.arange(len(keys))
    drawn = ax.barh(places, row, color=_viridis()(row), edgecolor="grey", lw=0.5, height=0.7)
    if len(keys) <= 16:
        ax.bar_label(drawn, labels=[_num(w) for w in row], padding=2, fontsize=8)
    ax.set(yticks=places, yticklabels=[_token(s) for s in keys], xlim=(0, 1.25))
    ax.invert_yaxis()
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(f"query “{_token(query)}” attends to:", fontsize=9)


def _viridis():
    import matplotlib

    return matplotlib.colormaps["viridis"].with_extremes(bad=MASKED)  # masked cells: grey


def _cell_numbers(ax, weights, masked):
    """Each visible weight in its cell with 3 decimals, black on light cells, white on dark."""
    for (i, j), w in np.ndenumerate(weights):
        if masked is None or not masked[i, j]:
            colour = "black" if w > 0.55 else "white"
            ax.text(j, i, _num(w), ha="center", va="center", color=colour, fontsize=8)


def _highlight_row(ax, row, n_cols):
    """A red outline round the selected query row (Okabe–Ito vermillion)."""
    from matplotlib.patches import Rectangle

    box = Rectangle((-0.5, row - 0.5), n_cols, 1, fill=False, ec=RAW, lw=2.5, clip_on=False)
    ax.add_patch(box)
    ax.get_yticklabels()[row].set_color(RAW)


def _heatmap_title(heatmap):
    parts = [f"head {heatmap.head + 1} of {heatmap.n_heads}"]
    parts.append("scaled 1/√(head width)" if heatmap.scaled else "unscaled")
    if heatmap.temperature != 1.0:
        parts.append(f"T = {heatmap.temperature:g}")
    if heatmap.causal:
        parts.append("causal mask (grey: masked)")
    return ", ".join(parts)


# ---------------------------------------------------------------- MemoryCalculator


def _bytes_label(n_bytes):
    """``n_bytes`` in binary units with 3 significant digits, as attn_math.fmtBytes writes it."""
    units, value = ("B", "KiB", "MiB", "GiB", "TiB", "PiB"), float(n_bytes)
    i = 0
    while value >= 1024 and i < len(units) - 1:
        value, i = value / 1024, i + 1
    return f"{int(value)} B" if i == 0 else f"{value:#.3g} {units[i]}"


def _short_bytes(n_bytes):
    """:func:`_bytes_label` without trailing zeros: "16 GiB", "32 MiB"."""
    return re.sub(r"\.0+ ", " ", _bytes_label(n_bytes))


@_snapshot
def memory_calculator_png(calc):
    """The weights' bytes as a bar on a log axis, with the devices and the 32k/128k marks.

    With ``calc.kv_cache`` a second bar, the KV cache, sits under the weights' bar, and the
    marks show where the KV cache lands at 32k and 128k tokens.
    """
    import attn_core

    fig = _figure(2.4 if calc.kv_cache else 1.9)
    ax = fig.add_subplot()
    bars = [("attention weights, n² per head, one layer", calc.weight_bytes, SCALED)]
    if calc.kv_cache:
        bars.append(("KV cache, every layer", calc.kv_cache_bytes, OKABE_ITO[2]))
    for row, (label, n_bytes, colour) in enumerate(bars):
        y = -1.1 * row  # the first bar on top
        ax.barh([y], [n_bytes], left=2**20, height=0.5, color=colour)
        if calc.kv_cache:
            ax.text(2**20 * 1.3, y + 0.3, label, fontsize=8, va="bottom")
    top = 0.8 if not calc.kv_cache else 1.1
    for i, device in enumerate(calc.devices):  # the first label left of its line, then right
        ax.axvline(device["bytes"], color=RAW, ls="--", lw=1.5)
        side, gap = ("right", 0.9) if i % 2 == 0 else ("left", 1.1)
        label = f"{device['name']}, {_short_bytes(device['bytes'])}"
        ax.text(device["bytes"] * gap, top - 0.25, label, color=RAW, ha=side, fontsize=8)
    bottom = -1.1 * (len(bars) - 1)
    for n in calc.contexts:
        cost = attn_core.attention_cost(calc.batch, calc.heads, n, n, 1, calc.dtype)
        shape = (calc.layers, calc.kv_heads, calc.d_head, n, calc.dtype)
        at = (
            attn_core.kv_cache_bytes(*shape, batch=calc.batch)
            if calc.kv_cache
            else cost.score_bytes
        )
        ax.plot([at], [bottom - 0.35], "k^", ms=6)
        ax.text(at, bottom - 0.75, f"{n // 1024}k", ha="center", fontsize=8)
    ticks = [2.0**p for p in range(20, 47, 5)]
    ax.set(xscale="log", xlim=(2**20, 2**46), ylim=(bottom - 1, top), yticks=[], xticks=ticks)
    ax.set_xticklabels([_short_bytes(b) for b in ticks])
    ax.spines[["top", "right", "left"]].set_visible(False)
    itemsize = attn_core.attention_cost(1, 1, 1, 1, 1, calc.dtype).score_bytes
    title = (
        f"{calc.batch} × {calc.heads} × {calc.n:,}² × {itemsize} B = "
        f"{_bytes_label(calc.weight_bytes)} ({calc.dtype})"
    )
    if calc.kv_cache:
        title += (
            f"; KV cache 2 × {calc.batch} × {calc.layers} × {calc.kv_heads} × {calc.d_head} × "
            f"{calc.n:,} × {itemsize} B = {_bytes_label(calc.kv_cache_bytes)}"
        )
    ax.set_title(title, fontsize=9 if not calc.kv_cache else 7.5)
    return fig


# ---------------------------------------------------------------- dispatcher


def snapshot_png(widget):
    """The PNG snapshot of ``widget``'s current state, or None if it is not one of the figures.

    Parameters
    ----------
    widget : object
        A QueryPad, SoftmaxBars, ScalingExplorer, AttentionHeatmap or MemoryCalculator
        (subclasses too).

    Returns
    -------
    bytes or None

    Examples
    --------
    >>> snapshot_png(object()) is None
    True
    """
    from . import AttentionHeatmap, MemoryCalculator, QueryPad, ScalingExplorer, SoftmaxBars

    drawers = (
        (QueryPad, query_pad_png),
        (SoftmaxBars, softmax_bars_png),
        (ScalingExplorer, scaling_explorer_png),
        (AttentionHeatmap, heatmap_png),
        (MemoryCalculator, memory_calculator_png),
    )
    for kind, draw in drawers:
        if isinstance(widget, kind):
            return draw(widget)
    return None
