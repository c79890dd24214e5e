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
