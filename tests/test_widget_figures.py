"""Issue 11's figure fixes on the Python side: the query pad's progressive parts and the
scaling explorer's histogram range. Expected values are worked out by hand here."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("anywidget")

from attn_book.widgets import QueryPad, ScalingExplorer
from attn_book.widgets.query_pad import PARTS
from attn_book.widgets.scaling_explorer import histogram_edges, scaling_row


def test_query_pad_shows_everything_by_default_and_chapter_one_nothing_more():
    assert QueryPad().show == ["weights", "scale", "temperature", "values"]
    assert QueryPad(show=()).show == []
    assert QueryPad(show=("values", "weights")).show == ["weights", "values"]  # reading order
    assert set(PARTS) == {"weights", "scale", "temperature", "values"}


def test_query_pad_show_keeps_the_maths_whatever_is_shown():
    full, bare = QueryPad(), QueryPad(show=())
    assert bare.dots == full.dots == [1.0, 0.0, 1.0]  # q = (1, 0) against (1,0), (0,1), (1,1)
    assert bare.weights == full.weights


@pytest.mark.parametrize(
    ("show", "error", "message"),
    [
        (("colour",), ValueError, r"show: unknown part\(s\) \['colour'\]"),
        (("temperature",), ValueError, r"show: \['temperature'\] need 'weights'"),
        (("values", "scale"), ValueError, r"show: \['values'\] need 'weights'"),
        ((1,), TypeError, "show must be a sequence of part names"),
    ],
)
def test_query_pad_rejects_a_bad_show(show, error, message):
    with pytest.raises(error, match=message):
        QueryPad(show=show)


@pytest.mark.parametrize(
    ("peak", "radius"),
    [(17.0, 20.0), (0.3, 0.4), (5.0, 5.0), (1.0, 1.0), (101.0, 200.0), (64.2, 100.0)],
)
def test_histogram_edges_cover_the_largest_score_with_a_round_radius(peak, radius):
    edges = histogram_edges(np.array([-peak / 3, peak]), n_bins=4)
    assert edges.tolist() == pytest.approx([-radius, -radius / 2, 0, radius / 2, radius])


def test_no_score_is_clipped_into_the_end_bins_at_d_k_512():
    """σ ≈ √512 ≈ 22.6: the old ±40 range put 7.7 % of the scores into its end bins."""
    row = scaling_row(512, np.random.default_rng(0), n_keys=16, n_samples=400)
    raw, edges = row["raw"], np.array(row["edges"])
    assert sum(raw["hist"]) == pytest.approx(1.0, abs=1e-12)  # every score inside the range
    assert edges[-1] >= 4 * math.sqrt(512) and edges[0] == -edges[-1]
    n_scores = 16 * 400
    assert max(raw["hist"][0], raw["hist"][-1]) * n_scores <= 5  # a few tail scores, no spike
    clipped_before = sum(f for f, lo in zip(raw["hist"], edges, strict=False) if abs(lo) >= 40)
    assert clipped_before > 0.03  # what ±40 used to pile into its two end bins (P(|z| > 1.77))
    assert sum(row["scaled"]["hist"]) == pytest.approx(1.0, abs=1e-12)


def test_scaling_explorer_curves_and_slider_share_one_range():
    ex = ScalingExplorer(d_k=1024)
    assert [r["d_k"] for r in ex.table] == ex.dims == [2**i for i in range(11)]
    assert ex.current["d_k"] == 1024 and ex.hist_edges == ex.current["edges"]
