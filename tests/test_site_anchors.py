"""Headings' anchors (site/attn_anchors.py): every ``#fragment`` of the glossaries' links is an
id of the page it names, in both editions; a Korean page's headings have their English twin's
ids, matched in order, which needs the twin pages to have the same headings in number."""

from __future__ import annotations

import doctest
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))

import attn_anchors  # noqa: E402 - after the path insert

SITE = ROOT / "_build" / "html"
KOREAN = ROOT / "book" / "ko"
FRAGMENT_LINK = re.compile(r"\]\(([\w.-]+)\.(?:ipynb|md)#([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+\S", re.MULTILINE)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def korean_twins():
    """The stems of the pages with a Korean twin (book/ko/*.ipynb and *.md but README.md)."""
    pages = [*KOREAN.glob("*.ipynb"), *KOREAN.glob("*.md")]
    return sorted({p.stem for p in pages if p.name != "README.md"})


def headings(path):
    """How many Markdown headings a page has (a notebook's Markdown cells; no code fences)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    return len(HEADING.findall(FENCE.sub("", text)))


def source(folder, stem):
    notebook = folder / f"{stem}.ipynb"
    return notebook if notebook.is_file() else folder / f"{stem}.md"


def test_the_anchor_functions_examples():
    assert doctest.testmod(attn_anchors).failed == 0


@pytest.mark.parametrize("stem", korean_twins())
def test_a_korean_page_has_as_many_headings_as_its_english_twin(stem):
    """attn_anchors matches the sections in order; with another number it keeps the Korean
    ids, and the links to the page's headings land at its top."""
    english, korean = source(ROOT / "book", stem), source(KOREAN, stem)
    assert headings(korean) == headings(english), f"{korean.name} against {english.name}"


def test_the_korean_glossary_links_to_headings_of_pages_with_a_korean_twin():
    """The Korean glossary's links to a heading name pages of the Korean edition."""
    twins = set(korean_twins())
    links = FRAGMENT_LINK.findall((KOREAN / "glossary.md").read_text(encoding="utf-8"))
    assert {page for page, _ in links} <= twins


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        self.ids.update(value for name, value in attrs if name == "id" and value)


def page_ids(path):
    parser = _Ids()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.ids


GLOSSARIES = {  # glossary -> the built folders whose pages its fragments must name
    "book/glossary.md": ["book", "ko/book"],  # the Korean edition's headings are the English
    "book/ko/glossary.md": ["ko/book"],
}


@pytest.mark.parametrize("glossary", sorted(GLOSSARIES))
def test_every_glossary_fragment_is_an_id_of_the_built_page(glossary):
    if not (SITE / "ko" / "book" / "glossary.html").is_file():
        pytest.skip("the site is not built with its Korean edition: run `make book`")
    links = FRAGMENT_LINK.findall((ROOT / glossary).read_text(encoding="utf-8"))
    assert links, f"{glossary} has no link to a heading"
    missing = []
    for folder in GLOSSARIES[glossary]:
        ids = {}
        for page, fragment in links:
            built = SITE / folder / f"{page}.html"
            if not built.is_file():  # an English page with no Korean twin yet
                continue
            if page not in ids:
                ids[page] = page_ids(built)
            if fragment not in ids[page]:
                missing.append(f"{folder}/{page}.html#{fragment}")
    assert not missing, f"{len(missing)} of {glossary}'s links land at a page's top: {missing}"
