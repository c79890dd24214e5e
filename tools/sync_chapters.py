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
  their order, no timings are recorded and a cell's printed lines are one output however
  the kernel flushed them, so re-running an unchanged chapter gives
  an unchanged diff;
- each interactive figure's output carries a PNG of its state, for JupyterLab to show
  before the notebook runs: the figure's own JavaScript drawn in headless Chromium
  (attn_book/widgets/snapshot.py), stored in attn_book/widgets/snapshots/ under a key of
  its state and code. A state captured before is reused, so a prose edit needs no
  browser; a figure whose state or code changed is captured anew, or, where Chromium is
  missing, keeps no PNG, and a warning names it. Snapshots no chapter uses are deleted;
- both files are written with book/jupytext.toml's settings, the ones JupyterLab's jupytext
  uses, and normalised as Lab saves them (attn_book.jupyter_server_extension), so opening
  and saving a chapter in Lab without an edit changes neither file.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from jupytext.config import load_jupytext_config
from nbclient import NotebookClient

from attn_book.jupyter_server_extension import KERNELSPEC, normalise
from attn_book.widgets import snapshot
from attn_book.widgets._base import SNAPSHOT_METADATA

BOOK = Path(__file__).resolve().parent.parent / "book"
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CAPTION = re.compile(r"^\*\*(Figure [0-9.]+)\.\*\*")


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
    """Run the cells in order, filling each Markdown cell's user_expressions as Lab would.

    Returns the figures shown, as (cell index, output, the figure's synced state when
    its cell had run), for :func:`store_snapshots`.
    """
    shown = []
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
                shown += [
                    (index, output, copy.deepcopy(client.widget_state[model_id]))
                    for output, model_id in figure_outputs(cell)
                ]
            elif exprs := expressions(cell):
                cell.metadata["user_expressions"] = evaluate(client, exprs)
        check_expressions_at_end(client, notebook)
        client.set_widgets_metadata()
    return shown


def figure_outputs(cell):
    """The outputs of a code cell that show one of the book's figures, with its model id."""
    for output in cell.get("outputs", []):
        view = output.get("data", {}).get(WIDGET_VIEW)
        if view and SNAPSHOT_METADATA in output.get("metadata", {}):
            yield output, view["model_id"]


def figure_name(cell, output):
    """How a warning names a figure: "Figure 4.2, QueryPad(...)", from its caption."""
    outputs = cell.get("outputs", [])
    after = outputs[outputs.index(output) + 1 :]
    captions = [o.get("data", {}).get("text/markdown", "") for o in after[:1]]
    label = [m.group(1) for c in captions if (m := CAPTION.match(c))]
    return ", ".join([*label, output["data"]["text/plain"]])


def store_snapshots(chapter, notebook, shown):
    """Give each figure's output the PNG of its state, capturing those not stored yet."""
    keys = [snapshot.snapshot_key(state) for _, _, state in shown]
    missing = {k: s for k, (_, _, s) in zip(keys, shown, strict=True) if not snapshot.stored_png(k)}
    why = snapshot.can_capture() if missing else None
    if missing and why is None:
        start = time.perf_counter()
        snapshot.SNAPSHOTS.mkdir(exist_ok=True)
        for key, png in zip(missing, snapshot.capture(list(missing.values())), strict=True):
            (snapshot.SNAPSHOTS / f"{key}.png").write_bytes(png)
        took = time.perf_counter() - start
        print(f"{chapter}: captured {len(missing)} figure snapshot(s) in {took:.1f} s")
    for key, (index, output, _) in zip(keys, shown, strict=True):
        output.metadata[SNAPSHOT_METADATA] = key
        png = snapshot.stored_png(key)
        if png is None:
            output.data.pop("image/png", None)
            print(
                f"warning: {chapter}: {figure_name(notebook.cells[index], output)} (cell "
                f"{index}) changed and has no snapshot, so JupyterLab shows its text until "
                f"the notebook runs: {why}. Sync this chapter where Chromium is installed.",
                file=sys.stderr,
            )
        else:
            output.data["image/png"] = base64.b64encode(png).decode("ascii")


def prune_snapshots():
    """Delete the stored snapshots that no chapter's notebook shows, in any language (a
    translation's figures draw their words: tools/i18n.py build stores their snapshots)."""
    used = set()
    for path in [*BOOK.glob("*.ipynb"), *BOOK.glob("*/*.ipynb")]:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            used |= {
                o.metadata[SNAPSHOT_METADATA] for o, _ in figure_outputs(nbformat.from_dict(cell))
            }
    for png in snapshot.SNAPSHOTS.glob("*.png"):
        if png.stem not in used:
            png.unlink()


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
        coalesce_streams=True,  # one stdout output per cell, however the kernel flushed it
    )
    shown = execute_with_expressions(client, notebook)
    store_snapshots(py_path.name, notebook, shown)
    notebook = normalise(stable_widget_ids(notebook, py_path.stem))
    nbformat.validate(notebook)
    jupytext.write(notebook, py_path.with_suffix(".ipynb"), fmt="ipynb", config=config)
    jupytext.write(notebook, py_path, fmt="py:percent", config=config)  # normalise the source
    prune_snapshots()
    print(f"synced and executed {py_path.name}")


if __name__ == "__main__":
    for path in chapters(sys.argv[1:]):
        sync(path)
