"""Chapter 9's figure: the fitted line runs through the last point with the given slope."""

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
    np.testing.assert_allclose(ax_m.get_lines()[1].get_ydata(), [0.0625, 0.25, 1.0])  # MiB
    assert fig.get_size_inches()[0] <= 6.8
    assert ax_t.get_xlabel() == "sequence length n" and ax_m.get_ylabel() == "memory (MiB)"
