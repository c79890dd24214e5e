"""The glossary's table: every entry has its five cells and a meaning, and every link to a
chapter's section names a heading that chapter has (the site's build checks the same, with
myst's slugs: the heading's words without its maths, as docutils makes ids)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
GLOSSARY = BOOK / "glossary.md"
LINK = re.compile(r"\]\((\d\d_\w+)\.ipynb(?:#([^)]+))?\)")


def rows():
    lines = GLOSSARY.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.startswith("| ") and not line.startswith("| English")]


def slugs(chapter):
    """The anchors myst gives a chapter's headings: words and code kept, maths left out."""
    from docutils.nodes import make_id

    text = (BOOK / f"{chapter}.py").read_text(encoding="utf-8")
    headings = re.findall(r"^# #{1,3} (.+)$", text, re.M)
    return {make_id(re.sub(r"\$[^$]*\$", "", h).replace("`", "")) for h in headings}


def test_the_glossary_has_its_terms():
    assert len(rows()) > 150


@pytest.mark.parametrize("row", rows(), ids=lambda r: r.split(" | ")[0][2:40])
def test_each_entry_has_five_cells_and_a_meaning(row):
    cells = row[2:-2].split(" | ")
    assert len(cells) == 5, row  # English, 한국어, Symbol, Meaning, Introduced in
    english, korean, _symbol, meaning, links = cells
    assert english.strip() and korean.strip() and len(meaning.split()) >= 4, row
    assert LINK.search(links) or "intro.md" in links, row


def test_every_section_link_names_a_heading_of_its_chapter():
    links = [m.groups() for row in rows() for m in LINK.finditer(row) if m[2]]
    assert len(links) > 100
    unknown = [f"{chapter}#{anchor}" for chapter, anchor in links if anchor not in slugs(chapter)]
    assert unknown == []
