"""Chapter 5's figures: attention over image patches, and token heatmaps with Hangul."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from attn_book.plots import plot_patch_attention, plot_token_heatmaps


def test_patch_attention_numbers_each_patch_where_it_sits():
    image = np.zeros((4, 6))  # 2 × 3 patches of 2 × 2
    weights = np.arange(6) / 15  # patch r * 3 + c gets (r * 3 + c) / 15
    fig = plot_patch_attention(image, 2, weights, selected=4)
    grid_axes = fig.axes[1]
    texts = {
        (round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
        for t in grid_axes.texts
    }
    assert texts[(1, 1)] == f"{4 / 15:.3f}"  # patch 4: row 1, column 1
    assert texts[(0, 2)] == f"{2 / 15:.3f}"
    assert fig.get_size_inches()[0] <= 6.8
    plt.close(fig)


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
