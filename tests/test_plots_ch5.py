"""Chapter 5's figures: token heatmaps with Hangul."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from attn_book.plots import plot_token_heatmaps


def test_token_heatmaps_draw_a_non_square_matrix_with_its_tokens():
    weights = np.full((2, 3), 1 / 3)
    panel = {
        "matrix": weights,
        "rows": ["I", "ate"],
        "cols": ["나는", "사과를", "먹었다"],
        "title": "2 × 3",
    }
    fig = plot_token_heatmaps([panel], xlabel="key", ylabel="query")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["나는", "사과를", "먹었다"]
    assert ax.images[0].get_array().shape == (2, 3)
    assert fig.get_size_inches()[0] <= 6.8
    plt.close(fig)
