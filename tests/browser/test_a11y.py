"""Accessibility (WCAG 2.1 AA) of the built site, as pydata-sphinx-theme tests its own pages.

axe-core (npm ``axe-core``, pinned in package-lock.json, ``npm ci --ignore-scripts``) runs
its WCAG 2.0/2.1 A and AA rules on every page of the table of contents, once in light and
once in dark mode (``data-theme`` on ``<html>``, as the theme's switch sets it), after the
maths is typeset and the figures have rendered. The page's structure is the same in both
modes, so the dark pass runs the rules whose outcome depends on colour (:data:`COLOUR_RULES`);
that halves the audit's time (a full pass takes 2-14 s per page on 2 busy cores). A
critical or serious violation fails the test unless :data:`ALLOWED` names it with its
upstream issue (it is empty: what the theme and Sphinx extensions caused is fixed in
``site/``). Every page's counts per rule land in
``_build/screenshots/a11y.json``.

Then the figures, by keyboard alone, in the gallery: each one is reached with Tab or focus,
moved with arrow keys, and says what changed (the weights, the output) through its polite
live region (``[aria-live="polite"]``, filled after the keys stop: debounced), with the
numbers attn_core computes.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

import attn_core
from attn_book.data import quanta_example

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
FAILING = ("critical", "serious")
GALLERY = "book/99_figure_gallery.html"
# rule id -> (CSS selector the violation may have, the upstream issue that explains it).
# Empty: every critical or serious violation the audit found is fixed in site/.
ALLOWED: dict[str, tuple[str, str]] = {}
RESULTS: dict[str, dict[str, dict[str, int]]] = {}

RUN_AXE = """async ({tags, rules, include}) => {
    const context = include ? {include: [[include]]} : document;
    const runOnly = rules ? {type: "rule", values: rules} : {type: "tag", values: tags};
    const result = await axe.run(context, {runOnly, resultTypes: ["violations"]});
    return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                  summary: n.failureSummary}))}));
}"""

NO_TRANSITIONS = "*, ::before, ::after { transition: none !important; animation: none !important }"


def toc_pages():
    """Document names in ``_toc.yml``, root first."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", [toc]):
        walk(part.get("chapters", []))
    return names


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.is_file():
        message = f"{AXE} is missing: run `npm ci --ignore-scripts` (package-lock.json)"
        if os.environ.get("ATTN_REQUIRE_BROWSER") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return AXE


@pytest.fixture(scope="module")
def report(site_dir):
    """Counts of every violation (any impact) per page, mode and rule, written at the end."""
    yield RESULTS
    out = site_dir.parent / "screenshots"
    out.mkdir(exist_ok=True)
    totals = Counter()
    for modes in RESULTS.values():
        for counts in modes.values():
            totals.update(counts)
    data = {"axe": AXE_VERSION, "total_nodes": dict(totals), "pages": RESULTS}
    (out / "a11y.json").write_text(json.dumps(data, indent=1) + "\n")


AXE_VERSION = None


def load(page, site, docname):
    """Open a page, wait for MathJax and every figure, switch transitions off."""
    page.goto(site.url(docname), wait_until="load")
    page.wait_for_math()
    page.wait_for_function(
        """() => [...document.querySelectorAll(
                'script[type="application/vnd.jupyter.widget-view+json"]')]
            .every(t => t.previousElementSibling
                        && t.previousElementSibling.classList.contains("widget-subarea")
                        && t.previousElementSibling.children.length > 0)""",
        timeout=30_000,
    )
    page.wait_for_load_state("networkidle")
    page.add_style_tag(content=NO_TRANSITIONS)


def audit(page, axe_source, include=None, rules=None):
    """axe's WCAG 2.0/2.1 A and AA violations on the page (or inside ``include``); with
    ``rules``, only those rules."""
    global AXE_VERSION
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(axe_source))
    AXE_VERSION = page.evaluate("() => axe.version")
    return page.evaluate(RUN_AXE, {"tags": TAGS, "rules": rules, "include": include})


def set_mode(page, mode):
    """Light or dark, as the theme's own switch sets it (``data-theme`` and ``data-mode``)."""
    page.evaluate(
        """mode => {
        document.documentElement.dataset.theme = mode;
        document.documentElement.dataset.mode = mode;
    }""",
        mode,
    )
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def failing(violations):
    """Critical and serious violations that :data:`ALLOWED` does not name."""
    bad = []
    for v in violations:
        if v["impact"] not in FAILING:
            continue
        allowed = ALLOWED.get(v["id"])
        nodes = [n for n in v["nodes"] if not (allowed and allowed[0] in n["target"])]
        if nodes:
            bad.append(f"{v['impact']} {v['id']} ({v['help']}): " + "; ".join(
                f"{n['target']}: {n['summary']}" for n in nodes[:5]))  # fmt: skip
    return bad


@pytest.mark.parametrize("docname", toc_pages())
def test_page_meets_wcag_aa_in_light_and_dark_mode(page, site, axe_source, report, docname):
    """No critical or serious axe violation on the page, in either colour mode."""
    load(page, site, f"{docname}.html")
    problems = []
    for mode, rules in (("light", None), ("dark", COLOUR_RULES)):
        set_mode(page, mode)
        violations = audit(page, axe_source, rules=rules)
        report.setdefault(docname, {})[mode] = {v["id"]: len(v["nodes"]) for v in violations}
        problems += [f"[{mode}] {p}" for p in failing(violations)]
    assert not problems, f"{docname}:\n" + "\n".join(problems)


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
