"""The whole book as one PDF (``make pdf``: tools/build_pdf.py prints the built site).

Checked with poppler's tools on ``_build/html/attention-by-hand.pdf`` (``make test`` prints it
after building the site): a plausible page count; the text holds the worked example's numbers
and every page's title (chapters, introduction, glossary, references, appendix) in the
table of contents' order; one bookmark per page of ``_toc.yml``; the Hangul font embedded;
page numbers running on across the book. The site's download menu links to the PDF.
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
    assert 60 <= pages <= 400, f"{pages} pages"
    text = poppler("pdftotext", str(pdf), "-")
    missing = [n for n in NUMBERS if n not in text]
    assert missing == [], f"the worked example's {missing} are not in the PDF"
    flat = squeeze(text)
    titles = [site_title(site_dir, d) for d in toc_pages()]
    assert [t for t in titles if squeeze(t) not in flat] == [], "titles not in the PDF's text"
    numbers = [int(n) for n in re.findall(r"^\s*(\d+)\s*$", text, re.M)]
    assert pages in numbers and 2 in numbers, "no running page numbers in the footers"


def test_the_pdf_has_a_bookmark_per_page_and_the_hangul_font(pdf, site_dir):
    xml = poppler("pdftohtml", "-xml", "-i", "-stdout", "-f", "1", "-l", "1", str(pdf))
    items = re.findall(r"<item page=\"(\d+)\">(.*?)</item>", xml)
    assert [unescape(t) for _, t in items] == [site_title(site_dir, d) for d in toc_pages()]
    starts = [int(p) for p, _ in items]
    assert starts[0] == 1 and starts == sorted(set(starts)), f"bookmarks' pages: {starts}"
    fonts = poppler("pdffonts", str(pdf)).splitlines()[2:]
    korean = [f for f in fonts if "NotoSansKR" in f]
    assert korean, "no Noto Sans KR in the PDF"
    assert all(f.split()[-5] == "yes" for f in korean), f"not embedded: {korean}"


def test_every_page_offers_the_pdf(site_dir):
    for docname in toc_pages():
        html = (site_dir / f"{docname}.html").read_text(encoding="utf-8")
        assert re.search(rf'href="[./]*{re.escape(PDF)}"', html), f"{docname}: no PDF link"
