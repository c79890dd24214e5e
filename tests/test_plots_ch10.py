"""Chapter 10's timing figure: the fit over the fitted lengths, slope 1 over all of them, and
the length at which the cache fills the last-level cache."""

import itertools

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from attn_book.plots import plot_decode_time


def test_decode_time_marks_where_the_cache_equals_the_last_level_cache():
    ns = [1024, 2048, 4096, 8192]
    seconds = [1e-4, 2e-4, 2e-3, 4e-3]  # a tenfold jump from 2048 to 4096, then slope 1
    cache = [4 * 2**20 * n / 1024 for n in ns]  # 4 MiB per 1024 positions
    fig = plot_decode_time(
        ns, seconds, slope=1.0, fit_from=4096, cache_bytes=cache, llc_bytes=32 * 2**20
    )
    (ax,) = fig.axes
    points, fit, predicted, llc = ax.get_lines()
    np.testing.assert_allclose(points.get_ydata(), [0.1, 0.2, 2.0, 4.0])  # ms
    np.testing.assert_allclose(fit.get_xdata(), [4096, 8192])
    # through the mean of the fitted points: n = 4096·√2, t = √(2·4) ms, slope 1
    np.testing.assert_allclose(fit.get_ydata(), [2.0, 4.0])
    np.testing.assert_allclose(predicted.get_ydata(), [0.5, 1.0, 2.0, 4.0])
    assert llc.get_xdata()[0] == 8192  # 32 MiB at 4 MiB per 1024 positions
    assert fig.get_size_inches()[0] <= 6.8


def test_decode_time_without_a_known_cache_size_draws_no_marker():
    fig = plot_decode_time(
        [1024, 2048], [1e-3, 2e-3], slope=1.0, fit_from=1024, cache_bytes=[1.0, 2.0]
    )
    assert len(fig.axes[0].get_lines()) == 3


def _alignment_panels(cols):
    mask = np.tril(np.ones((2, len(cols)), dtype=bool), k=len(cols) - 2)
    panel = {"matrix": np.full((2, len(cols)), 0.5), "hidden": ~mask, "rows": cols[-2:]}
    return [panel | {"cols": cols, "title": title} for title in ("left", "right")]


def test_crowded_hangul_column_labels_are_staggered_and_do_not_touch():
    """Figure 10.3: six Hangul words under each of two panels ran together (사과를먹었다그리고);
    every other label drops a line, so neighbours are apart and none turns on its side."""
    from attn_book.plots import plot_token_heatmaps

    tokens = ["나는", "사과를", "먹었다", "그리고", "배를", "샀다"]
    fig = plot_token_heatmaps(_alignment_panels(tokens), xlabel="key", ylabel="new query")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes[:2]:
        labels = ax.get_xticklabels()
        assert [t.get_text() for t in labels] == tokens
        assert {t.get_rotation() for t in labels} == {0.0}
        boxes = [t.get_window_extent(renderer) for t in labels]
        for a, b in itertools.pairwise(boxes):  # neighbours overlap neither across nor down
            assert a.x1 < b.x0 or a.y1 < b.y0 or b.y1 < a.y0
        lows = [b.y0 for b in boxes]  # pixels; a word's box depends a little on its glyphs
        line = boxes[0].height
        assert lows[1] < lows[0] - 0.8 * line and abs(lows[2] - lows[0]) < 0.1 * line


def test_hangul_column_labels_with_room_stay_on_one_line():
    from attn_book.plots import plot_token_heatmaps

    tokens = ["나는", "사과를", "먹었다"]
    fig = plot_token_heatmaps(_alignment_panels(tokens), xlabel="key", ylabel="new query")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in fig.axes[0].get_xticklabels()]
    assert max(b.y0 for b in boxes) - min(b.y0 for b in boxes) < 0.1 * boxes[0].height
