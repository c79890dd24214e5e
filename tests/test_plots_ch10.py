"""Chapter 10's timing figure: the fit over the fitted lengths, slope 1 over all of them, and
the length at which the cache fills the last-level cache."""

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
