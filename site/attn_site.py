"""Sphinx extension for the site: the .py download, the repository buttons, no Thebe.

A chapter is a pair ``book/NN_name.ipynb`` (built) and ``book/NN_name.py`` (py:percent, the
source readers edit). sphinx-book-theme's download menu offers the ``.ipynb``; this adds
the ``.py`` beside it and copies the file into ``_sources/`` so the link resolves offline.
Loaded from ``_config.yml`` (``sphinx.local_extensions``).

The repository and Binder buttons point at the repository named by the environment variable
``ATTN_REPOSITORY_URL`` (a fork sets it to its own ``https://github.com/OWNER/NAME``); unset,
the site shows neither, so no button leads to a repository that does not exist.

sphinx-thebe, which jupyter-book always loads, adds its configuration script to every page
(twice: Sphinx 7.4 keeps the script both as registered, ``''``, and as added to the
builder, ``None``, which do not compare equal; the second ``const THEBE_JS_URL`` throws).
The site has no Thebe button, so those handlers are disconnected unless
``launch_buttons.thebe`` is on.

Accessibility (WCAG 2.1 AA, checked with axe-core by ``tests/browser/test_site.py`` on every
page and ``tests/browser/test_a11y.py`` on the figures): the
theme's search and colour-mode buttons come from ``site/_templates/`` (their accessible
names contain their visible text); the references page's citations are list items of their
``role="list"`` (docutils writes the DPUB-ARIA 1.0 ``doc-biblioentry``, deprecated since
DPUB-ARIA 1.1 and not a list item); a folded code cell's ``<summary>`` is named by its
visible text ("Show code cell source"), not by myst-nb's fixed "Toggle hidden content".
"""

from __future__ import annotations

import os
import re
import shutil
import types
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.errors import ConfigError

DOWNLOAD_GROUP = "download-buttons"
BOOK_PDF = "attention-by-hand.pdf"  # written into the site by tools/build_pdf.py (make pdf)
REPOSITORY_VARIABLE = "ATTN_REPOSITORY_URL"
GITHUB_REPOSITORY = re.compile(r"https://github\.com/[A-Za-z0-9-]+/[A-Za-z0-9._-]+")
TEMPLATES = Path(__file__).resolve().parent / "_templates"


def jupytext_source(app, docname):
    """Path of the .py paired with ``docname``'s .ipynb, or None."""
    source = Path(app.env.doc2path(docname))
    paired = source.with_suffix(".py")
    return paired if source.suffix == ".ipynb" and paired.is_file() else None


def py_button(url):
    """A link entry in sphinx-book-theme's header-button format."""
    return {
        "type": "link",
        "url": url,
        "text": ".py",
        "tooltip": "Download the jupytext source (py:percent)",
        "icon": "fas fa-file-code",
        "label": "download-py-button",
    }


def pdf_button(url):
    """The whole book as one PDF, in sphinx-book-theme's header-button format."""
    return {
        "type": "link",
        "url": url,
        "text": "Book (PDF)",
        "tooltip": "Download the whole book as one PDF",
        "icon": "fas fa-book",
        "label": "download-book-pdf-button",
    }


def add_py_button(app, pagename, templatename, context, doctree):
    """Put a .py link in the download menu of pages built from a jupytext pair, and the
    whole book's PDF in every page's download menu."""
    if doctree is None:
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == DOWNLOAD_GROUP:
            entries = button["buttons"]
            if jupytext_source(app, pagename) is not None:
                # After the .ipynb link: the first entry ("source", the .ipynb for a notebook).
                url = f"{context['pathto']('_sources', 1)}/{pagename}.py"
                entries.insert(1, py_button(url))
            entries.append(pdf_button(context["pathto"](BOOK_PDF, 1)))


def placeholder_pdf(text):
    """A one-page PDF that says ``text`` (ASCII), for the link before `make pdf` has run."""
    stream = f"BT /F1 14 Tf 72 770 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def keep_pdf_link_alive(app, exception):
    """Until `make pdf` has printed the book, its link gets a page saying how to make it (a
    site to publish is built by `make publish`, which prints the book and tests it)."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / BOOK_PDF
    if not target.exists():
        text = "No PDF built yet: run `make pdf` after `make book`, or `make publish`."
        target.write_bytes(placeholder_pdf(text))


def copy_py_sources(app, exception):
    """Copy every paired .py into ``_sources/`` next to the .ipynb Sphinx copies there."""
    if exception is not None or app.builder.format != "html":
        return
    for docname in app.env.found_docs:
        source = jupytext_source(app, docname)
        if source is not None:
            target = Path(app.outdir) / "_sources" / f"{docname}.py"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def repository_options(theme_options, url):
    """``theme_options`` with the repository and Binder buttons on for ``url``, off without.

    Parameters
    ----------
    theme_options : dict
        sphinx-book-theme's ``html_theme_options`` as jupyter-book made them.
    url : str or None
        ``https://github.com/OWNER/NAME`` (Binder builds from GitHub), or None/"" for none.

    Returns
    -------
    dict
        A new dict; ``theme_options`` is not modified.
    """
    launch = dict(theme_options.get("launch_buttons") or {})
    if not url:
        launch["binderhub_url"] = ""
        return {**theme_options, "use_repository_button": False, "launch_buttons": launch}
    url = url.strip().rstrip("/")
    if not GITHUB_REPOSITORY.fullmatch(url):
        raise ConfigError(
            f"{REPOSITORY_VARIABLE}={url!r} is not a GitHub repository URL: use "
            "https://github.com/OWNER/NAME, or unset it to build a site without repository "
            "and Binder buttons"
        )
    return {
        **theme_options,
        "repository_url": url,
        "use_repository_button": True,
        "launch_buttons": launch,
    }


def set_repository(app, config):
    """Apply ``ATTN_REPOSITORY_URL`` (``config-inited``)."""
    url = os.environ.get(REPOSITORY_VARIABLE)
    config.html_theme_options = repository_options(config.html_theme_options, url)


def drop_thebe(app, config):
    """Disconnect sphinx-thebe's page handlers when the site has no Thebe button."""
    if (config.html_theme_options.get("launch_buttons") or {}).get("thebe"):
        return
    for event in ("env-before-read-docs", "doctree-resolved"):
        for listener in list(app.events.listeners.get(event, [])):
            if getattr(listener.handler, "__module__", "") == "sphinx_thebe":
                app.disconnect(listener.id)
    app.registry.css_files = [c for c in app.registry.css_files if c[0] != "sphinx-thebe.css"]


EXERCISE_IMPORT = re.compile(
    r"(?:from\s+attn_book\.exercises\s+import\s+|import\s+attn_book\.exercises\.)"
    r"(ch\d\d_\w+)\s+as\s+(\w+)"
)
CHECK_CALL = re.compile(r"^(\w+)\.(\w+)\.check\(", re.MULTILINE)


def code_cells(doctree):
    """(cell node, source text) of every myst-nb code cell of a page, in order."""
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") == "cell_code":
            source = next(iter(cell.findall(nodes.literal_block)), None)
            yield cell, source.astext() if source is not None else ""


def answer_cells(sources):
    """[(cell index, exercise id)]: the first cell calling ``alias.name.check(`` per exercise.

    ``alias`` is a chapter's exercise module imported on the page
    (``from attn_book.exercises import ch04_worked_example as ch4``); ``name`` one of its
    exercises. Generic over the chapter modules: a new ``chNN_*`` gets its boxes for free.

    Examples
    --------
    >>> answer_cells(["from attn_book.exercises import ch04_worked_example as ch4",
    ...               "answer = ...\\nch4.output_by_hand.check(answer)", "ch4.nothing.check(1)"])
    [(1, 'ch4-output-by-hand')]
    """
    import importlib

    from attn_book.exercises import Exercise

    modules = {}
    for text in sources:
        for module, alias in EXERCISE_IMPORT.findall(text):
            modules[alias] = importlib.import_module(f"attn_book.exercises.{module}")
    found, seen = [], set()
    for index, text in enumerate(sources):
        for alias, name in CHECK_CALL.findall(text):
            ex = getattr(modules.get(alias), name, None)
            if isinstance(ex, Exercise) and ex.id not in seen:
                seen.add(ex.id)
                found.append((index, ex.id))
    return found


def add_answer_boxes(app, doctree, docname):
    """Put ``<div class="attn-answer" data-exercise="ID">`` under each exercise's answer cell.

    ``site/static/attn-answers.js`` turns it into the answer box (or, for an exercise whose
    check runs Python, a note that it needs a kernel). Site only: the notebooks are unchanged.
    """
    if app.builder.format != "html":
        return
    cells = list(code_cells(doctree))
    for index, exercise_id in answer_cells([text for _, text in cells]):
        cell = cells[index][0]
        html = f'<div class="attn-answer" data-exercise="{exercise_id}"></div>'
        cell.parent.insert(cell.parent.index(cell) + 1, nodes.raw("", html, format="html"))


def write_exercise_specs(app, exception):
    """``_static/attn-exercises-data.js``: every exercise's spec (attn_book.exercises.site)."""
    if exception is not None or app.builder.format != "html":
        return
    from attn_book.exercises.site import specs_script

    target = Path(app.outdir) / "_static" / "attn-exercises-data.js"
    target.write_text(specs_script(), encoding="utf-8")


KOREAN = Path(__file__).resolve().parent.parent / "book" / "ko"


def language_switch(pagename, language, korean_pages):
    """The link to the same page in the other edition, or "" (an English page whose Korean
    twin does not exist yet). The Korean edition sits in ``ko/`` of the English site, each
    page at its English twin's path.

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
    """Every page of both editions links to its twin in the other language (above its text)."""
    if doctree is None or "body" not in context:
        return
    korean_pages = {p.stem for p in [*KOREAN.glob("*.md"), *KOREAN.glob("*.ipynb")]} - {"README"}
    switch = language_switch(pagename, app.config.language or "en", korean_pages)
    context["body"] = switch + context["body"]


def add_templates(app, config):
    """Put ``site/_templates`` first, before the themes' own templates (``config-inited``)."""
    config.templates_path = [str(TEMPLATES), *config.templates_path]


class CitationListItems:
    """Citations as list items: docutils' ``visit_citation`` with ``role="listitem"``.

    docutils 0.21 wraps the citations in ``<div role="list">`` and gives each
    ``role="doc-biblioentry"``, which DPUB-ARIA 1.1 deprecates and which is no list item, so
    the list has no items (axe: aria-required-children, critical; aria-deprecated-role).
    """

    def visit_citation(self, node):
        if not isinstance(node.previous_sibling(), type(node)):
            self.body.append('<div role="list" class="citation-list">\n')
        self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def visit_hidden_cell(self, node):
    """myst-nb's folded cell without ``aria-label``: the shown prompt names the summary."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    for state, prompt in (("collapsed", "prompt_show"), ("expanded", "prompt_hide")):
        self.body.append(f'<p class="{state} admonition-title">{escape(node[prompt])}</p>\n')
    self.body.append("</summary>\n")


def accessible_html(app):
    """Wrap the HTML translator (after pydata-sphinx-theme's, ``builder-inited``)."""
    if app.builder.format != "html":
        return
    base = app.registry.translators.get(app.builder.name, app.builder.default_translator_class)
    translator = types.new_class("AttnHTMLTranslator", (CitationListItems, base), {})
    app.set_translator(app.builder.name, translator, override=True)
    try:
        from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
    except ImportError:  # myst-nb renamed it: the theme's summary label stays
        return
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))


def setup(app):
    app.connect("config-inited", add_templates)
    app.connect("builder-inited", accessible_html, priority=900)
    app.connect("config-inited", set_repository)
    app.connect("config-inited", drop_thebe)
    # After sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", add_py_button, priority=502)
    app.connect("html-page-context", add_language_switch)
    app.connect("build-finished", copy_py_sources)
    app.connect("doctree-resolved", add_answer_boxes)
    app.connect("build-finished", write_exercise_specs)
    app.add_js_file("attn-exercises-data.js")
    app.add_js_file("attn-answers.js")
    app.connect("build-finished", keep_pdf_link_alive)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
