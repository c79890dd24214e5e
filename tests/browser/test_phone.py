"""The site on a phone: 390 CSS px wide, touch and no mouse (Chrome's device emulation).

- axe-core's WCAG 2.0–2.2 A and AA audit (axe_audit.py, with ``wcag22aa``: 2.5.8's 24 × 24 px
  targets) at phone width, light and dark mode. `make test` audits :data:`SUBSET` (the pages
  with the most controls; a page load and audit at phone width costs about as much as at
  desktop); `make test-ci` sets ``ATTN_PHONE_PAGES=all`` and audits every page of ``_toc.yml`` and
  every page of the Korean edition. No page is wider than the phone.
- A finger drags a figure's handle: CDP ``Input.dispatchTouchEvent`` takes coordinates in the
  *visual* viewport, which a phone may scroll apart from the layout viewport that
  ``getBoundingClientRect`` measures, so ``visualViewport.offsetLeft/Top`` is subtracted.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path

import pytest
from axe_audit import COLOUR_RULES, NO_TRANSITIONS, audit, failing, set_mode
from test_site import PAGES

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from build_book import korean_pages

SUBSET = [
    "book/intro",
    "book/02_softmax",
    "book/06_positions",
    "book/99_figure_gallery",
    "ko/book/04_worked_example",
]
KOREAN = [f"ko/{d}" for d in korean_pages()]  # the Korean edition, _build/html/ko
AUDITED = PAGES + KOREAN if os.environ.get("ATTN_PHONE_PAGES") == "all" else SUBSET
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}


@contextlib.contextmanager
def phone_page(new_page):
    """A recorded page (conftest.py) emulating a 390 px touch phone through CDP."""
    with new_page() as page:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Emulation.setDeviceMetricsOverride", PHONE)
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        page.cdp = cdp
        yield page


def open_page(page, site, docname):
    page.goto(site.url(f"{docname}.html"), wait_until="load")
    page.wait_for_math()
    page.wait_for_widgets(timeout=30_000)
    page.settle()
    page.add_style_tag(content=NO_TRANSITIONS)


@pytest.mark.parametrize("docname", AUDITED)
def test_page_meets_wcag_22_aa_at_phone_width(docname, new_page, site, axe_source):
    with phone_page(new_page) as page:
        open_page(page, site, docname)
        assert page.evaluate("() => window.innerWidth") == PHONE["width"]
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"{docname} is {wide} px wide at 390 px"
        problems = []
        for mode, rules in (("light", None), ("dark", COLOUR_RULES)):
            set_mode(page, mode)
            problems += [f"[{mode}] {p}" for p in failing(audit(page, axe_source, rules=rules))]
        assert not problems, f"{docname} at 390 px:\n" + "\n".join(problems)


def touch(page, kind, x, y):
    """One CDP touch event at layout-viewport point (x, y)."""
    vx, vy = page.evaluate("() => [visualViewport.offsetLeft, visualViewport.offsetTop]")
    points = [] if kind == "touchEnd" else [{"x": x - vx, "y": y - vy}]
    page.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def swipe(page, x, y, dx, dy, steps=5):
    """A finger pressed at (x, y), moved by (dx, dy) in ``steps``, lifted."""
    touch(page, "touchStart", x, y)
    for step in range(1, steps + 1):
        touch(page, "touchMove", x + dx * step / steps, y + dy * step / steps)
    touch(page, "touchEnd", 0, 0)
    page.wait_for_timeout(300)


def centre(box):
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.fixture
def phone_pad(new_page, site):
    """``(page, the gallery's first query pad)`` at phone width."""
    with phone_page(new_page) as page:
        open_page(page, site, "book/99_figure_gallery")
        pad = page.locator(".abh-querypad").first
        pad.scroll_into_view_if_needed()
        yield page, pad
        assert not page.errors, page.errors


def test_a_finger_drags_the_query_at_phone_width(phone_pad):
    """On the gallery's query pad, a touch drag moves q: its handle and the weights' table
    follow the finger."""
    page, pad = phone_pad
    handle = pad.locator('.abh-handle[data-kind="query"]')
    box = handle.bounding_box()
    assert box["width"] >= 24 and box["height"] >= 24, f"q's target is {box}"
    table = pad.locator(".abh-table").inner_text()
    x, y = centre(box)
    swipe(page, x, y, -40, -30)
    assert centre(handle.bounding_box()) == pytest.approx((x - 40, y - 30), abs=3)
    assert pad.locator(".abh-table").inner_text() != table, "the weights did not change"


def test_a_finger_beside_a_small_key_dot_still_drags_it(phone_pad):
    """A key's dot is 12 px across; a press 9 px from its centre (off the dot, within the
    24 px target, dom.js ``nearest``) grabs it, and the dot follows the finger."""
    page, pad = phone_pad
    key = pad.locator('.abh-handle[data-kind="key"][data-index="1"]')
    box = key.bounding_box()
    assert box["width"] < 24, "the dot is small: this test is about its hit area"
    x, y = centre(box)
    x += 9
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y).dataset.kind", [x, y])
    assert under is None, f"the press lands on a mark ({under}), not beside one"
    swipe(page, x, y, -20, 16, steps=4)
    assert centre(key.bounding_box()) == pytest.approx((x - 20, y + 16), abs=3)


def test_a_finger_taps_and_drags_the_window_figures_words(new_page, site):
    """On the gallery's window figure at phone width, a tap on a word makes it the query t and
    a drag across the words moves t with the finger; each column is a 24 px target at least."""
    with phone_page(new_page) as page:
        open_page(page, site, "book/99_figure_gallery")
        fig = page.locator(".abh-window").first
        fig.scroll_into_view_if_needed()
        assert fig.bounding_box()["width"] <= PHONE["width"], "the figure is wider than the phone"
        step = fig.locator("label.abh-control output").first
        column = fig.locator('.abh-column[data-index="1"]')
        box = column.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24, f"a word's target is {box}"
        x, y = centre(box)
        touch(page, "touchStart", x, y)
        touch(page, "touchEnd", 0, 0)
        page.wait_for_timeout(300)
        assert step.inner_text() == "1 (사과를)"
        far = centre(fig.locator('.abh-column[data-index="4"]').bounding_box())
        swipe(page, x, y, far[0] - x, 0)
        assert step.inner_text() == "4 (배를)"
        assert "배를" in fig.locator("svg text.abh-title").first.text_content()


def test_a_finger_fills_the_state_token_by_token(new_page, site):
    """Chapter 12's state filler at 390 px: a drag along the tokens writes up to the token
    under the finger, a tap on one writes up to it; the figure fits the phone and every token
    is a 24 px target."""
    from attn_book.widgets.state_filler import fill, pairs

    keys, values, pair_of = pairs(3, 4, 4, rewrite=True)
    with phone_page(new_page) as page:
        open_page(page, site, "book/99_figure_gallery")
        fig = page.locator(".abh-statefill").first
        fig.scroll_into_view_if_needed()
        box = fig.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        tokens = [t.bounding_box() for t in fig.locator("rect.abh-tokenbox").all()]
        assert len(tokens) == 6 and all(t["width"] >= 24 and t["height"] >= 24 for t in tokens)
        (x0, y0), (x2, _) = centre(tokens[0]), centre(tokens[2])
        swipe(page, x0, y0, x2 - x0, 0)  # drag from the first token to the third
        assert fig.locator(".abh-stepper output").inner_text() == "3 of 6"
        cells = [
            float(t.replace("−", "-"))
            for t in fig.locator('text[data-role="state"]').all_text_contents()
        ]
        want = fill(keys, values, pair_of, 3, "delta", 0)["state"]
        assert cells == pytest.approx([x for row in want for x in row], abs=6e-4)
        x4, y4 = centre(fig.locator("rect.abh-tokenbox").nth(4).bounding_box())
        swipe(page, x4, y4, 0, 0, steps=1)  # a tap on the fifth token
        assert fig.locator(".abh-stepper output").inner_text() == "5 of 6"
        assert not page.errors, page.errors


#: The lines a cell's text takes: its text's boxes grouped where they overlap vertically (a
#: subscript's box overlaps its line's), and whether any Hangul word (two syllables side by
#: side) was broken between them.
CELL_LINES = r"""(cell) => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const lines = [];
  for (const r of [...range.getClientRects()].filter((r) => r.width > 0)) {
    const line = lines.find((l) => r.top < l.bottom && r.bottom > l.top);
    if (!line) lines.push({ top: r.top, bottom: r.bottom });
    else [line.top, line.bottom] = [Math.min(line.top, r.top), Math.max(line.bottom, r.bottom)];
  }
  const top = (node, k) => {
    const one = document.createRange();
    one.setStart(node, k);
    one.setEnd(node, k + 1);
    const box = [...one.getClientRects()].find((r) => r.width > 0);
    return box ? Math.round(box.top) : null;
  };
  const hangul = /[\uac00-\ud7a3]/;
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  let splitWord = null;
  for (let node = walker.nextNode(); node && !splitWord; node = walker.nextNode())
    for (let k = 0; k + 1 < node.data.length; k++)
      if (hangul.test(node.data[k]) && hangul.test(node.data[k + 1])
          && top(node, k) !== top(node, k + 1)) {
        splitWord = node.data;
        break;
      }
  return { text: cell.innerText.trim(), lines: lines.length, splitWord };
}"""

#: The pages with the widest tables printed by code (attn_book/tables.py): chapter 7's
#: cost table (가중치·V GFLOP, 지수 함수 계산(백만 번)), chapter 12's step, error and β tables.
TABLE_PAGES = [
    "ko/book/07_heads_and_masks",
    "ko/book/12_linear_attention",
    "book/12_linear_attention",
]


@pytest.mark.parametrize("docname", TABLE_PAGES)
def test_a_tables_headings_labels_and_numbers_stay_whole_at_phone_width(docname, new_page, site):
    """At 390 px a table printed by code kept "t = 1", "(2, 0)", "β = 1.0, 무작위 키" and
    가중치·V GFLOP on one line each (the browser squeezed the table to its narrowest and broke
    them at every space and at the dot); a table wider than the column scrolls in its own box,
    and the page stays as wide as the phone. No Hangul word in any table cell is broken. At
    1280 px the headings wrap as before and every one of these tables fits the column."""
    with phone_page(new_page) as page:
        open_page(page, site, docname)
        tables = page.locator("table.step-table")
        assert tables.count() >= 3, f"{docname}: the tables printed by code are gone"
        broken, scrolled = [], 0
        for table in tables.all():
            cells = table.locator(
                "th, td:first-child, td[style*='text-align:right']"
            ).all()  # the headings, the row labels, the numbers
            for cell in cells:
                shown = cell.evaluate(CELL_LINES)
                if shown["text"] and shown["lines"] != 1:
                    broken.append(f"{shown['text']!r} on {shown['lines']} lines")
            box = table.evaluate(
                """(t) => { let c = t.parentElement;
                   while (c && getComputedStyle(c).overflowX === 'visible') c = c.parentElement;
                   return { table: t.getBoundingClientRect().width, box: c.clientWidth,
                            overflow: getComputedStyle(c).overflowX }; }"""
            )
            if box["table"] > box["box"]:
                assert box["overflow"] in ("auto", "scroll"), (
                    f"{docname}: a wide table is cut: {box}"
                )
                scrolled += 1
        assert not broken, f"{docname} at 390 px: " + "; ".join(broken)
        assert scrolled >= 1, (
            f"{docname}: no table is wider than the phone's column (this test's premise)"
        )
        split = [
            s["splitWord"]
            for s in (c.evaluate(CELL_LINES) for c in page.locator("main :is(th, td)").all())
            if s["splitWord"]
        ]
        assert not split, f"{docname}: a Hangul word broken across lines in a table: {split}"
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"{docname} is {wide} px wide at 390 px"
    with new_page() as page:  # a desktop: these tables fit the column, their headings wrapped
        page.set_viewport_size({"width": 1280, "height": 900})
        open_page(page, site, docname)
        widths = page.locator("table.step-table").evaluate_all(
            "ts => ts.map((t) => [t.getBoundingClientRect().width, t.parentElement.clientWidth])"
        )
        assert all(table <= box for table, box in widths), f"{docname} at 1280 px: {widths}"


def test_a_korean_solutions_title_reads_in_korean_order(new_page, site):
    """sphinx-exercise titled a solution "Solution to Exercise 4.1" and, in Korean, 해답 연습 4.1:
    Korean words in English order. The Korean page says 연습 4.1 해답 (…), the link on 연습 4.1
    to the exercise; the English page keeps "Solution to Exercise 4.1 (…)". At 390 px."""
    titles = {}
    with phone_page(new_page) as page:
        for docname in ("ko/book/04_worked_example", "book/04_worked_example"):
            open_page(page, site, docname)
            titles[docname] = page.locator("div.solution > p.admonition-title").evaluate_all(
                """(ps) => ps.map((p) => [p.innerText.trim(), p.querySelector('a').innerText.trim(),
                                        p.querySelector('a').getAttribute('href')])"""
            )
    korean, english = titles["ko/book/04_worked_example"], titles["book/04_worked_example"]
    assert len(korean) == len(english) >= 3
    for n, ((ko, ko_link, ko_href), (en, en_link, en_href)) in enumerate(
        zip(korean, english, strict=True), 1
    ):
        assert re.fullmatch(rf"연습 4\.{n} 해답 \(.+\)", ko), ko
        assert ko_link == f"연습 4.{n}" and ko_href == en_href, (ko_link, ko_href, en_href)
        assert re.fullmatch(rf"Solution to Exercise 4\.{n} \(.+\)", en), en
        assert en_link.startswith(f"Exercise 4.{n} ("), en_link


def tap(page, element):
    """A finger's tap (CDP touch events) on ``element``'s centre, brought into view first."""
    element.scroll_into_view_if_needed()
    x, y = centre(element.bounding_box())
    touch(page, "touchStart", x, y)
    touch(page, "touchEnd", 0, 0)
    page.wait_for_timeout(300)


def test_a_plot_too_small_on_a_phone_enlarges_on_a_tap(new_page, site):
    """Chapter 7's heatmaps (580 px PNGs at 100 dpi, their numbers 7 pt) are drawn 358 px wide
    at 390 px: numbers 6 CSS px high as set, 4.4 px digits. Each plot drawn smaller than three
    quarters of its size has a button (그림 크게 보기); a tap on the plot shows it at its own
    size (7 pt = 9.7 CSS px) in a box that scrolls sideways, the page no wider than the phone
    and the caption in place; a second tap fits it again. At 1280 px no plot has the button."""
    with phone_page(new_page) as page:
        open_page(page, site, "ko/book/07_heads_and_masks")
        plots = page.locator("main div.cell_output > img")
        assert plots.count() >= 3
        for i in range(plots.count()):
            plot = page.locator("main div.cell_output img").nth(i)
            natural, shown = plot.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
            assert shown < 0.75 * natural, f"plot {i}: {shown} px of {natural}: not small here"
            output = page.locator("main div.cell_output:has(img)").nth(i)
            button = output.locator("button.attn-zoom-button")
            assert button.inner_text() == "그림 크게 보기" and button.is_visible(), i
            box = button.bounding_box()
            assert box["width"] >= 24 and box["height"] >= 24, box
            caption = output.locator("p").first.bounding_box()
            tap(page, plot)
            assert button.get_attribute("aria-pressed") == "true"
            assert plot.evaluate("i => i.getBoundingClientRect().width") == pytest.approx(natural)
            scroller = plot.evaluate(
                "i => [i.parentElement.scrollWidth, i.parentElement.clientWidth, "
                "getComputedStyle(i.parentElement).overflowX]"
            )
            assert scroller[0] > scroller[1] and scroller[2] == "auto", scroller
            assert output.locator("p").first.bounding_box()["x"] == pytest.approx(caption["x"])
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= PHONE["width"], f"enlarged, the page is {wide} px wide"
            tap(page, plot)
            assert button.get_attribute("aria-pressed") == "false"
            assert plot.evaluate("i => i.getBoundingClientRect().width") == pytest.approx(shown)
        assert not page.errors, page.errors
    with new_page() as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        open_page(page, site, "ko/book/07_heads_and_masks")
        assert page.locator("button.attn-zoom-button:visible").count() == 0
