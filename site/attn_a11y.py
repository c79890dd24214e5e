"""Accessible HTML for the site (WCAG 2.1 AA).

Checked with axe-core by ``tests/browser/test_site.py`` on every page and
``tests/browser/test_a11y.py`` on the figures:

- the theme's search and colour-mode buttons come from ``site/_templates/`` (their accessible
  names contain their visible text; put first, before the themes' own templates);
- the references page's citations are list items of their ``role="list"`` (docutils writes
  the DPUB-ARIA 1.0 ``doc-biblioentry``, deprecated since DPUB-ARIA 1.1 and not a list item);
- a folded code cell's ``<summary>`` is named by its visible text ("Show code cell source"),
  not by myst-nb's fixed "Toggle hidden content";
- a plot's ``<img>`` has its caption as ``alt`` ("Figure 4.1. The attention output is ...", in
  the page's language), not the path myst-nb leaves there (:func:`figure_alt_texts`).

Loaded from ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import re
import types
from html import escape
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "_templates"


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


#: A caption's start, as attn_book.figures writes it under a figure: "**Figure 4.1.**".
_CAPTION = re.compile(r"^(?:Figure|그림) \d+\.\d+\.$")


def figure_alt_texts(app, doctree, docname):
    """Give each notebook image without alt text its figure's caption (``doctree-resolved``).

    myst-nb writes an image output as ``<img alt="../_images/<hash>.png">`` (no alt: the
    HTML writer puts the path), which a screen reader reads out. A figure's caption is the
    next output of its cell, a paragraph opening with **Figure N.M.**; its text, maths as
    written, becomes the image's ``alt``. An image with no caption keeps what it had.
    """
    from docutils import nodes

    for image in list(doctree.findall(nodes.image)):
        output = _cell_output_of(image)
        if image.get("alt") or output is None:
            continue
        caption = caption_after(image, output)
        if caption:
            image["alt"] = caption


def _cell_output_of(image):
    """The cell's output container around ``image`` (myst-nb nests the image in a mime bundle
    and its chosen item: container > container > image), or None."""
    from docutils import nodes

    node = image.parent
    while node is not None:
        if isinstance(node, nodes.container) and "cell_output" in node.get("classes", []):
            return node
        node = node.parent
    return None


def caption_after(image, output=None):
    """The text of the caption paragraph that follows ``image`` among its cell's outputs (in
    document order, at any depth), or None; another image first means no caption."""
    from docutils import nodes

    output = output if output is not None else image.parent
    found = list(output.findall(lambda n: isinstance(n, nodes.image | nodes.paragraph)))
    for node in found[found.index(image) + 1 :]:
        if isinstance(node, nodes.image):
            return None  # another figure's image comes first
        # myst-nb's Markdown output starts the paragraph with an empty Text node
        first = next((c for c in node.children if c.astext().strip()), None)
        if isinstance(first, nodes.strong) and _CAPTION.match(first.astext().strip()):
            return " ".join(node.astext().split())
    return None


def setup(app):
    app.connect("config-inited", add_templates)
    app.connect("doctree-resolved", figure_alt_texts)
    app.connect("builder-inited", accessible_html, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
