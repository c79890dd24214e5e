"""The Korean edition's site build (tools/build_book.py builds it into ``_build/html/ko/``).

- A link of a Korean page to an English page it has no twin of yet (``../03_scaling.ipynb``,
  ``../references.md``, which JupyterLab follows from ``book/ko/``) becomes a link to that
  English page of the site, through the URL scheme ``en:`` (``myst_url_schemes``);
- Korean search: Sphinx has no Korean splitter, and a particle stays on its noun (사과를), so
  the index also holds every Hangul word's prefixes of two syllables or more: a search for
  사과 or 내적 finds 사과를 and 내적은. A search typed with a particle or ending (소프트맥스를,
  어텐션에서) drops it (:func:`strip_particle`, the same rule in Python for the index and in
  the search page's JavaScript ``Stemmer`` for the query), so it finds what the bare noun
  finds.
- The labels the themes have no Korean for (the skip link, the sidebars' buttons, the search
  box, the PDF button, the folded code's prompt) come from the gettext catalog
  ``site/locale/ko/LC_MESSAGES/sphinx.po``: through the templates' ``_()`` (Sphinx reads it
  from ``locale_dirs``, which tools/build_book.py sets), and, for the two that are
  configuration, through :func:`korean_config`. sphinx-book-theme's own Korean catalog
  (its header buttons' tooltips) stays behind it: a label both have takes the site's
  (:func:`theme_catalog_behind_the_sites`).
- A solution's title in Korean word order: sphinx-exercise writes "Solution to" before the
  exercise's link, so its Korean catalog made 해답 연습 4.1 (…); :func:`solution_titles`
  makes it 연습 4.1 해답 (…), the link on 연습 4.1.
"""

from __future__ import annotations

import gettext
import json
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


#: Trailing particles and endings a search word loses (the longest that fits first), when
#: two syllables or more are left: 정의 and 각도 keep theirs.
PARTICLES = sorted(
    {
        *"을 를 이 가 은 는 의 에 로 와 과 도 만 나 랑".split(),
        *"에서 으로 까지 부터 에게 께서 한테 처럼 보다 마다 이다 이고 이며 이나 이랑 라고".split(),
        *"에는 에도 에서는 에서도 에서의 으로는 으로도 으로의".split(),
        *"로는 로도 로의 와는 와의 과는 과의".split(),
        *"에게서 까지는 부터는 만큼 이라고 이라는 라는 입니다 이었다 였다 이면 이란 란".split(),
    },
    key=lambda p: (-len(p), p),
)
SHORTEST_STEM = 2


def strip_particle(word):
    """A Hangul word without its trailing particle or ending (and a plural 들 before it).

    >>> [strip_particle(w) for w in ["소프트맥스를", "어텐션에서", "벡터들의", "행렬", "정의"]]
    ['소프트맥스', '어텐션', '벡터', '행렬', '정의']
    """
    if not HANGUL_WORD.fullmatch(word):
        return word
    for particle in PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= SHORTEST_STEM:
            word = word[: -len(particle)]
            break
    if word.endswith("들") and len(word) - 1 >= SHORTEST_STEM:
        word = word[:-1]
    return word


#: The search page's stemmer (searchtools.js stems every query word with it): strip_particle.
JS_STEMMER = """
var Stemmer = function() {
  const particles = %s;
  const hangul = /^[\\uac00-\\ud7a3]+$/;
  this.stemWord = function(word) {
    if (!hangul.test(word)) return word;
    for (const particle of particles) {
      if (word.endsWith(particle) && word.length - particle.length >= %d) {
        word = word.slice(0, -particle.length);
        break;
      }
    }
    if (word.endsWith("\\ub4e4") && word.length - 1 >= %d) word = word.slice(0, -1);
    return word;
  };
};
"""


class KoreanSearch(SearchLanguage):
    lang = "ko"
    language_name = "Korean"
    js_stemmer_code = JS_STEMMER % (
        json.dumps(PARTICLES, ensure_ascii=False),
        SHORTEST_STEM,
        SHORTEST_STEM,
    )

    def stem(self, word):
        return strip_particle(word)

    def split(self, input):
        words = []
        for word in WORD.findall(input):
            words += hangul_prefixes(word) if HANGUL_WORD.fullmatch(word) else [word]
        return words

    def word_filter(self, word):
        return len(word) > 1 or bool(HANGUL_WORD.fullmatch(word))


def korean_config(app, config):
    """The labels that come from configuration, in Korean from the site's catalog
    (``site/locale/ko/LC_MESSAGES/sphinx.po``, the build's ``locale_dirs``): jupyter-book's
    search placeholder, myst-nb's folded code prompts and the folded hints' button label
    (``config-inited``)."""
    gettext = app.translator.gettext
    options = dict(config.html_theme_options)
    options["search_bar_text"] = gettext(options.get("search_bar_text") or "Search this book...")
    config.html_theme_options = options
    config.nb_code_prompt_show = gettext(config.nb_code_prompt_show)
    config.nb_code_prompt_hide = gettext(config.nb_code_prompt_hide)
    app.add_js_file(
        None, body=TOGGLE_LABEL % json.dumps(gettext("Toggle hidden content"), ensure_ascii=False)
    )


def theme_catalog_behind_the_sites(app):
    """sphinx-book-theme's Korean catalog (``booktheme``, its header buttons' tooltips) with
    the site's in front of it, so that a label both have takes the site's: the theme's
    "Fullscreen mode" is 전체 화면으로보기, without its space (``builder-inited``: the theme
    has added its catalog by then; the site's is compiled to ``sphinx.mo`` before any
    extension loads). The theme's tooltips are lazy, so the pages read this translator."""
    from sphinx import locale

    key = ("general", "booktheme")  # sphinx.locale's (namespace, catalog)
    dirs = [str(Path(app.srcdir, d)) for d in app.config.locale_dirs]
    site = gettext.NullTranslations()  # asks its fallbacks, in the order added
    for directory in dirs:  # Sphinx's order: the first directory in front
        language = [app.config.language]
        site.add_fallback(gettext.translation("sphinx", directory, language, fallback=True))
    theme = locale.translators.get(key)
    if theme is not None:
        site.add_fallback(theme)
    locale.translators[key] = site


def mathjax_after_fonts(app, pagename, templatename, context, doctree):
    """MathJax sets ``\\text{가중치}``'s Hangul in Noto Sans KR (``unknownFamily``) and measures
    it when it typesets: before Noto Sans KR has loaded, it measured a fallback's widths,
    and the Hangul drawn later overran its box (the PDF's 가중치의 바이트 수 under its =).
    Typeset once the page's fonts have loaded (after sphinx.ext.mathjax's config script,
    before the deferred MathJax runs)."""
    if any("window.MathJax" in (js.attributes.get("body") or "") for js in app.builder._js_files):
        app.builder.add_js_file("", body=MATHJAX_AFTER_FONTS)


MATHJAX_AFTER_FONTS = """if (window.MathJax) {
  window.MathJax.startup = Object.assign(window.MathJax.startup || {}, {
    pageReady: () => document.fonts.ready.then(() => MathJax.startup.defaultPageReady()),
  });
}"""


#: sphinx-togglebutton writes its buttons' ``aria-label`` in English from its JavaScript, with
#: no catalog; this sets the translation once the page has loaded (after the buttons exist).
TOGGLE_LABEL = """window.addEventListener("load", () => {
  for (const button of document.querySelectorAll("button.toggle-button")) {
    button.setAttribute("aria-label", %s);
  }
});"""


def solution_title_in_korean_order(title, word):
    """A solution's resolved title ``[Text(word), reference(Text(" 연습 4.1"), Text(" ("),
    …subtitle…, Text(")"))]`` (sphinx-exercise's post-transform) as ``[reference(Text("연습
    4.1")), Text(" " + word), Text(" ("), …subtitle…, Text(")")]``. Returns whether it changed;
    a title of another shape (a custom one, or one already reordered) is left as it is.

    >>> from docutils import nodes
    >>> ref = nodes.reference("", "", nodes.Text(" 연습 4.1"), nodes.Text(" ("),
    ...                       nodes.emphasis("", "쿼리"), nodes.Text(")"), refid="ex")
    >>> title = nodes.title("", "", nodes.Text("해답"), ref)
    >>> solution_title_in_korean_order(title, "해답"), title.astext()
    (True, '연습 4.1 해답 (쿼리)')
    >>> title[0].astext(), title[0]["refid"]
    ('연습 4.1', 'ex')
    >>> solution_title_in_korean_order(title, "해답")
    False
    """
    from docutils import nodes

    if len(title) != 2 or not isinstance(title[0], nodes.Text) or title[0].astext() != word:
        return False
    reference = title[1]
    if not isinstance(reference, nodes.reference) or not isinstance(reference[0], nodes.Text):
        return False
    number, *subtitle = reference.children
    for child in subtitle:
        reference.remove(child)
    reference.replace(number, nodes.Text(number.astext().strip()))
    title.remove(title[0])
    title += nodes.Text(f" {word}")
    for child in subtitle:
        title += child
    return True


def solution_titles(app, doctree, docname):
    """Every solution's title in Korean order (``doctree-resolved``: after sphinx-exercise's
    post-transforms have written 해답 and the link to the exercise)."""
    try:
        from sphinx_exercise.nodes import solution_node, translate
    except ImportError:
        return
    word = str(translate("Solution to"))
    for node in doctree.findall(solution_node):
        if node.children and solution_title_in_korean_order(node[0], word):
            node["title"] = node[0].astext()


def setup(app):
    app.connect("source-read", rewrite_links)
    app.connect("doctree-resolved", solution_titles)
    app.connect("config-inited", korean_config)
    app.connect("builder-inited", theme_catalog_behind_the_sites)
    app.connect("html-page-context", mathjax_after_fonts, priority=600)  # after mathjax's
    app.add_search_language(KoreanSearch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
