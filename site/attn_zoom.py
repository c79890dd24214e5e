"""A plot too small to read on a phone shows at its own size on a tap (``attn-zoom.js``).

The book's plots are PNGs drawn at 100 dpi, 335–890 px wide, their smallest text 7–10 pt
(9.7–13.9 px at their own size). A 390 px phone draws them in its 358 px column: a 580 px
heatmap's 7 pt numbers come out 6.0 CSS px (their digits 4.4 px tall), chapter 2's 890 px
figure's 8 pt labels 4.5 px. ``site/static/attn-zoom.js`` gives a plot drawn smaller than
three quarters of its size a button, "Enlarge figure" (its ``aria-pressed`` says the state),
and the plot itself a tap: the plot shows at its own size in its output's box, which scrolls
sideways, and the same button or tap fits it to the column again. A 1280 px window draws every
plot at 0.77 of its size or more, so the desktop site has no button; print has none either.

The button's words come from the site's catalog (``site/locale/ko/LC_MESSAGES/sphinx.po``),
handed to the script as ``window.attnZoomWords``.
"""

from __future__ import annotations

import json


def add_script(app, config):
    """The script and, before it, its words in the page's language (``config-inited``: the
    site's catalog is loaded by then; from ``builder-inited`` on, Sphinx would write a script
    body added then twice)."""
    words = {"enlarge": app.translator.gettext("Enlarge figure")}
    app.add_js_file(None, body=f"window.attnZoomWords = {json.dumps(words, ensure_ascii=False)};")
    app.add_js_file("attn-zoom.js")


def setup(app):
    app.connect("config-inited", add_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
