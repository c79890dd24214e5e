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


def _as_label(text):
    """A citation's words as a label: "Elhage et al. (2021)" is "Elhage et al., 2021"."""
    found = attn_cite.CITATION.match(text.strip())
    return f"{found['names'].strip()}, {found['year']}{found['suffix']}"


@pytest.mark.parametrize("text", citations())
def test_the_list_labels_each_cited_entry_as_the_text_cites_it(text, entries):
    key = attn_cite.citation_key(text, entries)
    assert attn_cite.labels(entries)[key] == _as_label(text)


def test_the_style_prints_those_labels_in_the_order_of_the_letters():
    pytest.importorskip("pybtex")
    from pybtex.database import parse_file

    data = parse_file(str(ROOT / "references.bib"))
    style = attn_cite.register_style()()
    formatted = list(style.format_entries(data.entries.values()))
    by_key = {entry.key: entry.label for entry in formatted}
    assert by_key["dao2023flashattn"] == "Dao, 2023a"  # "flash-attn" before "FlashAttention-2"
    assert by_key["dao2023"] == "Dao, 2023b"
    assert by_key["dao2024"] == "Dao & Gu, 2024"
    assert by_key["vaswani2017"] == "Vaswani et al., 2017"
    order = [entry.key for entry in formatted]
    assert order.index("dao2022") < order.index("dao2023flashattn") < order.index("dao2023")
    assert len(set(by_key.values())) == len(by_key)  # no two entries share a label


def test_no_chapter_uses_a_role_jupyterlab_cannot_resolve():
    """CONTRIBUTING.md: links and `{eq}`, never {ref}, {numref} or {cite}, which
    jupyterlab-myst shows as warnings (and a {ref} to an exercise failed the site's build)."""
    role = re.compile(r"\{(ref|numref|cite|cite:[a-z]+)\}`")
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted((ROOT / "book").glob("*.py")) + sorted((ROOT / "book").glob("*.md"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if role.search(line)
    ]
    assert found == [], "\n".join(found)


def test_no_exercise_title_holds_inline_code():
    """sphinx-exercise drops the label of an exercise whose title holds `code`, and the
    solution's reference to it then fails the site's build (seen with chapter 1's einsum)."""
    title = re.compile(r"^# ```\{exercise\} (.*)$")
    found = [
        f"{path.name}: {m.group(1)}"
        for path in sorted((ROOT / "book").glob("*.py"))
        for m in map(title.match, path.read_text(encoding="utf-8").splitlines())
        if m and "`" in m.group(1)
    ]
    assert found == [], "\n".join(found)
