"""The whole book as one PDF (``make pdf``: tools/build_pdf.py prints the built site).

Checked with poppler's tools and pypdf on ``_build/html/attention-by-hand.pdf`` (``make
test-ci`` and ``make publish`` print it after building the site): a plausible page count; the
text holds the worked example's numbers and every page's title (chapters, introduction,
glossary, references, appendix); a bookmark for the contents and one per page of ``_toc.yml``
at its first page; the Hangul font embedded; page numbers running on across the book. It is a
book: a title page (title, version, date, licence, source); a table of contents whose page
numbers are where each page starts; no web control's words (toggle buttons, code-folding
prompts, answer boxes); the solutions of a chapter after its last exercise, under "Solutions".
The site's download menu links to the PDF.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PDF = "attention-by-hand.pdf"
NUMBERS = ("0.401", "0.198", "1.203", "0.797")


def toc_pages():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]
    for part in toc.get("parts", [toc]):
        names += [entry["file"] for entry in part.get("chapters", [])]
    return names


def poppler(tool, *args):
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} not found (Debian: apt-get install poppler-utils)")
    return subprocess.run([tool, *args], capture_output=True, text=True, check=True).stdout


def squeeze(text):
    return re.sub(r"\s+", "", text)


def site_title(site_dir, docname):
    html = (site_dir / f"{docname}.html").read_text(encoding="utf-8")
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.DOTALL).group(1)
    return unescape(re.sub(r"<[^>]+>", "", h1)).replace("#", "").strip()


@pytest.fixture(scope="module")
def pdf(site_dir):
    path = site_dir / PDF
    if not path.is_file() or path.stat().st_size < 100_000:
        pytest.fail(f"{path} is missing or the placeholder: run `make pdf` after `make book`")
    return path


def test_the_pdf_has_every_page_in_order_with_its_numbers(pdf, site_dir):
    pages = int(re.search(r"^Pages:\s+(\d+)", poppler("pdfinfo", str(pdf)), re.M).group(1))
    assert 60 <= pages <= 600, f"{pages} pages"  # 405 with twelve chapters: a guard, not a target
    text = poppler("pdftotext", str(pdf), "-")
    missing = [n for n in NUMBERS if n not in text]
    assert missing == [], f"the worked example's {missing} are not in the PDF"
    flat = squeeze(text)
    titles = [site_title(site_dir, d) for d in toc_pages()]
    assert [t for t in titles if squeeze(t) not in flat] == [], "titles not in the PDF's text"
    numbers = [int(n) for n in re.findall(r"^\s*(\d+)\s*$", text, re.M)]
    assert pages in numbers and 2 in numbers, "no running page numbers in the footers"


def bookmarks(pdf):
    """The top-level bookmarks: ``[(title, 1-based page)]``."""
    from pypdf import PdfReader

    reader = PdfReader(pdf)
    return [(item.title, reader.get_destination_page_number(item) + 1)
            for item in reader.outline if not isinstance(item, list)]  # fmt: skip


def test_the_pdf_has_a_bookmark_per_page_and_the_hangul_font(pdf, site_dir):
    items = bookmarks(pdf)
    titles = [site_title(site_dir, d) for d in toc_pages()]
    assert [t for t, _ in items] == ["Contents", *titles]
    starts = [p for _, p in items]
    assert starts[0] == 2 and starts == sorted(set(starts)), f"bookmarks' pages: {starts}"
    fonts = poppler("pdffonts", str(pdf)).splitlines()[2:]
    korean = [f for f in fonts if "NotoSansKR" in f]
    assert korean, "no Noto Sans KR in the PDF"
    assert all(f.split()[-5] == "yes" for f in korean), f"not embedded: {korean}"


def page_text(pdf, first, last=None):
    return poppler(
        "pdftotext", "-layout", "-f", str(first), "-l", str(last or first), str(pdf), "-"
    )


def test_the_pdf_opens_with_a_title_page_and_contents_with_page_numbers(pdf, site_dir):
    title = page_text(pdf, 1)
    for words in ("Attention by Hand", "Version", "Licence", "CC BY 4.0", "MIT", "Source"):
        assert words in title, f"the title page lacks {words!r}:\n{title}"
    assert re.search(r"\b20\d\d-\d\d-\d\d\b", title), "the title page has no date"
    items = bookmarks(pdf)
    contents = page_text(pdf, 2, items[1][1] - 1)
    assert contents.lstrip().startswith("Contents")
    lines = [squeeze(line) for line in contents.splitlines()]
    for name, start in items[1:]:
        want = squeeze(name) + str(start)
        assert any(line == want for line in lines), f"contents: no line {name!r} ... {start}"
    assert len(re.findall(r"\d+\s*$", contents, re.M)) > 2 * len(items), "sections not listed"


WEB_CONTROLS = (
    "Click to hide",
    "Click to show",
    "Show code cell",
    "Hide code cell",
    "Your answer (",
    "Not answered yet",
    "also in the download menu",
)


def test_the_pdf_prints_no_web_controls_and_gathers_the_solutions(pdf):
    text = poppler("pdftotext", str(pdf), "-")
    flat = re.sub(r"\s+", " ", text)
    found = [w for w in WEB_CONTROLS if w in flat]
    assert not found, f"web controls printed: {found}"
    # Chapter 4: every exercise comes before the "Solutions" section, every solution after it.
    items = dict(bookmarks(pdf))
    chapter = next(t for t in items if t.startswith("The worked example"))
    after = sorted(p for p in items.values() if p > items[chapter])[0]
    body = re.sub(r"\s+", " ", page_text(pdf, items[chapter], after - 1))
    solutions = body.rindex(" Solutions ")
    exercises = [m.start() for m in re.finditer(r"Exercise 4\.\d \(", body)]
    answers = [m.start() for m in re.finditer(r"Solution to Exercise 4\.\d", body)]
    assert len(answers) >= 3 and min(answers) > solutions, "solutions not gathered at the end"
    assert min(exercises) < solutions


def test_every_page_offers_the_pdf(site_dir):
    for docname in toc_pages():
        html = (site_dir / f"{docname}.html").read_text(encoding="utf-8")
        assert re.search(rf'href="[./]*{re.escape(PDF)}"', html), f"{docname}: no PDF link"


def short_pages(pdf):
    """The pages inside a page of the book (not the front matter, not the last page of a
    chapter, the glossary, ...) whose text stops before 60 % of the way down the page: how
    far down is read from the lowest word above the footer (``pdftotext -bbox``; a figure's
    caption, and a live figure's labels, are text too). ``(short pages, pages looked at)``."""
    out = poppler("pdftotext", "-bbox", str(pdf), "-")
    reach = []
    for height, body in re.findall(r'<page width="[\d.]+" height="([\d.]+)">(.*?)</page>',
                                   out, re.S):  # fmt: skip
        top, foot = float(height) * 16 / 297, float(height) * 281 / 297  # the @page margins
        ys = [y for y in map(float, re.findall(r'yMax="([\d.]+)"', body)) if y < foot]
        reach.append((max(ys, default=top) - top) / (foot - top))
    starts = [p for _, p in bookmarks(pdf)]
    inside = [p for p in range(starts[1], len(reach)) if p + 1 not in starts]  # 1-based
    return [p for p in inside if reach[p - 1] < 0.6], len(inside)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_long_boxes_break_across_pages_and_leave_no_half_empty_pages(language, site_dir):
    """A page ends short only where a figure, kept whole with its caption, needs the next
    one: solutions, exercises, code, outputs and tables break across pages (the site's print
    CSS). With every box kept whole, 29 of the 439 pages inside a chapter stopped above 60 %
    of the page (English; Korean 24 of 407); breaking them, 7 of 398 (5 of 367). What still
    stays whole, a display equation, does: no page ends with its number alone."""
    path = site_dir / (PDF if language == "en" else f"ko/{PDF}")
    if language == "ko" and not (site_dir / "ko" / "index.html").is_file():
        pytest.skip("no Korean edition in the built site")
    if not path.is_file() or path.stat().st_size < 100_000:
        pytest.fail(f"{path} is missing or the placeholder: run `make pdf` after `make book`")
    short, inside = short_pages(path)
    assert len(short) <= inside // 25, f"{len(short)} of {inside} pages end short: {short}"
    # a display equation stays whole: its number is not left alone at a page's foot
    pages = poppler("pdftotext", "-layout", str(path), "-").split("\f")[:-1]
    last = [[line for line in p.splitlines() if line.strip()][-2:] for p in pages]
    alone = [n for n, lines in enumerate(last, 1)
             if lines and re.fullmatch(r"\s*\(\d+\.\d+\)\s*", lines[0])]  # fmt: skip
    assert not alone, f"pages ending with an equation's number, the equation overleaf: {alone}"


#: The printed text column: A4's 210 mm less two 14 mm margins (build_pdf.PAGE_CSS), in CSS px.
PRINTED_WIDTH = round((210 - 2 * 14) / 25.4 * 96)
#: Each glossary table's width, the width it has, and its columns' widths, in its font's em.
GLOSSARY_COLUMNS = """() => [...document.querySelectorAll("article table")].map((t) => {
    const em = parseFloat(getComputedStyle(t).fontSize);
    const width = (e) => e.getBoundingClientRect().width / em;
    return {table: width(t), room: width(t.parentElement),
            columns: [...t.querySelectorAll("thead th")].map(width)};
})"""


@pytest.mark.parametrize("docname", ["book/glossary", "ko/book/glossary"])
def test_the_printed_glossary_fits_the_page_and_gives_each_column_its_room(
    docname, page, site, site_dir
):
    """Each glossary table fits the printed text column (the site's wide-table scroll box
    clips it in print: the links' column was cut off, by up to 6 em) with room for its
    words: each name column 5 em or more (the English book broke 한국어 after every syllable,
    2.3 em), the meaning 8 em or more (6 em, a handful of syllables, in the Korean book; 9.5
    em at the least now, beside chapter 12's long Gated DeltaNet formula). Laid out as
    printed: print media, the text column's width."""
    if not (site_dir / f"{docname}.html").is_file():
        pytest.skip(f"no {docname} in the built site")
    page.set_viewport_size({"width": PRINTED_WIDTH, "height": 1000})
    page.emulate_media(media="print")
    page.goto(site.url(f"{docname}.html"))
    page.wait_for_math()
    page.evaluate("() => document.fonts.ready.then(() => true)")
    tables = page.evaluate(GLOSSARY_COLUMNS)
    assert len(tables) >= 12, "one table per chapter"
    for i, t in enumerate(tables, 1):
        names, meaning = t["columns"][:2], t["columns"][3]
        ems = " ".join(f"{c:.1f}" for c in t["columns"])
        assert t["table"] <= t["room"] + 0.1, f"table {i}: {t['table']:.1f} em in {t['room']:.1f}"
        assert min(names) >= 5 and meaning >= 8, f"table {i}: columns {ems} em"


#: The printed page's whole width (A4), in CSS px: what Chromium's print media queries see.
PAGE_WIDTH = round(210 / 25.4 * 96)
#: Gather into this page's article every display equation of the pages ``urls``, each in
#: (shallow copies of) the boxes that hold it on its page once laid out as a book's chapter
#: (``layout``: build_pdf.BOOK_LAYOUT, run on the fetched page), typeset them all and return
#: each one's maths, the text column it sits in and its number, in CSS px. One page load for
#: every page's equations: loading each page in turn took 3 s a page on a busy machine.
DISPLAY_EQUATIONS = """async ({urls, layout, solutions}) => {
  const article = document.querySelector("article.bd-article");
  article.replaceChildren();
  for (const url of urls) {
    const doc = new DOMParser().parseFromString(await (await fetch(url)).text(), "text/html");
    new Function("document", `return (${layout})`)(doc)(solutions);
    const source = doc.querySelector("article.bd-article");
    for (const maths of source.querySelectorAll("div.math")) {
      let copy = document.importNode(maths, true);
      copy.dataset.page = url;
      for (let box = maths.parentElement; box !== source; box = box.parentElement) {
        const shell = document.importNode(box, false);
        shell.append(copy);
        copy = shell;
      }
      article.append(copy);
    }
  }
  await MathJax.typesetPromise([article]);
  await document.fonts.ready;
  return [...article.querySelectorAll("div.math")].map((box) => {
    const style = getComputedStyle(box), outer = box.getBoundingClientRect();
    const container = box.querySelector('mjx-container[display="true"]');
    const maths = container?.firstElementChild?.getBoundingClientRect();
    const left = outer.left + parseFloat(style.paddingLeft);
    const number = box.querySelector(":scope > .eqno");
    return {page: box.dataset.page.split("/").pop(), shown: Boolean(maths?.width),
            label: number ? number.firstChild.textContent.trim() : box.id || "(no number)",
            left: maths ? maths.left - left : 0, right: maths ? maths.right - left : 0,
            width: maths ? maths.width : 0,
            room: outer.right - parseFloat(style.paddingRight) - left,
            number: number ? number.getBoundingClientRect().left - left : null};
  });
}"""


def print_layout():
    """tools/build_pdf.py's rearrangement of a page into a book's chapter (solutions opened)."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import build_pdf

    return build_pdf.BOOK_LAYOUT


@pytest.mark.parametrize("language", ["en", "ko"])
def test_every_display_equation_fits_the_printed_column_beside_its_number(
    language, page, site, site_dir
):
    """Every display equation of every page, laid out as printed, fits the text column and
    ends before its number: MathJax does not break a display equation into lines, so a
    wider one ran out of the column, over its number, and was cut off at the page's edge
    (eq. 6.4, 650 px wide, printed as "q^T R((" under its "(6.4)"; ten equations of chapters
    2, 5, 6, 7, 8 and 11 in both books, 579 to 881 px beside a number that starts at 554 px).
    Laid out as Chromium prints it: print media, the media queries seeing the whole A4
    page's width (the theme's wider padding applies: a printed paragraph starts 64 px into the
    text column and an equation's number ends at 657 px, as in the printed PDF), the page laid
    out in the text column (A4 less its margins, build_pdf.PAGE_CSS), each equation in the
    boxes that hold it once tools/build_pdf.py has opened and gathered the solutions."""
    root = site_dir if language == "en" else site_dir / "ko"
    if not (root / "index.html").is_file():
        pytest.skip(f"no {language} edition in the built site")
    prefix = "" if language == "en" else "ko/"
    docnames = toc_pages() if language == "en" else korean_pages()
    # the pages with display maths (Sphinx writes each as <div class="math ...">)
    with_maths = [d for d in docnames
                  if '<div class="math' in (root / f"{d}.html").read_text("utf-8")]  # fmt: skip
    assert len(with_maths) >= 10, f"display equations on only {with_maths}"
    page.set_viewport_size({"width": PAGE_WIDTH, "height": 1000})
    page.emulate_media(media="print")
    page.goto(site.url(f"{prefix}{with_maths[0]}.html"), wait_until="domcontentloaded")
    page.wait_for_function("() => window.MathJax?.startup?.promise")
    page.evaluate("() => MathJax.startup.promise.then(() => true)")
    page.add_style_tag(content=f"html {{ width: {PRINTED_WIDTH}px !important }}")
    urls = [site.url(f"{prefix}{d}.html") for d in with_maths]
    solutions = "Solutions" if language == "en" else "풀이"
    found = page.evaluate(DISPLAY_EQUATIONS, {"urls": urls, "layout": print_layout(),
                                              "solutions": solutions})  # fmt: skip
    assert len(found) >= 40, f"only {len(found)} display equations found"
    assert [e for e in found if not e["shown"]] == [], "display equations not typeset or hidden"
    too_wide = []
    for e in found:
        end = e["room"] if e["number"] is None else min(e["room"], e["number"])
        if e["left"] < -0.5 or e["right"] > end + 0.5:
            too_wide.append(f"{e['page']} {e['label']}: {e['width']:.0f} px wide, ends at "
                            f"{e['right']:.0f} px, the room ends at {end:.0f} px")  # fmt: skip
    assert not too_wide, "display equations wider than the printed column:\n" + "\n".join(too_wide)


# --- the Korean book (make pdf prints it from _build/html/ko when the site has it) ----------


def korean_pages():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import build_pdf

    return [name for _, name in build_pdf.toc_parts("ko")]


@pytest.fixture(scope="module")
def korean_pdf(site_dir):
    if not (site_dir / "ko" / "index.html").is_file():
        pytest.skip("no Korean edition in the built site")
    path = site_dir / "ko" / PDF
    if not path.is_file() or path.stat().st_size < 100_000:
        pytest.fail(f"{path} is missing or the placeholder: run `make pdf` after `make book`")
    return path


def test_the_korean_pdf_is_a_korean_book(korean_pdf, site_dir):
    front = page_text(korean_pdf, 1)
    for words in ("손으로 푸는 어텐션", "라이선스", "CC BY 4.0", "MIT"):
        assert words in front, f"the Korean title page lacks {words!r}:\n{front}"
    items = bookmarks(korean_pdf)
    titles = [site_title(site_dir / "ko", d) for d in korean_pages()]
    assert [t for t, _ in items] == ["차례", *titles]
    assert page_text(korean_pdf, 2).lstrip().startswith("차례")
    text = poppler("pdftotext", str(korean_pdf), "-")
    missing = [n for n in NUMBERS if n not in text]
    assert missing == [], f"the worked example's {missing} are not in the Korean PDF"
    flat = re.sub(r"\s+", " ", text)
    assert " 풀이 " in flat, "no gathered solutions (풀이)"
    found = [w for w in (*WEB_CONTROLS, "아직 답이 없음") if w in flat]
    assert not found, f"web controls printed: {found}"
    from pypdf import PdfReader

    assert PdfReader(korean_pdf).trailer["/Root"]["/Lang"] == "ko"
    fonts = poppler("pdffonts", str(korean_pdf)).splitlines()[2:]
    assert [f for f in fonts if "NotoSansKR" in f], "no Noto Sans KR in the Korean PDF"
