"""The Korean edition of the site (``_build/html/ko/``, tools/build_book.py): each page loads
offline with its maths typeset, its figures drawn and every Hangul character drawn by a
shipped font, no raw TeX; it says ``lang="ko"``; the language switch leads to the same page in
the other edition and back; chapter 4's answer boxes answer in Korean, as the checkers do in a
kernel started in book/ko; Korean search finds 내적 and 사과 (a particle on the noun: 사과를);
the same axe audit as the English pages. Needs a built site (``make book``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from axe_audit import COLOUR_RULES, NO_TRANSITIONS, audit, failing, set_mode
from test_phone import PHONE, open_page, phone_page
from test_site import load_page, math_state, raw_tex_left, widget_state

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from build_book import korean_pages  # noqa: E402

PAGES = korean_pages()


@pytest.fixture(scope="module", params=PAGES)
def loaded(request, new_page, site, site_dir):
    docname = request.param
    if not (site_dir / "ko" / f"{docname}.html").is_file():
        pytest.skip("the Korean edition is not built: run `make book`")
    with new_page() as page:
        load_page(page, site.url(f"ko/{docname}.html"))
        yield docname, page


def test_korean_page_offline_and_clean(loaded, site, glyphs):
    docname, page = loaded
    _, untypeset = math_state(page)
    _, unrendered = widget_state(page)
    checked, no_glyph = glyphs(page)
    assert page.evaluate("document.documentElement.lang") == "ko"
    assert checked["prose"] > 10, f"{docname}: hardly any Hangul to check"
    assert not [u for u in page.requests if not site.is_local(u)]
    assert not page.failed_requests, f"{docname}: failed requests: {page.failed_requests}"
    assert not page.errors, f"{docname}: JavaScript errors: {page.errors}"
    assert not untypeset, f"{docname}: math not typeset: {untypeset}"
    assert not raw_tex_left(page), f"{docname}: raw TeX in the prose: {raw_tex_left(page)}"
    assert not unrendered, f"{docname}: widgets not rendered: {unrendered}"
    boxes = [g for g in no_glyph if not g["widget"]]
    assert not boxes, f"{docname}: Hangul no shipped font drew (boxes): {boxes}"
    text = page.inner_text("main")
    assert "<!--" not in text and "{eval}" not in text and "```" not in text
    checks = page.locator("div.attn-answer button.attn-answer-check").all_inner_texts()
    assert all(c.strip() == "확인" for c in checks), f"{docname}: answer boxes not in Korean"
    prose = page.evaluate(  # the page without its code (a comment may quote "Figure 1.3")
        """() => { const m = document.querySelector("main").cloneNode(true);
                   m.querySelectorAll(".cell_input, pre").forEach((e) => e.remove());
                   return m.textContent; }"""
    )
    english = re.findall(r"\bFigure \d+\.\d+", prose)
    assert not english, f"{docname}: figures still called Figure: {english[:3]}"


#: The English labels of the themes, the site and myst-nb that a Korean page shows in Korean
#: (site/locale/ko/LC_MESSAGES/sphinx.po): none may be an element's whole text or a label
#: attribute's value, and those of more than one word appear nowhere in the page's text.
ENGLISH_LABELS = [
    "Skip to main content", "Back to top", "Book (PDF)", "Download the whole book as one PDF",
    "Search this book...", "Toggle primary sidebar", "Toggle secondary sidebar", "Color mode",
    "Site navigation", "On this page", "Main", "Page", "previous page", "next page",
    "Version warning", "By The Attention by Hand authors", "으로 The Attention by Hand authors",
    "Show code cell source", "Hide code cell source",
]  # fmt: skip
LABELS_SHOWN = """() => {
    const texts = [], attributes = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent.closest("script, style, pre, code, .cell_input")) texts.push(node.nodeValue);
    }
    document.querySelectorAll("body *").forEach((e) => {
        for (const a of e.attributes) {
            if (/^(aria-.*|title|placeholder|alt|data-bs-title)$/.test(a.name)) {
                attributes.push(a.value);
            }
        }
    });
    return {texts, attributes};
}"""


def test_korean_page_shows_no_english_theme_label(loaded):
    docname, page = loaded
    shown = page.evaluate(LABELS_SHOWN)
    whole = {" ".join(t.split()) for t in shown["texts"] + shown["attributes"]}
    text = " ".join(" ".join(shown["texts"]).split())
    english = [label for label in ENGLISH_LABELS if label in whole]
    english += [label for label in ENGLISH_LABELS if " " in label and label in text]
    assert not english, f"{docname}: English labels: {sorted(set(english))}"
    assert "코드 보기" in whole or "hide-input" not in page.content(), docname


def test_the_language_switch_leads_to_the_twin_and_back(loaded, site):
    docname, page = loaded
    page.click('nav.attn-language a[lang="en"]')
    page.wait_for_load_state("load")
    assert page.url == site.url(f"{docname}.html")
    assert page.evaluate("document.documentElement.lang") == "en"
    page.click('nav.attn-language a[lang="ko"]')
    page.wait_for_load_state("load")
    assert page.url == site.url(f"ko/{docname}.html")


def test_korean_page_meets_wcag_aa_in_light_and_dark_mode(loaded, axe_source):
    docname, page = loaded
    page.add_style_tag(content=NO_TRANSITIONS)
    problems = []
    for mode, rules in (("light", None), ("dark", COLOUR_RULES)):
        set_mode(page, mode)
        problems += [f"[{mode}] {p}" for p in failing(audit(page, axe_source, rules=rules))]
    assert not problems, f"{docname}:\n" + "\n".join(problems)


ANSWERS = {  # exercise id -> answers a reader types into the box
    "ch4-weights-by-hand": ["[0.5, 0.5, 0.1]", "[0.401, 0.198, 0.401]", "solution"],
    "ch4-output-by-hand": ["[1, 1]"],
}


def korean_verdicts():
    """{id: [the Python checker's line for each answer]}, in a kernel's language for book/ko."""
    code = (
        "import json, sys\n"
        "from attn_book.exercises import get\n"
        "answers = json.loads(sys.argv[1])\n"
        "out = {}\n"
        "for i, texts in answers.items():\n"
        "    ex = get(i)\n"
        "    out[i] = [repr(ex.check(ex.solution if t == 'solution' else json.loads(t)))\n"
        "              for t in texts]\n"
        "print(json.dumps(out, ensure_ascii=False))\n"
    )
    env = {**os.environ, "ATTN_BOOK_LANG": "ko"}
    run = [sys.executable, "-c", code, json.dumps(ANSWERS)]
    out = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_chapter_4s_answer_boxes_answer_in_korean(page, site, site_dir):
    if not (site_dir / "ko" / "book" / "04_worked_example.html").is_file():
        pytest.skip("the Korean edition is not built: run `make book`")
    from attn_book.exercises import get

    page.goto(site.url("ko/book/04_worked_example.html"))
    page.wait_for_selector("div.attn-answer form")
    for exercise_id, want in korean_verdicts().items():
        box = page.locator(f'div.attn-answer[data-exercise="{exercise_id}"]')
        assert "답" in box.locator("label").first.inner_text()
        assert box.locator("button.attn-answer-check").inner_text().strip() == "확인"
        for text, line in zip(ANSWERS[exercise_id], want, strict=True):
            solution = [round(float(x), 3) for x in get(exercise_id).solution]
            typed = json.dumps(solution) if text == "solution" else text
            box.locator("input[type=text]").fill(typed)
            box.locator("button.attn-answer-check").click()
            shown = box.locator(".attn-answer-verdict").inner_text().strip()
            assert shown == line, (exercise_id, text)
    assert want[0].startswith(("✓ 정답", "✗ 아직 정답이 아니다"))


@pytest.mark.parametrize("query", ["내적", "사과", "소프트맥스"])
def test_korean_search_finds_the_korean_pages(page, site, site_dir, query):
    if not (site_dir / "ko" / "search.html").is_file():
        pytest.skip("the Korean edition is not built: run `make book`")
    links = search_results(page, site, query)  # every result: they are listed one by one
    assert "/ko/book/04_worked_example.html" in links, links
    assert not [u for u in page.requests if not site.is_local(u)]
    assert not page.errors, page.errors


def search_results(page, site, query):
    """The page addresses the Korean site's search lists for ``query`` (sorted)."""
    page.goto(site.url(f"ko/search.html?q={query}"))
    page.wait_for_selector("#search-results ul.search li", timeout=20_000)
    page.wait_for_function(  # searchtools.js says how many it found when it is done
        "() => /\\d/.test(document.querySelector('#search-results p')?.textContent || '')",
        timeout=20_000,
    )
    links = page.locator("#search-results ul.search li > a").evaluate_all(
        "(links) => links.map((a) => a.pathname)"
    )
    return sorted(set(links))


@pytest.mark.parametrize(
    ("typed", "noun"),
    [("소프트맥스를", "소프트맥스"), ("어텐션에서", "어텐션"), ("가중치는", "가중치")],
)
def test_korean_search_drops_a_trailing_particle(page, site, site_dir, typed, noun):
    """A word typed with its particle finds every page the bare noun finds (site/attn_ko.py's
    Stemmer), not only the pages with that exact form."""
    if not (site_dir / "ko" / "search.html").is_file():
        pytest.skip("the Korean edition is not built: run `make book`")
    bare = search_results(page, site, noun)
    assert len(bare) > 3, bare
    assert search_results(page, site, typed) == bare
    assert not page.errors, page.errors


KOREAN_PARAGRAPH = """() => {
    const p = [...document.querySelectorAll("main p")]
        .find((e) => /[\uac00-\ud7a3]/.test(e.textContent));
    const style = getComputedStyle(p);
    return {lang: document.documentElement.lang, wordBreak: style.wordBreak,
            overflowWrap: style.overflowWrap};
}"""


@pytest.mark.parametrize("docname", PAGES)
def test_korean_breaks_between_words_and_fits_a_phone(docname, new_page, site, site_dir):
    """Korean text breaks at spaces, not inside a word (word-break: keep-all), and with it no
    Korean page is wider than a 390 px phone (a long word wraps, code scrolls in its box)."""
    if not (site_dir / "ko" / f"{docname}.html").is_file():
        pytest.skip("the Korean edition is not built: run `make book`")
    with phone_page(new_page) as page:
        open_page(page, site, f"ko/{docname}")
        style = page.evaluate(KOREAN_PARAGRAPH)
        assert style == {"lang": "ko", "wordBreak": "keep-all", "overflowWrap": "break-word"}
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"ko/{docname} is {wide} px wide on a 390 px phone"


#: The figures' bold words (widgets.css: 600 or 700); a title with Hangul is drawn regular on
#: purpose (src/dom.js setTitle), so it is not among them.
BOLD_IN_FIGURES = ".abh-fig :is(.abh-table th, .abh-warn, .abh-vlabel, .abh-token.abh-selected)"


def test_the_figures_bold_hangul_is_drawn_in_a_bold_face(new_page, site, site_dir):
    """The figures' own Hangul font (hangul_font.css) has weight 400 only, so a bold heading
    such as "s + 이동값" drew "s +" bold and 이동값 regular. On the site, every Hangul glyph of
    a bold word in the gallery's figures comes from a bold face (the served Noto Sans KR 700
    slices), asked of Chromium (CDP CSS.getPlatformFontsForNode) for each element."""
    if not (site_dir / "ko" / "book" / "99_figure_gallery.html").is_file():
        pytest.skip("the Korean edition is not built: run `make book`")
    with new_page() as page:
        load_page(page, site.url("ko/book/99_figure_gallery.html"))
        page.evaluate("() => document.fonts.ready")
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": BOLD_IN_FIGURES})
        checked, regular = 0, []
        for node in nodes["nodeIds"]:
            html = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
            text = re.sub(r"<[^>]+>", "", html)
            if not re.search("[\uac00-\ud7a3]", text):
                continue
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            # the Hangul's faces: Noto Sans KR's (the shipped subset and the served slices)
            hangul = [f["postScriptName"] for f in fonts if "NotoSansKR" in f["postScriptName"]]
            checked += 1
            if not hangul or not all(name.endswith("Bold") for name in hangul):
                regular.append(f"{text!r}: {hangul}")
        assert checked >= 10, f"only {checked} bold words with Hangul in the gallery's figures"
        assert not regular, "bold Hangul drawn regular:\n" + "\n".join(regular)
