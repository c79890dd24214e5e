"""The figures of chapters 2 and 3 draw what they are given, with labelled axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pytest

from attn_book import i18n, plots
from attn_book.experiments import SaturationStats


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_weight_bars_draw_one_bar_per_key_and_set():
    fig = plots.plot_weight_bars(["a", "b", "c"], {"x": [0.2, 0.3, 0.5], "y": [0.1, 0.1, 0.8]})
    ax = fig.axes[0]
    heights = sorted(round(p.get_height(), 3) for p in ax.patches)
    assert heights == sorted([0.2, 0.3, 0.5, 0.1, 0.1, 0.8])
    assert ax.get_ylabel() == "weight"


def test_weight_bars_with_exp_of_mark_the_scores_on_a_curve_of_e_to_the_s():
    fig = plots.plot_weight_bars(["a", "b"], {"x": [0.5, 0.5]}, exp_of=[1.0, 2.0])
    bars, curve = fig.axes
    assert len(bars.patches) == 2 and curve.get_xlabel() == "score s"
    line, points = curve.lines
    np.testing.assert_allclose(points.get_ydata(), [2.718281828, 7.389056099])  # e, e²
    x, y = line.get_data()
    assert x[0] <= 0 and x[-1] >= 2 and np.allclose(np.log(y), x)  # the curve is eˢ itself
    assert [t.get_text() for t in curve.texts] == ["2.718", "7.389"]
    assert len(plots.plot_weight_bars(["a"], {"x": [1.0]}).axes) == 1  # without: bars alone


def test_temperature_draws_one_line_per_key_plus_uniform():
    w = np.array([[0.7, 0.3], [0.5, 0.5]])
    fig = plots.plot_temperature([0.1, 10.0], w, ["s1", "s2"])
    ax = fig.axes[0]
    assert len(ax.lines) == 3  # two keys and the uniform 1/S line
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.7, 0.5])
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "temperature T"


def test_jacobian_norm_draws_the_weight_and_the_norm_on_a_log_axis():
    fig = plots.plot_jacobian_norm([0, 1, 2], [0.5, 0.3, 1e-5], [0.4, 0.6, 0.9])
    weight_ax, norm_ax = fig.axes
    assert [list(line.get_ydata()) for line in weight_ax.lines] == [[0.4, 0.6, 0.9]]
    assert [list(line.get_ydata()) for line in norm_ax.lines] == [[0.5, 0.3, 1e-5]]
    assert norm_ax.get_yscale() == "log" and weight_ax.get_yscale() == "linear"


def test_score_variance_is_log_log_with_both_simulations():
    fig = plots.plot_score_variance([1, 2, 4], [1.1, 2.0, 3.9], [1.0, 0.9, 1.1])
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [line.get_label() for line in ax.lines] == [
        "theory: dₖ",
        "q·k (simulated)",
        "theory: 1",
        "q·k / √dₖ (simulated)",
    ]
    assert ax.get_xlabel() == "$d_k$"  # mathtext, rendered as d with subscript k
    fig.canvas.draw()  # the mathtext parses


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plots.plot_score_variance([1, 2, 4], [1.1, 2.0, 3.9], [1.0, 0.9, 1.1]),
        lambda: plots.plot_saturation(
            [1, 512], *[SaturationStats(*np.array([[0.3, 0.9], [1.0, 0.2], [0.3, 0.1]]))] * 2, 4
        ),
    ],
    ids=["score_variance", "saturation"],
)
def test_the_korean_figures_have_every_glyph(draw, caplog):
    """A label with a Korean word and mathtext drew the word as empty boxes (mathtext takes
    the family's first font, with no fallback): matplotlib logs each missing glyph."""
    with i18n.drawing("ko"):
        fig = draw()
    fig.canvas.draw()
    missing = [r.getMessage() for r in caplog.records if "glyph" in r.getMessage()]
    texts = "".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))
    assert any("가" <= ch <= "힣" for ch in texts), "the figure drew no Korean at all"
    assert not missing, missing[:3]


def test_saturation_has_three_panels_with_both_cases():
    stats = SaturationStats(np.array([0.3, 0.9]), np.array([1.0, 0.2]), np.array([0.3, 0.1]))
    fig = plots.plot_saturation([1, 512], stats, stats, n_keys=4)
    assert len(fig.axes) == 3
    assert [ax.get_title() for ax in fig.axes] == ["largest weight", "entropy (nats)", "‖Jacobian‖"]
    assert all(ax.get_xlabel() == "$d_k$" for ax in fig.axes)
    fig.canvas.draw()
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), [1.0, 0.2])


def test_chapter_3_draws_unscaled_and_scaled_in_the_explorers_colours():
    """One colour code for the chapter: Figs 3.1 and 3.2 draw q·k and q·k/√dₖ in the hex
    colours the scaling explorer's JavaScript draws them in (read from its source)."""
    import re
    from pathlib import Path

    import attn_book

    js = (Path(attn_book.__file__).parent / "widgets/src/scaling_explorer.js").read_text("utf-8")
    raw = re.search(r'const RAW = "(#[0-9A-Fa-f]{6})"', js).group(1)
    scaled = re.search(r'const SCALED = "(#[0-9A-Fa-f]{6})"', js).group(1)
    assert raw != scaled
    stats = SaturationStats(np.array([0.3, 0.9]), np.array([1.0, 0.2]), np.array([0.3, 0.1]))
    variance = plots.plot_score_variance([1, 2, 4], [1.1, 2.0, 3.9], [1.0, 0.9, 1.1]).axes[0]
    drawn = {line.get_label(): line.get_color() for line in variance.lines}
    assert drawn["q·k (simulated)"].lower() == raw.lower()
    assert drawn["q·k / √dₖ (simulated)"].lower() == scaled.lower()
    for ax in plots.plot_saturation([1, 512], stats, stats, n_keys=4).axes:
        assert [line.get_color().lower() for line in ax.lines[:2]] == [raw.lower(), scaled.lower()]
