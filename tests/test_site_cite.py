"""Every author–year citation of the book names exactly one entry of references.bib, so that
the site's link (site/attn_cite.py) lands on that entry."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))

import attn_cite  # noqa: E402 - after the path insert

LINK = re.compile(r"\[([^\]]+)\]\(references\.md\)")
NOT_CITATIONS = {"references"}


def citations():
    found = set()
    for path in sorted((ROOT / "book").glob("*.py")) + sorted((ROOT / "book").glob("*.md")):
        text = re.sub(r"\n# ?", " ", path.read_text(encoding="utf-8"))  # join wrapped links
        found |= {t for t in LINK.findall(text) if t not in NOT_CITATIONS}
    return sorted(found)


@pytest.fixture(scope="module")
def entries():
    pytest.importorskip("pybtex")
    return attn_cite.read_entries(ROOT / "references.bib")


def test_the_book_cites():
    assert len(citations()) > 40


@pytest.mark.parametrize("text", citations())
def test_each_citation_names_one_entry(text, entries):
    assert attn_cite.citation_key(text, entries) is not None, text


def test_two_entries_of_one_author_and_year_take_a_and_b(entries):
    assert attn_cite.citation_key("Dao, 2023a", entries) == "dao2023flashattn"
    assert attn_cite.citation_key("Dao, 2023b", entries) == "dao2023"
    assert attn_cite.citation_key("Dao, 2023", entries) is None  # ambiguous: no anchor


def test_the_anchor_is_the_id_bibtex_cite_id_gives():
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert 'bibtex_cite_id: "cite-{key}"' in config
    assert attn_cite.anchor("wolchover_quanta") == "cite-wolchover-quanta"
