"""The exercises' answer boxes on the site.

Under each exercise's answer cell goes ``<div class="attn-answer" data-exercise="ID">``, which
``site/static/attn-answers.js`` turns into the answer box; ``_static/attn-exercises-data.js``
holds every exercise's spec (``attn_book.exercises.site``). Site only: the notebooks are
unchanged. Loaded from ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

EXERCISE_IMPORT = re.compile(
    r"(?:from\s+attn_book\.exercises\s+import\s+|import\s+attn_book\.exercises\.)"
    r"(ch\d\d_\w+)\s+as\s+(\w+)"
)
CHECK_CALL = re.compile(r"^(\w+)\.(\w+)\.check\(", re.MULTILINE)


def code_cells(doctree):
    """(cell node, source text) of every myst-nb code cell of a page, in order."""
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") == "cell_code":
            source = next(iter(cell.findall(nodes.literal_block)), None)
            yield cell, source.astext() if source is not None else ""


def answer_cells(sources):
    """[(cell index, exercise id)]: the first cell calling ``alias.name.check(`` per exercise.

    ``alias`` is a chapter's exercise module imported on the page
    (``from attn_book.exercises import ch04_worked_example as ch4``); ``name`` one of its
    exercises. Generic over the chapter modules: a new ``chNN_*`` gets its boxes for free.

    Examples
    --------
    >>> answer_cells(["from attn_book.exercises import ch04_worked_example as ch4",
    ...               "answer = ...\\nch4.output_by_hand.check(answer)", "ch4.nothing.check(1)"])
    [(1, 'ch4-output-by-hand')]
    """
    import importlib

    from attn_book.exercises import Exercise

    modules = {}
    for text in sources:
        for module, alias in EXERCISE_IMPORT.findall(text):
            modules[alias] = importlib.import_module(f"attn_book.exercises.{module}")
    found, seen = [], set()
    for index, text in enumerate(sources):
        for alias, name in CHECK_CALL.findall(text):
            ex = getattr(modules.get(alias), name, None)
            if isinstance(ex, Exercise) and ex.id not in seen:
                seen.add(ex.id)
                found.append((index, ex.id))
    return found


def add_answer_boxes(app, doctree, docname):
    """Put ``<div class="attn-answer" data-exercise="ID">`` under each exercise's answer cell.

    ``site/static/attn-answers.js`` turns it into the answer box (or, for an exercise whose
    check runs Python, a note that it needs a kernel). Site only: the notebooks are unchanged.
    """
    if app.builder.format != "html":
        return
    cells = list(code_cells(doctree))
    for index, exercise_id in answer_cells([text for _, text in cells]):
        cell = cells[index][0]
        html = f'<div class="attn-answer" data-exercise="{exercise_id}"></div>'
        cell.parent.insert(cell.parent.index(cell) + 1, nodes.raw("", html, format="html"))


def write_exercise_specs(app, exception):
    """``_static/attn-exercises-data.js``: every exercise's spec (attn_book.exercises.site)."""
    if exception is not None or app.builder.format != "html":
        return
    from attn_book.exercises.site import specs_script

    target = Path(app.outdir) / "_static" / "attn-exercises-data.js"
    target.write_text(specs_script(), encoding="utf-8")


def setup(app):
    app.connect("doctree-resolved", add_answer_boxes)
    app.connect("build-finished", write_exercise_specs)
    app.add_js_file("attn-exercises-data.js")
    app.add_js_file("attn-answers.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
