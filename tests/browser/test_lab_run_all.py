"""Every chapter run in JupyterLab: Run All, as a reader does after reading.

The same JupyterLab as test_lab_reading.py (the ``lab_book`` fixture: a git copy of book/). After
Run All in each chapter (the gallery is run in test_jupyterlab.py) nothing raised, the live
figures' Hangul is drawn by the book's fonts, no answer is visible (no "✓ Correct", no open
solution) and no file changed. This takes about 4 minutes on two cores, so ``make test``
leaves it to CI (``make test-ci``); there nbval runs every chapter and
tests/test_pairs.py checks the outputs a fresh run reproduces.
"""

from __future__ import annotations

import subprocess

import pytest
from test_lab_reading import (
    CHAPTERS,
    chapter_url,
    open_chapter,
    scroll_through,
    shot,
    visible_text,
    wait_until_rendered,
)

RUN = [c for c in CHAPTERS if not c.startswith("99")]

QUEUED = """[...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
    .some(p => p.textContent.includes('*'))"""
STATUS = "document.querySelector('.jp-Notebook-ExecutionIndicator').dataset.status"
RUN_STARTED = f"() => {STATUS} !== 'idle' || {QUEUED}"
RUN_FINISHED = f"() => {STATUS} === 'idle' && !{QUEUED}"


@pytest.mark.parametrize("chapter", RUN)
def test_run_all_in_lab_raises_nothing_and_shows_no_answer(
    page, lab_book, chapter, open_in_lab, glyphs
):
    """Run All: nothing raises, every Hangul glyph of the live figures is drawn by the
    book's fonts, no "✓ Correct" shows and no solution unfolds; nothing is saved."""
    base, work = lab_book
    open_chapter(open_in_lab, page, chapter_url(base, chapter, "run"))
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    # Every code cell runs: it shows [*] until its turn ends. Wait for the run to start
    # (the kernel busy or a cell queued), then for an idle kernel and no cell left to run.
    page.wait_for_function(RUN_STARTED, timeout=30_000)
    page.wait_for_function(RUN_FINISHED, timeout=120_000)
    wait_until_rendered(page)  # the outputs and live figures of the last cells
    shot(page, f"{chapter}_run_all")
    scroll_through(page)
    checked, boxes = glyphs(page)  # the live figures now, and their outputs
    assert checked["prose"] > 0, f"{chapter} after Run All: no Hangul to check"
    assert boxes == [], f"{chapter} after Run All: Hangul no font of the book drew: {boxes[:3]}"
    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert tracebacks == [], f"{chapter}: Run All raised: {tracebacks[:1]}"
    assert visible_text(page, "✓ Correct") == [], f"{chapter}: an answer shows after Run All"
    open_solutions = page.locator("details[open]").filter(has_text="Solution")
    assert open_solutions.count() == 0, f"{chapter}: a solution unfolded after Run All"
    subprocess.run(["git", "checkout", "-q", "."], cwd=work, check=True)  # Run All saved nothing
