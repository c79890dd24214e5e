"""The stored snapshot of each figure is the live figure: the gallery's figures on the built
site, screenshotted, against the PNGs 99_figure_gallery.ipynb shows before it runs.

Both are drawn by the same bundle and CSS (widgets.css pins what the site's theme would
reset), so they may differ only by where the page puts the figure: a row of text a pixel
lower after rounding. A pixel counts as different when no pixel of the other picture within
one pixel of it matches it; 0.2 % may, and the heights may differ by 2 px (measured here:
at most 0.016 % and 1 px). A snapshot of another state (the gallery's other query pad:
1.4 %), or of an older bundle, fails.
Fixtures: conftest.py.
"""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

from attn_book.widgets import snapshot

ROOT = Path(__file__).resolve().parents[2]
PAGE = "book/99_figure_gallery.html"
NOTEBOOK = ROOT / "book" / "99_figure_gallery.ipynb"
SHOTS = Path(os.environ.get("ATTN_SHOTS_DIR", "/tmp/shots-widgets"))
MARGIN = 6  # px round the figure, as snapshot.capture leaves
MAX_DIFFERENT = 0.002  # of the pixels may differ by more than a faint tint
MAX_HEIGHT_GAP = 2  # px


def stored_snapshots():
    """The PNGs of the gallery's figures, in page order, as the notebook shows them."""
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    outputs = [o for c in notebook["cells"] for o in c.get("outputs", [])]
    return [
        base64.b64decode(o["data"]["image/png"])
        for o in outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]


def rgb(png):
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=int)


def different(a, b):
    """The fraction of pixels of ``a`` (over the common top-left area) that differ clearly
    from each of the nine pixels of ``b`` at most one pixel away."""
    h, w = min(a.shape[0], b.shape[0]) - 2, min(a.shape[1], b.shape[1]) - 2
    core = a[1 : h + 1, 1 : w + 1]
    shifted = [b[1 + y : h + 1 + y, 1 + x : w + 1 + x] for y in (-1, 0, 1) for x in (-1, 0, 1)]
    far = [np.abs(core - other).max(axis=-1) > 48 for other in shifted]
    return float(np.logical_and.reduce(far).mean())


@pytest.fixture
def live_figures(page, site):
    page.set_viewport_size({"width": 1280, "height": 1100})  # the tallest figure fits
    page.goto(site.url(PAGE), wait_until="load")
    want = len(stored_snapshots())
    page.wait_for_function(f"document.querySelectorAll('.abh-fig').length >= {want}")
    page.evaluate("document.fonts.ready")
    shots = []
    for fig in page.locator(".abh-fig").all():
        fig.evaluate("e => e.scrollIntoView({block: 'center'})")  # the whole box in view
        box = fig.bounding_box()
        clip = {
            "x": box["x"] - MARGIN,
            "y": box["y"] - MARGIN,
            "width": snapshot.WIDTH + 2 * MARGIN,
            "height": box["height"] + 2 * MARGIN,
        }
        shots.append(page.screenshot(clip=clip, animations="disabled", caret="hide"))
    return shots


def test_each_stored_snapshot_is_the_live_figure(live_figures):
    stored = stored_snapshots()
    assert len(live_figures) == len(stored)
    SHOTS.mkdir(parents=True, exist_ok=True)
    report = []
    for i, (live, png) in enumerate(zip(live_figures, stored, strict=True)):
        (SHOTS / f"snapshot_{i}_live.png").write_bytes(live)
        (SHOTS / f"snapshot_{i}_stored.png").write_bytes(png)
        a, b = rgb(live), rgb(png)
        gap, share = abs(a.shape[0] - b.shape[0]), different(a, b)
        if gap > MAX_HEIGHT_GAP or share > MAX_DIFFERENT:
            report.append(f"figure {i}: heights {a.shape[0]}/{b.shape[0]}, {share:.2%} differ")
    assert not report, "; ".join(report) + f" (screenshots in {SHOTS})"


def test_the_comparison_tells_another_state_apart(live_figures):
    stored = stored_snapshots()
    # the gallery's first two query pads: one scaled, one not, other keys
    assert different(rgb(live_figures[0]), rgb(stored[1])) > MAX_DIFFERENT
