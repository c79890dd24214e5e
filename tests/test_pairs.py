"""Every chapter is a jupytext pair whose .py and .ipynb say the same thing."""

import re
from pathlib import Path

import jupytext
import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.py"))
VERSION_LINE = re.compile(r"^#\s+jupytext_version: .*$", re.MULTILINE)


def test_there_are_chapters():
    assert CHAPTERS, f"no book/NN_name.py chapters found in {BOOK}"


@pytest.mark.parametrize("py_path", CHAPTERS, ids=lambda p: p.name)
def test_py_and_ipynb_in_sync(py_path):
    nb_path = py_path.with_suffix(".ipynb")
    assert nb_path.exists(), f"{py_path.name} has no paired {nb_path.name}"
    from_notebook = jupytext.writes(jupytext.read(nb_path), fmt="py:percent")
    source = py_path.read_text(encoding="utf-8")
    assert VERSION_LINE.sub("", from_notebook) == VERSION_LINE.sub("", source), (
        f"{nb_path.name} is out of sync with {py_path.name}: edit the .py, then run "
        f"`make sync` (tools/sync_chapters.py {py_path.relative_to(BOOK.parent)})"
    )


@pytest.mark.parametrize("py_path", CHAPTERS, ids=lambda p: p.name)
def test_ipynb_has_stored_outputs(py_path):
    notebook = jupytext.read(py_path.with_suffix(".ipynb"))
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert any(c.get("outputs") for c in code), f"{py_path.stem}.ipynb has no stored outputs"
    unexecuted = [i for i, c in enumerate(code) if c.get("execution_count") is None and c.source]
    assert not unexecuted, f"{py_path.stem}.ipynb: code cells {unexecuted} were never executed"


def output_texts(cell):
    """Every text an output of ``cell`` shows: streams, tracebacks, text/plain and HTML."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            yield "Traceback " + output.get("ename", "")
        yield output.get("text", "")
        data = output.get("data", {})
        yield data.get("text/plain", "") + data.get("text/html", "") + data.get("text/markdown", "")


NOTEBOOKS = [p.with_suffix(".ipynb") for p in CHAPTERS]
NOTEBOOKS += [BOOK / "ko" / p.name for p in NOTEBOOKS]  # the Korean edition's (tools/i18n.py)


def stderr_of(cell):
    """What ``cell`` wrote to stderr: a library's log lines (matplotlib's "Font 'default' does
    not have a glyph for ...", which carries no "Warning:") as much as warnings."""
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stderr")


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: str(p.relative_to(BOOK)))
def test_stored_outputs_raise_nothing_and_show_no_answer(nb_path):
    """What Run All shows: nbval holds a fresh run's outputs to these, so no cell raises,
    warns or writes to stderr, and no checker says "✓ Correct" after Run All (JupyterLab's
    Run All of every chapter is tests/browser/test_lab_run_all.py, in CI)."""
    notebook = jupytext.read(nb_path)
    shown = {i: "".join(output_texts(c)) for i, c in enumerate(notebook.cells)}
    raised = [i for i, t in shown.items() if "Traceback" in t or "Warning:" in t]
    logged = {i: stderr_of(c)[:200] for i, c in enumerate(notebook.cells) if stderr_of(c)}
    answered = [i for i, t in shown.items() if "✓ Correct" in t]
    assert not raised, f"{nb_path.name}: cells {raised} raised or warned"
    assert not logged, f"{nb_path.name}: cells wrote to stderr: {logged}"
    assert not answered, f"{nb_path.name}: cells {answered} show a correct answer"


FENCE_WITH_BACKTICK = re.compile(r"^(?:# )?(`{3,})\{[^}]+\}.*`", re.MULTILINE)


@pytest.mark.parametrize("path", CHAPTERS + sorted(BOOK.glob("*.md")), ids=lambda p: p.name)
def test_no_backtick_fenced_directive_has_a_backtick_in_its_title(path):
    """A backtick fence's info string may not hold a backtick (CommonMark), so a directive
    titled "Aside: `nn.MultiheadAttention`" opened no fence: its closing fence opened a code
    block instead, which swallowed the rest of the cell, a heading with it (seen in chapter
    7: the gallery's link to that heading broke the build)."""
    found = [m.group(0) for m in FENCE_WITH_BACKTICK.finditer(path.read_text(encoding="utf-8"))]
    assert not found, f"{path.name}: {found} (use a colon fence, or no code in the title)"
