"""Chapter 12's figure: one line per method and panel, the sweep's numbers as drawn."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import matplotlib.pyplot as plt

from attn_book.plots import RECALL_STYLE, plot_recall
from attn_book.recall import RecallSweep


def _sweep(methods):
    ns = np.array([4, 16, 64])
    accuracy = {m: np.array([1.0, 0.5 + i / 10, 0.25]) for i, m in enumerate(methods)}
    return RecallSweep(ns, accuracy, dict(accuracy), 1 / ns)


def test_recall_draws_each_method_of_each_panel():
    panels = {"random keys": _sweep(["softmax", "linear"]), "rewrites": _sweep(["delta"])}
    fig = plot_recall(panels, d_k=16)
    left, right = fig.axes
    lines = [
        line
        for line in left.get_lines()
        if line.get_label() in {label for label, *_ in RECALL_STYLE.values()}
    ]
    assert [line.get_label() for line in lines] == [
        "softmax attention",
        "linear attention, plain sum",
    ]
    np.testing.assert_allclose(lines[1].get_ydata(), [1.0, 0.6, 0.25])
    np.testing.assert_allclose(lines[0].get_xdata(), [4, 16, 64])
    assert left.get_title() == "random keys" and right.get_title() == "rewrites"
    assert left.get_ylabel() == "recall accuracy" and right.get_xlabel() == "pairs stored N"
    assert fig.get_size_inches()[0] <= 6.8


def test_recall_draws_the_chance_of_a_guess_in_every_panel():
    rewritten = _sweep(["delta"])._replace(chance=np.array([1 / 8, 1 / 32, 1 / 128]))
    fig = plot_recall({"random keys": _sweep(["linear"]), "rewrites": rewritten}, d_k=16)
    for ax, want in zip(fig.axes, ([1 / 4, 1 / 16, 1 / 64], [1 / 8, 1 / 32, 1 / 128]), strict=True):
        (chance,) = [line for line in ax.get_lines() if line.get_label() == "chance (a guess)"]
        np.testing.assert_allclose(chance.get_ydata(), want)
        np.testing.assert_allclose(chance.get_xdata(), [4, 16, 64])


def test_every_recall_method_has_a_style():
    from attn_book.recall import METHODS

    assert set(RECALL_STYLE) == set(METHODS)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_recall_legend_is_as_large_as_the_ticks_and_crossed_by_no_curve(language):
    """Figures 12.1 and 12.3: the legend's text was 7 pt beside 10 pt ticks (about 7 px as
    the page shows the figure) and sat inside the panel, a curve and the N = dₖ line through
    it. Now one framed legend under the panels, its text the ticks' size."""
    from attn_book import i18n

    sweeps = (
        {"random keys, dₖ = 16": _sweep(["softmax", "linear", "linear_elu"])},
        {"random keys": _sweep(["softmax", "linear", "delta"]), "rewrites": _sweep(["delta"])},
    )
    for panels in sweeps:
        with i18n.drawing(language):
            fig = plot_recall(panels, d_k=16)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        (legend,) = fig.legends
        tick = fig.axes[0].get_xticklabels()[0].get_fontsize()
        assert {t.get_fontsize() for t in legend.get_texts()} == {tick}
        assert tick * fig.dpi / 72 >= 10  # px in the saved PNG
        assert legend.get_frame_on()
        box = legend.get_window_extent(renderer)
        assert not [ax for ax in fig.axes if box.overlaps(ax.get_window_extent(renderer))]
        labels = [t.get_text() for t in legend.get_texts()]
        assert (
            len(labels)
            == len(set(labels))
            == len({m for sweep in panels.values() for m in sweep.accuracy}) + 1
        )  # every method once, and chance
        plt.close(fig)


def test_the_legend_names_the_plain_sum_as_the_prose_does():
    """Figure 12.1: the legend said "φ = identity" where chapter 12 says "the plain sum"."""
    label = RECALL_STYLE["linear"][0]
    assert "plain sum" in label and "identity" not in label


def test_one_panel_is_drawn_as_wide_as_the_books_other_one_panel_figures():
    """Figure 12.1 was one panel 3.4 in wide, a 330 px raster; at the dpi every figure shares
    it is now 6 in (about 590 px, as chapters 2 and 3's one-panel figures), and two panels
    stay at most 6.8 in."""
    one = plot_recall({"random keys": _sweep(["softmax", "linear"])}, d_k=16)
    two = plot_recall({"a": _sweep(["linear"]), "b": _sweep(["delta"])}, d_k=16)
    assert one.get_size_inches()[0] == pytest.approx(6.0)
    assert one.get_size_inches()[0] * one.dpi >= 580
    assert two.get_size_inches()[0] <= 6.8
    plt.close(one)
    plt.close(two)
