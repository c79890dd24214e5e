"""Chapter 13's layer-and-head picker (AttentionHeatmap.from_model) in headless Chromium, drawn
from its stored state with no kernel, as the static site draws it: the layer changes by keyboard
(the heatmap's ←/→ and the slider's own arrow keys) and by finger, the numbers on screen are the
stored weights Python holds for that layer, and the change is announced, in English and Korean.
Screenshots at 1280 and 390 px land in /tmp/shots-widgets/ (or $ATTN_SHOTS_DIR).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attn_book.widgets.snapshot import _RENDER, _page

pytest.importorskip("anywidget")
from attn_book.widgets import AttentionHeatmap
from attn_book.widgets._base import figure_words

SHOTS = Path(os.environ.get("ATTN_SHOTS_DIR", "/tmp/shots-widgets"))
ANNOUNCED = "[data-role=announce]"


def show(page, state, width):
    """Draw ``state`` with the figure's own bundle in a blank page ``width`` px wide."""
    page.set_viewport_size({"width": width, "height": 900})
    page.set_content(_page(state, width - 12))  # the snapshot's page, in the state's language
    page.evaluate(_RENDER, [state["_esm"], state["_css"], state])
    return page.locator(".abh-heatmap")


def shown_row(fig):
    texts = fig.locator("[data-role=row-weight]").all_inner_texts()
    return [float(x.replace("−", "-")) for x in texts]


def rounded(row):
    return [round(w, 3) for w in row]


@pytest.fixture
def picker():
    return AttentionHeatmap.from_model("induction")


def test_the_layer_changes_by_keyboard_and_the_numbers_follow(page, picker):
    fig = show(page, picker.get_state(), 1280)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "head_picker_1280.png"), full_page=True)
    assert shown_row(fig) == rounded(picker.row)  # layer 19, head 7, query 13 (from 1)
    slider = fig.get_by_role("slider", name="layer (층)")
    assert slider.get_attribute("aria-valuetext") == "layer 19 of 30"
    # the heatmap's own keys: → to the next layer, ← twice back past it
    fig.locator("svg.abh-plane").focus()
    page.keyboard.press("ArrowRight")
    picker.layer = 19
    assert shown_row(fig) == rounded(picker.row)
    assert slider.get_attribute("aria-valuetext") == "layer 20 of 30"
    page.wait_for_function(
        f"document.querySelector('{ANNOUNCED}').textContent.startsWith('layer 20, head 7, "
        "query “notable” attends to: “parents” ')"
    )
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    picker.layer = 17
    assert shown_row(fig) == rounded(picker.row)
    # the slider's keys: Home to the first layer, End to the last
    slider.focus()
    page.keyboard.press("Home")
    picker.layer = 0
    assert shown_row(fig) == rounded(picker.row)
    assert fig.locator(".abh-control output").first.inner_text() == "1 of 30"
    page.keyboard.press("End")
    picker.layer = 29
    assert shown_row(fig) == rounded(picker.row)
    # the head menu by keyboard, then ↓ to the next query row
    fig.locator("select").select_option("0")
    picker.head = 0
    assert shown_row(fig) == rounded(picker.row)
    fig.locator("svg.abh-plane").focus()
    page.keyboard.press("ArrowDown")
    picker.selected = 13
    assert shown_row(fig) == rounded(picker.row)
    page.wait_for_function(
        f"document.querySelector('{ANNOUNCED}').textContent.startsWith('layer 30, head 1, "
        "query “robot” attends to:')"
    )
    # a stored figure recomputes nothing: no temperature, scale or mask controls
    assert fig.locator("input[type=checkbox]").count() == 0
    assert fig.locator("input[type=range]").count() == 1
    assert not page.errors


def test_on_a_phone_the_figure_fits_and_a_tap_picks_a_row(page, picker):
    fig = show(page, picker.get_state(), 390)
    page.screenshot(path=str(SHOTS / "head_picker_390.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width} px"
    slider = fig.get_by_role("slider", name="layer (층)")
    box = slider.bounding_box()
    assert box["height"] >= 24 or box["width"] >= 24  # a target a finger can hit (WCAG 2.5.8)
    page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)  # the slider's left end
    picker.layer = 0
    assert shown_row(fig) == rounded(picker.row)
    label = fig.locator("text.abh-token[data-row='3']")
    label.click()
    picker.selected = 3
    assert shown_row(fig) == rounded(picker.row)
    assert not page.errors


def test_the_korean_figure_announces_the_layer_in_korean(page, picker):
    state = picker.get_state() | {"words": figure_words(picker._esm, "ko")}
    fig = show(page, state, 680)
    page.screenshot(path=str(SHOTS / "head_picker_ko.png"), full_page=True)
    assert fig.get_by_role("slider", name="층").get_attribute("aria-valuetext") == "층 19 / 30"
    assert "←/→ 키(또는 슬라이더)로 층을 바꾼다" in fig.inner_text()
    assert fig.locator(".abh-caption").inner_text().startswith("층 19, 헤드 7: 이 행의 엔트로피")
    fig.locator("svg.abh-plane").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"document.querySelector('{ANNOUNCED}').textContent.startsWith('층 20, 헤드 7, "
        "쿼리 “notable”의 어텐션:')"
    )
    assert not page.errors


def test_on_the_built_site_the_gallerys_picker_works_with_no_kernel(page, site, picker):
    page.goto(site.url("book/99_figure_gallery.html"), wait_until="load")
    page.wait_for_widgets()
    fig = page.locator(".abh-heatmap:has(svg[aria-label*='the layer'])")
    assert fig.count() == 1
    assert shown_row(fig) == rounded(picker.row)
    fig.locator("svg.abh-plane").focus()
    page.keyboard.press("ArrowLeft")
    picker.layer = 17
    assert shown_row(fig) == rounded(picker.row)
    slider = fig.get_by_role("slider", name="layer (층)")
    assert slider.get_attribute("aria-valuetext") == "layer 18 of 30"
    errors = [e for e in page.errors if "THEBE_JS_URL" not in e]
    assert not errors
