"""The language switch: every page of both editions links to its twin in the other language.

The Korean edition (tools/build_book.py) sits in ``ko/`` of the English site, each page at its
English twin's path. An English page links to its Korean twin only when there is one: a page
of ``book/ko/`` (a notebook, or a Markdown page other than README.md). Loaded from
``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

from pathlib import Path

KOREAN = Path(__file__).resolve().parent.parent / "book" / "ko"


def korean_twins(folder=KOREAN):
    """The stems of the pages that have a Korean twin (``book/ko/*.ipynb`` and ``*.md``)."""
    pages = [*folder.glob("*.ipynb"), *folder.glob("*.md")]
    return {p.stem for p in pages if p.name != "README.md"}


def language_switch(pagename, language, korean_pages):
    """The link to the same page in the other edition, or "" (an English page whose Korean
    twin does not exist yet).

    >>> language_switch("book/04_worked_example", "en", {"04_worked_example"})[-74:]
    '="../ko/book/04_worked_example.html" lang="ko" hreflang="ko">한국어</a></nav>'
    >>> language_switch("book/03_scaling", "en", {"04_worked_example"})
    ''
    >>> language_switch("book/intro", "ko", {"intro"})[-74:]
    '><a href="../../book/intro.html" lang="en" hreflang="en">English</a></nav>'
    """
    folder, _, name = pagename.rpartition("/")
    if folder != "book":
        return ""
    if language == "ko":
        href, lang, label, nav = f"../../{pagename}.html", "en", "English", "언어"
    elif name in korean_pages:
        href, lang, label, nav = f"../ko/{pagename}.html", "ko", "한국어", "Language"
    else:
        return ""
    link = f'<a href="{href}" lang="{lang}" hreflang="{lang}">{label}</a>'
    return f'<nav class="attn-language" aria-label="{nav}">{link}</nav>'


def add_language_switch(app, pagename, templatename, context, doctree):
    """Put the switch above the page's text."""
    if doctree is None or "body" not in context:
        return
    switch = language_switch(pagename, app.config.language or "en", korean_twins())
    context["body"] = switch + context["body"]


def setup(app):
    app.connect("html-page-context", add_language_switch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
