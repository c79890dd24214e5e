"""The download menu: the chapter's .py beside its .ipynb, and the whole book's PDF.

A chapter is a pair ``book/NN_name.ipynb`` (built) and ``book/NN_name.py`` (py:percent, the
source readers edit). sphinx-book-theme's download menu offers the ``.ipynb``; this adds
the ``.py`` beside it and copies the file into ``_sources/`` so the link resolves offline.
Every page's menu also offers the book as one PDF (``tools/build_pdf.py``, `make pdf`); until
it is printed, the link gets a one-page PDF saying how to make it. The PDF button's words come
from the site's gettext catalog (``site/locale``), so the Korean edition shows them in Korean.
Loaded from ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

DOWNLOAD_GROUP = "download-buttons"
BOOK_PDF = "attention-by-hand.pdf"  # written into the site by tools/build_pdf.py (make pdf)


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


def pdf_button(url, gettext=str):
    """The whole book as one PDF, in sphinx-book-theme's header-button format.

    >>> pdf_button("x.pdf")["text"]
    'Book (PDF)'
    """
    return {
        "type": "link",
        "url": url,
        "text": gettext("Book (PDF)"),
        "tooltip": gettext("Download the whole book as one PDF"),
        "icon": "fas fa-book",
        "label": "download-book-pdf-button",
    }


def download_entries(context):
    """The entries of the page's download menu (a list to change in place), or None."""
    for button in context.get("header_buttons", []):
        if button.get("label") == DOWNLOAD_GROUP:
            return button["buttons"]
    return None


def add_py_button(app, pagename, templatename, context, doctree):
    """Put a .py link in the download menu of pages built from a jupytext pair."""
    entries = download_entries(context) if doctree is not None else None
    if entries is not None and jupytext_source(app, pagename) is not None:
        # After the .ipynb link: the first entry ("source", the .ipynb for a notebook).
        url = f"{context['pathto']('_sources', 1)}/{pagename}.py"
        entries.insert(1, py_button(url))


def add_pdf_button(app, pagename, templatename, context, doctree):
    """Put the whole book's PDF in every page's download menu, in the page's language."""
    entries = download_entries(context) if doctree is not None else None
    if entries is not None:
        entries.append(pdf_button(context["pathto"](BOOK_PDF, 1), app.translator.gettext))


def placeholder_pdf(text):
    """A one-page PDF that says ``text`` (ASCII), for the link before `make pdf` has run.

    >>> placeholder_pdf("hi")[:9], placeholder_pdf("hi")[-6:]
    (b'%PDF-1.4\\n', b'%%EOF\\n')
    """
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


def setup(app):
    # After sphinx-book-theme builds its header buttons (priority 501); the .py first.
    app.connect("html-page-context", add_py_button, priority=502)
    app.connect("html-page-context", add_pdf_button, priority=503)
    app.connect("build-finished", copy_py_sources)
    app.connect("build-finished", keep_pdf_link_alive)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
