"""Pair each book/NN_name.py with its .ipynb and execute it, storing outputs and widget state.

Usage: python tools/sync_chapters.py [book/01_dot_product.py ...]   (default: every chapter)

The .py (py:percent) is the source. The .ipynb is rewritten from it and executed in a
fresh kernel with book/ as the working directory, so what is committed is exactly what a
reader gets from "Run all". Two things are derived here rather than written by hand:

- code cells between ``{solution-start}`` and ``{solution-end}`` get
  ``jupyter.source_hidden`` and ``jupyter.outputs_hidden``, so JupyterLab folds the
  solution (its code and its "✓ Correct") as the site does;
- cell ids come from the cell's source, widget model ids from the chapter's name and
  their order, and no timings are recorded, so re-running an unchanged chapter gives
  an unchanged diff.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

BOOK = Path(__file__).resolve().parent.parent / "book"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def chapters(args):
    paths = [Path(a).resolve() for a in args] or sorted(BOOK.glob("[0-9][0-9]_*.py"))
    return [p.with_suffix(".py") for p in paths]


def fold_solutions(notebook):
    """Fold the code cells inside solution blocks: JupyterLab shows a '…' bar for each."""
    inside = False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            if "{solution-start}" in cell.source:
                inside = True
            if "{solution-end}" in cell.source:
                inside = False
        elif inside:
            cell.metadata["jupyter"] = {"outputs_hidden": True, "source_hidden": True}
        else:
            cell.metadata.pop("jupyter", None)


def stable_ids(notebook):
    """Give each cell an id derived from its source (deduplicated by a counter)."""
    seen = {}
    for cell in notebook.cells:
        digest = hashlib.sha1(cell.source.encode("utf-8")).hexdigest()[:10]
        seen[digest] = seen.get(digest, 0) + 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"


def stable_widget_ids(notebook, name):
    """Replace the random widget model ids (uuid4 hex) by ids derived from ``name``."""
    state = notebook.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    if not state:
        return notebook
    text = nbformat.writes(notebook)
    for i, model_id in enumerate(state["state"]):
        stable = hashlib.sha1(f"{name}:{i}".encode()).hexdigest()[:32]
        text = text.replace(model_id, stable)
    return nbformat.reads(text, as_version=4)


def sync(py_path):
    notebook = jupytext.read(py_path)
    notebook.metadata.setdefault("kernelspec", KERNELSPEC)
    fold_solutions(notebook)
    stable_ids(notebook)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(BOOK)}},
        store_widget_state=True,
        record_timing=False,
    )
    client.execute()
    notebook = stable_widget_ids(notebook, py_path.stem)
    nbformat.validate(notebook)
    jupytext.write(notebook, py_path.with_suffix(".ipynb"), fmt="ipynb")
    jupytext.write(notebook, py_path, fmt="py:percent")  # normalise the source the same way
    print(f"synced and executed {py_path.name}")


if __name__ == "__main__":
    for path in chapters(sys.argv[1:]):
        sync(path)
