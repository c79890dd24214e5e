"""The gallery in a live JupyterLab: run all, drag the query, the kernel's widget follows.

Starts ``jupyter lab`` on 127.0.0.1 (free port, no token, a temporary copy of the gallery
with its outputs stripped), opens it in headless Chromium, runs all cells, drags the first
QueryPad's query and checks the numbers on screen (against attn_core) and in the kernel
(``pad.weights``, printed from a new cell). Screenshots land in /tmp/shots-widgets/.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest

import attn_core
from attn_book.data import quanta_example

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "book" / "99_figure_gallery.ipynb"
SHOTS = Path(os.environ.get("ATTN_SHOTS_DIR", "/tmp/shots-widgets"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser, start_lab):  # `browser` first: skips without Chromium
    work = tmp_path_factory.mktemp("lab")
    notebook = nbformat.read(GALLERY, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, work / "gallery.ipynb")
    # the gallery's prose names each figure's chapter and number ({eval} of figures.ref, which
    # reads the chapter's notebook); jupyterlab-myst evaluates it again in the live kernel once
    # the cells have run, and without the chapters beside it an error box shifts the page
    for chapter in GALLERY.parent.glob("[0-9][0-9]_*.ipynb"):
        shutil.copy(chapter, work / chapter.name)
    with start_lab(work, tmp_path_factory.mktemp("lab-state")) as base:
        yield base


def number(text):
    return float(text.replace("−", "-"))


def pad_numbers(pad):
    q = re.findall(r"[−-]?\d+\.\d+", pad.locator('[data-role="query"]').inner_text())
    weights = [number(t) for t in pad.locator('[data-role="weight"]').all_inner_texts()]
    return [number(v) for v in q], weights


def centre(locator):
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def run_all(page):
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def kernel_prints(page, code, tag, done, timeout_ms=30_000):
    """What ``code`` prints (a line starting with ``tag``), run in a new cell at the notebook's
    end; run again until ``done(text)`` or ``timeout_ms``. ipywidgets holds a figure's later
    updates back while the kernel has not answered an earlier one (its message throttle), so
    on a busy machine the kernel may take a moment after the pointer is released to hold the
    figure's last state: the kernel must follow, not within one round trip."""
    page.locator(".jp-Cell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below, in command mode
    page.keyboard.press("Enter")  # edit it
    page.keyboard.type(code)
    cell = page.locator(".jp-CodeCell").filter(has_text=code[:12]).last
    for waited in range(0, timeout_ms + 1, 1000):
        page.keyboard.press("Control+Enter")  # run it, and stay in it
        out = cell.locator(".jp-OutputArea-output", has_text=tag).first
        try:
            out.wait_for(timeout=30_000)
        except Exception:
            page.screenshot(path=str(SHOTS / "lab_failed.png"))
            raise
        text = out.inner_text().strip()
        if done(text) or waited >= timeout_ms:
            return text
        page.wait_for_timeout(1000)
        cell.locator(".jp-InputArea-editor").click()


def test_drag_in_jupyterlab(page, lab, capsys, open_in_lab):
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_in_lab(page, lab + "lab/tree/gallery.ipynb")
    run_all(page)
    try:
        page.wait_for_function(
            "document.querySelectorAll('.abh-heatmap').length >= 4", timeout=90_000
        )
    except Exception:
        page.screenshot(path=str(SHOTS / "lab_failed.png"))
        raise
    pad = page.locator(".abh-querypad").first
    pad.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "lab_querypad_before.png"))
    assert pad_numbers(pad) == ([1.0, 0.0], [0.401, 0.198, 0.401])

    # the gallery's later widgets may still be laying out below; grab q once its place holds
    # (a drag that starts where q was moves nothing: a failure seen once, under load)
    handles = (
        pad.locator('.abh-handle[data-kind="query"]'),
        pad.locator('.abh-handle[data-kind="key"][data-index="1"]'),
    )
    places = None
    for _ in range(25):
        now = [centre(h) for h in handles]
        if now == places:
            break
        places = now
        page.wait_for_timeout(200)
    (qx, qy), (kx, _) = places
    unit, target = qx - kx, (0.6, -0.9)
    page.evaluate(
        """() => { window.__paint = [];
        addEventListener("pointermove", () => { const t0 = performance.now();
          requestAnimationFrame(() => window.__paint.push(performance.now() - t0)); },
          { capture: true }); }"""
    )
    page.mouse.move(qx, qy)  # q's centre grabs q, though k1 is drawn there too
    page.mouse.down()
    for i in range(1, 41):
        a = 2 * math.pi * i / 40
        page.mouse.move(kx + unit * math.cos(a), qy - unit * math.sin(a))
    page.mouse.move(kx + target[0] * unit, qy - target[1] * unit, steps=4)
    page.mouse.up()
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / "lab_querypad_after.png"))
    frames = sorted(page.evaluate("window.__paint"))

    q, shown = pad_numbers(pad)
    assert q == pytest.approx(target, abs=0.02)
    want = attn_core.attention_weights(np.array(q), quanta_example().keys)
    assert shown == pytest.approx(want, abs=6e-4)

    # The kernel's widget followed the drag: print pad.query and pad.weights from a new cell.
    code = "print('KERNEL', pad.query, [round(w, 3) for w in pad.weights])"
    text = kernel_prints(page, code, "KERNEL", lambda t: f"[{q[0]}, {q[1]}]" in t)
    assert f"[{q[0]}, {q[1]}]" in text, text
    assert str([round(float(w), 3) for w in want]) in text, text
    with capsys.disabled():
        print(
            f"\n[benchmark] JupyterLab QueryPad drag ({len(frames)} moves): pointer→frame "
            f"median {frames[len(frames) // 2]:.1f} ms, max {frames[-1]:.1f} ms"
        )


def test_the_state_filler_steps_in_jupyterlab_and_the_kernel_follows(page, lab, open_in_lab):
    """Chapter 12's state filler in a live JupyterLab: two presses of ← on its drawing unwrite
    two tokens on screen and in the kernel (``filler.step``, ``filler.error`` from a new cell,
    as state_filler.fill computes them with attn_core)."""
    from attn_book.widgets.state_filler import fill, pairs

    page.set_viewport_size({"width": 1400, "height": 1000})
    open_in_lab(page, lab + "lab/tree/gallery.ipynb")
    run_all(page)
    page.wait_for_function(
        "document.querySelectorAll('.abh-statefill').length >= 2", timeout=120_000
    )
    fig = page.locator(".abh-statefill").first
    fig.scroll_into_view_if_needed()
    fig.locator('svg[role="application"]').focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert fig.locator(".abh-stepper output").inner_text() == "4 of 6"
    page.wait_for_timeout(500)
    want = fill(*pairs(3, 4, 4, rewrite=True), 4, "delta", 0)
    expected = f"FILLER 4 {round(want['error'], 3)}"
    code = "print('FILLER', filler.step, round(filler.error, 3))"
    assert kernel_prints(page, code, "FILLER", lambda t: t == expected) == expected


def test_the_layer_picker_changes_layer_in_jupyterlab_and_the_kernel_follows(
    page, lab, open_in_lab
):
    """Chapter 13's layer-and-head picker live: two presses of → on its heatmap move it from
    layer 19 to layer 21 (counted from 1) on screen and in the kernel (``picker.layer`` and
    ``picker.row`` from a new cell, the stored weights of that layer)."""
    from attn_book.widgets import AttentionHeatmap

    page.set_viewport_size({"width": 1400, "height": 1000})
    open_in_lab(page, lab + "lab/tree/gallery.ipynb")
    run_all(page)
    fig = page.locator(".abh-heatmap:has(svg[aria-label*='the layer'])")
    fig.wait_for(timeout=120_000)
    fig.scroll_into_view_if_needed()
    fig.locator("svg.abh-plane").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    slider = fig.get_by_role("slider", name="layer (층)")
    assert slider.get_attribute("aria-valuetext") == "layer 21 of 30"
    page.wait_for_timeout(500)
    want = AttentionHeatmap.from_model("induction", layer=20).row
    expected = f"PICKER 20 {want}"
    code = "print('PICKER', picker.layer, picker.row)"
    assert kernel_prints(page, code, "PICKER", lambda t: t == expected) == expected
