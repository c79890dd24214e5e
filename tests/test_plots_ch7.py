"""Chapter 7's heatmaps: the numbers drawn are the matrix's, masked cells carry none."""

import matplotlib

matplotlib.use("Agg")

import numpy as np

from attn_book.plots import plot_heatmaps


def test_heatmaps_number_every_visible_cell_and_fit_the_page():
    weights = np.array([[1.0, 0.0], [0.25, 0.75]])
    hidden = np.array([[False, True], [False, False]])
    panels = [
        {"matrix": weights, "title": "a", "rows": ["x", "y"], "cols": ["x", "y"], "hidden": hidden},
        {
            "matrix": weights > 0.5,
            "title": "b",
            "rows": ["x", "y"],
            "cols": ["x", "y"],
            "digits": 0,
        },
    ]
    fig = plot_heatmaps(panels)
    texts = [[t.get_text() for t in ax.texts] for ax in fig.axes[:2]]
    assert texts[0] == ["1.00", "0.25", "0.75"]  # the hidden cell (0, 1) has no number
    assert texts[1] == ["1", "0", "0", "1"]
    assert fig.get_figwidth() <= 6.8
    assert fig.axes[0].get_xlabel() == "key" and fig.axes[0].get_ylabel() == "query"
    labelled = [
        [t.get_text() for t in ax.get_yticklabels() if t.get_visible()] for ax in fig.axes[:2]
    ]
    assert fig.axes[1].yaxis.get_tick_params()["labelleft"] is False  # same rows: written once
    assert labelled[0] == ["x", "y"]
