"""Each notebook's stored figures carry the current JavaScript and CSS.

A notebook stores every figure's widget state, its ES module (``_esm``) and CSS included, and
JupyterLab and the site run that stored copy. A bundle rebuilt without re-syncing the chapters
would leave readers on the old drawing; this holds every stored copy equal to the bundle
files in ``attn_book/widgets/`` as they are now (no hash is written down here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attn_book.widgets._base import css

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = ROOT / "attn_book" / "widgets"
STATE = "application/vnd.jupyter.widget-state+json"


def stored_figures():
    """(notebook, model id, figure module, stored state) of every book figure in book/*.ipynb."""
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        models = notebook["metadata"].get("widgets", {}).get(STATE, {}).get("state", {})
        for model_id, model in models.items():
            state = model.get("state", {})
            figure = state.get("_anywidget_id", "")
            if figure.startswith("attn_book.widgets."):
                yield path.name, model_id, figure.split(".")[2], state


FIGURES = list(stored_figures())


def test_the_book_stores_figures():
    assert len(FIGURES) >= 10
    assert {module for _, _, module, _ in FIGURES} == {
        p.stem for p in WIDGETS.glob("*.js") if p.with_suffix(".py").exists()
    }, "every figure's bundle is shown somewhere, and every shown figure has a bundle"


@pytest.mark.parametrize(
    ("notebook", "model_id", "module", "state"),
    FIGURES,
    ids=[f"{nb}-{module}-{model_id[:8]}" for nb, model_id, module, _ in FIGURES],
)
def test_stored_javascript_and_css_are_the_current_bundle(notebook, model_id, module, state):
    current = (WIDGETS / f"{module}.js").read_text(encoding="utf-8")
    assert state["_esm"] == current, f"{notebook}: re-sync it (tools/sync_chapters.py)"
    assert state["_css"] == css(), f"{notebook}: re-sync it (tools/sync_chapters.py)"
