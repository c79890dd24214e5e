"""A plot's <img> on the site says what the figure shows, in the page's language (the cold
reader's tenth finding: the alt text was the image's path in both editions). site/attn_a11y.py
gives each notebook image its caption, the paragraph that attn_book.figures writes under it."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))

import attn_a11y  # noqa: E402 - after the path insert


def cell_output(*children):
    """A cell's outputs as myst-nb puts them in the doctree: a container of their nodes."""
    return nodes.container("", *children, classes=["cell_output"])


def caption(label, text):
    return nodes.paragraph("", "", nodes.strong(label, label), nodes.Text(" " + text))


def page(*containers):
    document = nodes.document(None, None)
    document.extend(containers)
    return document


def alts(document):
    return [image.get("alt") for image in document.findall(nodes.image)]


def test_a_plot_gets_its_caption_as_alt_in_both_languages():
    english = cell_output(
        nodes.image(uri="../_images/ab12.png"),
        caption("Figure 4.1.", "The attention output is a weighted\naverage of the values."),
    )
    korean = cell_output(
        nodes.image(uri="../_images/cd34.png"),
        caption("그림 11.1.", "W = 3일 때 여섯 단어의 슬라이딩 윈도우 가중치."),
    )
    document = page(english, korean)
    attn_a11y.figure_alt_texts(None, document, "book/04_worked_example")
    assert alts(document) == [
        "Figure 4.1. The attention output is a weighted average of the values.",
        "그림 11.1. W = 3일 때 여섯 단어의 슬라이딩 윈도우 가중치.",
    ]
    assert not any(alt.endswith(".png") for alt in alts(document))


def test_the_caption_is_found_through_myst_nbs_nesting():
    """As myst-nb builds it: cell_output > mime bundle > chosen item > image, and the caption
    (a Markdown output) in a sibling bundle; measured in a built doctree of chapter 2."""
    image = nodes.image(uri="../_images/ef56.png")
    bundle = nodes.container("", nodes.container("", image), nb_element="mime_bundle")
    markdown = caption("Figure 2.1.", "Weights.")
    markdown.insert(0, nodes.Text(""))  # myst-nb's paragraph opens with an empty Text node
    text = nodes.container("", nodes.container("", markdown))
    document = page(cell_output(bundle, text))
    attn_a11y.figure_alt_texts(None, document, "book/02_softmax")
    assert alts(document) == ["Figure 2.1. Weights."]


def test_an_image_without_a_caption_or_with_alt_is_left_alone():
    lone = cell_output(nodes.image(uri="a.png"), nodes.paragraph("", "Just a printed line."))
    given = cell_output(
        nodes.image(uri="b.png", alt="Drawn by hand."), caption("Figure 1.1.", "X.")
    )
    two = cell_output(
        nodes.image(uri="c.png"), nodes.image(uri="d.png"), caption("Figure 2.1.", "Y.")
    )
    prose = nodes.paragraph("", "", nodes.image(uri="e.png"))  # not a notebook output
    document = page(lone, given, two, prose)
    attn_a11y.figure_alt_texts(None, document, "x")
    assert alts(document) == [None, "Drawn by hand.", None, "Figure 2.1. Y.", None]


def test_the_extension_connects_the_alt_texts():
    connected = []

    class App:
        def connect(self, event, handler, **kw):
            connected.append((event, handler))

    attn_a11y.setup(App())
    assert ("doctree-resolved", attn_a11y.figure_alt_texts) in connected
