"""The Korean edition's labels come from one gettext catalog, site/locale/ko/LC_MESSAGES/
sphinx.po: the themes' templates read it through ``_()`` and site/attn_ko.py sets the two
labels that are configuration (the search placeholder, myst-nb's folded code prompts) from
it. Every label has its Korean there, and the templates that name a label say ``_()``."""

from __future__ import annotations

import gettext
import io
import re
import sys
import types
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))

import attn_ko  # noqa: E402 - after the path insert

PO = ROOT / "site" / "locale" / "ko" / "LC_MESSAGES" / "sphinx.po"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
LABELS = [  # the English labels a Korean page used to show (the theme's, the site's, myst-nb's)
    "Skip to main content", "Back to top", "Book (PDF)", "Download the whole book as one PDF",
    "Search this book...", "Toggle primary sidebar", "Toggle secondary sidebar", "Color mode",
    "Site navigation", "On this page", "Main", "Page", "previous page", "next page",
    "Version warning", "By %(author)s", "Show code cell {type}", "Hide code cell {type}",
    "Link to this heading", "Link to this equation", "Link to this definition",
    "Link to this table", "Link to this image", "Link to this code", "Link to this term",
    "Toggle hidden content", "Fullscreen mode", "Enlarge figure",
]  # fmt: skip


def catalog():
    with PO.open("rb") as stream:
        return read_po(stream, locale="ko")


def translations():
    out = io.BytesIO()
    write_mo(out, catalog())
    out.seek(0)
    return gettext.GNUTranslations(out)


@pytest.mark.parametrize("label", LABELS)
def test_every_label_has_its_korean(label):
    message = catalog().get(label)
    assert message is not None, f"{label!r} is not in {PO.name}"
    assert not message.fuzzy and HANGUL.search(message.string), message.string
    for field in re.findall(r"%\(\w+\)s", label):
        assert field in message.string


@pytest.mark.parametrize(
    ("template", "label"),
    [
        ("toggle-primary-sidebar.html", "Toggle primary sidebar"),
        ("toggle-secondary-sidebar.html", "Toggle secondary sidebar"),
        ("sbt-sidebar-nav.html", "Main"),
        ("layout.html", "Page"),
        ("author.html", "By %(author)s"),
    ],
)
def test_the_sites_templates_give_their_labels_through_gettext(template, label):
    text = (ROOT / "site" / "_templates" / template).read_text(encoding="utf-8")
    assert f"_('{label}')" in text


def test_the_korean_configuration_takes_its_labels_from_the_catalog():
    config = types.SimpleNamespace(
        html_theme_options={"search_bar_text": "Search this book...", "logo": {}},
        nb_code_prompt_show="Show code cell {type}",
        nb_code_prompt_hide="Hide code cell {type}",
    )
    scripts = []
    app = types.SimpleNamespace(
        translator=translations(), add_js_file=lambda path, body: scripts.append(body)
    )
    attn_ko.korean_config(app, config)
    assert config.html_theme_options == {"search_bar_text": "이 책에서 검색...", "logo": {}}
    assert (config.nb_code_prompt_show, config.nb_code_prompt_hide) == ("코드 보기", "코드 숨기기")
    assert len(scripts) == 1 and '"숨긴 내용 펼치기/접기"' in scripts[0]


def test_no_written_page_is_rewritten():
    """The labels are rendered in Korean, not replaced in the HTML after the build."""
    assert not hasattr(attn_ko, "THEME_WORDS")
    assert "build-finished" not in Path(attn_ko.__file__).read_text(encoding="utf-8")


def test_the_sites_catalog_stands_in_front_of_the_themes(tmp_path, monkeypatch):
    """sphinx-book-theme's own Korean (booktheme) answers only what the site's catalog does
    not: its "Fullscreen mode" lacks a space (전체 화면으로보기)."""
    from sphinx import locale

    folder = tmp_path / "locale" / "ko" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "sphinx.mo").open("wb") as stream:
        write_mo(stream, catalog())
    from babel.messages.catalog import Catalog

    theme_po, mo = Catalog(locale="ko"), io.BytesIO()
    theme_po.add("Fullscreen mode", "전체 화면으로보기")
    theme_po.add("Download this page", "이 페이지 다운로드")
    write_mo(mo, theme_po)
    mo.seek(0)
    theme = gettext.GNUTranslations(mo)
    monkeypatch.setitem(locale.translators, ("general", "booktheme"), theme)
    config = types.SimpleNamespace(locale_dirs=["locale"], language="ko")
    attn_ko.theme_catalog_behind_the_sites(types.SimpleNamespace(srcdir=tmp_path, config=config))
    label = locale.get_translation("booktheme")
    assert str(label("Fullscreen mode")) == "전체 화면으로 보기"
    assert str(label("Download this page")) == "이 페이지 다운로드"  # the theme's own
    assert str(label("Launch")) == "Launch"  # in neither: English


def test_mathjax_typesets_a_page_with_maths_once_its_fonts_have_loaded():
    """The PDF drew 가중치의 바이트 수 under its = : MathJax had measured the Hangul of \\text
    before Noto Sans KR loaded. After sphinx.ext.mathjax's config, its pageReady waits."""
    from sphinx.builders.html._assets import _JavaScript

    def page(scripts):
        builder = types.SimpleNamespace(_js_files=list(scripts))
        builder.add_js_file = lambda name, body: builder._js_files.append(
            _JavaScript(name, body=body)
        )
        attn_ko.mathjax_after_fonts(types.SimpleNamespace(builder=builder), "p", "t", {}, None)
        return [js.attributes.get("body", "") for js in builder._js_files]

    config = _JavaScript(
        "", body='window.MathJax = {"chtml": {"unknownFamily": "\'Noto Sans KR\', sans-serif"}}'
    )
    with_maths = page([config])
    assert len(with_maths) == 2 and "document.fonts.ready" in with_maths[1]
    assert with_maths[1].index("pageReady") < with_maths[1].index("defaultPageReady")
    assert page([_JavaScript("", body="let x = 1;")]) == ["let x = 1;"]  # no maths: nothing


SOLUTION_PAGE = """Page
====

.. exercise:: Again, with another query
   :label: ex-one

   Do it.

.. solution:: ex-one
   :label: sol-one

   Done.
"""


def solution_title(tmp_path, language):
    """The HTML title of the one solution of a two-directive page built by Sphinx with
    sphinx-exercise (and, in Korean, site/attn_ko.py's hook alone)."""
    from sphinx import locale
    from sphinx.application import Sphinx

    locale.translators.clear()  # the catalogs a build loaded stay for the next in-process
    src = tmp_path / language
    src.mkdir()
    (src / "index.rst").write_text(SOLUTION_PAGE, encoding="utf-8")
    extensions = ["sphinx_exercise"] + (["attn_ko"] if language == "ko" else [])
    (src / "conf.py").write_text(
        f"extensions = {extensions!r}\nlanguage = {language!r}\nnumfig = True\n", "utf-8"
    )
    app = Sphinx(src, src, src / "_out", src / "_doctrees", "html", status=None, warning=None)
    app.build()
    html = (src / "_out" / "index.html").read_text(encoding="utf-8")
    title = re.search(r'<div class="solution[^>]*>\s*<p class="admonition-title">(.*?)</p>', html)
    return re.sub(r"<[^>]+>", "|", title[1])  # | where a tag was: the link's ends


def test_a_solutions_title_is_in_korean_word_order(tmp_path, monkeypatch):
    """sphinx-exercise writes "Solution to" before the link to the exercise, and its Korean
    catalog gave 해답 연습 1 (…), Korean words in English order: in Korean it is 연습 1 해답 (…),
    the link on 연습 1. English keeps "Solution to Exercise 1 (…)", the link on "Exercise 1 (…)".

    sphinx-exercise has a Korean catalog from 1.1.0 on; at 1.0.1, the lowest version the project
    allows (pinning 1.1.0 there leaves pip's resolver too deep), its titles stay English."""
    from importlib.metadata import version

    if tuple(int(p) for p in version("sphinx-exercise").split(".")[:2]) < (1, 1):
        pytest.skip(f"sphinx-exercise {version('sphinx-exercise')} has no Korean catalog")
    monkeypatch.setattr(attn_ko, "korean_config", lambda app, config: None)  # site labels
    monkeypatch.setattr(attn_ko, "theme_catalog_behind_the_sites", lambda app: None)
    from sphinx import locale

    monkeypatch.setattr(locale, "translators", locale.translators.copy())  # restored after
    assert solution_title(tmp_path, "ko") == "|연습 1| 해답 (Again, with another query)"
    english = "Solution to| Exercise 1 (Again, with another query)|"
    assert solution_title(tmp_path, "en") == english
