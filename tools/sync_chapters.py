"""Pair each book/NN_name.py with its .ipynb and execute it, storing outputs and prose numbers.

Usage: python tools/sync_chapters.py [book/01_dot_product.py ...]   (default: every chapter)

The .py (py:percent) is the source. The .ipynb is rewritten from it and executed in a
fresh kernel with book/ as the working directory, so what is committed is exactly what a
reader gets from "Run all". These are derived here rather than written by hand:

- every inline ``{eval}`expr``` of a Markdown cell is evaluated in the kernel when the run
  reaches that cell, and its result is stored in the cell's ``user_expressions`` metadata,
  where jupyterlab-myst shows it without running anything and where the site reads it
  (site/attn_eval.py). An expression whose value changes between its cell and the end of
  the chapter is refused: a reader who re-renders that cell after Run All would see
  another number than the text was written with (a quoted name was reassigned);
- a ``hide-input`` cell (code that only builds a figure) is folded in JupyterLab too
  (``jupyter.source_hidden``), as the site folds it;
- cell ids come from the cell's source, widget model ids from the chapter's name and
  their order, and no timings are recorded, so re-running an unchanged chapter gives
  an unchanged diff;
- both files are written with book/jupytext.toml's settings, the ones JupyterLab's jupytext
  uses, and normalised as Lab saves them (attn_book.lab), so opening and saving a chapter
  in Lab without an edit changes neither file.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import jupytext
import nbformat
from jupytext.config import load_jupytext_config
from nbclient import NotebookClient

from attn_book.lab import KERNELSPEC, normalise

BOOK = Path(__file__).resolve().parent.parent / "book"
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")


def chapters(args):
    paths = [Path(a).resolve() for a in args] or sorted(BOOK.glob("[0-9][0-9]_*.py"))
    return [p.with_suffix(".py") for p in paths]


def expressions(cell):
    """The distinct ``{eval}`` expressions of a Markdown cell, in order."""
    return list(dict.fromkeys(EVAL_ROLE.findall(cell.source)))


def evaluate(client, exprs):
    """Evaluate ``exprs`` in the running kernel; the results as user_expressions entries."""
    asked = {str(i): e for i, e in enumerate(exprs)}
    msg_id = client.kc.execute("", silent=True, store_history=False, user_expressions=asked)
    reply = client.wait_for_reply(msg_id)["content"]
    results = reply["user_expressions"]
    return [{"expression": e, "result": dict(results[str(i)])} for i, e in enumerate(exprs)]


def execute_with_expressions(client, notebook):
    """Run the cells in order, filling each Markdown cell's user_expressions as Lab would."""
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
            elif exprs := expressions(cell):
                cell.metadata["user_expressions"] = evaluate(client, exprs)
        check_expressions_at_end(client, notebook)
        client.set_widgets_metadata()


def check_expressions_at_end(client, notebook):
    """Refuse an expression whose value at the end differs from its value in place."""
    stored = [e for c in notebook.cells for e in c.metadata.get("user_expressions", [])]
    for entry in stored:
        if entry["result"].get("status") != "ok":
            raise RuntimeError(f"{{eval}}`{entry['expression']}` failed: {entry['result']}")
    at_end = evaluate(client, [e["expression"] for e in stored])
    changed = [
        f"{{eval}}`{a['expression']}`: {a['result']['data']['text/plain']} in place, "
        f"{b['result'].get('data', {}).get('text/plain')} at the end"
        for a, b in zip(stored, at_end, strict=True)
        if a["result"]["data"] != b["result"].get("data")
    ]
    if changed:
        raise RuntimeError(
            "these expressions change value later in the chapter (reassigned names?); the "
            "site would print the later value:\n  " + "\n  ".join(changed)
        )


def fold_hidden_inputs(notebook):
    """Fold in JupyterLab the code the site hides: a ``hide-input`` cell's source is folded.

    The site shows such a cell's output with its code behind a "Show code" button; Lab reads
    ``jupyter.source_hidden`` and shows a bar the reader can click open.
    """
    for cell in notebook.cells:
        if cell.cell_type == "code" and "hide-input" in cell.metadata.get("tags", []):
            cell.metadata["jupyter"] = {"source_hidden": True}


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
    config = load_jupytext_config(str(BOOK))
    notebook = jupytext.read(py_path, config=config)
    notebook.metadata["kernelspec"] = KERNELSPEC
    stable_ids(notebook)
    fold_hidden_inputs(notebook)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(BOOK)}},
        store_widget_state=True,
        record_timing=False,
    )
    execute_with_expressions(client, notebook)
    notebook = normalise(stable_widget_ids(notebook, py_path.stem))
    nbformat.validate(notebook)
    jupytext.write(notebook, py_path.with_suffix(".ipynb"), fmt="ipynb", config=config)
    jupytext.write(notebook, py_path, fmt="py:percent", config=config)  # normalise the source
    print(f"synced and executed {py_path.name}")


if __name__ == "__main__":
    for path in chapters(sys.argv[1:]):
        sync(path)
