"""Issue 11's figure fixes on the Python side: the query pad's progressive parts and the
scaling explorer's histogram range. Expected values are worked out by hand here."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("anywidget")

from attn_book.widgets import QueryPad, ScalingExplorer
from attn_book.widgets.query_pad import PARTS
from attn_book.widgets.scaling_explorer import DIMS, histogram_edges, scaling_table


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
    (row,) = scaling_table([512], seed=0, n_keys=16, n_samples=400)
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


def test_one_histogram_axis_for_every_d_k_and_nothing_clipped():
    """σ(q·k) = √d_k: at 1024 that is 32, so ±200 (6σ) holds every score; d_k = 1's
    scores (σ = 1) then fill a few bins 1 wide rather than one 10 wide (the old 40 bins)."""
    table = scaling_table(DIMS, seed=0, n_keys=16, n_samples=400)
    edges = [row["edges"] for row in table]
    assert all(e == edges[0] for e in edges), "the histogram's axis moved with d_k"
    lo, hi = edges[0][0], edges[0][-1]
    assert lo == -hi and hi >= 4 * math.sqrt(DIMS[-1])
    for row in table:
        for name in ("raw", "scaled"):
            assert sum(row[name]["hist"]) == pytest.approx(1.0, abs=1e-12), (row["d_k"], name)
    bin_width = (hi - lo) / (len(edges[0]) - 1)
    assert bin_width <= 1.0
    assert sum(f > 0.01 for f in table[0]["raw"]["hist"]) >= 4  # a shape, not one bar


def test_raw_and_scaled_rows_share_their_draws():
    """At d_k = 1, √d_k = 1: q·k and q·k/√d_k are the same numbers, so are their stats."""
    row = ScalingExplorer(d_k=1).current
    for stat in ("std", "max_weight", "entropy", "grad", "hist"):
        assert row["raw"][stat] == row["scaled"][stat], stat


def test_the_raw_row_softmaxes_the_scaled_rows_queries_and_keys():
    """d_k = 4: the raw row's largest weight from the q, k the scaled row drew first."""
    d_k, n_keys, n = 4, 3, 6
    (row,) = scaling_table([d_k], 5, n_keys, n)
    rng = np.random.default_rng([5, d_k])
    q, k = rng.standard_normal((n, 1, d_k)), rng.standard_normal((n, n_keys, d_k))
    maxes = []
    for i in range(n):
        scores = [sum(q[i, 0, c] * k[i, j, c] for c in range(d_k)) for j in range(n_keys)]
        exps = [math.exp(s - max(scores)) for s in scores]
        maxes.append(max(exps) / sum(exps))
    assert row["raw"]["max_weight"] == pytest.approx(sum(maxes) / n)
