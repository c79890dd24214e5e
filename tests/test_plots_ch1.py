"""Chapter 1's query-and-keys figure: every key labelled, no two labels on top of each other."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attn_book import plots
from attn_book.data import quanta_example


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _unit(degrees):
    theta = np.radians(degrees)
    return np.array([np.cos(theta), np.sin(theta)])


def _length_panel():
    """Figure 1.2's four keys: two on the query's side, two pointing away, one of each long."""
    keys = np.stack([_unit(10.0), 3.0 * _unit(60.0), _unit(120.0), 3.0 * _unit(120.0)])
    q = np.array([1.0, 0.0])
    return {
        "query": q,
        "keys": keys,
        "scores": keys @ q,
        "labels": ["near", "long", "away", "long away"],
    }


def _example_panel():
    ex = quanta_example()
    scores = ex.keys @ ex.query
    return {"query": ex.query, "keys": ex.keys, "scores": scores, "labels": ["k1", "k2", "k3"]}


@pytest.mark.parametrize("panel", [_example_panel(), _length_panel()], ids=["fig-1.1", "fig-1.2"])
def test_key_labels_neither_collide_nor_leave_the_axes(panel):
    fig = plots.plot_query_keys([panel])
    ax = fig.axes[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.texts if t.get_text()]
    assert len(labels) == len(panel["keys"]) + 1  # every key, and the query
    for name in panel["labels"]:
        assert any(t.get_text().startswith(f"{name} =") for t in labels)
    boxes = [t.get_window_extent(renderer) for t in labels]
    for (a, ta), (b, tb) in itertools.combinations(zip(boxes, labels, strict=True), 2):
        assert not a.overlaps(b), (ta.get_text(), tb.get_text())
    inside = ax.get_window_extent(renderer)
    for box, text in zip(boxes, labels, strict=True):
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, text.get_text()
        assert inside.y0 <= box.y0 and box.y1 <= inside.y1, text.get_text()
