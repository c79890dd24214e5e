"""Sphinx extension for the site: offer each chapter's jupytext source (.py) for download.

A chapter is a pair ``book/NN_name.ipynb`` (built) and ``book/NN_name.py`` (py:percent, the
source readers edit). sphinx-book-theme's download menu offers the ``.ipynb``; this adds
the ``.py`` beside it and copies the file into ``_sources/`` so the link resolves offline.
Loaded from ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

DOWNLOAD_GROUP = "download-buttons"


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


def add_py_button(app, pagename, templatename, context, doctree):
    """Put a .py link in the download menu of pages built from a jupytext pair."""
    if doctree is None or jupytext_source(app, pagename) is None:
        return
    url = f"{context['pathto']('_sources', 1)}/{pagename}.py"
    for button in context.get("header_buttons", []):
        if button.get("label") == DOWNLOAD_GROUP:
            entries = button["buttons"]
            # After the .ipynb link: the first entry ("source", the .ipynb for a notebook).
            entries.insert(1, py_button(url))


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
    # After sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", add_py_button, priority=502)
    app.connect("build-finished", copy_py_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
