"""Every folded solution of every chapter is right: its code runs and its checker says so.

A solution is Markdown (a ``{solution}`` block holding the explanation and a ```python
listing), so "Run All" in JupyterLab never runs it and never shows an answer. This test
runs it: each chapter's code cells execute in order in one kernel, and right after each
solution block its listing runs in the same namespace; the last expression of a solution
is the checker's verdict, which must say correct.
"""

import ast
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

pytest.importorskip("nbclient")
from nbclient import NotebookClient

BOOK = Path(__file__).resolve().parent.parent / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
SOLUTION = re.compile(r"^(`{3,}|:{3,})\{solution\}(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
LISTING = re.compile(r"^```python\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
VERDICT = "assert _verdict.ok, f'the solution of {label} is judged: {_verdict!r}'"


def solutions(markdown):
    """(label, code) of each solution block in a Markdown cell."""
    found = []
    for _, body in SOLUTION.findall(markdown):
        label = body.splitlines()[0].strip()
        found += [(label, code) for code in LISTING.findall(body)]
    return found


def keep_verdict(code):
    """``code`` with its last expression (the checker's call) assigned to ``_verdict``."""
    tree = ast.parse(code)
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr):
        raise AssertionError(f"a solution listing must end with the checker's call:\n{code}")
    target = ast.Name("_verdict", ast.Store())
    tree.body[-1] = ast.copy_location(ast.Assign([target], last.value), last)
    return ast.unparse(ast.fix_missing_locations(tree))


def with_solutions_run(notebook):
    """The chapter's code cells, each solution's listing run (and judged) after its block."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cells.append(nbformat.v4.new_code_cell(cell.source))
        for label, code in solutions(cell.source) if cell.cell_type == "markdown" else []:
            cells.append(nbformat.v4.new_code_cell(keep_verdict(code)))
            cells.append(nbformat.v4.new_code_cell(VERDICT.replace("{label}", label)))
    return nbformat.v4.new_notebook(cells=cells, metadata=notebook.metadata)


def test_the_pattern_finds_a_solution_and_its_listing():
    text = "````{solution} ex-a\n:class: dropdown\n\nWhy.\n\n```python\nx = 1\n```\n````\n"
    assert solutions(text) == [("ex-a", "x = 1\n")]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_solution_is_judged_correct(path):
    notebook = jupytext.read(path)
    runnable = with_solutions_run(notebook)
    n_solutions = sum(VERDICT[:10] in c.source for c in runnable.cells)
    client = NotebookClient(
        runnable, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(BOOK)}}
    )
    client.execute()  # raises CellExecutionError, naming the solution, on a wrong answer
    exercises = sum(c.source.count("{exercise}") for c in notebook.cells)
    assert n_solutions >= exercises, f"{path.stem}: {exercises} exercises, {n_solutions} solutions"
