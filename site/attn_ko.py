"""The Korean edition's site build (tools/build_book.py builds it into ``_build/html/ko/``).

- A link of a Korean page to an English page it has no twin of yet (``../03_scaling.ipynb``,
  ``../references.md``, which JupyterLab follows from ``book/ko/``) becomes a link to that
  English page of the site, through the URL scheme ``en:`` (``myst_url_schemes``);
- Korean search: Sphinx has no Korean splitter, and a particle stays on its noun (사과를), so
  the index also holds every Hangul word's prefixes of two syllables or more: a search for
  사과 or 내적 finds 사과를 and 내적은.
- The theme's labels that it has no Korean for (:data:`THEME_WORDS`: the search box, the
  sidebars' buttons, the skip link, the PDF button) are given in Korean in every written page.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.search import SearchLanguage

ENGLISH_LINK = re.compile(r"\]\(\.\./(\d\d_\w+|references|glossary|intro)\.(?:ipynb|md)(#[^)]*)?\)")
HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")
WORD = re.compile(r"\w+")


def english_links(text):
    """``[Chapter 3](../03_scaling.ipynb#x)`` -> ``[Chapter 3](en:03_scaling.html#x)``.

    >>> english_links("[3장](../03_scaling.ipynb#the-derivation), [문헌](../references.md)")
    '[3장](en:03_scaling.html#the-derivation), [문헌](en:references.html)'
    """
    return ENGLISH_LINK.sub(lambda m: f"](en:{m[1]}.html{m[2] or ''})", text)


def rewrite_links(app, docname, source):
    source[0] = english_links(source[0])


def hangul_prefixes(word, longest=12):
    """A Hangul word and its prefixes of two syllables or more.

    >>> hangul_prefixes("사과를")
    ['사과를', '사과']
    """
    return [word[:n] for n in range(min(len(word), longest), 1, -1)] or [word]


class KoreanSearch(SearchLanguage):
    lang = "ko"
    language_name = "Korean"

    def split(self, input):
        words = []
        for word in WORD.findall(input):
            words += hangul_prefixes(word) if HANGUL_WORD.fullmatch(word) else [word]
        return words

    def word_filter(self, word):
        return len(word) > 1 or bool(HANGUL_WORD.fullmatch(word))


#: The theme's and the site's English labels, as a Korean page shows them (exact strings, in
#: attributes and as an element's whole text).
THEME_WORDS = {
    "Skip to main content": "본문으로 건너뛰기",
    "Back to top": "맨 위로",
    "Book (PDF)": "책 (PDF)",
    "Download the whole book as one PDF": "책 전체를 PDF 하나로 내려받기",
    "Search this book...": "이 책에서 검색...",
    "Toggle primary sidebar": "왼쪽 사이드바 열기·닫기",
    "Toggle secondary sidebar": "오른쪽 사이드바 열기·닫기",
    "Color mode": "색상 모드",
    "Site navigation": "사이트 탐색",
    "On this page": "이 페이지의 내용",
    "Main": "본문",
    "Page": "페이지",
    "previous page": "이전 페이지",
    "next page": "다음 페이지",
    "Version warning": "버전 경고",
    "으로 The Attention by Hand authors": "지은이: The Attention by Hand authors",
}


def korean_labels(text):
    """A written page with the theme's English labels in Korean.

    >>> korean_labels('<a title="Back to top"> Back to top </a><input placeholder="Main">')
    '<a title="맨 위로"> 맨 위로 </a><input placeholder="본문">'
    """
    for english, korean in THEME_WORDS.items():
        text = text.replace(f'="{english}"', f'="{korean}"')
        text = re.sub(rf">(\s*){re.escape(english)}(\s*)<", rf">\g<1>{korean}\g<2><", text)
    return text


def label_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        if "_static" not in page.parts:
            text = page.read_text(encoding="utf-8")
            fixed = korean_labels(text)
            if fixed != text:
                page.write_text(fixed, encoding="utf-8")


def setup(app):
    app.connect("source-read", rewrite_links)
    app.connect("build-finished", label_pages)
    app.add_search_language(KoreanSearch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
