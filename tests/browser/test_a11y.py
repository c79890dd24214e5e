"""Accessibility (WCAG 2.2 AA) of the figures, by keyboard alone, and a check of the audit.

The audit of every page of the table of contents, in light and dark mode, runs in
test_site.py on each page loaded once (its parts are in axe_audit.py, as pydata-sphinx-theme
tests its own pages). Here: a sanity check that the audit reports a violation, and the
figures, by keyboard alone, in the gallery: each one is reached with Tab or focus, moved with
arrow keys, and says what changed (the weights, the output) through its polite live region
(``[aria-live="polite"]``, filled after the keys stop: debounced), with the numbers attn_core
computes; then axe on the figures once they have moved.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from axe_audit import (
    COLOUR_RULES,
    FAILING,
    audit,
    failing,
    load,
    set_mode,
)

import attn_core
from attn_book.data import quanta_example

GALLERY = "book/99_figure_gallery.html"


def test_the_audit_sees_a_violation(page, site, axe_source):
    """Sanity of the audit: a button without a name and grey-on-grey text are reported."""
    load(page, site, "book/glossary.html")
    page.evaluate(
        """() => {
        const main = document.querySelector("main");
        main.insertAdjacentHTML("beforeend",
            '<button class="probe-button"></button>'
            + '<p class="probe-text" style="color:#aaa;background:#bbb">faint</p>');
    }"""
    )
    found = {v["id"] for v in audit(page, axe_source) if v["impact"] in FAILING}
    assert {"button-name", "color-contrast"} <= found


# ---------------------------------------------------------------- the figures, by keyboard

NUMBER = r"[−-]?\d+\.\d+"


def numbers(text):
    return [float(t.replace("−", "-")) for t in re.findall(NUMBER, text)]


def announced(fig):
    return fig.locator('[aria-live="polite"]').inner_text()


def wait_announced(page, fig, contains):
    """Wait until the figure's live region says something containing ``contains``."""
    region = fig.locator('[aria-live="polite"]')
    page.wait_for_function(
        "([el, text]) => el.textContent.includes(text)",
        arg=[region.element_handle(), contains],
        timeout=10_000,
    )
    return region.inner_text()


@pytest.fixture
def gallery(page, site):
    load(page, site, GALLERY)
    yield page


def test_every_figure_has_one_polite_live_region_and_named_marks(gallery):
    """Each figure announces through one polite, atomic region; every focusable mark has a
    name; the query pad's 2-D marks are movable points, the score bars sliders with values."""
    figures = gallery.locator(".abh-fig")
    assert figures.count() >= 5
    for fig in figures.all():
        region = fig.locator('[aria-live="polite"]')
        assert region.count() == 1, fig.inner_text()[:60]
        assert region.get_attribute("aria-atomic") == "true"
        assert region.inner_text() == "", "the initial state must not be announced"
    for mark in gallery.locator(".abh-fig [tabindex]").all():
        assert mark.get_attribute("aria-label"), mark.evaluate("e => e.outerHTML.slice(0, 80)")
    point = gallery.locator('.abh-handle[data-kind="key"]').first
    assert point.get_attribute("role") == "button"
    assert point.get_attribute("aria-roledescription") == "movable point"
    bar = gallery.locator(".abh-scorebar").first
    assert bar.get_attribute("role") == "slider"
    assert bar.get_attribute("aria-valuenow") is not None
    assert bar.get_attribute("aria-valuetext")


def test_query_pad_by_keyboard_announces_weights_and_output(gallery):
    """Tab to q, arrow keys move it; the announcement gives attn_core's weights and output,
    once, for where the keys stopped (a burst of key presses is read once)."""
    pad = gallery.locator(".abh-querypad").first
    q_handle = pad.locator('.abh-handle[data-kind="query"]')
    pad.locator("svg.abh-plane").focus()
    for _ in range(8):  # Tab from the plane reaches q among the marks, keyboard only
        if q_handle.evaluate("e => e === document.activeElement"):
            break
        gallery.keyboard.press("Tab")
    assert q_handle.evaluate("e => e === document.activeElement"), "Tab never reached q"
    pad.evaluate(
        """pad => {
        const region = pad.querySelector('[aria-live="polite"]');
        window.abhSaid = [];
        new MutationObserver(() => window.abhSaid.push(region.textContent))
            .observe(region, {childList: true, characterData: true, subtree: true});
    }"""
    )
    q_handle.evaluate(
        """e => { for (let i = 0; i < 3; i++) e.dispatchEvent(new KeyboardEvent("keydown",
                   {key: "ArrowUp", bubbles: true})); }"""
    )
    said = wait_announced(gallery, pad, "q = (1.00, 0.30)")
    q = np.array([1.0, 0.3])
    seed = quanta_example()
    weights = attn_core.attention_weights(q, seed.keys)
    output = attn_core.scaled_dot_product_attention(q, seed.keys, seed.values)
    got = numbers(said)
    assert got[:2] == [1.0, 0.3]
    assert got[2:5] == pytest.approx(weights, abs=6e-4), said
    assert got[5:7] == pytest.approx(output, abs=6e-4), said
    assert "weights" in said and "output" in said
    gallery.wait_for_timeout(600)
    assert gallery.evaluate("window.abhSaid") == [said], "a burst of keys was read more than once"
    gallery.keyboard.press("ArrowRight")  # a real key press, on the focused q
    said = wait_announced(gallery, pad, "q = (1.10, 0.30)")
    weights = attn_core.attention_weights(np.array([1.1, 0.3]), seed.keys)
    assert numbers(said)[2:5] == pytest.approx(weights, abs=6e-4)


def test_score_bar_by_keyboard_is_a_slider_that_announces(gallery):
    fig = gallery.locator(".abh-bars").first
    bar = fig.locator(".abh-scorebar").first
    bar.focus()
    before = float(bar.get_attribute("aria-valuenow"))
    gallery.keyboard.press("ArrowUp")
    gallery.keyboard.press("ArrowRight")  # APG sliders: right and up both increase
    after = float(bar.get_attribute("aria-valuenow"))
    assert after == pytest.approx(before + 1.0)
    said = wait_announced(gallery, fig, "weights")
    scores = numbers(said.split(";")[0])
    assert scores[0] == pytest.approx(after)
    want = attn_core.softmax(np.array(scores))  # the gallery's temperature is 1
    assert numbers(said.split(";")[1]) == pytest.approx(want, abs=6e-4), said
    assert bar.get_attribute("aria-valuetext").startswith(f"{after:.1f}, weight")


def test_heatmap_row_by_keyboard_announces_the_rows_weights(gallery):
    fig = gallery.locator(".abh-heatmap").first
    fig.locator("svg.abh-plane").focus()
    gallery.keyboard.press("ArrowDown")
    said = wait_announced(gallery, fig, "attends to")
    shown = [float(t.replace("−", "-")) for t in
             fig.locator('[data-role="row-weight"]').all_inner_texts()]  # fmt: skip
    token = re.search(r"query “([^”]*)”", fig.locator(".abh-readout").inner_text()).group(1)
    assert f"query “{token}”" in said
    visible = numbers(said)
    assert visible == pytest.approx([w for w in shown if w > 0][: len(visible)], abs=1e-9)
    assert math.fsum(visible) == pytest.approx(1.0, abs=3e-3)


@pytest.mark.parametrize(
    ("figure", "expect"), [(".abh-scaling", "dₖ = "), (".abh-fig:has(svg[role=img])", " B = ")]
)
def test_slider_figures_announce_their_readout(gallery, figure, expect):
    """The d_k explorer and the memory calculator: a range input, moved by keyboard."""
    fig = gallery.locator(figure).first
    slider = fig.locator('input[type="range"]').first
    slider.focus()
    gallery.keyboard.press("ArrowRight")
    said = wait_announced(gallery, fig, expect)
    assert numbers(said), said


def test_the_figures_after_a_change_still_meet_wcag_aa(gallery, axe_source):
    """axe on the figures themselves once they have moved and announced."""
    pad = gallery.locator(".abh-querypad").first
    pad.locator('.abh-handle[data-kind="key"]').first.focus()
    gallery.keyboard.press("ArrowLeft")
    wait_announced(gallery, pad, "k1 = ")
    problems = []
    for mode, rules in (("light", None), ("dark", COLOUR_RULES)):
        set_mode(gallery, mode)
        problems += failing(audit(gallery, axe_source, include=".abh-fig", rules=rules))
    assert not problems, "\n".join(problems)
