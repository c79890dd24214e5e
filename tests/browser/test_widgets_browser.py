"""The figures on the built gallery page, in headless Chromium, with no kernel.

Each figure renders; dragging the query (and a score bar, a d_k slider, a heatmap row)
changes the numbers on screen to what attn_core computes for the new position. A
drag-to-paint benchmark is printed (run with ``-s`` to see it); screenshots before and after
the drags land in /tmp/shots-widgets/ (or $ATTN_SHOTS_DIR). Fixtures: conftest.py.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

import attn_core
from attn_book.data import quanta_example

PAGE = "book/99_figure_gallery.html"
SHOTS = Path(os.environ.get("ATTN_SHOTS_DIR", "/tmp/shots-widgets"))
ALLOWED_ERRORS = [re.compile(r"Identifier 'THEBE_JS_URL' has already been declared")]
COUNTS = {
    ".abh-querypad": 3,
    ".abh-bars": 1,
    ".abh-scaling": 1,
    ".abh-heatmap": 7,
    ".abh-window": 1,
    ".abh-statefill": 2,
}


def number(text):
    """Parse a displayed number (true minus sign allowed)."""
    return float(text.replace("−", "-"))


def numbers(locator):
    return [number(t) for t in locator.all_inner_texts()]


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"site_{name}.png"), full_page=False)


def open_gallery(page, site):
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(site.url(PAGE), wait_until="load")
    total = sum(COUNTS.values())
    script = f"document.querySelectorAll('.abh-fig').length >= {total}"
    page.wait_for_function(script, timeout=30_000)


def assert_no_errors(page):
    errors = [e for e in page.errors if not any(p.search(e) for p in ALLOWED_ERRORS)]
    assert not errors, f"JavaScript errors on {PAGE}: {errors}"


@pytest.fixture
def gallery(page, site):
    """The gallery, freshly loaded, for a test that moves its figures."""
    open_gallery(page, site)
    yield page
    assert_no_errors(page)


@pytest.fixture(scope="module")
def unmoved(new_page, site):
    """The gallery loaded once for the tests that only read it (nothing is moved)."""
    with new_page() as page:
        open_gallery(page, site)
        yield page
        assert_no_errors(page)


def handle_center(handle):
    box = handle.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


QUERY_RING = 12  # px, HANDLE.queryRing in src/query_pad_layout.js


def query_grip(pad):
    """q's centre, where a reader grabs it (at the start k1 is drawn there too)."""
    return handle_center(pad.locator('.abh-handle[data-kind="query"]'))


def drag(page, start, end):
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()


def pad_frame(pad):
    """Screen origin and pixels per unit, read off the example's q = (1, 0) and k2 = (0, 1)."""
    qx, qy = handle_center(pad.locator('.abh-handle[data-kind="query"]'))
    kx, ky = handle_center(pad.locator('.abh-handle[data-kind="key"][data-index="1"]'))
    assert abs(qy - ky) > 10, "the worked example's q and k2 should be one unit apart vertically"
    return (kx, qy), qx - kx


def pad_numbers(pad):
    q = re.findall(r"[−-]?\d+\.\d+", pad.locator('[data-role="query"]').inner_text())
    o = re.findall(r"[−-]?\d+\.\d+", pad.locator('[data-role="output"]').inner_text())
    weights = numbers(pad.locator('[data-role="weight"]'))
    return [number(v) for v in q], weights, [number(v) for v in o]


def test_every_figure_renders(unmoved):
    for selector, n in COUNTS.items():
        assert unmoved.locator(selector).count() == n, selector
    for fig in unmoved.locator(".abh-fig").all():
        box = fig.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, fig.inner_text()[:80]
    assert unmoved.locator(".abh-fig [id]").count() == 0, "figures must not use element ids"
    style = unmoved.locator(".abh-fig").first.evaluate("e => getComputedStyle(e).userSelect")
    assert style == "none"


def test_query_pad_starts_at_the_seed_example(unmoved):
    q, w, o = pad_numbers(unmoved.locator(".abh-querypad").first)
    assert q == [1.0, 0.0] and w == [0.401, 0.198, 0.401] and o == [1.203, 0.797]


def test_dragging_the_query_shows_what_attn_core_computes(gallery):
    pads = gallery.locator(".abh-querypad")
    pad, other = pads.nth(0), pads.nth(1)
    pad.scroll_into_view_if_needed()
    shot(gallery, "querypad_before")
    other_before = pad_numbers(other)
    (ox, oy), unit = pad_frame(pad)
    target = (-0.5, 1.2)
    gallery.mouse.move(*query_grip(pad))
    gallery.mouse.down()
    gallery.mouse.move(ox + target[0] * unit, oy - target[1] * unit, steps=8)
    gallery.mouse.up()
    shot(gallery, "querypad_after")

    q, shown_w, shown_o = pad_numbers(pad)
    assert q == pytest.approx(target, abs=0.02), "the query did not follow the mouse"
    keys = quanta_example().keys
    values = quanta_example().values
    want = attn_core.scaled_dot_product_attention(np.array(q), keys, values)
    assert shown_w == pytest.approx(attn_core.attention_weights(np.array(q), keys), abs=6e-4)
    assert shown_o == pytest.approx(want, abs=6e-4)
    assert pad_numbers(other) == other_before, "dragging one pad moved the other"


def test_keyboard_moves_the_focused_vector(gallery):
    pad = gallery.locator(".abh-querypad").first
    pad.locator('.abh-handle[data-kind="key"][data-index="1"]').focus()
    gallery.keyboard.press("ArrowLeft")
    gallery.keyboard.press("Shift+ArrowDown")
    q, w, _ = pad_numbers(pad)
    keys = quanta_example().keys.copy()
    keys[1] = [-0.1, 0.99]
    assert w == pytest.approx(attn_core.attention_weights(np.array(q), keys), abs=6e-4)
    assert numbers(pad.locator('[data-role="dot"]'))[1] == pytest.approx(-0.1, abs=1e-9)


def test_unscaled_pad_toggles_back_to_the_seed_weights(gallery):
    pad = gallery.locator(".abh-querypad").nth(1)  # scaled=False, k3 = (-1, 0.5)
    keys = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    q = np.array([1.0, 0.0])
    _, w, _ = pad_numbers(pad)
    assert w == pytest.approx(attn_core.attention_weights(q, keys, scale=1.0), abs=6e-4)
    pad.locator('input[type="checkbox"]').check()
    _, w, _ = pad_numbers(pad)
    assert w == pytest.approx(attn_core.attention_weights(q, keys), abs=6e-4)


def test_dragging_a_score_bar(gallery):
    fig = gallery.locator(".abh-bars")
    fig.scroll_into_view_if_needed()
    shot(gallery, "softmaxbars_before")
    bar = fig.locator(".abh-scorebar").nth(2)
    x, _ = handle_center(bar)
    box = bar.bounding_box()
    gallery.mouse.move(x, box["y"] + 1)
    gallery.mouse.down()
    gallery.mouse.move(x, box["y"] - 40, steps=5)
    gallery.mouse.up()
    shot(gallery, "softmaxbars_after")
    scores = numbers(fig.locator('td[data-role="shifted"]'))  # shift is still 0
    assert scores[2] > 0.1, "the bar did not move up"
    want = attn_core.softmax(np.array(scores))
    assert numbers(fig.locator('td[data-role="w"]')) == pytest.approx(want, abs=6e-4)
    fig.locator('input[type="range"]').nth(1).fill("1000")  # shift every score by 1000
    assert numbers(fig.locator('td[data-role="w"]')) == pytest.approx(want, abs=6e-4)
    assert fig.locator('td[data-role="naive"]').all_inner_texts() == ["NaN"] * len(scores)


def test_scaling_explorer_slider_shows_the_python_table(gallery):
    from attn_book.widgets import ScalingExplorer

    fig = gallery.locator(".abh-scaling")
    fig.scroll_into_view_if_needed()
    shot(gallery, "scaling_before")
    fig.locator('input[type="range"]').fill("9")  # dims[9] = 512
    shot(gallery, "scaling_after")
    row = ScalingExplorer(d_k=512, seed=0).current
    for name in ("raw", "scaled"):
        for key in ("std", "max_weight", "entropy", "grad"):
            shown = number(fig.locator(f'[data-role="{name}-{key}"]').inner_text())
            assert shown == pytest.approx(row[name][key], abs=6e-4), (name, key)


def test_heatmap_hover_selects_a_row(gallery):
    from attn_book.widgets import AttentionHeatmap

    figs = gallery.locator(".abh-heatmap")
    fig = figs.first
    fig.scroll_into_view_if_needed()
    shot(gallery, "heatmap_before")
    rows = '[data-role="row-weight"]'
    others_before = [f.locator(rows).all_inner_texts() for f in figs.all()[1:]]
    fig.locator("svg rect.abh-cell[data-row='2']").first.hover()
    fig.locator('input[type="checkbox"]').nth(1).check()  # causal mask
    shot(gallery, "heatmap_after")
    want = AttentionHeatmap(selected=2, causal=True).row
    assert numbers(fig.locator('[data-role="row-weight"]')) == pytest.approx(want, abs=6e-4)
    assert "먹었다" in fig.locator(".abh-readout").inner_text()
    others = [f.locator(rows).all_inner_texts() for f in figs.all()[1:]]
    assert others == others_before, "one heatmap changed another"


FRAME_PROBE = """() => {
  window.__paint = [];
  window.addEventListener("pointermove", (e) => {
    const t0 = performance.now();
    requestAnimationFrame(() => {
      const t1 = performance.now();
      setTimeout(() => window.__paint.push([t1 - t0, performance.now() - t0]), 0);
    });
  }, { capture: true });
}"""


def paint_times(page):
    """(median, max) ms from a pointer event to the next frame, and to just after its paint."""
    page.wait_for_timeout(100)
    t = np.array(page.evaluate("window.__paint"))
    assert len(t), "no frames measured"
    return np.median(t, axis=0), t.max(axis=0), len(t)


def test_benchmark_drag_to_paint(gallery, capsys):
    gallery.evaluate(FRAME_PROBE)
    pad = gallery.locator(".abh-querypad").first
    pad.scroll_into_view_if_needed()
    (ox, oy), unit = pad_frame(pad)
    gallery.mouse.move(*query_grip(pad))
    gallery.mouse.down()
    for i in range(60):
        a = 2 * math.pi * i / 60
        gallery.mouse.move(ox + unit * 1.5 * math.cos(a), oy - unit * 1.5 * math.sin(a))
    gallery.mouse.up()
    pad_med, pad_max, n_pad = paint_times(gallery)

    gallery.evaluate("window.__paint = []")
    big = gallery.locator(".abh-heatmap").last  # the gallery's 32-token heatmap
    big.scroll_into_view_if_needed()
    assert big.locator("rect.abh-cell").count() == 32 * 32
    cells = big.locator("rect.abh-cell[data-row]")
    first, last = cells.nth(0).bounding_box(), cells.nth(32 * 32 - 1).bounding_box()
    for i in range(64):
        y = first["y"] + (last["y"] - first["y"]) * (i % 32) / 31 + 2
        gallery.mouse.move(first["x"] + 5 + (i % 7), y)
    hm_med, hm_max, n_hm = paint_times(gallery)
    recompute = big.evaluate(
        """(fig) => {
        const input = fig.querySelector('input[type="range"]');
        const out = [];
        for (let i = 0; i < 40; i++) {
          input.value = 0.5 + (i % 20) * 0.1;
          const t0 = performance.now();
          input.dispatchEvent(new Event("input"));
          out.push(performance.now() - t0);
        }
        return out.sort((a, b) => a - b)[20];
    }"""
    )
    with capsys.disabled():
        print(
            f"\n[benchmark] QueryPad drag ({n_pad} moves): pointer→frame median "
            f"{pad_med[0]:.1f} ms (max {pad_max[0]:.1f}), →after paint median "
            f"{pad_med[1]:.1f} ms (max {pad_max[1]:.1f})"
            f"\n[benchmark] 32-token heatmap hover ({n_hm} moves): pointer→frame median "
            f"{hm_med[0]:.1f} ms (max {hm_max[0]:.1f}), →after paint median {hm_med[1]:.1f} ms "
            f"(max {hm_max[1]:.1f}); full 32×32 recompute+repaint on a temperature change: "
            f"median {recompute:.2f} ms of script"
        )


THREE_DECIMALS = re.compile(r"^−?\d+\.\d{3}(e−?\d+)?$|^NaN$|^−?∞$")


def test_every_number_column_has_three_decimals(unmoved):
    """Tables, bar labels, heatmap cells and readouts: one format, 3 decimals, on every figure."""
    selectors = [
        'td.abh-num:not([data-role="offset"])',  # every table column (offsets n − m are whole)
        ".abh-bars text.abh-num",  # the score and weight labels on the bars
        "text.abh-celltext",  # heatmap cells
        '[data-role="row-weight"]',
    ]
    for sel in selectors:
        texts = [t for t in unmoved.locator(sel).all_text_contents() if t]  # SVG text too
        assert texts, sel
        bad = [t for t in texts if not THREE_DECIMALS.match(t)]
        assert not bad, (sel, bad[:5])
    q = unmoved.locator(".abh-querypad").first.locator('[data-role="query"]').inner_text()
    assert re.fullmatch(r"q = \(1\.000, 0\.000\)", q), q


def test_entropy_is_glossed_in_words(unmoved):
    note = unmoved.locator(".abh-bars .abh-caption").inner_text()
    assert "spread of the weights" in note and "0 = all on one" in note
    assert "log 3 = 1.099 = uniform" in note  # ln 3 = 1.0986…
    heat = unmoved.locator(".abh-heatmap").first.inner_text()
    assert "spread of the weights" in heat


def test_the_naive_column_keeps_three_decimals_past_a_million(gallery):
    fig = gallery.locator(".abh-bars")
    fig.locator('input[type="range"]').nth(1).fill("500")  # e^(2 + 500) is about 1.5e218
    naive = fig.locator('td[data-role="naiveExp"]').all_inner_texts()
    assert all(re.fullmatch(r"\d\.\d{3}e2\d\d", t) for t in naive), naive
    # e^502 = 10^(502 / ln 10) = 10^218.0167… = 1.039…e218: checked by hand, not by the JS
    assert naive[0] == f"{math.exp(502 - 218 * math.log(10)):.3f}e218"


def boxes(locator):
    return [b for b in (e.bounding_box() for e in locator.all()) if b]


def inset(box, dx, dy):
    """A box shrunk by dx, dy on each side (a text's box holds its halo and line spacing)."""
    return {"x": box["x"] + dx, "y": box["y"] + dy, "width": box["width"] - 2 * dx,
            "height": box["height"] - 2 * dy}  # fmt: skip


def overlap(a, b):
    """Area (px²) shared by two bounding boxes."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)


def touches_circle(box, circle):
    """Does a box meet the disc drawn in circle's bounding box (stroke included)?"""
    cx, cy = circle["x"] + circle["width"] / 2, circle["y"] + circle["height"] / 2
    nx = min(max(cx, box["x"]), box["x"] + box["width"])
    ny = min(max(cy, box["y"]), box["y"] + box["height"])
    return math.hypot(nx - cx, ny - cy) < circle["width"] / 2


@pytest.mark.parametrize("index", [0, 1])
def test_query_pad_labels_do_not_collide(unmoved, index):
    """Seed pad (k3, v3 and o all near (1, 1); q on k1) and the unscaled pad: no label on
    another label or on a handle, and no tick label under a handle (v1, v2 at the 2 ticks)."""
    pad = unmoved.locator(".abh-querypad").nth(index)
    labels = pad.locator("text.abh-vlabel")
    names = labels.all_text_contents()
    assert sorted(names) == ["k1", "k2", "k3", "o", "q", "v1", "v2", "v3"]
    label_boxes = boxes(labels)
    glyphs = [inset(b, 3, 4) for b in label_boxes]  # 3 px halo; line spacing above, below
    cores = [inset(b, b["width"] / 4, b["height"] / 4) for b in label_boxes]  # no corners
    circles, squares = (
        boxes(pad.locator("circle.abh-handle")),
        boxes(pad.locator("rect.abh-handle")),
    )
    assert len(circles) == 4 and len(squares) == 3
    for i, (a, core) in enumerate(zip(glyphs, cores, strict=True)):
        for j in range(i):
            assert overlap(a, glyphs[j]) == 0, (names[i], names[j])
        assert not any(touches_circle(core, c) for c in circles), (names[i], core, circles)
        assert all(overlap(core, s) == 0 for s in squares), (names[i], "on a value")
    for t in boxes(pad.locator("text.abh-tick")):
        assert all(overlap(t, h) == 0 for h in circles + squares), "a handle covers a tick label"


def test_visible_labels_have_no_underscores(unmoved):
    """d_k and d_head are code names: on screen, dₖ and 'head width'."""
    for fig in unmoved.locator(".abh-fig").all():
        shown = fig.inner_text() + " ".join(fig.locator("svg text").all_text_contents())
        assert "_" not in shown, shown[:200]
    assert "scale by 1/√dₖ (스케일)" in unmoved.locator(".abh-querypad").first.inner_text()
    scaling = unmoved.locator(".abh-scaling")
    assert "dₖ (키 차원)" in scaling.inner_text() and "q·k / √dₖ" in scaling.inner_text()
    heat = unmoved.locator(".abh-heatmap").first.inner_text()
    assert "scale by 1/√(head width)" in heat and "head width = 4" in heat


# --- issue 11: what a figure draws must not hide another part -----------------------------

HIT = """([x, y]) => {
  const e = document.elementFromPoint(x, y);
  return e && e.dataset.kind ? `${e.dataset.kind}${e.dataset.index}` : e && e.tagName;
}"""


def hit(page, point):
    """The handle (kind and index, e.g. "key0") a click at ``point`` would grab."""
    return page.evaluate(HIT, list(point))


def test_the_query_is_on_top_and_what_it_covers_is_reached_with_tab(gallery):
    """At the start q = k1: q's centre and ring grab q; k1 moves with Tab and arrow keys."""
    pad = gallery.locator(".abh-querypad").first
    pad.scroll_into_view_if_needed()
    key1 = pad.locator('.abh-handle[data-kind="key"][data-index="0"]')
    q = pad.locator('.abh-handle[data-kind="query"]')
    x, y = handle_center(q)
    assert handle_center(key1) == pytest.approx((x, y), abs=0.5)  # q = k1 = (1, 0)
    assert hit(gallery, (x, y)) == "query0", "q's centre does not grab q"
    assert hit(gallery, (x + QUERY_RING, y)) == "query0", "q's ring does not grab q"
    assert "one hidden under another too" in pad.locator(".abh-hint").inner_text()
    key1.focus()
    gallery.keyboard.press("ArrowUp")  # k1 = (1, 0.1); q stays at (1, 0)
    q_shown, _, _ = pad_numbers(pad)
    assert q_shown == [1.0, 0.0]
    assert numbers(pad.locator('[data-role="dot"]'))[0] == pytest.approx(1.0, abs=1e-9)
    assert handle_center(key1)[1] < y - 5, "Tab and ArrowUp did not move k1 off q"


def test_dragging_q_by_its_centre_moves_q_not_k1(gallery):
    pad = gallery.locator(".abh-querypad").first
    pad.scroll_into_view_if_needed()
    (ox, oy), unit = pad_frame(pad)
    drag(gallery, query_grip(pad), (ox + 0.5 * unit, oy - 1.5 * unit))
    q, _, _ = pad_numbers(pad)
    assert q == pytest.approx([0.5, 1.5], abs=0.02)
    k1 = handle_center(pad.locator('.abh-handle[data-kind="key"][data-index="0"]'))
    assert k1 == pytest.approx((ox + unit, oy), abs=1.0), "k1 moved with q"


def test_a_value_on_a_key_is_dragged_off_the_line(gallery):
    """v3 = k3 = (1, 1): the value is on top, so a drag from there moves v3 and the output."""
    pad = gallery.locator(".abh-querypad").first
    pad.scroll_into_view_if_needed()
    (ox, oy), unit = pad_frame(pad)
    at = (ox + unit, oy - unit)  # (1, 1)
    assert hit(gallery, at) == "value2", "k3's dot hides v3's square"
    drag(gallery, at, (ox + 2 * unit, oy - 2 * unit))  # v3 -> (2, 2), off the line x + y = 2
    shot(gallery, "querypad_v3_dragged")
    _, w, o = pad_numbers(pad)
    assert w == [0.401, 0.198, 0.401]  # q and the keys did not move
    values = quanta_example().values.copy()
    values[2] = [2.0, 2.0]
    want = attn_core.scaled_dot_product_attention(
        np.array([1.0, 0.0]), quanta_example().keys, values
    )
    assert o == pytest.approx(want, abs=6e-4)  # (1.604, 1.198): off the line
    k3 = handle_center(pad.locator('.abh-handle[data-kind="key"][data-index="2"]'))
    assert k3 == pytest.approx(at, abs=1.0), "k3 moved with v3"


def test_q_moved_onto_v1_is_still_grabbed_there(gallery):
    """With q moved to (2, 0) it sits on v1: q is grabbed there, v1 with Tab."""
    pad = gallery.locator(".abh-querypad").first
    pad.scroll_into_view_if_needed()
    q = pad.locator('.abh-handle[data-kind="query"]')
    q.focus()
    for _ in range(10):
        gallery.keyboard.press("ArrowRight")  # q = (2, 0), where v1 is
    shot(gallery, "querypad_q_on_v1")
    value1 = pad.locator('.abh-handle[data-kind="value"][data-index="0"]')
    assert handle_center(value1) == pytest.approx(handle_center(q), abs=0.5)
    assert hit(gallery, handle_center(q)) == "query0"
    value1.focus()
    gallery.keyboard.press("ArrowUp")  # v1 = (2, 0.1)
    assert handle_center(value1)[1] < handle_center(q)[1] - 5


def test_bar_labels_clear_the_titles_at_any_temperature(gallery):
    """T = 0.1 puts a weight at 1.000 and a score at 6: their labels stay off both titles."""
    fig = gallery.locator(".abh-bars")
    fig.scroll_into_view_if_needed()
    fig.locator('input[type="range"]').first.fill("0.1")
    fig.locator(".abh-scorebar").first.focus()
    for _ in range(12):
        gallery.keyboard.press("ArrowUp")  # s1 = 2 + 12 · 0.5, held at 6
    shot(gallery, "softmaxbars_t01")
    weights = [number(t) for t in fig.locator('text[data-role="weight"]').all_text_contents()]
    assert max(weights) == pytest.approx(1.0, abs=6e-4)
    titles = boxes(fig.locator("text.abh-title"))
    labels = boxes(fig.locator("text.abh-label"))
    assert len(titles) == 2 and len(labels) == 2 * len(weights)
    for label in labels:
        assert all(overlap(label, t) == 0 for t in titles), (label, titles)


def test_scaling_explorer_slider_and_curves_share_the_dims(gallery):
    from attn_book.widgets.scaling_explorer import DIMS

    fig = gallery.locator(".abh-scaling")
    fig.scroll_into_view_if_needed()
    slider = fig.locator('input[type="range"]')
    assert int(slider.get_attribute("max")) == len(DIMS) - 1
    slider.fill(str(len(DIMS) - 1))
    assert fig.locator(".abh-control output").inner_text() == str(DIMS[-1])
    for line in fig.locator("polyline").all():
        assert len(line.get_attribute("points").split()) == len(DIMS)
    slider.fill(str(DIMS.index(512)))
    shot(gallery, "scaling_512")
    ticks = fig.locator("svg").first.locator("text.abh-tick").all_text_contents()
    edge = max(abs(number(t)) for t in ticks)
    assert edge >= 4 * math.sqrt(512), f"the histogram's axis (±{edge}) clips at dₖ = 512"
    slider.fill("0")  # dₖ = 1: the same axis, so the unscaled scores are seen to spread
    shot(gallery, "scaling_1")
    assert fig.locator("svg").first.locator("text.abh-tick").all_text_contents() == ticks


# --- issue 11: every Hangul character in a figure is drawn by a font that has it -------------

HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def own_texts(node, inside=False):
    """(nodeId, own text) of every element inside a figure (``.abh-fig``), from a DOM tree;
    an element's own text is that of its text children, what its fonts are reported for."""
    classes = dict(
        zip(node.get("attributes", [])[::2], node.get("attributes", [])[1::2], strict=True)
    )
    inside = inside or "abh-fig" in classes.get("class", "").split()
    children = node.get("children", [])
    if inside and node["nodeType"] == 1:
        yield node["nodeId"], "".join(c["nodeValue"] for c in children if c["nodeType"] == 3)
    for child in children:
        yield from own_texts(child, inside)


def font_report(page):
    """[(text, [(font family, custom?, glyphs)])] for each element of a figure whose own text
    holds Hangul, from Chromium's DevTools protocol (CSS.getPlatformFontsForNode)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
    report = []
    for node, text in own_texts(root):
        if HANGUL.search(text) and rendered(cdp, node):
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            report.append(
                (text, [(f["familyName"], f["isCustomFont"], f["glyphCount"]) for f in fonts])
            )
    cdp.detach()
    return report


def rendered(cdp, node):
    """False for an element with no box (display: none, e.g. a control the figure hides)."""
    try:
        cdp.send("DOM.getBoxModel", {"nodeId": node})
    except Exception:  # "Could not compute box model."
        return False
    return True


def test_every_hangul_label_in_the_figures_has_glyphs(unmoved):
    """No Hangul in a figure falls back to a system font (boxes where none has Hangul)."""
    unmoved.evaluate("document.fonts.ready.then(() => true)")
    report = font_report(unmoved)
    assert len(report) >= 10, report  # labels, titles, tokens, the captions
    for text, used in report:
        n_hangul = len(HANGUL.findall(text))
        custom = sum(n for _, is_custom, n in used if is_custom)
        assert custom >= n_hangul, (text, used)


def test_the_kv_cache_calculator_follows_the_keyboard_and_attn_core(page, site):
    """Chapter 10's calculator: arrow keys on its KV-heads slider change the KV cache's bytes
    on the static page, to what attn_core.kv_cache_bytes gives (16 GiB, then 12 GiB)."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(site.url("book/10_generation.html"), wait_until="load")
    fig = page.locator(".abh-fig").first
    fig.wait_for(timeout=30_000)
    labels = fig.locator("label.abh-control span").all_inner_texts()
    assert labels[:5] == ["tokens n", "query heads (헤드)", "layers (층)", "KV heads", "batch"]

    def kv_line():
        return fig.locator(".abh-readout div").nth(1).inner_text()

    gib = attn_core.kv_cache_bytes(32, 8, 128, 131072, 2) / 2**30
    assert f"× 8 × 128 × 131,072 × 2 B = {gib:.1f} GiB" in kv_line()
    fig.locator('input[type="range"]').nth(3).focus()  # KV heads
    page.keyboard.press("ArrowLeft")  # to the next KV-head count that divides 32: 4, then 2
    page.keyboard.press("ArrowLeft")
    gib = attn_core.kv_cache_bytes(32, 2, 128, 131072, 2) / 2**30
    assert f"× 2 × 128 × 131,072 × 2 B = {gib:.2f} GiB" in kv_line()
    assert "16 query heads per KV head" in kv_line()
    assert not [e for e in page.errors if not any(p.search(e) for p in ALLOWED_ERRORS)]


def spoken_weights(announcement):
    """{word: weight} from the window figure's live region ("Weights: 먹었다 0.402, …")."""
    weights = announcement.split("Weights: ")[1].split(". ")[0]
    return {w: float(v) for w, v in (pair.rsplit(" ", 1) for pair in weights.split(", "))}


def test_the_window_figure_follows_the_keyboard_and_attn_core(gallery):
    """Arrow keys on the window figure's sliders and Space on its sink box, on the static page:
    the live region and the readout say what WindowSinks (attn_core) computes, and the ring
    buffer's slots show the words KVCache(window=W) holds."""
    from attn_book.widgets import WindowSinks

    fig = gallery.locator(".abh-window")
    fig.scroll_into_view_if_needed()
    tokens = WindowSinks().tokens
    announce = fig.locator('[data-role="announce"]')
    sliders = fig.locator('input[type="range"]')  # t, W, z, g
    sliders.nth(0).focus()
    gallery.keyboard.press("ArrowLeft")
    gallery.keyboard.press("ArrowLeft")  # t = 5 -> 3: 그리고 overwrites 나는 in slot 0
    expected = WindowSinks(step=3)
    gallery.wait_for_function("e => e.textContent.includes('t = 3')", arg=announce.element_handle())
    said = announce.inner_text()
    assert said.startswith(f"t = 3, W = 3: {tokens[3]} written to slot 0, evicting {tokens[0]}.")
    want = {tokens[j]: round(w, 3) for j, w in enumerate(expected.weights) if 1 <= j <= 3}
    assert spoken_weights(said) == want
    slot_words = fig.locator("svg text.abh-token").all_text_contents()[len(tokens) :][:3]
    assert slot_words == [tokens[p] for p in expected.slots] == [tokens[3], tokens[1], tokens[2]]
    sliders.nth(1).focus()
    gallery.keyboard.press("ArrowRight")  # W = 4: the ring has four slots, nothing evicted yet
    fig.locator('input[type="checkbox"]').first.focus()
    gallery.keyboard.press("Space")  # the sink, z = 1
    expected = WindowSinks(step=3, window=4, sink=True)
    line = fig.locator('[data-role="sum"]').inner_text()
    total = f"{expected.row_sum:.3f} + sink {expected.sink_share:.3f} = 1.000"
    assert line == f"row sum {total}", line
    sink_said = "e => e.textContent.includes('+ sink')"
    gallery.wait_for_function(sink_said, arg=announce.element_handle())
    said = announce.inner_text()
    assert said.startswith(f"t = 3, W = 4: {tokens[3]} written to slot 3.")
    assert spoken_weights(said) == {
        tokens[j]: round(w, 3) for j, w in enumerate(expected.weights[:4])
    }


# --- chapter 12's state filler ---------------------------------------------------------------


def filler_shows(fig):
    """What the state filler shows: its step ("4 of 6"), the state's cells and the error."""
    step = fig.locator(".abh-stepper output").inner_text()
    cells = [number(t) for t in fig.locator('text[data-role="state"]').all_text_contents()]
    error = number(fig.locator('[data-role="error"]').inner_text().split("= ")[-1])
    return step, cells, error


def announced(page, fig, words):
    """Wait for the live region to say ``words`` (it speaks 400 ms after the last change)."""
    region = fig.locator('[data-role="announce"]')
    assert region.get_attribute("aria-live") == "polite"
    page.wait_for_function(
        "([el, words]) => el.textContent.includes(words)",
        arg=[region.element_handle(), words],
        timeout=5_000,
    )
    return region.inner_text()


def test_the_state_filler_steps_by_keyboard_and_says_so(gallery):
    """Arrow keys on the drawing write and unwrite tokens and choose the key asked; a radio
    button (its arrow keys) switches the memory. The numbers are state_filler.fill's."""
    from attn_book.widgets.state_filler import fill, pairs

    keys, values, pair_of = pairs(3, 4, 4, rewrite=True)
    fig = gallery.locator(".abh-statefill").first
    fig.scroll_into_view_if_needed()
    other = gallery.locator(".abh-statefill").nth(1)
    other_before = filler_shows(other)
    drawing = fig.locator('svg[role="application"]')
    drawing.focus()
    gallery.keyboard.press("ArrowLeft")
    gallery.keyboard.press("ArrowLeft")  # t = 4: key 1 just written again, delta rule, β = 1
    shot(gallery, "statefiller_t4")
    want = fill(keys, values, pair_of, 4, "delta", 0)
    step, cells, error = filler_shows(fig)
    assert step == "4 of 6" and error == pytest.approx(want["error"], abs=6e-4) and error == 0
    assert cells == pytest.approx(np.ravel(want["state"]), abs=6e-4)
    said = announced(gallery, fig, "t = 4 of 6")
    assert "delta rule" in said and "error 0.000" in said and "Correction length" in said
    gallery.keyboard.press("ArrowDown")  # ask with key 2
    want = fill(keys, values, pair_of, 4, "delta", 1)
    assert filler_shows(fig)[2] == pytest.approx(want["error"], abs=6e-4)
    assert "asked k₂" in announced(gallery, fig, "asked k₂")
    fig.locator('input[type="radio"][value="delta"]').focus()
    gallery.keyboard.press("ArrowLeft")  # the radio group's own keys: to "linear"
    assert fig.locator('input[type="radio"][value="linear"]').is_checked()
    want = fill(keys, values, pair_of, 4, "linear", 1)
    step, cells, error = filler_shows(fig)
    assert cells == pytest.approx(np.ravel(want["state"]), abs=6e-4)
    assert error == pytest.approx(want["error"], abs=6e-4)
    assert "linear attention" in announced(gallery, fig, "linear attention")
    fig.locator('input[type="radio"][value="softmax"]').check()
    want = fill(keys, values, pair_of, 4, "softmax", 1)
    weights = fig.locator('text[data-role="cache-weight"]').all_text_contents()
    weights = [number(w) for w in weights if w]
    assert weights == pytest.approx(want["weights"], abs=6e-4) and len(weights) == 4
    assert "= 32 numbers" in fig.inner_text()  # 4 tokens × (4 + 4)
    assert filler_shows(other) == other_before, "one state filler moved the other"


def test_the_state_fillers_bars_keep_their_range_and_name_each_key(gallery):
    """Stepping back from t = 6 to 1 with the delta rule: the bar charts' tick labels stay
    the same (one y-range for every step), the upper chart names the key asked and the lower
    one the key the current token writes, as pairs() lays the tokens out."""
    from attn_book.widgets.state_filler import pairs

    _, _, pair_of = pairs(3, 4, 4, rewrite=True)
    fig = gallery.locator(".abh-statefill").first
    fig.scroll_into_view_if_needed()
    bars = fig.locator(".abh-panel svg")
    drawing = fig.locator('svg[role="application"]')
    drawing.focus()
    gallery.keyboard.press("End")  # t = 6, whatever an earlier test left
    ticks_seen, titles_seen = set(), []
    for t in range(6, 0, -1):
        gallery.wait_for_function(
            "([el, t]) => el.textContent.startsWith(t + ' of')",
            arg=[fig.locator(".abh-stepper output").element_handle(), str(t)],
        )
        ticks = bars.locator("text.abh-tick").all_text_contents()
        ticks_seen.add(tuple(x for x in ticks if not x.startswith("dim")))
        titles_seen.append(bars.locator("text.abh-title").all_text_contents())
        gallery.keyboard.press("ArrowLeft")
    assert len(ticks_seen) == 1, ticks_seen  # the same range at every step
    sub = "₀₁₂₃₄₅₆₇₈₉"
    for t, (upper, lower) in zip(range(6, 0, -1), titles_seen, strict=True):
        assert upper.startswith("asked k₁:"), upper
        written = f"k{sub[pair_of[t - 1] + 1]}"
        assert lower.startswith(f"token {t} writes {written}: correction v − S{sub[t - 1]}"), lower
