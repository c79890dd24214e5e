"""The Korean edition's site build (tools/build_book.py builds it into ``_build/html/ko/``).

- A link of a Korean page to an English page it has no twin of yet (``../03_scaling.ipynb``,
  ``../references.md``, which JupyterLab follows from ``book/ko/``) becomes a link to that
  English page of the site, through the URL scheme ``en:`` (``myst_url_schemes``);
- Korean search: Sphinx has no Korean splitter, and a particle stays on its noun (사과를), so
  the index also holds every Hangul word's prefixes of two syllables or more: a search for
  사과 or 내적 finds 사과를 and 내적은.
"""

from __future__ import annotations

import re

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


def setup(app):
    app.connect("source-read", rewrite_links)
    app.add_search_language(KoreanSearch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
