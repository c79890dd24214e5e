"""Pair each book/NN_name.py with its .ipynb and execute it, storing outputs and widget state.

Usage: python tools/sync_chapters.py [book/01_dot_product.py ...]   (default: every chapter)

The .py (py:percent) is the source. The .ipynb is rewritten from it and executed in a
fresh kernel with book/ as the working directory, so what is committed is exactly what a
reader gets from "Run all".
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

BOOK = Path(__file__).resolve().parent.parent / "book"


def chapters(args):
    paths = [Path(a).resolve() for a in args] or sorted(BOOK.glob("[0-9]*.py"))
    return [p.with_suffix(".py") for p in paths]


def sync(py_path):
    notebook = jupytext.read(py_path)
    notebook.metadata.setdefault(
        "kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"}
    )
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(BOOK)}},
        store_widget_state=True,
    )
    client.execute()
    nbformat.validate(notebook)
    jupytext.write(notebook, py_path.with_suffix(".ipynb"), fmt="ipynb")
    jupytext.write(notebook, py_path, fmt="py:percent")  # normalise the source the same way
    print(f"synced and executed {py_path.name}")


if __name__ == "__main__":
    for path in chapters(sys.argv[1:]):
        sync(path)
