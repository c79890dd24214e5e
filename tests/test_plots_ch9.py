"""Chapter 9's figure: the fitted line over the fitted sizes, the predicted slope over all."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from attn_book.plots import plot_cost_scaling


def test_cost_scaling_draws_the_fit_and_the_model():
    ns = [128, 256, 512]
    fig = plot_cost_scaling(
        ns, [1e-3, 4e-3, 16e-3], [1e5, 4e5, 16e5], slope=2.0, model_bytes=[4 * n * n for n in ns]
    )
    ax_t, ax_m = fig.axes
    fit = ax_t.get_lines()[1].get_ydata()
    np.testing.assert_allclose(fit, [1.0, 4.0, 16.0])  # ms: 16 · (n / 512)², by hand
    np.testing.assert_allclose(ax_t.get_lines()[2].get_ydata(), [1.0, 4.0, 16.0])  # slope 2
    np.testing.assert_allclose(ax_m.get_lines()[1].get_ydata(), [0.0625, 0.25, 1.0])  # MiB
    assert fig.get_size_inches()[0] <= 6.8
    assert ax_t.get_xlabel() == "sequence length n" and ax_m.get_ylabel() == "memory (MiB)"


def test_cost_scaling_fits_from_fit_from_and_draws_the_predicted_slope_everywhere():
    ns = [128, 256, 512, 1024]
    seconds = [5e-3, 5e-3, 4e-3, 16e-3]  # a noisy start; from 512 on, 4 and 16 ms
    fig = plot_cost_scaling(ns, seconds, [1.0] * 4, slope=1.0, model_bytes=[1.0] * 4, fit_from=512)
    ax_t = fig.axes[0]
    fit, predicted = ax_t.get_lines()[1], ax_t.get_lines()[2]
    np.testing.assert_allclose(fit.get_xdata(), [512, 1024])
    # through the fitted points' mean: n = √(512·1024), t = √(4·16) = 8 ms, slope 1
    np.testing.assert_allclose(fit.get_ydata(), [8 / np.sqrt(2), 8 * np.sqrt(2)])
    # slope 2 through the same point over every n: 8 · (n / (512√2))²
    np.testing.assert_allclose(predicted.get_ydata(), [0.25, 1.0, 4.0, 16.0])
    assert predicted.get_label() == "slope 2"
