"""The cold reader's findings on the figures at a phone's width, drawn by their own bundles in
headless Chromium (as attn_book/widgets/snapshot.py draws them; skipped without Chromium):

- the memory calculator's text is 11 px or more at 390 px, its labels crossed by no device
  line (finding 8), its MLA sliders name d<sub>c</sub> and d<sub>h</sub><sup>R</sup>, never
  with an underscore (finding 3), and its Korean says "16배", not "16×" (finding 2);
- a Korean title is drawn in one weight: the Hangul font has no bold (finding 7), in every
  figure with titles (the window figure, softmax bars, scaling explorer, state filler), and an
  English title naming a Korean word ("scores s (점수)") too;
- the window figure's column states (아직 안 씀, 윈도우 밖) do not run into each other.
"""

from __future__ import annotations

import re

import pytest

from attn_book.widgets import (
    MemoryCalculator,
    ScalingExplorer,
    SoftmaxBars,
    StateFiller,
    WindowSinks,
    snapshot,
)
from attn_book.widgets._base import figure_words

pytestmark = pytest.mark.skipif(snapshot.can_capture() is not None, reason="needs Chromium")

PHONE = 350  # px: the figure's width on a 390 px phone, less the page's margins


def kv_view():
    return MemoryCalculator(n=131072, heads=32, kv_cache=True, layers=32, kv_heads=8, d_head=128)


def model_view():
    return MemoryCalculator(preset="DeepSeek-V3", presets=["DeepSeek-V3", "Gemma 3 27B"], n=131072)


def hybrid_view():  # figure 12.4, as chapter 12 shows it
    presets = ["Qwen3-Next-80B", "Llama-3-8B-like, 3:1 hybrid"]
    return MemoryCalculator(preset="Qwen3-Next-80B", presets=presets, n=131072)


MEASURE = """() => {
  const box = (n) => { const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  const svg = document.querySelector("#host svg");
  const texts = [...svg.querySelectorAll("text")].filter((n) => n.textContent.trim());
  const scale = svg.getScreenCTM().a;  // CSS px per SVG unit
  return {
    sizes: texts.map((n) => [n.textContent, parseFloat(getComputedStyle(n).fontSize) * scale]),
    labels: texts.filter((n) => n.style.textAnchor === "start").map((n) => [n.textContent, box(n)]),
    lines: [...svg.querySelectorAll("line.abh-device")].map(box),
    controls: [...document.querySelectorAll(".abh-control > span")].map((n) => n.innerHTML),
    text: document.querySelector("#host").innerText,
    states: [...svg.querySelectorAll("text.abh-num")].filter((n) => n.textContent.trim())
      .map((n) => [n.textContent, box(n)]),
    titles: [...document.querySelectorAll(".abh-title")].map(
      (n) => [n.textContent, getComputedStyle(n).fontWeight]),
  };
}"""


def drawn(figure, language, width=PHONE):
    """What Chromium measures of ``figure`` drawn ``width`` px wide, in ``language``."""
    from playwright.sync_api import sync_playwright

    state = figure.get_state()
    state["words"] = figure_words(state["_esm"], language)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=snapshot.CHROMIUM, args=snapshot.CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_page(viewport={"width": width + 40, "height": 800})
            page.set_content(snapshot._page(state, width))
            page.evaluate(snapshot._RENDER, [state["_esm"], state["_css"], state])
            return page.evaluate(MEASURE)
        finally:
            browser.close()


def crosses(line, label):
    (l1, t1, r1, b1), (l2, t2, r2, b2) = line, label
    return l1 < r2 and l2 < r1 and t1 < b2 and t2 < b1


@pytest.mark.parametrize("width", [PHONE, snapshot.WIDTH])
@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("make", [kv_view, model_view, hybrid_view], ids=["kv", "model", "hybrid"])
def test_calculator_text_is_readable_and_uncrossed_on_a_phone(make, language, width):
    """Figures 11.3 (the model view) and 12.4 (the hybrid), on a phone and in the snapshot's
    text column."""
    seen = drawn(make(), language, width)
    small = [(text, round(px, 1)) for text, px in seen["sizes"] if px < 11 - 1e-6]
    assert not small, f"text under 11 px at {PHONE} px: {small}"
    assert seen["labels"] and seen["lines"]
    crossed = [
        text for text, label in seen["labels"] for line in seen["lines"] if crosses(line, label)
    ]
    assert not crossed, f"device lines cross the labels {crossed}"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_mla_sliders_name_their_symbols_with_indices(language):
    seen = drawn(model_view(), language)
    controls = " ".join(seen["controls"])
    assert "d<sub>c</sub>" in controls and "d<sub>h</sub><sup>R</sup>" in controls
    assert not re.search(r"\bd_", seen["text"])


def test_korean_ratios_say_bae_not_times():
    seen = drawn(kv_view(), "ko")
    assert re.search(r"랩톱 메모리의 [0-9.,]+배", seen["text"]), seen["text"]
    assert not re.search(r"[0-9]×", seen["text"].replace(" × ", ""))
    english = drawn(kv_view(), "en")["text"]
    assert re.search(r"[0-9.,]+× the laptop's", english)


def test_a_korean_title_is_drawn_in_one_weight():
    korean = drawn(WindowSinks(step=4, window=3), "ko", width=680)["titles"]
    assert korean and all(weight == "400" for _, weight in korean), korean
    english = dict(drawn(WindowSinks(step=4, window=3), "en", width=680)["titles"])
    ring = [weight for text, weight in english.items() if text.startswith("ring buffer")]
    assert ring == ["600"]  # a Latin title keeps the figures' bold


HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("make", [SoftmaxBars, ScalingExplorer, StateFiller])
def test_a_title_with_hangul_is_regular_one_without_bold(make, language):
    """The other figures' titles as the window figure's: Hangul drawn at the one weight the
    font has (400), all of the title; a title of Latin letters only keeps .abh-title's 600."""
    titles = [
        (text, weight)
        for text, weight in drawn(make(), language, width=680)["titles"]
        if text.strip()
    ]
    assert titles, "no title drawn"
    korean = [(text, weight) for text, weight in titles if HANGUL.search(text)]
    latin = [(text, weight) for text, weight in titles if not HANGUL.search(text)]
    assert all(weight == "400" for _, weight in korean), korean
    assert all(weight == "600" for _, weight in latin), latin
    if language == "ko":
        assert korean and not latin, titles  # every title of the Korean edition has Hangul
    if make is SoftmaxBars:
        assert len(korean) == 2  # "scores s (점수)", "weights … (가중치)" in both languages


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_window_figures_column_states_do_not_overlap(language):
    """Step 2 of a window of 2: one key outside the window, three not written yet."""
    states = drawn(WindowSinks(step=2, window=2), language, width=680)["states"]
    texts = [text for text, _ in states]
    if language == "ko":
        assert "아직안 씀" in texts and "윈도우밖" in texts  # two lines each (tspans)
    overlapping = [
        (a, b)
        for i, (a, box_a) in enumerate(states)
        for b, box_b in states[i + 1 :]
        if crosses(box_a, box_b)
    ]
    assert not overlapping, overlapping
