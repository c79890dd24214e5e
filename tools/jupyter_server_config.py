"""JupyterLab's server as ``make lab`` sets it up (installed into .venv/etc/jupyter/)."""

import os
from importlib.util import find_spec

from jupyter_core.paths import jupyter_config_dir

c = get_config()  # noqa: F821 -- Jupyter's config loader provides it

# Saving a chapter writes it as tools/sync_chapters.py does (attn_book.lab), so a reader
# who only reads leaves the repository clean.
c.ContentsManager.pre_save_hook = "attn_book.lab.pre_save_hook"

# The book's Hangul font behind JupyterLab's own (attn_book/lab_custom/custom.css, built by
# attn_book/widgets/build_font.py), for machines without a Korean font. A reader's own
# custom.css in their Jupyter config folder comes first. The folders JupyterLab serves
# custom.css from are a setting of the web application, not a config option of its own.
BOOK_PACKAGE = find_spec("attn_book").submodule_search_locations[0]
c.LabApp.custom_css = True
c.ServerApp.tornado_settings = {
    "static_custom_path": [
        os.path.join(jupyter_config_dir(), "custom"),
        os.path.join(BOOK_PACKAGE, "lab_custom"),
    ]
}
